"""engine-rest: the task resource — task lists and counts (Camunda's TaskQueryDto), one task,
complete / submit-form, claim / unclaim / assignee, task and task-local variables, identity links.

Lists run `projections.queries.tasks` on a read connection; commands go through the Engine.
A task's `formKey` is no column: it is the value the engine recorded when it created the task
(`camunda:formKey`, evaluated then if an expression), read from its instance's state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypedDict

import msgspec
from litestar import Request, Response, get, post
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody

from flowledger.core.errors import NotFound, Rejected
from flowledger.core.forms import FormFieldInvalid
from flowledger.core.limits import strings_in
from flowledger.core.variables import StoredValue
from flowledger.engine import Engine
from flowledger.projections.queries import tasks
from flowledger.projections.queries.declaration import find
from flowledger.projections.queries.tasks import TaskQuery, TaskRow, VariableFilter

from ..dto import Added, derived, to_dto
from ..errors import RestError, invalid, not_found
from ..listing import Listing, count_with, list_routes
from ..params import Sort, SortingDto, paging
from ..variables import (
    VariableValueDto,
    check_decoded_size,
    engine_variables,
    instance_variables_after,
    variables_dto,
)
from .variables_routes import VariableScope, variable_routes

AnyRequest = Request[Any, Any, Any]


@derived(
    TaskRow,
    # 7.15's TaskDto has neither; its form key is the engine's (see the module docstring).
    omit=("last_updated", "task_state"),
    add=(Added("form_key", str | None, after="suspended"),),
)
class TaskDto(msgspec.Struct):
    """Camunda 7.15's TaskDto: every key present, null when empty."""


class TaskQueryDto(TaskQuery):
    """A JSON task query: the filters plus `sorting` (a list, or camunda-client's one object)."""

    sorting: list[SortingDto] | SortingDto | None = None


class UserIdDto(msgspec.Struct, rename="camel"):
    user_id: str | None = None


class CompleteTaskDto(msgspec.Struct, rename="camel"):
    variables: dict[str, VariableValueDto] | None = None
    with_variables_in_return: bool | None = None


class TaskBpmnErrorDto(msgspec.Struct, rename="camel"):
    error_code: str | None = None
    error_message: str | None = None
    variables: dict[str, VariableValueDto] | None = None


class TaskEscalationDto(msgspec.Struct, rename="camel"):
    escalation_code: str | None = None
    variables: dict[str, VariableValueDto] | None = None


class IdentityLinkDto(msgspec.Struct, rename="camel"):
    user_id: str | None = None
    group_id: str | None = None
    type: str | None = None


# -- helpers ------------------------------------------------------------------------------------


def refuse_nul_characters(request: AnyRequest) -> None:
    """Before every task handler, in place of `rest.errors.refuse_nul`: PostgreSQL cannot compare
    text holding NUL, so such an id names no task (a 404 naming the task, as for any unknown
    task) and such a variable name is refused (400) before any query runs."""
    task_id = request.path_params.get("id")
    if isinstance(task_id, str) and "\x00" in task_id:
        raise not_found(f"No matching task with id {task_id!r}")
    name = request.path_params.get("varName")
    if isinstance(name, str) and "\x00" in name:
        raise invalid("Path parameter 'varName' must not contain NUL characters")


def refuse_nul_in_body(parameter: str, value: Any) -> None:
    """PostgreSQL text cannot hold NUL: refused up front rather than failing the write. The
    walk is iterative: a body nested hundreds of levels deep is the engine's to refuse (with
    its nesting limit), not a RecursionError here."""
    if any("\x00" in text for _path, text in strings_in(value)):
        raise invalid(f"Invalid '{parameter}': NUL characters are not allowed")


class RouteOptions(TypedDict, total=False):
    sync_to_thread: bool
    responses: dict[int, ResponseSpec]
    before_request: Callable[[AnyRequest], None]


OPTIONS = RouteOptions(sync_to_thread=True, before_request=refuse_nul_characters)
# complete and submit-form answer 200 with the variables, or 204 without.
COMPLETE_OPTIONS = RouteOptions(
    **OPTIONS,
    responses={
        204: ResponseSpec(
            None, description="Request successful. The response contains no variables."
        ),
    },
)


def _dtos(engine: Engine, rows: list[TaskRow]) -> list[TaskDto]:
    keys = engine.task_service.form_keys(
        {row.id: row.process_instance_id for row in rows if row.process_instance_id}
    )
    return [to_dto(TaskDto, row, form_key=keys.get(row.id)) for row in rows]


