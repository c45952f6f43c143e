"""Decide: what each instance command means, as events emitted on the instance's session.

Pure apart from the recorded inputs in the session's context (ids, time, delegates' results);
raises typed errors for commands the current state does not allow. `decide_on` is the one way
from a command on an existing instance to its decision, for the engine and the domain tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any, TypeVar

from . import commands as cmd
from . import events as ev
from .behaviors.errors import throw_error
from .behaviors.event_subprocesses import fire as fire_event_subprocess
from .behaviors.events import fire_boundary
from .behaviors.incidents import FAILED_EXTERNAL_TASK, FAILED_JOB, close_incidents, open_incident
from .behaviors.jobs import (
    ASYNC,
    BEFORE,
    PROCESS_START,
    TIMER_EVENT_SUBPROCESS,
    TIMER_INTERMEDIATE,
    TIMER_TRANSITION,
    retry_due,
    schedule_follow_up,
)
from .behaviors.listeners import notify_task
from .behaviors.timeout_listeners import TIMER_TASK_LISTENER, fire_timeout
from .errors import NotFound, Rejected, TaskAlreadyClaimed
from .escalations import escalate_task
from .flow import Flow
from .limits import (
    MAX_DELETE_REASON,
    MAX_ERROR_CODE,
    MAX_STACKTRACE,
    MAX_TEXT,
    MAX_USER_ID,
    MAX_WORKER_ID,
    check_expiry,
    check_java_int,
    check_java_long,
    check_text,
    check_variable_count,
    external_error_message,
)
from .model import EventSpec
from .modification import modify
from .scope import (
    find_task_local,
    remove_variable,
    set_task_variable_local,
    set_variable,
    set_variable_local,
)
from .session import InstanceSession
from .signal_jobs import PROCESS_EVENT, run_signal_job
from .state import ExternalTask, Job, UserTask


def _task(session: InstanceSession, task_id: str) -> UserTask:
    task = session.state.tasks.get(task_id)
    if task is None:
        raise NotFound("Task", task_id, "it does not exist or is already completed")
    return task


def _workable_task(session: InstanceSession, task_id: str) -> UserTask:
    """A task that may be worked on: not of a suspended instance (Camunda's
    SuspendedEntityInteractionException)."""
    task = _task(session, task_id)
    if session.state.suspended:
        raise Rejected(f"Task with id '{task_id}' is suspended")
    return task


def _not_suspended(session: InstanceSession) -> None:
    if session.state.suspended:
        raise Rejected(f"ProcessInstance with id '{session.state.id}' is suspended")


def suspend_instance(session: InstanceSession) -> None:
    """runtimeService.suspendProcessInstanceById (suspending a suspended one changes nothing)."""
    if session.state.ended:
        raise NotFound("Process instance", session.state.id, "it has already ended")
    if not session.state.suspended:
        session.emit(ev.ProcessInstanceSuspended(time=session.ctx.now))


def activate_instance(session: InstanceSession) -> None:
    if session.state.ended:
        raise NotFound("Process instance", session.state.id, "it has already ended")
    if session.state.suspended:
        session.emit(ev.ProcessInstanceActivated(time=session.ctx.now))


def complete_task(session: InstanceSession, task_id: str, variables: Mapping[str, Any]) -> None:
    check_variable_count(variables)
    task = _workable_task(session, task_id)
    for name, value in variables.items():
        set_variable(session, task.execution_id, name, value)
    notify_task(session, task_id, "complete")
    session.emit(ev.TaskCompleted(task_id=task_id, time=session.ctx.now))
    flow = Flow(session)
    flow.leave(task.execution_id)
    flow.run()


def task_escalation(
    session: InstanceSession, task_id: str, code: str, variables: Mapping[str, Any]
) -> None:
    """TaskService.handleEscalation (core.escalations): the variables set from the task's
    execution, then the escalation raised where the task waits."""
    if not code:
        raise Rejected("escalationCode is null or empty")
    check_text("escalationCode", code, MAX_ERROR_CODE)
    check_variable_count(variables)
    task = _workable_task(session, task_id)
    for name, value in variables.items():
        set_variable(session, task.execution_id, name, value)
    escalate_task(session, task.execution_id, code)


def task_bpmn_error(
    session: InstanceSession,
    task_id: str,
    error_code: str,
    error_message: str | None,
    variables: Mapping[str, Any],
) -> None:
    """TaskService.handleBpmnError: the variables set from the task's execution, then the
    error thrown where the task waits, as a delegate's would be."""
    if not error_code:
        raise Rejected("errorCode is null or empty")
    check_text("errorCode", error_code, MAX_ERROR_CODE)
    check_text("errorMessage", error_message, MAX_TEXT)
    check_variable_count(variables)
    task = _workable_task(session, task_id)
    for name, value in variables.items():
        set_variable(session, task.execution_id, name, value)
    flow = Flow(session)
    throw_error(flow, task.execution_id, error_code, error_message)
    flow.run()
    still = session.state.tasks.get(task_id)
    if still is not None and still.activity_instance_id not in session.state.activity_instances:
        # Uncaught, the error ended the task's path (Camunda ends the execution): the task
        # goes with it.
        session.emit(ev.TaskDeleted(task_id=task_id, reason="deleted", time=session.ctx.now))


