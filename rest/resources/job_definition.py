"""engine-rest: the job definition resource — the kinds of job deployed activities make: the query
(`GET`/`POST /job-definition`, `/count`) and one job definition.

The query is `projections.queries.jobs.JOB_DEFINITIONS`. Camunda's 7.15 OpenAPI document does not
describe this resource; its shapes are those of Camunda's REST reference (JobDefinitionDto). Not
served: suspending and activating job definitions, overriding their priority (the engine has
no suspension yet).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.engine import Engine
from flowledger.projections.queries import jobs as search
from flowledger.projections.queries.declaration import first

from ..dto import derived, to_dto
from ..errors import not_found
from ..listing import list_routes, searched
from ..params import SortingDto


@derived(search.JobDefinitionRow)
class JobDefinitionDto(msgspec.Struct):
    """Camunda's JobDefinitionDto."""


class JobDefinitionQueryDto(search.JobDefinitionQuery, rename="camel"):
    """The JSON query: Camunda's JobDefinitionQueryDto, with its sorting."""

    sorting: list[SortingDto] | SortingDto | None = None


JOB_DEFINITIONS = searched(
    search.JOB_DEFINITIONS,
    path="/job-definition",
    body=JobDefinitionQueryDto,
    result=JobDefinitionDto,
)


@get("/job-definition/{id:str}", sync_to_thread=True)
def get_job_definition(engine: NamedDependency[Engine], id: FromPath[str]) -> JobDefinitionDto:
    with engine.reading() as conn:
        row = first(conn, search.JOB_DEFINITIONS, search.JobDefinitionQuery(job_definition_id=id))
    if row is None:
        raise not_found(f"Job Definition with id {id} does not exist")
    return to_dto(JobDefinitionDto, row)


routes: list[Any] = [
    *list_routes(
        JOB_DEFINITIONS,
        get_list="get_job_definitions",
        post_list="query_job_definitions",
        get_count="get_job_definitions_count",
        post_count="query_job_definitions_count",
    ),
    get_job_definition,
]
