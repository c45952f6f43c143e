"""Escalations across instances and from user tasks: an escalation a called instance does not
catch goes on at its caller's call activity (the call's `camunda:out` mappings applied on the
way, as Camunda's OutputVariablesPropagator does), and the thrower resumes once its fate is
known; a user task escalated through the task service raises one where it waits, and one that
nothing catches is refused (Camunda's TaskService.handleEscalation).

Pure: the engine finds the instances (each a stream of the same command) and hands in their
sessions; these functions emit events.
"""

from __future__ import annotations

from .behaviors import behavior_for
from .behaviors.calls import map_outputs
from .behaviors.escalations import THROWING_TYPES, Outcome, holder, throw_escalation
from .errors import ProcessEngineError
from .flow import Flow
from .session import CallEscalated, EscalationThrower, InstanceSession


def escalated(caller: InstanceSession, effect: CallEscalated) -> Outcome:
    """The escalation arrives at the call activity: the out mappings, then the catch nearest
    to the call activity (or on, to this instance's own caller)."""
    state = caller.state
    execution = state.executions.get(effect.execution_id)
    ai = execution.activity_instance_id if execution is not None else None
    if state.ended or ai is None or state.calls.get(ai) != effect.callee_id:
        return Outcome.UNCAUGHT  # the call activity no longer waits: nothing here to catch it
    flow = Flow(caller)
    map_outputs(
        caller, effect.execution_id, flow.activity_of(effect.execution_id), effect.variables
    )
    outcome = throw_escalation(flow, effect.execution_id, effect.escalation_code, effect.thrower)
    flow.run()
    return outcome


def resume(thrower: InstanceSession, at: EscalationThrower) -> None:
    """The escalation the throw or end event raised was not caught, or caught without
    interrupting: the event goes on (if it still waits; a user task simply stays)."""
    if thrower.state.ended:
        return
    flow = Flow(thrower)
    token = holder(flow, at.activity_instance_id)
    if token is None:
        return
    activity = flow.activity_of(token)
    if activity.type not in THROWING_TYPES:
        return
    behavior_for(activity).leave(flow, token, activity)
    flow.run()


def uncaught(code: str | None, execution_id: str) -> ProcessEngineError:
    """Camunda's answer (BpmnBehaviorLogger 043) to a task escalation nothing catches."""
    return ProcessEngineError(
        f"Execution with id '{execution_id}' throws an escalation event with escalationCode "
        f"'{code}', but no escalation handler was defined."
    )


def escalate_task(session: InstanceSession, execution_id: str, code: str) -> None:
    """TaskService.handleEscalation, once the task is checked and the variables set: the
    escalation is raised where the task waits. Uncaught in this instance it may still be caught
    by a calling one (the engine refuses the command if not, see `uncaught`)."""
    execution = session.state.executions[execution_id]
    thrower = EscalationThrower(
        session.state.id, execution_id, execution.activity_instance_id or "", from_task=True
    )
    flow = Flow(session)
    outcome = throw_escalation(flow, execution_id, code, thrower)
    if outcome is Outcome.UNCAUGHT:
        raise uncaught(code, execution_id)
    flow.run()
