"""Projector of instance state onto ACT_RU_EXECUTION, _TASK, _IDENTITYLINK, _VARIABLE, _EXT_TASK,
_JOB and _INCIDENT (and the ACT_GE_BYTEARRAY rows of variable values, external task error details
and job stack traces; the job and incident rows are built in `jobs`).

A runtime row is a function of the state: events only say which entities they touch; at the end
of a command the touched entities are written as they now are (insert, update or delete).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar

from flowledger.core import events as ev
from flowledger.core.ids import derived_id
from flowledger.core.state import (
    EventSubscription,
    ExternalTask,
    InstanceState,
    UserTask,
    Variable,
    variable_index,
)
from flowledger.core.variables import storage_columns

from .changes import ChangeSet, Row, UnhandledEvent, blank_row, db_time
from .jobs import JOB_EXCEPTION_NAME, incident_row, job_row, job_stacktrace_bytearray_id
from .queries.filters import ACTIVE, SUSPENDED
from .tables import (
    ACT_GE_BYTEARRAY,
    ACT_RU_EVENT_SUBSCR,
    ACT_RU_EXECUTION,
    ACT_RU_EXT_TASK,
    ACT_RU_IDENTITYLINK,
    ACT_RU_INCIDENT,
    ACT_RU_JOB,
    ACT_RU_TASK,
    ACT_RU_VARIABLE,
)

BYTEARRAY_RUNTIME = 2
BYTEARRAY_HISTORY = 3
ERROR_DETAILS_NAME = "externalTask.exceptionByteArray"  # Camunda's name for these byte arrays
# Camunda skips queries for relations whose bit is clear; all bits on is always correct.
CACHED_ENTITY_STATE = 0b1011_1111

_EXEC, _TASK, _VAR, _EXT = "execution", "task", "variable", "external_task"
_JOB, _INC, _SUB = "job", "incident", "subscription"


_EXECUTION_ROW = blank_row(ACT_RU_EXECUTION)
_TASK_ROW = blank_row(ACT_RU_TASK)
_LINK_ROW = blank_row(ACT_RU_IDENTITYLINK)
_VARIABLE_ROW = blank_row(ACT_RU_VARIABLE)
_EXT_ROW = blank_row(ACT_RU_EXT_TASK)
_SUBSCRIPTION_ROW = blank_row(ACT_RU_EVENT_SUBSCR)
_BYTEARRAY_ROW = blank_row(ACT_GE_BYTEARRAY)


def runtime_bytearray_id(variable_id: str) -> str:
    return derived_id(variable_id, "runtime-value")


def error_details_bytearray_id(external_task_id: str) -> str:
    """ACT_RU_EXT_TASK.ERROR_DETAILS_ID_: derived, so a rebuild writes the same row."""
    return derived_id(external_task_id, "error-details")


def batch_owned(batch: RuntimeBatch) -> list[str]:
    """The ids of the executions and user tasks a command touched (its instance owns them)."""
    return [*batch.touched[_EXEC], *batch.touched[_TASK]]


class RuntimeBatch:
    """Collects which runtime entities one command touched, and whether they existed before."""

    # Events that touch no runtime row, on purpose; every other event type has a handler in
    # _TOUCHES (tests/projections check that each event type is in exactly one of the two).
    IGNORED: ClassVar[frozenset[type[ev.Event]]] = frozenset(
        {
            ev.EscalationThrown,  # an audit record, as BpmnErrorThrown
            ev.BpmnErrorThrown,  # an audit record: its consequences are events of their own
            ev.MessageCorrelated,  # likewise
            ev.SignalThrown,
            ev.SignalReceived,
            ev.ConditionalEventOccurred,  # an audit record, as MessageCorrelated
            ev.ProcessInstanceModified,  # an audit record: what it did is events of its own
            ev.CalledInstanceStarted,  # history's (the called instance's rows are its own)
            ev.TaskCommentAdded,  # history's (ACT_HI_COMMENT)
            ev.ActivityDecisionEvaluated,  # history's: the result variable is an event of its own
            ev.DecisionEvaluated,
            ev.HistoricDecisionInstanceDeleted,
            ev.HistoricProcessInstanceDeleted,  # history only: the runtime rows are long gone
            ev.HistoricRemovalTimeSet,  # history only, as the deletion
            ev.HistoricDecisionRemovalTimeSet,
            ev.InstanceDecisionRemovalTimeSet,
            ev.HistoricDecisionInstancesDeleted,
            ev.DeploymentCreated,  # deployment streams: the repository projector's
            ev.DeploymentDeleted,
            *ev.START_TIMER_EVENTS,
            *ev.START_SUBSCRIPTION_EVENTS,
            ev.ProcessDefinitionSuspended,
            ev.ProcessDefinitionActivated,
            ev.SigningKeyIntroduced,  # the log's own record: no table holds it
            *ev.BATCH_EVENTS,  # batch streams: the repository projector's (projections/batches)
            # compensation's own bookkeeping: its rows are subscriptions, executions, variables
            ev.CompensationScopeRetained,
            ev.CompensationStarted,
        }
    )

    @staticmethod
    def handled_events() -> frozenset[type[ev.Event]]:
        return frozenset(_TOUCHES)

    def __init__(self) -> None:
        self.touched: dict[str, dict[str, bool]] = {
            _EXEC: {},
            _TASK: {},
            _VAR: {},
            _EXT: {},
            _JOB: {},
            _INC: {},
            _SUB: {},
        }
        # variables: whether the pre-command value lived in a byte array row
        self.had_bytes: dict[str, bool] = {}
        # tasks: their identity links before the command (a finished task takes them along)
        self.links: dict[str, list[str]] = {}
        # external tasks: their error details before the command (kept in a byte array row)
        self.details: dict[str, str | None] = {}
        # jobs: their stack traces before the command (kept in a byte array row)
        self.stacktraces: dict[str, str | None] = {}

    def _touch(self, kind: str, entity_id: str, existed: bool) -> None:
        seen = self.touched[kind]
        if entity_id not in seen:
            seen[entity_id] = existed

    def _execution(self, s: InstanceState | None, eid: str) -> None:
        self._touch(_EXEC, eid, s is not None and eid in s.executions)

    def _task(self, s: InstanceState, tid: str) -> None:
        if tid not in self.touched[_TASK]:
            task = s.tasks.get(tid)
            self.touched[_TASK][tid] = task is not None
            self.links[tid] = [link.id for link in task.candidates] if task else []

    def _ext(self, s: InstanceState, xid: str) -> None:
        if xid not in self.touched[_EXT]:
            ext = s.external_tasks.get(xid)
            self.touched[_EXT][xid] = ext is not None
            self.details[xid] = None if ext is None else ext.error_details

    def _job(self, s: InstanceState, job_id: str) -> None:
        if job_id not in self.touched[_JOB]:
            job = s.jobs.get(job_id)
            self.touched[_JOB][job_id] = job is not None
            self.stacktraces[job_id] = None if job is None else job.stacktrace

    def _incident(self, s: InstanceState, incident_id: str) -> None:
        self._touch(_INC, incident_id, incident_id in s.incidents)

    def _subscription(self, s: InstanceState, subscription_id: str) -> None:
        self._touch(_SUB, subscription_id, subscription_id in s.subscriptions)

    def _variable(self, s: InstanceState, var_id: str) -> None:
        if var_id not in self.touched[_VAR]:
            var = s.variables.get(var_id)
            self.touched[_VAR][var_id] = var is not None
            self.had_bytes[var_id] = var is not None and storage_columns(var.value).data is not None

    def _attached(self, s: InstanceState, eid: str) -> None:
        """Tasks, external tasks, jobs, incidents, subscriptions and variables of an execution
        (they move or vanish with it)."""
        for task in s.tasks.values():
            if task.execution_id == eid:
                self._task(s, task.id)
        for ext in s.external_tasks.values():
            if ext.execution_id == eid:
                self._ext(s, ext.id)
        for job in s.jobs.values():
            if job.execution_id == eid:
                self._job(s, job.id)
        for incident in s.incidents.values():
            if incident.execution_id == eid:
                self._incident(s, incident.id)
        for sub in s.subscriptions.values():
            if sub.execution_id == eid:
                self._subscription(s, sub.id)
        for vid in variable_index(s).of_execution(eid):
            self._variable(s, vid)

    def observe(self, event: ev.Event, s: InstanceState | None) -> None:
        """Note what `event` touches; `s` is the state before the event."""
        handler = _TOUCHES.get(type(event))
        if handler is not None:
            handler(self, event, s)
        elif type(event) not in self.IGNORED:
            raise UnhandledEvent("RuntimeBatch", type(event))

    def _started(self, e: Any, _s: Any) -> None:
        self._execution(None, e.process_instance_id)

    def _on_execution(self, e: Any, s: Any) -> None:
        self._execution(s, e.execution_id)

    def _on_activity_ended(self, e: Any, s: Any) -> None:
        ai = s.activity_instances.get(e.activity_instance_id)
        if ai is not None:
            self._execution(s, ai.execution_id)

    def _on_variable(self, e: Any, s: Any) -> None:
        self._variable(s, e.variable_id)

    def _on_personal_data_erased(self, e: Any, s: Any) -> None:
        for vid in e.variable_ids:
            self._variable(s, vid)

    def _on_task(self, e: Any, s: Any) -> None:
        self._task(s, e.task_id)

    def _on_task_ended(self, e: Any, s: Any) -> None:
        self._task(s, e.task_id)
        for vid in variable_index(s).of_task(e.task_id):
            self._variable(s, vid)

    def _on_external_task(self, e: Any, s: Any) -> None:
        self._ext(s, e.external_task_id)

    def _on_job(self, e: Any, s: Any) -> None:
        self._job(s, e.job_id)

    def _on_incident(self, e: Any, s: Any) -> None:
        self._incident(s, e.incident_id)

    def _on_subscription(self, e: Any, s: Any) -> None:
        self._subscription(s, e.subscription_id)

    def _on_execution_created(self, e: Any, s: Any) -> None:
        self._execution(s, e.execution_id)
        self._execution(s, e.parent_id)
        if e.replaces is not None:
            self._attached(s, e.replaces)
            # the replaced execution's children move under the new one (a new PARENT_ID_)
            for child in s.executions[e.replaces].children:
                self._execution(s, child)

    def _on_execution_removed(self, e: Any, s: Any) -> None:
        self._execution(s, e.execution_id)
        self._attached(s, e.execution_id)
        parent = s.executions[e.execution_id].parent_id
        if parent is not None:
            self._execution(s, parent)

    def _on_execution_replaced(self, e: Any, s: Any) -> None:
        self._execution(s, e.execution_id)
        self._execution(s, e.by_execution_id)
        self._attached(s, e.execution_id)
        for child in s.executions[e.execution_id].children:
            self._execution(s, child)

    def _on_instance_ended(self, _e: Any, s: Any) -> None:
        for eid in s.executions:
            self._execution(s, eid)
        for tid in s.tasks:
            self._task(s, tid)
        for xid in s.external_tasks:
            self._ext(s, xid)
        for job_id in s.jobs:
            self._job(s, job_id)
        for incident_id in s.incidents:
            self._incident(s, incident_id)
        for subscription_id in s.subscriptions:
            self._subscription(s, subscription_id)
        for vid in s.variables:
            self._variable(s, vid)

    def finish(self, s: InstanceState, changes: ChangeSet, *, lookups_only: bool = False) -> None:
        """Write every touched entity as it is now; with `lookups_only`, only the entities
        commands look up (external tasks, jobs, incidents, subscriptions): a deferred
        projection writes the executions, tasks and variables behind the log."""
        if not lookups_only:
            self._finish_deferred(s, changes)
        self._finish_looked_up(s, changes)

    def _on_migrated(self, e: ev.ProcessInstanceMigrated, s: InstanceState) -> None:
        """Every row names the definition: all of them are written anew, and the executions
        the move made or removed."""
        self._on_instance_ended(e, s)
        for execution in e.executions:
            self._execution(s, execution.id)

    def _finish_deferred(self, s: InstanceState, changes: ChangeSet) -> None:
        for eid, existed in self.touched[_EXEC].items():
            execution = s.executions.get(eid)
            if execution is None:
                if existed:
                    changes.delete(ACT_RU_EXECUTION, eid)
            else:
                _put(changes, ACT_RU_EXECUTION, eid, existed, execution_row(s, eid))
        for tid, existed in self.touched[_TASK].items():
            task = s.tasks.get(tid)
            if task is None:
                if existed:
                    changes.delete(ACT_RU_TASK, tid)
                    for link_id in self.links.get(tid, ()):
                        changes.delete(ACT_RU_IDENTITYLINK, link_id)
            else:
                _put(changes, ACT_RU_TASK, tid, existed, task_row(s, task))
                if not existed:
                    for link in task.candidates:
                        changes.insert(ACT_RU_IDENTITYLINK, link.id, link_row(task, link))
        for vid, existed in self.touched[_VAR].items():
            var = s.variables.get(vid)
            had_bytes = self.had_bytes.get(vid, False)
            if var is None:
                if existed:
                    changes.delete(ACT_RU_VARIABLE, vid)
                    if had_bytes:
                        changes.delete(ACT_GE_BYTEARRAY, runtime_bytearray_id(vid))
                continue
            row, data = variable_row(s, var)
            _put(changes, ACT_RU_VARIABLE, vid, existed, row)
            if data is None and not had_bytes:
                continue  # no byte array before or after: not even its (hashed) id is needed
            sync_bytearray(
                changes,
                runtime_bytearray_id(vid),
                var.name,
                data,
                had_bytes and existed,
                BYTEARRAY_RUNTIME,
                s.root_process_instance_id,
            )

    def _finish_looked_up(self, s: InstanceState, changes: ChangeSet) -> None:
        for xid, existed in self.touched[_EXT].items():
            ext = s.external_tasks.get(xid)
            before = self.details.get(xid)
            after = None if ext is None else ext.error_details
            if ext is None:
                if existed:
                    changes.delete(ACT_RU_EXT_TASK, xid)
            else:
                _put(changes, ACT_RU_EXT_TASK, xid, existed, external_task_row(s, ext))
            if after != before:  # written only when the text changed, as Camunda's setBytes
                sync_bytearray(
                    changes,
                    error_details_bytearray_id(xid),
                    ERROR_DETAILS_NAME,
                    None if after is None else after.encode(),
                    before is not None,
                    BYTEARRAY_RUNTIME,
                    s.root_process_instance_id,
                )
        self._finish_jobs(s, changes)

    def _finish_jobs(self, s: InstanceState, changes: ChangeSet) -> None:
        """Touched jobs (with their stack trace byte arrays) and incidents, as they now are."""
        for job_id, existed in self.touched[_JOB].items():
            job = s.jobs.get(job_id)
            if job is None:
                if existed:
                    changes.delete(ACT_RU_JOB, job_id)
            else:
                # Every column is written, the lease columns as NULL: this write ends a lease.
                _put(changes, ACT_RU_JOB, job_id, existed, job_row(s, job))
            before = self.stacktraces.get(job_id)
            after = None if job is None else job.stacktrace
            if after != before:  # written only when the text changed, as for external tasks
                sync_bytearray(
                    changes,
                    job_stacktrace_bytearray_id(job_id),
                    JOB_EXCEPTION_NAME,
                    None if after is None else after.encode(),
                    before is not None,
                    BYTEARRAY_RUNTIME,
                    s.root_process_instance_id,
                )
        for incident_id, existed in self.touched[_INC].items():
            incident = s.incidents.get(incident_id)
            if incident is None:
                if existed:
                    changes.delete(ACT_RU_INCIDENT, incident_id)
            else:
                _put(changes, ACT_RU_INCIDENT, incident_id, existed, incident_row(s, incident))
        for subscription_id, existed in self.touched[_SUB].items():
            sub = s.subscriptions.get(subscription_id)
            if sub is None:
                if existed:
                    changes.delete(ACT_RU_EVENT_SUBSCR, subscription_id)
            else:
                row = subscription_row(s, sub)
                _put(changes, ACT_RU_EVENT_SUBSCR, subscription_id, existed, row)


def subscription_row(s: InstanceState, sub: EventSubscription) -> Row:
    row = dict(_SUBSCRIPTION_ROW)
    row.update(
        ID_=sub.id,
        REV_=1,
        EVENT_TYPE_=sub.event_type,
        EVENT_NAME_=sub.event_name or None,  # compensate and conditional ones have none (NULL)
        EXECUTION_ID_=sub.execution_id,
        PROC_INST_ID_=s.id,
        ACTIVITY_ID_=sub.activity_id,
        CREATED_=db_time(sub.created),
        ACT_INST_ID_=sub.activity_instance_id,
    )
    return row


def _put(changes: ChangeSet, table: Any, pk: str, existed: bool, row: Row) -> None:
    if existed:
        values = dict(row)
        del values["REV_"]
        changes.update(table, pk, values, bump_revision=True)
    else:
        changes.insert(table, pk, row)


def execution_row(s: InstanceState, eid: str) -> Row:
    e = s.executions[eid]
    row = dict(_EXECUTION_ROW)
    row.update(
        ID_=e.id,
        REV_=1,
        ROOT_PROC_INST_ID_=s.root_process_instance_id,
        PROC_INST_ID_=s.id,
        BUSINESS_KEY_=s.business_key if e.parent_id is None else None,
        PARENT_ID_=e.parent_id,
        # a called instance's root execution names the caller's execution in its call activity
        SUPER_EXEC_=s.super_execution_id if e.parent_id is None else None,
        PROC_DEF_ID_=s.definition_id,
        ACT_ID_=e.activity_id,
        ACT_INST_ID_=e.activity_instance_id or e.scope_activity_instance_id,
        IS_ACTIVE_=e.is_active,
        IS_CONCURRENT_=e.is_concurrent,
        IS_SCOPE_=e.is_scope,
        IS_EVENT_SCOPE_=False,
        SUSPENSION_STATE_=SUSPENDED if s.suspended else ACTIVE,
        CACHED_ENT_STATE_=CACHED_ENTITY_STATE,
        PROC_DEF_KEY_=s.definition_key,
    )
    return row


def task_row(s: InstanceState, t: UserTask) -> Row:
    row = dict(_TASK_ROW)
    row.update(
        ID_=t.id,
        REV_=1,
        EXECUTION_ID_=t.execution_id,
        PROC_INST_ID_=s.id,
        PROC_DEF_ID_=s.definition_id,
        NAME_=t.name,
        DESCRIPTION_=t.description,
        TASK_DEF_KEY_=t.task_definition_key,
        OWNER_=t.owner,
        ASSIGNEE_=t.assignee,
        PRIORITY_=t.priority,
        CREATE_TIME_=db_time(t.created),
        LAST_UPDATED_=db_time(t.last_updated),
        DUE_DATE_=db_time(t.due_date),
        FOLLOW_UP_DATE_=db_time(t.follow_up_date),
        SUSPENSION_STATE_=SUSPENDED if s.suspended else ACTIVE,
        TASK_STATE_="Created" if t.last_updated is None else "Updated",
    )
    return row


def link_row(t: UserTask, link: ev.IdentityLink) -> Row:
    row = dict(_LINK_ROW)
    row.update(
        ID_=link.id,
        REV_=1,
        GROUP_ID_=link.group_id,
        TYPE_=link.type,
        USER_ID_=link.user_id,
        TASK_ID_=t.id,
    )
    return row


def external_task_row(s: InstanceState, x: ExternalTask) -> Row:
    row = dict(_EXT_ROW)
    row.update(
        ID_=x.id,
        REV_=1,
        WORKER_ID_=x.worker_id,
        TOPIC_NAME_=x.topic,
        RETRIES_=x.retries,
        ERROR_MSG_=x.error_message,
        ERROR_DETAILS_ID_=None if x.error_details is None else error_details_bytearray_id(x.id),
        LOCK_EXP_TIME_=db_time(x.lock_expiration),
        CREATE_TIME_=db_time(x.created),
        SUSPENSION_STATE_=SUSPENDED if s.suspended else ACTIVE,
        EXECUTION_ID_=x.execution_id,
        PROC_INST_ID_=s.id,
        PROC_DEF_ID_=s.definition_id,
        PROC_DEF_KEY_=s.definition_key,
        ACT_ID_=x.activity_id,
        ACT_INST_ID_=x.activity_instance_id,
        PRIORITY_=x.priority,
    )
    return row


def variable_row(s: InstanceState, v: Variable) -> tuple[Row, bytes | None]:
    cols = storage_columns(v.value)
    execution = s.executions.get(v.execution_id)
    row = dict(_VARIABLE_ROW)
    row.update(
        ID_=v.id,
        REV_=1,
        TYPE_=v.value.type,
        NAME_=v.name,
        EXECUTION_ID_=v.execution_id,
        PROC_INST_ID_=s.id,
        PROC_DEF_ID_=s.definition_id,
        TASK_ID_=v.task_id,
        BYTEARRAY_ID_=runtime_bytearray_id(v.id) if cols.data is not None else None,
        DOUBLE_=cols.double,
        LONG_=cols.long,
        TEXT_=cols.text,
        TEXT2_=cols.text2,
        VAR_SCOPE_=v.task_id or v.execution_id,
        IS_CONCURRENT_LOCAL_=bool(execution and execution.is_concurrent),
    )
    return row, cols.data


def sync_bytearray(
    changes: ChangeSet,
    blob_id: str,
    name: str,
    data: bytes | None,
    had_data: bool,
    kind: int,
    root_process_instance_id: str | None,
    removal_time: datetime | None = None,
) -> None:
    """Keep a variable's byte array row in step with its value: insert, rewrite or delete.
    `removal_time`: a history row's, under removal-time strategy start."""
    if data is not None and had_data:
        changes.update(ACT_GE_BYTEARRAY, blob_id, {"BYTES_": data}, bump_revision=True)
    elif data is not None:
        row = bytearray_row(blob_id, name, data, kind, root_process_instance_id)
        if removal_time is not None:
            row["REMOVAL_TIME_"] = db_time(removal_time)
        changes.insert(ACT_GE_BYTEARRAY, blob_id, row)
    elif had_data:
        changes.delete(ACT_GE_BYTEARRAY, blob_id)


