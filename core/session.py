"""One command's view of one stream: the state being decided on and the events it produced.

`emit` is the only door: it lets an observer (the projectors) see each event with the state before
it, then applies the event with `evolve`, so decide always works on up-to-date state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .events import Event
from .evolve import evolve
from .model import ProcessModel
from .outbound import RecordedCalls
from .state import InstanceState
from .variable_changes import VariableChange, variable_change

if TYPE_CHECKING:
    from .decisions import DecisionLookup

Observer = Callable[[Event, InstanceState | None], None]


@dataclass(frozen=True)
class ThrownSignal:
    """A signal thrown while the command decided, waiting to be broadcast when its decision is
    done: by an instance (`instance_id`, with the ids of its own subscriptions to the signal at
    the moment of the throw), or by the command itself (no instance)."""

    name: str
    variables: Mapping[str, Any]
    instance_id: str | None = None
    own_subscriptions: tuple[str, ...] = ()
    # thrown with camunda:async: intermediate catch events receive it in a job (signal_jobs)
    asynchronous: bool = False


@dataclass(frozen=True)
class StartCall:
    """A call activity of `caller_id` waits on `execution_id`: start the called instance (its
    definition resolved by key and binding) with these variables and business key."""

    caller_id: str
    execution_id: str
    activity_instance_id: str
    activity_id: str
    key: str
    binding: str
    version: int | None
    version_tag: str | None
    deployment_id: str
    business_key: str | None
    variables: Mapping[str, Any]


@dataclass(frozen=True)
class CallEnded:
    """The called instance `callee_id` completed with these variables: its caller goes on."""

    caller_id: str
    execution_id: str
    callee_id: str
    variables: Mapping[str, Any]


@dataclass(frozen=True)
class CallFailed:
    """A BPMN error the called instance did not catch: it ends, the caller's call activity
    throws the error on."""

    caller_id: str
    execution_id: str
    callee_id: str
    error_code: str | None
    error_message: str | None


@dataclass(frozen=True)
class EscalationThrower:
    """Where an escalation was raised: the instance, the token and its activity instance (an
    escalation throw or end event, or a user task escalated through the task service)."""

    instance_id: str
    execution_id: str
    activity_instance_id: str
    from_task: bool = False


@dataclass(frozen=True)
class CallEscalated:
    """An escalation nothing in the called instance `callee_id` catches: it goes on at the
    caller's call activity (on `execution_id`), the called instance's variables passed through
    the call's `camunda:out` mappings first. The thrower waits for the outcome: it goes on
    unless an interrupting catch above cancels it."""

    caller_id: str
    execution_id: str
    callee_id: str
    escalation_code: str | None
    variables: Mapping[str, Any]
    thrower: EscalationThrower


@dataclass(frozen=True)
class CancelCall:
    """The call activity was cancelled: its called instance is cancelled too."""

    callee_id: str


# What a decision asks of other instances, done by the engine once the decision is made.
Effect = ThrownSignal | StartCall | CallEnded | CallFailed | CancelCall | CallEscalated


@dataclass
class CommandContext:
    """Everything non-deterministic a command may use; whatever it draws is recorded in events.

    `outbox` holds what the decision asks of other instances (a signal to broadcast, a called
    instance to start, end or cancel), done in the same command once the decision is made;
    `actor` is who issued the command (the authenticated user, Camunda's initiator)."""

    now: datetime
    new_id: Callable[[], str]
    delegates: Mapping[str, Any] = field(default_factory=dict)
    allow_scripts: bool = False
    actor: str | None = None
    outbox: list[Effect] = field(default_factory=list)
    history_ttl_days: int | None = None  # the engine's default history time to live
    # Camunda's history removal-time strategy: "end" (the root's end stamps its hierarchy) or
    # "start" (each instance records its root's start plus time to live as it starts).
    removal_time_strategy: str = "end"
    # Finds a deployed decision for a business rule task (the engine reads its repository; what
    # the decision answered is recorded, so a replay never looks it up again).
    decisions: DecisionLookup | None = None
    # The answers of the outbound calls this command made so far (the engine calls, with no
    # lock held, when a decision asks for one it lacks, and decides again).
    outbound: RecordedCalls = field(default_factory=RecordedCalls)


class InstanceSession:
    def __init__(
        self,
        state: InstanceState | None,
        model: ProcessModel,
        ctx: CommandContext,
        observer: Observer | None = None,
    ) -> None:
        self._state = state
        self.model = model
        self.ctx = ctx
        self.observer = observer
        self.events: list[Event] = []
        # Variable changes not yet offered to the conditional events waiting for them
        # (core.behaviors.conditionals dispatches them, as Camunda's delayed variable events).
        self.variable_changes: list[VariableChange] = []
        # Scopes (execution, activity instance) just started whose conditional event
        # subprocesses are to be evaluated once, when the command's tokens rest.
        self.entered_scopes: list[tuple[str, str]] = []
        # A process instance modification or restart asked to skip these (Camunda's
        # skipCustomListeners, skipIoMappings): what they would have done is not done.
        self.skip_custom_listeners = False
        self.skip_io_mappings = False

    @property
    def state(self) -> InstanceState:
        if self._state is None:
            raise RuntimeError("the instance has not been started in this session")
        return self._state

    @property
    def started(self) -> bool:
        return self._state is not None

    def emit(self, event: Event) -> None:
        if self.observer is not None:
            self.observer(event, self._state)
        if self._state is not None:
            change = variable_change(self._state, event)
            if change is not None:
                self.variable_changes.append(change)
        self._state = evolve(self._state, event)
        self.events.append(event)
