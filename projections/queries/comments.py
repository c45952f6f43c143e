"""Comments on tasks (ACT_HI_COMMENT): a task's comments newest first, and one of them, behind
engine-rest's `/task/{id}/comment`. Reads only.
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from sqlalchemy import select
from sqlalchemy.engine import Connection, RowMapping

from ..tables import ACT_HI_COMMENT, ACT_HI_TASKINST, ACT_RU_TASK
from .filters import utc

_C = ACT_HI_COMMENT


class CommentRow(msgspec.Struct, frozen=True):
    """A comment as Camunda's CommentDto shows it: `message` is the whole text (FULL_MSG_)."""

    id: str
    user_id: str | None
    time: datetime
    task_id: str | None
    message: str | None
    removal_time: datetime | None
    root_process_instance_id: str | None
    process_instance_id: str | None


def _row(m: RowMapping) -> CommentRow:
    full = m["FULL_MSG_"]
    return CommentRow(
        id=m["ID_"],
        user_id=m["USER_ID_"],
        time=utc(m["TIME_"]) or m["TIME_"],
        task_id=m["TASK_ID_"],
        message=bytes(full).decode() if full is not None else m["MESSAGE_"],
        removal_time=utc(m["REMOVAL_TIME_"]),
        root_process_instance_id=m["ROOT_PROC_INST_ID_"],
        process_instance_id=m["PROC_INST_ID_"],
    )


def task_comments(conn: Connection, task_id: str) -> list[CommentRow]:
    """The task's comments, newest first (Camunda's selectCommentsByTaskId; ties by id)."""
    rows = conn.execute(
        select(_C)
        .where(_C.c.TASK_ID_ == task_id, _C.c.TYPE_ == "comment")
        .order_by(_C.c.TIME_.desc(), _C.c.ID_.desc())
    ).mappings()
    return [_row(m) for m in rows]


def task_comment(conn: Connection, task_id: str, comment_id: str) -> CommentRow | None:
    row = (
        conn.execute(select(_C).where(_C.c.TASK_ID_ == task_id, _C.c.ID_ == comment_id))
        .mappings()
        .first()
    )
    return None if row is None else _row(row)


def task_known(conn: Connection, task_id: str) -> bool:
    """Whether the task exists, open or in history (Camunda's comment resource asks history)."""
    for table in (ACT_RU_TASK, ACT_HI_TASKINST):
        if conn.execute(select(table.c.ID_).where(table.c.ID_ == task_id)).first() is not None:
            return True
    return False
