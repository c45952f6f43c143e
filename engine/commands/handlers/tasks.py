"""Handlers of the user task commands: complete, claim, unclaim, set the assignee, raise an
escalation or throw a BPMN error where the task waits.

Each finds the instance that owns the task; the domain's `decide_on` reads the command.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core.session import InstanceSession
from flowledger.engine.commands.handlers.on_instance import decided_on
from flowledger.engine.commands.unit_of_work import UnitOfWork

TASK_GONE = "it does not exist or is already completed"

TaskCommand = (
    cmd.CompleteTask
    | cmd.ClaimTask
    | cmd.UnclaimTask
    | cmd.SetAssignee
    | cmd.HandleTaskEscalation
    | cmd.HandleTaskBpmnError
)


def _owner(unit: UnitOfWork, command: TaskCommand) -> InstanceSession:
    return unit.instance_owning("Task", command.task_id, TASK_GONE)


HANDLERS = (
    decided_on(cmd.CompleteTask, _owner),
    decided_on(cmd.ClaimTask, _owner),
    decided_on(cmd.UnclaimTask, _owner),
    decided_on(cmd.SetAssignee, _owner),
    decided_on(cmd.HandleTaskEscalation, _owner),
    decided_on(cmd.HandleTaskBpmnError, _owner),
)
