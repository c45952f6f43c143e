"""The cockpit's dashboard, aggregated in SQL: per process definition (every key's latest version,
and older versions while they have running instances, incidents or tasks) its running instances,
open incidents and open tasks — one grouped query each — and the incidents of the last hour.
Reads only.
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql.elements import ColumnElement

from ..tables import ACT_HI_INCIDENT, ACT_RE_PROCDEF, ACT_RU_EXECUTION, ACT_RU_INCIDENT, ACT_RU_TASK
from .filters import naive_utc, utc

_D = ACT_RE_PROCDEF
RECENT_FAILURES = 100  # the newest incidents of the last hour the dashboard lists


class DefinitionLoad(msgspec.Struct, frozen=True):
    id: str
    key: str
    name: str | None
    version: int
    running_instances: int
    open_incidents: int
    open_tasks: int


class RecentFailure(msgspec.Struct, frozen=True):
    time: datetime
    process_instance_id: str | None
    process_definition_id: str | None
    activity_id: str | None
    incident_type: str
    message: str | None


def _per_definition(
    conn: Connection, definition: ColumnElement[str], *where: ColumnElement[bool]
) -> dict[str, int]:
    stmt = select(definition, func.count()).where(*where).group_by(definition)
    return {row[0]: int(row[1]) for row in conn.execute(stmt) if row[0] is not None}


def definition_loads(conn: Connection) -> list[DefinitionLoad]:
    """Every key's latest version and every version with running instances, open incidents or
    open tasks, by key then newest version first."""
    e, i, t = ACT_RU_EXECUTION, ACT_RU_INCIDENT, ACT_RU_TASK
    running = _per_definition(conn, e.c.PROC_DEF_ID_, e.c.PARENT_ID_.is_(None))
    incidents = _per_definition(conn, i.c.PROC_DEF_ID_)
    tasks = _per_definition(conn, t.c.PROC_DEF_ID_)
    latest = (
        select(_D.c.KEY_, func.max(_D.c.VERSION_).label("VERSION_"))
        .group_by(_D.c.KEY_)
        .subquery("LATEST")
    )
    is_latest = and_(_D.c.KEY_ == latest.c.KEY_, _D.c.VERSION_ == latest.c.VERSION_)
    busy = set(running) | set(incidents) | set(tasks)
    stmt = select(_D.c.ID_, _D.c.KEY_, _D.c.NAME_, _D.c.VERSION_).select_from(
        _D.outerjoin(latest, is_latest)
    )
    shown = latest.c.KEY_.is_not(None)
    stmt = stmt.where(or_(shown, _D.c.ID_.in_(sorted(busy))) if busy else shown)
    stmt = stmt.order_by(_D.c.KEY_, _D.c.VERSION_.desc())
    return [
        DefinitionLoad(
            id=row.ID_,
            key=row.KEY_,
            name=row.NAME_,
            version=int(row.VERSION_),
            running_instances=running.get(row.ID_, 0),
            open_incidents=incidents.get(row.ID_, 0),
            open_tasks=tasks.get(row.ID_, 0),
        )
        for row in conn.execute(stmt)
    ]


def failures_since(conn: Connection, since: datetime) -> list[RecentFailure]:
    """The incidents created at or after `since` (ACT_HI_INCIDENT, history level full), newest
    first, at most RECENT_FAILURES of them."""
    h = ACT_HI_INCIDENT
    stmt = (
        select(
            h.c.CREATE_TIME_,
            h.c.PROC_INST_ID_,
            h.c.PROC_DEF_ID_,
            h.c.ACTIVITY_ID_,
            h.c.INCIDENT_TYPE_,
            h.c.INCIDENT_MSG_,
        )
        .where(h.c.CREATE_TIME_ >= naive_utc(since))
        .order_by(h.c.CREATE_TIME_.desc(), h.c.ID_.desc())
        .limit(RECENT_FAILURES)
    )
    return [
        RecentFailure(
            time=utc(row[0]) or row[0],
            process_instance_id=row[1],
            process_definition_id=row[2],
            activity_id=row[3],
            incident_type=row[4],
            message=row[5],
        )
        for row in conn.execute(stmt)
    ]
