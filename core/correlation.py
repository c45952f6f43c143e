"""Message correlation on one instance: which waiting subscriptions a message matches, and what
its arrival does (variables set, the catch event triggered).

Pure: the engine finds the candidate subscriptions (by name, instance, business key) and hands
in each instance's session; these functions read the state and emit events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import events as ev
from .behaviors.events import fire_boundary
from .errors import NotFound, Rejected
from .flow import Flow
from .limits import check_variable_count
from .scope import find_local, set_variable, set_variable_local, visible_variables
from .session import InstanceSession
from .state import EventSubscription
from .variables import from_stored, to_stored

MESSAGE = "message"


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
    check_variable_count({**variables, **variables_local})
    subscription = session.state.subscriptions.get(subscription_id)
    if subscription is None or subscription.event_type != MESSAGE:
        raise NotFound("Message subscription", subscription_id, "it is no longer waiting")
    execution_id = subscription.execution_id
    for name, value in variables.items():
        set_variable(session, execution_id, name, value)
    for name, value in variables_local.items():
        set_variable_local(session, execution_id, name, value)
    session.emit(
        ev.MessageCorrelated(
            subscription_id=subscription_id, message_name=message_name, time=session.ctx.now
        )
    )
    flow = Flow(session)
    event = session.model.activities[subscription.activity_id]
    if event.type.startswith("boundary"):
        fire_boundary(flow, execution_id, event)
    else:
        flow.trigger(execution_id, {})
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
    if execution_id not in session.state.executions:
        raise NotFound("Execution", execution_id, "it does not exist or has ended")
    found = [
        s
        for s in session.state.subscriptions.values()
        if s.execution_id == execution_id
        and s.event_type == MESSAGE
        and s.event_name == message_name
    ]
    if not found:
        raise Rejected(
            f"Execution with id '{execution_id}' does not have a subscription to a message event "
            f"with name '{message_name}'"
        )
    correlate(session, found[0].id, message_name, variables, {})