def claim_task(session: InstanceSession, task_id: str, user_id: str) -> None:
    check_text("userId", user_id, MAX_USER_ID)
    task = _workable_task(session, task_id)
    if task.assignee is not None and task.assignee != user_id:
        raise TaskAlreadyClaimed(task_id, task.assignee)
    before = task.assignee
    session.emit(ev.TaskClaimed(task_id=task_id, assignee=user_id, time=session.ctx.now))
    if before != user_id:
        notify_task(session, task_id, "assignment")


def unclaim_task(session: InstanceSession, task_id: str) -> None:
    before = _workable_task(session, task_id).assignee
    session.emit(ev.TaskUnclaimed(task_id=task_id, time=session.ctx.now))
    if before is not None:
        notify_task(session, task_id, "assignment")


def set_assignee(session: InstanceSession, task_id: str, user_id: str | None) -> None:
    check_text("userId", user_id, MAX_USER_ID)
    before = _workable_task(session, task_id).assignee
    session.emit(ev.TaskAssigned(task_id=task_id, assignee=user_id, time=session.ctx.now))
    if before != user_id:
        notify_task(session, task_id, "assignment")


def _execution(session: InstanceSession, execution_id: str) -> None:
    if execution_id not in session.state.executions:
        raise NotFound("Execution", execution_id, "it does not exist or has ended")


def set_variables(
    session: InstanceSession,
    execution_id: str,
    variables: Mapping[str, Any],
    *,
    local: bool = False,
    task_id: str | None = None,
) -> None:
    check_variable_count(variables)
    if task_id is not None:
        task = _task(session, task_id)
        for name, value in variables.items():
            if local:
                set_task_variable_local(session, task_id, name, value)
            else:
                set_variable(session, task.execution_id, name, value)
        _changed_variables(session)
        return
    _execution(session, execution_id)
    for name, value in variables.items():
        if local:
            set_variable_local(session, execution_id, name, value)
        else:
            set_variable(session, execution_id, name, value)
    _changed_variables(session)


def _changed_variables(session: InstanceSession) -> None:
    """Variables changed outside any activity: the conditional events waiting for them are
    evaluated now, and what they start runs until it rests (Camunda's AbstractVariableCmd)."""
    if session.variable_changes:
        Flow(session).run()


def remove_variables(
    session: InstanceSession,
    execution_id: str,
    names: list[str],
    *,
    local: bool = False,
    task_id: str | None = None,
) -> None:
    if task_id is not None:
        task = _task(session, task_id)
        for name in names:
            var = find_task_local(session, task_id, name)
            if var is not None:
                session.emit(ev.VariableDeleted(variable_id=var.id, time=session.ctx.now))
            elif not local:
                remove_variable(session, task.execution_id, name, local=False)
        _changed_variables(session)
        return
    _execution(session, execution_id)
    for name in names:
        remove_variable(session, execution_id, name, local=local)
    _changed_variables(session)


def trigger(session: InstanceSession, execution_id: str, variables: Mapping[str, Any]) -> None:
    """Signal the activity the execution waits in (Camunda's runtimeService.signal)."""
    check_variable_count(variables)
    _not_suspended(session)
    _execution(session, execution_id)
    flow = Flow(session)
    flow.trigger(execution_id, variables)
    flow.run()


