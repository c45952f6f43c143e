"""Comments on user tasks (Camunda's taskService.createComment): the decision that records one
in the task's instance stream, with its author and time.

Pure: decides on the instance session; the message is bounded (the log keeps it whole).
"""

from __future__ import annotations

from . import events as ev
from .errors import InvalidValue, NotFound
from .limits import check_text
from .session import InstanceSession

# FULL_MSG_ is a blob in Camunda, unbounded: the log keeps every comment whole, so bounded here
# (MESSAGE_, its 4,000-character column, holds the first 160 characters).
MAX_COMMENT = 100_000


def add_comment(session: InstanceSession, task_id: str, message: str) -> str:
    """Record a comment on the open task `task_id` by the command's actor; its id."""
    if not message.strip():
        raise InvalidValue("A comment needs a message: 'message' is missing or blank")
    check_text("message", message, MAX_COMMENT)
    if task_id not in session.state.tasks:
        raise NotFound("Task", task_id, "it does not exist or is already completed")
    comment_id = session.ctx.new_id()
    session.emit(
        ev.TaskCommentAdded(
            comment_id=comment_id,
            task_id=task_id,
            user_id=session.ctx.actor,
            message=message,
            time=session.ctx.now,
        )
    )
    return comment_id
