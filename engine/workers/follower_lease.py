"""One follower per database and kind: a lease that the database itself hands out and takes back.

On PostgreSQL the lease is a session-level advisory lock, on MariaDB/MySQL a named lock
(`GET_LOCK`); both belong to the follower's own connection, so the database releases them the
moment the holder's process dies or its connection drops, and a standby follower of another
engine process takes over at its next try. Other engines' followers wait in standby instead of
projecting the same batches (the checkpoint's compare-and-set would keep them correct, but each
would do the whole work and all but one would throw it away). The lock's name carries the schema
(PostgreSQL) or database (MariaDB) and the follower's kind, so followers of different schemas on
one server never hold each other up. SQLite has no lease: engines on one file are one machine's
processes, and each follows (the compare-and-set keeps them apart).
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine as SqlEngine

# Seconds between a standby follower's tries to take the lease over.
STANDBY_RETRY = 1.0


class FollowerLease:
    """The right to follow the log as the `kind` follower of one database (or schema)."""

    def __init__(self, db: SqlEngine, kind: str) -> None:
        self._db = db
        self._kind = kind
        self._conn: Connection | None = None

    @property
    def held(self) -> bool:
        return self._conn is not None

    def take(self) -> bool:
        """Try once, without waiting; True when this follower holds the lease now."""
        if self._conn is not None:
            return True
        dialect = self._db.dialect.name
        if dialect == "sqlite":
            self._conn = self._db.connect()
            return True
        conn = self._db.connect()
        try:
            if dialect == "postgresql":
                statement = text(
                    "SELECT pg_try_advisory_lock(hashtext('flowledger follower ' || :kind || "
                    "' ' || current_schema()))"
                )
            else:
                # GET_LOCK names are at most 64 characters: the database name is cut, not hashed,
                # so operators can read it in performance_schema.metadata_locks.
                statement = text(
                    "SELECT GET_LOCK(LEFT(CONCAT('flowledger follower ', :kind, ' ', "
                    "COALESCE(DATABASE(), '')), 64), 0)"
                )
            taken = bool(conn.execute(statement, {"kind": self._kind}).scalar())
            conn.commit()  # the lock is the session's; no transaction stays open beside it
        except BaseException:
            conn.close()
            raise
        if not taken:
            conn.close()
            return False
        self._conn = conn
        return True

    def still_held(self) -> bool:
        """Whether the lease's connection is still alive (the database keeps the lock only as
        long as it). A follower that lost it must stop: another may hold it by now."""
        conn = self._conn
        if conn is None:
            return False
        if self._db.dialect.name == "sqlite":
            return True
        try:
            conn.execute(text("SELECT 1")).scalar()
            conn.commit()
        except Exception:
            self.release()
            return False
        return True

    def release(self) -> None:
        """Give the lease back: the connection is closed, not returned to the pool (the lock
        lives as long as the database session does)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            if self._db.dialect.name != "sqlite":
                conn.invalidate()
            conn.close()
