"""engine-rest: the history resources. `/history/process-instance`, `/history/activity-instance`,
`/history/task`, `/history/variable-instance` and `/history/detail`: lists (GET, and POST with a
JSON query), counts, single entries, binary values; and `DELETE /history/process-instance/{id}`.
Exactly Camunda 7.15's operations: it has no `GET /history/task/{id}` and no
`POST /history/detail/count`, so neither has this server.

The filtering lives in `projections.search.history`; this module turns requests into its query
Structs and its rows into Camunda's DTOs (every key present, dates in Camunda's format).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

import msgspec
from litestar import Response, delete, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.core import NotFound
from flowledger.core.engine import Engine
from flowledger.projections.search import history as search

from ..errors import invalid, not_found
from ..formats import format_date
from ..listing import (
    AnyRequest,
    FindRows,
    Listing,
    Params,
    Q,
    R,
    count_with,
    find_values_with,
    find_with,
    list_routes,
)
from ..params import SortingDto, flag
from ..variables import value_dto

D = TypeVar("D", bound=msgspec.Struct)

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


# -- rows to DTOs --------------------------------------------------------------------------------


def _wire(value: Any) -> Any:
    return format_date(value) if isinstance(value, datetime) else value


def _dto(cls: type[D], row: msgspec.Struct, **extra: Any) -> D:
    """The DTO `cls` from a search row with the same field names, dates formatted."""
    fields = {name: _wire(getattr(row, name)) for name in row.__struct_fields__}
    fields.update(extra)
    return cls(**fields)


def _process_instance_dto(row: search.HistoricProcessInstance) -> HistoricProcessInstanceDto:
    return _dto(HistoricProcessInstanceDto, row)


def _activity_dto(row: search.HistoricActivityInstance) -> HistoricActivityInstanceDto:
    return _dto(HistoricActivityInstanceDto, row)


def _task_dto(row: search.HistoricTaskInstance) -> HistoricTaskInstanceDto:
    return _dto(HistoricTaskInstanceDto, row)


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


def _single_deserialize(params: Params) -> bool:
    """Single entries take Camunda's `deserializeValue`, and the list's plural too."""
    return flag(params, "deserializeValue", flag(params, "deserializeValues"))


def _first(engine: Engine, find: FindRows[Q, R], query: Q) -> R | None:
    with engine.reading() as conn:
        rows = find(conn, query, (), 0, 1)
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


# -- the lists -----------------------------------------------------------------------------------

OR_QUERIES_REFUSED = "orQueries are not supported by this server"
# Answering an OR query as if it were absent would return wrong results silently.

PROCESS_INSTANCES = Listing(
    path="/history/process-instance",
    query=search.HistoricProcessInstanceQuery,
    body=HistoricProcessInstanceQueryDto,
    result=HistoricProcessInstanceDto,
    sorts=search.PROCESS_INSTANCE_SORTS,
    find=find_with(search.find_process_instances, _process_instance_dto),
    count=count_with(search.count_process_instances),
    conditions={"variables": "variables"},
    parse_conditions=search.parse_variable_conditions,
    refused=(search.InvalidQuery,),
    or_queries_refused=OR_QUERIES_REFUSED,
)
ACTIVITY_INSTANCES = Listing(
    path="/history/activity-instance",
    query=search.HistoricActivityInstanceQuery,
    body=HistoricActivityInstanceQueryDto,
    result=HistoricActivityInstanceDto,
    sorts=search.ACTIVITY_INSTANCE_SORTS,
    find=find_with(search.find_activity_instances, _activity_dto),
    count=count_with(search.count_activity_instances),
    refused=(search.InvalidQuery,),
)
TASK_INSTANCES = Listing(
    path="/history/task",
    query=search.HistoricTaskInstanceQuery,
    body=HistoricTaskInstanceQueryDto,
    result=HistoricTaskInstanceDto,
    sorts=search.TASK_INSTANCE_SORTS,
    find=find_with(search.find_task_instances, _task_dto),
    count=count_with(search.count_task_instances),
    conditions={"taskVariables": "task_variables", "processVariables": "process_variables"},
    parse_conditions=search.parse_variable_conditions,
    refused=(search.InvalidQuery,),
    or_queries_refused=OR_QUERIES_REFUSED,
)
VARIABLE_INSTANCES = Listing(
    path="/history/variable-instance",
    query=search.HistoricVariableInstanceQuery,
    body=HistoricVariableInstanceQueryDto,
    result=HistoricVariableInstanceDto,
    sorts=search.VARIABLE_INSTANCE_SORTS,
    find=find_values_with(search.find_variable_instances, _variable_dto),
    count=count_with(search.count_variable_instances),
    refused=(search.InvalidQuery,),
)
DETAILS = Listing(
    path="/history/detail",
    query=search.HistoricDetailQuery,
    body=HistoricDetailQueryDto,
    result=HistoricDetailDto,
    sorts=search.DETAIL_SORTS,
    find=find_values_with(search.find_details, _detail_dto),
    count=count_with(search.count_details),
    refused=(search.InvalidQuery,),
)


# -- single entries ------------------------------------------------------------------------------


@get("/history/process-instance/{id:str}", sync_to_thread=True)
def get_historic_process_instance(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> HistoricProcessInstanceDto:
    query = search.HistoricProcessInstanceQuery(process_instance_id=id)
    row = _first(engine, search.find_process_instances, query)
    if row is None:
        raise not_found(f"Historic process instance with id {id} does not exist")
    return _process_instance_dto(row)


@delete("/history/process-instance/{id:str}", sync_to_thread=True, status_code=204)
def delete_historic_process_instance(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> None:
    """Removes an ended instance's history; `failIfNotExists=false` makes an unknown id a no-op."""
    try:
        engine.delete_historic_process_instance(id)
    except NotFound:
        if flag(request.query_params, "failIfNotExists"):
            raise