def _variable_filters(text: str, parameter: str) -> list[VariableFilter]:
    """`name_op_value,name2_op_value2`, split on `_` exactly as Camunda does (so neither names
    nor values may contain `_` or `,`); the values stay strings."""
    filters = []
    for expression in text.split(","):
        parts = expression.split("_")
        if len(parts) != 3:
            raise invalid(
                f"Cannot set query parameter '{parameter}' to value '{text}': "
                "variable query parameter has to have format KEY_OPERATOR_VALUE"
            )
        filters.append(VariableFilter(name=parts[0], operator=parts[1], value=parts[2]))
    return filters


def _find(
    engine: Engine, query: TaskQuery, sorting: list[Sort], params: Mapping[str, str]
) -> list[TaskDto]:
    first, maximum = paging(params)
    with engine.reading() as conn:
        rows = find(conn, tasks.TASKS, query, sorting, first, maximum)
    return _dtos(engine, rows)


TASKS = Listing(
    path="/task",
    query=TaskQuery,
    body=TaskQueryDto,
    result=TaskDto,
    sorts=tasks.TASKS.sorts,
    find=_find,
    count=count_with(tasks.TASKS),
    conditions={
        "taskVariables": "task_variables",
        "processVariables": "process_variables",
        "caseInstanceVariables": "case_instance_variables",
    },
    parse_conditions=_variable_filters,
    unsupported_sorts=tasks.VARIABLE_SORTS,
)


def _task_row(engine: Engine, task_id: str) -> TaskRow:
    with engine.reading() as conn:
        row = tasks.get(conn, task_id)
    if row is None:
        raise not_found(f"No matching task with id {task_id}")
    return row


# -- one task -----------------------------------------------------------------------------------


@get("/task/{id:str}", **OPTIONS)
def get_task(engine: NamedDependency[Engine], id: FromPath[str]) -> TaskDto:
    return _dtos(engine, [_task_row(engine, id)])[0]


def _complete(
    engine: Engine,
    request: AnyRequest,
    task_id: str,
    data: CompleteTaskDto | None,
    complete: Callable[[str, dict[str, Any]], None] | None = None,
) -> Response[dict[str, VariableValueDto] | None]:
    body = data or CompleteTaskDto()
    refuse_nul_in_body("variables", body.variables)
    check_decoded_size(request, body.variables)
    variables = engine_variables(body.variables)
    complete = complete or engine.complete_task
    if not body.with_variables_in_return:
        complete(task_id, variables)
        return Response(None, status_code=204)
    instance_id = _task_row(engine, task_id).process_instance_id
    complete(task_id, variables)
    values = instance_variables_after(engine, instance_id) if instance_id else {}
    return Response(variables_dto(values), status_code=200)


@post("/task/{id:str}/complete", status_code=200, **COMPLETE_OPTIONS)
def complete(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    data: JSONBody[CompleteTaskDto | None] = None,
) -> Response[dict[str, VariableValueDto] | None]:
    return _complete(engine, request, id, data)


@post("/task/{id:str}/submit-form", status_code=200, **COMPLETE_OPTIONS)
def submit_form(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    data: JSONBody[CompleteTaskDto | None] = None,
) -> Response[dict[str, VariableValueDto] | None]:
    # Completing the task with the form's variables, each checked against its field's
    # constraints and converted to its type (the form service; engine/services/forms.py).
    _task_row(engine, id)
    try:
        return _complete(engine, request, id, data, engine.form_service.submit_task_form)
    except FormFieldInvalid as exc:
        raise RestError(500, "RestException", f"Cannot submit task form {id}: {exc}") from None


def _user_id(data: UserIdDto | None) -> str | None:
    user_id = (data or UserIdDto()).user_id
    refuse_nul_in_body("userId", user_id)
    return user_id


@post("/task/{id:str}/claim", status_code=204, **OPTIONS)
def claim(
    engine: NamedDependency[Engine], id: FromPath[str], data: JSONBody[UserIdDto | None] = None
) -> None:
    user_id = _user_id(data)
    if user_id is None:
        # Camunda's claim with a null user releases the task.
        engine.task_service.unclaim(id)
    else:
        engine.claim(id, user_id)


@post("/task/{id:str}/unclaim", status_code=204, **OPTIONS)
def unclaim(engine: NamedDependency[Engine], id: FromPath[str]) -> None:
    engine.task_service.unclaim(id)


@post("/task/{id:str}/assignee", status_code=204, **OPTIONS)
def set_assignee(
    engine: NamedDependency[Engine], id: FromPath[str], data: JSONBody[UserIdDto | None] = None
) -> None:
    engine.task_service.set_assignee(id, _user_id(data))


# -- BPMN errors and escalations ----------------------------------------------------------------


def _as_rest_exception(act: Callable[[], None]) -> None:
    """Camunda's TaskResourceImpl answers an unknown task (404) and a refused request (400)
    as RestException; an escalation nothing catches stays the engine's error (500)."""
    try:
        act()
    except NotFound as exc:
        raise RestError(404, "RestException", str(exc)) from None
    except Rejected as exc:
        raise RestError(400, "RestException", str(exc)) from None


