"""Message catch events: intermediate catch, receive task and boundary events subscribe to a
message name; a correlated message triggers the subscription; the subscription ends with the
activity instance it belongs to. Message throw and end events send as service tasks do.

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
)
from ..scope import evaluate, set_variable
from ..state import EventSubscription
from .base import Behavior
from .operations import FlowOperations
from .tasks import ServiceTask

MESSAGE = "message"  # ACT_RU_EVENT_SUBSCR.EVENT_TYPE_


def message_of(activity: Activity) -> MessageEventDefinition | None:
    """The message the activity waits for: a message catch or boundary event's, or a receive
    task's messageRef."""
    spec = activity.spec
    if isinstance(spec, EventSpec) and isinstance(spec.definition, MessageEventDefinition):
        return spec.definition
    if isinstance(spec, ReceiveTaskSpec):
        return spec.message
    return None


def subscribe(
    flow: FlowOperations,
    execution_id: str,
    event: Activity,
    message: MessageEventDefinition,
    activity_instance_id: str,
) -> None:
    """The execution waits for the message at `event` until `activity_instance_id` ends."""
    name = message.name
    if message.name_expression is not None:
        value = evaluate(
            flow.session,
            message.name_expression,
            execution_id,
            element_id=event.id,
            what="the message name",
        )
        if value is None or str(value) == "":
            raise ProcessEngineError(
                f"the message name of '{event.id}' ({message.name}) evaluated to no name"
            )
        name = str(value)
    if len(name) > MAX_MESSAGE_NAME:
        raise ProcessEngineError(
            f"the message name of '{event.id}' has {len(name)} characters; a subscription holds "
            f"at most {MAX_MESSAGE_NAME}"
        )
    flow.emit(
        ev.EventSubscriptionCreated(
            subscription_id=flow.session.ctx.new_id(),
            event_type=MESSAGE,
            event_name=name,
            execution_id=execution_id,
            activity_id=event.id,
            activity_instance_id=activity_instance_id,
            time=flow.session.ctx.now,
        )
    )


def subscribe_boundary_messages(
    flow: FlowOperations, execution_id: str, activity: Activity, activity_instance_id: str
) -> None:
    """The message boundary events of an activity that just started wait beside it."""
    for boundary_id in activity.boundary_events:
        boundary = flow.model.activities[boundary_id]
        message = message_of(boundary)
        if message is not None:
            subscribe(flow, execution_id, boundary, message, activity_instance_id)


def drop_subscriptions(flow: FlowOperations, ends: Callable[[EventSubscription], bool]) -> None:
    """Delete the subscriptions `ends` picks (their activity instance or execution went)."""
    now = flow.session.ctx.now
    for sub in [s for s in flow.session.state.subscriptions.values() if ends(s)]:
        flow.emit(ev.EventSubscriptionDeleted(subscription_id=sub.id, time=now))


def _own_activity_instance(flow: FlowOperations, execution_id: str) -> str:
    ai = flow.execution(execution_id).activity_instance_id
    assert ai is not None, "a catch event runs in its activity instance"
    return ai


class IntermediateMessageCatch(Behavior):
    """Waits for its message; a correlation (or a trigger) leaves it."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        message = message_of(activity)
        assert message is not None
        subscribe(flow, execution_id, activity, message, _own_activity_instance(flow, execution_id))

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


class MessageReceiveTask(IntermediateMessageCatch):
    """A receive task: waits for its message (messageRef), or without one for a trigger."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        message = message_of(activity)
        if message is not None:
            ai = _own_activity_instance(flow, execution_id)
            subscribe(flow, execution_id, activity, message, ai)


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
