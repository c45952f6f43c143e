"""Handlers of batches: create one, suspend or activate it, delete it or its history, and run,
fail and retry its jobs (the job commands come here when neither an instance nor a deployment
owns the job: handlers/jobs.py).

A batch's events go to its own stream (stream id = batch id), projected without state as a
deployment's. A batch job's work (the registered operation, batch_registry) acts on the targets'
streams in the job's own command, beside `BatchJobCompleted`: one commit, so a crash loses both
or neither, and a job run twice finds itself gone the second time.
"""

from __future__ import annotations

import dataclasses
import traceback

from sqlalchemy.exc import DBAPIError

from flowledger.core import commands as cmd
from flowledger.core import events as ev
from flowledger.core.batches import decisions
from flowledger.core.batches.model import (
    MONITOR_JOB,
    SEED_JOB,
    BatchJobRow,
    BatchRow,
    decode_configuration,
)
from flowledger.core.batches.variables import stored_for_batch
from flowledger.core.errors import JobFailure, NotFound, Rejected
from flowledger.engine import lookups
from flowledger.engine.commands import batch_registry
from flowledger.engine.commands.batch_registry import VARIABLES
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.unit_of_work import UnitOfWork
from flowledger.eventlog import ConcurrencyError


def _append(unit: UnitOfWork, batch_id: str, events: list[ev.Event]) -> None:
    head = unit.store.stream_head(unit.conn, batch_id)
    if head is None:
        raise NotFound("Batch", batch_id)
    unit.append(batch_id, head[0], head[1], events)


def create(unit: UnitOfWork, command: cmd.CreateBatch) -> str:
    """Camunda's BatchBuilder: the batch, its three job definitions, its seed job (due at once)
    and the operation's user operation log entries; the id of the new batch."""
    operation = batch_registry.operation(command.batch_type)
    # Camunda collects the ids in a set: a target named twice is one target.
    targets = list(dict.fromkeys(command.targets))
    if operation.check is not None and targets:
        operation.check(unit, targets, command.parameters)
    variables = stored_for_batch(command.variables)
    event = decisions.create(
        batch_type=command.batch_type,
        targets=targets,
        parameters=dict(command.parameters),
        settings=unit.batch_settings,
        invocations_per_batch_job=operation.invocations_per_batch_job,
        tenant_id=command.tenant_id,
        create_user_id=unit.ctx.actor,
        logged=operation.logged(targets, command.parameters),
        now=unit.ctx.now,
        new_id=unit.ctx.new_id,
        variables=variables,
    )
    unit.append(event.batch_id, 0, None, [event])
    return event.batch_id


def _batch(unit: UnitOfWork, batch_id: str) -> BatchRow:
    found = lookups.batch(unit.conn, batch_id)
    if found is None:
        raise NotFound("Batch", batch_id)
    return found


def set_suspended(unit: UnitOfWork, command: cmd.SetBatchSuspended) -> None:
    batch = _batch(unit, command.batch_id)
    jobs = lookups.batch_jobs(unit.conn, batch.job_definition_ids)
    event = decisions.suspend(batch, [j.job_id for j in jobs], command.suspended, unit.ctx.now)
    _append(unit, batch.id, [event])


def delete(unit: UnitOfWork, command: cmd.DeleteBatch) -> None:
    batch = _batch(unit, command.batch_id)
    # a seed or monitor job's HANDLER_CFG_ is the batch's id, not a byte array of its own
    own = lookups.batch_jobs(
        unit.conn, [batch.seed_job_definition_id, batch.monitor_job_definition_id]
    )
    work = lookups.batch_jobs(unit.conn, [batch.batch_job_definition_id])
    jobs = [dataclasses.replace(j, configuration_id=None) for j in own] + work
    event = decisions.delete(batch, jobs, command.cascade, unit.ctx.now, unit.ctx.new_id)
    _append(unit, batch.id, [event])


def delete_history(unit: UnitOfWork, command: cmd.DeleteHistoricBatch) -> None:
    """The history of an ended batch (a running one's goes with it: DeleteBatch cascade)."""
    if unit.store.stream_head(unit.conn, command.batch_id) is None:
        raise NotFound("Historic batch", command.batch_id)
    if lookups.batch(unit.conn, command.batch_id) is not None:
        raise Rejected(
            f"Batch '{command.batch_id}' is still running: delete it with cascade to delete "
            "its history"
        )
    event = ev.HistoricBatchDeleted(batch_id=command.batch_id, time=unit.ctx.now)
    _append(unit, command.batch_id, [event])


# -- its jobs (the job commands' last stop) -------------------------------------------------------


def _failure(job: BatchJobRow, exc: Exception) -> JobFailure:
    return JobFailure(
        job.job_id, str(exc) or type(exc).__name__, "".join(traceback.format_exception(exc)), None
    )


def execute(unit: UnitOfWork, command: cmd.ExecuteJob) -> bool:
    """Run a job of a batch: the seed job creates the next jobs, the monitor job polls, a batch
    job runs its operation on its targets. Raising, its work is undone and JobFailure recorded."""
    job = lookups.batch_job(unit.conn, command.job_id)
    if job is None:
        return False
    if job.suspended:
        raise Rejected(f"Job '{job.job_id}' of batch '{job.batch.id}' is suspended")
    now, new_id = unit.ctx.now, unit.ctx.new_id
    try:
        if job.kind == SEED_JOB:
            data = lookups.batch_configuration(unit.conn, job.batch.configuration_id)
            if data is None:
                raise NotFound("Batch configuration", job.batch.configuration_id)
            configuration = decode_configuration(data)
            event: ev.Event = decisions.seed(
                job, configuration.ids, configuration.parameters, now, new_id
            )
        elif job.kind == MONITOR_JOB:
            remaining = lookups.remaining_batch_jobs(unit.conn, job.batch.batch_job_definition_id)
            event = decisions.poll(job, remaining, unit.batch_settings, now, new_id)
        else:
            if job.configuration is None:
                raise NotFound("Batch job configuration", str(job.configuration_id))
            configuration = decode_configuration(job.configuration)
            operation = batch_registry.operation(job.batch.type)
            unit.running_batch = job.batch.id
            parameters = configuration.parameters
            if operation.uses_variables:
                variables = lookups.batch_variables(unit.conn, job.batch.id)
                parameters = {**parameters, VARIABLES: variables}
            operation.run(unit, configuration.ids, parameters)
            event = decisions.job_done(job, now, new_id)
    except (DBAPIError, ConcurrencyError):
        raise
    except Exception as exc:
        raise _failure(job, exc) from exc
    _append(unit, job.batch.id, [event])
    return True


def fail(unit: UnitOfWork, command: cmd.HandleJobFailure) -> bool:
    job = lookups.batch_job(unit.conn, command.job_id)
    if job is None:
        return False
    event = decisions.fail(
        job, command.error_message, command.stacktrace, unit.ctx.now, unit.ctx.new_id
    )
    _append(unit, job.batch.id, [event])
    return True


def set_retries(unit: UnitOfWork, command: cmd.SetJobRetries) -> bool:
    job = lookups.batch_job(unit.conn, command.job_id)
    if job is None:
        return False
    _append(unit, job.batch.id, [decisions.set_retries(job, command.retries, unit.ctx.now)])
    return True


HANDLERS = (
    Handler(cmd.CreateBatch, create, result=str),
    Handler(cmd.SetBatchSuspended, set_suspended),
    Handler(cmd.DeleteBatch, delete),
    Handler(cmd.DeleteHistoricBatch, delete_history),
)
