"""The engine's reads of jobs and incidents: ACT_RU_JOB (with its stack traces), ACT_RU_INCIDENT,
ACT_HI_INCIDENT and ACT_HI_JOB_LOG, as `core.views` Structs.

Reads only. The lists run the read model's searches (`search.jobs`, `search.history_jobs`), which
engine-rest's lists run too; here with the engine API's filters and orders.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.engine import Connection

from flowledger.core import views

from ..tables import ACT_GE_BYTEARRAY, ACT_RU_JOB
from . import history_jobs as history_search
from . import jobs as job_search
from .declaration import find, view
from .filters import Condition, naive_utc, order

_J = ACT_RU_JOB


def due_order() -> list[Any]:
    """The order of due jobs (ACT_RU_JOB): due date, jobs without one first (due since they were
    made) on every database, then id."""
    return [*order({"dueDate": _J.c.DUEDATE_}, [("dueDate", False)], "low"), _J.c.ID_]


def runnable(now: datetime | ColumnElement[datetime]) -> list[Condition]:
    """The ACT_RU_JOB rows the job executor may run at `now` (a moment, or a bound parameter
    holding one in naive UTC), leases aside: retries left, due, not suspended."""
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
    (jobs without one first), then id. The read model's job search runs it."""
    if executable and now is None:
        raise ValueError("the executable filter needs the moment to compare due dates with")
    query = job_search.JobSearchQuery(
        job_id=job_id,
        process_instance_id=process_instance_id,
        execution_id=execution_id,
        activity_id=activity_id,
        handler_type=handler_type,
        timers=timers or None,
        messages=messages or None,
        with_retries_left=with_retries_left or None,
        no_retries_left=no_retries_left or None,
        executable=executable or None,
        with_exception=with_exception or None,
        now=now,
    )
    rows = find(conn, job_search.JOBS, query, [("jobDueDate", False)])
    return [view(views.Job, row) for row in rows]


def job_definitions(
    conn: Connection,
    *,
    process_definition_id: str | None = None,
    process_definition_key: str | None = None,
    activity_id: str | None = None,
) -> list[views.JobDefinition]:
    """The job definitions of deployed process definitions, by id."""
    query = job_search.JobDefinitionQuery(
        process_definition_id=process_definition_id,
        process_definition_key=process_definition_key,
        activity_id_in=None if activity_id is None else [activity_id],
    )
    rows = find(conn, job_search.JOB_DEFINITIONS, query)
    return [view(views.JobDefinition, row) for row in rows]


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


# -- incidents ------------------------------------------------------------------------------------


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
    query = job_search.IncidentQuery(
        incident_id=incident_id,
        incident_type=incident_type,
        process_instance_id=process_instance_id,
        execution_id=execution_id,
        activity_id=activity_id,
        configuration=configuration,
    )
    rows = find(conn, job_search.INCIDENTS, query, [("incidentTimestamp", False)])
    return [view(views.Incident, row) for row in rows]


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
    query = history_search.HistoricIncidentQuery(
        incident_id=incident_id,
        incident_type=incident_type,
        process_instance_id=process_instance_id,
        execution_id=execution_id,
        activity_id=activity_id,
        configuration=configuration,
        open=open or None,
        resolved=resolved or None,
        deleted=deleted or None,
    )
    rows = find(conn, history_search.HISTORIC_INCIDENTS, query, [("createTime", False)])
    return [view(views.HistoricIncident, row) for row in rows]


def historic_job_logs(
    conn: Connection, *, job_id: str | None = None, process_instance_id: str | None = None
) -> list[views.HistoricJobLog]:
    """The job log (history level full) in the order it was written."""
    query = history_search.HistoricJobLogQuery(
        job_id=job_id, process_instance_id=process_instance_id
    )
    return [view(views.HistoricJobLog, row) for row in find(conn, history_search.JOB_LOGS, query)]