def delete_instance(
    session: InstanceSession, reason: str | None, *, by_caller: bool = False
) -> None:
    check_text("deleteReason", reason, MAX_DELETE_REASON)
    flow = Flow(session)
    flow.cancel_tree(session.state.id, reason or "deleted")
    session.emit(
        ev.ProcessInstanceTerminated(
            reason=reason, externally=True, time=session.ctx.now, by_caller=by_caller
        )
    )


def delete_history(
    session: InstanceSession, *, deleted_with_deployment: bool = False, cleanup: bool = False
) -> None:
    """Camunda's deleteHistoricProcessInstance: only a finished instance's history can go.

    `deleted_with_deployment`: its deployment was deleted with cascade, which took the history of
    every instance of its definitions along (without an event on each finished instance)."""
    state = session.state
    if not state.ended:
        raise Rejected(
            "Process instance is still running, cannot delete historic process instance: "
            f"{state.id}"
        )
    if state.history_deleted or deleted_with_deployment:
        raise NotFound("Historic process instance", state.id, "its history was deleted")
    session.emit(ev.HistoricProcessInstanceDeleted(time=session.ctx.now, cleanup=cleanup))


# -- external tasks -------------------------------------------------------------------------------


def _external(session: InstanceSession, external_task_id: str) -> ExternalTask:
    ext = session.state.external_tasks.get(external_task_id)
    if ext is None:
        raise NotFound("External task", external_task_id, "it does not exist or is already done")
    return ext


def check_worker_id(worker_id: str) -> None:
    """WORKER_ID_ is varchar(255), and the command log records the worker as the actor."""
    check_text("workerId", worker_id, MAX_WORKER_ID)


def _locked_by(ext: ExternalTask, worker_id: str, verb: str) -> None:
    check_worker_id(worker_id)
    if ext.worker_id != worker_id:
        holder = (
            f"It is locked by worker '{ext.worker_id}'." if ext.worker_id else "It is not locked."
        )
        raise Rejected(
            f"External task '{ext.id}' cannot be {verb} by worker '{worker_id}'. {holder}"
        )


def lock_external_task(
    session: InstanceSession, external_task_id: str, worker_id: str, duration_ms: int
) -> bool:
    """Lock a fetchable task; False when it was taken or exhausted meanwhile."""
    check_worker_id(worker_id)
    ext = session.state.external_tasks.get(external_task_id)
    now = session.ctx.now
    expiration = check_expiry("lockDuration", now, duration_ms)
    if ext is None or (ext.retries is not None and ext.retries <= 0):
        return False
    if session.state.suspended:
        return False  # suspended since it was found: not fetchable
    if ext.lock_expiration is not None and ext.lock_expiration > now:
        return False
    session.emit(
        ev.ExternalTaskLocked(
            external_task_id=external_task_id,
            worker_id=worker_id,
            lock_expiration=expiration,
            time=now,
        )
    )
    return True


def complete_external_task(
    session: InstanceSession,
    external_task_id: str,
    worker_id: str,
    variables: Mapping[str, Any],
    local_variables: Mapping[str, Any],
) -> None:
    check_variable_count(variables, local_variables)
    ext = _external(session, external_task_id)
    if session.state.suspended:
        raise Rejected(f"ExternalTask with id '{ext.id}' is suspended")
    _locked_by(ext, worker_id, "completed")
    for name, value in variables.items():
        set_variable(session, ext.execution_id, name, value)
    for name, value in local_variables.items():
        set_variable_local(session, ext.execution_id, name, value)
    close_incidents(session, external_task_id, resolved=True)
    session.emit(
        ev.ExternalTaskCompleted(
            external_task_id=external_task_id, worker_id=worker_id, time=session.ctx.now
        )
    )
    flow = Flow(session)
    flow.leave(ext.execution_id)
    flow.run()


