"""The rows of jobs and incidents: ACT_RU_JOB and ACT_RU_INCIDENT as functions of the instance
state, ACT_HI_INCIDENT and ACT_HI_JOB_LOG rows of one event, and the ids of their byte arrays.

Row builders only: which rows to write and when is `runtime.RuntimeBatch`'s and
`history.HistoryProjector`'s. Every id here is derived from the log, so a rebuild writes the same.
"""

from __future__ import annotations

from datetime import datetime

from flowledger.core import events as ev
from flowledger.core.ids import derived_id
from flowledger.core.state import Incident, InstanceState, Job

from .changes import Row, blank_row, db_time
from .queries.filters import ACTIVE, SUSPENDED
from .tables import ACT_HI_INCIDENT, ACT_HI_JOB_LOG, ACT_RU_INCIDENT, ACT_RU_JOB
from .tables.history import INCIDENT_OPEN

# Camunda's name for the byte arrays of job stack traces (ExceptionUtil), runtime and history.
JOB_EXCEPTION_NAME = "job.exceptionByteArray"


_JOB_ROW = blank_row(ACT_RU_JOB)
_INCIDENT_ROW = blank_row(ACT_RU_INCIDENT)
_HI_INCIDENT_ROW = blank_row(ACT_HI_INCIDENT)
_JOB_LOG_ROW = blank_row(ACT_HI_JOB_LOG)


def job_stacktrace_bytearray_id(job_id: str) -> str:
    """ACT_RU_JOB.EXCEPTION_STACK_ID_: derived, so a rebuild writes the same row."""
    return derived_id(job_id, "exception-stacktrace")


def job_log_id(job_id: str, s: InstanceState) -> str:
    """The ACT_HI_JOB_LOG id of the event about `job_id` that comes after state `s`.

    No job event carries an id of its own for its log row. The event's version in its stream
    (`s.version + 1`) is unique within the stream and the same in every replay, and a job lives
    in one stream only (its id is a UUID made for it), so (job id, version) names one event of
    the whole log: two log rows never share an id."""
    return derived_id(job_id, f"job-log/{s.version + 1}")


def job_log_stacktrace_bytearray_id(log_id: str) -> str:
    """ACT_HI_JOB_LOG.JOB_EXCEPTION_STACK_ID_ of a failure's log row."""
    return derived_id(log_id, "exception-stacktrace")


def job_row(s: InstanceState, job: Job) -> Row:
    """The job as the state has it, without a lease: LOCK_OWNER_ and LOCK_EXP_TIME_ are the job
    executor's alone, and a projected write (a failure, new retries) ends any lease, as
    Camunda unlocks a job when it records its failure."""
    row = dict(_JOB_ROW)
    row.update(
        ID_=job.id,
        REV_=1,
        TYPE_=job.job_type,
        EXCLUSIVE_=job.exclusive,
        EXECUTION_ID_=job.execution_id,
        ROOT_PROC_INST_ID_=s.root_process_instance_id,
        PROCESS_INSTANCE_ID_=s.id,
        PROCESS_DEF_ID_=s.definition_id,
        PROCESS_DEF_KEY_=s.definition_key,
        RETRIES_=job.retries,
        EXCEPTION_STACK_ID_=(
            None if job.stacktrace is None else job_stacktrace_bytearray_id(job.id)
        ),
        EXCEPTION_MSG_=job.error_message,
        FAILED_ACT_ID_=job.failed_activity_id,
        DUEDATE_=db_time(job.due_date),
        REPEAT_=job.repeat,
        REPEAT_OFFSET_=0,
        HANDLER_TYPE_=job.handler_type,
        HANDLER_CFG_=job.handler_configuration,
        DEPLOYMENT_ID_=s.deployment_id,
        # a job of a suspended instance is suspended with it (Camunda suspends both)
        SUSPENSION_STATE_=SUSPENDED if job.suspended or s.suspended else ACTIVE,
        JOB_DEF_ID_=job.job_definition_id,
        PRIORITY_=job.priority,
        CREATE_TIME_=db_time(job.created),
        ACT_ID_=job.activity_id,
    )
    return row


