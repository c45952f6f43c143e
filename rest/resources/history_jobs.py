"""engine-rest: the history of jobs and incidents — `/history/incident` (GET list and count, as
in Camunda) and `/history/job-log` (lists, counts, one entry, its failure's stack trace).

The queries are `projections.queries.history_jobs`; both tables are written at history level
full only. Camunda 7.15's OpenAPI document lacks these operations; their shapes follow its REST
reference.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Response, get
from litestar.di import NamedDependency
from litestar.enums import MediaType
from litestar.params import FromPath

from flowledger.engine import Engine
from flowledger.projections.queries import history_jobs as search
from flowledger.projections.queries.declaration import first

from ..dto import derived, to_dto
from ..errors import not_found
from ..listing import list_routes, searched
from ..params import SortingDto


@derived(search.HistoricIncidentRow)
class HistoricIncidentDto(msgspec.Struct):
    """Camunda's HistoricIncidentDto."""


@derived(search.HistoricJobLogRow)
class HistoricJobLogDto(msgspec.Struct):
    """Camunda's HistoricJobLogDto."""


class HistoricJobLogQueryDto(search.HistoricJobLogQuery, rename="camel"):
    """The JSON query: Camunda's HistoricJobLogQueryDto, with `sorting`."""

    sorting: list[SortingDto] | SortingDto | None = None


INCIDENTS = searched(
    search.HISTORIC_INCIDENTS,
    path="/history/incident",
    body=None,
    result=HistoricIncidentDto,
    dates=("createTimeBefore", "createTimeAfter", "endTimeBefore", "endTimeAfter"),
)
JOB_LOGS = searched(
    search.JOB_LOGS,
    path="/history/job-log",
    body=HistoricJobLogQueryDto,
    result=HistoricJobLogDto,
)


def _missing_log(log_id: str) -> Exception:
    return not_found(f"Historic job log with id {log_id} does not exist")


@get("/history/job-log/{id:str}", sync_to_thread=True)
def get_historic_job_log(engine: NamedDependency[Engine], id: FromPath[str]) -> HistoricJobLogDto:
    with engine.reading() as conn:
        row = first(conn, search.JOB_LOGS, search.HistoricJobLogQuery(log_id=id))
    if row is None:
        raise _missing_log(id)
    return to_dto(HistoricJobLogDto, row)


@get("/history/job-log/{id:str}/stacktrace", sync_to_thread=True, media_type=MediaType.TEXT)
def get_historic_job_log_stacktrace(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> Response[str]:
    """The stack trace of a failure's entry; as in Camunda, another entry answers 204 with no
    body, and an unknown one 404."""
    with engine.reading() as conn:
        exists, stacktrace = search.job_log_stacktrace(conn, id)
    if not exists:
        raise _missing_log(id)
    if stacktrace is None:
        return Response("", status_code=204, media_type=MediaType.TEXT)
    return Response(stacktrace, media_type=MediaType.TEXT)


routes: list[Any] = [
    *list_routes(
        INCIDENTS, get_list="get_historic_incidents", get_count="get_historic_incidents_count"
    ),
    *list_routes(
        JOB_LOGS,
        get_list="get_historic_job_logs",
        post_list="query_historic_job_logs",
        get_count="get_historic_job_logs_count",
        post_count="query_historic_job_logs_count",
    ),
    get_historic_job_log,
    get_historic_job_log_stacktrace,
]
