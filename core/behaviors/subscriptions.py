"""Event subscriptions: what a message or signal catch event waits for, subscribing it (its
name's expression evaluated then), and ending the subscriptions of an activity instance.

Decide-side; every change is an emitted event.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .. import events as ev
from ..errors import ProcessEngineError
from ..limits import MAX_MESSAGE_NAME
from ..model import (
    Activity,
    EventSpec,
    MessageEventDefinition,
    ReceiveTaskSpec,
    SignalEventDefinition,
)
from ..scope import evaluate
from ..state import EventSubscription
from .operations import FlowOperations

MESSAGE, SIGNAL = "message", "signal"  # ACT_RU_EVENT_SUBSCR.EVENT_TYPE_
COMPENSATE = "compensate"  # a completed activity's compensation (behaviors/compensation.py)
Named = MessageEventDefinition | SignalEventDefinition


def waits_for(activity: Activity) -> tuple[str, Named] | None:
    """What the activity waits for: a message or signal catch or boundary event's message or
    signal, or a receive task's messageRef."""
    spec = activity.spec
    if isinstance(spec, EventSpec) and isinstance(spec.definition, MessageEventDefinition):
        return MESSAGE, spec.definition
    if isinstance(spec, EventSpec) and isinstance(spec.definition, SignalEventDefinition):
        return SIGNAL, spec.definition
    if isinstance(spec, ReceiveTaskSpec) and spec.message is not None:
        return MESSAGE, spec.message
    return None


def resolved_name(
    flow: FlowOperations, execution_id: str, event: Activity, event_type: str, named: Named
) -> str:
    """The message or signal name, its expression evaluated at the execution."""
    if named.name_expression is None:
        return named.name
    value = evaluate(
        flow.session,
        named.name_expression,
        execution_id,
        element_id=event.id,
        what=f"the {event_type} name",
    )
    if value is None or str(value) == "":
        raise ProcessEngineError(
            f"the {event_type} name of '{event.id}' ({named.name}) evaluated to no name"
        )
    name = str(value)
    if len(name) > MAX_MESSAGE_NAME:
        raise ProcessEngineError(
            f"the {event_type} name of '{event.id}' has {len(name)} characters; a subscription "
            f"holds at most {MAX_MESSAGE_NAME}"
        )
    return name


def subscribe(
    flow: FlowOperations, execution_id: str, event: Activity, activity_instance_id: str
) -> None:
    """The execution waits for what `event` waits for until `activity_instance_id` ends."""
    waiting = waits_for(event)
    assert waiting is not None
    event_type, named = waiting
    flow.emit(
        ev.EventSubscriptionCreated(
            subscription_id=flow.session.ctx.new_id(),
            event_type=event_type,
            event_name=resolved_name(flow, execution_id, event, event_type, named),
            execution_id=execution_id,
            activity_id=event.id,
            activity_instance_id=activity_instance_id,
            time=flow.session.ctx.now,
        )
    )


def subscribe_boundary_events(
    flow: FlowOperations, execution_id: str, activity: Activity, activity_instance_id: str
) -> None:
    """The message and signal boundary events of an activity that just started wait beside
    it."""
    for boundary_id in activity.boundary_events:
        boundary = flow.model.activities[boundary_id]
        if waits_for(boundary) is not None:
            subscribe(flow, execution_id, boundary, activity_instance_id)


def drop_subscriptions(flow: FlowOperations, ends: Callable[[EventSubscription], bool]) -> None:
    """Delete the subscriptions `ends` picks (their activity instance or execution went)."""
    now = flow.session.ctx.now
    state = flow.session.state
    for sub in [s for s in state.subscriptions.values() if ends(s)]:
        if sub.id not in state.subscriptions:
            continue  # went with a retained scope deleted before it
        flow.emit(ev.EventSubscriptionDeleted(subscription_id=sub.id, time=now))
        retained = state.retained_scopes.get(sub.id)
        if retained is not None:
            # a retained scope that will never be compensated: what it kept goes with it
            drop_subscriptions(flow, partial(_kept_in, retained.activity_instance_id))


def _kept_in(activity_instance_id: str, subscription: EventSubscription) -> bool:
    return subscription.activity_instance_id == activity_instance_id
