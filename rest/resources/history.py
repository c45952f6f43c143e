"""engine-rest: the history resources. `/history/process-instance`, `/history/activity-instance`,
`/history/task`, `/history/variable-instance` and `/history/detail`: lists (GET, and POST with a
JSON query), counts, single entries, binary values; and `DELETE /history/process-instance/{id}`.
Exactly Camunda 7.15's operations: it has no `GET /history/task/{id}` and no
`POST /history/detail/count`, so neither has this server.

The filtering lives in `projections.search.history`; this module turns requests into its query
Structs and its rows into Camunda's DTOs (every key present, dates in Camunda's format).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

import msgspec
from litestar import Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody
from sqlalchemy.engine import Connection

from core import Engine, NotFound
from projections.search import history as search

from ..dto import CountResultDto
from ..errors import invalid, not_found
from ..formats import format_date, parse_bool
from ..params import (
    Sort,
    SortingDto,
    paging,
    query_from_params,
    sorting_from_body,
    sorting_from_params,
)
from ..variables import value_dto

Q = TypeVar("Q", bound=msgspec.Struct)
R = TypeVar("R", bound=msgspec.Struct)
D = TypeVar("D", bound=msgspec.Struct)
AnyRequest = Request[Any, Any, Any]

# -- DTOs: field names as in Camunda's DTOs; each mirrors a `projections.search.history` row -----


class HistoricProcessInstanceDto(msgspec.Struct, rename="camel"):
    id: str
    business_key: str | None
    process_definition_id: str
    process_definition_key: str | None
    process_definition_name: str | None
    process_definition_version: int | None
    start_time: str | None
    end_time: str | None
    removal_time: str | None
    duration_in_millis: int | None
    start_user_id: str | None
    start_activity_id: str | None
    delete_reason: str | None
    root_process_instance_id: str | None
    super_process_instance_id: str | None
    super_case_instance_id: str | None
    case_instance_id: str | None
    tenant_id: str | None
    state: str | None


class HistoricActivityInstanceDto(msgspec.Struct, rename="camel"):
    id: str
    parent_activity_instance_id: str | None
    activity_id: str
    activity_name: str | None
    activity_type: str
    process_definition_key: str | None
    process_definition_id: str
    process_instance_id: str
    execution_id: str
    task_id: str | None
    assignee: str | None
    called_process_instance_id: str | None
    called_case_instance_id: str | None
    start_time: str | None
    end_time: str | None
    duration_in_millis: int | None
    canceled: bool
    complete_scope: bool
    tenant_id: str | None
    removal_time: str | None
    root_process_instance_id: str | None


class HistoricTaskInstanceDto(msgspec.Struct, rename="camel"):
    id: str
    process_definition_key: str | None
    process_definition_id: str | None
    process_instance_id: str | None
    execution_id: str | None
    case_definition_key: str | None
    case_definition_id: str | None
    case_instance_id: str | None
    case_execution_id: str | None
    activity_instance_id: str | None
    name: str | None
    description: str | None
    delete_reason: str | None
    owner: str | None
    assignee: str | None
    start_time: str | None
    end_time: str | None
    duration: int | None
    task_definition_key: str | None
    priority: int | None
    due: str | None
    parent_task_id: str | None
    follow_up: str | None
    tenant_id: str | None
    removal_time: str | None
    root_process_instance_id: str | None


class HistoricVariableInstanceDto(msgspec.Struct, rename="camel"):
    id: str
    name: str
    type: str | None
    value: Any
    value_info: dict[str, Any] | None
    process_definition_key: str | None
    process_definition_id: str | None
    process_instance_id: str | None
    execution_id: str | None
    activity_instance_id: str | None
    case_definition_key: str | None
    case_definition_id: str | None
    case_instance_id: str | None
    case_execution_id: str | None
    task_id: str | None
    tenant_id: str | None
    error_message: str | None
    state: str | None
    create_time: str | None
    removal_time: str | None
    root_process_instance_id: str | None


class HistoricDetailDto(msgspec.Struct, rename="camel"):
    """A variable update, as Camunda's HistoricVariableUpdateDto writes it."""

    id: str
    type: str
    process_definition_key: str | None
    process_definition_id: str | None
    process_instance_id: str | None
    activity_instance_id: str | None
    execution_id: str | None
    case_definition_key: str | None
    case_definition_id: str | None
    case_instance_id: str | None
    case_execution_id: str | None
    task_id: str | None
    tenant_id: str | None
    user_operation_id: str | None
    time: str | None
    removal_time: str | None
    root_process_instance_id: str | None
    variable_name: str
    variable_instance_id: str | None
    variable_type: str | None
    value: Any
    value_info: dict[str, Any] | None
    initial: bool
    revision: int | None
    error_message: str | None


