"""engine-rest: the process-instance resource.

`GET|POST /process-instance` (+ `/count`), one running instance, deleting it, its variables
(`/variables`, one by name, its binary `/data`) and its activity instance tree.

Also the helpers the execution and variable-instance resources share: reading a query with
variable filters from the query string, and turning a filter the search cannot evaluate into a
400. This engine has no call activities, listeners or I/O mappings, so DELETE's
`skipCustomListeners`, `skipIoMappings` and `skipSubprocesses` have nothing to skip; no
incidents, so activity instances carry none; no tenants and no suspension of instances.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

import msgspec
from litestar import Request, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, JSONBody

from core import Engine, NotFound, views
from core.variables import StoredValue
from projections.search import runtime

from ..dto import CountResultDto, LinkDto
from ..errors import invalid, not_found
from ..formats import parse_bool
from ..params import SortingDto, paging, query_from_params, sorting_from_body, sorting_from_params
from ..variables import VariableValueDto, engine_variables, value_dto, variables_dto

AnyRequest = Request[Any, Any, Any]
Q = TypeVar("Q", bound=msgspec.Struct)


# -- helpers shared with the execution and variable-instance resources ------------------------


@contextmanager
def bad_query_is_400() -> Iterator[None]:
    """A variable filter the search cannot evaluate answers 400, naming the problem."""
    try:
        yield
    except runtime.QueryError as exc:
        raise invalid(str(exc)) from None


def query_with_variables(params: Mapping[str, str], cls: type[Q], **condition_fields: str) -> Q:
    """The query Struct `cls` from GET parameters; `condition_fields` maps the parameters
    written as `name_op_value,...` (e.g. `variables`) to the Struct attributes they fill."""
    plain = {key: params[key] for key in params if key not in condition_fields}
    query = query_from_params(plain, cls)
    parsed: dict[str, Any] = {}
    with bad_query_is_400():
        for parameter, attribute in condition_fields.items():
            text = params.get(parameter)
            if text:
                parsed[attribute] = runtime.conditions_from_text(text, parameter)
    return msgspec.structs.replace(query, **parsed) if parsed else query


# Camunda reads firstResult and maxResults as Java ints; larger ones would overflow the database.
MAX_PAGE_NUMBER = 2**31 - 1


def page_of(params: Mapping[str, str]) -> tuple[int, int | None]:
    """`firstResult` and `maxResults`, refused beyond Java's int range."""
    first, maximum = paging(params)
    for name, number in (("firstResult", first), ("maxResults", maximum)):
        if number is not None and number > MAX_PAGE_NUMBER:
            raise invalid(
                f"Cannot set query parameter '{name}' to value '{number}': "
                f"larger than {MAX_PAGE_NUMBER}"
            )
    return first, maximum


def flag(params: Mapping[str, str], name: str, default: bool) -> bool:
    """A boolean query parameter read as Java's Boolean.parseBoolean, `default` when absent."""
    text = params.get(name)
    return default if text is None else parse_bool(text)


def binary_response(stored: StoredValue, not_binary: str) -> Response[bytes]:
    """A Bytes value as `application/octet-stream`; any other type is a 400 (as Camunda)."""
    if stored.type != "bytes":
        raise invalid(not_binary)
    data = base64.b64decode(str(stored.value)) if stored.value is not None else b""
    return Response(content=data, media_type="application/octet-stream", status_code=200)


class CamundaExceptionDto(msgspec.Struct):
    """The body of every error answer, as Camunda's OpenAPI document describes it."""

    type: str
    message: str


# Documents the 400 answers with Camunda's error shape: without it Litestar documents its own
# validation error body (`status_code`, `detail`, `extra`), which this app never sends.
ERRORS: dict[int, ResponseSpec] = {
    400: ResponseSpec(CamundaExceptionDto, description="Invalid request (see `message`)"),
}


# PostgreSQL's text columns cannot hold NUL: refused up front instead of failing in the database.
NUL = "\x00"


def wire_variables(dtos: Mapping[str, VariableValueDto] | None) -> dict[str, Any]:
    """`engine_variables`, refusing NUL characters in names and in text values."""
    for name, dto in (dtos or {}).items():
        if NUL in name or (isinstance(dto.value, str) and NUL in dto.value):
            raise invalid(
                f"Cannot set variable {name!r}: names and String values cannot contain NUL "
                "characters"
            )
    return engine_variables(dtos)


class PatchVariablesDto(msgspec.Struct, rename="camel"):
    modifications: dict[str, VariableValueDto] | None = None
    deletions: list[str] | None = None


# -- DTOs ---------------------------------------------------------------------------------------


class ProcessInstanceDto(msgspec.Struct, rename="camel"):
    links: list[LinkDto]
    id: str
    definition_id: str
    business_key: str | None
    case_instance_id: str | None
    ended: bool
    suspended: bool
    tenant_id: str | None