@get("/history/activity-instance/{id:str}", sync_to_thread=True)
def get_historic_activity_instance(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> HistoricActivityInstanceDto:
    query = search.HistoricActivityInstanceQuery(activity_instance_id=id)
    row = _first(engine, search.find_activity_instances, query)
    if row is None:
        raise not_found(f"Historic activity instance with id {id} does not exist")
    return _activity_dto(row)


@get("/history/variable-instance/{id:str}", sync_to_thread=True)
def get_historic_variable_instance(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> HistoricVariableInstanceDto:
    with engine.reading() as conn:
        row = search.variable_instance(conn, id)
    if row is None:
        raise not_found(f"Historic variable instance with Id '{id}' does not exist.")
    return _variable_dto(row, _single_deserialize(request.query_params))


@get("/history/variable-instance/{id:str}/data", sync_to_thread=True)
def get_historic_variable_instance_data(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> Response[bytes]:
    with engine.reading() as conn:
        found = search.variable_instance_data(conn, id)
    return _binary_response(found, "historic variable instance", id)


@get("/history/detail/{id:str}", sync_to_thread=True)
def get_historic_detail(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> HistoricDetailDto:
    with engine.reading() as conn:
        row = search.detail(conn, id)
    if row is None:
        raise not_found(f"Historic detail with Id '{id}' does not exist.")
    return _detail_dto(row, _single_deserialize(request.query_params))


@get("/history/detail/{id:str}/data", sync_to_thread=True)
def get_historic_detail_data(engine: NamedDependency[Engine], id: FromPath[str]) -> Response[bytes]:
    with engine.reading() as conn:
        found = search.detail_data(conn, id)
    return _binary_response(found, "historic detail", id)


routes: list[Any] = [
    *list_routes(
        PROCESS_INSTANCES,
        get_list="get_historic_process_instances",
        post_list="query_historic_process_instances",
        get_count="get_historic_process_instances_count",
        post_count="query_historic_process_instances_count",
    ),
    get_historic_process_instance,
    delete_historic_process_instance,
    *list_routes(
        ACTIVITY_INSTANCES,
        get_list="get_historic_activity_instances",
        post_list="query_historic_activity_instances",
        get_count="get_historic_activity_instances_count",
        post_count="query_historic_activity_instances_count",
    ),
    get_historic_activity_instance,
    *list_routes(
        TASK_INSTANCES,
        get_list="get_historic_task_instances",
        post_list="query_historic_task_instances",
        get_count="get_historic_task_instances_count",
        post_count="query_historic_task_instances_count",
    ),
    *list_routes(
        VARIABLE_INSTANCES,
        get_list="get_historic_variable_instances",
        post_list="query_historic_variable_instances",
        get_count="get_historic_variable_instances_count",
        post_count="query_historic_variable_instances_count",
    ),
    get_historic_variable_instance,
    get_historic_variable_instance_data,
    # Camunda 7.15 has no POST /history/detail/count.
    *list_routes(
        DETAILS,
        get_list="get_historic_details",
        post_list="query_historic_details",
        get_count="get_historic_details_count",
    ),
    get_historic_detail,
    get_historic_detail_data,
]
