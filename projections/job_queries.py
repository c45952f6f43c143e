"""The engine's reads of jobs and incidents: ACT_RU_JOB (with its stack traces), ACT_RU_INCIDENT,
ACT_HI_INCIDENT and ACT_HI_JOB_LOG, as `core.views` Structs.

Reads only. Plain statements rather than read-model searches (`projections.search`): engine-rest's
job and incident lists, when they come, declare theirs there.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, or_, select
from sqlalchemy.engine import Connection, RowMapping

from flowledger.core import views
from flowledger.core.start_timers import TIMER_START, StartTimer

from .jobs import (
    INCIDENT_DELETED,
    INCIDENT_OPEN,
    INCIDENT_RESOLVED,
    JOB_CREATED,
    JOB_DELETED,
    JOB_FAILED,
    JOB_SUCCESSFUL,
)
from .search.filters import SUSPENDED, Condition, naive_utc, order, utc
from .tables import ACT_GE_BYTEARRAY, ACT_HI_INCIDENT, ACT_HI_JOB_LOG, ACT_RU_INCIDENT, ACT_RU_JOB

_J, _I, _HI, _LOG = ACT_RU_JOB, ACT_RU_INCIDENT, ACT_HI_INCIDENT, ACT_HI_JOB_LOG


def due_order() -> list[Any]:
    """Due date, jobs without one first (due since they were made) on every database, then id."""
    return [*order({"dueDate": _J.c.DUEDATE_}, [("dueDate", False)], "low"), _J.c.ID_]


def runnable(now: datetime | ColumnElement[datetime]) -> list[Condition]:
    """What the job executor may run at `now` (a moment, or a bound parameter holding one in
    naive UTC), leases aside: retries left, due, not suspended."""
    moment = naive_utc(now) if isinstance(now, datetime) else now
    return [
        _J.c.RETRIES_ > 0,
        or_(_J.c.DUEDATE_.is_(None), _J.c.DUEDATE_ <= moment),
        _J.c.SUSPENSION_STATE_ == 1,
    ]


# -- jobs -----------------------------------------------------------------------------------------


def jobs(
    conn: Connection,
    *,
    job_id: str | None = None,
    process_instance_id: str | None = None,
    execution_id: str | None = None,
    activity_id: str | None = None,
    handler_type: str | None = None,
    timers: bool = False,
    messages: bool = False,
    with_retries_left: bool = False,
    no_retries_left: bool = False,
    executable: bool = False,
    with_exception: bool = False,
    now: datetime | None = None,
) -> list[views.Job]:
    """Camunda's job query: equality filters, and flags that filter only when true
    (`executable`: runnable at `now`, the engine's clock, which it then needs); due date first
    (jobs without one first), then id."""
    if executable and now is None:
        raise ValueError("the executable filter needs the moment to compare due dates with")
    conditions: list[Condition] = [
        column == value
        for column, value in (
            (_J.c.ID_, job_id),
            (_J.c.PROCESS_INSTANCE_ID_, process_instance_id),
            (_J.c.EXECUTION_ID_, execution_id),
            (_J.c.ACT_ID_, activity_id),
            (_J.c.HANDLER_TYPE_, handler_type),
        )
        if value is not None
    ]
    if timers:
        conditions.append(_J.c.TYPE_ == "timer")
    if messages:
        conditions.append(_J.c.TYPE_ == "message")
    if with_retries_left:
        conditions.append(_J.c.RETRIES_ > 0)
    if no_retries_left:
        conditions.append(_J.c.RETRIES_ == 0)
    if executable and now is not None:
        conditions.extend(runnable(now))
    if with_exception:
        conditions.append(_J.c.EXCEPTION_MSG_.is_not(None))
    stmt = select(_J).where(*conditions).order_by(*due_order())
    return [_job(m) for m in conn.execute(stmt).mappings()]


def job(conn: Connection, job_id: str) -> views.Job | None:
    found = jobs(conn, job_id=job_id)
    return found[0] if found else None


def job_stacktrace(conn: Connection, job_id: str) -> tuple[bool, str | None]:
    """(whether the job exists, the stack trace of its last failure from ACT_GE_BYTEARRAY)."""
    b = ACT_GE_BYTEARRAY
    stmt = (
        select(_J.c.ID_, b.c.BYTES_)
        .select_from(_J.outerjoin(b, b.c.ID_ == _J.c.EXCEPTION_STACK_ID_))
        .where(_J.c.ID_ == job_id)
    )
    row = conn.execute(stmt).first()
    if row is None:
        return False, None
    return True, None if row[1] is None else bytes(row[1]).decode("utf-8")


def _job(m: RowMapping) -> views.Job:
    created = utc(m["CREATE_TIME_"])
    assert created is not None  # every projected job has its creation time
    return views.Job(
        id=m["ID_"],
        job_definition_id=m["JOB_DEF_ID_"],
        process_instance_id=m["PROCESS_INSTANCE_ID_"],
        process_definition_id=m["PROCESS_DEF_ID_"],
        process_definition_key=m["PROCESS_DEF_KEY_"],
        execution_id=m["EXECUTION_ID_"],
        activity_id=m["ACT_ID_"],
        handler_type=m["HANDLER_TYPE_"],
        handler_configuration=m["HANDLER_CFG_"],
        job_type=m["TYPE_"],
        exception_message=m["EXCEPTION_MSG_"],
        failed_activity_id=m["FAILED_ACT_ID_"],
        retries=m["RETRIES_"],
        due_date=utc(m["DUEDATE_"]),
        suspended=m["SUSPENSION_STATE_"] == SUSPENDED,
        priority=int(m["PRIORITY_"]),
        created=created,
        repeat=m["REPEAT_"],
        exclusive=bool(m["EXCLUSIVE_"]),
        lock_owner=m["LOCK_OWNER_"],
        lock_expiration_time=utc(m["LOCK_EXP_TIME_"]),
    )


# -- incidents ------------------------------------------------------------------------------------


def _equal(filters: Mapping[Any, str | None]) -> list[Condition]:
    return [column == value for column, value in filters.items() if value is not None]


def incidents(
    conn: Connection,
    *,
    incident_id: str | None = None,
    incident_type: str | None = None,
    process_instance_id: str | None = None,
    execution_id: str | None = None,
    activity_id: str | None = None,
    configuration: str | None = None,
) -> list[views.Incident]:
    """Open incidents matching every filter given, oldest first."""
    conditions = _equal(
        {
            _I.c.ID_: incident_id,
            _I.c.INCIDENT_TYPE_: incident_type,
            _I.c.PROC_INST_ID_: process_instance_id,
            _I.c.EXECUTION_ID_: execution_id,
            _I.c.ACTIVITY_ID_: activity_id,
            _I.c.CONFIGURATION_: configuration,
        }
    )
    stmt = select(_I).where(*conditions).order_by(_I.c.INCIDENT_TIMESTAMP_, _I.c.ID_)
    out = []
    for m in conn.execute(stmt).mappings():
        timestamp = utc(m["INCIDENT_TIMESTAMP_"])
        assert timestamp is not None  # NOT NULL
        out.append(
            views.Incident(
                id=m["ID_"],
                process_definition_id=m["PROC_DEF_ID_"],
                process_instance_id=m["PROC_INST_ID_"],
                execution_id=m["EXECUTION_ID_"],
                incident_timestamp=timestamp,
                incident_type=m["INCIDENT_TYPE_"],
                activity_id=m["ACTIVITY_ID_"],
                failed_activity_id=m["FAILED_ACTIVITY_ID_"],
                cause_incident_id=m["CAUSE_INCIDENT_ID_"],
                root_cause_incident_id=m["ROOT_CAUSE_INCIDENT_ID_"],
                configuration=m["CONFIGURATION_"],
                incident_message=m["INCIDENT_MSG_"],
                job_definition_id=m["JOB_DEF_ID_"],
                annotation=m["ANNOTATION_"],
            )
        )
    return out


def historic_incidents(
    conn: Connection,
    *,
    incident_id: str | None = None,
    incident_type: str | None = None,
    process_instance_id: str | None = None,
    execution_id: str | None = None,
    activity_id: str | None = None,
    configuration: str | None = None,
    open: bool = False,
    resolved: bool = False,
    deleted: bool = False,
) -> list[views.HistoricIncident]:
    """Incidents open or ended (history level full), oldest first; `open`, `resolved` and
    `deleted` filter only when true."""
    conditions = _equal(
        {
            _HI.c.ID_: incident_id,
            _HI.c.INCIDENT_TYPE_: incident_type,
            _HI.c.PROC_INST_ID_: process_instance_id,
            _HI.c.EXECUTION_ID_: execution_id,
            _HI.c.ACTIVITY_ID_: activity_id,
            _HI.c.CONFIGURATION_: configuration,
        }
    )
    for wanted, state in (
        (open, INCIDENT_OPEN),
        (resolved, INCIDENT_RESOLVED),
        (deleted, INCIDENT_DELETED),
    ):
        if wanted:
            conditions.append(_HI.c.INCIDENT_STATE_ == state)
    stmt = select(_HI).where(*conditions).order_by(_HI.c.CREATE_TIME_, _HI.c.ID_)
    out = []
    for m in conn.execute(stmt).mappings():
        created = utc(m["CREATE_TIME_"])
        assert created is not None  # NOT NULL
        state = m["INCIDENT_STATE_"]
        out.append(
            views.HistoricIncident(
                id=m["ID_"],
                process_definition_key=m["PROC_DEF_KEY_"],
                process_definition_id=m["PROC_DEF_ID_"],
                process_instance_id=m["PROC_INST_ID_"],
                root_process_instance_id=m["ROOT_PROC_INST_ID_"],
                execution_id=m["EXECUTION_ID_"],
                create_time=created,
                end_time=utc(m["END_TIME_"]),
                incident_type=m["INCIDENT_TYPE_"],
                activity_id=m["ACTIVITY_ID_"],
                failed_activity_id=m["FAILED_ACTIVITY_ID_"],
                cause_incident_id=m["CAUSE_INCIDENT_ID_"],
                root_cause_incident_id=m["ROOT_CAUSE_INCIDENT_ID_"],
                configuration=m["CONFIGURATION_"],
                incident_message=m["INCIDENT_MSG_"],
                job_definition_id=m["JOB_DEF_ID_"],
                open=state == INCIDENT_OPEN,
                resolved=state == INCIDENT_RESOLVED,
                deleted=state == INCIDENT_DELETED,
                annotation=m["ANNOTATION_"],
                removal_time=utc(m["REMOVAL_TIME_"]),
            )
        )
    return out


# -- job log --------------------------------------------------------------------------------------


def _job_log_query(job_id: str | None, process_instance_id: str | None) -> Select[Any]:
    conditions = _equal({_LOG.c.JOB_ID_: job_id, _LOG.c.PROCESS_INSTANCE_ID_: process_instance_id})
    # One command logs a job's creation and its run at one moment: the stream order breaks it.
    return (
        select(_LOG)
        .where(*conditions)
        .order_by(_LOG.c.TIMESTAMP_, _LOG.c.SEQUENCE_COUNTER_, _LOG.c.ID_)
    )


def historic_job_logs(
    conn: Connection, *, job_id: str | None = None, process_instance_id: str | None = None
) -> list[views.HistoricJobLog]:
    """The job log (history level full) in the order it was written."""
    out = []
    for m in conn.execute(_job_log_query(job_id, process_instance_id)).mappings():
        timestamp = utc(m["TIMESTAMP_"])
        assert timestamp is not None  # NOT NULL
        state = m["JOB_STATE_"]
        out.append(
            views.HistoricJobLog(
                id=m["ID_"],
                timestamp=timestamp,
                job_id=m["JOB_ID_"],
                job_due_date=utc(m["JOB_DUEDATE_"]),
                job_retries=m["JOB_RETRIES_"],
                job_priority=int(m["JOB_PRIORITY_"]),
                job_exception_message=m["JOB_EXCEPTION_MSG_"],
                job_definition_id=m["JOB_DEF_ID_"],
                job_definition_type=m["JOB_DEF_TYPE_"],
                job_definition_configuration=m["JOB_DEF_CONFIGURATION_"],
                activity_id=m["ACT_ID_"],
                failed_activity_id=m["FAILED_ACT_ID_"],
                execution_id=m["EXECUTION_ID_"],
                root_process_instance_id=m["ROOT_PROC_INST_ID_"],
                process_instance_id=m["PROCESS_INSTANCE_ID_"],
                process_definition_id=m["PROCESS_DEF_ID_"],
                process_definition_key=m["PROCESS_DEF_KEY_"],
                deployment_id=m["DEPLOYMENT_ID_"],
                creation_log=state == JOB_CREATED,
                failure_log=state == JOB_FAILED,
                success_log=state == JOB_SUCCESSFUL,
                deletion_log=state == JOB_DELETED,
            )
        )
    return out


# -- start timers ---------------------------------------------------------------------------------


def start_timer(conn: Connection, job_id: str) -> StartTimer | None:
    """The timer start event job `job_id` (a definition's, not an instance's), or None."""
    row = (
        conn.execute(select(_J).where(_J.c.ID_ == job_id, _J.c.HANDLER_TYPE_ == TIMER_START))
        .mappings()
        .first()
    )
    if row is None:
        return None
    created = utc(row["CREATE_TIME_"])
    assert created is not None  # every projected job has its creation time
    return StartTimer(
        job_id=row["ID_"],
        deployment_id=row["DEPLOYMENT_ID_"],
        definition_id=row["PROCESS_DEF_ID_"],
        definition_key=row["PROCESS_DEF_KEY_"],
        activity_id=row["ACT_ID_"],
        due_date=utc(row["DUEDATE_"]),
        repeat=row["REPEAT_"],
        retries=row["RETRIES_"],
        created=created,
        has_stacktrace=row["EXCEPTION_STACK_ID_"] is not None,
    )


def start_timers(
    conn: Connection, *, keys: list[str] | None = None, deployment_id: str | None = None
) -> list[tuple[str, str, bool]]:
    """(job id, deployment id, has a stack trace) of the start timers of these definition keys
    or this deployment."""
    stmt = select(_J.c.ID_, _J.c.DEPLOYMENT_ID_, _J.c.EXCEPTION_STACK_ID_.is_not(None)).where(
        _J.c.HANDLER_TYPE_ == TIMER_START
    )
    if keys is not None:
        stmt = stmt.where(_J.c.HANDLER_CFG_.in_(keys))
    if deployment_id is not None:
        stmt = stmt.where(_J.c.DEPLOYMENT_ID_ == deployment_id)
    return [(r[0], r[1], bool(r[2])) for r in conn.execute(stmt.order_by(_J.c.ID_))]