def fail_external_task(
    session: InstanceSession,
    external_task_id: str,
    worker_id: str,
    *,
    error_message: str | None,
    error_details: str | None,
    retries: int,
    retry_timeout_ms: int,
    variables: Mapping[str, Any] | None = None,
    local_variables: Mapping[str, Any] | None = None,
) -> None:
    check_variable_count(variables, local_variables)
    error_message = external_error_message(error_message)
    check_text("errorDetails", error_details)
    ext = _external(session, external_task_id)
    if session.state.suspended:
        raise Rejected(f"ExternalTask with id '{ext.id}' is suspended")
    _locked_by(ext, worker_id, "failed")
    if retries < 0:
        raise Rejected(f"retries must not be negative (got {retries})")
    check_java_int("retries", retries)
    if retry_timeout_ms < 0:
        raise Rejected(f"retryTimeout must not be negative (got {retry_timeout_ms})")
    retry_at = check_expiry("retryTimeout", session.ctx.now, retry_timeout_ms)
    # Camunda sets them before the failure is recorded, from the task's execution
    for name, value in (variables or {}).items():
        set_variable(session, ext.execution_id, name, value)
    for name, value in (local_variables or {}).items():
        set_variable_local(session, ext.execution_id, name, value)
    now = session.ctx.now
    session.emit(
        ev.ExternalTaskFailed(
            external_task_id=external_task_id,
            worker_id=worker_id,
            error_message=error_message,
            error_details=error_details,
            retries=retries,
            retry_at=retry_at,
            time=now,
        )
    )
    if retries == 0:
        _external_incident(session, ext, error_message)


def _external_incident(session: InstanceSession, ext: ExternalTask, message: str | None) -> None:
    """Camunda's failedExternalTask incident: the task has no retries left."""
    open_incident(
        session,
        FAILED_EXTERNAL_TASK,
        ext.id,
        execution_id=ext.execution_id,
        activity_id=ext.activity_id,
        failed_activity_id=ext.activity_id,
        message=message,
    )


def external_task_bpmn_error(
    session: InstanceSession,
    external_task_id: str,
    worker_id: str,
    error_code: str,
    error_message: str | None,
    variables: Mapping[str, Any],
) -> None:
    check_variable_count(variables)
    check_text("errorCode", error_code, MAX_ERROR_CODE)
    check_text("errorMessage", error_message, MAX_TEXT)
    ext = _external(session, external_task_id)
    if session.state.suspended:
        raise Rejected(f"ExternalTask with id '{ext.id}' is suspended")
    _locked_by(ext, worker_id, "reported as a BPMN error")
    for name, value in variables.items():
        set_variable(session, ext.execution_id, name, value)
    close_incidents(session, external_task_id, resolved=True)
    session.emit(
        ev.ExternalTaskBpmnErrorReported(
            external_task_id=external_task_id,
            worker_id=worker_id,
            error_code=error_code,
            error_message=error_message,
            time=session.ctx.now,
        )
    )
    flow = Flow(session)
    throw_error(flow, ext.execution_id, error_code, error_message)
    flow.run()


def extend_external_task_lock(
    session: InstanceSession, external_task_id: str, worker_id: str, new_duration_ms: int
) -> None:
    ext = _external(session, external_task_id)
    if session.state.suspended:
        raise Rejected(f"ExternalTask with id '{ext.id}' is suspended")
    _locked_by(ext, worker_id, "extended")
    now = session.ctx.now
    if ext.lock_expiration is None or ext.lock_expiration < now:
        raise Rejected(f"The lock of external task '{external_task_id}' has already expired")
    if new_duration_ms <= 0:
        raise Rejected(f"newDuration must be positive (got {new_duration_ms})")
    expiration = check_expiry("newDuration", now, new_duration_ms)
    session.emit(
        ev.ExternalTaskLockExtended(
            external_task_id=external_task_id,
            lock_expiration=expiration,
            time=now,
        )
    )


def set_external_task_retries(
    session: InstanceSession, external_task_id: str, retries: int
) -> None:
    """Camunda's externalTaskService.setRetries. At 0 the task is no longer fetchable and a
    `failedExternalTask` incident opens; above 0 an open one is resolved."""
    if retries < 0:
        raise Rejected(f"The number of retries cannot be negative (got {retries})")
    check_java_int("retries", retries)
    ext = _external(session, external_task_id)
    before = ext.retries
    session.emit(
        ev.ExternalTaskRetriesSet(
            external_task_id=external_task_id, retries=retries, time=session.ctx.now
        )
    )
    if retries == 0 and before != 0:
        _external_incident(session, ext, ext.error_message)
    elif retries > 0 and before == 0:
        close_incidents(session, external_task_id, resolved=True)


LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1  # PRIORITY_ is Camunda's Java long


