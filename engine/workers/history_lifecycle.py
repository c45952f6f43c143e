"""The lifecycle of an engine's history projection: inline or asynchronous, and its health.

Starts the follower (thread or child process), takes history back inline when no follower is
alive, flushes it, measures its lag and reports its health. Projects no event itself: the
follower (projections.follower) and its workers (history_worker) do.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from flowledger.core import views
from flowledger.core.errors import HistoryLevelMismatch, ProcessEngineError
from flowledger.engine.storage.connections import Connections
from flowledger.engine.workers.history_worker import (
    HEARTBEAT,
    HistoryProcess,
    HistoryRunner,
    HistoryThread,
    run_to_end,
)
from flowledger.eventlog import EventCodec, EventStore
from flowledger.projections.changes import SqlRowStore
from flowledger.projections.follower import CHECKPOINT as HISTORY_CHECKPOINT
from flowledger.projections.follower import (
    FAILED,
    FOLLOWING,
    CheckpointStatus,
    HistoryFollower,
)
from flowledger.projections.history import HistoryProjector, history_level
from flowledger.projections.properties import claim_history_level, stored_history_level

if TYPE_CHECKING:
    from flowledger.engine.workers.deferred_projection import DeferredProjection

log = logging.getLogger("flowledger.engine")

HISTORY_MODES = ("inline", "async")
# Camunda's default. Every history row can be rebuilt from the log, so the level is a projection
# choice: raised later (`flowledger history-level full`), history is filled for the past too.
DEFAULT_HISTORY_LEVEL = "audit"
# A follower that marked the checkpoint within this many seconds is alive (it marks it every
# HEARTBEAT seconds while idle, and with every batch).
FOLLOWER_ALIVE_WITHIN = 4 * HEARTBEAT


class HistoryLifecycle:
    """Whether commands write history themselves (inline) or a follower does (async)."""

    def __init__(
        self,
        db: Connections,
        store: EventStore,
        codec: EventCodec,
        rows: SqlRowStore,
        *,
        level: str,
        mode: str,
        url: str,
        sqlite_synchronous: str,
    ) -> None:
        self.mode = mode
        self.projector = HistoryProjector(level)
        self._db = db
        self._store = store
        self._level = level
        self._url = url
        self._sqlite_synchronous = sqlite_synchronous
        self._follower = HistoryFollower(store, codec, self.projector, rows)
        self._runner = HistoryRunner(self._follower, db.snapshot, db.write, outer=db.sqlite_lock)
        self.worker: HistoryThread | HistoryProcess | None = None
        # Set when the engine projects deferred: history is computed by the commands and
        # written behind the log with the runtime rows (`flush` drains it, `health` reports it).
        self.deferred: DeferredProjection | None = None

    @property
    def level(self) -> str:
        return self._level

    def use_level(self, level: str) -> None:
        """Project at `level` from now on (its tables were just rebuilt at it). A follower in
        another process notices the recorded level with its next batch."""
        self._level = level
        self.projector = HistoryProjector(level)
        self._follower.use(self.projector)

    @property
    def inline_projector(self) -> HistoryProjector | None:
        """The projector commands write history with; None when a follower writes it (the
        asynchronous history follower, or the deferred projection's)."""
        return self.projector if self.mode == "inline" and self.deferred is None else None

    def start(self) -> bool:
        """Take history over (inline) or start following the log (async); True when a follower
        worker was started (it must be stopped on close). Nothing under a deferred projection,
        whose follower writes history (`end_async` ended asynchronous history before)."""
        if self.deferred is not None:
            return False
        if self.mode == "inline" and not self._take_over():
            # Another process's follower owns history (a server in async mode): join it, never
            # take it over. Commands here write no history; a follower thread of this engine
            # helps (followers share one checkpoint, so no batch is written twice).
            log.info("history of this database is followed asynchronously: joining")
            self.mode = "async"
            self.worker = HistoryThread(self._runner)
        else:
            if self.mode == "inline":
                return False
            with self._db.write() as conn:
                found = self._follower.start_at_head(conn, wall_clock())
            if found is not None and found.status == FAILED:
                log.warning("history had stopped (%s); trying again", found.detail)
            # Another process cannot open an in-memory database: follow in a thread there.
            self.worker = (
                HistoryThread(self._runner)
                if self._db.memory
                else HistoryProcess(self._url, self._level, self._sqlite_synchronous)
            )
        self.worker.start()
        return True

    def _take_over(self) -> bool:
        """Inline history owns the tables: finish what an asynchronous run left behind and drop
        its checkpoint. Not while another process's follower is alive (opening an engine never
        touches another process's follower), nor when history cannot be brought up to date."""
        with self._db.read() as conn:
            found = self._follower.status(conn)
        if found is None:
            return True
        if found.status == FOLLOWING and _follower_alive(found):
            return False
        if found.status == FAILED:
            with self._db.write() as conn:
                self._follower.start_at_head(conn, wall_clock())  # one more try
        try:
            self.flush()
        except ProcessEngineError as exc:
            # History stays where it stopped: writing newer history inline would leave a gap.
            log.error("history is behind the log and stays so until this is fixed: %s", exc)
            return False
        with self._db.write() as conn:
            self._store.drop_checkpoint(conn, HISTORY_CHECKPOINT)
        return True

    def end_async(self) -> None:
        """Bring asynchronous history up to the log and drop its checkpoint: a deferred
        projection writes history from here on (two followers would write it twice). A follower
        of another process still running finds its checkpoint gone and stops, saying so."""
        with self._db.read_unchecked() as conn:
            found = self._follower.status(conn)
        if found is None:
            return
        self.flush()
        with self._db.write() as conn:
            self._store.drop_checkpoint(conn, HISTORY_CHECKPOINT)
        log.info("asynchronous history handed over to the deferred projection")

    def stop(self) -> None:
        """Stop the worker, then bring history up to date. A follower that stopped at a commit
        it cannot project does not keep the engine from closing: the failure stays recorded
        for the next start, and is logged again."""
        worker, self.worker = self.worker, None
        if worker is None:
            return
        worker.stop()
        try:
            self.flush()
        except ProcessEngineError as exc:
            log.error("history is behind the log: %s", exc)

    def flush(self) -> None:
        """Bring asynchronous history up to the end of the log now (a no-op for inline).

        Raises ProcessEngineError naming the commit when one cannot be projected, or the
        database error when it failed for a passing reason (nothing moved then)."""
        if self.deferred is not None:
            self.deferred.drain()
        run_to_end(self._runner, "history projection")
        worker = self.worker
        if worker is not None and worker.error is not None:
            error, worker.error = worker.error, None
            raise ProcessEngineError(f"history projection failed: {error}") from error

    def lag(self) -> int:
        """Events committed to the log but not yet projected into ACT_HI_* (0 when inline)."""
        with self._db.read() as conn:
            return self._follower.lag(conn) or 0

    def health(self) -> views.HistoryHealth:
        """Is history being written? For the REST health endpoint and operators' probes."""
        if self.deferred is not None:
            deferred = self.deferred.health()
            return views.HistoryHealth(
                deferred.status,
                "deferred",
                deferred.projector,
                deferred.lag,
                deferred.position,
                0,
                deferred.detail,
            )
        with self._db.read() as conn:
            found = self._follower.status(conn)
            head = self._store.head_position(conn)
        if self.mode == "inline":
            return views.HistoryHealth("UP", "inline", "inline", 0, None)
        worker = self.worker
        restarts = 0 if worker is None else worker.restarts
        if found is None:
            return views.HistoryHealth(
                "DOWN",
                "async",
                "stopped",
                head,
                None,
                restarts,
                "the history checkpoint is gone (an engine with inline history took history "
                "over): commands of this engine reach no history until it is started again",
            )
        detail = found.detail
        if found.status == FAILED:
            follower = "failed"
        elif worker is None:
            follower = "stopped"
        else:
            follower = worker.state
            failure = getattr(worker, "failure", None)
            if failure is not None:
                detail = str(failure)
        if follower in ("restarting", "stopped") and detail is None:
            detail = "the history follower is not running: history falls behind the log"
        return views.HistoryHealth(
            "UP" if follower == "running" else "DOWN",
            "async",
            follower,
            head - found.position,
            found.position,
            restarts,
            detail,
        )


def resolve_level(db: Connections, asked: str | None) -> str:
    """The level the database's history tables are built at: recorded by the first engine that
    opened it (`asked`, else the default). Asking for another one is refused: the past would
    stay at the recorded level while the future is written at the new one."""
    if asked is not None:
        history_level(asked)  # an unknown name is refused before anything is written
    with db.read() as conn:
        stored = stored_history_level(conn)
    if stored is None:
        with db.write() as conn:
            stored = claim_history_level(conn, asked or DEFAULT_HISTORY_LEVEL)
    if asked is not None and asked != stored:
        raise HistoryLevelMismatch(
            f"the history tables of this database are built at history level {stored!r}, "
            f"not {asked!r}: open it without a history level, or change the level with "
            f"`flowledger history-level {asked}` (history_service.set_history_level), "
            "which rebuilds "
            "history from the event log at that level, for the past too"
        )
    return stored


def check_mode(mode: str) -> None:
    """Refuse an unknown history mode before anything is opened."""
    if mode not in HISTORY_MODES:
        raise ValueError(f"history_mode must be one of {', '.join(HISTORY_MODES)}, not {mode!r}")


def wall_clock() -> datetime:
    """Checkpoints are stamped by the wall clock, never the engine's (perhaps controlled) one:
    other processes compare their marks with it."""
    return datetime.now(UTC)


def _follower_alive(found: CheckpointStatus) -> bool:
    """A follower marked the checkpoint recently (every HEARTBEAT seconds while idle)."""
    age = (wall_clock() - found.updated_at).total_seconds()
    return abs(age) < FOLLOWER_ALIVE_WITHIN
