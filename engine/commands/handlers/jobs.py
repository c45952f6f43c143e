"""Handlers of the job commands: execute a job, record its failure, set its retries or due date.

Each finds the instance that owns the job and lets the domain decide; a job no instance owns is
a start timer's (`start_timers`) or a batch's (`batches`). Executing turns any
exception of the job's work into a JobFailure carrying what the failure record needs: the
message, the stack trace and the activity that was running.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import TypeVar

from flowledger.core import commands as cmd
from flowledger.core import events as ev
from flowledger.core.errors import JobFailure
from flowledger.core.session import InstanceSession
from flowledger.engine.commands.handlers import batches, start_timers
from flowledger.engine.commands.handlers.on_instance import decided_on
from flowledger.engine.commands.unit_of_work import UnitOfWork

C = TypeVar("C", bound=cmd.Command)

JobCommand = (
    cmd.ExecuteJob
    | cmd.HandleJobFailure
    | cmd.SetJobRetries
    | cmd.SetJobDueDate
    | cmd.SetJobPriority
    | cmd.SetJobSuspended
)


def _owner(unit: UnitOfWork, command: JobCommand) -> InstanceSession:
    return unit.instance_owning("Job", command.job_id)


def _failure(session: InstanceSession, command: cmd.ExecuteJob, exc: Exception) -> Exception:
    """The job's work raised: a JobFailure to record. Refused before the work began (nothing was
    emitted: the job is suspended, say), the refusal stands and the job keeps its retries."""
    if not session.events:
        return exc
    return JobFailure(
        command.job_id,
        str(exc) or type(exc).__name__,
        "".join(traceback.format_exception(exc)),
        _running_activity(session),
    )


def _running_activity(session: InstanceSession) -> str | None:
    """The activity started last in the failed work: where the exception was raised."""
    for event in reversed(session.events):
        if isinstance(event, ev.ActivityStarted):
            return event.activity_id
    return None


def _first(
    *owners: Callable[[UnitOfWork, C], bool],
) -> Callable[[UnitOfWork, C], bool]:
    """A job no instance owns: a deployment's start timer, else a batch's (the first that owns
    it handles the command)."""
    return lambda unit, command: any(owner(unit, command) for owner in owners)


HANDLERS = (
    decided_on(cmd.ExecuteJob, _owner, _failure, _first(start_timers.execute, batches.execute)),
    decided_on(cmd.HandleJobFailure, _owner, elsewhere=_first(start_timers.fail, batches.fail)),
    decided_on(
        cmd.SetJobRetries, _owner, elsewhere=_first(start_timers.set_retries, batches.set_retries)
    ),
    decided_on(cmd.SetJobDueDate, _owner, elsewhere=start_timers.set_due_date),
    decided_on(cmd.SetJobSuspended, _owner, elsewhere=start_timers.refuse_suspension),
    decided_on(cmd.SetJobPriority, _owner, elsewhere=start_timers.refuse_priority),
)
