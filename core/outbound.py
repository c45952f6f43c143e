"""Calls out of the engine as a decision sees them: a request it decided, an answer recorded.

Pure: nothing here calls anybody. A decision that reaches an outbound call (an http-connector
step) asks `RecordedCalls.answer`; when the answer is not known yet it raises
`OutboundCallNeeded`, the engine makes the call with no lock held (`flowledger.engine.
outbound`) and decides the command again with the answer in hand. What the call answered reaches
the log as the variables the step sets: a replay never calls out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from .errors import ProcessEngineError

__all__ = [
    "MAX_CALLS_PER_COMMAND",
    "Answer",
    "HttpRequest",
    "HttpResponse",
    "OutboundCallNeeded",
    "OutboundFailure",
    "RecordedCalls",
]

MAX_CALLS_PER_COMMAND = 16  # outbound calls one command may make (each has its own deadline)


class HttpRequest(msgspec.Struct, frozen=True):
    """What a decision asks of a remote service."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None


class HttpResponse(msgspec.Struct, frozen=True):
    """What the remote service answered (any status: a 500 is an answer, not a failure)."""

    status: int
    headers: tuple[tuple[str, str], ...]
    text: str


class OutboundFailure(msgspec.Struct, frozen=True):
    """The call did not complete: refused by the engine's policy, unreachable, too slow or too
    large. `message` says which, and names the limit."""

    message: str


Answer = HttpResponse | OutboundFailure


class OutboundCallNeeded(BaseException):
    """The decision reached a call whose answer is not recorded yet.

    A BaseException, as GeneratorExit is: it must unwind the whole decision, past every handler
    that turns a delegate's `Exception` into a failure or a BPMN error."""

    def __init__(self, request: HttpRequest, index: int, element_id: str) -> None:
        self.request = request
        self.index = index
        self.element_id = element_id
        super().__init__(f"outbound call {index} of '{element_id}': {request.method} {request.url}")


@dataclass
class RecordedCalls:
    """The answers one command's earlier attempts obtained, in the order it asked for them.

    An attempt that asks for the same request at the same place in the order gets the recorded
    answer; one that asks for something else (the state moved between attempts) needs a new
    call, and what was recorded after that place no longer applies."""

    answers: list[tuple[HttpRequest, Answer]] = field(default_factory=list)
    _next: int = 0

    def answer(self, request: HttpRequest, element_id: str) -> Answer:
        index = self._next
        if index < len(self.answers) and self.answers[index][0] == request:
            self._next += 1
            return self.answers[index][1]
        if index >= MAX_CALLS_PER_COMMAND:
            raise ProcessEngineError(
                f"'{element_id}' would make outbound call number {index + 1} of one command; a "
                f"command makes at most {MAX_CALLS_PER_COMMAND} (split the work with an "
                "asynchronous continuation, camunda:asyncBefore)"
            )
        raise OutboundCallNeeded(request, index, element_id)

    def record(self, needed: OutboundCallNeeded, answer: Answer) -> None:
        """Keep `answer` for the call `needed` asked for; what was recorded after it goes."""
        del self.answers[needed.index :]
        self.answers.append((needed.request, answer))
