"""Workers that keep asynchronous history close behind the log.

`HistoryProcess` runs the follower in a child process (`python -m core.history_worker`, the
database URL in its environment), so
projecting history takes its own core instead of the command path's interpreter lock; the child
stops when its stdin closes, which also happens when the parent dies. `HistoryThread` does the
same in-process, for in-memory SQLite that no other process can open. Neither dies of an error:
it is logged and the batch retried (the checkpoint did not move).
"""

from __future__ import annotations

import logging
import os
import select
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime

log = logging.getLogger("flowledger.history")

INTERVAL = 0.25  # seconds between catch-ups: history stays well within a second of the log
URL_VARIABLE = "FLOWLEDGER_HISTORY_DB"
BATCH_EVENTS = 5_000  # events per write transaction: short holds of SQLite's one write lock


class HistoryThread:
    def __init__(self, step: Callable[[], int], interval: float = INTERVAL) -> None:
        self._step = step
        self._interval = interval
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="flowledger-history", daemon=True)
        self.error: BaseException | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(self._interval)
            self._wake.clear()
            try:
                while not self._stopping.is_set() and self._step() > 0:
                    pass
                self.error = None
            except Exception as exc:
                self.error = exc
                log.exception("history projection failed; retrying")


class HistoryProcess:
    def __init__(self, url: str, history_level: str, sqlite_synchronous: str) -> None:
        self._args = [url, history_level, sqlite_synchronous]
        self._child: subprocess.Popen[bytes] | None = None
        self.error: BaseException | None = None  # the child logs its own errors

    def start(self) -> None:
        url, history_level, sqlite_synchronous = self._args
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        # The URL may hold a password: the environment is private to the user, argv is not.
        env[URL_VARIABLE] = url
        self._child = subprocess.Popen(
            [sys.executable, "-m", "core.history_worker", history_level, sqlite_synchronous],
            stdin=subprocess.PIPE,
            env=env,
        )

    def stop(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        if child.poll() is not None:
            # It ended before it was told to: the parent's flush projects what it left.
            log.error("the history follower process exited early (status %s)", child.returncode)
        assert child.stdin is not None
        child.stdin.close()
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def follow(
    url: str, history_level: str, sqlite_synchronous: str, stopped: Callable[[float], bool]
) -> None:
    """Project history from the log until `stopped(wait)` says so (it may wait up to `wait`
    seconds for the answer); one transaction per batch."""
    from eventlog import EventStore
    from projections.changes import SqlRowStore
    from projections.follower import HistoryFollower
    from projections.history import HistoryProjector

    from . import events as ev
    from .database import create_database

    db = create_database(url, sqlite_synchronous)
    store = EventStore(db.dialect.name)
    follower = HistoryFollower(
        store, ev.make_codec(), HistoryProjector(history_level), SqlRowStore()
    )
    try:
        while not stopped(INTERVAL):
            try:
                while not stopped(0):
                    with db.connect() as conn, conn.begin():
                        batch = follower.prepare(conn, BATCH_EVENTS)
                    if batch is None:
                        break
                    writer = db.connect().execution_options(flowledger_write=True)
                    with writer as conn, conn.begin():
                        follower.write(conn, batch, datetime.now(UTC))
            except Exception:
                log.exception("history projection failed; retrying")
    finally:
        db.dispose()


def _stdin_closed(timeout: float) -> bool:
    """Wait up to `timeout` for the parent to close our stdin; True once it has."""
    readable, _, _ = select.select([sys.stdin.buffer], [], [], timeout)
    return bool(readable) and not os.read(sys.stdin.fileno(), 1)


def main(argv: list[str]) -> None:
    history_level, sqlite_synchronous = argv
    url = os.environ[URL_VARIABLE]
    logging.basicConfig(level=logging.WARNING, format="flowledger history: %(message)s")
    follow(url, history_level, sqlite_synchronous, _stdin_closed)


if __name__ == "__main__":
    main(sys.argv[1:])
