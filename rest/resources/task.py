"""engine-rest: the task resource — task lists and counts (Camunda's TaskQueryDto), one task,
complete / submit-form, claim / unclaim / assignee, task and task-local variables, identity links.

Lists run `projections.search.tasks` on a read connection; commands go through the Engine.
A task's `formKey` is the `camunda:formKey` of its user task in the deployed model; only when
that is an expression is the instance replayed for the value evaluated at task creation.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypedDict

import msgspec
from litestar import Request, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody
from sqlalchemy.engine import Connection

from core import Engine, NotFound
from core.variables import StoredValue
from projections import queries
from projections.search import tasks
from projections.search.tasks import InvalidQuery, TaskQuery, TaskRow, VariableFilter

from ..dto import CountResultDto
from ..errors import invalid, not_found
from ..formats import format_date, parse_bool
from ..params import Sort, SortingDto, paging, query_from_params, sorting_from_body
from ..params import sorting_from_params as sorting_from_query
from ..variables import (
    VariableValueDto,
    engine_value,
    engine_variables,
    value_dto,
    variables_dto,
)

# GET parameters parsed here rather than by `query_from_params`: `name_op_value` lists, and
# orQueries, which only a JSON query can carry.
_VARIABLE_PARAMS = {
    "taskVariables": "task_variables",
    "processVariables": "process_variables",
    "caseInstanceVariables": "case_instance_variables",
}
_BODY_ONLY_PARAMS = {"orQueries", *_VARIABLE_PARAMS}


class ErrorDto(msgspec.Struct):
    """Camunda 7.15's ExceptionDto, the body of every error here (see rest.errors)."""

    type: str
    message: str


class TaskDto(msgspec.Struct, rename="camel"):
    """Camunda 7.15's TaskDto: every key present, null when empty."""

    id: str
    name: str | None
    assignee: str | None
    owner: str | None
    created: str | None
    due: str | None
    follow_up: str | None
    delegation_state: str | None
    description: str | None
    execution_id: str | None
    parent_task_id: str | None
    priority: int | None
    process_definition_id: str | None
    process_instance_id: str | None
    case_execution_id: str | None
    case_definition_id: str | None
    case_instance_id: str | None
    task_definition_key: str | None
    suspended: bool | None
    form_key: str | None
    tenant_id: str | None


class TaskQueryDto(TaskQuery):
    """A JSON task query: the filters plus `sorting` (a list, or camunda-client's one object)."""

    sorting: list[SortingDto] | SortingDto | None = None


class UserIdDto(msgspec.Struct, rename="camel"):
    user_id: str | None = None


class CompleteTaskDto(msgspec.Struct, rename="camel"):
    variables: dict[str, VariableValueDto] | None = None
    with_variables_in_return: bool | None = None


class PatchVariablesDto(msgspec.Struct, rename="camel"):
    modifications: dict[str, VariableValueDto] | None = None
    deletions: list[str] | None = None


class IdentityLinkDto(msgspec.Struct, rename="camel"):
    user_id: str | None = None
    group_id: str | None = None
    type: str | None = None


# -- helpers ------------------------------------------------------------------------------------


def refuse_nul_characters(request: Request[Any, Any, Any]) -> None:
    """Before every handler: PostgreSQL cannot compare text holding NUL, so such an id names no
    task (404) and such a variable name is refused (400) before any query runs."""
    task_id = request.path_params.get("id")
    if isinstance(task_id, str) and "\x00" in task_id:
        raise not_found(f"No matching task with id {task_id!r}")
    name = request.path_params.get("varName")
    if isinstance(name, str) and "\x00" in name:
        raise invalid("Path parameter 'varName' must not contain NUL characters")


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


def refuse_nul_in_body(parameter: str, value: Any) -> None:
    """PostgreSQL text cannot hold NUL: refused up front rather than failing the write."""
    if any("\x00" in text for text in _texts(msgspec.to_builtins(value))):
        raise invalid(f"Invalid '{parameter}': NUL characters are not allowed")


class RouteOptions(TypedDict):
    sync_to_thread: bool
    responses: dict[int, ResponseSpec]
    before_request: Callable[[Request[Any, Any, Any]], None]


# Litestar would document its own validation-error body for 400; the errors are Camunda's.
ERRORS = {400: ResponseSpec(ErrorDto, description="Bad Request", generate_examples=False)}
OPTIONS = RouteOptions(sync_to_thread=True, responses=ERRORS, before_request=refuse_nul_characters)
# complete and submit-form answer 200 with the variables, or 204 without.
COMPLETE_OPTIONS = RouteOptions(
    sync_to_thread=True,
    responses={
        **ERRORS,
        204: ResponseSpec(
            None, description="Request successful. The response contains no variables."
        ),
    },
    before_request=refuse_nul_characters,
)


