"""The engine's connections to its database and the lock that serialises its commands.

One writer and one decider connection are kept open for the engine's serialised commands; reads
take a pooled connection. Opens no tables and runs no statements of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.exc import DBAPIError


class Connections:
    """Write, decide and read transactions on one database, under one re-entrant lock."""

    def __init__(self, db: SqlEngine, memory: bool) -> None:
        self.db = db
        self.memory = memory
        self.lock = threading.RLock()
        self._writer: Connection | None = None
        self._decider: Connection | None = None

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction on the engine's one writer connection.

        Writes are serialised by the engine lock anyway, so one connection kept open spares
        every command a pool checkout, its reset and its return."""
        with self.lock:
            conn = self._writer
            if conn is None or conn.closed or conn.invalidated:
                conn = self.db.connect().execution_options(flowledger_write=True)
                self._writer = conn
            try:
                with conn.begin():
                    yield conn
            except DBAPIError as exc:
                if exc.connection_invalidated:
                    self._writer = None
                raise

    @contextmanager
    def read(self) -> Iterator[Connection]:
        if self.memory:
            # In-memory SQLite is one connection for everyone: a read must not run inside (and
            # on return roll back) a command's or the history thread's transaction.
            with self.lock, self.db.connect() as conn:
                yield conn
            return
        with self.db.connect() as conn:
            yield conn

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A read transaction for deciding a command: one consistent view, no write lock.

        Like the writer, one connection kept open for the engine's serialised commands."""
        with self.lock:
            conn = self._decider
            if conn is None or conn.closed or conn.invalidated:
                conn = self._decider = self.db.connect()
            try:
                with conn.begin():
                    yield conn
            except DBAPIError as exc:
                if exc.connection_invalidated:
                    self._decider = None
                raise

    def close(self) -> None:
        """Close the kept connections and release the pool."""
        with self.lock:
            for conn in (self._writer, self._decider):
                if conn is not None:
                    conn.close()
            self._writer = self._decider = None
        self.db.dispose()