# -- JSON query bodies: the query Structs plus `sorting` ----------------------------------------


class HistoricProcessInstanceQueryDto(search.HistoricProcessInstanceQuery):
    sorting: list[SortingDto] | SortingDto | None = None
    or_queries: list[dict[str, Any]] | None = None


class HistoricActivityInstanceQueryDto(search.HistoricActivityInstanceQuery):
    sorting: list[SortingDto] | SortingDto | None = None


class HistoricTaskInstanceQueryDto(search.HistoricTaskInstanceQuery):
    sorting: list[SortingDto] | SortingDto | None = None
    or_queries: list[dict[str, Any]] | None = None


class HistoricVariableInstanceQueryDto(search.HistoricVariableInstanceQuery):
    sorting: list[SortingDto] | SortingDto | None = None


class HistoricDetailQueryDto(search.HistoricDetailQuery):
    sorting: list[SortingDto] | SortingDto | None = None


# -- shared request handling ---------------------------------------------------------------------


@dataclass(frozen=True)
class Listing(Generic[Q, R]):
    """One history list: its query Struct, sort keys, search functions, and the parameters
    whose GET form is Camunda's `name_operator_value` list, as (field, parameter name)."""

    query: type[Q]
    sorts: Collection[str]
    find: Callable[[Connection, Q, Sequence[Sort], int, int | None], list[R]]
    count: Callable[[Connection, Q], int]
    variable_params: tuple[tuple[str, str], ...] = ()


PROCESS_INSTANCES = Listing(
    search.HistoricProcessInstanceQuery,
    search.PROCESS_INSTANCE_SORTS,
    search.find_process_instances,
    search.count_process_instances,
    (("variables", "variables"),),
)
ACTIVITY_INSTANCES = Listing(
    search.HistoricActivityInstanceQuery,
    search.ACTIVITY_INSTANCE_SORTS,
    search.find_activity_instances,
    search.count_activity_instances,
)
TASK_INSTANCES = Listing(
    search.HistoricTaskInstanceQuery,
    search.TASK_INSTANCE_SORTS,
    search.find_task_instances,
    search.count_task_instances,
    (("task_variables", "taskVariables"), ("process_variables", "processVariables")),
)
VARIABLE_INSTANCES = Listing(
    search.HistoricVariableInstanceQuery,
    search.VARIABLE_INSTANCE_SORTS,
    search.find_variable_instances,
    search.count_variable_instances,
)
DETAILS = Listing(
    search.HistoricDetailQuery,
    search.DETAIL_SORTS,
    search.find_details,
    search.count_details,
)


@contextmanager
def _checked() -> Iterator[None]:
    """A filter the search cannot run is the client's mistake: 400, naming it."""
    try:
        yield
    except search.InvalidQuery as exc:
        raise invalid(str(exc)) from None


def _query(params: Mapping[str, str], listing: Listing[Q, R]) -> Q:
    """The query Struct from GET parameters; variable conditions parsed from their text form."""
    special = {name for _field, name in listing.variable_params}
    plain = {key: params[key] for key in params if key not in special}
    query = query_from_params(plain, listing.query)
    conditions: dict[str, Any] = {}
    with _checked():
        for field, name in listing.variable_params:
            text = params.get(name)
            if text:
                conditions[field] = search.parse_variable_conditions(text, name)
    return msgspec.structs.replace(query, **conditions) if conditions else query


def _found(
    engine: Engine, params: Mapping[str, str], listing: Listing[Q, R], query: Q, sorting: list[Sort]
) -> list[R]:
    first, maximum = paging(params)
    with _checked(), engine.reading() as conn:
        return listing.find(conn, query, sorting, first, maximum)


def _listed(engine: Engine, request: AnyRequest, listing: Listing[Q, R]) -> list[R]:
    params = request.query_params
    query = _query(params, listing)
    return _found(engine, params, listing, query, sorting_from_params(params, listing.sorts))


def _listed_by_body(
    engine: Engine, request: AnyRequest, listing: Listing[Q, R], body: Q | None
) -> list[R]:
    query = body if body is not None else listing.query()
    _refuse_or_queries(query)
    sorting = sorting_from_body(getattr(query, "sorting", None), listing.sorts)
    return _found(engine, request.query_params, listing, query, sorting)


