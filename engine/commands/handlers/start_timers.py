"""Start timers in the command path: scheduled when their definition is deployed, removed when a
newer version of it is or its deployment is deleted, and run, failed and changed as jobs that
belong to no instance (the job commands' handlers come here when no instance owns the job).

The events go to the stream of the definition's deployment; running one also starts an instance
stream, both in one command.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Mapping
from itertools import groupby

from sqlalchemy.exc import DBAPIError

from flowledger.core import commands as cmd
from flowledger.core import events as ev
from flowledger.core import start_timers
from flowledger.core.behaviors.jobs import PROCESS_EVENT
from flowledger.core.errors import JobFailure, NotFound, Rejected
from flowledger.core.model import ProcessModel
from flowledger.engine import lookups
from flowledger.engine.commands.unit_of_work import UnitOfWork
from flowledger.eventlog import ConcurrencyError


def scheduled(
    unit: UnitOfWork, created: ev.DeploymentCreated, models: Mapping[str, ProcessModel]
) -> list[ev.Event]:
    """The start timers of a new deployment's definitions, for its own first commit. The
    definitions' earlier versions lose theirs (Camunda: the latest version's timers run)."""
    keys = sorted({d.key for d in created.process_definitions})
    _remove(unit, lookups.start_timers(unit.conn, keys=keys))
    events: list[ev.Event] = []
    for definition in created.process_definitions:
        event = start_timers.schedule(
            models[definition.id],
            created.deployment_id,
            definition.id,
            unit.ctx.now,
            unit.ctx.new_id,
        )
        if event is not None:
            events.append(event)
    return events


def removed_with(unit: UnitOfWork, deployment_id: str) -> list[ev.Event]:
    """The removals of a deployment's start timers, for the commit that deletes it."""
    jobs = lookups.start_timers(unit.conn, deployment_id=deployment_id)
    return start_timers.remove(jobs, unit.ctx.now, unit.ctx.new_id)


def _remove(unit: UnitOfWork, jobs: Iterable[start_timers.StartTimer]) -> None:
    by_deployment = groupby(
        sorted(jobs, key=lambda j: (j.deployment_id, j.job_id)), key=lambda j: j.deployment_id
    )
    for deployment_id, found in by_deployment:
        removed = start_timers.remove(list(found), unit.ctx.now, unit.ctx.new_id)
        append_to_deployment(unit, deployment_id, removed)


def append_to_deployment(unit: UnitOfWork, deployment_id: str, events: list[ev.Event]) -> None:
    """Events for an existing deployment's stream, after its head."""
    head = unit.store.stream_head(unit.conn, deployment_id)
    if head is None:
        raise NotFound("Deployment", deployment_id)
    unit.append(deployment_id, head[0], head[1], events)


def _job(unit: UnitOfWork, job_id: str) -> start_timers.StartTimer | None:
    return lookups.start_timer(unit.conn, job_id)


def execute(unit: UnitOfWork, command: cmd.ExecuteJob) -> bool:
    """Start an instance of the timer's definition (an asynchronous signal's job: at its
    signal start event); a cycle schedules its next firing."""
    job = _job(unit, command.job_id)
    if job is None:
        return False
    definition = lookups.process_definition(unit.conn, job.definition_id)
    if definition is None:
        return False  # its deployment went meanwhile (the removal came with it)
    model = unit.repository.model(unit.conn, job.definition_id)
    try:
        session = unit.start_instance(
            model,
            definition_id=definition.id,
            definition_version=definition.version,
            deployment_id=definition.deployment_id,
            business_key=None,
            variables={},
            start_activity_id=job.activity_id if job.handler_type == PROCESS_EVENT else None,
            triggered=True,
        )
    except (DBAPIError, ConcurrencyError):
        raise
    except Exception as exc:
        raise JobFailure(
            job.job_id,
            str(exc) or type(exc).__name__,
            "".join(traceback.format_exception(exc)),
            None,
        ) from exc
    now = unit.ctx.now
    append_to_deployment(
        unit, job.deployment_id, start_timers.fire(job, session.state.id, now, unit.ctx.new_id)
    )
    return True


def fail(unit: UnitOfWork, command: cmd.HandleJobFailure) -> bool:
    job = _job(unit, command.job_id)
    if job is None:
        return False
    model = unit.repository.model(unit.conn, job.definition_id)
    event = start_timers.fail(
        job, model, command.error_message, command.stacktrace, unit.ctx.now, unit.ctx.new_id
    )
    append_to_deployment(unit, job.deployment_id, [event])
    return True


def set_retries(unit: UnitOfWork, command: cmd.SetJobRetries) -> bool:
    job = _job(unit, command.job_id)
    if job is None:
        return False
    event = start_timers.set_retries(job, command.retries, unit.ctx.now, unit.ctx.new_id)
    append_to_deployment(unit, job.deployment_id, [event])
    return True


def set_due_date(unit: UnitOfWork, command: cmd.SetJobDueDate) -> bool:
    job = _job(unit, command.job_id)
    if job is None:
        return False
    event = start_timers.set_due_date(job, command.due_date, unit.ctx.now)
    append_to_deployment(unit, job.deployment_id, [event])
    return True


def refuse_suspension(unit: UnitOfWork, command: cmd.SetJobSuspended) -> bool:
    if _job(unit, command.job_id) is None:
        return False
    raise Rejected(
        f"Job '{command.job_id}' belongs to a start event of a definition (a timer's, or an "
        "asynchronous signal's): suspending it is not supported yet (delete or redeploy the "
        "definition to stop it)"
    )


def refuse_priority(unit: UnitOfWork, command: cmd.SetJobPriority) -> bool:
    if _job(unit, command.job_id) is None:
        return False
    raise Rejected(
        f"Job '{command.job_id}' belongs to a start event of a definition: its priority cannot "
        "be changed"
    )
