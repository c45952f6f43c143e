"""Projectors of the start timer events of deployment streams: onto ACT_RU_JOB and
ACT_RU_INCIDENT (with the runtime byte array of a failure's stack trace), and at history level
full onto ACT_HI_JOB_LOG and ACT_HI_INCIDENT.

Event in, row changes out, no state: a start timer's row holds everything about it, each event
names the job it changes, and the events that log it carry the job as it was (`StartTimerJob`).
"""

from __future__ import annotations

from datetime import datetime

from flowledger.core import events as ev
from flowledger.core.behaviors.incidents import FAILED_JOB
from flowledger.core.start_timers import TIMER_START

from .changes import ChangeSet, Row, UnhandledEvent, blank_row, db_time
from .jobs import (
    JOB_EXCEPTION_NAME,
    job_log_stacktrace_bytearray_id,
    job_stacktrace_bytearray_id,
)
from .runtime import BYTEARRAY_HISTORY, BYTEARRAY_RUNTIME, bytearray_row
from .tables import ACT_GE_BYTEARRAY, ACT_HI_INCIDENT, ACT_HI_JOB_LOG, ACT_RU_INCIDENT, ACT_RU_JOB
from .tables.history import (
    INCIDENT_DELETED,
    INCIDENT_OPEN,
    INCIDENT_RESOLVED,
    JOB_CREATED,
    JOB_DELETED,
    JOB_FAILED,
    JOB_SUCCESSFUL,
)

_JOB_ROW = blank_row(ACT_RU_JOB)
_BYTEARRAY_ROW = blank_row(ACT_GE_BYTEARRAY)
_INCIDENT_ROW = blank_row(ACT_RU_INCIDENT)
_HI_INCIDENT_ROW = blank_row(ACT_HI_INCIDENT)
_JOB_LOG_ROW = blank_row(ACT_HI_JOB_LOG)


def project_start_timer(event: ev.Event, changes: ChangeSet) -> None:
    if isinstance(event, ev.StartTimerScheduled):
        row = dict(_JOB_ROW)
        row.update(
            ID_=event.job_id,
            REV_=1,
            # an asynchronous signal's start is a message job, as Camunda's
            TYPE_="timer" if event.handler_type == TIMER_START else "message",
            EXCLUSIVE_=True,
            PROCESS_DEF_ID_=event.definition_id,
            PROCESS_DEF_KEY_=event.definition_key,
            RETRIES_=event.retries,
            DUEDATE_=db_time(event.due_date),
            REPEAT_=event.repeat,
            REPEAT_OFFSET_=0,
            HANDLER_TYPE_=event.handler_type,
            # Camunda's configuration: a timer's definition key, a signal start's subscription
            HANDLER_CFG_=event.configuration or event.definition_key,
            DEPLOYMENT_ID_=event.deployment_id,
            SUSPENSION_STATE_=1,
            JOB_DEF_ID_=event.job_definition_id,
            PRIORITY_=0,
            CREATE_TIME_=db_time(event.time),
            ACT_ID_=event.activity_id,
        )
        changes.insert(ACT_RU_JOB, event.job_id, row)
    elif isinstance(event, ev.StartTimerFired | ev.StartTimerRemoved):
        changes.delete(ACT_RU_JOB, event.job_id)
        if event.had_stacktrace:
            changes.delete(ACT_GE_BYTEARRAY, job_stacktrace_bytearray_id(event.job_id))
        if event.ended_incident_id is not None:
            changes.delete(ACT_RU_INCIDENT, event.ended_incident_id)
    elif isinstance(event, ev.StartTimerFailed):
        _open_incident(event, event.error_message, changes)
        stack_id = job_stacktrace_bytearray_id(event.job_id)
        values = {
            "RETRIES_": event.retries,
            "EXCEPTION_MSG_": event.error_message,
            "DUEDATE_": db_time(event.due_date),
            "LOCK_OWNER_": None,
            "LOCK_EXP_TIME_": None,
        }
        if event.stacktrace is not None and event.had_stacktrace:
            changes.update(
                ACT_GE_BYTEARRAY,
                stack_id,
                {"BYTES_": event.stacktrace.encode()},
                bump_revision=True,
            )
        elif event.stacktrace is not None:
            bytearray = dict(_BYTEARRAY_ROW)
            bytearray.update(
                ID_=stack_id,
                REV_=1,
                NAME_=JOB_EXCEPTION_NAME,
                BYTES_=event.stacktrace.encode(),
                GENERATED_=True,
                TYPE_=BYTEARRAY_RUNTIME,
                CREATE_TIME_=db_time(event.time),
            )
            changes.insert(ACT_GE_BYTEARRAY, stack_id, bytearray)
        if event.stacktrace is not None:
            values["EXCEPTION_STACK_ID_"] = stack_id
        changes.update(ACT_RU_JOB, event.job_id, values, bump_revision=True)
    elif isinstance(event, ev.StartTimerRetriesSet):
        values = {"RETRIES_": event.retries, "LOCK_OWNER_": None, "LOCK_EXP_TIME_": None}
        changes.update(ACT_RU_JOB, event.job_id, values, bump_revision=True)
        _open_incident(event, None, changes)
        if event.ended_incident_id is not None:
            changes.delete(ACT_RU_INCIDENT, event.ended_incident_id)
    elif isinstance(event, ev.StartTimerDueDateSet):
        values = {"DUEDATE_": db_time(event.due_date), "LOCK_OWNER_": None, "LOCK_EXP_TIME_": None}
        changes.update(ACT_RU_JOB, event.job_id, values, bump_revision=True)
    else:
        raise UnhandledEvent("project_start_timer", type(event))


