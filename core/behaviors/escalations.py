"""Escalations: raised by intermediate throw and end events (and by a user task through the task
service), caught by the nearest escalation boundary event or escalation event subprocess whose
code matches (no code: any escalation), walking outwards from the thrower as Camunda's
EscalationEventDefinitionFinder does, and on through call activities into calling instances.

Unlike an error, an escalation that nothing catches does nothing: the thrower goes on (an end
event ends its path). A non-interrupting catch lets it go on too; an interrupting one cancels
the scope the thrower is in. Decide-side: every change is an emitted event or an outbox entry
(`CallEscalated`, when the escalation leaves a called instance).
"""

from __future__ import annotations

from enum import Enum
from typing import ClassVar

from .. import element_kinds as kinds
from .. import events as ev
from ..errors import ProcessEngineError
from ..model import Activity, EscalationEventDefinition, EventSpec, ProcessModel
from ..scope import set_variable, visible_variables
from ..session import CallEscalated, EscalationThrower
from .base import Behavior
from .event_subprocesses import fire as fire_event_subprocess
from .event_subprocesses import interrupting
from .events import fire_boundary
from .operations import FlowOperations


class Outcome(Enum):
    """What became of an escalation, as far as the thrower is concerned."""

    INTERRUPTED = "interrupted"  # an interrupting catch cancelled the thrower's scope
    CONTINUES = "continues"  # a non-interrupting catch: the thrower goes on
    UNCAUGHT = "uncaught"  # nothing caught it: the thrower goes on
    PENDING = "pending"  # handed on to the calling instance: the thrower waits for the outcome


def escalation_of(activity: Activity) -> EscalationEventDefinition | None:
    spec = activity.spec
    if isinstance(spec, EventSpec) and isinstance(spec.definition, EscalationEventDefinition):
        return spec.definition
    return None


def _matches(catch: Activity, code: str | None) -> bool:
    definition = escalation_of(catch)
    return definition is not None and definition.escalation_code in (None, code)


def find_handler(model: ProcessModel, source: Activity, code: str | None) -> Activity | None:
    """The catch of the nearest scope, from `source` outwards: an activity's escalation
    boundary events, then the escalation event subprocesses in its flow scope (which win over
    the boundary events of that scope, as in Camunda's parse order), and so on up. An event
    subprocess does not catch what is thrown directly inside it (it would re-catch its own)."""
    activity = source
    while True:
        for boundary_id in activity.boundary_events:
            boundary = model.activities[boundary_id]
            if boundary.type == kinds.BOUNDARY_ESCALATION.type and _matches(boundary, code):
                return boundary
        scope_id = activity.scope_id
        for esp in model.event_subprocesses(scope_id):
            if esp.id == source.scope_id:
                continue
            start = model.activities[model.start_events[esp.id]]
            if start.type == kinds.ESCALATION_START_EVENT.type and _matches(start, code):
                return start
        if scope_id == model.id:
            return None
        activity = model.activities[scope_id]


def throw_escalation(
    flow: FlowOperations,
    execution_id: str,
    code: str | None,
    thrower: EscalationThrower | None = None,
) -> Outcome:
    """Raise the escalation `code` at the execution's activity (the thrower, or in a calling
    instance the call activity it arrived at) and start the catch that takes it."""
    session = flow.session
    execution = flow.execution(execution_id)
    ai = execution.activity_instance_id or ""
    source = flow.activity_of(execution_id)
    handler = find_handler(flow.model, source, code)
    flow.emit(
        ev.EscalationThrown(
            activity_instance_id=ai,
            escalation_code=code,
            caught_by=handler.id if handler else None,
            time=session.ctx.now,
        )
    )
    if handler is None:
        state = session.state
        if state.super_process_instance_id is None or state.super_execution_id is None:
            return Outcome.UNCAUGHT
        # Camunda walks on into the calling instance; here that instance is another stream,
        # so the engine carries the escalation there once this decision is made.
        session.ctx.outbox.append(
            CallEscalated(
                caller_id=state.super_process_instance_id,
                execution_id=state.super_execution_id,
                callee_id=state.id,
                escalation_code=code,
                variables=visible_variables(session, state.id),
                thrower=thrower or EscalationThrower(state.id, execution_id, ai),
            )
        )
        return Outcome.PENDING
    definition = escalation_of(handler)
    assert definition is not None
    spec = handler.spec
    assert isinstance(spec, EventSpec)
    if handler.type == kinds.BOUNDARY_ESCALATION.type:
        host = spec.attached_to or ""
        scope = flow.scope_execution_for(execution_id, host)
        if scope is None:
            raise ProcessEngineError(
                f"no execution found for '{host}', which boundary event '{handler.id}' is "
                "attached to"
            )
        if definition.code_variable:
            set_variable(session, scope.id, definition.code_variable, code)
        fire_boundary(flow, scope.id, handler)
        return Outcome.INTERRUPTED if spec.cancel_activity else Outcome.CONTINUES
    scope_id = flow.model.activities[handler.scope_id].scope_id
    if scope_id == flow.model.id:
        scope_execution_id = session.state.id
    else:
        found = flow.scope_execution_for(execution_id, scope_id)
        if found is None:
            raise ProcessEngineError(
                f"no execution found for the scope '{scope_id}' of event subprocess "
                f"'{handler.scope_id}'"
            )
        scope_execution_id = found.id
    if definition.code_variable:
        set_variable(session, scope_execution_id, definition.code_variable, code)
    fire_event_subprocess(flow, scope_execution_id, handler)
    return Outcome.INTERRUPTED if interrupting(handler) else Outcome.CONTINUES


def holder(flow: FlowOperations, activity_instance_id: str) -> str | None:
    """The execution the activity instance is on now: a non-interrupting catch may have moved
    it to a new concurrent execution (tree expansion); None: it was cancelled."""
    for execution in flow.session.state.executions.values():
        if execution.activity_instance_id == activity_instance_id:
            return execution.id
    return None


def _code(activity: Activity) -> str | None:
    definition = escalation_of(activity)
    if definition is None or definition.escalation_code is None:
        raise ProcessEngineError(f"'{activity.id}' throws an escalation without a code")
    return definition.escalation_code


class EscalationThrowEvent(Behavior):
    """Raises its escalation; goes on along its flows unless an interrupting catch ended it."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        ai = flow.execution(execution_id).activity_instance_id or ""
        outcome = throw_escalation(flow, execution_id, _code(activity))
        if outcome in (Outcome.CONTINUES, Outcome.UNCAUGHT):
            token = holder(flow, ai)
            if token is not None:
                self.leave(flow, token, activity)


class EscalationEndEvent(EscalationThrowEvent):
    """Raises its escalation, then ends its path as a none end event (if not interrupted)."""

    completes_scope: ClassVar[bool] = True

    def leave(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        flow.complete(execution_id, activity, [])


# The activities that go on once the escalation they raised has been taken (a user task that
# escalated stays where it is).
THROWING_TYPES = kinds.types_of(kinds.ESCALATION_THROW_EVENT, kinds.ESCALATION_END_EVENT)
