"""Running jobs: the one the job executor leased, every job due now (for tests and scripts on a
controllable clock), and the background executor's lifetime.

A job's work that raises is undone by the bus and recorded afterwards as the job's failure
(retries down, an incident at 0), as Camunda's job executor does.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core.clock import Clock
from flowledger.core.errors import JobFailure, NotFound
from flowledger.engine import lookups
from flowledger.engine.commands.bus import VIA_JOB_EXECUTOR, CommandBus
from flowledger.engine.storage.connections import Connections
from flowledger.engine.workers.job_executor import (
    JobExecutor,
    JobExecutorHealth,
    JobExecutorSettings,
)


def failure_command(failure: JobFailure) -> cmd.HandleJobFailure:
    """The command that records a job's failed run."""
    return cmd.HandleJobFailure(
        job_id=failure.job_id,
        error_message=failure.message,
        stacktrace=failure.stacktrace,
        failed_activity_id=failure.failed_activity_id,
    )


class JobRuns:
    """Runs jobs on the engine's bus, and owns its background job executor once started."""

    def __init__(self, bus: CommandBus, db: Connections, clock: Clock) -> None:
        self._bus = bus
        self._db = db
        self._clock = clock
        self.executor: JobExecutor | None = None

    def run_leased(self, job_id: str) -> bool:
        """Run a job the caller holds (a lease, or the only runner): False when it failed
        (recorded on the job)."""
        # Never a user's actor: the executor is no user (whoever started the engine or called
        # run_due_jobs), and its runs are no user's operations.
        try:
            self._bus.execute(cmd.ExecuteJob(job_id=job_id), actor=None, via=VIA_JOB_EXECUTOR)
        except JobFailure as failure:
            self._bus.execute(failure_command(failure), actor=None, via=VIA_JOB_EXECUTOR)
            return False
        except NotFound:
            pass  # gone meanwhile: another executor ran it, or its activity ended
        return True

    def run_due(self, max_jobs: int) -> int:
        """Run every job due by the clock, and those the runs make due, until none is left or
        `max_jobs` ran; the number that ran, failed ones included."""
        ran = 0
        while ran < max_jobs:
            with self._db.read() as conn:
                due = lookups.due_jobs(conn, self._clock.now(), min(max_jobs - ran, 1000))
            if not due:
                return ran
            for job_id, _instance in due:
                ran += 1
                self.run_leased(job_id)
        return ran

    def start_executor(self, settings: JobExecutorSettings | None) -> None:
        """Run due jobs in background threads from now on (once; later calls do nothing)."""
        if self.executor is not None:
            return
        self.executor = JobExecutor(
            self.run_leased, self._db.write, self._db.read, self._clock, settings
        )
        self._bus.add_commit_listener(self.executor.wake)
        self.executor.start()

    def health(self) -> JobExecutorHealth | None:
        return None if self.executor is None else self.executor.health()

    def stop(self) -> None:
        if self.executor is not None:
            self.executor.stop()