def _actor(request: Request[Any, Any, Any]) -> str | None:
    """The authenticated user (rest.auth puts it in the scope state), recorded with commands."""
    user = request.scope.get("state", {}).get("user_id")
    return user if isinstance(user, str) else None


def _task_dto(row: TaskRow, form_key: str | None) -> TaskDto:
    return TaskDto(
        id=row.id,
        name=row.name,
        assignee=row.assignee,
        owner=row.owner,
        created=format_date(row.created),
        due=format_date(row.due),
        follow_up=format_date(row.follow_up),
        delegation_state=row.delegation_state,
        description=row.description,
        execution_id=row.execution_id,
        parent_task_id=row.parent_task_id,
        priority=row.priority,
        process_definition_id=row.process_definition_id,
        process_instance_id=row.process_instance_id,
        case_execution_id=row.case_execution_id,
        case_definition_id=row.case_definition_id,
        case_instance_id=row.case_instance_id,
        task_definition_key=row.task_definition_key,
        suspended=row.suspended,
        form_key=form_key,
        tenant_id=row.tenant_id,
    )


def _is_expression(text: str) -> bool:
    return "${" in text or "#{" in text


def _evaluated_form_keys(engine: Engine, process_instance_id: str) -> dict[str, str | None]:
    """Task id -> form key as evaluated when each task of the instance was created (kept in the
    instance's state only)."""
    try:
        state = engine.replay(process_instance_id)
    except NotFound:
        return {}
    return {task_id: task.form_key for task_id, task in state.tasks.items()}


def _form_keys(engine: Engine, conn: Connection, rows: list[TaskRow]) -> dict[str, str | None]:
    definitions = {r.process_definition_id for r in rows if r.process_definition_id}
    templates = tasks.form_key_templates(conn, definitions)
    evaluated: dict[str, dict[str, str | None]] = {}  # one replay per instance
    keys: dict[str, str | None] = {}
    for row in rows:
        raw = templates.get(row.process_definition_id or "", {}).get(row.task_definition_key or "")
        instance = row.process_instance_id
        if raw is not None and _is_expression(raw) and instance is not None:
            if instance not in evaluated:
                evaluated[instance] = _evaluated_form_keys(engine, instance)
            keys[row.id] = evaluated[instance].get(row.id)
        else:
            keys[row.id] = raw
    return keys


def _dtos(engine: Engine, conn: Connection, rows: list[TaskRow]) -> list[TaskDto]:
    keys = _form_keys(engine, conn, rows)
    return [_task_dto(row, keys[row.id]) for row in rows]


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


def _query_from_params(params: Mapping[str, str]) -> TaskQuery:
    plain = {k: params[k] for k in params if k not in _BODY_ONLY_PARAMS}
    query = query_from_params(plain, TaskQuery)
    for parameter, field in _VARIABLE_PARAMS.items():
        text = params.get(parameter)
        if text:
            query = msgspec.structs.replace(query, **{field: _variable_filters(text, parameter)})
    return query


def _refuse_variable_sorts(by: str | None) -> None:
    if by in tasks.VARIABLE_SORTS:
        raise invalid(f"Cannot set query parameter 'sortBy' to value '{by}': not supported")


def _sorting_from_params(params: Mapping[str, str]) -> list[Sort]:
    _refuse_variable_sorts(params.get("sortBy"))
    return sorting_from_query(params, tasks.SORTS)


def _sorting_from_body(query: TaskQueryDto) -> list[Sort]:
    entries = query.sorting if isinstance(query.sorting, list) else [query.sorting]
    for entry in entries:
        if entry is not None:
            _refuse_variable_sorts(entry.sort_by)
    return sorting_from_body(query.sorting, tasks.SORTS)


def _search(
    engine: Engine, query: TaskQuery, sorting: list[Sort], params: Mapping[str, str]
) -> list[TaskDto]:
    first, maximum = paging(params)
    try:
        with engine.reading() as conn:
            return _dtos(engine, conn, tasks.find(conn, query, sorting, first, maximum))
    except InvalidQuery as exc:
        raise invalid(str(exc)) from None


def _count(engine: Engine, query: TaskQuery) -> CountResultDto:
    try:
        with engine.reading() as conn:
            return CountResultDto(tasks.count(conn, query))
    except InvalidQuery as exc:
        raise invalid(str(exc)) from None


def _task_row(engine: Engine, task_id: str) -> TaskRow:
    with engine.reading() as conn:
        row = tasks.get(conn, task_id)
    if row is None:
        raise not_found(f"No matching task with id {task_id}")
    return row


