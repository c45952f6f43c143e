"""The built-in batch types: each runs one batch job's targets with the engine's synchronous
decision of the same operation, in the job's command (one stream per target, one commit).

Registered in batch_registry when this module is imported (handlers/__init__ imports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from flowledger.core import commands as cmd
from flowledger.core import events as ev
from flowledger.core.batches import model
from flowledger.core.decide import decide_on
from flowledger.core.errors import NotFound, Rejected
from flowledger.engine.commands.batch_registry import (
    BatchOperation,
    logged_operation,
    register,
)
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers import jobs
from flowledger.engine.commands.unit_of_work import UnitOfWork


def _handle(handlers: tuple[Handler[Any, Any], ...], command: type[cmd.Command]) -> Any:
    """The synchronous handler of `command` among `handlers`: a batch job runs it per target
    in its own unit of work, as the synchronous command would."""
    return next(h.handle for h in handlers if h.command is command)


# -- instance-deletion: runtimeService.deleteProcessInstancesAsync --------------------------------


def _delete_instances(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    """Camunda's DeleteProcessInstancesCmd on the job's instances: one not running (ended, or
    never there) fails the job when `failIfNotExists` (the default), else is skipped."""
    for instance_id in targets:
        try:
            session = unit.instance(instance_id)
        except NotFound:
            if p.get("failIfNotExists", True):
                raise
            continue
        decide_on(
            session,
            cmd.DeleteProcessInstance(
                process_instance_id=instance_id,
                reason=p.get("deleteReason"),
                skip_custom_listeners=bool(p.get("skipCustomListeners", False)),
                skip_io_mappings=bool(p.get("skipIoMappings", False)),
            ),
        )


def _check_deletion(_unit: UnitOfWork, _targets: list[str], p: Mapping[str, Any]) -> None:
    if p.get("skipSubprocesses"):
        raise Rejected(
            "skipSubprocesses is not supported: a called instance is deleted with its caller"
        )


def _deletion_logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    return [
        logged_operation(
            "Delete", "ProcessInstance", len(targets), ("deleteReason", p.get("deleteReason"))
        )
    ]


INSTANCE_DELETION = register(
    BatchOperation(
        model.INSTANCE_DELETION, _delete_instances, _deletion_logged, check=_check_deletion
    )
)

# -- set-job-retries: managementService.setJobRetriesAsync (by job or by process instance) -------

_SET_RETRIES = _handle(jobs.HANDLERS, cmd.SetJobRetries)
_SET_DUE_DATE = _handle(jobs.HANDLERS, cmd.SetJobDueDate)


def _set_job_retries(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    """Camunda's SetJobRetriesJobHandler: the retries of each job (an incident resolved or
    opened as they say), and its due date when one was given (`dueDate` set: None clears it)."""
    for job_id in targets:
        _SET_RETRIES(unit, cmd.SetJobRetries(job_id=job_id, retries=int(p["retries"])))
        if p.get("setDueDate"):
            due = p.get("dueDate")
            due_date = None if due is None else datetime.fromisoformat(due)
            _SET_DUE_DATE(unit, cmd.SetJobDueDate(job_id=job_id, due_date=due_date))


def _check_retries(_unit: UnitOfWork, _targets: list[str], p: Mapping[str, Any]) -> None:
    retries = p.get("retries")
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise Rejected(
            f"The number of job retries must be a non-negative Integer, but '{retries}' has "
            "been provided."
        )


def _retries_logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    return [logged_operation("SetJobRetries", "Job", len(targets), ("retries", p.get("retries")))]


SET_JOB_RETRIES = register(
    BatchOperation(model.SET_JOB_RETRIES, _set_job_retries, _retries_logged, check=_check_retries)
)

REGISTERED = (INSTANCE_DELETION, SET_JOB_RETRIES)
