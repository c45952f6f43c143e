"""The NATS JetStream export target: one message per event on `<prefix>.<EventType>` of the
stream the URL names (created with subjects `<prefix>.>` when missing), the CloudEvent as its
body, its id (`<origin>/<position>`) as `Nats-Msg-Id`.

Messages are published one by one, each waiting for its acknowledgement, so the stream holds
them in log order even across failures (several in flight could be stored around a lost one).
A re-sent message within the stream's duplicate window is dropped by JetStream; beyond it, the
runner skips what `open` found as the stream's last message.

Must not: publish without an acknowledgement, or reconnect silently (a failure goes back to the
runner, which re-reads the stream's last message before it sends again).
"""

from __future__ import annotations

import msgspec

from .cloudevents import CONTENT_TYPE
from .nats_stream import DEADLINE_SECONDS, NatsError, NatsStream, NatsUrl
from .targets import Held, Outgoing, TargetError


class _Last(msgspec.Struct):
    position: int
    source: str | None = None


class NatsTarget:
    kind = "nats"

    def __init__(self, url: str, deadline: float = DEADLINE_SECONDS) -> None:
        self.url = NatsUrl.parse(url)
        self.shown = self.url.shown
        self.prefix = self.url.subject or self.url.stream.lower()
        self.deadline = deadline
        self._stream: NatsStream | None = None

    def open(self) -> Held | None:
        stream = NatsStream(self.url, self.deadline)
        self._stream = stream
        try:
            stream.connect()
            stream.ensure([f"{self.prefix}.>"])
            body = stream.last(f"{self.prefix}.>")
        except NatsError as exc:
            raise TargetError(str(exc)) from None
        if body is None:
            return None
        try:
            last = msgspec.json.decode(body, type=_Last)
        except msgspec.DecodeError:
            raise TargetError(
                f"{self.shown}: its last message on {self.prefix}.> is not a CloudEvent with a "
                "position (name a subject prefix of its own)"
            ) from None
        return Held(last.position, last.source)

    def send(self, batch: list[Outgoing]) -> None:
        if self._stream is None:
            raise TargetError(f"{self.shown} is not open")
        headers = {"Content-Type": CONTENT_TYPE}
        try:
            for item in batch:
                self._stream.publish(f"{self.prefix}.{item.kind}", item.body, item.id, headers)
        except NatsError as exc:
            raise TargetError(str(exc)) from None

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None
