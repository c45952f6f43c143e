"""The reads a bounded-memory check of the whole log needs besides the commits themselves: a
stream's last commit before a position (a chain link whose head the checker no longer keeps),
the streams whose last commit and witness disagree (found by the database, not by holding every
stream's head), and the accepted commands from a position on (an incremental verify).

Reads only, each an indexed query or one statement; nothing here decodes events or writes.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import and_, exists, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import aliased

from .integrity import Mismatch
from .tables import command_log, event_log, stream_head


def predecessor(conn: Connection, stream_id: str, before_position: int) -> tuple[int, str] | None:
    """(last version, stored hash) of the stream's last commit before `before_position`."""
    e = event_log.c
    row = conn.execute(
        select(e.last_version, e.hash)
        .where(e.stream_id == stream_id, e.first_position < before_position)
        .order_by(e.first_version.desc())
        .limit(1)
    ).first()
    return None if row is None else (int(row[0]), str(row[1]))


def witness_mismatches(conn: Connection) -> Iterator[Mismatch]:
    """Every stream whose last commit is not what its witness names, and every witness of a
    stream with no commit: (stream id, last commit's (version, hash) or None, witness's or
    None). Two statements, each one read of a consistent state; only disagreements come back."""
    e, w = event_log.c, stream_head.c
    later = aliased(event_log)
    last = ~exists().where(
        later.c.stream_id == e.stream_id, later.c.first_version > e.first_version
    )
    rows = conn.execute(
        select(e.stream_id, e.last_version, e.hash, w.last_version, w.last_hash)
        .select_from(event_log.outerjoin(stream_head, w.stream_id == e.stream_id))
        .where(
            last,
            (w.stream_id.is_(None)) | (w.last_version != e.last_version) | (w.last_hash != e.hash),
        )
    )
    for stream_id, version, digest, w_version, w_hash in rows:
        witness = None if w_version is None else (int(w_version), str(w_hash))
        yield str(stream_id), (int(version), str(digest)), witness
    orphans = conn.execute(
        select(w.stream_id, w.last_version, w.last_hash).where(
            ~exists().where(e.stream_id == w.stream_id)
        )
    )
    for stream_id, version, digest in orphans:
        yield str(stream_id), None, (int(version), str(digest))


def accepted_commands(
    conn: Connection, after_position: int = 0, batch_size: int = 5000
) -> Iterator[tuple[str, str, str | None, int, int]]:
    """(command id, type, actor, first position, last position) of every accepted command that
    appended events after `after_position`, in position order, fetched in batches."""
    cursor = after_position
    c = command_log.c
    while True:
        rows = conn.execute(
            select(c.command_id, c.command_type, c.actor, c.first_position, c.last_position)
            .where(
                and_(
                    c.status == "accepted",
                    c.first_position.is_not(None),
                    c.first_position > cursor,
                )
            )
            .order_by(c.first_position)
            .limit(batch_size)
        ).all()
        if not rows:
            return
        for row in rows:
            cursor = int(row[3])
            yield str(row[0]), str(row[1]), row[2], int(row[3]), int(row[4])
