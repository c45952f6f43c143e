"""engine-rest: the execution resource.

`GET|POST /execution` (+ `/count`), one execution, signalling an execution that waits in a
receive task, and its local variables (`/localVariables`, one by name, its binary `/data`).

Executions are never suspended here and wait for no message or signal subscription (the engine
has none), so those filters match nothing; an execution not waiting in a receive task refuses a
signal with 400 `BadUserRequestException` (Camunda answers 500 there).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import msgspec
from litestar import Request, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from core import Engine, NotFound
from core.variables import StoredValue
from projections.search import runtime

from ..dto import CountResultDto
from ..errors import not_found
from ..params import SortingDto, sorting_from_body, sorting_from_params
from ..variables import VariableValueDto, value_dto, variables_dto
from .process_instance import (
    ERRORS,
    NUL,
    PatchVariablesDto,
    bad_query_is_400,
    binary_response,
    flag,
    page_of,
    patch_variables,
    query_with_variables,
    wire_variables,
)

AnyRequest = Request[Any, Any, Any]


class ExecutionDto(msgspec.Struct, rename="camel"):
    id: str
    process_instance_id: str
    ended: bool
    tenant_id: str | None


class ExecutionQueryDto(runtime.ExecutionQuery, rename="camel"):
    sorting: list[SortingDto] | SortingDto | None = None


class ExecutionTriggerDto(msgspec.Struct, rename="camel"):
    variables: dict[str, VariableValueDto] | None = None


def execution_dto(row: runtime.ExecutionRow) -> ExecutionDto:
    return ExecutionDto(row.id, row.process_instance_id, False, row.tenant_id)


# -- list and count -------------------------------------------------------------------------------


def _query(params: Mapping[str, str]) -> runtime.ExecutionQuery:
    return query_with_variables(
        params,
        runtime.ExecutionQuery,
        variables="variables",
        processVariables="process_variables",
    )


def _find(
    engine: Engine, query: runtime.ExecutionQuery, sorting: runtime.Sorting, params: Any
) -> list[ExecutionDto]:
    first, maximum = page_of(params)
    with bad_query_is_400(), engine.reading() as conn:
        rows = runtime.find_executions(conn, query, sorting, first, maximum)
    return [execution_dto(r) for r in rows]


def _count(engine: Engine, query: runtime.ExecutionQuery) -> CountResultDto:
    with bad_query_is_400(), engine.reading() as conn:
        return CountResultDto(runtime.count_executions(conn, query))


@get("/execution", sync_to_thread=True, responses=ERRORS)
def list_executions(engine: NamedDependency[Engine], request: AnyRequest) -> list[ExecutionDto]:
    params = request.query_params
    sorting = sorting_from_params(params, runtime.EXECUTION_SORTS)
    return _find(engine, _query(params), sorting, params)


@post("/execution", status_code=200, sync_to_thread=True, responses=ERRORS)
def query_executions(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    data: JSONBody[ExecutionQueryDto | None] = None,
) -> list[ExecutionDto]:
    body = data or ExecutionQueryDto()
    sorting = sorting_from_body(body.sorting, runtime.EXECUTION_SORTS)
    return _find(engine, body, sorting, request.query_params)


@get("/execution/count", sync_to_thread=True, responses=ERRORS)
def count_executions(engine: NamedDependency[Engine], request: AnyRequest) -> CountResultDto:
    return _count(engine, _query(request.query_params))


@post("/execution/count", status_code=200, sync_to_thread=True, responses=ERRORS)
def query_execution_count(
    engine: NamedDependency[Engine], data: JSONBody[ExecutionQueryDto | None] = None
) -> CountResultDto:
    return _count(engine, data or ExecutionQueryDto())


# -- one execution --------------------------------------------------------------------------------


def _missing(execution_id: str) -> Exception:
    return not_found(f"Execution with id {execution_id} does not exist")


@contextmanager
def _execution_known(execution_id: str) -> Iterator[None]:
    if NUL in execution_id:
        raise _missing(execution_id)
    try:
        yield
    except NotFound:
        raise _missing(execution_id) from None


@get("/execution/{id:str}", sync_to_thread=True, responses=ERRORS)
def get_execution(engine: NamedDependency[Engine], id: FromPath[str]) -> ExecutionDto:
    with engine.reading() as conn:
        row = runtime.execution(conn, id)
    if row is None:
        raise _missing(id)
    return execution_dto(row)


@post("/execution/{id:str}/signal", status_code=204, sync_to_thread=True, responses=ERRORS)
def signal_execution(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[ExecutionTriggerDto | None] = None,
) -> None:
    variables = wire_variables((data or ExecutionTriggerDto()).variables)
    with _execution_known(id):
        engine.trigger(id, variables)


# -- local variables ------------------------------------------------------------------------------


def _local_values(engine: Engine, execution_id: str) -> dict[str, StoredValue]:
    with _execution_known(execution_id):
        return engine.get_variable_values(execution_id, local=True)


def _local_value(engine: Engine, execution_id: str, name: str) -> StoredValue:
    stored = _local_values(engine, execution_id).get(name)
    if stored is None:
        raise not_found(f"execution variable with name {name} does not exist")
    return stored


@get("/execution/{id:str}/localVariables", sync_to_thread=True, responses=ERRORS)
def get_local_variables(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> dict[str, VariableValueDto]:
    deserialize = flag(request.query_params, "deserializeValues", True)
    return variables_dto(_local_values(engine, id), deserialize=deserialize)


@post("/execution/{id:str}/localVariables", status_code=204, sync_to_thread=True, responses=ERRORS)
def modify_local_variables(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[PatchVariablesDto | None] = None,
) -> None:
    patch_variables(engine, id, data, local=True, known=_execution_known)


@get("/execution/{id:str}/localVariables/{varName:str}", sync_to_thread=True, responses=ERRORS)
def get_local_variable(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    varName: FromPath[str],
) -> VariableValueDto:
    deserialize = flag(request.query_params, "deserializeValue", True)
    return value_dto(_local_value(engine, id, varName), deserialize=deserialize)


@put(
    "/execution/{id:str}/localVariables/{varName:str}",
    status_code=204,
    sync_to_thread=True,
    responses=ERRORS,
)
def put_local_variable(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    varName: FromPath[str],
    data: JSONBody[VariableValueDto | None] = None,
) -> None:
    values = wire_variables({varName: data or VariableValueDto()})
    with _execution_known(id):
        engine.set_variables(id, values, local=True)


@delete(
    "/execution/{id:str}/localVariables/{varName:str}",
    status_code=204,
    sync_to_thread=True,
    responses=ERRORS,
)
def delete_local_variable(
    engine: NamedDependency[Engine], id: FromPath[str], varName: FromPath[str]
) -> None:
    with _execution_known(id):
        engine.remove_variables(id, [varName], local=True)


@get("/execution/{id:str}/localVariables/{varName:str}/data", sync_to_thread=True, responses=ERRORS)
def get_local_variable_data(
    engine: NamedDependency[Engine], id: FromPath[str], varName: FromPath[str]
) -> Response[bytes]:
    stored = _local_value(engine, id, varName)
    return binary_response(stored, f"Value of variable {varName} is not a binary value.")


routes: list[Any] = [
    list_executions,
    query_executions,
    count_executions,
    query_execution_count,
    get_execution,
    signal_execution,
    get_local_variables,
    modify_local_variables,
    get_local_variable,
    put_local_variable,
    delete_local_variable,
    get_local_variable_data,
]
