"""engine-rest: the execution resource.

`GET|POST /execution` (+ `/count`), one execution, signalling an execution that waits in a
receive task, and its local variables (`/localVariables`, one by name, its binary `/data`).

Executions are never suspended here and wait for no message or signal subscription (the engine
has none), so those filters match nothing; an execution not waiting in a receive task refuses a
signal with 400 `BadUserRequestException` (Camunda answers 500 there).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from flowledger.core import NotFound
from flowledger.core.engine import Engine
from flowledger.projections.search import runtime

from ..errors import not_found
from ..listing import Listing, count_with, find_with, list_routes
from ..params import SortingDto
from ..variables import VariableValueDto, check_decoded_size, wire_variables
from .variables_routes import ExecutionVariables, variable_routes


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

EXECUTIONS = Listing(
    path="/execution",
    query=runtime.ExecutionQuery,
    body=ExecutionQueryDto,
    result=ExecutionDto,
    sorts=runtime.EXECUTION_SORTS,
    find=find_with(runtime.find_executions, execution_dto),
    count=count_with(runtime.count_executions),
    conditions={"variables": "variables", "processVariables": "process_variables"},
    parse_conditions=runtime.conditions_from_text,
    refused=(runtime.QueryError,),
)


# -- one execution --------------------------------------------------------------------------------


def _missing(execution_id: str) -> Exception:
    return not_found(f"Execution with id {execution_id} does not exist")


LOCAL_VARIABLES = ExecutionVariables("execution variable", _missing, local=True)


@get("/execution/{id:str}", sync_to_thread=True)
def get_execution(engine: NamedDependency[Engine], id: FromPath[str]) -> ExecutionDto:
    with engine.reading() as conn:
        row = runtime.execution(conn, id)
    if row is None:
        raise _missing(id)
    return execution_dto(row)


@post("/execution/{id:str}/signal", status_code=204, sync_to_thread=True)
def signal_execution(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    id: FromPath[str],
    data: JSONBody[ExecutionTriggerDto | None] = None,
) -> None:
    dtos = (data or ExecutionTriggerDto()).variables
    check_decoded_size(request, dtos)
    variables = wire_variables(dtos)
    try:
        engine.trigger(id, variables)
    except NotFound:
        raise _missing(id) from None


routes: list[Any] = [
    *list_routes(
        EXECUTIONS,
        get_list="list_executions",
        post_list="query_executions",
        get_count="count_executions",
        post_count="query_execution_count",
    ),
    get_execution,
    signal_execution,
    *variable_routes("/execution/{id:str}/localVariables", LOCAL_VARIABLES, "local_variable"),
]
