"""The follower's own program, run in a child process by `history_worker.HistoryProcess` (`python
-m flowledger.engine.workers.follower_process`, the database URL in its environment): it takes the
database's follower lease (`follower_lease`; standing by while another process holds it), then
projects batch after batch from the log — history (`kind` history) or every deferred row (`kind`
deferred) — until its stdin closes, which also happens when its parent dies. A byte on its stdin
wakes it; the deferred follower reports each checkpoint it reaches on its stdout.
"""

from __future__ import annotations

import logging
import os
import select
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from sqlalchemy.engine import Connection

from flowledger.engine.workers.follower_lease import STANDBY_RETRY, FollowerLease
from flowledger.engine.workers.history_worker import (
    DEFERRED_INTERVAL,
    DEFERRED_RETRY_STEP,
    FAILED_EXIT,
    HEARTBEAT,
    INTERVAL,
    LEASE_LOST_EXIT,
    PASSING,
    STANDBY,
    URL_VARIABLE,
    Backoff,
    HistoryRunner,
)
from flowledger.projections.follower import HistoryFollower, HistoryStopped

log = logging.getLogger("flowledger.history")


def follow(
    url: str,
    history_level: str,
    sqlite_synchronous: str,
    stopped: Callable[[float], bool],
    kind: str = "history",
    report: Callable[[int], None] | None = None,
) -> int:
    """Project history (`kind` history) or every deferred row (`kind` deferred) from the log
    until `stopped(wait)` says so (it may wait up to `wait` seconds for the answer); one
    transaction per batch, whose new checkpoint goes to `report`. Returns the exit status."""
    from flowledger.engine.lookups import deferred_table
    from flowledger.engine.personal_data.keys import SubjectKeys
    from flowledger.engine.personal_data.opening import Opener
    from flowledger.engine.storage.codec import make_codec
    from flowledger.engine.storage.database import create_database
    from flowledger.eventlog import EventStore
    from flowledger.projections.changes import SqlRowStore
    from flowledger.projections.deferred import DeferredFollower
    from flowledger.projections.history import HistoryProjector

    if kind == "deferred":
        from flowledger.engine.storage import database

        database.WRITE_RETRY_STEP = DEFERRED_RETRY_STEP
    db = create_database(url, sqlite_synchronous)
    store = EventStore(db.dialect.name)
    projector = HistoryProjector(history_level)
    codec = make_codec(Opener(SubjectKeys(db.connect)))
    follower = (
        DeferredFollower(store, codec, projector, SqlRowStore(), deferred_table)
        if kind == "deferred"
        else HistoryFollower(store, codec, projector, SqlRowStore())
    )

    @contextmanager
    def read() -> Iterator[Connection]:
        with db.connect() as conn, conn.begin():
            yield conn

    @contextmanager
    def write() -> Iterator[Connection]:
        with db.connect().execution_options(flowledger_write=True) as conn, conn.begin():
            yield conn

    runner = HistoryRunner(follower, read, write)
    lease = FollowerLease(db, kind)
    try:
        if not _take_lease(lease, stopped, report):
            return 0
        return _follow(runner, lease, kind, stopped, report)
    finally:
        lease.release()
        db.dispose()


def _take_lease(
    lease: FollowerLease, stopped: Callable[[float], bool], report: Callable[[int], None] | None
) -> bool:
    """Wait in standby until this process holds the lease (False: told to stop first)."""
    announced = False
    while True:
        try:
            if lease.take():
                return True
            held_elsewhere = True
        except PASSING as exc:
            log.warning("cannot ask for the follower lease, trying again: %s", exc)
            held_elsewhere = False
        if held_elsewhere and not announced:
            log.info("another process follows the log of this database: standing by")
            if report is not None:
                report(STANDBY)
            announced = True
        if stopped(STANDBY_RETRY):
            return False


def _follow(
    runner: HistoryRunner,
    lease: FollowerLease,
    kind: str,
    stopped: Callable[[float], bool],
    report: Callable[[int], None] | None,
) -> int:
    if report is not None:
        report(0)  # ready: readers may wait for this process from now on
    # The deferred follower comes round more often: reads wait for it (they wake it), and the
    # lag stays far below 100 ms; its batches still gather the commits of 20 ms.
    interval = DEFERRED_INTERVAL if kind == "deferred" else INTERVAL
    backoff = Backoff()
    wait = interval
    checked = time.monotonic()
    while not stopped(wait):
        try:
            while not stopped(0) and runner.step() > 0:
                if report is not None:
                    report(runner.position)
            runner.heartbeat()
        except HistoryStopped as failure:
            log.error("history projection stopped: %s", failure)
            return FAILED_EXIT
        except Exception as exc:
            wait = backoff.take()
            log.warning("history projection failed, retrying in %.0f s: %s", wait, exc)
            continue
        if time.monotonic() - checked > HEARTBEAT:
            checked = time.monotonic()
            if not lease.still_held():
                # Another process may follow by now: exit; the supervisor starts a standby.
                log.warning("the follower lost its connection and with it its lease: restarting")
                return LEASE_LOST_EXIT
        backoff.reset()
        wait = interval
    return 0


def _stdin_closed(timeout: float) -> bool:
    """Wait up to `timeout` for the parent to wake us (a byte on stdin: commits are waiting) or
    to close our stdin; True once it has closed it."""
    readable, _, _ = select.select([sys.stdin.buffer], [], [], timeout)
    return bool(readable) and not os.read(sys.stdin.fileno(), 4096)


def main(argv: list[str]) -> int:
    # Started by the engine (HistoryProcess), never by hand: say so rather than fail obscurely.
    if len(argv) not in (2, 3) or URL_VARIABLE not in os.environ:
        print(
            "the history follower is started by the engine (Engine(history_mode='async')), "
            f"with a history level, a SQLite synchronous mode and ${URL_VARIABLE}",
            file=sys.stderr,
        )
        return 2
    history_level, sqlite_synchronous, *rest = argv
    kind = rest[0] if rest else "history"
    url = os.environ[URL_VARIABLE]
    logging.basicConfig(level=logging.WARNING, format=f"flowledger {kind}: %(message)s")
    report = _report if kind == "deferred" else None  # only its parent reads our stdout
    return follow(url, history_level, sqlite_synchronous, _stdin_closed, kind, report)


def _report(position: int) -> None:
    """Tell the parent the checkpoint a batch reached (it wakes the reads waiting for it)."""
    with suppress(BrokenPipeError):  # the parent is gone: our stdin closing stops us next
        os.write(sys.stdout.fileno(), b"%d\n" % position)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
