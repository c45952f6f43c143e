"""Projector of the start timer events of deployment streams onto ACT_RU_JOB (and the runtime
byte array of a failure's stack trace).

Event in, row changes out, no state: a start timer's row holds everything about it, and each
event names the job it changes.
"""

from __future__ import annotations

from flowledger.core import events as ev
from flowledger.core.start_timers import TIMER_START

from .changes import ChangeSet, UnhandledEvent, blank_row, db_time
from .jobs import JOB_EXCEPTION_NAME, job_stacktrace_bytearray_id
from .runtime import BYTEARRAY_RUNTIME
from .tables import ACT_GE_BYTEARRAY, ACT_RU_JOB

_JOB_ROW = blank_row(ACT_RU_JOB)
_BYTEARRAY_ROW = blank_row(ACT_GE_BYTEARRAY)


def project_start_timer(event: ev.Event, changes: ChangeSet) -> None:
    if isinstance(event, ev.StartTimerScheduled):
        row = dict(_JOB_ROW)
        row.update(
            ID_=event.job_id,
            REV_=1,
            TYPE_="timer",
            EXCLUSIVE_=True,
            PROCESS_DEF_ID_=event.definition_id,
            PROCESS_DEF_KEY_=event.definition_key,
            RETRIES_=event.retries,
            DUEDATE_=db_time(event.due_date),
            REPEAT_=event.repeat,
            REPEAT_OFFSET_=0,
            HANDLER_TYPE_=TIMER_START,
            HANDLER_CFG_=event.definition_key,  # Camunda's configuration: the definition key
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
    elif isinstance(event, ev.StartTimerFailed):
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
    elif isinstance(event, ev.StartTimerDueDateSet):
        values = {"DUEDATE_": db_time(event.due_date), "LOCK_OWNER_": None, "LOCK_EXP_TIME_": None}
        changes.update(ACT_RU_JOB, event.job_id, values, bump_revision=True)
    else:
        raise UnhandledEvent("project_start_timer", type(event))
