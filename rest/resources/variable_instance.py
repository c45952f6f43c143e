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

from flowledger.engine import Engine
from flowledger.projections.queries import runtime

from ..dto import Added, derived, to_dto
from ..errors import not_found
from ..listing import list_routes, searched
from ..params import SortingDto, flag
from ..variables import binary_response

AnyRequest = Request[Any, Any, Any]


@derived(
    runtime.VariableInstanceRow,
    # Only a Java object that cannot be deserialized has an error message; JSON values always can.
    add=(Added("error_message", str | None),),
)
class VariableInstanceDto(msgspec.Struct):
    """Camunda's VariableInstanceDto."""


class VariableInstanceQueryDto(runtime.VariableInstanceQuery, rename="camel"):
    sorting: list[SortingDto] | SortingDto | None = None


# -- list and count -------------------------------------------------------------------------------


VARIABLES = searched(
    runtime.VARIABLE_INSTANCES,
    path="/variable-instance",
    body=VariableInstanceQueryDto,
    result=VariableInstanceDto,
    conditions={"variableValues": "variable_values"},
    parse_conditions=runtime.conditions_from_text,
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
    return to_dto(
        VariableInstanceDto, _row(engine, id, fetch_binary=False), deserialize=deserialize
    )


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
