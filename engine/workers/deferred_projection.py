"""Where an engine's runtime and history rows are written: in each command (`inline`) or behind
the log in batches (`deferred`), and the guarantee that no reader can tell the difference.

In deferred mode the rows a command computed wait in memory (projections.deferred) and are
written by whichever comes first:

- the background thread, a few milliseconds after commits (so that the commands arriving
  meanwhile share its batch), which keeps the tables close behind the log;
- a read: every read transaction of the engine (`Connections.read`, which every service, the
  REST API, the CLI and the cockpit go through) first compares the log head with the deferred
  checkpoint (one statement) and, when the tables are behind, writes the missing tail itself
  before it reads — read-your-writes and monotonic reads for every thread and process on the
  database, as the head it compares with is the database's. A read that cannot catch up within
  READ_WAIT seconds raises ProjectionBehind instead of answering from stale tables;
- a command whose handler looks up a table that is deferred (a business-key correlation, a
  deployment's running instances): it writes the tail inside its own transaction first;
- closing the engine (drain).

The mode belongs to the database: the `deferred` checkpoint row exists exactly while it is
deferred. `Engine(projection=None)` adopts it; asking for the other mode converts the database
(to deferred: the checkpoint is created at the head, the inline tables being current; to inline:
the tail is written, then the checkpoint dropped). Every engine on one database must run the
same mode; an engine in the other mode converts it under the others' feet.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from sqlalchemy.engine import Connection

from flowledger.core import views
from flowledger.core.errors import ProjectionBehind
from flowledger.engine.storage.connections import Connections
from flowledger.engine.workers.history_lifecycle import wall_clock
from flowledger.eventlog import EventStore
from flowledger.projections.deferred import CHECKPOINT, SCHEMA_VERSION, DeferredProjector

log = logging.getLogger("flowledger.projection")

PROJECTION_MODES = ("inline", "deferred")
READ_WAIT = 2.0  # seconds a read may spend bringing the tables up to the log before it refuses
# Seconds the background thread waits after a commit before it writes: the commands committing
# meanwhile share the batch (fewer, larger transactions), and the lag stays far below 100 ms.
FLUSH_DELAY = 0.01
IDLE_ROUND = 1.0  # seconds between checks while no commit wakes the thread (other processes)
MAX_BACKOFF = 30.0  # seconds: the longest wait between retries of a failing batch


def check_projection(mode: str | None) -> None:
    """Refuse an unknown projection mode before anything is opened."""
    if mode is not None and mode not in PROJECTION_MODES:
        raise ValueError(
            f"projection must be one of {', '.join(PROJECTION_MODES)} (or None: as the "
            f"database is), not {mode!r}"
        )


class DeferredProjection:
    """Runs the deferred projector of one engine: thread, read barrier, drain, health."""

    def __init__(
        self,
        db: Connections,
        store: EventStore,
        projector: DeferredProjector,
        inside_command: Callable[[], bool],
    ) -> None:
        self._db = db
        self._store = store
        self.projector = projector
        self._inside_command = inside_command
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None  # the background thread's last failure
        self.failures = 0  # batches that failed, since the engine started
        self.batches = 0  # transactions that wrote deferred rows
        self.commits = 0  # commits whose rows they wrote
        self.replayed = 0  # of those, commits projected from the log (no rows in memory)
        self.read_catch_ups = 0  # reads that found the tables behind and wrote the tail

    # -- the mode of a database --------------------------------------------------------------

    @staticmethod
    def stored_mode(db: Connections, store: EventStore) -> str:
        with db.read() as conn:
            return "deferred" if store.checkpoint(conn, CHECKPOINT) is not None else "inline"

    def enable(self) -> None:
        """Make the database deferred: the tables are current (inline) up to the head."""
        with self._db.write() as conn:
            if self._store.checkpoint(conn, CHECKPOINT) is None:
                head = self._store.head_position(conn)
                self._store.save_checkpoint(conn, CHECKPOINT, head, SCHEMA_VERSION, wall_clock())
                log.info("projection of this database is deferred from position %d on", head)

    def disable(self) -> None:
        """Make the database inline again: write the tail, then drop the checkpoint (in one
        transaction, so no command can slip between)."""
        with self._db.write() as conn:
            self._catch_up_all(conn)
            self._store.drop_checkpoint(conn, CHECKPOINT)
        log.info("projection of this database is inline again")

    # -- background thread --------------------------------------------------------------------

    def start(self) -> None:
        """Write what an earlier run left behind (a crash loses no row: the log holds them),
        then keep following."""
        self.drain()
        self._thread = threading.Thread(target=self._run, name="flowledger-projector", daemon=True)
        self._thread.start()

    def committed(self) -> None:
        """A commit listener: rows are waiting."""
        self._wake.set()

    def stop(self) -> None:
        """Stop the thread, then write every row still waiting (the engine's close)."""
        self._stopping.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        try:
            self.drain()
        except Exception as exc:  # the log holds the rows: the next start writes them
            log.error("deferred rows are not all written (the next start writes them): %s", exc)

    @property
    def state(self) -> str:
        if self._thread is None:
            return "stopped"
        return "failing" if self.error is not None else "running"

    def _run(self) -> None:
        backoff = 0.0
        while not self._stopping.is_set():
            woken = self._wake.wait(backoff or IDLE_ROUND)
            if self._stopping.is_set():
                return
            if woken and not backoff and self._stopping.wait(FLUSH_DELAY):
                return  # stopping: `stop` drains
            self._wake.clear()
            try:
                if self._behind():
                    self.drain()
            except Exception as exc:
                self.failures += 1
                backoff = min(max(backoff * 2, 0.1), MAX_BACKOFF)
                if self.error is None or str(exc) != str(self.error):
                    log.error("writing deferred rows failed, retrying in %.1f s: %s", backoff, exc)
                self.error = exc
                continue
            if self.error is not None:
                log.info("deferred rows are written again")
            self.error = None
            backoff = 0.0

    # -- catching up --------------------------------------------------------------------------

    def _behind(self) -> bool:
        """Whether rows are waiting to be written, asked without the write lock (a read since
        the commit may have written them already)."""
        with self._db.read_unchecked() as conn:
            found = self.projector.lag(conn)
        return found is not None and found[1] < found[0]

    def drain(self) -> int:
        """Write every deferred row up to the log's end now; the commits written."""
        total = 0
        while True:
            with self._db.write() as conn:
                done = self._catch_up_once(conn)
            if done == 0:
                return total
            total += done

    def _catch_up_once(self, conn: Connection) -> int:
        caught = self.projector.catch_up(conn, wall_clock())
        if caught is None or not caught.commits:
            return 0
        self.batches += 1
        self.commits += caught.commits
        self.replayed += caught.replayed
        return caught.commits

    def _catch_up_all(self, conn: Connection) -> None:
        while self._catch_up_once(conn):
            pass

    def within(self, conn: Connection) -> None:
        """In a command's write transaction, before it looks up a deferred table: write the tail
        there, so the lookup sees every commit before the command."""
        self._catch_up_all(conn)

    def barrier(self, conn: Connection) -> None:
        """Before a read on `conn`: make the tables hold every commit up to the log head as
        this read transaction sees it: one statement when they do, else the tail is written
        first. The caller's next statement begins a fresh transaction either way."""
        if self._inside_command():
            return  # the command's own transaction holds the write lock: nothing can be written
        head, position = self._store.head_and_checkpoint(conn, CHECKPOINT)
        # Ended either way: callers may begin their own transaction (a pinned snapshot), and one
        # begun after this check sees at least what it saw.
        conn.rollback()
        if position is None or position >= head:
            return
        self.read_catch_ups += 1
        deadline = time.monotonic() + READ_WAIT
        try:
            while True:
                with self._db.write() as wconn:
                    self._catch_up_once(wconn)
                    reached = self._store.checkpoint(wconn, CHECKPOINT)
                if reached is None or reached >= head:
                    return
                if time.monotonic() > deadline:
                    raise ProjectionBehind(
                        f"the runtime and history tables are at log position {reached}, behind "
                        f"position {head} which this read must see; they could not catch up "
                        f"within {READ_WAIT:g} s: try again shortly"
                    )
        except ProjectionBehind:
            raise
        except Exception as exc:
            raise ProjectionBehind(
                f"the runtime and history tables are behind the log (position {position} of "
                f"{head}) and writing the missing rows failed: {exc}"
            ) from exc

    # -- health -------------------------------------------------------------------------------

    def health(self) -> views.ProjectionHealth:
        with self._db.read_unchecked() as conn:
            lag = self.projector.lag(conn)
        head, position = lag if lag is not None else (0, None)
        status = "UP" if self.error is None and self.state == "running" else "DOWN"
        detail = None if self.error is None else f"{type(self.error).__name__}: {self.error}"
        if self.state == "stopped" and detail is None:
            detail = "the projector thread is not running: reads write the rows they need"
        return views.ProjectionHealth(
            status=status,
            mode="deferred",
            projector=self.state,
            lag=0 if position is None else head - position,
            position=position,
            waiting=self.projector.waiting,
            batches=self.batches,
            commits=self.commits,
            replayed=self.replayed,
            read_catch_ups=self.read_catch_ups,
            failures=self.failures,
            detail=detail,
        )
