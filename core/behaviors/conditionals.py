"""Conditional events: an intermediate catch, boundary or event-subprocess start event that
occurs when its condition (`${...}`) is true.

As in Camunda: an intermediate conditional event evaluates its condition when a token arrives
and passes on at once when it holds; otherwise it (like a boundary event while its activity
runs, and an event subprocess's start while its scope runs) waits with a subscription (event
type `conditional`) and is evaluated again on every change of a variable of the subscription's
execution or of an execution above it, never of a sibling's or of a task's local variable,
narrowed by camunda:variableName and camunda:variableEvents. A boundary event is evaluated
when its activity starts, an event subprocess's start when its scope has started, before they
wait. A non-interrupting one occurs on every qualifying change that finds its condition true.

Decide-side: the evaluation happens in the command that changes the variables (the flow offers
the command's variable changes, `dispatch`); what it causes is emitted as events, so a replay
never evaluates a condition. Cost: per change, only the conditional subscriptions waiting at or
below the changed scope are evaluated.
"""

from __future__ import annotations

from .. import element_kinds as kinds
from ..model import Activity, EventSpec
from ..state import EventSubscription, InstanceState
from ..variable_changes import VariableChange
from .conditions import CONDITIONAL, definition_of, holds, occurred, subscribe, wanted
from .event_subprocesses import fire as fire_event_subprocess
from .event_subprocesses import interrupting as esp_interrupting
from .events import fire_boundary
from .messages import IntermediateCatch
from .operations import FlowOperations

_BOUNDARY = kinds.BOUNDARY_CONDITIONAL.type
_START = kinds.CONDITIONAL_START_EVENT.type


class IntermediateConditional(IntermediateCatch):
    """Passes on when its condition holds as the token arrives, else waits for a variable
    change that makes it true (or a trigger, which leaves it as a message or signal catch's)."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        if holds(flow, execution_id, activity):
            flow.leave(execution_id)
            return
        ai = flow.execution(execution_id).activity_instance_id
        assert ai is not None, "a catch event runs in its activity instance"
        subscribe(flow, execution_id, activity, ai)


def enter_activity(
    flow: FlowOperations, scope_execution_id: str, activity: Activity, activity_instance_id: str
) -> bool:
    """The activity just started: its conditional boundary events subscribe and are
    evaluated at once (Camunda evaluates a scope's subscriptions as it starts). True: an
    interrupting one occurred, the activity does not run."""
    boundaries = [
        flow.model.activities[b]
        for b in activity.boundary_events
        if flow.model.activities[b].type == _BOUNDARY
    ]
    if not boundaries:
        return False
    for boundary in boundaries:
        subscribe(flow, scope_execution_id, boundary, activity_instance_id)
    state = flow.session.state
    waiting = [
        s
        for s in state.subscriptions.values()
        if s.activity_instance_id == activity_instance_id and s.event_type == CONDITIONAL
    ]
    for sub in waiting:
        if sub.id in state.subscriptions and _offer(flow, sub, None) and _interrupts(flow, sub):
            return True
    return False


def evaluate_entered_scope(
    flow: FlowOperations, scope_execution_id: str, scope_activity_instance_id: str
) -> None:
    """Evaluate the conditional start events of the scope's event subprocesses once, as the
    scope has started (`flow.session.entered_scopes` asks for it; the flow does it when its
    tokens rest, so that an event subprocess starting beside them finds the scope settled)."""
    state = flow.session.state
    if scope_execution_id not in state.executions:
        return  # the scope ended before its tokens came to rest
    waiting = [
        s
        for s in state.subscriptions.values()
        if s.activity_instance_id == scope_activity_instance_id
        and s.event_type == CONDITIONAL
        and s.execution_id == scope_execution_id
    ]
    for sub in waiting:
        if sub.id in state.subscriptions and _offer(flow, sub, None) and _interrupts(flow, sub):
            return


def dispatch(flow: FlowOperations) -> bool:
    """Offer the command's pending variable changes to the conditional events waiting at or
    below each changed scope, outermost first (Camunda's top-down walk). True: some occurred."""
    session = flow.session
    if not session.variable_changes:
        return False
    changes = list(session.variable_changes)
    session.variable_changes.clear()
    state = session.state
    fired = False
    for change in changes:
        if not any(s.event_type == CONDITIONAL for s in state.subscriptions.values()):
            break  # nothing waits for a condition (the common case): no walk at all
        for sub in _waiting_below(state, change.execution_id):
            if sub.id in state.subscriptions and _offer(flow, sub, change):
                fired = True
    return fired


def _waiting_below(state: InstanceState, execution_id: str) -> list[EventSubscription]:
    """The conditional subscriptions of the execution and its descendants, outermost first."""
    found: list[tuple[int, EventSubscription]] = []
    executions = state.executions
    for sub in state.subscriptions.values():
        if sub.event_type != CONDITIONAL:
            continue
        depth = 0
        current: str | None = sub.execution_id
        while current is not None and current != execution_id:
            parent = executions.get(current)
            current = parent.parent_id if parent is not None else None
            depth += 1
        if current == execution_id:
            found.append((depth, sub))
    found.sort(key=lambda pair: pair[0])  # stable: subscription order within a depth
    return [sub for _depth, sub in found]


def _interrupts(flow: FlowOperations, sub: EventSubscription) -> bool:
    event = flow.model.activities[sub.activity_id]
    if event.type == _START:
        return esp_interrupting(event)
    spec = event.spec
    return not isinstance(spec, EventSpec) or spec.cancel_activity


def _offer(flow: FlowOperations, sub: EventSubscription, change: VariableChange | None) -> bool:
    """Evaluate the subscription's event for the change (None: on entry, unfiltered); when it
    holds, the event occurs. True: it occurred."""
    event = flow.model.activities[sub.activity_id]
    definition = definition_of(event)
    assert definition is not None, "a conditional subscription belongs to a conditional event"
    if change is not None and not wanted(definition, change):
        return False
    if not holds(flow, sub.execution_id, event):
        return False
    occurred(flow, sub.id, event, change)
    if event.type == _BOUNDARY:
        fire_boundary(flow, sub.execution_id, event)
    elif event.type == _START:
        fire_event_subprocess(flow, sub.execution_id, event)
    else:
        flow.event_occurred(sub.execution_id, event)
    return True
