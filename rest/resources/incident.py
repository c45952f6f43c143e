"""engine-rest: the incident resource — open incidents: the query (`GET /incident`, `/count`;
7.15 has no JSON form), one incident, and resolving one by hand (`DELETE /incident/{id}`).

The query is `projections.queries.jobs.INCIDENTS`. This engine's incidents are failed jobs' and
failed external tasks', resolved by giving them retries: resolving one by hand is refused with
Camunda's 400, as Camunda refuses it for these types. Not served: annotations and custom
incidents (`POST /execution/{id}/create-incident`).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import delete, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.engine import Engine
from flowledger.projections.queries import jobs as search
from flowledger.projections.queries.declaration import first

from ..dto import derived, to_dto
from ..errors import not_found
from ..listing import list_routes, searched


@derived(search.IncidentRow)
class IncidentDto(msgspec.Struct):
    """Camunda's IncidentDto."""


INCIDENTS = searched(
    search.INCIDENTS,
    path="/incident",
    body=None,
    result=IncidentDto,
    dates=("incidentTimestampBefore", "incidentTimestampAfter"),
)


@get("/incident/{id:str}", sync_to_thread=True)
def get_incident(engine: NamedDependency[Engine], id: FromPath[str]) -> IncidentDto:
    with engine.reading() as conn:
        row = first(conn, search.INCIDENTS, search.IncidentQuery(incident_id=id))
    if row is None:
        raise not_found(f"No matching incident with id {id}")
    return to_dto(IncidentDto, row)


@delete("/incident/{id:str}", status_code=204, sync_to_thread=True)
def resolve_incident(engine: NamedDependency[Engine], id: FromPath[str]) -> None:
    engine.runtime_service.resolve_incident(id)


routes: list[Any] = [
    *list_routes(INCIDENTS, get_list="get_incidents", get_count="get_incidents_count"),
    get_incident,
    resolve_incident,
]
