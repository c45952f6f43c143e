"""Opening a database for flowledger: SQLite pragmas (WAL, synchronous level, busy timeout) and
write transactions that take SQLite's lock up front; READ COMMITTED on PostgreSQL and MySQL.
"""

from __future__ import annotations

import sqlite3
import time
from typing import TYPE_CHECKING, Any

from sqlalchemy import create_engine, make_url
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.pool import StaticPool

if TYPE_CHECKING:
    from flowledger.engine.workers.checkpointer import Checkpointer


def is_memory_url(url: str) -> bool:
    return url in ("sqlite://", "sqlite:///:memory:") or "mode=memory" in url


WRITE_LOCK_TIMEOUT = 30.0  # seconds a writer waits for SQLite's write lock before giving up
# The longest sleep between a writer's tries for the write lock. The deferred follower process
# tries far more often (`follow`): the engine's commands hold the lock most of the time and free
# it for a fraction of a millisecond between groups, which a 2 ms step nearly always misses.
WRITE_RETRY_STEP = 0.002


def begin_immediate(dbapi_connection: Any) -> None:
    """BEGIN IMMEDIATE, waiting for the write lock in steps of at most 2 ms.

    SQLite's own busy handler sleeps 1, 2, 5, 10, 15, 20, 25... ms between tries; a command
    waiting behind the history follower's short batch would oversleep it many times over.
    """
    dbapi_connection.execute("PRAGMA busy_timeout=0")
    try:
        delay = min(0.0001, WRITE_RETRY_STEP)
        deadline: float | None = None
        while True:
            try:
                dbapi_connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                now = time.monotonic()
                deadline = deadline or now + WRITE_LOCK_TIMEOUT
                if now > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, WRITE_RETRY_STEP)
    finally:
        dbapi_connection.execute(f"PRAGMA busy_timeout={int(WRITE_LOCK_TIMEOUT * 1000)}")


AUTOCHECKPOINT_PAGES = 1000  # SQLite's default, restored when the checkpoint thread is gone


def sqlite_file(url: str) -> str | None:
    """The database file of a SQLite URL; None for other databases and in-memory SQLite."""
    if not url.startswith("sqlite") or is_memory_url(url):
        return None
    return make_url(url).database or None


def create_database(
    url: str, sqlite_synchronous: str = "NORMAL", checkpointer: Checkpointer | None = None
) -> SqlEngine:
    """`checkpointer`: a running WAL checkpoint thread on the same file; this engine's
    connections then leave checkpoints to it, and take them back when it stops."""
    if url.startswith("sqlite"):
        memory = is_memory_url(url)
        kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
        if memory:
            kwargs["poolclass"] = StaticPool
        db = create_engine(url, **kwargs)
        synchronous = sqlite_synchronous.upper()
        if synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(
                f"sqlite_synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous}"
            )

        @sa_event.listens_for(db, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            # Let SQLAlchemy's "begin" event issue BEGIN itself (pysqlite's own handling is off).
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA synchronous={synchronous}")
            cursor.execute(f"PRAGMA busy_timeout={int(WRITE_LOCK_TIMEOUT * 1000)}")
            # Group commit runs each command in a savepoint: the pages it changes are copied to a
            # statement journal, which SQLite spills to a temporary file past 64 KiB otherwise.
            cursor.execute("PRAGMA temp_store=MEMORY")
            # Deleted content is overwritten with zeros, so an erased key (and the plaintext rows
            # erasure empties) leave no bytes in free space (docs/design.md, "Erasure").
            cursor.execute("PRAGMA secure_delete=ON")
            if checkpointer is not None and checkpointer.running:
                cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.close()

        @sa_event.listens_for(db, "begin")
        def _on_begin(conn: Connection) -> None:
            # Commands take the write lock up front so readers never see half-assigned positions.
            dbapi_connection: Any = conn.connection.dbapi_connection
            if conn.get_execution_options().get("flowledger_write"):
                if checkpointer is not None and not checkpointer.running:
                    # the checkpoint thread is gone: commits fold the log in again, as SQLite's do
                    conn.exec_driver_sql(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
                begin_immediate(dbapi_connection)
            else:
                # On the DBAPI connection: SQLAlchemy's statement machinery (events, a result
                # object) cost a REST server's reads more than the BEGIN itself (py-spy).
                dbapi_connection.execute("BEGIN")

        return db
    if url.startswith(("postgresql", "mysql", "mariadb")):
        return create_engine(url, isolation_level="READ COMMITTED", pool_pre_ping=True)
    return create_engine(url)
