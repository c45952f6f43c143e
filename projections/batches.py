"""Projectors of a batch's stream: ACT_RU_BATCH, its job definitions (ACT_RU_JOBDEF), its seed,
monitor and batch jobs (ACT_RU_JOB) with their configuration byte arrays and stack traces, and at
history level full ACT_HI_BATCH.

Event in, row changes out, no state: every batch event carries what its rows need.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flowledger.core import events as ev
from flowledger.core.batches.model import (
    ACTIVE,
    JOB_RETRIES,
    MONITOR_JOB,
    SEED_JOB,
    SUSPENDED,
    encode_configuration,
)
from flowledger.core.variables import storage_columns

from .changes import ChangeSet, Purge, Row, UnhandledEvent, blank_row, db_time
from .jobs import (
    JOB_EXCEPTION_NAME,
    job_log_stacktrace_bytearray_id,
    job_stacktrace_bytearray_id,
)
from .runtime import BYTEARRAY_HISTORY, BYTEARRAY_RUNTIME, runtime_bytearray_id
from .tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_BATCH,
    ACT_HI_JOB_LOG,
    ACT_HI_OP_LOG,
    ACT_RU_BATCH,
    ACT_RU_JOB,
    ACT_RU_JOBDEF,
    ACT_RU_VARIABLE,
)

_BATCH_ROW = blank_row(ACT_RU_BATCH)
_HI_BATCH_ROW = blank_row(ACT_HI_BATCH)
_JOB_ROW = blank_row(ACT_RU_JOB)
_JOBDEF_ROW = blank_row(ACT_RU_JOBDEF)
_BYTEARRAY_ROW = blank_row(ACT_GE_BYTEARRAY)
_VARIABLE_ROW = blank_row(ACT_RU_VARIABLE)
_JOB_LOG_ROW = blank_row(ACT_HI_JOB_LOG)

# Camunda's names of a batch's byte arrays (ResourceTypes and the job's handler configuration).
BATCH_CONFIGURATION_NAME = "batch.configuration"
JOB_CONFIGURATION_NAME = "job.handlerConfiguration"

_UNLEASED: Row = {"LOCK_OWNER_": None, "LOCK_EXP_TIME_": None}


def project_batch(event: ev.Event, changes: ChangeSet) -> None:
    """The runtime rows of one batch event."""
    if isinstance(event, ev.BatchCreated):
        _created(event, changes)
    elif isinstance(event, ev.BatchJobsCreated):
        _seeded(event, changes)
    elif isinstance(event, ev.BatchJobCompleted):
        _end_job(changes, event.job_id, event.configuration_id, event.had_stacktrace)
        if event.execution_started:
            started: Row = {"EXEC_START_TIME_": db_time(event.time)}
            changes.update(ACT_RU_BATCH, event.batch_id, started, bump_revision=True)
    elif isinstance(event, ev.BatchJobFailed):
        _failed(event, changes)
    elif isinstance(event, ev.BatchJobRetriesSet):
        retries: Row = {"RETRIES_": event.retries, **_UNLEASED}
        changes.update(ACT_RU_JOB, event.job_id, retries, bump_revision=True)
    elif isinstance(event, ev.BatchMonitorRescheduled):
        _end_job(changes, event.ran_job_id, None, event.ran_had_stacktrace)
        changes.insert(
            ACT_RU_JOB,
            event.job_id,
            _job_row(
                event.job_id,
                MONITOR_JOB,
                event.batch_id,
                event.monitor_job_definition_id,
                event.batch_id,
                event.tenant_id,
                event.time,
                event.due_date,
            ),
        )
    elif isinstance(event, ev.BatchSuspended | ev.BatchActivated):
        state = SUSPENDED if isinstance(event, ev.BatchSuspended) else ACTIVE
        changes.update(
            ACT_RU_BATCH, event.batch_id, {"SUSPENSION_STATE_": state}, bump_revision=True
        )
        for definition_id in event.job_definition_ids:
            changes.update(
                ACT_RU_JOBDEF, definition_id, {"SUSPENSION_STATE_": state}, bump_revision=True
            )
        for job_id in event.job_ids:
            values = {"SUSPENSION_STATE_": state, **_UNLEASED}
            changes.update(ACT_RU_JOB, job_id, values, bump_revision=True)
    elif isinstance(event, ev.BatchCompleted | ev.BatchDeleted):
        jobs = [event.monitor_job] if isinstance(event, ev.BatchCompleted) else event.jobs
        for job in jobs:
            _end_job(changes, job.job_id, job.configuration_id, job.had_stacktrace)
        for definition_id in event.job_definition_ids:
            changes.delete(ACT_RU_JOBDEF, definition_id)
        changes.delete(ACT_GE_BYTEARRAY, event.configuration_id)
        changes.delete(ACT_RU_BATCH, event.batch_id)
        _variables_removed(event.batch_id, changes)
    elif isinstance(event, ev.HistoricBatchDeleted | ev.HistoricBatchRemovalTimeSet):
        return  # history's
    else:
        raise UnhandledEvent("project_batch", type(event))


def _created(e: ev.BatchCreated, changes: ChangeSet) -> None:
    row = dict(_BATCH_ROW)
    row.update(
        ID_=e.batch_id,
        REV_=1,
        TYPE_=e.batch_type,
        TOTAL_JOBS_=e.total_jobs,
        JOBS_CREATED_=0,
        JOBS_PER_SEED_=e.batch_jobs_per_seed,
        INVOCATIONS_PER_JOB_=e.invocations_per_batch_job,
        SEED_JOB_DEF_ID_=e.seed_job_definition_id,
        BATCH_JOB_DEF_ID_=e.batch_job_definition_id,
        MONITOR_JOB_DEF_ID_=e.monitor_job_definition_id,
        SUSPENSION_STATE_=ACTIVE,
        CONFIGURATION_=e.configuration_id,
        TENANT_ID_=e.tenant_id,
        CREATE_USER_ID_=e.create_user_id,
        START_TIME_=db_time(e.time),
    )
    changes.insert(ACT_RU_BATCH, e.batch_id, row)
    changes.insert(
        ACT_GE_BYTEARRAY,
        e.configuration_id,
        _bytearray(
            e.configuration_id,
            BATCH_CONFIGURATION_NAME,
            encode_configuration(e.targets, e.parameters),
            e.time,
        ),
    )
    for variable in e.variables:
        _variable_added(e, variable, changes)
    for definition_id, job_type in (
        (e.seed_job_definition_id, SEED_JOB),
        (e.monitor_job_definition_id, MONITOR_JOB),
        (e.batch_job_definition_id, e.batch_type),
    ):
        jobdef = dict(_JOBDEF_ROW)
        jobdef.update(
            ID_=definition_id,
            REV_=1,
            JOB_TYPE_=job_type,
            JOB_CONFIGURATION_=e.batch_id,  # Camunda's: the batch a job definition serves
            SUSPENSION_STATE_=ACTIVE,
            TENANT_ID_=e.tenant_id,
        )
        changes.insert(ACT_RU_JOBDEF, definition_id, jobdef)
    changes.insert(
        ACT_RU_JOB,
        e.seed_job_id,
        _job_row(
            e.seed_job_id,
            SEED_JOB,
            e.batch_id,
            e.seed_job_definition_id,
            e.batch_id,
            e.tenant_id,
            e.time,
            None,
        ),
    )


def _variable_added(e: ev.BatchCreated, variable: ev.BatchVariable, changes: ChangeSet) -> None:
    """A batch variable as Camunda writes it: no execution, its scope the batch."""
    cols = storage_columns(variable.value)
    blob_id = runtime_bytearray_id(variable.id) if cols.data is not None else None
    row = dict(_VARIABLE_ROW)
    row.update(
        ID_=variable.id,
        REV_=1,
        TYPE_=variable.value.type,
        NAME_=variable.name,
        BATCH_ID_=e.batch_id,
        VAR_SCOPE_=e.batch_id,
        BYTEARRAY_ID_=blob_id,
        DOUBLE_=cols.double,
        LONG_=cols.long,
        TEXT_=cols.text,
        TEXT2_=cols.text2,
        TENANT_ID_=e.tenant_id,
        IS_CONCURRENT_LOCAL_=False,
    )
    changes.insert(ACT_RU_VARIABLE, variable.id, row)
    if blob_id is not None and cols.data is not None:
        changes.insert(
            ACT_GE_BYTEARRAY, blob_id, _bytearray(blob_id, variable.name, cols.data, e.time)
        )


def _variables_removed(batch_id: str, changes: ChangeSet) -> None:
    """A batch's variables go with it (found by their BATCH_ID_, as Camunda deletes them): the
    byte arrays they name first."""
    changes.purge(
        Purge(ACT_GE_BYTEARRAY, "BATCH_ID_", batch_id, via=ACT_RU_VARIABLE, ref="BYTEARRAY_ID_")
    )
    changes.purge(Purge(ACT_RU_VARIABLE, "BATCH_ID_", batch_id))


def _seeded(e: ev.BatchJobsCreated, changes: ChangeSet) -> None:
    _end_job(changes, e.seed_job_id, None, e.seed_had_stacktrace)
    for job in e.jobs:
        changes.insert(
            ACT_RU_JOB,
            job.job_id,
            _job_row(
                job.job_id,
                e.batch_type,
                job.configuration_id,
                e.batch_job_definition_id,
                e.batch_id,
                e.tenant_id,
                e.time,
                None,
            ),
        )
        data = encode_configuration(job.targets, e.parameters)
        changes.insert(
            ACT_GE_BYTEARRAY,
            job.configuration_id,
            _bytearray(job.configuration_id, JOB_CONFIGURATION_NAME, data, e.time),
        )
    changes.update(ACT_RU_BATCH, e.batch_id, {"JOBS_CREATED_": e.jobs_created}, bump_revision=True)
    following = (
        (e.next_seed_job_id, SEED_JOB, e.seed_job_definition_id),
        (e.monitor_job_id, MONITOR_JOB, e.monitor_job_definition_id),
    )
    for job_id, handler, definition_id in following:
        if job_id is not None:
            changes.insert(
                ACT_RU_JOB,
                job_id,
                _job_row(
                    job_id,
                    handler,
                    e.batch_id,
                    definition_id,
                    e.batch_id,
                    e.tenant_id,
                    e.time,
                    None,
                ),
            )


def _failed(e: ev.BatchJobFailed, changes: ChangeSet) -> None:
    stack_id = job_stacktrace_bytearray_id(e.job_id)
    values: dict[str, Any] = {
        "RETRIES_": e.retries,
        "EXCEPTION_MSG_": e.error_message,
        "DUEDATE_": db_time(e.due_date),
        **_UNLEASED,
    }
    if e.stacktrace is not None:
        values["EXCEPTION_STACK_ID_"] = stack_id
        if e.had_stacktrace:
            changes.update(
                ACT_GE_BYTEARRAY, stack_id, {"BYTES_": e.stacktrace.encode()}, bump_revision=True
            )
        else:
            row = _bytearray(stack_id, JOB_EXCEPTION_NAME, e.stacktrace.encode(), e.time)
            row["GENERATED_"] = True
            changes.insert(ACT_GE_BYTEARRAY, stack_id, row)
    changes.update(ACT_RU_JOB, e.job_id, values, bump_revision=True)


def _end_job(
    changes: ChangeSet, job_id: str, configuration_id: str | None, had_stacktrace: bool
) -> None:
    changes.delete(ACT_RU_JOB, job_id)
    if configuration_id is not None:
        changes.delete(ACT_GE_BYTEARRAY, configuration_id)
    if had_stacktrace:
        changes.delete(ACT_GE_BYTEARRAY, job_stacktrace_bytearray_id(job_id))


def _job_row(
    job_id: str,
    handler_type: str,
    configuration: str,
    job_definition_id: str,
    batch_id: str,
    tenant_id: str | None,
    time: datetime,
    due_date: datetime | None,
) -> Row:
    """A job of a batch as Camunda writes it: a message job (the monitor's polls have a due
    date), exclusive, 3 retries; the seed's and monitor's configuration is the batch id, a batch
    job's its configuration byte array."""
    row = dict(_JOB_ROW)
    row.update(
        ID_=job_id,
        REV_=1,
        TYPE_="message",
        EXCLUSIVE_=True,
        RETRIES_=JOB_RETRIES,
        DUEDATE_=db_time(due_date),
        REPEAT_OFFSET_=0,
        HANDLER_TYPE_=handler_type,
        HANDLER_CFG_=configuration,
        SUSPENSION_STATE_=ACTIVE,
        JOB_DEF_ID_=job_definition_id,
        PRIORITY_=0,
        TENANT_ID_=tenant_id,
        CREATE_TIME_=db_time(time),
        BATCH_ID_=batch_id,
    )
    return row