def _open_incident(
    event: ev.StartTimerFailed | ev.StartTimerRetriesSet, message: str | None, changes: ChangeSet
) -> None:
    if event.opened_incident_id is None or event.job is None:
        return
    row = dict(_INCIDENT_ROW)
    row.update(
        ID_=event.opened_incident_id,
        REV_=1,
        INCIDENT_TIMESTAMP_=db_time(event.time),
        INCIDENT_MSG_=message,
        INCIDENT_TYPE_=FAILED_JOB,
        ACTIVITY_ID_=event.job.activity_id,
        FAILED_ACTIVITY_ID_=event.job.activity_id,
        PROC_DEF_ID_=event.job.definition_id,
        CAUSE_INCIDENT_ID_=event.opened_incident_id,
        ROOT_CAUSE_INCIDENT_ID_=event.opened_incident_id,
        CONFIGURATION_=event.job_id,
        JOB_DEF_ID_=event.job.job_definition_id,
    )
    changes.insert(ACT_RU_INCIDENT, event.opened_incident_id, row)


# -- history (level full) ------------------------------------------------------------------------


def project_start_timer_history(event: ev.Event, changes: ChangeSet) -> None:
    """The job log of a start timer and its incidents. Events written before start timers had a
    job log (no `log_id`) log nothing."""
    if isinstance(event, ev.StartTimerScheduled):
        if event.log_id is not None:
            job = ev.StartTimerJob(
                job_definition_id=event.job_definition_id,
                deployment_id=event.deployment_id,
                definition_id=event.definition_id,
                definition_key=event.definition_key,
                activity_id=event.activity_id,
                due_date=event.due_date,
                retries=event.retries,
                handler_type=event.handler_type,
            )
            _log(changes, event.log_id, event.job_id, job, JOB_CREATED, event.time)
    elif isinstance(event, ev.StartTimerFailed):
        if event.log_id is not None and event.job is not None:
            stack_id = None
            if event.stacktrace is not None:
                stack_id = job_log_stacktrace_bytearray_id(event.log_id)
                blob = bytearray_row(
                    stack_id, JOB_EXCEPTION_NAME, event.stacktrace.encode(), BYTEARRAY_HISTORY, None
                )
                changes.insert(ACT_GE_BYTEARRAY, stack_id, blob)
            failure = {
                "JOB_EXCEPTION_MSG_": event.error_message,
                "JOB_EXCEPTION_STACK_ID_": stack_id,
                "FAILED_ACT_ID_": event.job.activity_id,
            }
            _log(changes, event.log_id, event.job_id, event.job, JOB_FAILED, event.time, failure)
        _open_historic_incident(event, event.error_message, changes)
    elif isinstance(event, ev.StartTimerRetriesSet):
        _open_historic_incident(event, None, changes)
        _end_historic_incident(event.ended_incident_id, event.time, INCIDENT_RESOLVED, changes)
    elif isinstance(event, ev.StartTimerFired | ev.StartTimerRemoved):
        state = JOB_SUCCESSFUL if isinstance(event, ev.StartTimerFired) else JOB_DELETED
        if event.log_id is not None and event.job is not None:
            _log(changes, event.log_id, event.job_id, event.job, state, event.time)
        ended = INCIDENT_RESOLVED if isinstance(event, ev.StartTimerFired) else INCIDENT_DELETED
        _end_historic_incident(event.ended_incident_id, event.time, ended, changes)
    elif not isinstance(event, ev.StartTimerDueDateSet):
        raise UnhandledEvent("project_start_timer_history", type(event))


