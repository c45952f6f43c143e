"""`evolve(state, event)`: the only way instance state changes, live and in replay.

Pure: no clock, no randomness, no I/O. One applier per event type, registered in `APPLIERS`.
Appliers update the state in place (the caller owns it) and never raise on a valid log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import msgspec

from . import events as ev
from .personal_data import erased_value
from .state import (
    ActivityInstance,
    EventSubscription,
    Execution,
    ExternalTask,
    Incident,
    InstanceState,
    Job,
    RetainedScope,
    UserTask,
    Variable,
    forget_variable_index,
    variable_index,
)

E = TypeVar("E", bound=ev.Event)
Applier = Callable[[InstanceState, Any], None]
APPLIERS: dict[type[ev.Event], Applier] = {}


def applies(event_type: type[E]) -> Callable[[Callable[[InstanceState, E], None]], Applier]:
    def register(fn: Callable[[InstanceState, E], None]) -> Applier:
        if event_type in APPLIERS:
            raise ValueError(f"two appliers for {event_type.__name__}")
        APPLIERS[event_type] = fn
        return fn

    return register


def start(event: ev.ProcessInstanceStarted) -> InstanceState:
    pid = event.process_instance_id
    state = InstanceState(
        id=pid,
        definition_id=event.definition_id,
        definition_key=event.definition_key,
        definition_version=event.definition_version,
        deployment_id=event.deployment_id,
        business_key=event.business_key,
        start_time=event.time,
        start_activity_id=event.start_activity_id,
        start_user_id=event.start_user_id,
        root_process_instance_id=event.root_process_instance_id or pid,
        super_process_instance_id=event.super_process_instance_id,
        super_execution_id=event.super_execution_id,
        history_ttl_days=event.history_ttl_days,
        call_depth=event.call_depth,
        removal_time=event.removal_time,
    )
    state.executions[pid] = Execution(
        id=pid,
        parent_id=None,
        is_scope=True,
        is_concurrent=False,
        scope_activity_instance_id=pid,
    )
    state.version = 1
    return state


def evolve(state: InstanceState | None, event: ev.Event) -> InstanceState:
    """Apply one event; returns the (same, updated) state."""
    if state is None:
        if not isinstance(event, ev.ProcessInstanceStarted):
            raise ValueError(
                f"an instance stream must start with ProcessInstanceStarted, not {event}"
            )
        return start(event)
    applier = APPLIERS.get(type(event))
    if applier is None:
        raise ValueError(
            f"no applier for the event type {type(event).__name__}: register one with @applies"
        )
    applier(state, event)
    state.version += 1
    return state


def fold(events: Iterable[ev.Event], state: InstanceState | None = None) -> InstanceState | None:
    for event in events:
        state = evolve(state, event)
    return state


# -- lifecycle --------------------------------------------------------------------------------


@applies(ev.ProcessInstanceStarted)
def _started(s: InstanceState, e: ev.ProcessInstanceStarted) -> None:
    raise ValueError(f"instance {s.id} was started twice")


def _clear_runtime(s: InstanceState) -> None:
    s.executions.clear()
    s.activity_instances.clear()
    s.variables.clear()
    forget_variable_index(s)
    s.tasks.clear()
    s.external_tasks.clear()
    s.jobs.clear()
    s.incidents.clear()
    s.subscriptions.clear()
    s.calls.clear()
    clear_compensation(s)


@applies(ev.ProcessInstanceCompleted)
def _completed(s: InstanceState, e: ev.ProcessInstanceCompleted) -> None:
    s.status = "COMPLETED"
    s.end_time = e.time
    s.end_activity_id = e.end_activity_id
    _clear_runtime(s)


@applies(ev.ProcessInstanceTerminated)
def _terminated(s: InstanceState, e: ev.ProcessInstanceTerminated) -> None:
    s.status = "EXTERNALLY_TERMINATED" if e.externally else "INTERNALLY_TERMINATED"
    s.end_time = e.time
    s.delete_reason = e.reason
    _clear_runtime(s)


@applies(ev.InstanceDecisionRemovalTimeSet)
@applies(ev.HistoricDecisionInstancesDeleted)
@applies(ev.HistoricRemovalTimeSet)
def _removal_time_set(s: InstanceState, e: ev.Event) -> None:
    """History's alone: the rows get the time; the state keeps the removal time its start
    decided (strategy start), as a later end stamps its own under strategy end."""


@applies(ev.HistoricProcessInstanceDeleted)
def _history_deleted(s: InstanceState, e: ev.HistoricProcessInstanceDeleted) -> None:
    s.history_deleted = True


# -- execution tree ---------------------------------------------------------------------------


def _move_attachments(s: InstanceState, source: str, target: str, keep: str | None = None) -> None:
    """Tasks, external tasks, jobs, incidents and open activity instances of `source` now
    belong to `target` (all but the activity instance `keep`, which stays with `source`)."""
    for task in s.tasks.values():
        if task.execution_id == source:
            task.execution_id = target
    for ext in s.external_tasks.values():
        if ext.execution_id == source:
            ext.execution_id = target
    for job in s.jobs.values():
        if job.execution_id == source and (keep is None or job.activity_instance_id != keep):
            job.execution_id = target
    for incident in s.incidents.values():
        if incident.execution_id == source:
            incident.execution_id = target
    for sub in s.subscriptions.values():
        if sub.execution_id == source and (keep is None or sub.activity_instance_id != keep):
            sub.execution_id = target
    for ai in s.activity_instances.values():
        if ai.execution_id == source and ai.id != keep:
            ai.execution_id = target


@applies(ev.ExecutionCreated)
def _execution_created(s: InstanceState, e: ev.ExecutionCreated) -> None:
    parent = s.executions[e.parent_id]
    child = Execution(
        id=e.execution_id,
        parent_id=e.parent_id,
        is_scope=e.is_scope,
        is_concurrent=e.is_concurrent,
    )
    if e.replaces is not None:
        replaced = s.executions[e.replaces]
        child.activity_id = replaced.activity_id
        child.activity_instance_id = replaced.activity_instance_id
        child.is_active = replaced.is_active
        _move_attachments(s, replaced.id, child.id, keep=replaced.scope_activity_instance_id)
        # The scope's children (a scope activity's execution) move under the new concurrent
        # execution too: a non-interrupting event forks beside a scope activity (tree expansion).
        for moved in replaced.children:
            s.executions[moved].parent_id = child.id
            child.children.append(moved)
        replaced.children = []
    s.executions[child.id] = child
    parent.children.append(child.id)
    parent.is_active = False
    parent.activity_id = None
    parent.activity_instance_id = None


@applies(ev.ExecutionRemoved)
def _execution_removed(s: InstanceState, e: ev.ExecutionRemoved) -> None:
    gone = s.executions.pop(e.execution_id)
    s.compensating.pop(gone.id, None)
    index = variable_index(s)
    for vid in list(index.of_execution(gone.id)):
        index.remove(s.variables.pop(vid))
    if gone.parent_id is None:
        return
    parent = s.executions[gone.parent_id]
    parent.children.remove(gone.id)
    if not parent.children:
        parent.is_active = True
        parent.activity_instance_id = None
        # Camunda leaves the parent on the activity the removed scope stood for.
        parent.activity_id = gone.scope_activity_id if gone.is_scope else gone.activity_id


@applies(ev.ExecutionReplaced)
def _execution_replaced(s: InstanceState, e: ev.ExecutionReplaced) -> None:
    gone = s.executions.pop(e.execution_id)
    by = s.executions[e.by_execution_id]
    by.activity_id = gone.activity_id
    by.activity_instance_id = gone.activity_instance_id
    by.is_active = gone.is_active
    by.children.remove(gone.id)
    for child_id in gone.children:
        s.executions[child_id].parent_id = by.id
        by.children.append(child_id)
    _move_attachments(s, gone.id, by.id)
    for vid in variable_index(s).move(s.variables, gone.id, by.id):
        s.variables[vid].execution_id = by.id


@applies(ev.TokenWaitingAtJoin)
def _waiting(s: InstanceState, e: ev.TokenWaitingAtJoin) -> None:
    s.executions[e.execution_id].is_active = False


# -- activity instances -----------------------------------------------------------------------


def _enter_activity_instance(
    s: InstanceState, e: ev.ActivityStarted | ev.CompensationScopeReopened
) -> Execution:
    """The activity instance `e` opens, and its execution standing in it."""
    s.activity_instances[e.activity_instance_id] = ActivityInstance(
        id=e.activity_instance_id,
        activity_id=e.activity_id,
        activity_type=e.activity_type,
        activity_name=e.activity_name,
        execution_id=e.execution_id,
        parent_id=e.parent_activity_instance_id,
        start_time=e.time,
    )
    execution = s.executions[e.execution_id]
    execution.activity_id = e.activity_id
    execution.activity_instance_id = e.activity_instance_id
    return execution


@applies(ev.ActivityStarted)
def _activity_started(s: InstanceState, e: ev.ActivityStarted) -> None:
    execution = _enter_activity_instance(s, e)
    execution.is_active = True
    if execution.is_scope and execution.scope_activity_instance_id is None:
        # A scope execution is created for its scope activity, which is the first it starts.
        execution.scope_activity_instance_id = e.activity_instance_id
        execution.scope_activity_id = e.activity_id


def _end_activity(s: InstanceState, ai_id: str) -> None:
    ai = s.activity_instances.pop(ai_id)
    execution = s.executions.get(ai.execution_id)
    if execution is not None and execution.activity_instance_id == ai_id:
        execution.activity_instance_id = None


@applies(ev.ActivityCompleted)
def _activity_completed(s: InstanceState, e: ev.ActivityCompleted) -> None:
    _end_activity(s, e.activity_instance_id)
    s.calls.pop(e.activity_instance_id, None)


@applies(ev.ActivityCanceled)
def _activity_canceled(s: InstanceState, e: ev.ActivityCanceled) -> None:
    _end_activity(s, e.activity_instance_id)
    s.calls.pop(e.activity_instance_id, None)


@applies(ev.ProcessInstanceSuspended)
def _suspended(s: InstanceState, e: ev.ProcessInstanceSuspended) -> None:
    s.suspended = True


@applies(ev.ProcessInstanceActivated)
def _activated(s: InstanceState, e: ev.ProcessInstanceActivated) -> None:
    s.suspended = False


@applies(ev.CalledInstanceStarted)
def _called(s: InstanceState, e: ev.CalledInstanceStarted) -> None:
    s.calls[e.activity_instance_id] = e.called_process_instance_id


@applies(ev.BpmnErrorThrown)
def _error_thrown(s: InstanceState, e: ev.BpmnErrorThrown) -> None:
    """A record for the audit trail; its consequences are separate events."""


@applies(ev.EscalationThrown)
def _escalation_thrown(s: InstanceState, e: ev.EscalationThrown) -> None:
    """A record for the audit trail; its consequences are separate events."""


# -- variables --------------------------------------------------------------------------------


@applies(ev.VariableSet)
def _variable_set(s: InstanceState, e: ev.VariableSet) -> None:
    var = s.variables.get(e.variable_id)
    if var is None:
        index = variable_index(s)  # before the insert: a first use builds it from the dict
        var = s.variables[e.variable_id] = Variable(
            id=e.variable_id,
            name=e.name,
            execution_id=e.execution_id,
            value=e.value,
            created=e.time,
            task_id=e.task_id,
        )
        index.add(var)
    else:
        var.value = e.value
        var.revision += 1


@applies(ev.VariableDeleted)
def _variable_deleted(s: InstanceState, e: ev.VariableDeleted) -> None:
    index = variable_index(s)
    index.remove(s.variables.pop(e.variable_id))


@applies(ev.PersonalDataErased)
def _personal_data_erased(s: InstanceState, e: ev.PersonalDataErased) -> None:
    for variable_id in e.variable_ids:
        variable = s.variables.get(variable_id)
        if variable is not None:
            variable.value = erased_value()


# -- user tasks -------------------------------------------------------------------------------


@applies(ev.UserTaskCreated)
def _task_created(s: InstanceState, e: ev.UserTaskCreated) -> None:
    s.tasks[e.task_id] = UserTask(
        id=e.task_id,
        execution_id=e.execution_id,
        activity_instance_id=e.activity_instance_id,
        task_definition_key=e.task_definition_key,
        name=e.name,
        created=e.time,
        description=e.description,
        assignee=e.assignee,
        owner=e.owner,
        candidates=list(e.candidates),
        due_date=e.due_date,
        follow_up_date=e.follow_up_date,
        priority=e.priority,
        form_key=e.form_key,
    )


@applies(ev.TaskAssigned)
def _task_assigned(s: InstanceState, e: ev.TaskAssigned) -> None:
    task = s.tasks[e.task_id]
    task.assignee = e.assignee
    task.last_updated = e.time


@applies(ev.TaskClaimed)
def _task_claimed(s: InstanceState, e: ev.TaskClaimed) -> None:
    task = s.tasks[e.task_id]
    task.assignee = e.assignee
    task.last_updated = e.time


@applies(ev.TaskUnclaimed)
def _task_unclaimed(s: InstanceState, e: ev.TaskUnclaimed) -> None:
    task = s.tasks[e.task_id]
    task.assignee = None
    task.last_updated = e.time


@applies(ev.TaskCommentAdded)
def _task_comment_added(s: InstanceState, e: ev.TaskCommentAdded) -> None:
    """A comment changes nothing the instance decides on: it lives in history (ACT_HI_COMMENT)."""


def _remove_task(s: InstanceState, task_id: str) -> None:
    del s.tasks[task_id]
    index = variable_index(s)
    for vid in list(index.of_task(task_id)):
        index.remove(s.variables.pop(vid))


@applies(ev.TaskCompleted)
def _task_completed(s: InstanceState, e: ev.TaskCompleted) -> None:
    _remove_task(s, e.task_id)


@applies(ev.TaskDeleted)
def _task_deleted(s: InstanceState, e: ev.TaskDeleted) -> None:
    _remove_task(s, e.task_id)


# -- external tasks ---------------------------------------------------------------------------


@applies(ev.ExternalTaskCreated)
def _ext_created(s: InstanceState, e: ev.ExternalTaskCreated) -> None:
    s.external_tasks[e.external_task_id] = ExternalTask(
        id=e.external_task_id,
        execution_id=e.execution_id,
        activity_instance_id=e.activity_instance_id,
        activity_id=e.activity_id,
        topic=e.topic,
        priority=e.priority,
        created=e.time,
    )


@applies(ev.ExternalTaskLocked)
def _ext_locked(s: InstanceState, e: ev.ExternalTaskLocked) -> None:
    ext = s.external_tasks[e.external_task_id]
    ext.worker_id = e.worker_id
    ext.lock_expiration = e.lock_expiration


@applies(ev.ExternalTaskLockExtended)
def _ext_extended(s: InstanceState, e: ev.ExternalTaskLockExtended) -> None:
    s.external_tasks[e.external_task_id].lock_expiration = e.lock_expiration


@applies(ev.ExternalTaskUnlocked)
def _ext_unlocked(s: InstanceState, e: ev.ExternalTaskUnlocked) -> None:
    ext = s.external_tasks[e.external_task_id]
    ext.worker_id = None
    ext.lock_expiration = None


@applies(ev.ExternalTaskFailed)
def _ext_failed(s: InstanceState, e: ev.ExternalTaskFailed) -> None:
    ext = s.external_tasks[e.external_task_id]
    ext.error_message = e.error_message
    if e.error_details is not None:
        # Camunda keeps the earlier details when a later failure reports none.
        ext.error_details = e.error_details
    ext.retries = e.retries
    ext.lock_expiration = e.retry_at


@applies(ev.ExternalTaskCompleted)
def _ext_completed(s: InstanceState, e: ev.ExternalTaskCompleted) -> None:
    del s.external_tasks[e.external_task_id]


@applies(ev.ExternalTaskBpmnErrorReported)
def _ext_bpmn_error(s: InstanceState, e: ev.ExternalTaskBpmnErrorReported) -> None:
    del s.external_tasks[e.external_task_id]


@applies(ev.ExternalTaskRetriesSet)
def _ext_retries_set(s: InstanceState, e: ev.ExternalTaskRetriesSet) -> None:
    s.external_tasks[e.external_task_id].retries = e.retries


@applies(ev.ExternalTaskPrioritySet)
def _ext_priority_set(s: InstanceState, e: ev.ExternalTaskPrioritySet) -> None:
    s.external_tasks[e.external_task_id].priority = e.priority


@applies(ev.ExternalTaskCanceled)
def _ext_canceled(s: InstanceState, e: ev.ExternalTaskCanceled) -> None:
    del s.external_tasks[e.external_task_id]


# -- jobs and incidents -----------------------------------------------------------------------


@applies(ev.JobCreated)
def _job_created(s: InstanceState, e: ev.JobCreated) -> None:
    if e.activity_instance_id is None:
        # A continuation: its execution waits at the activity, with no activity instance (Camunda
        # shows a transition instance there).
        s.executions[e.execution_id].activity_id = e.activity_id
    s.jobs[e.job_id] = Job(
        id=e.job_id,
        job_type=e.job_type,
        handler_type=e.handler_type,
        handler_configuration=e.handler_configuration,
        job_definition_id=e.job_definition_id,
        execution_id=e.execution_id,
        activity_id=e.activity_id,
        activity_instance_id=e.activity_instance_id,
        due_date=e.due_date,
        retries=e.retries,
        priority=e.priority,
        exclusive=e.exclusive,
        created=e.time,
        repeat=e.repeat,
    )


@applies(ev.JobExecuted)
def _job_executed(s: InstanceState, e: ev.JobExecuted) -> None:
    del s.jobs[e.job_id]


@applies(ev.JobDeleted)
def _job_deleted(s: InstanceState, e: ev.JobDeleted) -> None:
    del s.jobs[e.job_id]


@applies(ev.JobFailed)
def _job_failed(s: InstanceState, e: ev.JobFailed) -> None:
    job = s.jobs[e.job_id]
    job.retries = e.retries
    job.error_message = e.error_message
    job.stacktrace = e.stacktrace
    job.failed_activity_id = e.failed_activity_id
    job.due_date = e.due_date


@applies(ev.JobRetriesSet)
def _job_retries_set(s: InstanceState, e: ev.JobRetriesSet) -> None:
    s.jobs[e.job_id].retries = e.retries


@applies(ev.JobDueDateSet)
def _job_due_date_set(s: InstanceState, e: ev.JobDueDateSet) -> None:
    s.jobs[e.job_id].due_date = e.due_date


@applies(ev.JobPrioritySet)
def _job_priority_set(s: InstanceState, e: ev.JobPrioritySet) -> None:
    s.jobs[e.job_id].priority = e.priority


@applies(ev.JobSuspended)
def _job_suspended(s: InstanceState, e: ev.JobSuspended) -> None:
    s.jobs[e.job_id].suspended = True


@applies(ev.JobActivated)
def _job_activated(s: InstanceState, e: ev.JobActivated) -> None:
    s.jobs[e.job_id].suspended = False


@applies(ev.IncidentCreated)
def _incident_created(s: InstanceState, e: ev.IncidentCreated) -> None:
    s.incidents[e.incident_id] = Incident(
        id=e.incident_id,
        incident_type=e.incident_type,
        configuration=e.configuration,
        execution_id=e.execution_id,
        activity_id=e.activity_id,
        failed_activity_id=e.failed_activity_id,
        message=e.message,
        created=e.time,
        job_definition_id=e.job_definition_id,
    )


@applies(ev.IncidentResolved)
def _incident_resolved(s: InstanceState, e: ev.IncidentResolved) -> None:
    del s.incidents[e.incident_id]


@applies(ev.IncidentDeleted)
def _incident_deleted(s: InstanceState, e: ev.IncidentDeleted) -> None:
    del s.incidents[e.incident_id]


# -- event subscriptions ----------------------------------------------------------------------


@applies(ev.EventSubscriptionCreated)
def _subscribed(s: InstanceState, e: ev.EventSubscriptionCreated) -> None:
    s.subscriptions[e.subscription_id] = EventSubscription(
        id=e.subscription_id,
        event_type=e.event_type,
        event_name=e.event_name,
        execution_id=e.execution_id,
        activity_id=e.activity_id,
        activity_instance_id=e.activity_instance_id,
        created=e.time,
    )


@applies(ev.EventSubscriptionDeleted)
def _unsubscribed(s: InstanceState, e: ev.EventSubscriptionDeleted) -> None:
    del s.subscriptions[e.subscription_id]


@applies(ev.MessageCorrelated)
@applies(ev.SignalReceived)
def _arrived(s: InstanceState, e: ev.MessageCorrelated | ev.SignalReceived) -> None:
    if e.subscription_id not in s.subscriptions:
        raise ValueError(f"an event arrived at subscription {e.subscription_id}: not open")


@applies(ev.ConditionalEventOccurred)
def _condition_held(s: InstanceState, e: ev.ConditionalEventOccurred) -> None:
    if e.subscription_id not in s.subscriptions:
        raise ValueError(f"a condition held at subscription {e.subscription_id}: not open")


@applies(ev.SignalThrown)
def _signal_thrown(s: InstanceState, e: ev.SignalThrown) -> None:
    return None  # an audit record: the receivers' streams record what it did


@applies(ev.ActivityDecisionEvaluated)
def _decision_evaluated(s: InstanceState, e: ev.ActivityDecisionEvaluated) -> None:
    return None  # an audit record: the result variable it set is an event of its own


@applies(ev.DeploymentCreated)
def _deployment(s: InstanceState, e: ev.DeploymentCreated) -> None:
    raise ValueError("DeploymentCreated belongs to a deployment stream, not an instance stream")


@applies(ev.DeploymentDeleted)
def _deployment_deleted(s: InstanceState, e: ev.DeploymentDeleted) -> None:
    raise ValueError("DeploymentDeleted belongs to a deployment stream, not an instance stream")


# -- compensation -----------------------------------------------------------------------------


def clear_compensation(s: InstanceState) -> None:
    s.retained_scopes.clear()
    s.compensating.clear()
    s.reopened_scopes.clear()


@applies(ev.CompensationScopeRetained)
def _scope_retained(s: InstanceState, e: ev.CompensationScopeRetained) -> None:
    # A copy of the scope's own variables (not a task's local ones) as they are now.
    variables = {}
    for vid in variable_index(s).of_execution(e.execution_id):
        var = s.variables[vid]
        if var.task_id is None:
            variables[var.name] = var.value
    s.retained_scopes[e.subscription_id] = RetainedScope(e.activity_instance_id, variables)


@applies(ev.CompensationStarted)
def _compensation_started(s: InstanceState, e: ev.CompensationStarted) -> None:
    s.compensating[e.execution_id] = e.waiter_activity_instance_id


@applies(ev.CompensationScopeReopened)
def _scope_reopened(s: InstanceState, e: ev.CompensationScopeReopened) -> None:
    s.retained_scopes.pop(e.subscription_id, None)
    s.reopened_scopes[e.activity_instance_id] = e.original_activity_instance_id
    execution = _enter_activity_instance(s, e)
    execution.scope_activity_instance_id = e.activity_instance_id
    execution.scope_activity_id = e.activity_id


@applies(ev.CompensationScopeClosed)
def _scope_closed(s: InstanceState, e: ev.CompensationScopeClosed) -> None:
    s.reopened_scopes.pop(e.activity_instance_id, None)
    _end_activity(s, e.activity_instance_id)


def _deployment_stream_only(s: InstanceState, e: ev.Event) -> None:
    raise ValueError(f"{type(e).__name__} belongs to a deployment stream, not an instance stream")


_DEPLOYMENT_STREAM_ONLY: tuple[type[ev.Event], ...] = (
    *ev.START_TIMER_EVENTS,
    *ev.START_SUBSCRIPTION_EVENTS,
    ev.ProcessDefinitionSuspended,
    ev.ProcessDefinitionActivated,
    ev.DecisionEvaluated,  # over the API: a stream of its own
    ev.HistoricDecisionInstanceDeleted,
    ev.HistoricDecisionRemovalTimeSet,
    ev.SigningKeyIntroduced,  # the log's record of its signing keys: a stream of its own
    *ev.BATCH_EVENTS,  # a batch's stream: its rows are projected from the events alone
)
for _event_type in _DEPLOYMENT_STREAM_ONLY:
    APPLIERS[_event_type] = _deployment_stream_only


def declared_event_types() -> frozenset[type[ev.Event]]:
    """Every concrete event Struct declared in the vocabulary package (any of its modules),
    whether in its union or not: found through `Event`'s subclasses, so that one the package
    forgot to re-export counts too."""
    package = ev.__name__
    found: set[type[ev.Event]] = set()
    pending = list(ev.Event.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__ == package or cls.__module__.startswith(package + "."):
            found.add(cls)
    return frozenset(found)


def check_complete() -> None:
    """Every event type is in the tagged union and has an applier, and every applier an event
    type of the vocabulary (run by the tests); raises AssertionError naming what is missing."""
    declared = declared_event_types()
    in_union = frozenset(ev.EVENT_TYPES)
    registered = frozenset(APPLIERS)
    problems = []
    for what, types in (
        ("events missing from the union events.EngineEvent", declared - in_union),
        ("events without an applier", (declared | in_union) - registered),
        ("appliers of types that are not events of core.events", registered - declared),
    ):
        if types:
            problems.append(f"{what}: {', '.join(sorted(t.__name__ for t in types))}")
    if problems:
        raise AssertionError("; ".join(problems))


@applies(ev.ProcessInstanceModified)
def _modified(s: InstanceState, e: ev.ProcessInstanceModified) -> None:
    """A record of the operator's repair: the events after it carry what changed."""


