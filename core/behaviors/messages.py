"""Message and signal events: intermediate catch, receive task and boundary events subscribe to a
message or signal name; a correlated message or a broadcast signal triggers the subscription;
the subscription ends with the activity instance it belongs to. Message throw and end events
send as service tasks do; signal throw and end events put their signal in the command's outbox,
which the engine broadcasts when the decision is done.

Decide-side; every change is an emitted event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from .. import events as ev
from ..errors import ProcessEngineError
from ..limits import MAX_MESSAGE_NAME
from ..model import (
    Activity,
    EventSpec,
    MessageEventDefinition,
    ReceiveTaskSpec,
    ServiceTaskSpec,
    SignalEventDefinition,
)
from ..scope import evaluate, set_variable
from ..session import ThrownSignal
from ..state import EventSubscription
from .base import Behavior
from .operations import FlowOperations
from .tasks import ServiceTask

MESSAGE, SIGNAL = "message", "signal"  # ACT_RU_EVENT_SUBSCR.EVENT_TYPE_
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
    for sub in [s for s in flow.session.state.subscriptions.values() if ends(s)]:
        flow.emit(ev.EventSubscriptionDeleted(subscription_id=sub.id, time=now))


def _own_activity_instance(flow: FlowOperations, execution_id: str) -> str:
    ai = flow.execution(execution_id).activity_instance_id
    assert ai is not None, "a catch event runs in its activity instance"
    return ai


class IntermediateCatch(Behavior):
    """Waits for its message or signal; its arrival (or a trigger) leaves it."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        subscribe(flow, execution_id, activity, _own_activity_instance(flow, execution_id))

    def trigger(
        self,
        flow: FlowOperations,
        execution_id: str,
        activity: Activity,
        variables: Mapping[str, Any],
    ) -> None:
        for name, value in variables.items():
            set_variable(flow.session, execution_id, name, value)
        flow.leave(execution_id)


class MessageReceiveTask(IntermediateCatch):
    """A receive task: waits for its message (messageRef), or without one for a trigger."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        if waits_for(activity) is not None:
            subscribe(flow, execution_id, activity, _own_activity_instance(flow, execution_id))


class MessageThrowEvent(ServiceTask):
    """Sends its message as a service task does its work (delegate, expression or external
    task); without an implementation it passes on."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        if isinstance(activity.spec, ServiceTaskSpec):
            super().execute(flow, execution_id, activity)
        else:
            flow.leave(execution_id)


class MessageEndEvent(MessageThrowEvent):
    completes_scope: ClassVar[bool] = True


class SignalThrowEvent(Behavior):
    """Broadcasts its signal (to every subscription, this instance's too, and to signal start
    events) once the command's decision is done, and goes on at once."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        spec = activity.spec
        assert isinstance(spec, EventSpec) and isinstance(spec.definition, SignalEventDefinition)
        name = resolved_name(flow, execution_id, activity, SIGNAL, spec.definition)
        session = flow.session
        own = tuple(
            sub.id
            for sub in session.state.subscriptions.values()
            if sub.event_type == SIGNAL and sub.event_name == name
        )
        session.emit(
            ev.SignalThrown(signal_name=name, activity_id=activity.id, time=session.ctx.now)
        )
        session.ctx.thrown_signals.append(ThrownSignal(name, {}, session.state.id, own))
        flow.leave(execution_id)


class SignalEndEvent(SignalThrowEvent):
    completes_scope: ClassVar[bool] = True
