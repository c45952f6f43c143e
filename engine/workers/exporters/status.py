"""What `flowledger exporters status` shows: every exporter's stored position in the database
(`projection_checkpoint` rows named `exporter:<name>`), its lag behind the log's head, its
status and when it was last updated. Read from the database alone, so it answers for any
server's exporters, running or not.

Must not: write anything.
"""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
from sqlalchemy import select
from sqlalchemy.engine import Connection

from flowledger.eventlog import EventStore
from flowledger.eventlog.tables import projection_checkpoint

from .runner import CHECKPOINT_PREFIX


class ExporterStatus(msgspec.Struct, frozen=True):
    name: str
    position: int
    lag: int
    status: str  # following | failing
    updated: datetime
    detail: str | None


def stored(conn: Connection, store: EventStore) -> list[ExporterStatus]:
    """Every exporter's checkpoint, by name."""
    head = store.head_position(conn)
    c = projection_checkpoint.c
    rows = conn.execute(
        select(c.name, c.position, c.status, c.updated_at, c.detail)
        .where(c.name.like(CHECKPOINT_PREFIX + "%"))
        .order_by(c.name)
    )
    out = []
    for name, position, status, updated, detail in rows:
        when = updated if updated.tzinfo is not None else updated.replace(tzinfo=UTC)
        out.append(
            ExporterStatus(
                name=str(name).removeprefix(CHECKPOINT_PREFIX),
                position=int(position),
                lag=max(0, head - int(position)),
                status=str(status),
                updated=when,
                detail=detail,
            )
        )
    return out
