"""The job executor: threads inside the engine process that lease due jobs and run them.

One acquisition thread leases a few due jobs at a time (`job_leases.acquire`) and hands them to
worker threads; each job runs as a command through the engine (`run`), which records a failure
on the job. The thread wakes at once when this process commits (a job may have become due),
polls for jobs other processes committed, and waits longer while it finds nothing (doubling
up to `max_wait`) or until the next known due date, whichever is sooner. Stopping finishes the
jobs running and gives back the leases of those not started. A failure of the executor itself
(the database gone away) is logged, counted in `health()` and retried with backoff; it never
ends the thread silently.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.engine import Connection

from flowledger.core.clock import Clock
from flowledger.core.ids import uuid7
from flowledger.engine.workers import job_leases

log = logging.getLogger("flowledger.jobs")

Transaction = Callable[[], AbstractContextManager[Connection]]


@dataclass(frozen=True, slots=True)
class JobExecutorSettings:
    threads: int = 3
    max_jobs_per_acquisition: int = 3
    lock_time: timedelta = timedelta(minutes=5)  # Camunda's lockTimeInMillis
    wait: float = 5.0  # seconds between polls when idle (waitTimeInMillis), doubling ...
    max_wait: float = 60.0  # ... up to this (maxWait)
    acquire_by_priority: bool = False  # jobExecutorAcquireByPriority: highest PRIORITY_ first
    # Batches (Camunda's engine settings of the same names, its defaults): batch jobs one seed
    # job run creates, targets each batch job takes, seconds between the monitor job's polls.
    batch_jobs_per_seed: int = 100
    invocations_per_batch_job: int = 1
    batch_poll_time: int = 30


@dataclass(frozen=True, slots=True)
class JobExecutorHealth:
    running: bool
    owner: str
    jobs_run: int
    jobs_failed: int
    acquisition_errors: int
    last_error: str | None


class JobExecutor:
    """Runs due jobs in the background for one engine; `run(job_id)` returns False when the job
    failed (its failure recorded), True when it ran or had gone."""

    def __init__(
        self,
        run: Callable[[str], bool],
        write: Transaction,
        read: Transaction,
        clock: Clock,
        settings: JobExecutorSettings | None = None,
    ) -> None:
        self._run = run
        self._write = write
        self._read = read
        self._clock = clock
        self.settings = settings or JobExecutorSettings()
        self.owner = f"flowledger-{uuid7()}"
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._work: queue.Queue[str | None] = queue.Queue()
        self._in_hand: set[str] = set()  # leased, not finished
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._jobs_run = 0
        self._jobs_failed = 0
        self._errors = 0
        self._last_error: str | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> None:
        if self._threads:
            return
        self._stopping.clear()
        acquirer = threading.Thread(target=self._acquire_loop, name="jobs-acquire", daemon=True)
        self._threads = [acquirer]
        for n in range(self.settings.threads):
            worker = threading.Thread(target=self._work_loop, name=f"jobs-{n}", daemon=True)
            self._threads.append(worker)
        for thread in self._threads:
            thread.start()
        log.info("job executor %s started (%d threads)", self.owner, self.settings.threads)

    def stop(self, timeout: float = 30.0) -> None:
        """Give back the leases of the jobs waiting (other executors may take them at once),
        finish the jobs running, end the threads."""
        if not self._threads:
            return
        waiting: list[str] = []
        with self._lock:
            self._stopping.set()
            while True:
                try:
                    job_id = self._work.get_nowait()
                except queue.Empty:
                    break
                if job_id is not None:
                    waiting.append(job_id)
            self._in_hand.difference_update(waiting)
        self._wake.set()
        self._release(waiting)
        for _ in range(self.settings.threads):
            self._work.put(None)
        for thread in self._threads:
            thread.join(timeout)
        self._threads = []
        log.info("job executor %s stopped (%d leases given back)", self.owner, len(waiting))

    def wake(self) -> None:
        """Something was committed here: look for due jobs now rather than at the next poll."""
        self._wake.set()

    def health(self) -> JobExecutorHealth:
        with self._lock:
            return JobExecutorHealth(
                running=bool(self._threads) and not self._stopping.is_set(),
                owner=self.owner,
                jobs_run=self._jobs_run,
                jobs_failed=self._jobs_failed,
                acquisition_errors=self._errors,
                last_error=self._last_error,
            )

    # -- acquisition ---------------------------------------------------------------------------

    def _acquire_loop(self) -> None:
        idle_wait = self.settings.wait
        while not self._stopping.is_set():
            try:
                acquired = self._acquire()
            except Exception as exc:  # the database went away, a lock timed out, ...
                with self._lock:
                    self._errors += 1
                    self._last_error = f"{type(exc).__name__}: {exc}"
                log.exception("job executor %s could not acquire jobs; retrying", self.owner)
                idle_wait = min(idle_wait * 2, self.settings.max_wait)
                self._sleep(idle_wait)
                continue
            if acquired:
                idle_wait = self.settings.wait
                self._wait_for_workers()
                continue
            self._sleep(self._until_next_due(idle_wait))
            idle_wait = min(idle_wait * 2, self.settings.max_wait)

    def _acquire(self) -> list[str]:
        now = self._clock.now()
        free = self.settings.threads - self._work.qsize()
        limit = max(1, min(self.settings.max_jobs_per_acquisition, free))
        with self._write() as conn:
            taken = job_leases.acquire(
                conn,
                self.owner,
                now,
                now + self.settings.lock_time,
                limit,
                by_priority=self.settings.acquire_by_priority,
            )
        with self._lock:
            # Stopping drains the queue under this lock: leases taken meanwhile go back.
            stopping = self._stopping.is_set()
            if not stopping:
                self._in_hand.update(taken)
                for job_id in taken:
                    self._work.put(job_id)
        if stopping:
            self._release(taken)
            return []
        return taken

    def _wait_for_workers(self) -> None:
        """Acquire again once a worker is free (no more leases than hands to run them)."""
        while not self._stopping.is_set() and self._work.qsize() >= self.settings.threads:
            self._sleep(0.05)

    def _until_next_due(self, idle_wait: float) -> float:
        try:
            with self._read() as conn:
                due = job_leases.next_due(conn)
        except Exception:
            return idle_wait
        if due is None:
            return idle_wait
        seconds = (due - self._clock.now()).total_seconds()
        return max(0.0, min(idle_wait, seconds))

    def _sleep(self, seconds: float) -> None:
        self._wake.wait(seconds)
        self._wake.clear()

    def _release(self, job_ids: list[str]) -> None:
        if not job_ids:
            return
        try:
            with self._write() as conn:
                job_leases.release(conn, self.owner, job_ids)
        except Exception:
            log.exception("job executor %s could not give back %d leases", self.owner, len(job_ids))

    # -- running -------------------------------------------------------------------------------

    def _work_loop(self) -> None:
        while True:
            job_id = self._work.get()
            if job_id is None:
                return
            try:
                succeeded = self._run(job_id)
            except Exception:
                succeeded = False
                log.exception("job executor %s: running job %s failed", self.owner, job_id)
            with self._lock:
                self._in_hand.discard(job_id)
                self._jobs_run += 1
                if not succeeded:
                    self._jobs_failed += 1
            self._wake.set()  # a job ran: what it made due may run next
