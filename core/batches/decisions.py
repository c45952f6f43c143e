"""The decisions of a batch, as Camunda's BatchBuilder, BatchSeedJobHandler and
BatchMonitorJobHandler make them: create it, run its seed job (the next jobs, then a new seed job
or the monitor job), a batch job done or failed, a monitor poll, suspend, delete.

Pure: the rows come in (engine/lookups), the events go out; ids and time come from the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from flowledger.core import events as ev
from flowledger.core.errors import Rejected
from flowledger.core.limits import MAX_STACKTRACE, MAX_TEXT
from flowledger.core.variables import StoredValue

from .model import MAX_BATCH_TARGETS, BatchJobRow, BatchRow, BatchSettings

NewId = Callable[[], str]


def create(
    *,
    batch_type: str,
    targets: list[str],
    parameters: dict[str, Any],
    settings: BatchSettings,
    invocations_per_batch_job: int | None,
    tenant_id: str | None,
    create_user_id: str | None,
    logged: list[ev.LoggedOperation],
    now: datetime,
    new_id: NewId,
    variables: Mapping[str, StoredValue] | None = None,
) -> ev.BatchCreated:
    """A new batch over `targets` (already resolved, never empty: Camunda refuses an empty one
    before it builds a batch); its seed job is due at once."""
    if not targets:
        raise Rejected("ids is empty")
    if len(targets) > MAX_BATCH_TARGETS:
        raise Rejected(
            f"{len(targets)} targets in one batch; at most {MAX_BATCH_TARGETS} are allowed "
            "(split the operation into several batches)"
        )
    per_job = invocations_per_batch_job or settings.invocations_per_batch_job
    return ev.BatchCreated(
        batch_id=new_id(),
        batch_type=batch_type,
        total_jobs=-(-len(targets) // per_job),  # Camunda: ceil(ids / invocations per job)
        batch_jobs_per_seed=settings.batch_jobs_per_seed,
        invocations_per_batch_job=per_job,
        seed_job_definition_id=new_id(),
        monitor_job_definition_id=new_id(),
        batch_job_definition_id=new_id(),
        configuration_id=new_id(),
        seed_job_id=new_id(),
        targets=targets,
        parameters=parameters,
        time=now,
        tenant_id=tenant_id,
        create_user_id=create_user_id,
        logged=logged,
        variables=[
            ev.BatchVariable(new_id(), name, value) for name, value in (variables or {}).items()
        ],
    )


def seed(
    job: BatchJobRow, targets: list[str], parameters: dict[str, Any], now: datetime, new_id: NewId
) -> ev.BatchJobsCreated:
    """The seed job's run: the next `batch_jobs_per_seed` jobs over the next targets, then a new
    seed job, or the monitor job once every job exists (due at once, as Camunda creates it, so a
    small batch completes without waiting a poll)."""
    batch = job.batch
    per_job = batch.invocations_per_batch_job
    start = batch.jobs_created * per_job
    chunk = targets[start : start + per_job * batch.batch_jobs_per_seed]
    jobs = [
        ev.BatchJob(new_id(), new_id(), chunk[n : n + per_job])
        for n in range(0, len(chunk), per_job)
    ]
    created = batch.jobs_created + len(jobs)
    done = created >= batch.total_jobs
    return ev.BatchJobsCreated(
        batch_id=batch.id,
        batch_type=batch.type,
        seed_job_id=job.job_id,
        seed_had_stacktrace=job.has_stacktrace,
        jobs=jobs,
        jobs_created=created,
        batch_job_definition_id=batch.batch_job_definition_id,
        seed_job_definition_id=batch.seed_job_definition_id,
        monitor_job_definition_id=batch.monitor_job_definition_id,
        time=now,
        parameters=parameters,
        next_seed_job_id=None if done else new_id(),
        monitor_job_id=new_id() if done else None,
        tenant_id=batch.tenant_id,
    )


def job_done(job: BatchJobRow, now: datetime) -> ev.BatchJobCompleted:
    """A batch job's work is done (its events are beside this one, in the same commit)."""
    return ev.BatchJobCompleted(
        batch_id=job.batch.id,
        job_id=job.job_id,
        configuration_id=job.configuration_id,
        had_stacktrace=job.has_stacktrace,
        time=now,
        execution_started=not job.batch.execution_started,
    )


def poll(
    job: BatchJobRow, remaining: int, settings: BatchSettings, now: datetime, new_id: NewId
) -> ev.Event:
    """The monitor job's run: the batch completes when no batch job is left (failed ones count as
    left, as Camunda's job query counts them), else it polls again after `poll_seconds`."""
    batch = job.batch
    if remaining == 0:
        return ev.BatchCompleted(
            batch_id=batch.id,
            monitor_job=_ended(job),
            job_definition_ids=batch.job_definition_ids,
            configuration_id=batch.configuration_id,
            time=now,
        )
    return ev.BatchMonitorRescheduled(
        batch_id=batch.id,
        ran_job_id=job.job_id,
        ran_had_stacktrace=job.has_stacktrace,
        job_id=new_id(),
        monitor_job_definition_id=batch.monitor_job_definition_id,
        due_date=now + timedelta(seconds=settings.poll_seconds),
        time=now,
        tenant_id=batch.tenant_id,
    )


def fail(
    job: BatchJobRow, message: str | None, stacktrace: str | None, now: datetime
) -> ev.BatchJobFailed:
    """Camunda's DefaultJobRetryCmd without a retry cycle: one retry less, due as it was (at
    once); at 0 the job stays, failed (the batch's statistics count it in failedJobs)."""
    return ev.BatchJobFailed(
        batch_id=job.batch.id,
        job_id=job.job_id,
        retries=max(job.retries - 1, 0),
        error_message=None if message is None else message[:MAX_TEXT],
        stacktrace=None if stacktrace is None else stacktrace[:MAX_STACKTRACE],
        had_stacktrace=job.has_stacktrace,
        due_date=job.due_date,
        time=now,
    )


def set_retries(job: BatchJobRow, retries: int, now: datetime) -> ev.BatchJobRetriesSet:
    if retries < 0:
        raise Rejected(
            f"The number of job retries must be a non-negative Integer, but '{retries}' has "
            "been provided."
        )
    return ev.BatchJobRetriesSet(
        batch_id=job.batch.id,
        job_id=job.job_id,
        retries=retries,
        retries_before=job.retries,
        time=now,
    )


def suspend(batch: BatchRow, job_ids: list[str], suspended: bool, now: datetime) -> ev.Event:
    """Camunda's SetBatchSuspensionStateCmd: the batch, its job definitions and its jobs (also
    when it is in that state already: Camunda sets and logs it all the same)."""
    cls = ev.BatchSuspended if suspended else ev.BatchActivated
    return cls(
        batch_id=batch.id,
        job_ids=sorted(job_ids),
        job_definition_ids=batch.job_definition_ids,
        time=now,
    )


def delete(
    batch: BatchRow, jobs: list[ev.EndedBatchJob], cascade: bool, now: datetime
) -> ev.BatchDeleted:
    """Camunda's DeleteBatchCmd: the batch with its seed, monitor and batch jobs; `cascade`: its
    history too."""
    return ev.BatchDeleted(
        batch_id=batch.id,
        jobs=sorted(jobs, key=lambda j: j.job_id),
        job_definition_ids=batch.job_definition_ids,
        configuration_id=batch.configuration_id,
        cascade=cascade,
        time=now,
    )


def _ended(job: BatchJobRow) -> ev.EndedBatchJob:
    return ev.EndedBatchJob(job.job_id, job.configuration_id, job.has_stacktrace)
