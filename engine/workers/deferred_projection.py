"""Where an engine's runtime and history rows are written: in each command (`inline`) or behind
the log in batches (`deferred`), and the guarantee that no reader can tell the difference.

In deferred mode a command computes and writes only the rows of the tables commands look up
(`lookups.KEPT_INLINE`); a follower (projections.deferred) writes every other row from the log.
It runs in a child process (the same worker as asynchronous history's, `kind` deferred), so
projecting takes the second core instead of the command path's interpreter lock. It comes round
every 20 ms and writes what committed meanwhile in one batch; a read that waits for it wakes it
(a byte on its stdin) and sleeps until the follower reports the position its batch reached (a
line on its stdout). It is started after the engine's first SPAWN_AFTER commits (a short-lived
engine never starts one: its reads and its close write the rows). For in-memory SQLite, which no
other process can open, it runs in a thread.

Every read transaction of the engine (`Connections.read`, which every service, the REST API, the
CLI and the cockpit go through) runs `barrier` first: one statement reads the log head and the
checkpoint; when the checkpoint is behind, the read waits for the follower to pass that head (it
wakes it), or, when no follower runs here, writes the missing tail itself — read-your-writes and
monotonic reads for every thread and process on the database, as the head compared with is the
database's. A read that cannot be served within READ_WAIT seconds raises ProjectionBehind
instead of answering from stale tables. A command whose handler looks up a deferred table (a
deployment's resources, a business-key correlation) writes the tail in its own transaction first.

The mode belongs to the database: the `deferred` checkpoint row exists exactly while it is
deferred. `Engine(projection=None)` adopts it; asking for the other mode converts the database
(to deferred: the checkpoint is created at the head, the inline tables being current; to inline:
the tail is written, then the checkpoint dropped, in one transaction). Every engine on one
database must run the same mode.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from sqlalchemy.engine import Connection

from flowledger.core import views
from flowledger.core.errors import InvalidValue, ProcessEngineError, ProjectionBehind
from flowledger.engine.storage.connections import Connections
from flowledger.engine.workers.history_lifecycle import wall_clock
from flowledger.engine.workers.history_worker import (
    PASSING,
    HistoryProcess,
    HistoryRunner,
    HistoryThread,
    run_to_end,
)
from flowledger.eventlog import EventStore
from flowledger.projections.deferred import CHECKPOINT, DeferredFollower
from flowledger.projections.follower import FAILED, ProjectionFailed

log = logging.getLogger("flowledger.projection")

# async-history: runtime rows in each command, history rows behind the log (`history_mode=
# "async"`, its older name, is an alias); deferred: both behind the log.
ASYNC_HISTORY = "async-history"
PROJECTION_MODES = ("inline", "deferred", ASYNC_HISTORY)
READ_WAIT = 2.0  # seconds a read may wait for the tables to reach the log before it refuses
# Seconds the engine's close gives the follower process to finish its batch before killing it:
# the close writes whatever is left itself, and a process still starting up would make it wait.
STOP_GRACE = 0.1
# Seconds a read waits for the follower process before writing the tail itself: it answers in a
# few milliseconds when running, and one just spawned is still importing for most of a second.
FOLLOWER_WAIT = 0.02
# ... for the follower of another engine process (this one's stands by, `follower_lease`): it
# cannot be woken from here, and comes round every DEFERRED_INTERVAL; looked for every STANDBY_POLL.
STANDBY_WAIT, STANDBY_POLL = 0.05, 0.001
# Commits of this engine before it starts a follower process: a short-lived engine (a script, a
# CLI command, a test) is done before the process would have finished starting, and its reads
# and its close write the rows; a server starts it within its first moments of load.
SPAWN_AFTER = 100


def check_projection(mode: str | None, history_mode: str) -> str | None:
    """The projection asked for, `history_mode="async"` read as its alias `async-history`;
    an unknown mode, or two that contradict each other, refused before anything is opened."""
    if mode is not None and mode not in PROJECTION_MODES:
        raise ValueError(
            f"projection must be one of {', '.join(PROJECTION_MODES)} (or None: as the "
            f"database is), not {mode!r}"
        )
    if history_mode != "async":
        return mode
    if mode not in (None, ASYNC_HISTORY):
        raise InvalidValue(
            f"projection={mode!r} and history_mode='async' contradict each other: "
            f"history_mode='async' is the older name of projection='{ASYNC_HISTORY}'"
        )
    return ASYNC_HISTORY


class DeferredProjection:
    """The deferred follower of one engine: its worker, the read barrier, drain and health."""

    def __init__(
        self,
        db: Connections,
        store: EventStore,
        followers: Callable[[], DeferredFollower],
        inside_command: Callable[[], bool],
        *,
        url: str,
        history_level: Callable[[], str],
        sqlite_synchronous: str,
    ) -> None:
        self._db = db
        self._store = store
        # Two in-process followers, each with the states it replays: one for reads, the drain
        # and the in-memory thread (its runner lets one of them project at a time), one for
        # commands that write the tail in their own transaction (`within`, one at a time). Never
        # one for both: a read projecting in its own write transaction may wait for SQLite's
        # write lock, which a command waiting for the same follower would hold.
        self.follower = followers()
        self._command_follower = followers()
        self._within = threading.Lock()
        self._inside_command = inside_command
        self._url = url
        self._history_level = history_level
        self._sqlite_synchronous = sqlite_synchronous
        self._runner = HistoryRunner(
            self.follower, db.snapshot, db.write, wall_clock, outer=db.sqlite_lock
        )
        self.worker: HistoryProcess | HistoryThread | None = None
        self._starting = threading.Lock()
        self._stopped = True  # until `start`; again after `stop`
        self._commits = 0
        # The checkpoint the follower process last reported reaching; waiting reads sleep on
        # `_moved` until it passes their head.
        self._reached = 0
        self._moved = threading.Condition()
        self.read_waits = 0  # reads that found the tables behind and waited for them
        self.read_catch_ups = 0  # ... and wrote the tail themselves

    # -- the mode of a database --------------------------------------------------------------

    @staticmethod
    def stored_mode(db: Connections, store: EventStore) -> str:
        with db.read_unchecked() as conn:
            return "deferred" if store.checkpoint(conn, CHECKPOINT) is not None else "inline"

    def enable(self) -> None:
        """Make the database deferred (the inline tables are current up to the head), or give a
        follower that had stopped at a commit it could not project another try."""
        with self._db.write() as conn:
            found = self.follower.start_at_head(conn, wall_clock())
        if found is None:
            log.info("runtime and history rows of this database are written behind the log")
        elif found.status == FAILED:
            log.warning("the deferred projection had stopped (%s); trying again", found.detail)

    def disable(self) -> None:
        """Make the database inline again: the tail written, the checkpoint dropped, in one
        transaction (no command slips between)."""
        with self._db.write() as conn:
            self.within(conn)
            self._store.drop_checkpoint(conn, CHECKPOINT)
        log.info("runtime and history rows of this database are written by each command again")

    # -- the worker ---------------------------------------------------------------------------

    def start(self) -> None:
        """Write what an earlier run left behind (a crash loses no row: the log holds them).
        The worker starts after SPAWN_AFTER commits (`committed`). A commit that cannot be
        projected does not keep the engine from starting: the follower stays stopped at it
        (health says so), reads say so, commands on other streams go on."""
        try:
            self.drain()
        except ProcessEngineError as exc:
            log.error("the deferred rows stay behind the log: %s", exc)
        self._stopped = False

    def committed(self) -> None:
        """A commit listener: from the SPAWN_AFTER-th commit on, a worker follows."""
        self._commits += 1
        if self.worker is None and not self._stopped and self._commits >= SPAWN_AFTER:
            try:
                self.start_follower()
            except OSError as exc:  # the command committed: reads write the rows meanwhile
                self._stopped = True
                log.error("cannot start the deferred follower process (health says so): %s", exc)

    def start_follower(self) -> None:
        """Start the worker now (a server, long-lived, need not wait for SPAWN_AFTER commits)."""
        if self.worker is None and not self._stopped:
            with self._starting:
                if self.worker is None and not self._stopped:
                    worker = (
                        HistoryThread(self._runner)
                        if self._db.memory
                        else HistoryProcess(
                            self._url,
                            self._history_level(),
                            self._sqlite_synchronous,
                            kind="deferred",
                            positions=self._follower_reached,
                        )
                    )
                    worker.start()
                    self.worker = worker

    def stop(self) -> None:
        """Stop the worker, then write every row still waiting (the engine's close). A commit
        that cannot be projected does not keep the engine from closing: it stays recorded."""
        self._stopped = True
        with self._starting:
            worker, self.worker = self.worker, None
        if isinstance(worker, HistoryProcess):
            worker.stop(grace=STOP_GRACE)  # what it did not write, the drain below writes
        elif worker is not None:
            worker.stop()
        try:
            self.drain()
        except ProcessEngineError as exc:
            log.error("deferred rows are not all written (the next start tries again): %s", exc)

    def stop_follower(self) -> None:
        """No follower from now on: reads, commands and `drain` write the rows (the benchmark's
        and tests' way to choose when a batch is written)."""
        self._stopped = True
        with self._starting:
            worker, self.worker = self.worker, None
        if worker is not None:
            worker.stop()

    def drain(self) -> None:
        """Write every deferred row up to the log's end now, in this process.

        Raises ProcessEngineError naming the commit when one cannot be projected, or for a
        passing database error (nothing moved then)."""
        run_to_end(self._runner, "deferred projection")

    def beside(self, _conn: Connection) -> None:
        """Before a command decided on a transaction of its own looks up a deferred table (a
        server database): the tail is written in short transactions beside it, each committed
        at once, which the command's READ COMMITTED transaction then sees."""
        with self._within:
            while True:
                with self._db.write() as conn:
                    if not self._command_follower.catch_up(conn, wall_clock()):
                        return

    def within(self, conn: Connection) -> None:
        """In a command's write transaction, before it looks up a deferred table: the tail is
        written there, so the lookup sees every commit before the command."""
        with self._within:
            while self._command_follower.catch_up(conn, wall_clock()):
                pass

    # -- the read barrier ---------------------------------------------------------------------

    def barrier(self, conn: Connection) -> None:
        """Before a read on `conn`: make the tables hold every commit up to the log head as
        this read transaction sees it: one statement when they do. The caller's next statement
        begins a fresh transaction either way."""
        if self._inside_command():
            return  # its own transaction holds the write lock: nothing else can write
        head, position = self._store.head_and_checkpoint(conn, CHECKPOINT)
        # Ended either way: callers may begin their own transaction (a pinned snapshot); one
        # begun after this check sees at least what it saw.
        conn.rollback()
        if position is None or position >= head:
            return
        self._reach(head)

    def _follower_reached(self, position: int) -> None:
        with self._moved:
            self._reached = max(self._reached, position)
            self._moved.notify_all()

    def _reach(self, head: int) -> None:
        deadline = time.monotonic() + READ_WAIT
        worker = self.worker
        self.read_waits += 1
        if isinstance(worker, HistoryProcess) and worker.state == "running" and worker.ready:
            worker.wake()
            with self._moved:
                if self._moved.wait_for(lambda: self._reached >= head, FOLLOWER_WAIT):
                    return
            if self._position() >= head:  # moved by another process or a read of this one
                return
        elif isinstance(worker, HistoryProcess) and worker.state == "running" and worker.standby:
            # Another engine process's follower holds the lease: it comes round every 20 ms.
            patience = time.monotonic() + STANDBY_WAIT
            while time.monotonic() < patience:
                time.sleep(STANDBY_POLL)
                if self._position() >= head:
                    return
        # No follower process here (in-memory SQLite's thread does not hurry), or it did not get
        # there in time: write the tail in this process (the two never write a batch twice: the
        # checkpoint moves compare-and-set).
        self.read_catch_ups += 1
        try:
            while self._position() < head:
                if time.monotonic() > deadline:
                    raise ProjectionBehind(
                        f"the runtime and history tables hold the log up to position "
                        f"{self._position()}; this read must see {head}, and they did not get "
                        f"there within {READ_WAIT:g} s: try again shortly"
                    )
                if self._runner.step() == 0 and self._position() < head:
                    with self._db.read_unchecked() as conn:
                        found = self.follower.status(conn)
                    why = "stopped" if found is None else found.detail or found.status
                    raise ProjectionBehind(
                        f"the runtime and history tables hold the log up to position "
                        f"{self._position()}, and this read must see {head}; the deferred "
                        f"projection cannot go on: {why}"
                    )
        except (ProjectionFailed, *PASSING) as exc:
            raise ProjectionBehind(
                f"the runtime and history tables are behind the log (they hold position "
                f"{self._position()}, this read must see {head}) and writing the rows failed: "
                f"{exc}"
            ) from exc

    def _position(self) -> int:
        with self._db.read_unchecked() as conn:
            return self._store.checkpoint(conn, CHECKPOINT) or 0

    # -- health -------------------------------------------------------------------------------

    def health(self) -> views.ProjectionHealth:
        with self._db.read_unchecked() as conn:
            found = self.follower.status(conn)
            head = self._store.head_position(conn)
        worker = self.worker
        if worker is not None:
            standby = isinstance(worker, HistoryProcess) and worker.standby
            projector = "standby" if standby and worker.state == "running" else worker.state
        else:  # none yet (SPAWN_AFTER), or told to stop
            projector = "stopped" if self._stopped else "on demand"
        detail = None
        if found is None:
            projector, detail = "stopped", "the deferred checkpoint is gone"
        elif found.status == FAILED:
            projector, detail = "failed", found.detail
        elif projector in ("restarting", "stopped"):
            detail = "the deferred follower is not running: reads write the rows they need"
        elif worker is not None and worker.error is not None:
            detail = f"{type(worker.error).__name__}: {worker.error}"
        return views.ProjectionHealth(
            status="UP"
            if projector in ("running", "standby", "on demand") and detail is None
            else "DOWN",
            mode="deferred",
            projector=projector,
            lag=0 if found is None else head - found.position,
            position=None if found is None else found.position,
            restarts=0 if worker is None else worker.restarts,
            read_waits=self.read_waits,
            read_catch_ups=self.read_catch_ups,
            detail=detail,
        )
