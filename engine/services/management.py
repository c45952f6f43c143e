"""Camunda's ManagementService: jobs (timers and asynchronous continuations), their
definitions, retries, suspension and priority, the job executor, and what the safety limits
stopped."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flowledger.core import commands as cmd
from flowledger.core import views
from flowledger.core.clock import truncate_ms
from flowledger.core.errors import JobFailure, NotFound
from flowledger.engine.services.base import Service
from flowledger.engine.workers.job_executor import JobExecutorHealth, JobExecutorSettings
from flowledger.engine.workers.job_runs import failure_command
from flowledger.projections.queries import reads


class ManagementService(Service):
    def jobs(self, **filters: Any) -> list[views.Job]:
        """Timers and asynchronous continuations waiting to run. Filters: job_id,
        process_instance_id, execution_id, activity_id, handler_type, timers, messages,
        with_retries_left, no_retries_left, executable, with_exception."""
        if filters.get("executable"):
            filters["now"] = self._parts.clock.now()
        with self._parts.db.read() as conn:
            return reads.jobs(conn, **filters)

    def job_definitions(self, **filters: Any) -> list[views.JobDefinition]:
        """The kinds of job deployed activities make (ACT_RU_JOBDEF): a timer, or a continuation
        before or after. Filters: process_definition_id, process_definition_key, activity_id."""
        with self._parts.db.read() as conn:
            return reads.job_definitions(conn, **filters)

    def job(self, job_id: str) -> views.Job:
        with self._parts.db.read() as conn:
            found = reads.job(conn, job_id)
        if found is None:
            raise NotFound("Job", job_id)
        return found

    def job_stacktrace(self, job_id: str) -> str | None:
        """The stack trace of the job's last failure (managementService.getJobExceptionStack-
        trace); None when it has not failed."""
        with self._parts.db.read() as conn:
            exists, stacktrace = reads.job_stacktrace(conn, job_id)
        if not exists:
            raise NotFound("Job", job_id)
        return stacktrace

    def execute_job(
        self, job_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        """Run the job now, due or not (managementService.executeJob). When its work raises,
        nothing of it is kept, the failure is recorded on the job (retries down, an incident at
        0) and JobFailure is raised to the caller."""
        try:
            self._run(cmd.ExecuteJob(job_id=job_id), command_id, actor)
        except JobFailure as failure:
            self._run(failure_command(failure), None, actor)
            raise

    def start_job_executor(self, settings: JobExecutorSettings | None = None) -> None:
        """Run due jobs in background threads from now on (`Engine(job_executor=True)` does this
        at once; an application that registers delegates first starts it after them)."""
        self._parts.jobs.start_executor(settings)

    def job_executor_health(self) -> JobExecutorHealth | None:
        """What the background job executor did so far; None when this engine runs none."""
        return self._parts.jobs.health()

    def run_due_jobs(self, *, max_jobs: int = 100_000) -> int:
        """Run every job that is due by the engine's clock, and those the runs make due, until
        none is left; failures are recorded on their jobs, not raised. For tests and scripts
        on a controllable clock (a serving engine's job executor does this in the background).
        Returns how many jobs ran, failed ones included; stops after `max_jobs`."""
        return self._parts.jobs.run_due(max_jobs)

    def set_job_retries(
        self,
        job_id: str,
        retries: int,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """managementService.setJobRetries: above 0 a failed job runs again and its incident
        is resolved; 0 opens one."""
        self._run(cmd.SetJobRetries(job_id=job_id, retries=retries), command_id, actor)

    def suspend_job(
        self, job_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        """managementService.suspendJobById: no executor runs the job until it is activated."""
        self._run(cmd.SetJobSuspended(job_id=job_id, suspended=True), command_id, actor)

    def activate_job(
        self, job_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        self._run(cmd.SetJobSuspended(job_id=job_id, suspended=False), command_id, actor)

    def set_job_priority(
        self, job_id: str, priority: int, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        """managementService.setJobPriority: the order of an executor that acquires by
        priority (JobExecutorSettings.acquire_by_priority)."""
        self._run(cmd.SetJobPriority(job_id=job_id, priority=priority), command_id, actor)

    def set_job_due_date(
        self,
        job_id: str,
        due_date: datetime | None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        if due_date is not None and due_date.tzinfo is None:
            due_date = due_date.replace(tzinfo=UTC)
        command = cmd.SetJobDueDate(
            job_id=job_id, due_date=None if due_date is None else truncate_ms(due_date)
        )
        self._run(command, command_id, actor)

    def limits_health(self) -> dict[str, Any]:
        """What the safety limits stopped so far: commands out of their evaluation budget, and
        the outbound calls made, refused, cut at their deadline or size cap. For the REST health
        endpoint: a limit hit is never silent."""
        bus, outbound = self._parts.bus, self._parts.outbound
        budget, policy = bus.budget_stats, outbound.policy
        return {
            "commandBudget": {
                "seconds": bus.budget_seconds,
                "exceeded": budget.exceeded_count,
                **({"last": budget.last} if budget.last else {}),
            },
            "outbound": {
                "connectors": sorted(policy.connectors),
                "httpAllow": list(policy.http_allow),
                "deadlineSeconds": policy.deadline_seconds,
                "maxResponseBytes": policy.max_response_bytes,
                **outbound.stats.as_dict(),
            },
        }