def _log(
    changes: ChangeSet,
    log_id: str,
    job_id: str,
    job: ev.StartTimerJob,
    state: int,
    time: datetime,
    failure: Row | None = None,
) -> None:
    row = dict(_JOB_LOG_ROW)
    row.update(
        ID_=log_id,
        TIMESTAMP_=db_time(time),
        JOB_ID_=job_id,
        JOB_DUEDATE_=db_time(job.due_date),
        JOB_RETRIES_=job.retries,
        JOB_PRIORITY_=0,
        JOB_STATE_=state,
        JOB_DEF_ID_=job.job_definition_id,
        JOB_DEF_TYPE_=job.handler_type,
        ACT_ID_=job.activity_id,
        PROCESS_DEF_ID_=job.definition_id,
        PROCESS_DEF_KEY_=job.definition_key,
        DEPLOYMENT_ID_=job.deployment_id,
    )
    row.update(failure or {})
    changes.insert(ACT_HI_JOB_LOG, log_id, row)


def _open_historic_incident(
    event: ev.StartTimerFailed | ev.StartTimerRetriesSet, message: str | None, changes: ChangeSet
) -> None:
    if event.opened_incident_id is None or event.job is None:
        return
    row = dict(_HI_INCIDENT_ROW)
    row.update(
        ID_=event.opened_incident_id,
        PROC_DEF_KEY_=event.job.definition_key,
        PROC_DEF_ID_=event.job.definition_id,
        CREATE_TIME_=db_time(event.time),
        INCIDENT_MSG_=message,
        INCIDENT_TYPE_=FAILED_JOB,
        ACTIVITY_ID_=event.job.activity_id,
        FAILED_ACTIVITY_ID_=event.job.activity_id,
        CAUSE_INCIDENT_ID_=event.opened_incident_id,
        ROOT_CAUSE_INCIDENT_ID_=event.opened_incident_id,
        CONFIGURATION_=event.job_id,
        INCIDENT_STATE_=INCIDENT_OPEN,
        JOB_DEF_ID_=event.job.job_definition_id,
    )
    changes.insert(ACT_HI_INCIDENT, event.opened_incident_id, row)


def _end_historic_incident(
    incident_id: str | None, time: datetime, state: int, changes: ChangeSet
) -> None:
    if incident_id is not None:
        values = {"END_TIME_": db_time(time), "INCIDENT_STATE_": state}
        changes.update(ACT_HI_INCIDENT, incident_id, values)