# -- lists --------------------------------------------------------------------------------------


@get("/task", **OPTIONS)
def list_tasks(engine: NamedDependency[Engine], request: Request[Any, Any, Any]) -> list[TaskDto]:
    params = request.query_params
    return _search(engine, _query_from_params(params), _sorting_from_params(params), params)


@post("/task", status_code=200, **OPTIONS)
def query_tasks(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    data: JSONBody[TaskQueryDto | None] = None,
) -> list[TaskDto]:
    query = data or TaskQueryDto()
    return _search(engine, query, _sorting_from_body(query), request.query_params)


@get("/task/count", **OPTIONS)
def count_tasks(engine: NamedDependency[Engine], request: Request[Any, Any, Any]) -> CountResultDto:
    return _count(engine, _query_from_params(request.query_params))


@post("/task/count", status_code=200, **OPTIONS)
def query_task_count(
    engine: NamedDependency[Engine], data: JSONBody[TaskQueryDto | None] = None
) -> CountResultDto:
    return _count(engine, data or TaskQueryDto())


# -- one task -----------------------------------------------------------------------------------


@get("/task/{id:str}", **OPTIONS)
def get_task(engine: NamedDependency[Engine], id: FromPath[str]) -> TaskDto:
    with engine.reading() as conn:
        row = tasks.get(conn, id)
        if row is None:
            raise not_found(f"No matching task with id {id}")
        return _dtos(engine, conn, [row])[0]


def _process_variables_after(engine: Engine, process_instance_id: str) -> dict[str, StoredValue]:
    """The instance-scope variables once the command is done (what Camunda returns from
    complete with withVariablesInReturn). When the instance has ended its runtime variables are
    gone: their last values come from history (ACT_HI_VARINST; empty at history level none)."""
    try:
        return engine.get_variable_values(process_instance_id, local=True)
    except NotFound:
        pass
    if engine.history_mode == "async":
        engine.flush_history()
    with engine.reading() as conn:
        rows = queries.historic_variable_rows(conn, process_instance_id)
    return {
        m["NAME_"]: stored
        for m, stored in rows
        if m["EXECUTION_ID_"] == process_instance_id
        and m["TASK_ID_"] is None
        and m["STATE_"] != "DELETED"
    }


def _complete(
    engine: Engine, task_id: str, data: CompleteTaskDto | None, actor: str | None
) -> Response[dict[str, VariableValueDto] | None]:
    body = data or CompleteTaskDto()
    refuse_nul_in_body("variables", body.variables)
    variables = engine_variables(body.variables)
    if not body.with_variables_in_return:
        engine.complete_task(task_id, variables, actor=actor)
        return Response(None, status_code=204)
    instance_id = _task_row(engine, task_id).process_instance_id
    engine.complete_task(task_id, variables, actor=actor)
    values = _process_variables_after(engine, instance_id) if instance_id else {}
    return Response(variables_dto(values), status_code=200)


@post("/task/{id:str}/complete", status_code=200, **COMPLETE_OPTIONS)
def complete(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    id: FromPath[str],
    data: JSONBody[CompleteTaskDto | None] = None,
) -> Response[dict[str, VariableValueDto] | None]:
    return _complete(engine, id, data, _actor(request))


@post("/task/{id:str}/submit-form", status_code=200, **COMPLETE_OPTIONS)
def submit_form(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    id: FromPath[str],
    data: JSONBody[CompleteTaskDto | None] = None,
) -> Response[dict[str, VariableValueDto] | None]:
    # No form fields here: submitting a task's form is completing it with the form's variables.
    return _complete(engine, id, data, _actor(request))


def _user_id(data: UserIdDto | None) -> str | None:
    user_id = (data or UserIdDto()).user_id
    refuse_nul_in_body("userId", user_id)
    return user_id


@post("/task/{id:str}/claim", status_code=204, **OPTIONS)
def claim(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    id: FromPath[str],
    data: JSONBody[UserIdDto | None] = None,
) -> None:
    user_id = _user_id(data)
    if user_id is None:
        # Camunda's claim with a null user releases the task.
        engine.unclaim(id, actor=_actor(request))
    else:
        engine.claim(id, user_id, actor=_actor(request))


@post("/task/{id:str}/unclaim", status_code=204, **OPTIONS)
def unclaim(
    engine: NamedDependency[Engine], request: Request[Any, Any, Any], id: FromPath[str]
) -> None:
    engine.unclaim(id, actor=_actor(request))


@post("/task/{id:str}/assignee", status_code=204, **OPTIONS)
def set_assignee(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    id: FromPath[str],
    data: JSONBody[UserIdDto | None] = None,
) -> None:
    engine.set_assignee(id, _user_id(data), actor=_actor(request))