def _bytearray(blob_id: str, name: str, data: bytes, time: datetime) -> Row:
    row = dict(_BYTEARRAY_ROW)
    row.update(
        ID_=blob_id,
        REV_=1,
        NAME_=name,
        BYTES_=data,
        GENERATED_=True,
        TYPE_=BYTEARRAY_RUNTIME,
        CREATE_TIME_=db_time(time),
    )
    return row


# -- history (level full) ------------------------------------------------------------------------


def project_batch_history(event: ev.Event, changes: ChangeSet) -> None:
    """ACT_HI_BATCH: written when the batch is created, ended when it completes or is deleted
    (deleted with it on cascade, or by itself through the history API); the ACT_HI_JOB_LOG rows
    of its jobs, deleted with its history."""
    if isinstance(event, _JOB_LOGGING):
        for entry in event.job_log:
            _job_logged(event, entry, changes)
    if isinstance(event, ev.BatchCreated):
        row = dict(_HI_BATCH_ROW)
        row.update(
            ID_=event.batch_id,
            TYPE_=event.batch_type,
            TOTAL_JOBS_=event.total_jobs,
            JOBS_PER_SEED_=event.batch_jobs_per_seed,
            INVOCATIONS_PER_JOB_=event.invocations_per_batch_job,
            SEED_JOB_DEF_ID_=event.seed_job_definition_id,
            MONITOR_JOB_DEF_ID_=event.monitor_job_definition_id,
            BATCH_JOB_DEF_ID_=event.batch_job_definition_id,
            TENANT_ID_=event.tenant_id,
            CREATE_USER_ID_=event.create_user_id,
            START_TIME_=db_time(event.time),
        )
        changes.insert(ACT_HI_BATCH, event.batch_id, row)
    elif isinstance(event, ev.BatchJobCompleted):
        if event.execution_started:
            changes.update(ACT_HI_BATCH, event.batch_id, {"EXEC_START_TIME_": db_time(event.time)})
    elif isinstance(event, ev.BatchCompleted):
        changes.update(ACT_HI_BATCH, event.batch_id, {"END_TIME_": db_time(event.time)})
    elif isinstance(event, ev.BatchDeleted):
        if event.cascade:
            _history_deleted(event.batch_id, changes)
        else:
            changes.update(ACT_HI_BATCH, event.batch_id, {"END_TIME_": db_time(event.time)})
    elif isinstance(event, ev.HistoricBatchDeleted):
        _history_deleted(event.batch_id, changes)
    elif isinstance(event, ev.HistoricBatchRemovalTimeSet):
        # Camunda's HistoricBatchManager.addRemovalTimeById: the batch, the operation log entries
        # naming it, its jobs' log and their stack traces (it writes no incident for them here)
        stamp = (("REMOVAL_TIME_", db_time(event.removal_time)),)
        changes.update(ACT_HI_BATCH, event.batch_id, dict(stamp))
        changes.purge(
            Purge(ACT_HI_OP_LOG, "BATCH_ID_", event.batch_id, values=stamp, in_order=True)
        )
        changes.purge(
            Purge(
                ACT_GE_BYTEARRAY,
                "JOB_DEF_CONFIGURATION_",
                event.batch_id,
                via=ACT_HI_JOB_LOG,
                ref="JOB_EXCEPTION_STACK_ID_",
                values=stamp,
                in_order=True,
            )
        )
        changes.purge(
            Purge(
                ACT_HI_JOB_LOG,
                "JOB_DEF_CONFIGURATION_",
                event.batch_id,
                values=stamp,
                in_order=True,
            )
        )
    elif not isinstance(event, _JOB_LOGGING):
        raise UnhandledEvent("project_batch_history", type(event))