def _counted(engine: Engine, listing: Listing[Q, R], query: Q) -> CountResultDto:
    _refuse_or_queries(query)
    with _checked(), engine.reading() as conn:
        return CountResultDto(listing.count(conn, query))


def _refuse_or_queries(query: msgspec.Struct) -> None:
    # Answering an OR query as if it were absent would return wrong results silently.
    if getattr(query, "or_queries", None):
        raise invalid("orQueries are not supported by this server")


def _wire(value: Any) -> Any:
    return format_date(value) if isinstance(value, datetime) else value


def _dto(cls: type[D], row: msgspec.Struct, **extra: Any) -> D:
    """The DTO `cls` from a search row with the same field names, dates formatted."""
    fields = {name: _wire(getattr(row, name)) for name in row.__struct_fields__}
    fields.update(extra)
    return cls(**fields)


def _deserialize(params: Mapping[str, str], *names: str) -> bool:
    """Camunda's `deserializeValues` (default true); single entries also take the singular."""
    for name in names:
        text = params.get(name)
        if text is not None:
            return parse_bool(text)
    return True


def _variable_dto(
    row: search.HistoricVariableInstance, deserialize: bool
) -> HistoricVariableInstanceDto:
    # Bytes values come without their bytes (as with Camunda's binary fetching disabled):
    # `.../data` serves them.
    value = value_dto(row.value, deserialize=deserialize)
    return _dto(
        HistoricVariableInstanceDto,
        row,
        value=value.value,
        type=value.type,
        value_info=value.value_info,
        error_message=None,
    )


def _detail_dto(row: search.HistoricVariableUpdate, deserialize: bool) -> HistoricDetailDto:
    value = value_dto(row.value, deserialize=deserialize)
    return _dto(
        HistoricDetailDto,
        row,
        value=value.value,
        variable_type=value.type,
        value_info=value.value_info,
        error_message=None,
    )


def _one(engine: Engine, listing: Listing[Q, R], query: Q) -> R | None:
    with engine.reading() as conn:
        rows = listing.find(conn, query, (), 0, 1)
    return rows[0] if rows else None


def _binary_response(
    found: tuple[str, bytes | None] | None, entity: str, entity_id: str
) -> Response[bytes]:
    """A Bytes value as `application/octet-stream`; `entity` names what `entity_id` is."""
    if found is None:
        raise not_found(f"{entity.capitalize()} with Id '{entity_id}' does not exist.")
    kind, data = found
    if kind != "bytes":
        raise invalid(f"Value of {entity} with Id '{entity_id}' is not a binary value.")
    return Response(data or b"", media_type="application/octet-stream")


# -- /history/process-instance -------------------------------------------------------------------


def _process_instance_dto(row: search.HistoricProcessInstance) -> HistoricProcessInstanceDto:
    return _dto(HistoricProcessInstanceDto, row)


@get("/history/process-instance", sync_to_thread=True)
def get_historic_process_instances(
    engine: NamedDependency[Engine], request: AnyRequest
) -> list[HistoricProcessInstanceDto]:
    return [_process_instance_dto(r) for r in _listed(engine, request, PROCESS_INSTANCES)]


@post("/history/process-instance", sync_to_thread=True, status_code=200)
def query_historic_process_instances(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    data: JSONBody[HistoricProcessInstanceQueryDto | None] = None,
) -> list[HistoricProcessInstanceDto]:
    rows = _listed_by_body(engine, request, PROCESS_INSTANCES, data)
    return [_process_instance_dto(r) for r in rows]


@get("/history/process-instance/count", sync_to_thread=True)
def get_historic_process_instances_count(
    engine: NamedDependency[Engine], request: AnyRequest
) -> CountResultDto:
    query = _query(request.query_params, PROCESS_INSTANCES)
    return _counted(engine, PROCESS_INSTANCES, query)


@post("/history/process-instance/count", sync_to_thread=True, status_code=200)
def query_historic_process_instances_count(
    engine: NamedDependency[Engine], data: JSONBody[HistoricProcessInstanceQueryDto | None] = None
) -> CountResultDto:
    return _counted(engine, PROCESS_INSTANCES, data or search.HistoricProcessInstanceQuery())


