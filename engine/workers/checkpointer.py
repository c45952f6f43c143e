"""WAL checkpoints of a SQLite database in a background thread, off the commands' commit path.

SQLite folds its write-ahead log into the database file when a commit finds the log over 1,000
pages: that commit then copies and syncs the pages, and pays for it (about a fifth of a
usertask_gateway instance's time). The engine's own connections turn that off (create_database's
`autocheckpoint=False`) and this thread does the same PASSIVE checkpoint on its own connection,
a few times a second while commands commit. PASSIVE never waits for readers or writers, so
neither waits for it. Other processes on the file (the history follower, a CLI) keep SQLite's
automatic checkpoints, and so do engines with synchronous=FULL or EXTRA, where a commit's own
sync dominates and a checkpoint beside it slows the commits down.

The thread also checkpoints once a second without being told: rebuilds and migrations write
outside the command path. A checkpoint that fails is logged and retried at the next round; if
the thread cannot open its connection or stops, the engine's connections checkpoint themselves
again (`Checkpointer.running` turns false, `create_database`'s hook reads it), so the log never
grows without bound.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

log = logging.getLogger("flowledger.checkpoint")

INTERVAL = 0.2  # seconds between checkpoints while commands commit
IDLE_ROUND = 1.0  # seconds between checkpoints otherwise (rebuilds and other writers commit too)
FAILURES_LOGGED = 5  # consecutive failures logged one by one; then one line per hundred


class Checkpointer:
    """Runs `PRAGMA wal_checkpoint(PASSIVE)` on `path` after commits, at most every INTERVAL."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._dirty = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.running = False
        self.checkpoints = 0
        self.failures = 0

    def start(self) -> bool:
        """Open the connection and start the thread; False (logged) when it cannot."""
        try:
            connection = sqlite3.connect(self._path, check_same_thread=False)
        except sqlite3.Error as exc:
            log.warning(
                "WAL checkpoints stay with each commit: cannot open %s: %s", self._path, exc
            )
            return False
        self.running = True
        self._thread = threading.Thread(
            target=self._run, args=(connection,), name="flowledger-checkpoint", daemon=True
        )
        self._thread.start()
        return True

    def committed(self) -> None:
        """A commit added pages to the log (an engine commit listener)."""
        self._dirty.set()

    def stop(self) -> None:
        self._stopping.set()
        self._dirty.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def _run(self, connection: sqlite3.Connection) -> None:
        try:
            while not self._stopping.is_set():
                self._dirty.wait(IDLE_ROUND)
                if self._stopping.wait(INTERVAL):
                    break
                self._dirty.clear()
                self._checkpoint(connection)
        except BaseException:
            log.exception("the WAL checkpoint thread stopped; commits checkpoint again")
        finally:
            self.running = False
            connection.close()

    def _checkpoint(self, connection: sqlite3.Connection) -> None:
        try:
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:
            self.failures += 1
            if self.failures <= FAILURES_LOGGED or self.failures % 100 == 0:
                log.warning("WAL checkpoint failed (%d so far), retried: %s", self.failures, exc)
            self._dirty.set()  # the pages are still in the log
            return
        self.checkpoints += 1
