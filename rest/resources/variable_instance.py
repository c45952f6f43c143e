"""engine-rest: the variable-instance resource: runtime variables of every scope (process
instance, execution, task) as rows of ACT_RU_VARIABLE.

`GET|POST /variable-instance` (+ `/count`), one variable by id and its binary `/data`. As in
Camunda, Bytes values are not fetched for these answers (their `value` is null): `/data` serves
them. `deserializeValues=false` keeps Object values as their serialized JSON text.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.core.engine import Engine
from flowledger.projections.search import runtime

from ..errors import not_found
from ..listing import Listing, count_with, find_values_with, list_routes
from ..params import SortingDto, flag
from ..variables import binary_response, value_dto

AnyRequest = Request[Any, Any, Any]


class VariableInstanceDto(msgspec.Struct, rename="camel"):
    id: str
    name: str
    type: str | None
    value: Any
    value_info: dict[str, Any] | None
    process_definition_id: str | None
    process_instance_id: str | None
    execution_id: str | None
    case_instance_id: str | None
    case_execution_id: str | None
    task_id: str | None
    batch_id: str | None
    activity_instance_id: str | None
    tenant_id: str | None
    error_message: str | None


class VariableInstanceQueryDto(runtime.VariableInstanceQuery, rename="camel"):
    sorting: list[SortingDto] | SortingDto | None = None


def variable_dto(row: runtime.VariableInstanceRow, deserialize: bool) -> VariableInstanceDto:
    typed = value_dto(row.value, deserialize=deserialize)
    return VariableInstanceDto(
        id=row.id,
        name=row.name,
        type=typed.type,
        value=typed.value,
        value_info=typed.value_info,
        process_definition_id=row.process_definition_id,
        process_instance_id=row.process_instance_id,
        execution_id=row.execution_id,
        case_instance_id=row.case_instance_id,
        case_execution_id=row.case_execution_id,
        task_id=row.task_id,
        batch_id=row.batch_id,
        activity_instance_id=row.activity_instance_id,
        tenant_id=row.tenant_id,
        # Only a Java object that cannot be deserialized has one; JSON values always can.
        error_message=None,
    )


# -- list and count -------------------------------------------------------------------------------


VARIABLES = Listing(
    path="/variable-instance",
    query=runtime.VariableInstanceQuery,
    body=VariableInstanceQueryDto,
    result=VariableInstanceDto,
    sorts=runtime.VARIABLE_SORTS,
    find=find_values_with(runtime.find_variable_instances, variable_dto),
    count=count_with(runtime.count_variable_instances),
    conditions={"variableValues": "variable_values"},
    parse_conditions=runtime.conditions_from_text,
    refused=(runtime.QueryError,),
)


# -- one variable ---------------------------------------------------------------------------------


def _row(engine: Engine, variable_id: str, *, fetch_binary: bool) -> runtime.VariableInstanceRow:
    with engine.reading() as conn:
        row = runtime.variable_instance(conn, variable_id, fetch_binary=fetch_binary)
    if row is None:
        raise not_found(f"Variable instance with Id '{variable_id}' does not exist.")
    return row


@get("/variable-instance/{id:str}", sync_to_thread=True)
def get_variable(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> VariableInstanceDto:
    deserialize = flag(request.query_params, "deserializeValue")
    return variable_dto(_row(engine, id, fetch_binary=False), deserialize=deserialize)


@get("/variable-instance/{id:str}/data", sync_to_thread=True)
def get_variable_data(engine: NamedDependency[Engine], id: FromPath[str]) -> Response[bytes]:
    row = _row(engine, id, fetch_binary=True)
    return binary_response(row.value, f"Value of variable with id {id} is not a binary value.")


routes: list[Any] = [
    *list_routes(
        VARIABLES,
        get_list="list_variables",
        post_list="query_variables",
        get_count="count_variables",
        post_count="query_variable_count",
    ),
    get_variable,
    get_variable_data,
]
