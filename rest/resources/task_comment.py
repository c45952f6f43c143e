"""engine-rest: comments on a task — `GET /task/{id}/comment` (newest first), one comment, and
`POST /task/{id}/comment/create` (the comment with its `self` link), as Camunda's
TaskCommentResource answers them. A comment is an event of the task's instance, written by the
caller (the authenticated user); it is shown from history (ACT_HI_COMMENT).

Comments are added to open tasks: a completed task's comments are read, not written.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from flowledger.core.errors import NotFound
from flowledger.engine import Engine
from flowledger.projections.queries.comments import CommentRow

from ..dto import FIRST, Added, LinkDto, derived, self_link, to_dto
from ..errors import RestError, invalid, not_found
from ..listing import AnyRequest
from .process_definition import rest_base
from .task import OPTIONS, refuse_nul_in_body


@derived(
    CommentRow,
    # Camunda 7.15's CommentDto has no processInstanceId (later versions add it)
    omit=("process_instance_id",),
    add=(Added("links", list[LinkDto], [], after=FIRST),),
)
class CommentDto(msgspec.Struct):
    """Camunda 7.15's CommentDto; `message` is the comment's whole text."""


class NewCommentDto(msgspec.Struct, rename="camel"):
    message: str | None = None
    process_instance_id: str | None = None


def _history_enabled(engine: Engine, status: int) -> None:
    if engine.history_level == "none":
        raise RestError(status, "InvalidRequestException", "History is not enabled")


def _require_task(engine: Engine, task_id: str, status: int) -> None:
    if not engine.task_service.task_known(task_id):
        raise RestError(status, "InvalidRequestException", f"No task found for task id {task_id}")


@get("/task/{id:str}/comment", **OPTIONS)
def get_comments(engine: NamedDependency[Engine], id: FromPath[str]) -> list[CommentDto]:
    if engine.history_level == "none":
        return []
    _require_task(engine, id, 404)
    return [to_dto(CommentDto, c) for c in engine.task_service.comments(id)]


@get("/task/{id:str}/comment/{commentId:str}", **OPTIONS)
def get_comment(
    engine: NamedDependency[Engine], id: FromPath[str], commentId: FromPath[str]
) -> CommentDto:
    _history_enabled(engine, 404)
    found = engine.task_service.comment(id, commentId)
    if found is None:
        raise not_found(f"Task comment with id {commentId} does not exist for task id '{id}'.")
    return to_dto(CommentDto, found)


@post("/task/{id:str}/comment/create", status_code=200, **OPTIONS)
def create_comment(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    data: JSONBody[NewCommentDto | None] = None,
) -> CommentDto:
    _history_enabled(engine, 403)
    _require_task(engine, id, 400)
    body = data or NewCommentDto()
    if body.message is None or not body.message.strip():
        raise invalid("Not enough parameters submitted: a comment needs a non-blank 'message'")
    refuse_nul_in_body("message", body.message)
    try:
        comment_id = engine.task_service.add_comment(id, body.message)
    except NotFound:
        raise invalid(
            f"Cannot add a comment to task {id}: it is completed (comments go on open tasks)"
        ) from None
    if engine.history_mode == "async":
        engine.flush_history()
    found = engine.task_service.comment(id, comment_id)
    if found is None:  # history written below the comment's level: none answered above
        raise not_found(f"Task comment with id {comment_id} does not exist for task id '{id}'.")
    links = self_link(rest_base(request), f"/task/{id}/comment/{comment_id}")
    return to_dto(CommentDto, found, links=links)


routes: list[Any] = [get_comments, get_comment, create_comment]
