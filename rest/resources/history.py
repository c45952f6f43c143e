"""engine-rest: the history resources. `/history/process-instance`, `/history/activity-instance`,
`/history/task`, `/history/variable-instance` and `/history/detail`: lists (GET, and POST with a
JSON query), counts, single entries, binary values; and `DELETE /history/process-instance/{id}`.
Exactly Camunda 7.15's operations: it has no `GET /history/task/{id}` and no
`POST /history/detail/count`, so neither has this server.

The filtering lives in `projections.queries.history_*`; this module turns requests into its query
Structs and its rows into Camunda's DTOs, derived from the rows (every key present, dates in
Camunda's format).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Response, delete, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.core import NotFound
from flowledger.engine import Engine
from flowledger.projections.queries import history_instances as instances
from flowledger.projections.queries import history_tasks as tasks
from flowledger.projections.queries import history_variables as variables
from flowledger.projections.queries.declaration import first
from flowledger.projections.queries.history import parse_variable_conditions

from ..dto import Added, derived, to_dto
from ..errors import invalid, not_found
from ..listing import AnyRequest, Params, list_routes, searched
from ..params import SortingDto, flag

# -- DTOs: Camunda's, derived from the `projections.queries.history_*` rows -----------------------


@derived(instances.HistoricProcessInstance, omit=("end_activity_id",))
class HistoricProcessInstanceDto(msgspec.Struct):
    """Camunda's HistoricProcessInstanceDto."""


@derived(instances.HistoricActivityInstance)
class HistoricActivityInstanceDto(msgspec.Struct):
    """Camunda's HistoricActivityInstanceDto."""


@derived(tasks.HistoricTaskInstance, omit=("task_state",))
class HistoricTaskInstanceDto(msgspec.Struct):
    """Camunda's HistoricTaskInstanceDto (7.15 has no taskState)."""


@derived(
    variables.HistoricVariableInstance,
    # Only a Java object that cannot be deserialized has an error message; JSON values always can.
    add=(Added("error_message", str | None, after="tenant_id"),),
)
class HistoricVariableInstanceDto(msgspec.Struct):
    """Camunda's HistoricVariableInstanceDto."""


@derived(
    variables.HistoricVariableUpdate,
    value_as=("variable_type", "value", "value_info"),
    add=(Added("error_message", str | None),),
)
class HistoricDetailDto(msgspec.Struct):
    """A variable update, as Camunda's HistoricVariableUpdateDto writes it."""


# -- JSON query bodies: the query Structs plus `sorting` ----------------------------------------


class HistoricProcessInstanceQueryDto(instances.HistoricProcessInstanceQuery):
    sorting: list[SortingDto] | SortingDto | None = None
    or_queries: list[dict[str, Any]] | None = None


class HistoricActivityInstanceQueryDto(instances.HistoricActivityInstanceQuery):
    sorting: list[SortingDto] | SortingDto | None = None


class HistoricTaskInstanceQueryDto(tasks.HistoricTaskInstanceQuery):
    sorting: list[SortingDto] | SortingDto | None = None
    or_queries: list[dict[str, Any]] | None = None


class HistoricVariableInstanceQueryDto(variables.HistoricVariableInstanceQuery):
    sorting: list[SortingDto] | SortingDto | None = None


class HistoricDetailQueryDto(variables.HistoricDetailQuery):
    sorting: list[SortingDto] | SortingDto | None = None


# -- single entries and binary values ------------------------------------------------------


def _single_deserialize(params: Params) -> bool:
    """Single entries take Camunda's `deserializeValue`, and the list's plural too."""
    return flag(params, "deserializeValue", flag(params, "deserializeValues"))


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

