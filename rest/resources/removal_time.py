"""engine-rest: Camunda 7.24's set-removal-time batches and the historic decision instance
deletion batch, each answering a BatchDto.

`POST /history/process-instance/set-removal-time`,
`POST /history/decision-instance/set-removal-time`, `POST /history/batch/set-removal-time`,
`POST /history/decision-instance/delete`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from flowledger.engine import Engine
from flowledger.engine.services.history_removal import SetRemovalTimeBuilder
from flowledger.projections.queries import decisions, history_instances
from flowledger.projections.queries.batches import HistoricBatchQuery

from ..errors import invalid
from ..formats import parse_date
from ..listing import refused_as_400
from .batch import BatchDto, batch_dto


class SetRemovalTimeToHistoricProcessInstancesDto(msgspec.Struct, rename="camel"):
    """Camunda's SetRemovalTimeToHistoricProcessInstancesDto."""

    absolute_removal_time: str | None = None
    cleared_removal_time: bool = False
    calculated_removal_time: bool = False
    historic_process_instance_ids: list[str] | None = None
    historic_process_instance_query: dict[str, Any] | None = None
    hierarchical: bool = False
    update_in_chunks: bool = False
    update_chunk_size: int | None = None


class SetRemovalTimeToHistoricDecisionInstancesDto(msgspec.Struct, rename="camel"):
    absolute_removal_time: str | None = None
    cleared_removal_time: bool = False
    calculated_removal_time: bool = False
    historic_decision_instance_ids: list[str] | None = None
    historic_decision_instance_query: dict[str, Any] | None = None
    hierarchical: bool = False


class SetRemovalTimeToHistoricBatchesDto(msgspec.Struct, rename="camel"):
    absolute_removal_time: str | None = None
    cleared_removal_time: bool = False
    calculated_removal_time: bool = False
    historic_batch_ids: list[str] | None = None
    historic_batch_query: dict[str, Any] | None = None


class DeleteHistoricDecisionInstancesDto(msgspec.Struct, rename="camel"):
    historic_decision_instance_ids: list[str] | None = None
    historic_decision_instance_query: dict[str, Any] | None = None
    delete_reason: str | None = None


def _query(name: str, query: dict[str, Any] | None, kind: type[Any]) -> Any:
    if query is None:
        return None
    try:
        return msgspec.convert(query, kind)
    except msgspec.ValidationError as exc:
        raise invalid(f"{name}: {exc}") from None


def _absolute(text: str | None) -> datetime | None:
    return None if text is None else parse_date(text, "absoluteRemovalTime")


def _execute(
    engine: Engine,
    builder: SetRemovalTimeBuilder,
    dto: Any,
    ids: list[str] | None,
    query: Any,
) -> BatchDto:
    """As Camunda's REST service fills the builder: calculated, absolute, cleared (a second
    mode is refused by the builder), then the ids and the query."""
    if dto.calculated_removal_time:
        builder.calculated_removal_time()
    removal = _absolute(dto.absolute_removal_time)
    if removal is not None:
        builder.absolute_removal_time(removal)
    if dto.cleared_removal_time:
        builder.cleared_removal_time()
    if ids is not None:
        builder.by_ids(*ids)
    if query is not None:
        builder.by_query(query)
    with refused_as_400():
        batch = builder.execute_async()
    return batch_dto(engine, batch.id)


@post("/history/process-instance/set-removal-time", status_code=200, sync_to_thread=True)
def set_process_removal_time(
    engine: NamedDependency[Engine], data: JSONBody[SetRemovalTimeToHistoricProcessInstancesDto]
) -> BatchDto:
    # Not built: each instance's rows are set in one commit, never in chunks.
    if data.update_in_chunks:
        raise invalid("updateInChunks is not supported: flowledger updates an instance at once")
    if data.update_chunk_size is not None:
        raise invalid("updateChunkSize is not supported: flowledger updates an instance at once")
    kind = history_instances.HistoricProcessInstanceQuery
    query = _query("historicProcessInstanceQuery", data.historic_process_instance_query, kind)
    builder = engine.history_service.set_removal_time_to_historic_process_instances()
    if data.hierarchical:
        builder.hierarchical()
    return _execute(engine, builder, data, data.historic_process_instance_ids, query)


@post("/history/decision-instance/set-removal-time", status_code=200, sync_to_thread=True)
def set_decision_removal_time(
    engine: NamedDependency[Engine], data: JSONBody[SetRemovalTimeToHistoricDecisionInstancesDto]
) -> BatchDto:
    kind = decisions.HistoricDecisionInstanceQuery
    query = _query("historicDecisionInstanceQuery", data.historic_decision_instance_query, kind)
    builder = engine.history_service.set_removal_time_to_historic_decision_instances()
    if data.hierarchical:
        builder.hierarchical()
    return _execute(engine, builder, data, data.historic_decision_instance_ids, query)


@post("/history/batch/set-removal-time", status_code=200, sync_to_thread=True)
def set_batch_removal_time(
    engine: NamedDependency[Engine], data: JSONBody[SetRemovalTimeToHistoricBatchesDto]
) -> BatchDto:
    query = _query("historicBatchQuery", data.historic_batch_query, HistoricBatchQuery)
    builder = engine.history_service.set_removal_time_to_historic_batches()
    return _execute(engine, builder, data, data.historic_batch_ids, query)


@post("/history/decision-instance/delete", status_code=200, sync_to_thread=True)
def delete_historic_decision_instances(
    engine: NamedDependency[Engine], data: JSONBody[DeleteHistoricDecisionInstancesDto]
) -> BatchDto:
    kind = decisions.HistoricDecisionInstanceQuery
    query = _query("historicDecisionInstanceQuery", data.historic_decision_instance_query, kind)
    with refused_as_400():
        batch = engine.history_service.delete_historic_decision_instances_async(
            data.historic_decision_instance_ids, query, data.delete_reason
        )
    return batch_dto(engine, batch.id)


routes: list[Any] = [
    set_process_removal_time,
    set_decision_removal_time,
    set_batch_removal_time,
    delete_historic_decision_instances,
]