def set_external_task_priority(
    session: InstanceSession, external_task_id: str, priority: int
) -> None:
    if not LONG_MIN <= priority <= LONG_MAX:
        raise Rejected(f"The priority must fit a 64-bit integer (got {priority})")
    _external(session, external_task_id)
    session.emit(
        ev.ExternalTaskPrioritySet(
            external_task_id=external_task_id, priority=priority, time=session.ctx.now
        )
    )


def unlock_external_task(session: InstanceSession, external_task_id: str) -> None:
    _external(session, external_task_id)
    session.emit(ev.ExternalTaskUnlocked(external_task_id=external_task_id, time=session.ctx.now))


# -- jobs -----------------------------------------------------------------------------------------


def _job(session: InstanceSession, job_id: str) -> Job:
    job = None if session.state.ended else session.state.jobs.get(job_id)
    if job is None:
        raise NotFound("Job", job_id, "it does not exist or has already run")
    return job


def execute_job(session: InstanceSession, job_id: str) -> bool:
    """Run the job: fire its timer or continue its flow. A job that is gone (run already by
    another executor, or its activity ended) is no work: False, and nothing is recorded, so
    running a job twice after a lost lease changes nothing twice."""
    state = session.state
    job = None if state.ended else state.jobs.get(job_id)
    if job is None:
        return False
    if job.suspended or state.suspended:
        raise Rejected(f"Job '{job_id}' is suspended: activate it before it can run")
    flow = Flow(session)
    now = session.ctx.now
    event = session.model.activities.get(job.activity_id)
    if event is None:
        raise NotFound("Activity", job.activity_id, "the job's definition does not have it")
    spec = event.spec
    repeats = isinstance(spec, EventSpec) and not spec.cancel_activity
    if job.handler_type in (TIMER_TRANSITION, TIMER_EVENT_SUBPROCESS) and repeats:
        schedule_follow_up(flow, job)
    close_incidents(session, job_id, resolved=True)
    session.emit(ev.JobExecuted(job_id=job_id, time=now))
    if job.handler_type == TIMER_INTERMEDIATE:
        flow.event_occurred(job.execution_id, event)
    elif job.handler_type == TIMER_TRANSITION:
        fire_boundary(flow, job.execution_id, event)
    elif job.handler_type == TIMER_EVENT_SUBPROCESS:
        fire_event_subprocess(flow, job.execution_id, event)
    elif job.handler_type == ASYNC and job.handler_configuration in (BEFORE, PROCESS_START):
        flow.enter(job.execution_id, job.activity_id, None, resumed=True)
    elif job.handler_type == ASYNC:
        flow.resume_after(job.execution_id, job.handler_configuration)
    elif job.handler_type == PROCESS_EVENT:
        run_signal_job(session, job)
    elif job.handler_type == TIMER_TASK_LISTENER:
        fire_timeout(flow, job)
    else:
        raise Rejected(f"Job '{job_id}' has the handler type '{job.handler_type}', unknown here")
    flow.run()
    return True


def fail_job(
    session: InstanceSession,
    job_id: str,
    error_message: str | None,
    stacktrace: str | None,
    failed_activity_id: str | None,
) -> None:
    """Running the job raised: retries go down (waiting as a retry cycle says); at 0 a
    `failedJob` incident opens. A job gone meanwhile has nothing to record."""
    state = session.state
    job = None if state.ended else state.jobs.get(job_id)
    if job is None:
        return
    message = None if error_message is None else error_message[:MAX_TEXT]
    trace = None if stacktrace is None else stacktrace[:MAX_STACKTRACE]
    retries = max(job.retries - 1, 0)
    activity = session.model.activities.get(job.activity_id)
    due = retry_due(activity, job.retries, job.due_date, session.ctx.now)
    now = session.ctx.now
    session.emit(
        ev.JobFailed(
            job_id=job_id,
            retries=retries,
            error_message=message,
            stacktrace=trace,
            failed_activity_id=failed_activity_id,
            due_date=due,
            time=now,
        )
    )
    if retries == 0:
        _open_incident(session, job, message, failed_activity_id)


def _open_incident(
    session: InstanceSession, job: Job, message: str | None, failed_activity_id: str | None
) -> None:
    open_incident(
        session,
        FAILED_JOB,
        job.id,
        execution_id=job.execution_id,
        activity_id=job.activity_id,
        failed_activity_id=failed_activity_id or job.activity_id,
        message=message,
        job_definition_id=job.job_definition_id,
    )


