"""Message and signal events: intermediate catch, receive task and boundary events subscribe to a
message or signal name; a correlated message or a broadcast signal triggers the subscription;
the subscription ends with the activity instance it belongs to. Message throw and end events
send as service tasks do; signal throw and end events put their signal in the command's outbox,
which the engine broadcasts when the decision is done.

Decide-side; every change is an emitted event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .. import events as ev
from ..model import (
    Activity,
    EventSpec,
    ServiceTaskSpec,
    SignalEventDefinition,
)
from ..scope import set_variable
from ..session import ThrownSignal
from .base import Behavior
from .operations import FlowOperations
from .subscriptions import SIGNAL, resolved_name, subscribe, waits_for
from .tasks import ServiceTask


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
        session.ctx.outbox.append(
            ThrownSignal(name, {}, session.state.id, own, spec.definition.asynchronous)
        )
        flow.leave(execution_id)


class SignalEndEvent(SignalThrowEvent):
    completes_scope: ClassVar[bool] = True