# -- identity links -----------------------------------------------------------------------------


@get("/task/{id:str}/identity-links", **OPTIONS)
def identity_links(
    engine: NamedDependency[Engine], request: Request[Any, Any, Any], id: FromPath[str]
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


def _deserialize(request: Request[Any, Any, Any], parameter: str) -> bool:
    text = request.query_params.get(parameter)
    return True if text is None else parse_bool(text)


def _one_variable(engine: Engine, task_id: str, name: str, *, local: bool) -> StoredValue:
    stored = engine.get_task_variable_values(task_id, local=local).get(name)
    if stored is None:
        kind = "task local variable" if local else "task variable"
        raise not_found(f"{kind} with name {name} does not exist")
    return stored


def _patch(
    engine: Engine, task_id: str, data: PatchVariablesDto | None, local: bool, actor: str | None
) -> None:
    """Modifications first, then deletions, as Camunda's PatchTaskVariablesCmd (here two
    commands: a failing deletion leaves the modifications applied)."""
    body = data or PatchVariablesDto()
    refuse_nul_in_body("modifications", body.modifications)
    refuse_nul_in_body("deletions", body.deletions)
    modifications = engine_variables(body.modifications)
    if modifications:
        engine.set_task_variables(task_id, modifications, local=local, actor=actor)
    if body.deletions:
        engine.remove_task_variables(task_id, body.deletions, local=local, actor=actor)
    if not modifications and not body.deletions:
        _task_row(engine, task_id)  # nothing to change, but an unknown task is still a 404


def _binary(stored: StoredValue, name: str) -> bytes:
    if stored.type != "bytes":
        raise invalid(f"Value of variable with id {name} is not a binary value.")
    return b"" if stored.value is None else base64.b64decode(str(stored.value))


def _variable_routes(segment: str, *, local: bool) -> list[Any]:
    """The same six handlers for `/variables` and `/localVariables`."""
    path = f"/task/{{id:str}}/{segment}"

    @get(path, **OPTIONS)
    def all_variables(
        engine: NamedDependency[Engine], request: Request[Any, Any, Any], id: FromPath[str]
    ) -> dict[str, VariableValueDto]:
        values = engine.get_task_variable_values(id, local=local)
        return variables_dto(values, deserialize=_deserialize(request, "deserializeValues"))

    @post(path, status_code=204, **OPTIONS)
    def modify_variables(
        engine: NamedDependency[Engine],
        request: Request[Any, Any, Any],
        id: FromPath[str],
        data: JSONBody[PatchVariablesDto | None] = None,
    ) -> None:
        _patch(engine, id, data, local, _actor(request))

    @get(f"{path}/{{varName:str}}", **OPTIONS)
    def one_variable(
        engine: NamedDependency[Engine],
        request: Request[Any, Any, Any],
        id: FromPath[str],
        varName: FromPath[str],
    ) -> VariableValueDto:
        stored = _one_variable(engine, id, varName, local=local)
        return value_dto(stored, deserialize=_deserialize(request, "deserializeValue"))

    @put(f"{path}/{{varName:str}}", status_code=204, **OPTIONS)
    def put_variable(
        engine: NamedDependency[Engine],
        request: Request[Any, Any, Any],
        id: FromPath[str],
        varName: FromPath[str],
        data: JSONBody[VariableValueDto],
    ) -> None:
        refuse_nul_in_body("value", data)
        value = engine_value(varName, data)
        engine.set_task_variables(id, {varName: value}, local=local, actor=_actor(request))

    @delete(f"{path}/{{varName:str}}", status_code=204, **OPTIONS)
    def delete_variable(
        engine: NamedDependency[Engine],
        request: Request[Any, Any, Any],
        id: FromPath[str],
        varName: FromPath[str],
    ) -> None:
        engine.remove_task_variables(id, [varName], local=local, actor=_actor(request))

    @get(f"{path}/{{varName:str}}/data", **OPTIONS)
    def variable_data(
        engine: NamedDependency[Engine], id: FromPath[str], varName: FromPath[str]
    ) -> Response[bytes]:
        data = _binary(_one_variable(engine, id, varName, local=local), varName)
        return Response(data, media_type="application/octet-stream")

    return [
        all_variables,
        modify_variables,
        one_variable,
        put_variable,
        delete_variable,
        variable_data,
    ]


routes: list[Any] = [
    list_tasks,
    query_tasks,
    count_tasks,
    query_task_count,
    get_task,
    complete,
    submit_form,
    claim,
    unclaim,
    set_assignee,
    identity_links,
    add_identity_link,
    delete_identity_link,
    *_variable_routes("variables", local=False),
    *_variable_routes("localVariables", local=True),
]