def _history_deleted(batch_id: str, changes: ChangeSet) -> None:
    """Camunda's HistoricBatchManager: the batch's history with its jobs' log (their failures'
    stack traces first)."""
    changes.delete(ACT_HI_BATCH, batch_id)
    changes.purge(
        Purge(
            ACT_GE_BYTEARRAY,
            "JOB_DEF_CONFIGURATION_",
            batch_id,
            via=ACT_HI_JOB_LOG,
            ref="JOB_EXCEPTION_STACK_ID_",
        )
    )
    changes.purge(Purge(ACT_HI_JOB_LOG, "JOB_DEF_CONFIGURATION_", batch_id))


_JobLogging = (
    ev.BatchCreated
    | ev.BatchJobsCreated
    | ev.BatchJobCompleted
    | ev.BatchJobFailed
    | ev.BatchMonitorRescheduled
    | ev.BatchCompleted
    | ev.BatchDeleted
)
# the events that write job log rows (and, some, nothing else of history)
_JOB_LOGGING = (
    ev.BatchCreated,
    ev.BatchJobsCreated,
    ev.BatchJobCompleted,
    ev.BatchJobFailed,
    ev.BatchMonitorRescheduled,
    ev.BatchCompleted,
    ev.BatchDeleted,
)


# Every batch event history projects (at level full, as Camunda writes batch history)
BATCH_HISTORY_EVENTS: tuple[type[ev.Event], ...] = (
    *_JOB_LOGGING,
    ev.HistoricBatchDeleted,
    ev.HistoricBatchRemovalTimeSet,
)


