"""Workers that keep asynchronous history close behind the log, and stop loudly when they cannot.

`HistoryProcess` runs the follower in a child process (`follower_process`, the database URL in
its environment), so projecting history takes its own core instead of the command
path's interpreter lock; the child stops when its stdin closes, which also happens when the parent
dies. A supervisor thread in the parent restarts a child that dies (killed, out of memory) with
backoff, and reports each restart. `HistoryThread` does the same in-process, for in-memory SQLite
that no other process can open.

Two kinds of failure are told apart. A passing one (the database went away, a lock timed out) is
logged and retried with backoff; the checkpoint did not move, so nothing is lost. A commit that
cannot be projected fails the same way on every try: the follower projects commit by commit up to
it, records in the checkpoint row which commit and why (`projections.follower.FAILED`), logs it
and stops. Commands go on; history stays at the commit before, and the health report says so,
until an engine is started again on the database (which gives it another try).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext, suppress
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from flowledger.core.errors import ProcessEngineError
from flowledger.projections.follower import HistoryFollower, HistoryStopped, ProjectionFailed

log = logging.getLogger("flowledger.history")

INTERVAL = 0.25  # seconds between catch-ups: history stays well within a second of the log
DEFERRED_INTERVAL = 0.02  # ... of the deferred follower, which reads wait for
DEFERRED_RETRY_STEP = 0.00005  # seconds between its tries for SQLite's write lock
URL_VARIABLE = "FLOWLEDGER_HISTORY_DB"
BATCH_EVENTS = 5_000  # events per write transaction: short holds of SQLite's one write lock
HEARTBEAT = 5.0  # seconds between "alive" marks of an idle follower
FAILED_EXIT = 3  # the child's exit status when it stopped for good (HistoryStopped)
LEASE_LOST_EXIT = 4  # ... when it lost its lease (restarted, it stands by or takes it again)
STANDBY = -1  # reported instead of a position: another process holds the lease
MAX_BACKOFF = 60.0  # seconds: the longest wait between retries and restarts
STABLE_RUN = 60.0  # seconds a restarted child must run before its backoff starts over

# Errors that say nothing about the commit: the same batch is tried again later.
PASSING = (OperationalError, InterfaceError, DisconnectionError, PoolTimeout)

Transaction = Callable[[], AbstractContextManager[Connection]]


class HistoryRunner:
    """One follower's batches, each in its own transactions: the step that the thread, the child
    process and `Engine.flush_history` share."""

    def __init__(
        self,
        follower: HistoryFollower,
        read: Transaction,
        write: Transaction,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        outer: AbstractContextManager[Any] | None = None,
    ) -> None:
        self._follower = follower
        self._read = read
        self._write = write
        self._now = now
        self._last_beat = 0.0
        self.position = 0  # the checkpoint this runner's last batch moved to
        # One batch at a time: the follower's replayed states are not for two threads at once
        # (a deferred engine's reads, its drain and, on in-memory SQLite, its follower thread).
        self._stepping = threading.Lock()
        # Taken before it (SQLite: the engine's lock, which every transaction of `read` and
        # `write` takes too): always in that order, so a caller holding the engine's lock (a
        # verify draining) and a thread stepping on its own never wait for each other.
        self._outer: AbstractContextManager[Any] = outer if outer is not None else nullcontext()

    def step(self, max_events: int = BATCH_EVENTS) -> int:
        """Project one batch; the number of events projected (0: history is current).

        Raises `ProjectionFailed` (a HistoryStopped, recorded in the checkpoint row) when a
        commit cannot be projected, and the errors in `PASSING` as they come."""
        with self._outer, self._stepping:
            try:
                return self._batch(max_events)
            except PASSING:
                raise
            except Exception:
                # Which commit? One at a time up to it: those before it are written meanwhile.
                return self._isolate()

    def heartbeat(self) -> None:
        """Mark the follower alive, at most every HEARTBEAT seconds; HistoryStopped when
        there is nothing left to follow."""
        if time.monotonic() - self._last_beat < HEARTBEAT:
            return
        with self._write() as conn:
            self._follower.heartbeat(conn, self._now())
        self._last_beat = time.monotonic()

    def _batch(self, max_events: int) -> int:
        with self._read() as conn:
            batch = self._follower.prepare(conn, max_events)
        if batch is None:
            return 0
        with self._write() as conn:
            self._follower.write(conn, batch, self._now())
        self._last_beat = time.monotonic()  # a written batch says "alive" too
        self.position = batch.last_position
        return batch.events

    def _isolate(self) -> int:
        done = 0
        while True:
            try:
                projected = self._batch(1)
            except PASSING:
                raise
            except Exception as cause:
                with self._read() as conn:
                    failure = self._follower.failing_commit(conn, cause)
                with self._write() as conn:
                    self._follower.fail(conn, failure, self._now())
                raise failure from cause
            if projected == 0:
                return done  # it passed one commit at a time: the error did not come back
            done += projected


def run_to_end(runner: HistoryRunner, what: str) -> None:
    """Project up to the log's end in this process; ProcessEngineError naming the commit when
    one cannot be projected, or for a passing database error (nothing moved then)."""
    try:
        while runner.step() > 0:
            pass
    except ProjectionFailed as failure:
        raise ProcessEngineError(f"{what} stopped: {failure}") from failure
    except PASSING as exc:
        raise ProcessEngineError(f"{what} failed (nothing moved; try again): {exc}") from exc


class Backoff:
    """1, 2, 4 … MAX_BACKOFF seconds."""

    def __init__(self) -> None:
        self.next = 1.0

    def take(self) -> float:
        wait, self.next = self.next, min(self.next * 2, MAX_BACKOFF)
        return wait

    def reset(self) -> None:
        self.next = 1.0


class HistoryThread:
    """The follower in a thread of this process (in-memory SQLite)."""

    def __init__(self, runner: HistoryRunner, interval: float = INTERVAL) -> None:
        self._runner = runner
        self._interval = interval
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="flowledger-history", daemon=True)
        self.error: BaseException | None = None  # the last passing error, None once it passed
        self.failure: HistoryStopped | None = None
        self.restarts = 0

    @property
    def state(self) -> str:
        if self.failure is not None:
            return "failed"
        return "running" if self._thread.is_alive() else "stopped"

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """Commits are waiting: follow now instead of at the next round."""
        self._wake.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        self._thread.join()

    def _run(self) -> None:
        backoff = Backoff()
        wait = self._interval
        while not self._stopping.is_set():
            self._wake.wait(wait)
            self._wake.clear()
            try:
                while not self._stopping.is_set() and self._runner.step() > 0:
                    pass
                self._runner.heartbeat()
            except HistoryStopped as failure:
                self.failure = failure
                log.error("history projection stopped: %s", failure)
                return
            except Exception as exc:
                self.error = exc
                wait = backoff.take()
                log.warning("history projection failed, retrying in %.0f s: %s", wait, exc)
                continue
            self.error = None
            backoff.reset()
            wait = self._interval


class HistoryProcess:
    """The follower in a child process, restarted with backoff when it dies."""

    def __init__(
        self,
        url: str,
        history_level: str,
        sqlite_synchronous: str,
        kind: str = "history",
        positions: Callable[[int], None] | None = None,
    ) -> None:
        self._args = [url, history_level, sqlite_synchronous, kind]
        # Told each checkpoint the child's batches reach (a line on its stdout): readers waiting
        # for a position are woken by it rather than polling the checkpoint row.
        self._positions = positions
        self._child: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._supervisor: threading.Thread | None = None
        self._lock = threading.Lock()
        self.error: BaseException | None = None  # the child logs its own errors
        self.restarts = 0
        self._state = "stopped"
        # The child has started following (it reported once): until then (an interpreter
        # starting, its imports: most of a second) nobody should wait for it.
        self.ready = False
        self.standby = False  # another process's follower holds the database's lease

    @property
    def state(self) -> str:
        """running | restarting (it died, a new one is on its way) | failed | stopped"""
        return self._state

    def start(self) -> None:
        self._spawn()
        self._supervisor = threading.Thread(
            target=self._supervise, name="flowledger-history-supervisor", daemon=True
        )
        self._supervisor.start()

    def _spawn(self) -> None:
        url, history_level, sqlite_synchronous, kind = self._args
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        # The URL may hold a password: the environment is private to the user, argv is not.
        env[URL_VARIABLE] = url
        with self._lock:
            self._child = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "flowledger.engine.workers.follower_process",
                    history_level,
                    sqlite_synchronous,
                    kind,
                ],
                stdin=subprocess.PIPE,
                stdout=None if self._positions is None else subprocess.PIPE,
                env=env,
            )
            assert self._child.stdin is not None
            os.set_blocking(self._child.stdin.fileno(), False)  # `wake` never waits
            self._state = "running"
            self.ready = self.standby = False
            if self._positions is not None:
                threading.Thread(
                    target=self._listen,
                    args=(self._child, self._positions),
                    name="flowledger-projection-positions",
                    daemon=True,
                ).start()

    def _listen(self, child: subprocess.Popen[bytes], positions: Callable[[int], None]) -> None:
        """Pass on each position the child reports, until its stdout closes (it ended)."""
        assert child.stdout is not None
        for line in child.stdout:
            with suppress(ValueError):
                position = int(line)
                self.standby = position == STANDBY
                self.ready = not self.standby
                if self.ready:
                    positions(position)

    def wake(self) -> None:
        """Commits are waiting: the child follows at once instead of at its next round."""
        child = self._child
        if child is None or child.stdin is None:
            return
        with suppress(OSError, ValueError):  # full pipe: a wake is pending; closed: stopping
            os.write(child.stdin.fileno(), b"w")

    def _supervise(self) -> None:
        backoff = Backoff()
        while True:
            child = self._child
            if child is None:
                return
            started = time.monotonic()
            status = child.wait()
            if self._stopping.is_set():
                return
            if status == FAILED_EXIT:
                self._state = "failed"
                log.error(
                    "the history follower stopped (its reason is in the health report); "
                    "history stays behind until the engine is started again"
                )
                return
            if time.monotonic() - started >= STABLE_RUN:
                backoff.reset()
            wait = backoff.take()
            self._state = "restarting"
            self.restarts += 1
            log.error(
                "the history follower process exited with status %s; restart %d in %.0f s",
                status,
                self.restarts,
                wait,
            )
            if self._stopping.wait(wait):
                return
            try:
                self._spawn()
            except OSError as exc:
                log.error("cannot restart the history follower: %s", exc)
                self._state = "restarting"

    def stop(self, grace: float = 60.0) -> None:
        """Close the child's stdin and wait up to `grace` seconds for it to finish its batch,
        then kill it (a batch cut short rolls back: its checkpoint did not move)."""
        self._stopping.set()
        with self._lock:
            child, self._child = self._child, None
        if child is not None:
            if child.poll() is not None and child.returncode != FAILED_EXIT:
                # It ended before it was told to: the parent's flush projects what it left.
                log.error("the history follower process exited early (status %s)", child.returncode)
            assert child.stdin is not None
            with suppress(OSError):
                child.stdin.close()
            try:
                child.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if self._supervisor is not None:
            self._supervisor.join(timeout=5)
        self._state = "stopped"
