"""Projector of the user operation log (ACT_HI_OP_LOG, history level full): who did what through
the API, in Camunda's operation types, entity types and categories.

A commit's command says which operation a person asked for; its events say what that changed and
on what. Both are in the log (the command's type, id and actor are columns of every commit), so
the table is rebuilt like any other. As Camunda by default
(`restrictUserOperationLogToAuthenticatedUsers`), only commands with an actor write entries: the
job executor's and anonymous library calls write none. One row per property an operation
changed; the rows of one command share OPERATION_ID_ (the command id).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple, Protocol

from flowledger.core import events as ev
from flowledger.core.ids import derived_id
from flowledger.core.state import InstanceState

from .changes import ChangeSet, blank_row, db_time
from .history import removal_time
from .tables import ACT_HI_OP_LOG

FULL = 3  # the history level that writes the log

# Camunda's UserOperationLogEntry categories.
OPERATOR, TASK_WORKER = "Operator", "TaskWorker"

# (property, value before, value after); a property of None is Camunda's empty change.
Change = tuple[str | None, Any, Any]
NO_CHANGE: tuple[Change, ...] = ((None, None, None),)

_ROW = blank_row(ACT_HI_OP_LOG)
_MAX_VALUE = 4000  # ORG_VALUE_ and NEW_VALUE_
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)


class Operation(NamedTuple):
    """The command behind a commit, as the operation log reads it."""

    command_id: str
    command_type: str
    actor: str | None


class _Leveled(Protocol):
    @property
    def level(self) -> int: ...


# (event, the stream's state before it or None on a deployment stream, changes)
OperationLogger = Callable[[ev.Event, InstanceState | None, ChangeSet], None]
_Rule = Callable[[Operation, Any, Any, ChangeSet], None]


def operation_logger(
    history: _Leveled | None, operation: Operation | None
) -> OperationLogger | None:
    """What logs the operation's events, or None when it writes no entry: history below full,
    no actor, or a command that is no user operation (a worker's, or the engine's own)."""
    if history is None or history.level < FULL or operation is None or operation.actor is None:
        return None
    rules = RULES.get(operation.command_type)
    if rules is None:
        return None

    def log(event: ev.Event, s: InstanceState | None, changes: ChangeSet) -> None:
        rule = rules.get(type(event))
        if rule is not None:
            rule(operation, event, s, changes)

    return log


def _text(value: Any) -> str | None:
    """A value as Camunda's PropertyChange keeps it (String.valueOf, null as NULL)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        # Camunda logs a date as its epoch milliseconds (PropertyChange of a Date), floored as
        # Java's Date.getTime is (no float: it is off by one for some milliseconds).
        moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return str((moment - _EPOCH) // _MILLISECOND)
    return str(value)[:_MAX_VALUE]


def write_entry(
    op: Operation,
    changes: ChangeSet,
    *,
    key: str,
    time: datetime,
    operation_type: str,
    entity_type: str,
    category: str,
    context: dict[str, Any],
    properties: tuple[Change, ...] = NO_CHANGE,
) -> None:
    """One operation's rows. `key` tells apart the operations of one command (the subject and
    its stream position), so that a rebuild gives every row the id it had."""
    for n, (prop, before, after) in enumerate(properties):
        row_id = derived_id(op.command_id, f"op-log/{key}/{n}")
        row = dict(_ROW)
        row.update(context)
        row.update(
            ID_=row_id,
            USER_ID_=op.actor,
            TIMESTAMP_=db_time(time),
            OPERATION_TYPE_=operation_type,
            OPERATION_ID_=op.command_id,
            ENTITY_TYPE_=entity_type,
            CATEGORY_=category,
            PROPERTY_=prop,
            ORG_VALUE_=_text(before),
            NEW_VALUE_=_text(after),
        )
        changes.insert(ACT_HI_OP_LOG, row_id, row)


def _instance(s: InstanceState) -> dict[str, Any]:
    """Camunda's context of an operation on an instance (never its execution's id)."""
    return {
        "PROC_INST_ID_": s.id,
        "PROC_DEF_ID_": s.definition_id,
        "PROC_DEF_KEY_": s.definition_key,
        "ROOT_PROC_INST_ID_": s.root_process_instance_id or s.id,
        "DEPLOYMENT_ID_": s.deployment_id,
        "REMOVAL_TIME_": db_time(s.removal_time),  # strategy start's, else stamped at the end
    }


def _key(s: InstanceState) -> str:
    return f"{s.id}/{s.version + 1}"  # the event's own place in its stream


# -- process instances ----------------------------------------------------------------------


def _started(op: Operation, e: ev.ProcessInstanceStarted, _s: None, changes: ChangeSet) -> None:
    if e.super_process_instance_id is not None or e.triggered:
        return  # called, or started by an event its start caught: part of another operation
    write_entry(
        op,
        changes,
        key=f"{e.process_instance_id}/1",
        time=e.time,
        operation_type="Create",
        entity_type="ProcessInstance",
        category=OPERATOR,
        context={
            "PROC_INST_ID_": e.process_instance_id,
            "PROC_DEF_ID_": e.definition_id,
            "PROC_DEF_KEY_": e.definition_key,
            "ROOT_PROC_INST_ID_": e.root_process_instance_id or e.process_instance_id,
            "DEPLOYMENT_ID_": e.deployment_id,
            "REMOVAL_TIME_": db_time(e.removal_time),
        },
    )


def _restarted(op: Operation, e: ev.ProcessInstanceStarted, s: None, changes: ChangeSet) -> None:
    """A restart call (Camunda's RestartProcessInstancesCmd): one RestartProcessInstance entry
    naming the definition and how many it restarts, written with the call's first new instance;
    and each new instance's Create, as its instantiation logs it."""
    if e.restarted_from is None:
        return
    _started(op, e, s, changes)
    if not e.first_restarted:
        return
    write_entry(
        op,
        changes,
        key="restart",
        time=e.time,
        operation_type="RestartProcessInstance",
        entity_type="ProcessInstance",
        category=OPERATOR,
        context={
            "PROC_DEF_ID_": e.definition_id,
            "PROC_DEF_KEY_": e.definition_key,
            "DEPLOYMENT_ID_": e.deployment_id,
        },
        properties=(("nrOfInstances", None, e.restarted_count), ("async", None, False)),
    )


def _instance_operation(operation_type: str, properties: tuple[Change, ...] = NO_CHANGE) -> _Rule:
    def rule(op: Operation, e: Any, s: InstanceState, changes: ChangeSet) -> None:
        if getattr(e, "by_caller", False):
            return  # a called instance deleted with its caller's activity
        context = _instance(s)
        if isinstance(e, ev.ProcessInstanceTerminated):
            # Logged after history stamped the ended instance's rows: stamped as they were.
            context["REMOVAL_TIME_"] = removal_time(s, e.time)
        write_entry(
            op,
            changes,
            key=_key(s),
            time=e.time,
            operation_type=operation_type,
            entity_type="ProcessInstance",
            category=OPERATOR,
            context=context,
            properties=properties,
        )

    return rule


def _modified(
    op: Operation, e: ev.ProcessInstanceModified, s: InstanceState, changes: ChangeSet
) -> None:
    """Camunda's ModifyProcessInstance entry, with the operator's annotation: one for the
    instance, or one for a modification of many (naming their definition and their number)."""
    if not e.together:
        context = _instance(s)
        context["ANNOTATION_"] = e.annotation
        write_entry(
            op,
            changes,
            key=_key(s),
            time=e.time,
            operation_type="ModifyProcessInstance",
            entity_type="ProcessInstance",
            category=OPERATOR,
            context=context,
        )
        return
    if not e.first_of_many:
        return  # the call's one entry goes with its first instance (a rebuild may split it)
    write_entry(
        op,
        changes,
        key="modify-many",
        time=e.time,
        operation_type="ModifyProcessInstance",
        entity_type="ProcessInstance",
        category=OPERATOR,
        context={
            "PROC_DEF_ID_": s.definition_id,
            "PROC_DEF_KEY_": s.definition_key,
            "DEPLOYMENT_ID_": s.deployment_id,
            "ANNOTATION_": e.annotation,
        },
        properties=(("nrOfInstances", None, e.together), ("async", None, False)),
    )


def _migrated(
    op: Operation, e: ev.ProcessInstanceMigrated, s: InstanceState, changes: ChangeSet
) -> None:
    """Camunda's Migrate entry (AbstractMigrationCmd): one per call, with its first instance,
    naming the source definition and the move."""
    if not e.first_of_many:
        return
    properties: list[Change] = [
        ("processDefinitionId", e.source_definition_id, e.definition_id),
        ("nrOfInstances", None, e.together),
    ]
    if e.set_variables:
        properties.append(("nrOfSetVariables", None, len(e.set_variables)))
    properties.append(("async", None, e.batch_id is not None))
    write_entry(
        op,
        changes,
        key="migrate",
        time=e.time,
        operation_type="Migrate",
        entity_type="ProcessInstance",
        category=OPERATOR,
        context={
            "PROC_DEF_ID_": s.definition_id,
            "PROC_DEF_KEY_": s.definition_key,
            "DEPLOYMENT_ID_": s.deployment_id,
        },
        properties=tuple(properties),
    )


def _variable_operation(operation_type: str) -> _Rule:
    """One entry per call, however many variables it changed: of the task in its context, or
    of the instance (Camunda names no execution)."""

    def rule(op: Operation, e: Any, s: InstanceState, changes: ChangeSet) -> None:
        if isinstance(e, ev.VariableSet):
            task_id = e.task_id
        else:
            variable = s.variables.get(e.variable_id)
            task_id = None if variable is None else variable.task_id
        context = _instance(s)
        task = None if task_id is None else s.tasks.get(task_id)
        if task is not None:
            context.update(TASK_ID_=task.id, EXECUTION_ID_=task.execution_id)
        write_entry(
            op,
            changes,
            key=f"variables/{task_id or s.id}",  # the same for every variable: written once
            time=e.time,
            operation_type=operation_type,
            entity_type="Variable",
            category=TASK_WORKER if task is not None else OPERATOR,
            context=context,
        )

    return rule


# -- user tasks, jobs and external tasks --------------------------------------------------------

Changed = Callable[[Any, Any], tuple[Change, ...]]
# (the state before the event, the event) -> the entity it is about, and the context columns
# naming it beside its instance's
Subject = Callable[[InstanceState, Any], tuple[Any, dict[str, Any]]]


def _task(s: InstanceState, e: Any) -> tuple[Any, dict[str, Any]]:
    task = s.tasks[e.task_id]
    return task, {"TASK_ID_": task.id, "EXECUTION_ID_": task.execution_id}


def _job(s: InstanceState, e: Any) -> tuple[Any, dict[str, Any]]:
    job = s.jobs[e.job_id]
    return job, {"JOB_ID_": job.id, "JOB_DEF_ID_": job.job_definition_id}


def _external_task(s: InstanceState, e: Any) -> tuple[Any, dict[str, Any]]:
    task = s.external_tasks[e.external_task_id]
    return task, {"EXTERNAL_TASK_ID_": task.id}


def _entity_operation(
    entity_type: str, category: str, subject: Subject
) -> Callable[[str, Changed], _Rule]:
    """The rules of one kind of entity an operation names: the changes come from the entity's
    values before the event and the event's."""

    def operation(operation_type: str, changed: Changed) -> _Rule:
        def rule(op: Operation, e: Any, s: InstanceState, changes: ChangeSet) -> None:
            entity, names = subject(s, e)
            properties = changed(e, entity)
            if not properties:
                return  # Camunda logs a change only: claiming a task one holds already is none
            context = _instance(s)
            context.update(names)
            write_entry(
                op,
                changes,
                key=_key(s),
                time=e.time,
                operation_type=operation_type,
                entity_type=entity_type,
                category=category,
                context=context,
                properties=properties,
            )

        return rule

    return operation


_task_operation = _entity_operation("Task", TASK_WORKER, _task)
_job_operation = _entity_operation("Job", OPERATOR, _job)
_external_task_operation = _entity_operation("ExternalTask", OPERATOR, _external_task)


def _assignee(e: Any, task: Any) -> tuple[Change, ...]:
    after = getattr(e, "assignee", None)  # TaskUnclaimed has none
    return () if after == task.assignee else (("assignee", task.assignee, after),)


def _completed(_e: Any, _task: Any) -> tuple[Change, ...]:
    return (("delete", False, True),)


def _property(name: str, field: str, attribute: str | None = None) -> Changed:
    """The change of one property from the entity's value to the event's."""

    def changed(e: Any, entity: Any) -> tuple[Change, ...]:
        return ((name, getattr(entity, attribute or field), getattr(e, field)),)

    return changed


def _constant(*properties: Change) -> Changed:
    return lambda _e, _entity: properties


# -- start timers (deployment streams) --------------------------------------------------------


def _start_timer_operation(operation_type: str, changed: Changed) -> _Rule:
    """An operation on a timer start event's job. Its events carry the job as it was (a
    deployment stream has no state); an event that does not names the job alone."""

    def rule(op: Operation, e: Any, _s: None, changes: ChangeSet) -> None:
        job = getattr(e, "job", None)
        context: dict[str, Any] = {"JOB_ID_": e.job_id}
        if job is not None:
            context.update(
                JOB_DEF_ID_=job.job_definition_id,
                PROC_DEF_ID_=job.definition_id,
                PROC_DEF_KEY_=job.definition_key,
                DEPLOYMENT_ID_=job.deployment_id,
            )
        write_entry(
            op,
            changes,
            key=f"start-timer/{e.job_id}/{operation_type}",  # one per job and command
            time=e.time,
            operation_type=operation_type,
            entity_type="Job",
            category=OPERATOR,
            context=context,
            properties=changed(e, job),
        )

    return rule


def _start_timer_retries(e: Any, job: Any) -> tuple[Change, ...]:
    return (("retries", None if job is None else job.retries, e.retries),)


def _start_timer_due_date(e: Any, _job: None) -> tuple[Change, ...]:
    return (("duedate", None, e.due_date),)  # the event does not say what it was


# -- the repository (deployment streams) ------------------------------------------------------


def _deployment_operation(
    operation_type: str, changed: Callable[[Any], tuple[Change, ...]], what: str
) -> _Rule:
    """`what` tells the deployment's operations apart in their row ids (kept as first written:
    a rebuild must give every row the id it had)."""

    def rule(op: Operation, e: Any, _s: None, changes: ChangeSet) -> None:
        write_entry(
            op,
            changes,
            key=f"deployment/{e.deployment_id}/{what}",
            time=e.time,
            operation_type=operation_type,
            entity_type="Deployment",
            category=OPERATOR,
            context={"DEPLOYMENT_ID_": e.deployment_id},
            properties=changed(e),
        )

    return rule


def _filtering(e: ev.DeploymentCreated) -> tuple[Change, ...]:
    if not e.duplicate_filtering:
        return (("duplicateFilterEnabled", None, False),)
    return (
        ("duplicateFilterEnabled", None, True),
        ("deployChangedOnly", None, e.deploy_changed_only),
    )


def _definition_operation(operation_type: str, state: str) -> _Rule:
    def rule(op: Operation, e: Any, _s: None, changes: ChangeSet) -> None:
        key = e.key if e.key is not None else e.definition_id.split(":", 1)[0]
        write_entry(
            op,
            changes,
            key=f"definition/{e.definition_id}/{operation_type}",
            time=e.time,
            operation_type=operation_type,
            entity_type="ProcessDefinition",
            category=OPERATOR,
            context={
                "PROC_DEF_ID_": e.definition_id,
                "PROC_DEF_KEY_": key,
                "DEPLOYMENT_ID_": e.deployment_id,
            },
            properties=(
                ("suspensionState", None, state),
                ("includeProcessInstances", None, e.include_instances),
            ),
        )

    return rule


def _history_deleted(
    op: Operation, e: ev.HistoricProcessInstanceDeleted, s: InstanceState, changes: ChangeSet
) -> None:
    """A user's deletion is logged, naming no instance (Camunda's call takes a list), and the
    instance's entries stay; history cleanup logs nothing (`history` removes its entries)."""
    if e.cleanup:
        return
    write_entry(
        op,
        changes,
        key=_key(s),
        time=e.time,
        operation_type="DeleteHistory",
        entity_type="ProcessInstance",
        category=OPERATOR,
        context={},
        properties=(("nrOfInstances", None, 1), ("async", None, False)),
    )


# -- batches (their own streams) ----------------------------------------------------------------


def _batch_created(op: Operation, e: ev.BatchCreated, _s: None, changes: ChangeSet) -> None:
    """The operation a batch will carry out, logged when it is created (Camunda's batch commands
    log it then, with `async` true): the entries its creation recorded."""
    for n, entry in enumerate(e.logged):
        write_entry(
            op,
            changes,
            key=f"batch/{e.batch_id}/{n}",
            time=e.time,
            operation_type=entry.operation_type,
            entity_type=entry.entity_type,
            category=OPERATOR,
            context=dict(entry.context),
            properties=tuple(
                (name, entry.before.get(name), value) for name, value in entry.properties
            )
            or NO_CHANGE,
        )


def _batch_operation(operation_type: str, changed: Callable[[Any], tuple[Change, ...]]) -> _Rule:
    """Camunda's logBatchOperation: entity Batch, the batch's id in BATCH_ID_."""

    def rule(op: Operation, e: Any, _s: None, changes: ChangeSet) -> None:
        write_entry(
            op,
            changes,
            key=f"batch/{e.batch_id}/{operation_type}",
            time=e.time,
            operation_type=operation_type,
            entity_type="Batch",
            category=OPERATOR,
            context={"BATCH_ID_": e.batch_id},
            properties=changed(e),
        )

    return rule


_SUSPEND = _instance_operation("Suspend", (("suspensionState", None, "suspended"),))
_ACTIVATE = _instance_operation("Activate", (("suspensionState", None, "active"),))
_SET_VARIABLE = _variable_operation("SetVariable")
_REMOVE_VARIABLE = _variable_operation("RemoveVariable")

# command type -> event type -> how it is logged. A command and event pair not here writes
# nothing: the event is a consequence (a task created by completing another), not the operation.
RULES: dict[str, dict[type[ev.Event], _Rule]] = {
    "Deploy": {ev.DeploymentCreated: _deployment_operation("Create", _filtering, "created")},
    "DeleteDeployment": {
        ev.DeploymentDeleted: _deployment_operation(
            "Delete", lambda e: (("cascade", None, e.cascade),), "deleted"
        )
    },
    "StartProcessInstance": {ev.ProcessInstanceStarted: _started},
    "RestartProcessInstances": {ev.ProcessInstanceStarted: _restarted},
    "DeleteProcessInstance": {
        ev.ProcessInstanceTerminated: _instance_operation("Delete"),
    },
    "ModifyProcessInstance": {ev.ProcessInstanceModified: _modified},
    "ModifyProcessInstances": {ev.ProcessInstanceModified: _modified},
    "MigrateProcessInstances": {ev.ProcessInstanceMigrated: _migrated},
    "CompleteTask": {ev.TaskCompleted: _task_operation("Complete", _completed)},
    "ClaimTask": {ev.TaskClaimed: _task_operation("Claim", _assignee)},
    # engine-rest's unclaim is taskService.setAssignee(id, null)
    "UnclaimTask": {ev.TaskUnclaimed: _task_operation("Assign", _assignee)},
    "DeleteHistoricProcessInstance": {ev.HistoricProcessInstanceDeleted: _history_deleted},
    "SetAssignee": {ev.TaskAssigned: _task_operation("Assign", _assignee)},
    # AddTaskComment writes no entry: Camunda's AddCommentCmd logs none (only its later
    # UpdateComment and DeleteComment do); the comment itself is ACT_HI_COMMENT's row.
    "SetVariables": {ev.VariableSet: _SET_VARIABLE},
    "RemoveVariables": {ev.VariableDeleted: _REMOVE_VARIABLE},
    "SetJobRetries": {
        ev.JobRetriesSet: _job_operation("SetJobRetries", _property("retries", "retries")),
        ev.StartTimerRetriesSet: _start_timer_operation("SetJobRetries", _start_timer_retries),
    },
    "SetJobDueDate": {
        ev.JobDueDateSet: _job_operation("SetDueDate", _property("duedate", "due_date")),
        ev.StartTimerDueDateSet: _start_timer_operation("SetDueDate", _start_timer_due_date),
    },
    "SetJobPriority": {
        ev.JobPrioritySet: _job_operation("SetPriority", _property("priority", "priority"))
    },
    "SetJobSuspended": {
        ev.JobSuspended: _job_operation(
            "SuspendJob", _constant(("suspensionState", None, "suspended"))
        ),
        ev.JobActivated: _job_operation(
            "ActivateJob", _constant(("suspensionState", None, "active"))
        ),
    },
    "ExecuteJob": {
        ev.JobExecuted: _job_operation("Execute", _constant((None, None, None))),
        ev.StartTimerFired: _start_timer_operation("Execute", _constant((None, None, None))),
    },
    "SetExternalTaskRetries": {
        ev.ExternalTaskRetriesSet: _external_task_operation(
            "SetExternalTaskRetries", _property("retries", "retries")
        )
    },
    "SetExternalTaskPriority": {
        ev.ExternalTaskPrioritySet: _external_task_operation(
            "SetPriority", _property("priority", "priority")
        )
    },
    "UnlockExternalTask": {
        ev.ExternalTaskUnlocked: _external_task_operation("Unlock", _constant((None, None, None)))
    },
    "SetProcessInstanceSuspended": {
        ev.ProcessInstanceSuspended: _SUSPEND,
        ev.ProcessInstanceActivated: _ACTIVATE,
    },
    "SetProcessInstancesSuspended": {
        ev.ProcessInstanceSuspended: _SUSPEND,
        ev.ProcessInstanceActivated: _ACTIVATE,
    },
    "SetProcessDefinitionSuspended": {
        ev.ProcessDefinitionSuspended: _definition_operation(
            "SuspendProcessDefinition", "suspended"
        ),
        ev.ProcessDefinitionActivated: _definition_operation("ActivateProcessDefinition", "active"),
    },
    "CreateBatch": {ev.BatchCreated: _batch_created},
    "SetBatchSuspended": {
        ev.BatchSuspended: _batch_operation(
            "SuspendBatch", lambda _e: (("suspensionState", None, "suspended"),)
        ),
        ev.BatchActivated: _batch_operation(
            "ActivateBatch", lambda _e: (("suspensionState", None, "active"),)
        ),
    },
    "DeleteBatch": {
        ev.BatchDeleted: _batch_operation(
            "Delete", lambda e: (("cascadeToHistory", None, e.cascade),)
        )
    },
    "DeleteHistoricBatch": {
        ev.HistoricBatchDeleted: _batch_operation("DeleteHistory", lambda _e: NO_CHANGE)
    },
}
