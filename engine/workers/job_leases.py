"""Leases on ACT_RU_JOB rows: which executor is running a job right now, and until when.

A lease is operational, not history: it lives only in LOCK_OWNER_ and LOCK_EXP_TIME_, which no
event records and replay comparisons ignore; a projected write of the row (a failure, new
retries) clears it. Acquisition takes due jobs that nobody holds or whose lease expired:
PostgreSQL and MariaDB skip rows other executors are locking at the same moment (`FOR UPDATE
SKIP LOCKED`); SQLite, with its one writer, sets each lease by compare-and-set.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import and_, exists, false, or_, select, true, update
from sqlalchemy.engine import Connection

from flowledger.engine import lookups
from flowledger.projections.tables import ACT_RU_JOB


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None)


def acquire(
    conn: Connection,
    owner: str,
    now: datetime,
    until: datetime,
    limit: int,
    *,
    by_priority: bool = False,
) -> list[str]:
    """Lease up to `limit` due jobs to `owner` until `until`: their ids, in due order (highest
    `PRIORITY_` first when `by_priority`, Camunda's jobExecutorAcquireByPriority).

    An exclusive job is left while another exclusive job of its instance is leased (Camunda's
    rule: the jobs of one instance never run at once), and one batch takes at most one
    exclusive job per instance."""
    j = ACT_RU_JOB
    held = ACT_RU_JOB.alias("held")
    at = _naive(now)
    busy_instance = exists(
        select(held.c.ID_).where(
            held.c.PROCESS_INSTANCE_ID_ == j.c.PROCESS_INSTANCE_ID_,
            held.c.EXCLUSIVE_ == true(),
            held.c.LOCK_OWNER_.is_not(None),
            held.c.LOCK_EXP_TIME_ >= at,
        )
    )
    candidates = (
        select(j.c.ID_, j.c.PROCESS_INSTANCE_ID_, j.c.EXCLUSIVE_)
        .where(
            *lookups.runnable(at),
            or_(j.c.LOCK_OWNER_.is_(None), j.c.LOCK_EXP_TIME_ < at),
            or_(j.c.EXCLUSIVE_ == false(), j.c.EXCLUSIVE_.is_(None), ~busy_instance),
        )
        .order_by(*([j.c.PRIORITY_.desc()] if by_priority else []), *lookups.due_order())
        .limit(limit * 2)
    )
    server = conn.dialect.name != "sqlite"
    if server:
        candidates = candidates.with_for_update(skip_locked=True)
    chosen: list[str] = []
    instances: set[str] = set()
    for job_id, instance_id, exclusive in conn.execute(candidates):
        if len(chosen) >= limit:
            break
        if exclusive is not False and instance_id is not None:
            if instance_id in instances:
                continue
            instances.add(instance_id)
        chosen.append(job_id)
    if not chosen:
        return []
    lease = {"LOCK_OWNER_": owner, "LOCK_EXP_TIME_": _naive(until)}
    if server:
        # The rows are ours until commit: nobody else saw them past SKIP LOCKED.
        conn.execute(update(j).where(j.c.ID_.in_(chosen)).values(**lease))
        return chosen
    taken: list[str] = []
    for job_id in chosen:
        free = or_(j.c.LOCK_OWNER_.is_(None), j.c.LOCK_EXP_TIME_ < at)
        result = conn.execute(update(j).where(and_(j.c.ID_ == job_id, free)).values(**lease))
        if result.rowcount == 1:
            taken.append(job_id)
    return taken


def release(conn: Connection, owner: str, job_ids: Sequence[str]) -> None:
    """Give back leases not used (shutdown): the jobs are due again for any executor."""
    if not job_ids:
        return
    j = ACT_RU_JOB
    conn.execute(
        update(j)
        .where(j.c.ID_.in_(list(job_ids)), j.c.LOCK_OWNER_ == owner)
        .values(LOCK_OWNER_=None, LOCK_EXP_TIME_=None)
    )


def next_due(conn: Connection) -> datetime | None:
    """When the earliest job with retries falls due (UTC), to sleep no longer than that."""
    j = ACT_RU_JOB
    found = conn.execute(
        select(j.c.DUEDATE_)
        .where(j.c.RETRIES_ > 0, j.c.DUEDATE_.is_not(None), j.c.SUSPENSION_STATE_ == 1)
        .order_by(j.c.DUEDATE_)
        .limit(1)
    ).scalar()
    return None if found is None else found.replace(tzinfo=UTC)
