"""engine-rest: batches — `/batch` (list, count, one, statistics, suspension, deletion) and
`/history/batch` (list, count, one, deletion).

Reads are `projections.queries.batches`; the verbs are the management and history services'.
Camunda 7.15's OpenAPI document has `/batch` but not `/history/batch`, whose shape follows its
REST reference (HistoricBatchDto); `startTime` and `executionStartTime` are later Camunda fields.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, delete, get, put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from flowledger.core import NotFound
from flowledger.engine import Engine
from flowledger.projections.queries import batches as search

from ..dto import derived, to_dto
from ..errors import invalid, not_found
from ..listing import list_routes, searched
from ..params import flag

AnyRequest = Request[Any, Any, Any]


@derived(search.Batch)
class BatchDto(msgspec.Struct):
    """Camunda's BatchDto."""


@derived(search.BatchStatistics)
class BatchStatisticsDto(msgspec.Struct):
    """Camunda's BatchStatisticsDto."""


@derived(search.HistoricBatch)
class HistoricBatchDto(msgspec.Struct):
    """Camunda's HistoricBatchDto."""


class SuspensionStateDto(msgspec.Struct):
    suspended: bool | None = None


BATCHES = searched(search.BATCHES, path="/batch", body=None, result=BatchDto)
STATISTICS = searched(
    search.BATCH_STATISTICS, path="/batch/statistics", body=None, result=BatchStatisticsDto
)
HISTORIC_BATCHES = searched(
    search.HISTORIC_BATCHES, path="/history/batch", body=None, result=HistoricBatchDto
)


def batch_dto(engine: Engine, batch_id: str) -> BatchDto:
    """The batch as Camunda answers a batch operation (BatchDto)."""
    return to_dto(BatchDto, engine.management_service.batch(batch_id))


@get("/batch/{id:str}", sync_to_thread=True)
def get_batch(engine: NamedDependency[Engine], id: FromPath[str]) -> BatchDto:
    try:
        return batch_dto(engine, id)
    except NotFound:
        raise not_found(f"Batch with id '{id}' does not exist") from None


@put("/batch/{id:str}/suspended", status_code=204, sync_to_thread=True)
def update_batch_suspension_state(
    engine: NamedDependency[Engine], id: FromPath[str], data: JSONBody[SuspensionStateDto]
) -> None:
    if data.suspended is None:
        raise invalid("suspended is required")
    management = engine.management_service
    try:
        if data.suspended:
            management.suspend_batch_by_id(id)
        else:
            management.activate_batch_by_id(id)
    except NotFound as exc:
        # Camunda: a batch it cannot find, as any BadUserRequest here, is a 400
        verb = "suspend" if data.suspended else "activate"
        raise invalid(f"Unable to {verb} batch: {exc}") from None


@delete("/batch/{id:str}", status_code=204, sync_to_thread=True)
def delete_batch(engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]) -> None:
    cascade = flag(request.query_params, "cascade", default=False)
    try:
        engine.management_service.delete_batch(id, cascade)
    except NotFound as exc:
        raise invalid(f"Unable to delete batch with id '{id}': {exc}") from None


@get("/history/batch/{id:str}", sync_to_thread=True)
def get_historic_batch(engine: NamedDependency[Engine], id: FromPath[str]) -> HistoricBatchDto:
    try:
        return to_dto(HistoricBatchDto, engine.history_service.historic_batch(id))
    except NotFound:
        raise not_found(f"Historic batch with id '{id}' does not exist") from None


@delete("/history/batch/{id:str}", status_code=204, sync_to_thread=True)
def delete_historic_batch(engine: NamedDependency[Engine], id: FromPath[str]) -> None:
    try:
        engine.history_service.delete_historic_batch(id)
    except NotFound as exc:
        raise not_found(f"Unable to delete historic batch with id '{id}': {exc}") from None


routes: list[Any] = [
    *list_routes(BATCHES, get_list="get_batches", get_count="get_batches_count"),
    *list_routes(
        STATISTICS, get_list="get_batch_statistics", get_count="get_batch_statistics_count"
    ),
    get_batch,
    update_batch_suspension_state,
    delete_batch,
    *list_routes(
        HISTORIC_BATCHES,
        get_list="get_historic_batches",
        get_count="get_historic_batches_count",
    ),
    get_historic_batch,
    delete_historic_batch,
]