@get("/history/process-instance/{id:str}", sync_to_thread=True)
def get_historic_process_instance(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> HistoricProcessInstanceDto:
    query = search.HistoricProcessInstanceQuery(process_instance_id=id)
    row = _one(engine, PROCESS_INSTANCES, query)
    if row is None:
        raise not_found(f"Historic process instance with id {id} does not exist")
    return _process_instance_dto(row)


@delete("/history/process-instance/{id:str}", sync_to_thread=True, status_code=204)
def delete_historic_process_instance(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> None:
    """Removes an ended instance's history; `failIfNotExists=false` makes an unknown id a no-op."""
    fail_if_missing = request.query_params.get("failIfNotExists")
    try:
        engine.delete_historic_process_instance(id)
    except NotFound:
        if fail_if_missing is None or parse_bool(fail_if_missing):
            raise


# -- /history/activity-instance ------------------------------------------------------------------


def _activity_dto(row: search.HistoricActivityInstance) -> HistoricActivityInstanceDto:
    return _dto(HistoricActivityInstanceDto, row)


@get("/history/activity-instance", sync_to_thread=True)
def get_historic_activity_instances(
    engine: NamedDependency[Engine], request: AnyRequest
) -> list[HistoricActivityInstanceDto]:
    return [_activity_dto(r) for r in _listed(engine, request, ACTIVITY_INSTANCES)]


@post("/history/activity-instance", sync_to_thread=True, status_code=200)
def query_historic_activity_instances(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    data: JSONBody[HistoricActivityInstanceQueryDto | None] = None,
) -> list[HistoricActivityInstanceDto]:
    rows = _listed_by_body(engine, request, ACTIVITY_INSTANCES, data)
    return [_activity_dto(r) for r in rows]


@get("/history/activity-instance/count", sync_to_thread=True)
def get_historic_activity_instances_count(
    engine: NamedDependency[Engine], request: AnyRequest
) -> CountResultDto:
    query = _query(request.query_params, ACTIVITY_INSTANCES)
    return _counted(engine, ACTIVITY_INSTANCES, query)


@post("/history/activity-instance/count", sync_to_thread=True, status_code=200)
def query_historic_activity_instances_count(
    engine: NamedDependency[Engine], data: JSONBody[HistoricActivityInstanceQueryDto | None] = None
) -> CountResultDto:
    return _counted(engine, ACTIVITY_INSTANCES, data or search.HistoricActivityInstanceQuery())


@get("/history/activity-instance/{id:str}", sync_to_thread=True)
def get_historic_activity_instance(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> HistoricActivityInstanceDto:
    query = search.HistoricActivityInstanceQuery(activity_instance_id=id)
    row = _one(engine, ACTIVITY_INSTANCES, query)
    if row is None:
        raise not_found(f"Historic activity instance with id {id} does not exist")
    return _activity_dto(row)


# -- /history/task -------------------------------------------------------------------------------


def _task_dto(row: search.HistoricTaskInstance) -> HistoricTaskInstanceDto:
    return _dto(HistoricTaskInstanceDto, row)


@get("/history/task", sync_to_thread=True)
def get_historic_task_instances(
    engine: NamedDependency[Engine], request: AnyRequest
) -> list[HistoricTaskInstanceDto]:
    return [_task_dto(r) for r in _listed(engine, request, TASK_INSTANCES)]


@post("/history/task", sync_to_thread=True, status_code=200)
def query_historic_task_instances(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    data: JSONBody[HistoricTaskInstanceQueryDto | None] = None,
) -> list[HistoricTaskInstanceDto]:
    return [_task_dto(r) for r in _listed_by_body(engine, request, TASK_INSTANCES, data)]


@get("/history/task/count", sync_to_thread=True)
def get_historic_task_instances_count(
    engine: NamedDependency[Engine], request: AnyRequest
) -> CountResultDto:
    return _counted(engine, TASK_INSTANCES, _query(request.query_params, TASK_INSTANCES))


@post("/history/task/count", sync_to_thread=True, status_code=200)
def query_historic_task_instances_count(
    engine: NamedDependency[Engine], data: JSONBody[HistoricTaskInstanceQueryDto | None] = None
) -> CountResultDto:
    return _counted(engine, TASK_INSTANCES, data or search.HistoricTaskInstanceQuery())


# -- /history/variable-instance ------------------------------------------------------------------


@get("/history/variable-instance", sync_to_thread=True)
def get_historic_variable_instances(
    engine: NamedDependency[Engine], request: AnyRequest
) -> list[HistoricVariableInstanceDto]:
    deserialize = _deserialize(request.query_params, "deserializeValues")
    rows = _listed(engine, request, VARIABLE_INSTANCES)
    return [_variable_dto(r, deserialize) for r in rows]


@post("/history/variable-instance", sync_to_thread=True, status_code=200)
def query_historic_variable_instances(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    data: JSONBody[HistoricVariableInstanceQueryDto | None] = None,
) -> list[HistoricVariableInstanceDto]:
    deserialize = _deserialize(request.query_params, "deserializeValues")
    rows = _listed_by_body(engine, request, VARIABLE_INSTANCES, data)
    return [_variable_dto(r, deserialize) for r in rows]


@get("/history/variable-instance/count", sync_to_thread=True)
def get_historic_variable_instances_count(
    engine: NamedDependency[Engine], request: AnyRequest
) -> CountResultDto:
    query = _query(request.query_params, VARIABLE_INSTANCES)
    return _counted(engine, VARIABLE_INSTANCES, query)


@post("/history/variable-instance/count", sync_to_thread=True, status_code=200)
def query_historic_variable_instances_count(
    engine: NamedDependency[Engine], data: JSONBody[HistoricVariableInstanceQueryDto | None] = None
) -> CountResultDto:
    return _counted(engine, VARIABLE_INSTANCES, data or search.HistoricVariableInstanceQuery())


@get("/history/variable-instance/{id:str}", sync_to_thread=True)
def get_historic_variable_instance(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> HistoricVariableInstanceDto:
    with engine.reading() as conn:
        row = search.variable_instance(conn, id)
    if row is None:
        raise not_found(f"Historic variable instance with Id '{id}' does not exist.")
    params = request.query_params
    return _variable_dto(row, _deserialize(params, "deserializeValue", "deserializeValues"))


@get("/history/variable-instance/{id:str}/data", sync_to_thread=True)
def get_historic_variable_instance_data(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> Response[bytes]:
    with engine.reading() as conn:
        found = search.variable_instance_data(conn, id)
    return _binary_response(found, "historic variable instance", id)


# -- /history/detail -----------------------------------------------------------------------------


@get("/history/detail", sync_to_thread=True)
def get_historic_details(
    engine: NamedDependency[Engine], request: AnyRequest
) -> list[HistoricDetailDto]:
    deserialize = _deserialize(request.query_params, "deserializeValues")
    return [_detail_dto(r, deserialize) for r in _listed(engine, request, DETAILS)]


@post("/history/detail", sync_to_thread=True, status_code=200)
def query_historic_details(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    data: JSONBody[HistoricDetailQueryDto | None] = None,
) -> list[HistoricDetailDto]:
    deserialize = _deserialize(request.query_params, "deserializeValues")
    rows = _listed_by_body(engine, request, DETAILS, data)
    return [_detail_dto(r, deserialize) for r in rows]


@get("/history/detail/count", sync_to_thread=True)
def get_historic_details_count(
    engine: NamedDependency[Engine], request: AnyRequest
) -> CountResultDto:
    return _counted(engine, DETAILS, _query(request.query_params, DETAILS))


@get("/history/detail/{id:str}", sync_to_thread=True)
def get_historic_detail(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> HistoricDetailDto:
    with engine.reading() as conn:
        row = search.detail(conn, id)
    if row is None:
        raise not_found(f"Historic detail with Id '{id}' does not exist.")
    params = request.query_params
    return _detail_dto(row, _deserialize(params, "deserializeValue", "deserializeValues"))


@get("/history/detail/{id:str}/data", sync_to_thread=True)
def get_historic_detail_data(engine: NamedDependency[Engine], id: FromPath[str]) -> Response[bytes]:
    with engine.reading() as conn:
        found = search.detail_data(conn, id)
    return _binary_response(found, "historic detail", id)


routes: list[Any] = [
    get_historic_process_instances,
    query_historic_process_instances,
    get_historic_process_instances_count,
    query_historic_process_instances_count,
    get_historic_process_instance,
    delete_historic_process_instance,
    get_historic_activity_instances,
    query_historic_activity_instances,
    get_historic_activity_instances_count,
    query_historic_activity_instances_count,
    get_historic_activity_instance,
    get_historic_task_instances,
    query_historic_task_instances,
    get_historic_task_instances_count,
    query_historic_task_instances_count,
    get_historic_variable_instances,
    query_historic_variable_instances,
    get_historic_variable_instances_count,
    query_historic_variable_instances_count,
    get_historic_variable_instance,
    get_historic_variable_instance_data,
    get_historic_details,
    query_historic_details,
    get_historic_details_count,
    get_historic_detail,
    get_historic_detail_data,
]