class ProcessInstanceQueryDto(runtime.ProcessInstanceQuery, rename="camel"):
    sorting: list[SortingDto] | SortingDto | None = None
    or_queries: list[dict[str, Any]] | None = None


class ActivityInstanceIncidentDto(msgspec.Struct, rename="camel"):
    id: str
    parent_activity_instance_id: str


class TransitionInstanceDto(msgspec.Struct, rename="camel"):
    id: str
    parent_activity_instance_id: str | None
    activity_id: str
    activity_name: str | None
    activity_type: str
    process_instance_id: str
    process_definition_id: str
    execution_id: str
    incident_ids: list[str]
    incidents: list[ActivityInstanceIncidentDto]


class ActivityInstanceDto(msgspec.Struct, rename="camel"):
    id: str
    parent_activity_instance_id: str | None
    activity_id: str
    activity_name: str | None
    activity_type: str
    process_instance_id: str
    process_definition_id: str
    child_activity_instances: list[ActivityInstanceDto]
    child_transition_instances: list[TransitionInstanceDto]
    execution_ids: list[str]
    incident_ids: list[str]
    incidents: list[ActivityInstanceIncidentDto]


def instance_dto(row: runtime.ProcessInstanceRow) -> ProcessInstanceDto:
    # Camunda adds links only to the answer of a start; a running instance is never ended.
    return ProcessInstanceDto(
        links=[],
        id=row.id,
        definition_id=row.definition_id,
        business_key=row.business_key,
        case_instance_id=row.case_instance_id,
        ended=False,
        suspended=row.suspended,
        tenant_id=row.tenant_id,
    )


# -- list and count -------------------------------------------------------------------------------


def _query(params: Mapping[str, str]) -> runtime.ProcessInstanceQuery:
    return query_with_variables(params, runtime.ProcessInstanceQuery, variables="variables")


def _check_body(body: ProcessInstanceQueryDto) -> None:
    if body.or_queries:
        raise invalid("orQueries are not supported: send one query per request")


def _find(
    engine: Engine,
    query: runtime.ProcessInstanceQuery,
    sorting: runtime.Sorting,
    params: Mapping[str, str],
) -> list[ProcessInstanceDto]:
    first, maximum = page_of(params)
    with bad_query_is_400(), engine.reading() as conn:
        rows = runtime.find_process_instances(conn, query, sorting, first, maximum)
    return [instance_dto(r) for r in rows]


def _count(engine: Engine, query: runtime.ProcessInstanceQuery) -> CountResultDto:
    with bad_query_is_400(), engine.reading() as conn:
        return CountResultDto(runtime.count_process_instances(conn, query))


@get("/process-instance", sync_to_thread=True, responses=ERRORS)
def list_instances(
    engine: NamedDependency[Engine], request: AnyRequest
) -> list[ProcessInstanceDto]:
    params = request.query_params
    sorting = sorting_from_params(params, runtime.INSTANCE_SORTS)
    return _find(engine, _query(params), sorting, params)


@post("/process-instance", status_code=200, sync_to_thread=True, responses=ERRORS)
def query_instances(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    data: JSONBody[ProcessInstanceQueryDto | None] = None,
) -> list[ProcessInstanceDto]:
    body = data or ProcessInstanceQueryDto()
    _check_body(body)
    sorting = sorting_from_body(body.sorting, runtime.INSTANCE_SORTS)
    return _find(engine, body, sorting, request.query_params)


@get("/process-instance/count", sync_to_thread=True, responses=ERRORS)
def count_instances(engine: NamedDependency[Engine], request: AnyRequest) -> CountResultDto:
    return _count(engine, _query(request.query_params))


@post("/process-instance/count", status_code=200, sync_to_thread=True, responses=ERRORS)
def query_instance_count(
    engine: NamedDependency[Engine], data: JSONBody[ProcessInstanceQueryDto | None] = None
) -> CountResultDto:
    body = data or ProcessInstanceQueryDto()
    _check_body(body)
    return _count(engine, body)


# -- one instance ---------------------------------------------------------------------------------


def _missing(instance_id: str) -> Exception:
    return not_found(f"Process instance with id {instance_id} does not exist")


@get("/process-instance/{id:str}", sync_to_thread=True, responses=ERRORS)
def get_instance(engine: NamedDependency[Engine], id: FromPath[str]) -> ProcessInstanceDto:
    with engine.reading() as conn:
        row = runtime.process_instance(conn, id)
    if row is None:
        raise _missing(id)
    return instance_dto(row)


