"""Handlers of the user task commands: complete, claim, unclaim, set the assignee.

Each finds the instance that owns the task and lets `decide` act on it.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core import decide
from flowledger.core.session import InstanceSession

from ..bus import Handler
from ..unit_of_work import UnitOfWork

TASK_GONE = "it does not exist or is already completed"


def _owner(unit: UnitOfWork, task_id: str) -> InstanceSession:
    return unit.instance_owning("Task", task_id, TASK_GONE)


def complete(unit: UnitOfWork, command: cmd.CompleteTask) -> None:
    decide.complete_task(_owner(unit, command.task_id), command.task_id, command.variables)


def claim(unit: UnitOfWork, command: cmd.ClaimTask) -> None:
    decide.claim_task(_owner(unit, command.task_id), command.task_id, command.user_id)


def unclaim(unit: UnitOfWork, command: cmd.UnclaimTask) -> None:
    decide.unclaim_task(_owner(unit, command.task_id), command.task_id)


def set_assignee(unit: UnitOfWork, command: cmd.SetAssignee) -> None:
    decide.set_assignee(_owner(unit, command.task_id), command.task_id, command.user_id)


HANDLERS = (
    Handler(cmd.CompleteTask, complete),
    Handler(cmd.ClaimTask, claim),
    Handler(cmd.UnclaimTask, unclaim),
    Handler(cmd.SetAssignee, set_assignee),
)
