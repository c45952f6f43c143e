"""Handlers of the message commands: correlate a message (to the waiting catch events its name
and keys match), and deliver one to an execution's own subscription.

Correlation reads the candidates from ACT_RU_EVENT_SUBSCR (by name, and instance or business
key), then lets the domain check each candidate instance's correlation keys and decide the
arrival; a message that names no instance and no keys may also start an instance at a message
start event. Every instance a message reaches or starts is a stream of this one command.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core import correlation, views
from flowledger.core.errors import MismatchingMessageCorrelation
from flowledger.core.limits import MAX_BUSINESS_KEY, MAX_MESSAGE_NAME, check_text
from flowledger.core.scope import visible_variables
from flowledger.core.session import InstanceSession
from flowledger.core.state import EventSubscription
from flowledger.engine import lookups
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers.start_events import start_at
from flowledger.engine.commands.unit_of_work import UnitOfWork


def correlate(
    unit: UnitOfWork, command: cmd.CorrelateMessage
) -> list[views.MessageCorrelationResult]:
    name = command.message_name
    check_text("messageName", name, MAX_MESSAGE_NAME)
    check_text("businessKey", command.business_key, MAX_BUSINESS_KEY)
    matched = _matching(unit, command)
    starts = _starts(unit, command)
    if not matched and not starts:
        raise MismatchingMessageCorrelation(
            "No process definition or execution matches the parameters"
        )
    if len(matched) + len(starts) > 1 and not command.all:
        raise MismatchingMessageCorrelation(
            f"Cannot correlate a message with name '{name}' to a single execution. "
            f"{len(matched) + len(starts)} executions match the correlation keys: "
            f"{_described(command)}"
        )
    results = [_start(unit, command, start) for start in starts]
    for session, subscription in matched:
        if subscription.id not in session.state.subscriptions:
            # An earlier arrival of this message in the same instance ended it (an interrupting
            # event subprocess took the scope over): the message has nothing more to do there.
            continue
        variables = correlation.correlate(
            session, subscription.id, name, command.variables, command.variables_local
        )
        state = session.state
        results.append(
            views.MessageCorrelationResult(
                result_type="Execution",
                execution_id=subscription.execution_id,
                process_instance_id=state.id,
                definition_id=state.definition_id,
                business_key=state.business_key,
                process_instance_ended=state.ended,
                variables=variables,
            )
        )
    return results


def _starts(unit: UnitOfWork, command: cmd.CorrelateMessage) -> list[lookups.StartSubscription]:
    """The message start events the message matches: by name alone, when the message names no
    instance and no correlation keys (a new instance has no variables to match yet)."""
    if command.process_instance_id or command.correlation_keys or command.local_correlation_keys:
        return []
    names = [command.message_name]
    return lookups.start_subscriptions(unit.conn, names=names, event_type="message")


def _start(
    unit: UnitOfWork, command: cmd.CorrelateMessage, start: lookups.StartSubscription
) -> views.MessageCorrelationResult:
    """A new instance of the subscription's definition, started at its message start event
    with the message's business key and variables."""
    variables = {**command.variables, **command.variables_local}
    session = start_at(unit, start, command.business_key, variables)
    state = session.state
    return views.MessageCorrelationResult(
        result_type="ProcessDefinition",
        execution_id=None,
        process_instance_id=state.id,
        definition_id=state.definition_id,
        business_key=state.business_key,
        process_instance_ended=state.ended,
        variables={} if state.ended else visible_variables(session, state.id),
    )


def _matching(
    unit: UnitOfWork, command: cmd.CorrelateMessage
) -> list[tuple[InstanceSession, EventSubscription]]:
    """The waiting subscriptions the message matches, one instance's session each."""
    candidates = lookups.waiting(
        unit.conn,
        command.message_name,
        process_instance_id=command.process_instance_id,
        business_key=command.business_key,
    )
    matched: list[tuple[InstanceSession, EventSubscription]] = []
    for subscription_id, instance_id in candidates:
        session = unit.instance(instance_id)
        if session.state.suspended:
            continue  # Camunda: a suspended instance's subscriptions match no message
        subscription = session.state.subscriptions.get(subscription_id)
        if subscription is not None and correlation.matches(
            session, subscription, command.correlation_keys, command.local_correlation_keys
        ):
            matched.append((session, subscription))
    return matched


def _described(command: cmd.CorrelateMessage) -> str:
    """The correlation set as Camunda's message shows it."""
    return (
        f"CorrelationSet [businessKey={command.business_key}, "
        f"processInstanceId={command.process_instance_id}, "
        f"correlationKeys={command.correlation_keys or None}, "
        f"localCorrelationKeys={command.local_correlation_keys or None}]"
    )


def received(unit: UnitOfWork, command: cmd.MessageEventReceived) -> None:
    session = unit.instance_owning("Execution", command.execution_id)
    correlation.received(session, command.execution_id, command.message_name, command.variables)


HANDLERS = (
    Handler(cmd.CorrelateMessage, correlate, result=list[views.MessageCorrelationResult]),
    Handler(cmd.MessageEventReceived, received),
)
