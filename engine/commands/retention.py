"""What history cleanup may remove now: the finished instances, and the decisions evaluated over
the API, whose REMOVAL_TIME_ passed."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.engine import Connection

from flowledger.projections.queries.filters import naive_utc
from flowledger.projections.tables import ACT_HI_DECINST, ACT_HI_PROCINST


def expired_instances(conn: Connection, now: datetime, limit: int) -> list[str]:
    """Up to `limit` instance ids whose removal time is at or before `now`, oldest first."""
    t = ACT_HI_PROCINST.c
    rows = conn.execute(
        select(t.PROC_INST_ID_)
        .where(t.REMOVAL_TIME_.is_not(None), t.REMOVAL_TIME_ <= naive_utc(now))
        .order_by(t.REMOVAL_TIME_, t.PROC_INST_ID_)
        .limit(limit)
    )
    return [r[0] for r in rows]


def expired_decisions(conn: Connection, now: datetime, limit: int) -> list[str]:
    """Up to `limit` evaluated decisions' instance ids (roots of evaluations over the API: an
    instance's go with its history) whose removal time is at or before `now`, oldest first."""
    t = ACT_HI_DECINST.c
    rows = conn.execute(
        select(t.ID_)
        .where(
            t.REMOVAL_TIME_.is_not(None),
            t.REMOVAL_TIME_ <= naive_utc(now),
            t.ROOT_DEC_INST_ID_.is_(None),
            t.PROC_INST_ID_.is_(None),
        )
        .order_by(t.REMOVAL_TIME_, t.ID_)
        .limit(limit)
    )
    return [r[0] for r in rows]
