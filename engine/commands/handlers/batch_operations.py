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
from flowledger.core.batches import instructions as batch_instructions
from flowledger.core.batches import model
from flowledger.core.decide import decide_on
from flowledger.core.errors import MismatchingMessageCorrelation, NotFound, Rejected
from flowledger.engine import lookups
from flowledger.engine.commands.batch_registry import (
    VARIABLES,
    BatchOperation,
    logged_operation,
    register,
)
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers import (
    external_tasks,
    instances,
    jobs,
    messages,
    modification,
    restart,
    suspension,
    variables,
)
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

# -- instance-update-suspension-state: updateProcessInstanceSuspensionState().suspendAsync() -------

_SET_SUSPENDED = _handle(suspension.HANDLERS, cmd.SetProcessInstanceSuspended)


def _suspend_instances(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    for instance_id in targets:
        command = cmd.SetProcessInstanceSuspended(
            process_instance_id=instance_id, suspended=bool(p["suspended"])
        )
        _SET_SUSPENDED(unit, command)


def _suspension_logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    operation = "Suspend" if p.get("suspended") else "Activate"
    return [logged_operation(operation, "ProcessInstance", len(targets))]


INSTANCE_SUSPENSION = register(
    BatchOperation(model.INSTANCE_SUSPENSION, _suspend_instances, _suspension_logged)
)


# -- set-external-task-retries: externalTaskService.setRetriesAsync ----------------------------

_SET_TASK_RETRIES = _handle(external_tasks.HANDLERS, cmd.SetExternalTaskRetries)


def _external_task_retries(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    for task_id in targets:
        command = cmd.SetExternalTaskRetries(external_task_id=task_id, retries=int(p["retries"]))
        _SET_TASK_RETRIES(unit, command)


def _task_retries_logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    retries = ("retries", p.get("retries"))
    return [logged_operation("SetExternalTaskRetries", "ExternalTask", len(targets), retries)]


SET_EXTERNAL_TASK_RETRIES = register(
    BatchOperation(
        model.SET_EXTERNAL_TASK_RETRIES,
        _external_task_retries,
        _task_retries_logged,
        check=_check_retries,
    )
)


# -- historic-instance-deletion: historyService.deleteHistoricProcessInstancesAsync -------------

_DELETE_HISTORY = _handle(instances.HANDLERS, cmd.DeleteHistoricProcessInstance)


def _delete_history(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    """Camunda's DeleteHistoricProcessInstancesCmd: an unknown one fails the job when
    `failIfNotExists` (the default), else is skipped."""
    for instance_id in targets:
        try:
            _DELETE_HISTORY(
                unit, cmd.DeleteHistoricProcessInstance(process_instance_id=instance_id)
            )
        except NotFound:
            if p.get("failIfNotExists", True):
                raise


def _history_logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    reason = ("deleteReason", p.get("deleteReason"))
    return [logged_operation("DeleteHistory", "ProcessInstance", len(targets), reason)]


HISTORIC_INSTANCE_DELETION = register(
    BatchOperation(model.HISTORIC_INSTANCE_DELETION, _delete_history, _history_logged)
)

# -- instance-modification and instance-restart: modification / restart ….executeAsync() ---------

_MODIFY_ONE = _handle(modification.HANDLERS, cmd.ModifyProcessInstance)
_MODIFY_MANY = _handle(modification.HANDLERS, cmd.ModifyProcessInstances)
_RESTART = _handle(restart.HANDLERS, cmd.RestartProcessInstances)


def instructions_of(p: Mapping[str, Any]) -> list[cmd.ModificationInstruction]:
    """The instructions a batch's parameters hold (core/batches/instructions.py wrote them)."""
    return batch_instructions.read_back(p["instructions"], bool(p.get(batch_instructions.STORED)))


def _modify(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    """The job's instances modified in one command, as `modify_process_instances` does; the
    one instance of `/process-instance/{id}/modification-async` as its synchronous form."""
    skip_listeners = bool(p.get("skipCustomListeners"))
    skip_io = bool(p.get("skipIoMappings"))
    annotation = p.get("annotation")
    if p.get("oneInstance"):
        for instance_id in targets:
            command = cmd.ModifyProcessInstance(
                process_instance_id=instance_id,
                instructions=instructions_of(p),
                skip_custom_listeners=skip_listeners,
                skip_io_mappings=skip_io,
                annotation=annotation,
            )
            _MODIFY_ONE(unit, command)
        return
    _MODIFY_MANY(
        unit,
        cmd.ModifyProcessInstances(
            definition_id=p["processDefinitionId"],
            process_instance_ids=targets,
            instructions=instructions_of(p),
            skip_custom_listeners=skip_listeners,
            skip_io_mappings=skip_io,
            annotation=annotation,
        ),
    )


def _definition_context(p: Mapping[str, Any]) -> dict[str, str]:
    definition_id = p.get("processDefinitionId")
    return {} if definition_id is None else {"PROC_DEF_ID_": str(definition_id)}


def _modification_logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    context = _definition_context(p)
    if p.get("annotation") is not None:
        context["ANNOTATION_"] = str(p["annotation"])
    return [
        logged_operation("ModifyProcessInstance", "ProcessInstance", len(targets), context=context)
    ]


def _check_definition(unit: UnitOfWork, _targets: list[str], p: Mapping[str, Any]) -> None:
    """Camunda refuses a batch of a definition it cannot find when it is created."""
    definition_id = str(p.get("processDefinitionId"))
    if lookups.process_definition(unit.conn, definition_id) is None:
        raise NotFound("Process definition", definition_id)


INSTANCE_MODIFICATION = register(
    BatchOperation(
        model.INSTANCE_MODIFICATION, _modify, _modification_logged, check=_check_definition
    )
)


def _restart(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    _RESTART(
        unit,
        cmd.RestartProcessInstances(
            definition_id=p["processDefinitionId"],
            process_instance_ids=targets,
            instructions=[i for i in instructions_of(p) if isinstance(i, cmd.StartInstruction)],
            initial_variables=bool(p.get("initialVariables")),
            skip_custom_listeners=bool(p.get("skipCustomListeners")),
            skip_io_mappings=bool(p.get("skipIoMappings")),
            without_business_key=bool(p.get("withoutBusinessKey")),
        ),
    )


def _restart_logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    context = _definition_context(p)
    return [
        logged_operation("RestartProcessInstance", "ProcessInstance", len(targets), context=context)
    ]


INSTANCE_RESTART = register(
    BatchOperation(model.INSTANCE_RESTART, _restart, _restart_logged, check=_check_definition)
)

# -- set-variables and correlate-message: runtimeService.setVariablesAsync / correlateAllAsync ----

_SET_VARIABLES = _handle(variables.HANDLERS, cmd.SetVariables)
_CORRELATE = _handle(messages.HANDLERS, cmd.CorrelateMessage)


def _set_variables(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    """Camunda's BatchSetVariablesHandler: the batch's variables on each instance (its root
    scope); an instance that ended or never was fails the job."""
    for instance_id in targets:
        _SET_VARIABLES(unit, cmd.SetVariables(execution_id=instance_id, variables=p[VARIABLES]))


def _variables_logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    count = ("nrOfVariables", len(p.get("variableNames", ())))
    return [
        ev.LoggedOperation(
            "SetVariables",
            "ProcessInstance",
            [("nrOfInstances", len(targets)), count, ("async", True)],
        )
    ]


SET_VARIABLES = register(
    BatchOperation(model.SET_VARIABLES, _set_variables, _variables_logged, uses_variables=True)
)


def _correlate(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    """Camunda's MessageCorrelationBatchJobHandler: correlateAll of the message to each
    instance's waiting executions (never a start event), with the batch's variables; an
    instance no subscription of it waits in is passed over, as correlateAll finds nothing."""
    for instance_id in targets:
        command = cmd.CorrelateMessage(
            message_name=p["messageName"],
            process_instance_id=instance_id,
            variables=p[VARIABLES],
            all=True,
        )
        try:
            _CORRELATE(unit, command)
        except MismatchingMessageCorrelation:
            continue


def _correlation_logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    properties: list[tuple[str, Any]] = [
        ("messageName", p.get("messageName")),
        ("nrOfInstances", len(targets)),
        ("nrOfVariables", len(p.get("variableNames", ()))),
        ("async", True),
    ]
    return [ev.LoggedOperation("CorrelateMessage", "ProcessInstance", properties)]


CORRELATE_MESSAGE = register(
    BatchOperation(model.CORRELATE_MESSAGE, _correlate, _correlation_logged, uses_variables=True)
)

REGISTERED = (
    INSTANCE_DELETION,
    SET_JOB_RETRIES,
    INSTANCE_SUSPENSION,
    SET_EXTERNAL_TASK_RETRIES,
    HISTORIC_INSTANCE_DELETION,
    INSTANCE_MODIFICATION,
    INSTANCE_RESTART,
    SET_VARIABLES,
    CORRELATE_MESSAGE,
)