PROCESS_INSTANCES = searched(
    instances.PROCESS_INSTANCES,
    path="/history/process-instance",
    body=HistoricProcessInstanceQueryDto,
    result=HistoricProcessInstanceDto,
    conditions={"variables": "variables"},
    parse_conditions=parse_variable_conditions,
    or_queries_refused=OR_QUERIES_REFUSED,
)
ACTIVITY_INSTANCES = searched(
    instances.ACTIVITY_INSTANCES,
    path="/history/activity-instance",
    body=HistoricActivityInstanceQueryDto,
    result=HistoricActivityInstanceDto,
)
TASK_INSTANCES = searched(
    tasks.TASK_INSTANCES,
    path="/history/task",
    body=HistoricTaskInstanceQueryDto,
    result=HistoricTaskInstanceDto,
    conditions={"taskVariables": "task_variables", "processVariables": "process_variables"},
    parse_conditions=parse_variable_conditions,
    or_queries_refused=OR_QUERIES_REFUSED,
)
VARIABLE_INSTANCES = searched(
    variables.VARIABLE_INSTANCES,
    path="/history/variable-instance",
    body=HistoricVariableInstanceQueryDto,
    result=HistoricVariableInstanceDto,
)
DETAILS = searched(
    variables.DETAILS,
    path="/history/detail",
    body=HistoricDetailQueryDto,
    result=HistoricDetailDto,
)


# -- single entries ------------------------------------------------------------------------------


@get("/history/process-instance/{id:str}", sync_to_thread=True)
def get_historic_process_instance(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> HistoricProcessInstanceDto:
    query = instances.HistoricProcessInstanceQuery(process_instance_id=id)
    with engine.reading() as conn:
        row = first(conn, instances.PROCESS_INSTANCES, query)
    if row is None:
        raise not_found(f"Historic process instance with id {id} does not exist")
    return to_dto(HistoricProcessInstanceDto, row)


@delete("/history/process-instance/{id:str}", sync_to_thread=True, status_code=204)
def delete_historic_process_instance(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> None:
    """Removes an ended instance's history; `failIfNotExists=false` makes an unknown id a no-op."""
    try:
        engine.history_service.delete_historic_process_instance(id)
    except NotFound:
        if flag(request.query_params, "failIfNotExists"):
            raise


@get("/history/activity-instance/{id:str}", sync_to_thread=True)
def get_historic_activity_instance(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> HistoricActivityInstanceDto:
    query = instances.HistoricActivityInstanceQuery(activity_instance_id=id)
    with engine.reading() as conn:
        row = first(conn, instances.ACTIVITY_INSTANCES, query)
    if row is None:
        raise not_found(f"Historic activity instance with id {id} does not exist")
    return to_dto(HistoricActivityInstanceDto, row)


@get("/history/variable-instance/{id:str}", sync_to_thread=True)
def get_historic_variable_instance(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> HistoricVariableInstanceDto:
    with engine.reading() as conn:
        row = variables.variable_instance(conn, id)
    if row is None:
        raise not_found(f"Historic variable instance with Id '{id}' does not exist.")
    deserialize = _single_deserialize(request.query_params)
    return to_dto(HistoricVariableInstanceDto, row, deserialize=deserialize)


@get("/history/variable-instance/{id:str}/data", sync_to_thread=True)
def get_historic_variable_instance_data(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> Response[bytes]:
    with engine.reading() as conn:
        found = variables.variable_instance_data(conn, id)
    return _binary_response(found, "historic variable instance", id)


@get("/history/detail/{id:str}", sync_to_thread=True)
def get_historic_detail(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> HistoricDetailDto:
    with engine.reading() as conn:
        row = variables.detail(conn, id)
    if row is None:
        raise not_found(f"Historic detail with Id '{id}' does not exist.")
    deserialize = _single_deserialize(request.query_params)
    return to_dto(HistoricDetailDto, row, deserialize=deserialize)


@get("/history/detail/{id:str}/data", sync_to_thread=True)
def get_historic_detail_data(engine: NamedDependency[Engine], id: FromPath[str]) -> Response[bytes]:
    with engine.reading() as conn:
        found = variables.detail_data(conn, id)
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
