"""Handler of AddTaskComment: find the instance that owns the open task, let the domain record
the comment there (core/comments.py); it answers the new comment's id."""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core.comments import add_comment
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers.tasks import TASK_GONE
from flowledger.engine.commands.unit_of_work import UnitOfWork


def add(unit: UnitOfWork, command: cmd.AddTaskComment) -> str:
    session = unit.instance_owning("Task", command.task_id, TASK_GONE)
    return add_comment(session, command.task_id, command.message)


HANDLERS = (Handler(cmd.AddTaskComment, add, result=str),)