def incident_row(s: InstanceState, incident: Incident) -> Row:
    """A root incident (Camunda's own cause and root cause) as the state has it."""
    row = dict(_INCIDENT_ROW)
    row.update(
        ID_=incident.id,
        REV_=1,
        INCIDENT_TIMESTAMP_=db_time(incident.created),
        INCIDENT_MSG_=incident.message,
        INCIDENT_TYPE_=incident.incident_type,
        EXECUTION_ID_=incident.execution_id,
        ACTIVITY_ID_=incident.activity_id,
        FAILED_ACTIVITY_ID_=incident.failed_activity_id,
        PROC_INST_ID_=s.id,
        PROC_DEF_ID_=s.definition_id,
        CAUSE_INCIDENT_ID_=incident.id,
        ROOT_CAUSE_INCIDENT_ID_=incident.id,
        CONFIGURATION_=incident.configuration,
        JOB_DEF_ID_=incident.job_definition_id,
    )
    return row


def historic_incident_row(s: InstanceState, e: ev.IncidentCreated) -> Row:
    row = dict(_HI_INCIDENT_ROW)
    row.update(
        ID_=e.incident_id,
        PROC_DEF_KEY_=s.definition_key,
        PROC_DEF_ID_=s.definition_id,
        ROOT_PROC_INST_ID_=s.root_process_instance_id,
        PROC_INST_ID_=s.id,
        EXECUTION_ID_=e.execution_id,
        CREATE_TIME_=db_time(e.time),
        INCIDENT_MSG_=e.message,
        INCIDENT_TYPE_=e.incident_type,
        ACTIVITY_ID_=e.activity_id,
        FAILED_ACTIVITY_ID_=e.failed_activity_id,
        CAUSE_INCIDENT_ID_=e.incident_id,
        ROOT_CAUSE_INCIDENT_ID_=e.incident_id,
        CONFIGURATION_=e.configuration,
        INCIDENT_STATE_=INCIDENT_OPEN,
        JOB_DEF_ID_=e.job_definition_id,
    )
    return row


def job_log_row(
    s: InstanceState,
    log_id: str,
    job: Job | ev.JobCreated,
    state: int,
    time: datetime,
    *,
    failure: ev.JobFailed | None = None,
) -> Row:
    """One ACT_HI_JOB_LOG row: the job as it was when the event happened (for a failure: as it
    ran, with the retries it had; the failure's message and stack trace beside it)."""
    job_id = job.job_id if isinstance(job, ev.JobCreated) else job.id
    stack_id = None
    if failure is not None and failure.stacktrace is not None:
        stack_id = job_log_stacktrace_bytearray_id(log_id)
    row = dict(_JOB_LOG_ROW)
    row.update(
        ID_=log_id,
        TIMESTAMP_=db_time(time),
        JOB_ID_=job_id,
        JOB_DUEDATE_=db_time(job.due_date),
        JOB_RETRIES_=job.retries,
        JOB_PRIORITY_=job.priority,
        JOB_EXCEPTION_MSG_=None if failure is None else failure.error_message,
        JOB_EXCEPTION_STACK_ID_=stack_id,
        JOB_STATE_=state,
        JOB_DEF_ID_=job.job_definition_id,
        # Camunda's job definition type is the handler type of its jobs.
        JOB_DEF_TYPE_=job.handler_type,
        ACT_ID_=job.activity_id,
        FAILED_ACT_ID_=None if failure is None else failure.failed_activity_id,
        EXECUTION_ID_=job.execution_id,
        ROOT_PROC_INST_ID_=s.root_process_instance_id,
        PROCESS_INSTANCE_ID_=s.id,
        PROCESS_DEF_ID_=s.definition_id,
        PROCESS_DEF_KEY_=s.definition_key,
        DEPLOYMENT_ID_=s.deployment_id,
        SEQUENCE_COUNTER_=s.version + 1,
    )
    return row