def set_job_retries(session: InstanceSession, job_id: str, retries: int) -> None:
    """managementService.setJobRetries: from 0 up resolves the job's incident, down to 0 opens
    one (Camunda's JobEntity.setRetries)."""
    if retries < 0:
        raise Rejected(f"The number of job retries must be a non-negative Integer, but '{retries}'")
    check_java_int("retries", retries)
    job = _job(session, job_id)
    now = session.ctx.now
    before = job.retries
    session.emit(ev.JobRetriesSet(job_id=job_id, retries=retries, time=now))
    if before == 0 and retries > 0:
        close_incidents(session, job_id, resolved=True)
    elif before > 0 and retries == 0:
        _open_incident(session, job, job.error_message, job.failed_activity_id)


def set_job_suspended(session: InstanceSession, job_id: str, suspended: bool) -> None:
    """A suspended job is not acquired, nor run by hand, until it is activated again."""
    job = _job(session, job_id)
    if job.suspended == suspended:
        return
    now = session.ctx.now
    if suspended:
        session.emit(ev.JobSuspended(job_id=job_id, time=now))
    else:
        session.emit(ev.JobActivated(job_id=job_id, time=now))


def set_job_priority(session: InstanceSession, job_id: str, priority: int) -> None:
    check_java_long("priority", priority)
    _job(session, job_id)
    session.emit(ev.JobPrioritySet(job_id=job_id, priority=priority, time=session.ctx.now))


def set_job_due_date(session: InstanceSession, job_id: str, due_date: datetime | None) -> None:
    _job(session, job_id)
    session.emit(ev.JobDueDateSet(job_id=job_id, due_date=due_date, time=session.ctx.now))


# -- the commands on one existing instance, each read into its decision --------------------------

C = TypeVar("C", bound=cmd.Command)
Decision = Callable[[InstanceSession, C], None]
InstanceDecision = Decision[Any]

_DECISIONS: dict[type[cmd.Command], InstanceDecision] = {}
INSTANCE_DECISIONS: Mapping[type[cmd.Command], InstanceDecision] = MappingProxyType(_DECISIONS)
"""Command type -> its decision on the session of the instance the command acts on. Commands that
need more than one instance (a deployment's, a start's definition, fetch's candidates) are not
here: the engine's handlers decide those."""


def decides(command_type: type[C]) -> Callable[[Decision[C]], Decision[C]]:
    """Register the decorated function as the decision of `command_type` (one per command)."""

    def register(decision: Decision[C]) -> Decision[C]:
        if command_type in _DECISIONS:
            raise ValueError(f"two decisions for {command_type.__name__}")
        _DECISIONS[command_type] = decision
        return decision

    return register


def decide_on(session: InstanceSession, command: cmd.Command) -> None:
    """Decide `command` on `session`, the instance it acts on (the caller found that one)."""
    decision = INSTANCE_DECISIONS.get(type(command))
    if decision is None:
        raise TypeError(f"{type(command).__name__} is not a command on one existing instance")
    decision(session, command)


@decides(cmd.SetProcessInstanceSuspended)
def _(session: InstanceSession, c: cmd.SetProcessInstanceSuspended) -> None:
    if c.suspended:
        suspend_instance(session)
    else:
        activate_instance(session)


@decides(cmd.CompleteTask)
def _(session: InstanceSession, c: cmd.CompleteTask) -> None:
    complete_task(session, c.task_id, c.variables)


@decides(cmd.HandleTaskEscalation)
def _(session: InstanceSession, c: cmd.HandleTaskEscalation) -> None:
    task_escalation(session, c.task_id, c.escalation_code, c.variables)


@decides(cmd.HandleTaskBpmnError)
def _(session: InstanceSession, c: cmd.HandleTaskBpmnError) -> None:
    task_bpmn_error(session, c.task_id, c.error_code, c.error_message, c.variables)


@decides(cmd.ClaimTask)
def _(session: InstanceSession, c: cmd.ClaimTask) -> None:
    claim_task(session, c.task_id, c.user_id)


@decides(cmd.UnclaimTask)
def _(session: InstanceSession, c: cmd.UnclaimTask) -> None:
    unclaim_task(session, c.task_id)