def _job_logged(event: _JobLogging, entry: ev.BatchJobLogged, changes: ChangeSet) -> None:
    """A job of the batch as Camunda's HistoricJobLogEventEntity writes it: the job definition's
    configuration is the batch's id; a failure's message and stack trace are its event's."""
    failure = event if isinstance(event, ev.BatchJobFailed) else None
    stack_id = None
    if failure is not None and failure.stacktrace is not None:
        stack_id = job_log_stacktrace_bytearray_id(entry.log_id)
        blob = _bytearray(stack_id, JOB_EXCEPTION_NAME, failure.stacktrace.encode(), failure.time)
        changes.insert(ACT_GE_BYTEARRAY, stack_id, {**blob, "TYPE_": BYTEARRAY_HISTORY})
    row = dict(_JOB_LOG_ROW)
    row.update(
        ID_=entry.log_id,
        TIMESTAMP_=db_time(event.time),
        JOB_ID_=entry.job_id,
        JOB_DUEDATE_=db_time(entry.due_date),
        JOB_RETRIES_=entry.retries,
        JOB_PRIORITY_=0,
        JOB_EXCEPTION_MSG_=None if failure is None else failure.error_message,
        JOB_EXCEPTION_STACK_ID_=stack_id,
        JOB_STATE_=entry.state,
        JOB_DEF_ID_=entry.job_definition_id,
        JOB_DEF_TYPE_=entry.job_type,
        JOB_DEF_CONFIGURATION_=event.batch_id,
        TENANT_ID_=getattr(event, "tenant_id", None),
    )
    changes.insert(ACT_HI_JOB_LOG, entry.log_id, row)
