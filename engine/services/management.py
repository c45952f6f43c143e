"""Camunda's ManagementService: jobs (timers and asynchronous continuations), their
definitions, retries, suspension and priority, the job executor, and what the safety limits
stopped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from flowledger.core import commands as cmd
from flowledger.core import views
from flowledger.core.batches.model import SET_JOB_RETRIES
from flowledger.core.clock import truncate_ms
from flowledger.core.errors import JobFailure, NotFound, Rejected
from flowledger.engine.services.base import Service
from flowledger.engine.workers.job_executor import JobExecutorHealth, JobExecutorSettings
from flowledger.engine.workers.job_runs import failure_command
from flowledger.projections.queries import batches as batch_queries
from flowledger.projections.queries import reads
from flowledger.projections.queries.declaration import count, find
from flowledger.projections.queries.jobs import JOBS, JobSearchQuery


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

    # -- batches (issue 37) ---------------------------------------------------------------------

    def create_batch(
        self,
        batch_type: str,
        targets: Sequence[str],
        parameters: Mapping[str, Any] | None = None,
        *,
        tenant_id: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
        variables: Mapping[str, Any] | None = None,
    ) -> batch_queries.Batch:
        """A batch of a registered type (Camunda's Batch.TYPE_*) over `targets`, resolved by the
        caller, in order: its seed job is due at once. The async verbs (e.g.
        `runtime_service.delete_process_instances_async`) come here."""
        command = cmd.CreateBatch(
            batch_type=batch_type,
            targets=list(targets),
            parameters=dict(parameters or {}),
            tenant_id=tenant_id,
            variables=dict(variables or {}),
        )
        batch_id = cast(str, self._run(command, command_id, actor))
        return self.batch(batch_id)

    def set_job_retries_async(
        self,
        job_ids: Sequence[str] | None = None,
        job_query: JobSearchQuery | None = None,
        retries: int = 0,
        *,
        due_date: datetime | None = None,
        set_due_date: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> batch_queries.Batch:
        """managementService.setJobRetriesAsync: a batch setting the retries of the jobs named
        and those the query finds now (and their due date, `set_due_date`: None clears it)."""
        targets = list(job_ids or ())
        if job_ids is None and job_query is None:
            raise Rejected("Either jobIds or jobQuery has to be set")
        if job_query is not None:
            with self._parts.db.read() as conn:
                targets += [row.id for row in find(conn, JOBS, job_query)]
        return self._retries_batch(targets, retries, due_date, set_due_date, command_id, actor)

    def set_job_retries_async_by_process(
        self,
        process_instance_ids: Sequence[str],
        retries: int,
        *,
        due_date: datetime | None = None,
        set_due_date: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> batch_queries.Batch:
        """Camunda's setJobRetriesAsync by process instances: every job of those instances
        now (the caller resolves its instance queries to `process_instance_ids`)."""
        if not process_instance_ids:
            raise Rejected("processInstanceIds is empty")
        query = JobSearchQuery(process_instance_ids=list(process_instance_ids))
        with self._parts.db.read() as conn:
            targets = [row.id for row in find(conn, JOBS, query)]
        return self._retries_batch(targets, retries, due_date, set_due_date, command_id, actor)

    def _retries_batch(
        self,
        targets: list[str],
        retries: int,
        due_date: datetime | None,
        set_due_date: bool,
        command_id: str | None,
        actor: str | None,
    ) -> batch_queries.Batch:
        if not targets:
            raise Rejected("jobIds is empty")
        if due_date is not None and due_date.tzinfo is None:
            due_date = due_date.replace(tzinfo=UTC)
        parameters = {
            "retries": retries,
            "setDueDate": set_due_date or due_date is not None,
            "dueDate": None if due_date is None else truncate_ms(due_date).isoformat(),
        }
        return self.create_batch(
            SET_JOB_RETRIES, targets, parameters, command_id=command_id, actor=actor
        )

    def batch(self, batch_id: str) -> batch_queries.Batch:
        """The running batch (managementService.createBatchQuery().batchId(id))."""
        found = self.batches(batch_id=batch_id)
        if not found:
            raise NotFound("Batch", batch_id)
        return found[0]

    def batches(self, **filters: Any) -> list[batch_queries.Batch]:
        """Running batches. Filters (BatchQuery): batch_id, type, tenant_id_in,
        without_tenant_id, suspended, created_by."""
        with self._parts.db.read() as conn:
            return find(conn, batch_queries.BATCHES, batch_queries.BatchQuery(**filters))

    def batch_count(self, **filters: Any) -> int:
        with self._parts.db.read() as conn:
            return count(conn, batch_queries.BATCHES, batch_queries.BatchQuery(**filters))

    def batch_statistics(self, **filters: Any) -> list[batch_queries.BatchStatistics]:
        """Running batches with their jobs counted: remaining, completed, failed (out of
        retries). Filters as `batches`."""
        with self._parts.db.read() as conn:
            query = batch_queries.BatchQuery(**filters)
            return find(conn, batch_queries.BATCH_STATISTICS, query)

    def suspend_batch_by_id(
        self, batch_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        """The batch with its job definitions and jobs: nothing of it runs until activated."""
        self._run(cmd.SetBatchSuspended(batch_id=batch_id, suspended=True), command_id, actor)

    def activate_batch_by_id(
        self, batch_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        self._run(cmd.SetBatchSuspended(batch_id=batch_id, suspended=False), command_id, actor)

    def delete_batch(
        self,
        batch_id: str,
        cascade: bool = False,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """The batch and every job it has left (what they did stays done); `cascade`: its
        history (ACT_HI_BATCH) too."""
        self._run(cmd.DeleteBatch(batch_id=batch_id, cascade=cascade), command_id, actor)
