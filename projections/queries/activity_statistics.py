"""A definition's history per activity, aggregated in SQL: Camunda's historic activity statistics
(ACT_HI_ACTINST and ACT_HI_INCIDENT, behind `GET /history/process-definition/{id}/statistics`)
and how long each activity took (ACT_HI_ACTINST.DURATION_, flowledger's extension). Reads only.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

import msgspec
from sqlalchemy import Select, case, func, or_, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql.elements import ColumnElement

from ..tables import ACT_HI_ACTINST, ACT_HI_INCIDENT, ACT_HI_PROCINST
from ..tables.history import INCIDENT_DELETED, INCIDENT_OPEN, INCIDENT_RESOLVED
from .filters import naive_utc

_A, _I, _P = ACT_HI_ACTINST, ACT_HI_INCIDENT, ACT_HI_PROCINST
# ACT_HI_ACTINST.ACT_INST_STATE_ (projections.history): completed its scope, canceled
_SCOPE_COMPLETE, _CANCELED = 1, 2
_R = TypeVar("_R", bound=tuple[Any, ...])


class ActivityStatisticsQuery(msgspec.Struct, frozen=True):
    """Camunda's HistoricActivityStatisticsQuery: what to count beside the running instances,
    and which instances (by their start and end, or their ids) count."""

    canceled: bool = False
    finished: bool = False
    complete_scope: bool = False
    incidents: bool = False
    started_after: datetime | None = None
    started_before: datetime | None = None
    finished_after: datetime | None = None
    finished_before: datetime | None = None
    process_instance_ids: Sequence[str] | None = None


class HistoricActivityStatistics(msgspec.Struct):
    """Camunda's HistoricActivityStatistics of one activity (counts not asked for stay 0)."""

    id: str
    instances: int = 0
    canceled: int = 0
    finished: int = 0
    complete_scope: int = 0
    open_incidents: int = 0
    resolved_incidents: int = 0
    deleted_incidents: int = 0


class ActivityDuration(msgspec.Struct, frozen=True):
    """How often an activity ran and, of its finished runs, how long they took."""

    activity_id: str
    count: int
    finished: int
    avg_millis: float | None
    min_millis: int | None
    max_millis: int | None


def _count(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return func.sum(case((condition, 1), else_=0))


def _instances(
    stmt: Select[_R], instance: ColumnElement[str], q: ActivityStatisticsQuery
) -> Select[_R]:
    """The instance filters of Camunda's applyStatisticsFilters and processInstanceIdIn."""
    dated = (q.started_after, q.started_before, q.finished_after, q.finished_before)
    if any(d is not None for d in dated):
        stmt = stmt.join(_P, _P.c.ID_ == instance)
        if q.started_before is not None:
            stmt = stmt.where(_P.c.START_TIME_ <= naive_utc(q.started_before))
        if q.started_after is not None:
            stmt = stmt.where(_P.c.START_TIME_ >= naive_utc(q.started_after))
        if q.finished_before is not None:
            stmt = stmt.where(_P.c.END_TIME_ <= naive_utc(q.finished_before))
        if q.finished_after is not None:
            stmt = stmt.where(_P.c.END_TIME_ >= naive_utc(q.finished_after))
    if q.process_instance_ids is not None:
        stmt = stmt.where(instance.in_(list(q.process_instance_ids)))
    return stmt


def historic_activity_statistics(
    conn: Connection, definition_id: str, q: ActivityStatisticsQuery, *, descending: bool = False
) -> list[HistoricActivityStatistics]:
    """Per activity of the definition: its running instances, and as asked its finished,
    canceled and scope-completing ones and its open, resolved and deleted incidents, ordered by
    activity id. As Camunda's SQL: without `finished`, only running activity instances (and
    canceled or scope-completing ones when asked) are counted, so an activity none of whose
    instances count is left out."""
    stmt = select(
        _A.c.ACT_ID_,
        _count(_A.c.END_TIME_.is_(None)),
        _count(_A.c.END_TIME_.is_not(None)),
        _count(_A.c.ACT_INST_STATE_ == _CANCELED),
        _count(_A.c.ACT_INST_STATE_ == _SCOPE_COMPLETE),
    ).where(_A.c.PROC_DEF_ID_ == definition_id)
    if not q.finished:
        counted: list[ColumnElement[bool]] = [_A.c.END_TIME_.is_(None)]
        if q.canceled:
            counted.append(_A.c.ACT_INST_STATE_ == _CANCELED)
        if q.complete_scope:
            counted.append(_A.c.ACT_INST_STATE_ == _SCOPE_COMPLETE)
        stmt = stmt.where(or_(*counted))
    stmt = _instances(stmt, _A.c.PROC_INST_ID_, q).group_by(_A.c.ACT_ID_)
    found: dict[str, HistoricActivityStatistics] = {}
    for activity, running, finished, canceled, scope in conn.execute(stmt):
        found[activity] = HistoricActivityStatistics(
            id=activity,
            instances=int(running or 0),
            finished=int(finished or 0) if q.finished else 0,
            canceled=int(canceled or 0) if q.canceled else 0,
            complete_scope=int(scope or 0) if q.complete_scope else 0,
        )
    if q.incidents:
        incidents = select(
            _I.c.ACTIVITY_ID_,
            _count(_I.c.INCIDENT_STATE_ == INCIDENT_OPEN),
            _count(_I.c.INCIDENT_STATE_ == INCIDENT_RESOLVED),
            _count(_I.c.INCIDENT_STATE_ == INCIDENT_DELETED),
        ).where(_I.c.PROC_DEF_ID_ == definition_id)
        incidents = _instances(incidents, _I.c.PROC_INST_ID_, q).group_by(_I.c.ACTIVITY_ID_)
        for activity, open_, resolved, deleted in conn.execute(incidents):
            stats = found.setdefault(activity, HistoricActivityStatistics(id=activity))
            stats.open_incidents = int(open_ or 0)
            stats.resolved_incidents = int(resolved or 0)
            stats.deleted_incidents = int(deleted or 0)
    return sorted(found.values(), key=lambda s: s.id, reverse=descending)


def activity_durations(conn: Connection, definition_id: str) -> list[ActivityDuration]:
    """Per activity of the definition: how many instances of it ran, how many finished, and
    the average, shortest and longest duration (milliseconds) of the finished ones."""
    stmt = (
        select(
            _A.c.ACT_ID_,
            func.count(),
            func.count(_A.c.END_TIME_),
            func.avg(_A.c.DURATION_),
            func.min(_A.c.DURATION_),
            func.max(_A.c.DURATION_),
        )
        .where(_A.c.PROC_DEF_ID_ == definition_id)
        .group_by(_A.c.ACT_ID_)
        .order_by(_A.c.ACT_ID_)
    )
    return [
        ActivityDuration(
            activity_id=activity,
            count=int(count),
            finished=int(finished),
            avg_millis=None if avg is None else round(float(avg), 3),
            min_millis=None if low is None else int(low),
            max_millis=None if high is None else int(high),
        )
        for activity, count, finished, avg, low, high in conn.execute(stmt)
    ]