def bytearray_row(
    blob_id: str, name: str, data: bytes, kind: int, root_process_instance_id: str | None
) -> Row:
    row = dict(_BYTEARRAY_ROW)
    row.update(
        ID_=blob_id,
        REV_=1,
        NAME_=name,
        BYTES_=data,
        GENERATED_=False,
        TYPE_=kind,
        ROOT_PROC_INST_ID_=root_process_instance_id,
    )
    return row


# What each event touches; one lookup per event (this runs for every event of every command).
_TOUCHES: dict[type[ev.Event], Callable[[RuntimeBatch, Any, Any], None]] = {
    ev.ProcessInstanceStarted: RuntimeBatch._started,
    ev.ActivityStarted: RuntimeBatch._on_execution,
    ev.TokenWaitingAtJoin: RuntimeBatch._on_execution,
    ev.ActivityCompleted: RuntimeBatch._on_activity_ended,
    ev.ActivityCanceled: RuntimeBatch._on_activity_ended,
    ev.CompensationScopeReopened: RuntimeBatch._on_execution,  # its activity instance
    ev.CompensationScopeClosed: RuntimeBatch._on_activity_ended,
    ev.VariableSet: RuntimeBatch._on_variable,
    ev.VariableDeleted: RuntimeBatch._on_variable,
    ev.PersonalDataErased: RuntimeBatch._on_personal_data_erased,
    ev.UserTaskCreated: RuntimeBatch._on_task,
    ev.TaskAssigned: RuntimeBatch._on_task,
    ev.TaskClaimed: RuntimeBatch._on_task,
    ev.TaskUnclaimed: RuntimeBatch._on_task,
    ev.TaskCompleted: RuntimeBatch._on_task_ended,
    ev.TaskDeleted: RuntimeBatch._on_task_ended,
    ev.ExternalTaskCreated: RuntimeBatch._on_external_task,
    ev.ExternalTaskLocked: RuntimeBatch._on_external_task,
    ev.ExternalTaskLockExtended: RuntimeBatch._on_external_task,
    ev.ExternalTaskUnlocked: RuntimeBatch._on_external_task,
    ev.ExternalTaskFailed: RuntimeBatch._on_external_task,
    ev.ExternalTaskCompleted: RuntimeBatch._on_external_task,
    ev.ExternalTaskBpmnErrorReported: RuntimeBatch._on_external_task,
    ev.ExternalTaskRetriesSet: RuntimeBatch._on_external_task,
    ev.ExternalTaskPrioritySet: RuntimeBatch._on_external_task,
    ev.ExternalTaskCanceled: RuntimeBatch._on_external_task,
    ev.JobCreated: RuntimeBatch._on_job,
    ev.JobExecuted: RuntimeBatch._on_job,
    ev.JobDeleted: RuntimeBatch._on_job,
    ev.JobFailed: RuntimeBatch._on_job,
    ev.JobRetriesSet: RuntimeBatch._on_job,
    ev.JobDueDateSet: RuntimeBatch._on_job,
    ev.JobPrioritySet: RuntimeBatch._on_job,
    ev.JobSuspended: RuntimeBatch._on_job,
    ev.JobActivated: RuntimeBatch._on_job,
    ev.IncidentCreated: RuntimeBatch._on_incident,
    ev.IncidentResolved: RuntimeBatch._on_incident,
    ev.IncidentDeleted: RuntimeBatch._on_incident,
    ev.EventSubscriptionCreated: RuntimeBatch._on_subscription,
    ev.EventSubscriptionDeleted: RuntimeBatch._on_subscription,
    ev.ExecutionCreated: RuntimeBatch._on_execution_created,
    ev.ExecutionRemoved: RuntimeBatch._on_execution_removed,
    ev.ExecutionReplaced: RuntimeBatch._on_execution_replaced,
    ev.ProcessInstanceSuspended: RuntimeBatch._on_instance_ended,  # every row's state changes
    ev.ProcessInstanceActivated: RuntimeBatch._on_instance_ended,
    ev.ProcessInstanceCompleted: RuntimeBatch._on_instance_ended,
    ev.ProcessInstanceTerminated: RuntimeBatch._on_instance_ended,
    ev.ProcessInstanceMigrated: RuntimeBatch._on_migrated,
}
