"""engine-rest: the variable-instance resource: runtime variables of every scope (process
instance, execution, task) as rows of ACT_RU_VARIABLE.

`GET|POST /variable-instance` (+ `/count`), one variable by id and its binary `/data`. As in
Camunda, Bytes values are not fetched for these answers (their `value` is null): `/data` serves
them. `deserializeValues=false` keeps Object values as their serialized JSON text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from litestar import Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from core import Engine
from projections.search import runtime

from ..dto import CountResultDto
from ..errors import not_found
from ..params import SortingDto, sorting_from_body, sorting_from_params
from ..variables import value_dto
from .process_instance import (
    ERRORS,
    bad_query_is_400,
    binary_response,
    flag,
    page_of,
    query_with_variables,
)

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


def variable_dto(row: runtime.VariableInstanceRow, *, deserialize: bool) -> VariableInstanceDto:
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


def _query(params: Mapping[str, str]) -> runtime.VariableInstanceQuery:
    return query_with_variables(
        params, runtime.VariableInstanceQuery, variableValues="variable_values"
    )


def _find(
    engine: Engine,
    query: runtime.VariableInstanceQuery,
    sorting: runtime.Sorting,
    params: Mapping[str, str],
) -> list[VariableInstanceDto]:
    first, maximum = page_of(params)
    deserialize = flag(params, "deserializeValues", True)
    with bad_query_is_400(), engine.reading() as conn:
        rows = runtime.find_variable_instances(conn, query, sorting, first, maximum)
    return [variable_dto(r, deserialize=deserialize) for r in rows]


def _count(engine: Engine, query: runtime.VariableInstanceQuery) -> CountResultDto:
    with bad_query_is_400(), engine.reading() as conn:
        return CountResultDto(runtime.count_variable_instances(conn, query))


@get("/variable-instance", sync_to_thread=True, responses=ERRORS)
def list_variables(
    engine: NamedDependency[Engine], request: AnyRequest
) -> list[VariableInstanceDto]:
    params = request.query_params
    sorting = sorting_from_params(params, runtime.VARIABLE_SORTS)
    return _find(engine, _query(params), sorting, params)


@post("/variable-instance", status_code=200, sync_to_thread=True, responses=ERRORS)
def query_variables(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    data: JSONBody[VariableInstanceQueryDto | None] = None,
) -> list[VariableInstanceDto]:
    body = data or VariableInstanceQueryDto()
    sorting = sorting_from_body(body.sorting, runtime.VARIABLE_SORTS)
    return _find(engine, body, sorting, request.query_params)


@get("/variable-instance/count", sync_to_thread=True, responses=ERRORS)
def count_variables(engine: NamedDependency[Engine], request: AnyRequest) -> CountResultDto:
    return _count(engine, _query(request.query_params))


@post("/variable-instance/count", status_code=200, sync_to_thread=True, responses=ERRORS)
def query_variable_count(
    engine: NamedDependency[Engine], data: JSONBody[VariableInstanceQueryDto | None] = None
) -> CountResultDto:
    return _count(engine, data or VariableInstanceQueryDto())


# -- one variable ---------------------------------------------------------------------------------


def _row(engine: Engine, variable_id: str, *, fetch_binary: bool) -> runtime.VariableInstanceRow:
    with engine.reading() as conn:
        row = runtime.variable_instance(conn, variable_id, fetch_binary=fetch_binary)
    if row is None:
        raise not_found(f"Variable instance with Id '{variable_id}' does not exist.")
    return row


@get("/variable-instance/{id:str}", sync_to_thread=True, responses=ERRORS)
def get_variable(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> VariableInstanceDto:
    deserialize = flag(request.query_params, "deserializeValue", True)
    return variable_dto(_row(engine, id, fetch_binary=False), deserialize=deserialize)


@get("/variable-instance/{id:str}/data", sync_to_thread=True, responses=ERRORS)
def get_variable_data(engine: NamedDependency[Engine], id: FromPath[str]) -> Response[bytes]:
    row = _row(engine, id, fetch_binary=True)
    return binary_response(row.value, f"Value of variable with id {id} is not a binary value.")


routes: list[Any] = [
    list_variables,
    query_variables,
    count_variables,
    query_variable_count,
    get_variable,
    get_variable_data,
]
