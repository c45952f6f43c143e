"""Escalations across instances in the command path: an escalation a called instance did not
catch (`core.session.CallEscalated`) goes on at its caller's call activity; once its fate is
known, the thrower goes on (not caught, or caught without interrupting) or stays cancelled. A
user task's escalation that nothing in the hierarchy catches refuses the whole command, as
Camunda's TaskService.handleEscalation does. Every instance touched is a stream of the one
command.
"""

from __future__ import annotations

from flowledger.core import escalations
from flowledger.core.behaviors.escalations import Outcome
from flowledger.core.session import CallEscalated
from flowledger.engine.commands.unit_of_work import UnitOfWork


def escalated(unit: UnitOfWork, effect: CallEscalated) -> None:
    caller = unit.instance(effect.caller_id, ended_ok=True)
    outcome = escalations.escalated(caller, effect)
    if outcome is Outcome.PENDING or outcome is Outcome.INTERRUPTED:
        # Pending: it went on to the next caller up, which decides. Interrupted: the catch
        # cancelled the call activity, and with it the called instance and its thrower.
        return
    thrower = effect.thrower
    if outcome is Outcome.UNCAUGHT and thrower.from_task:
        raise escalations.uncaught(effect.escalation_code, thrower.execution_id)
    escalations.resume(unit.instance(thrower.instance_id, ended_ok=True), thrower)
