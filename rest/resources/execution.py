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
from flowledger.engine import Engine
from flowledger.projections.queries import runtime

from ..dto import Added, derived, to_dto
from ..errors import not_found
from ..listing import list_routes, searched
from ..params import SortingDto
from ..variables import VariableValueDto, check_decoded_size, wire_variables
from .variables_routes import ExecutionVariables, variable_routes


@derived(
    runtime.ExecutionRow,
    # The tree's shape is the engine's, not in Camunda's DTO; a running execution never ended.
    omit=(
        "parent_id",
        "activity_id",
        "activity_instance_id",
        "is_active",
        "is_concurrent",
        "is_scope",
    ),
    add=(Added("ended", bool, False, after="process_instance_id"),),
)
class ExecutionDto(msgspec.Struct):
    """Camunda's ExecutionDto."""


class ExecutionQueryDto(runtime.ExecutionQuery, rename="camel"):
    sorting: list[SortingDto] | SortingDto | None = None


class ExecutionTriggerDto(msgspec.Struct, rename="camel"):
    variables: dict[str, VariableValueDto] | None = None


# -- list and count -------------------------------------------------------------------------------

EXECUTIONS = searched(
    runtime.EXECUTIONS,
    path="/execution",
    body=ExecutionQueryDto,
    result=ExecutionDto,
    conditions={"variables": "variables", "processVariables": "process_variables"},
    parse_conditions=runtime.conditions_from_text,
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
    return to_dto(ExecutionDto, row)


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
        engine.runtime_service.trigger(id, variables)
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
