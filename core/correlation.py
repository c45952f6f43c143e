"""Message correlation on one instance: which waiting subscriptions a message matches, and what
its arrival does (variables set, the catch event triggered).

Pure: the engine finds the candidate subscriptions (by name, instance, business key) and hands
in each instance's session; these functions read the state and emit events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import events as ev
from .behaviors.event_subprocesses import fire as fire_event_subprocess
from .behaviors.event_subprocesses import is_event_subprocess_start
from .behaviors.events import fire_boundary
from .behaviors.subscriptions import MESSAGE, SIGNAL
from .errors import NotFound, Rejected
from .flow import Flow
from .limits import check_variable_count
from .scope import find_local, set_variable, set_variable_local, visible_variables
from .session import InstanceSession
from .state import EventSubscription
from .variables import from_stored, to_stored


def matches(
    session: InstanceSession,
    subscription: EventSubscription,
    correlation_keys: Mapping[str, Any],
    local_correlation_keys: Mapping[str, Any],
) -> bool:
    """Whether the instance's variables hold every correlation key (process instance variables)
    and the subscription's execution every local one, with equal values."""
    instance_id = session.state.id
    for name, value in correlation_keys.items():
        if not _holds(session, instance_id, name, value):
            return False
    for name, value in local_correlation_keys.items():
        if not _holds(session, subscription.execution_id, name, value):
            return False
    return True


def _holds(session: InstanceSession, execution_id: str, name: str, value: Any) -> bool:
    variable = find_local(session, execution_id, name)
    if variable is None:
        return False
    return bool(from_stored(variable.value) == from_stored(to_stored(name, value)))


def correlate(
    session: InstanceSession,
    subscription_id: str,
    message_name: str,
    variables: Mapping[str, Any],
    variables_local: Mapping[str, Any],
) -> dict[str, Any]:
    """The message arrived at the subscription: its variables are set on the waiting execution
    (`variables` as setVariable does, `variables_local` on the execution itself), then the
    catch event goes on: an intermediate catch or receive task leaves, a boundary event fires.
    Returns the variables visible where the message arrived, after it."""
    subscription = _waiting(session, subscription_id, MESSAGE)
    arrival = ev.MessageCorrelated(
        subscription_id=subscription_id, message_name=message_name, time=session.ctx.now
    )
    return _arrive(session, subscription, arrival, variables, variables_local)


def receive_signal(
    session: InstanceSession, subscription_id: str, signal_name: str, variables: Mapping[str, Any]
) -> None:
    """The broadcast signal reached the subscription: its variables are set from the waiting
    execution (as setVariable does) and the catch or boundary event goes on."""
    subscription = _waiting(session, subscription_id, SIGNAL)
    arrival = ev.SignalReceived(
        subscription_id=subscription_id, signal_name=signal_name, time=session.ctx.now
    )
    _arrive(session, subscription, arrival, variables, {})


def _waiting(session: InstanceSession, subscription_id: str, event_type: str) -> EventSubscription:
    subscription = session.state.subscriptions.get(subscription_id)
    if subscription is None or subscription.event_type != event_type:
        what = "Message subscription" if event_type == MESSAGE else "Signal subscription"
        raise NotFound(what, subscription_id, "it is no longer waiting")
    return subscription


def _arrive(
    session: InstanceSession,
    subscription: EventSubscription,
    arrival: ev.Event,
    variables: Mapping[str, Any],
    variables_local: Mapping[str, Any],
) -> dict[str, Any]:
    check_variable_count({**variables, **variables_local})
    execution_id = subscription.execution_id
    for name, value in variables.items():
        set_variable(session, execution_id, name, value)
    for name, value in variables_local.items():
        set_variable_local(session, execution_id, name, value)
    session.emit(arrival)
    flow = Flow(session)
    event = session.model.activities[subscription.activity_id]
    if event.type.startswith("boundary"):
        fire_boundary(flow, execution_id, event)
    elif is_event_subprocess_start(flow, event):
        fire_event_subprocess(flow, execution_id, event)
    else:
        flow.event_occurred(execution_id, event)
    flow.run()
    state = session.state
    if state.ended:
        return {}
    where = execution_id if execution_id in state.executions else state.id
    return visible_variables(session, where)


def received(
    session: InstanceSession,
    execution_id: str,
    message_name: str,
    variables: Mapping[str, Any],
) -> None:
    """Camunda's messageEventReceived: the execution's own subscription to the message fires."""
    subscription = _of_execution(session, execution_id, MESSAGE, message_name)
    correlate(session, subscription.id, message_name, variables, {})


def signal_received(
    session: InstanceSession, execution_id: str, signal_name: str, variables: Mapping[str, Any]
) -> None:
    """Camunda's signalEventReceived for one execution: its own subscription to the signal."""
    subscription = _of_execution(session, execution_id, SIGNAL, signal_name)
    receive_signal(session, subscription.id, signal_name, variables)


def _of_execution(
    session: InstanceSession, execution_id: str, event_type: str, name: str
) -> EventSubscription:
    if execution_id not in session.state.executions:
        raise NotFound("Execution", execution_id, "it does not exist or has ended")
    for s in session.state.subscriptions.values():
        if s.execution_id == execution_id and s.event_type == event_type and s.event_name == name:
            return s
    raise Rejected(
        f"Execution with id '{execution_id}' does not have a subscription to a {event_type} "
        f"event with name '{name}'"
    )
