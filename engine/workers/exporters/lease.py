"""One exporter of a name per database: two engine processes that both run `--export NAME=…`
send each event once between them, not twice.

On PostgreSQL and MariaDB the lease is the followers' (`follower_lease`: a lock the database
drops with the holder's session). On a SQLite file it is an exclusive `flock` on a file beside
the database, which the operating system drops when the holder's process dies. In-memory SQLite
is one process: always held.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sqlalchemy.engine import Engine as SqlEngine

from flowledger.engine.storage.database import sqlite_file
from flowledger.engine.workers.follower_lease import FollowerLease

try:
    import fcntl
except ImportError:  # Windows: no flock; one exporter process per SQLite file is the operator's
    fcntl = None  # type: ignore[assignment]


class ExporterLease:
    def __init__(self, db: SqlEngine, name: str) -> None:
        self._server = (
            None if db.dialect.name == "sqlite" else FollowerLease(db, f"exporter:{name}")
        )
        database = sqlite_file(str(db.url)) if db.dialect.name == "sqlite" else None
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        self._path = None if database is None else Path(f"{database}.exporter-{safe}.lock")
        self._fd: int | None = None

    def take(self) -> bool:
        """Try once, without waiting; True when this process holds the lease now."""
        if self._server is not None:
            return self._server.take()
        if self._path is None or fcntl is None or self._fd is not None:
            return True
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def still_held(self) -> bool:
        if self._server is not None:
            return self._server.still_held()
        return self._path is None or fcntl is None or self._fd is not None

    def release(self) -> None:
        if self._server is not None:
            self._server.release()
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor drops the flock
