"""Handlers of the variable commands: set and remove variables of an execution or a user task.

A command names either an execution (Camunda's runtimeService) or a task (taskService); the
handler finds the instance that owns it, and the domain's `decide_on` applies Camunda's scoping
rules.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core.session import InstanceSession
from flowledger.engine.commands.handlers.on_instance import decided_on
from flowledger.engine.commands.handlers.tasks import TASK_GONE
from flowledger.engine.commands.unit_of_work import UnitOfWork

EXECUTION_GONE = "it does not exist or has ended"


def _setting_owner(unit: UnitOfWork, command: cmd.SetVariables) -> InstanceSession:
    if command.task_id is not None:
        return unit.instance_owning("Task", command.task_id)
    return unit.instance_owning("Execution", _execution_id(command), EXECUTION_GONE)


def _removing_owner(unit: UnitOfWork, command: cmd.RemoveVariables) -> InstanceSession:
    if command.task_id is not None:
        return unit.instance_owning("Task", command.task_id, TASK_GONE)
    return unit.instance_owning("Execution", _execution_id(command), EXECUTION_GONE)


def _execution_id(command: cmd.SetVariables | cmd.RemoveVariables) -> str:
    if command.execution_id is None:
        raise ValueError(f"{type(command).__name__} names neither an execution nor a task")
    return command.execution_id


HANDLERS = (
    decided_on(cmd.SetVariables, _setting_owner),
    decided_on(cmd.RemoveVariables, _removing_owner),
)