@decides(cmd.SetAssignee)
def _(session: InstanceSession, c: cmd.SetAssignee) -> None:
    set_assignee(session, c.task_id, c.user_id)


@decides(cmd.SetVariables)
def _(session: InstanceSession, c: cmd.SetVariables) -> None:
    # a task's variables name no execution: decide reads the task's own
    set_variables(session, c.execution_id or "", c.variables, local=c.local, task_id=c.task_id)


@decides(cmd.RemoveVariables)
def _(session: InstanceSession, c: cmd.RemoveVariables) -> None:
    remove_variables(session, c.execution_id or "", c.names, local=c.local, task_id=c.task_id)


@decides(cmd.Trigger)
def _(session: InstanceSession, c: cmd.Trigger) -> None:
    trigger(session, c.execution_id, c.variables)


@decides(cmd.ModifyProcessInstance)
def _(session: InstanceSession, c: cmd.ModifyProcessInstance) -> None:
    modify(
        session,
        c.instructions,
        skip_custom_listeners=c.skip_custom_listeners,
        skip_io_mappings=c.skip_io_mappings,
        annotation=c.annotation,
    )


@decides(cmd.DeleteProcessInstance)
def _(session: InstanceSession, c: cmd.DeleteProcessInstance) -> None:
    # what the cancelled activities' end listeners and output mappings would do is skipped
    session.skip_custom_listeners = c.skip_custom_listeners
    session.skip_io_mappings = c.skip_io_mappings
    delete_instance(session, c.reason)


@decides(cmd.CompleteExternalTask)
def _(session: InstanceSession, c: cmd.CompleteExternalTask) -> None:
    complete_external_task(session, c.external_task_id, c.worker_id, c.variables, c.local_variables)


@decides(cmd.HandleExternalTaskFailure)
def _(session: InstanceSession, c: cmd.HandleExternalTaskFailure) -> None:
    fail_external_task(
        session,
        c.external_task_id,
        c.worker_id,
        error_message=c.error_message,
        error_details=c.error_details,
        retries=c.retries,
        retry_timeout_ms=c.retry_timeout,
        variables=c.variables,
        local_variables=c.local_variables,
    )


@decides(cmd.HandleExternalTaskBpmnError)
def _(session: InstanceSession, c: cmd.HandleExternalTaskBpmnError) -> None:
    external_task_bpmn_error(
        session, c.external_task_id, c.worker_id, c.error_code, c.error_message, c.variables
    )


@decides(cmd.ExtendExternalTaskLock)
def _(session: InstanceSession, c: cmd.ExtendExternalTaskLock) -> None:
    extend_external_task_lock(session, c.external_task_id, c.worker_id, c.new_duration)


@decides(cmd.UnlockExternalTask)
def _(session: InstanceSession, c: cmd.UnlockExternalTask) -> None:
    unlock_external_task(session, c.external_task_id)


@decides(cmd.SetExternalTaskRetries)
def _(session: InstanceSession, c: cmd.SetExternalTaskRetries) -> None:
    set_external_task_retries(session, c.external_task_id, c.retries)


@decides(cmd.SetExternalTaskPriority)
def _(session: InstanceSession, c: cmd.SetExternalTaskPriority) -> None:
    set_external_task_priority(session, c.external_task_id, c.priority)


@decides(cmd.ExecuteJob)
def _(session: InstanceSession, c: cmd.ExecuteJob) -> None:
    execute_job(session, c.job_id)


@decides(cmd.HandleJobFailure)
def _(session: InstanceSession, c: cmd.HandleJobFailure) -> None:
    fail_job(session, c.job_id, c.error_message, c.stacktrace, c.failed_activity_id)


@decides(cmd.SetJobRetries)
def _(session: InstanceSession, c: cmd.SetJobRetries) -> None:
    set_job_retries(session, c.job_id, c.retries)


@decides(cmd.SetJobPriority)
def _(session: InstanceSession, c: cmd.SetJobPriority) -> None:
    set_job_priority(session, c.job_id, c.priority)


@decides(cmd.SetJobDueDate)
def _(session: InstanceSession, c: cmd.SetJobDueDate) -> None:
    set_job_due_date(session, c.job_id, c.due_date)


@decides(cmd.SetJobSuspended)
def _(session: InstanceSession, c: cmd.SetJobSuspended) -> None:
    set_job_suspended(session, c.job_id, c.suspended)
