"""Handlers of the variable commands: set and remove variables of an execution or a user task.

A command names either an execution (Camunda's runtimeService) or a task (taskService); the
handler finds the instance that owns it and lets `decide` apply Camunda's scoping rules.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core import decide

from ..bus import Handler
from ..unit_of_work import UnitOfWork
from .tasks import TASK_GONE

EXECUTION_GONE = "it does not exist or has ended"


def set_variables(unit: UnitOfWork, command: cmd.SetVariables) -> None:
    if command.task_id is not None:
        session = unit.instance_owning("Task", command.task_id)
        # decide reads the task's execution itself: no execution id to give it
        decide.set_variables(
            session, "", command.variables, local=command.local, task_id=command.task_id
        )
        return
    execution_id = _execution_id(command)
    session = unit.instance_owning("Execution", execution_id, EXECUTION_GONE)
    decide.set_variables(session, execution_id, command.variables, local=command.local)


def remove_variables(unit: UnitOfWork, command: cmd.RemoveVariables) -> None:
    if command.task_id is not None:
        session = unit.instance_owning("Task", command.task_id, TASK_GONE)
        decide.remove_variables(
            session, "", command.names, local=command.local, task_id=command.task_id
        )
        return
    execution_id = _execution_id(command)
    session = unit.instance_owning("Execution", execution_id, EXECUTION_GONE)
    decide.remove_variables(session, execution_id, command.names, local=command.local)


def _execution_id(command: cmd.SetVariables | cmd.RemoveVariables) -> str:
    if command.execution_id is None:
        raise ValueError(f"{type(command).__name__} names neither an execution nor a task")
    return command.execution_id


HANDLERS = (
    Handler(cmd.SetVariables, set_variables),
    Handler(cmd.RemoveVariables, remove_variables),
)
