"""engine-rest: `GET /history/process-definition/{id}/statistics`, Camunda's historic activity
statistics of a definition — per activity its running instances and, as the parameters ask, its
finished, canceled and scope-completing instances and its open, resolved and deleted incidents.

Thin: the history service aggregates in SQL (projections/queries/activity_statistics.py). As
Camunda, an unknown definition has no statistics (an empty list), not a 404.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.engine import Engine
from flowledger.projections.queries.activity_statistics import ActivityStatisticsQuery

from ..formats import parse_bool, parse_date, split_list
from ..listing import AnyRequest
from ..params import sorting_from_params

SORTS = ("activityId",)


class HistoricActivityStatisticsDto(msgspec.Struct, rename="camel"):
    """Camunda's HistoricActivityStatisticsDto."""

    id: str
    instances: int
    canceled: int
    finished: int
    complete_scope: int
    open_incidents: int
    resolved_incidents: int
    deleted_incidents: int


def statistics_query(request: AnyRequest) -> ActivityStatisticsQuery:
    params = request.query_params

    def date(name: str) -> Any:
        text = params.get(name)
        return None if text is None else parse_date(text, name)

    ids = params.get("processInstanceIdIn")
    return ActivityStatisticsQuery(
        canceled=parse_bool(params.get("canceled")),
        finished=parse_bool(params.get("finished")),
        complete_scope=parse_bool(params.get("completeScope")),
        incidents=parse_bool(params.get("incidents")),
        started_after=date("startedAfter"),
        started_before=date("startedBefore"),
        finished_after=date("finishedAfter"),
        finished_before=date("finishedBefore"),
        process_instance_ids=None if ids is None else split_list(ids),
    )


@get("/history/process-definition/{id:str}/statistics", sync_to_thread=True)
def historic_activity_statistics(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> list[HistoricActivityStatisticsDto]:
    query = statistics_query(request)
    sorting = sorting_from_params(request.query_params, SORTS)
    descending = bool(sorting) and sorting[0].descending
    rows = engine.history_service.historic_activity_statistics(id, query, descending=descending)
    return [
        HistoricActivityStatisticsDto(
            id=s.id,
            instances=s.instances,
            canceled=s.canceled,
            finished=s.finished,
            complete_scope=s.complete_scope,
            open_incidents=s.open_incidents,
            resolved_incidents=s.resolved_incidents,
            deleted_incidents=s.deleted_incidents,
        )
        for s in rows
    ]


routes: list[Any] = [historic_activity_statistics]
