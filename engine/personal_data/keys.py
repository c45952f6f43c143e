"""The key table (`subject_key`): the key a command seals an instance's personal values with,
and the keys the log's sealed values open with, held briefly in memory.

Must not: keep a key in memory beyond one read — a key destroyed by any engine process on the
database opens nothing from then on.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from flowledger.engine.storage.connections import current_connection
from flowledger.eventlog.tables import subject_key

from .cipher import new_key


class SubjectKeys:
    """Keys by subject and stream (to seal) and by id (to open)."""

    def __init__(self, connect: Callable[[], AbstractContextManager[Connection]]) -> None:
        # A connection of its own, for a reader outside any of the engine's transactions.
        self._connect = connect

    def active(
        self, conn: Connection | None, subject: str, stream_id: str
    ) -> tuple[str, bytes] | None:
        """The key the stream's values of `subject` are sealed with now, if it has one; read on
        `conn` while its transaction is open, else on a connection of its own."""
        if conn is None or conn.closed or not conn.in_transaction():
            with self._connect() as own:
                return self._active(own, subject, stream_id)
        return self._active(conn, subject, stream_id)

    @staticmethod
    def _active(conn: Connection, subject: str, stream_id: str) -> tuple[str, bytes] | None:
        row = conn.execute(
            select(subject_key.c.key_id, subject_key.c.key_material)
            .where(subject_key.c.stream_id == stream_id, subject_key.c.subject == subject)
            .where(subject_key.c.key_material.is_not(None))
            .limit(1)
        ).first()
        return None if row is None else (row.key_id, bytes(row.key_material))

    @staticmethod
    def created(
        subject: str, stream_id: str, now: datetime
    ) -> tuple[str, bytes, dict[str, object]]:
        """A new key: its id, its bytes and its row, written with the command that first uses it
        (a command that fails leaves no key behind)."""
        key_id, key = str(uuid.uuid4()), new_key()
        row = {
            "key_id": key_id,
            "subject": subject,
            "stream_id": stream_id,
            "key_material": key,
            "created_at": now,
        }
        return key_id, key, row

    @staticmethod
    def write(conn: Connection, rows: list[dict[str, object]]) -> None:
        if rows:
            conn.execute(insert(subject_key), rows)

    def keys(self, key_ids: Iterable[str]) -> dict[str, bytes | None]:
        """Each key's bytes, read now; None for a key destroyed (or never written). Not cached:
        a key another engine process destroyed a moment ago must not open anything here."""
        return self._read(sorted(set(key_ids)))

    def _read(self, key_ids: list[str]) -> dict[str, bytes | None]:
        query = select(subject_key.c.key_id, subject_key.c.key_material).where(
            subject_key.c.key_id.in_(key_ids)
        )
        conn = current_connection()
        if conn is not None and not conn.closed:
            # Leave the connection as it was: a caller may begin its own transaction next.
            began = not conn.in_transaction()
            rows = conn.execute(query).all()
            if began:
                conn.rollback()
        else:
            with self._connect() as own:
                rows = own.execute(query).all()
        return {r.key_id: None if r.key_material is None else bytes(r.key_material) for r in rows}
