"""engine-rest: the historic decision instances, `GET /history/decision-instance` (+ `/count`,
`/{id}`): one entry per decision evaluated (a required decision has its own, whose
`rootDecisionInstanceId` is the evaluated one's), with its inputs and outputs when asked for.

The filtering lives in `projections.queries.decisions`; this module reads the query string and
turns rows into Camunda's DTOs. Reads only.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.core import views
from flowledger.core.variables import StoredValue
from flowledger.engine import Engine
from flowledger.projections.queries import decision_reads as decision_queries
from flowledger.projections.queries import decisions

from ..dto import Added, derived, to_dto
from ..errors import not_found
from ..listing import AnyRequest, Listing, Params, count_with, list_routes
from ..params import Sort, flag, paging
from ..variables import value_dto

# -- DTOs: Camunda's, derived from the `core.views` rows ------------------------------------------

# What a decision's input and output have beside their row: Camunda's error message (for a value
# that cannot be deserialized; never here) and the value on the wire.
_VALUE = (
    Added("error_message", str | None, after="clause_name"),
    Added("value", Any, after="type"),
    Added("value_info", dict[str, Any] | None, after="value"),
)


@derived(views.HistoricDecisionInput, omit=("value", "stored"), add=_VALUE)
class HistoricDecisionInputInstanceDto(msgspec.Struct):
    """Camunda's HistoricDecisionInputInstanceDto."""


@derived(views.HistoricDecisionOutput, omit=("value", "stored"), add=_VALUE)
class HistoricDecisionOutputInstanceDto(msgspec.Struct):
    """Camunda's HistoricDecisionOutputInstanceDto."""


@derived(
    views.HistoricDecisionInstance,
    omit=("inputs", "outputs"),
    add=(
        # No case instances and no tenants in this engine.
        Added("case_definition_id", str | None, after="process_instance_id"),
        Added("case_definition_key", str | None, after="case_definition_id"),
        Added("case_instance_id", str | None, after="case_definition_key"),
        Added("tenant_id", str | None, after="activity_instance_id"),
        Added("inputs", list[HistoricDecisionInputInstanceDto] | None),
        Added("outputs", list[HistoricDecisionOutputInstanceDto] | None),
    ),
)
class HistoricDecisionInstanceDto(msgspec.Struct):
    """Camunda's HistoricDecisionInstanceDto; `inputs` and `outputs` null unless asked for."""


# -- values ---------------------------------------------------------------------------------------


class _Reading(msgspec.Struct, frozen=True):
    """What the query string asks to read beside the instances (Camunda's defaults: nothing)."""

    inputs: bool
    outputs: bool
    binaries: bool
    objects: bool

    @classmethod
    def of(cls, params: Params) -> _Reading:
        return cls(
            inputs=flag(params, "includeInputs", False),
            outputs=flag(params, "includeOutputs", False),
            binaries=not flag(params, "disableBinaryFetching", False),
            objects=not flag(params, "disableCustomObjectDeserialization", False),
        )


def _wire_value(stored: StoredValue | None, reading: _Reading) -> tuple[Any, dict[str, Any]]:
    """A recorded input or output value as Camunda's `value` and `valueInfo`, written as the
    variable resources write a stored value (`value_dto`)."""
    if stored is None or stored.value is None:
        return None, {}
    if stored.type == "bytes" and not reading.binaries:
        return None, {}
    dto = value_dto(stored, deserialize=reading.objects)
    return dto.value, dto.value_info or {}


def _input_dto(
    item: views.HistoricDecisionInput, reading: _Reading
) -> HistoricDecisionInputInstanceDto:
    value, info = _wire_value(item.stored, reading)
    return to_dto(HistoricDecisionInputInstanceDto, item, value=value, value_info=info)


def _output_dto(
    item: views.HistoricDecisionOutput, reading: _Reading
) -> HistoricDecisionOutputInstanceDto:
    value, info = _wire_value(item.stored, reading)
    return to_dto(HistoricDecisionOutputInstanceDto, item, value=value, value_info=info)


def _instance_dto(
    instance: views.HistoricDecisionInstance, reading: _Reading
) -> HistoricDecisionInstanceDto:
    inputs = None
    if instance.inputs is not None:
        inputs = [_input_dto(i, reading) for i in instance.inputs]
    outputs = None
    if instance.outputs is not None:
        outputs = [_output_dto(o, reading) for o in instance.outputs]
    return to_dto(HistoricDecisionInstanceDto, instance, inputs=inputs, outputs=outputs)


# -- the list -------------------------------------------------------------------------------------


def _find(
    engine: Engine,
    query: decisions.HistoricDecisionInstanceQuery,
    sorting: list[Sort],
    params: Params,
) -> list[HistoricDecisionInstanceDto]:
    reading = _Reading.of(params)
    first, maximum = paging(params)
    with engine.reading() as conn:
        found = decision_queries.historic_decision_instances(
            conn,
            query,
            include_inputs=reading.inputs,
            include_outputs=reading.outputs,
            sorting=sorting,
            first=first,
            maximum=maximum,
        )
    return [_instance_dto(d, reading) for d in found]


DECISION_INSTANCES = Listing(
    path="/history/decision-instance",
    query=decisions.HistoricDecisionInstanceQuery,
    body=None,
    result=HistoricDecisionInstanceDto,
    sorts=decisions.HISTORIC_DECISION_SORTS,
    find=_find,
    count=count_with(decisions.HISTORIC_DECISION_INSTANCES),
    dates=("evaluatedBefore", "evaluatedAfter"),
)


# -- one instance ---------------------------------------------------------------------------------


@get("/history/decision-instance/{id:str}", sync_to_thread=True)
def get_historic_decision_instance(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> HistoricDecisionInstanceDto:
    reading = _Reading.of(request.query_params)
    query = decisions.HistoricDecisionInstanceQuery(decision_instance_id=id)
    with engine.reading() as conn:
        found = decision_queries.historic_decision_instances(
            conn,
            query,
            include_inputs=reading.inputs,
            include_outputs=reading.outputs,
            maximum=1,
        )
    if not found:
        raise not_found(f"Historic decision instance with id '{id}' does not exist")
    return _instance_dto(found[0], reading)


routes: list[Any] = [
    *list_routes(
        DECISION_INSTANCES,
        get_list="get_historic_decision_instances",
        get_count="get_historic_decision_instances_count",
    ),
    get_historic_decision_instance,
]