@applies(ev.ProcessInstanceMigrated)
def _migrated(s: InstanceState, e: ev.ProcessInstanceMigrated) -> None:
    """The instance runs on the target definition: every part as the event states it."""
    s.definition_id = e.definition_id
    s.definition_key = e.definition_key
    s.definition_version = e.definition_version
    s.deployment_id = e.deployment_id
    s.executions = {
        x.id: Execution(**{**msgspec.structs.asdict(x), "children": list(x.children)})
        for x in e.executions
    }
    for a in e.emerged:
        s.activity_instances[a.id] = ActivityInstance(
            id=a.id,
            activity_id=a.activity_id,
            activity_type=a.activity_type,
            activity_name=a.activity_name,
            execution_id=a.execution_id,
            parent_id=a.parent_id,
            start_time=e.time,
        )
    for a in e.activity_instances:
        ai = s.activity_instances[a.id]
        ai.activity_id, ai.activity_type, ai.activity_name = (
            a.activity_id,
            a.activity_type,
            (a.activity_name),
        )
        ai.execution_id, ai.parent_id = a.execution_id, a.parent_id
    for t in e.tasks:
        task = s.tasks[t.id]
        task.task_definition_key, task.execution_id = t.task_definition_key, t.execution_id
    for j in e.jobs:
        job = s.jobs[j.id]
        job.activity_id, job.job_definition_id = j.activity_id, j.job_definition_id
        job.execution_id, job.handler_configuration = j.execution_id, j.handler_configuration
        job.due_date, job.repeat = j.due_date, j.repeat
    for sub_ in e.subscriptions:
        sub = s.subscriptions[sub_.id]
        sub.activity_id, sub.event_name = sub_.activity_id, sub_.event_name
        sub.execution_id, sub.activity_instance_id = sub_.execution_id, sub_.activity_instance_id
    for x_ in e.external_tasks:
        ext = s.external_tasks[x_.id]
        ext.activity_id, ext.execution_id = x_.activity_id, x_.execution_id
    for i in e.incidents:
        incident = s.incidents[i.id]
        incident.execution_id, incident.activity_id = i.execution_id, i.activity_id
        incident.failed_activity_id, incident.job_definition_id = (
            i.failed_activity_id,
            i.job_definition_id,
        )
    if e.moved_variables:
        for moved in e.moved_variables:
            s.variables[moved.id].execution_id = moved.execution_id
        forget_variable_index(s)