@delete("/process-instance/{id:str}", status_code=204, sync_to_thread=True, responses=ERRORS)
def delete_instance(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> None:
    # skipCustomListeners, skipIoMappings and skipSubprocesses are accepted: there is nothing
    # here they could skip (see the module docstring).
    try:
        if NUL in id:
            raise NotFound("Process instance", id)
        engine.delete_process_instance(id)
    except NotFound:
        if flag(request.query_params, "failIfNotExists", True):
            raise _missing(id) from None


def _tree_dto(
    node: views.ActivityInstanceNode, instance_id: str, definition_id: str
) -> ActivityInstanceDto:
    return ActivityInstanceDto(
        id=node.id,
        parent_activity_instance_id=node.parent_activity_instance_id,
        activity_id=node.activity_id,
        activity_name=node.activity_name,
        activity_type=node.activity_type,
        process_instance_id=instance_id,
        process_definition_id=definition_id,
        child_activity_instances=[
            _tree_dto(child, instance_id, definition_id) for child in node.child_activity_instances
        ],
        child_transition_instances=[],
        execution_ids=list(node.execution_ids),
        incident_ids=[],
        incidents=[],
    )


@get("/process-instance/{id:str}/activity-instances", sync_to_thread=True, responses=ERRORS)
def activity_instances(engine: NamedDependency[Engine], id: FromPath[str]) -> ActivityInstanceDto:
    with _instance_known(id):
        root = engine.activity_instance_tree(id)
    # The root stands for the process definition: its activity id is the definition's id.
    return _tree_dto(root, root.id, root.activity_id)


# -- variables ------------------------------------------------------------------------------------


@contextmanager
def _instance_known(instance_id: str) -> Iterator[None]:
    if NUL in instance_id:
        raise _missing(instance_id)
    try:
        yield
    except NotFound:
        raise _missing(instance_id) from None


def _values(engine: Engine, instance_id: str) -> dict[str, StoredValue]:
    with _instance_known(instance_id):
        return engine.get_variable_values(instance_id)


def _value(engine: Engine, instance_id: str, name: str) -> StoredValue:
    stored = _values(engine, instance_id).get(name)
    if stored is None:
        raise not_found(f"process instance variable with name {name} does not exist")
    return stored


@get("/process-instance/{id:str}/variables", sync_to_thread=True, responses=ERRORS)
def get_variables(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> dict[str, VariableValueDto]:
    deserialize = flag(request.query_params, "deserializeValues", True)
    return variables_dto(_values(engine, id), deserialize=deserialize)


@post(
    "/process-instance/{id:str}/variables", status_code=204, sync_to_thread=True, responses=ERRORS
)
def modify_variables(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[PatchVariablesDto | None] = None,
) -> None:
    patch_variables(engine, id, data, local=False, known=_instance_known)


def patch_variables(
    engine: Engine,
    execution_id: str,
    data: PatchVariablesDto | None,
    *,
    local: bool,
    known: Callable[[str], AbstractContextManager[None]],
) -> None:
    """Camunda's `{modifications, deletions}`: the engine has no single command for both, so
    the modifications are written first, then the deletions (Camunda's order too: a name in
    both ends up deleted). Every value is checked before anything is written."""
    body = data or PatchVariablesDto()
    values = wire_variables(body.modifications)
    with known(execution_id):
        if values:
            engine.set_variables(execution_id, values, local=local)
        if body.deletions:
            engine.remove_variables(execution_id, body.deletions, local=local)
        if not values and not body.deletions:
            engine.get_variable_values(execution_id, local=True)  # still 404 when unknown


@get("/process-instance/{id:str}/variables/{varName:str}", sync_to_thread=True, responses=ERRORS)
def get_variable(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str], varName: FromPath[str]
) -> VariableValueDto:
    deserialize = flag(request.query_params, "deserializeValue", True)
    return value_dto(_value(engine, id, varName), deserialize=deserialize)


@put(
    "/process-instance/{id:str}/variables/{varName:str}",
    status_code=204,
    sync_to_thread=True,
    responses=ERRORS,
)
def put_variable(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    varName: FromPath[str],
    data: JSONBody[VariableValueDto | None] = None,
) -> None:
    values = wire_variables({varName: data or VariableValueDto()})
    with _instance_known(id):
        engine.set_variables(id, values)


@delete(
    "/process-instance/{id:str}/variables/{varName:str}",
    status_code=204,
    sync_to_thread=True,
    responses=ERRORS,
)
def delete_variable(
    engine: NamedDependency[Engine], id: FromPath[str], varName: FromPath[str]
) -> None:
    with _instance_known(id):
        engine.remove_variables(id, [varName])


@get(
    "/process-instance/{id:str}/variables/{varName:str}/data", sync_to_thread=True, responses=ERRORS
)
def get_variable_data(
    engine: NamedDependency[Engine], id: FromPath[str], varName: FromPath[str]
) -> Response[bytes]:
    stored = _value(engine, id, varName)
    return binary_response(stored, f"Value of variable {varName} is not a binary value.")


routes: list[Any] = [
    list_instances,
    query_instances,
    count_instances,
    query_instance_count,
    get_instance,
    delete_instance,
    activity_instances,
    get_variables,
    modify_variables,
    get_variable,
    put_variable,
    delete_variable,
    get_variable_data,
]