@post("/task/{id:str}/bpmnError", status_code=204, **OPTIONS)
def handle_bpmn_error(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    data: JSONBody[TaskBpmnErrorDto | None] = None,
) -> None:
    """TaskService.handleBpmnError: the task throws the error where it waits."""
    body = data or TaskBpmnErrorDto()
    refuse_nul_in_body("variables", body.variables)
    check_decoded_size(request, body.variables)
    variables = engine_variables(body.variables)
    _as_rest_exception(
        lambda: engine.task_service.handle_bpmn_error(
            id, body.error_code or "", body.error_message, variables
        )
    )


@post("/task/{id:str}/bpmnEscalation", status_code=204, **OPTIONS)
def handle_escalation(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    data: JSONBody[TaskEscalationDto | None] = None,
) -> None:
    """TaskService.handleEscalation: the task raises the escalation where it waits."""
    body = data or TaskEscalationDto()
    refuse_nul_in_body("variables", body.variables)
    check_decoded_size(request, body.variables)
    variables = engine_variables(body.variables)
    _as_rest_exception(
        lambda: engine.task_service.handle_escalation(id, body.escalation_code or "", variables)
    )


# -- identity links -----------------------------------------------------------------------------


@get("/task/{id:str}/identity-links", **OPTIONS)
def identity_links(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> list[IdentityLinkDto]:
    row = _task_row(engine, id)
    with engine.reading() as conn:
        stored = tasks.identity_links(conn, id)
    links = [IdentityLinkDto(link.user_id, link.group_id, link.type) for link in stored]
    # As Camunda's GetIdentityLinksForTaskCmd: the assignee and the owner are links too.
    if row.assignee is not None:
        links.append(IdentityLinkDto(row.assignee, None, "assignee"))
    if row.owner is not None:
        links.append(IdentityLinkDto(row.owner, None, "owner"))
    wanted = request.query_params.get("type")
    return [link for link in links if wanted is None or link.type == wanted]


@post("/task/{id:str}/identity-links", status_code=204, **OPTIONS)
def add_identity_link(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[IdentityLinkDto | None] = None,
) -> None:
    _task_row(engine, id)
    raise invalid("Adding identity links (POST /task/{id}/identity-links) is not supported yet")


@post("/task/{id:str}/identity-links/delete", status_code=204, **OPTIONS)
def delete_identity_link(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[IdentityLinkDto | None] = None,
) -> None:
    _task_row(engine, id)
    raise invalid(
        "Deleting identity links (POST /task/{id}/identity-links/delete) is not supported yet"
    )


# -- variables ----------------------------------------------------------------------------------


class TaskVariables(VariableScope):
    """A task's variables (`local`: its own only). Deletions are written after the
    modifications as a second command (Camunda's PatchTaskVariablesCmd has one): a failing
    deletion leaves the modifications applied."""

    put_body_required = True

    def __init__(self, *, local: bool) -> None:
        self.local = local
        self.kind = "task local variable" if local else "task variable"

    def values(self, engine: Engine, entity_id: str) -> dict[str, StoredValue]:
        return engine.task_service.get_variable_values(entity_id, local=self.local)

    def engine_values(
        self, dtos: Mapping[str, VariableValueDto] | None, parameter: str
    ) -> dict[str, Any]:
        refuse_nul_in_body(parameter, dtos)
        return engine_variables(dtos)

    def deletions(self, names: list[str] | None) -> list[str]:
        refuse_nul_in_body("deletions", names)
        return names or []

    def set(self, engine: Engine, entity_id: str, values: dict[str, Any]) -> None:
        engine.task_service.set_variables(entity_id, values, local=self.local)

    def remove(self, engine: Engine, entity_id: str, names: list[str]) -> None:
        engine.task_service.remove_variables(entity_id, names, local=self.local)

    def require(self, engine: Engine, entity_id: str) -> None:
        _task_row(engine, entity_id)


routes: list[Any] = [
    *list_routes(
        TASKS,
        get_list="list_tasks",
        post_list="query_tasks",
        get_count="count_tasks",
        post_count="query_task_count",
        **OPTIONS,
    ),
    get_task,
    complete,
    submit_form,
    claim,
    unclaim,
    set_assignee,
    handle_bpmn_error,
    handle_escalation,
    identity_links,
    add_identity_link,
    delete_identity_link,
    *variable_routes("/task/{id:str}/variables", TaskVariables(local=False), "variable", **OPTIONS),
    *variable_routes(
        "/task/{id:str}/localVariables", TaskVariables(local=True), "local_variable", **OPTIONS
    ),
]
