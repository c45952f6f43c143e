"""Handlers of signals: a signal thrown by a command (`ThrowSignal`), and the broadcast of a
signal a decision threw (`broadcast`, done by `effects.settle` after each handler: a signal
throw event in any instance puts its signal in the command's outbox).

A broadcast reaches the subscriptions that wait for the signal: the throwing instance's own as
they were at the throw, the current state of the other instances this command has already
decided on, and the rest as ACT_RU_EVENT_SUBSCR lists them; and it starts an instance at every
signal start event of the name. Each instance reached is a stream of the one command; what the
receivers throw in turn is broadcast after.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core import correlation, start_timers
from flowledger.core import events as ev
from flowledger.core.behaviors.subscriptions import SIGNAL
from flowledger.core.limits import MAX_MESSAGE_NAME, check_text, check_variable_count
from flowledger.core.session import ThrownSignal
from flowledger.core.signal_jobs import receives_in_a_job, schedule_signal_job
from flowledger.engine import lookups
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers.start_events import start_at
from flowledger.engine.commands.handlers.start_timers import append_to_deployment
from flowledger.engine.commands.unit_of_work import UnitOfWork


def throw(unit: UnitOfWork, command: cmd.ThrowSignal) -> None:
    check_text("name", command.name, MAX_MESSAGE_NAME)
    check_variable_count(command.variables)
    if command.execution_id is not None:
        session = unit.instance_owning("Execution", command.execution_id)
        correlation.signal_received(session, command.execution_id, command.name, command.variables)
        return
    unit.ctx.outbox.append(ThrownSignal(command.name, command.variables))


def broadcast(unit: UnitOfWork, signal: ThrownSignal) -> None:
    targets: list[tuple[str, str]] = [
        (signal.instance_id, sub_id)
        for sub_id in signal.own_subscriptions
        if signal.instance_id is not None
    ]
    decided = set(unit.instances)
    for instance_id in sorted(decided - {signal.instance_id or ""}):
        state = unit.instances[instance_id][0].state
        targets += [
            (instance_id, sub.id)
            for sub in state.subscriptions.values()
            if sub.event_type == SIGNAL and sub.event_name == signal.name
        ]
    for sub_id, instance_id in lookups.waiting(unit.conn, signal.name, event_type=SIGNAL):
        if instance_id not in decided:
            targets.append((instance_id, sub_id))
    starts = lookups.start_subscriptions(unit.conn, names=[signal.name], event_type=SIGNAL)
    for instance_id, sub_id in targets:
        session = unit.instance(instance_id, ended_ok=True)
        if session.state.suspended:
            continue  # Camunda: a suspended instance does not receive signals
        if sub_id not in session.state.subscriptions:  # an earlier receiver may have ended it
            continue
        if signal.asynchronous and receives_in_a_job(session, sub_id):
            schedule_signal_job(session, sub_id)
        else:
            correlation.receive_signal(session, sub_id, signal.name, signal.variables)
    scheduled: dict[str, list[ev.Event]] = {}
    for start in starts:
        if signal.asynchronous:
            # Camunda's start event declares a job too: the instance starts when it runs
            scheduled.setdefault(start.deployment_id, []).append(
                start_timers.schedule_signal_start(
                    deployment_id=start.deployment_id,
                    definition_id=start.definition_id,
                    definition_key=start.definition_key,
                    activity_id=start.activity_id,
                    subscription_id=start.subscription_id,
                    now=unit.ctx.now,
                    new_id=unit.ctx.new_id,
                )
            )
        else:
            start_at(unit, start, None, signal.variables)
    for deployment_id, events in sorted(scheduled.items()):
        append_to_deployment(unit, deployment_id, events)


HANDLERS = (Handler(cmd.ThrowSignal, throw),)
