"""engine-rest: the job resource — timers and asynchronous continuations: the job query
(`GET|POST /job`, `/count`), one job, running it now, its retries, its due date and the stack
trace of its last failure.

The query is `projections.queries.jobs.JOBS`, run with the engine's clock for `executable`;
commands go through the facade; `PUT /job/{id}/suspended` suspends or activates one job. Not
served (the engine has no such command yet): suspending jobs by query (`PUT /job/suspended`),
`PUT /job/{id}/priority`, `POST /job/{id}/duedate/recalculate` and the batch
`POST /job/retries`.
"""

from __future__ import annotations

from datetime import UTC
from typing import Annotated, Any

import msgspec
from litestar import Response, get, post, put
from litestar.di import NamedDependency
from litestar.enums import MediaType
from litestar.params import FromPath, JSONBody

from flowledger.engine import Engine
from flowledger.projections.queries import jobs as search
from flowledger.projections.queries.declaration import count, find, first
from flowledger.projections.queries.filters import stored_moment

from ..dto import derived, to_dto
from ..errors import invalid, not_found
from ..formats import parse_date
from ..listing import Listing, Params, list_routes, refused_as_400
from ..params import Sort, SortingDto, paging

Int = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]


# -- DTOs ----------------------------------------------------------------------------------------


@derived(search.JobRow, omit=search.JOB_ENGINE_FIELDS)
class JobDto(msgspec.Struct):
    """Camunda's JobDto (7.15: no batchId)."""


class JobQueryDto(search.JobQuery, rename="camel"):
    """The JSON query: Camunda's JobQueryDto, with `sorting`."""

    sorting: list[SortingDto] | SortingDto | None = None


class RetriesDto(msgspec.Struct, rename="camel"):
    retries: Int | None = None


class JobDuedateDto(msgspec.Struct, rename="camel"):
    duedate: str | None = None
    cascade: bool | None = None


# -- the query -----------------------------------------------------------------------------------

_CAMUNDA_FIELDS = search.JobQuery.__struct_fields__


def _query(engine: Engine, dto: search.JobQuery) -> search.JobSearchQuery:
    """The search's query: Camunda's filters, `executable` at the engine's now."""
    values = {name: getattr(dto, name) for name in _CAMUNDA_FIELDS}
    return search.JobSearchQuery(**values, now=engine.clock.now())


def _find(
    engine: Engine, dto: search.JobQuery, sorting: list[Sort], params: Params
) -> list[JobDto]:
    first_result, max_results = paging(params)
    with engine.reading() as conn:
        rows = find(conn, search.JOBS, _query(engine, dto), sorting, first_result, max_results)
    return [to_dto(JobDto, row) for row in rows]


def _count(engine: Engine, dto: search.JobQuery) -> int:
    with engine.reading() as conn:
        return count(conn, search.JOBS, _query(engine, dto))


JOBS = Listing(
    path="/job",
    query=search.JobQuery,
    body=JobQueryDto,
    result=JobDto,
    sorts=search.JOBS.sorts,
    find=_find,
    count=_count,
    conditions={"dueDates": "due_dates", "createTimes": "create_times"},
    parse_conditions=search.date_conditions_from_text,
)


# -- one job -------------------------------------------------------------------------------------


@get("/job/{id:str}", sync_to_thread=True)
def get_job(engine: NamedDependency[Engine], id: FromPath[str]) -> JobDto:
    with engine.reading() as conn:
        row = first(conn, search.JOBS, search.JobSearchQuery(job_id=id))
    if row is None:
        raise not_found(f"Job with id {id} does not exist")
    return to_dto(JobDto, row)


@post("/job/{id:str}/execute", status_code=204, sync_to_thread=True)
def execute_job(engine: NamedDependency[Engine], id: FromPath[str]) -> None:
    """Runs the job now, due or not. When its work fails the failure is recorded on the job
    (retries down, an incident at 0) and the answer is a 500 with its message
    (`rest.errors`, JobFailure)."""
    engine.management_service.execute_job(id)


@put("/job/{id:str}/retries", status_code=204, sync_to_thread=True)
def set_job_retries(
    engine: NamedDependency[Engine], id: FromPath[str], data: JSONBody[RetriesDto | None] = None
) -> None:
    retries = (data or RetriesDto()).retries
    if retries is None:
        raise invalid("retries is required")
    if retries < 0:
        raise invalid(
            f"The number of job retries must be a non-negative Integer, but '{retries}' has "
            "been provided."
        )
    engine.management_service.set_job_retries(id, retries)


class SuspensionStateDto(msgspec.Struct, rename="camel"):
    suspended: bool | None = None


@put("/job/{id:str}/suspended", status_code=204, sync_to_thread=True)
def set_job_suspended(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[SuspensionStateDto | None] = None,
) -> None:
    suspended = (data or SuspensionStateDto()).suspended
    if suspended is None:
        raise invalid("suspended is required: true suspends the job, false activates it")
    if suspended:
        engine.management_service.suspend_job(id)
    else:
        engine.management_service.activate_job(id)


class PriorityDto(msgspec.Struct, rename="camel"):
    priority: int | None = None


@put("/job/{id:str}/priority", status_code=204, sync_to_thread=True)
def set_job_priority(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[PriorityDto | None] = None,
) -> None:
    priority = (data or PriorityDto()).priority
    if priority is None:
        raise invalid("priority is required")
    engine.management_service.set_job_priority(id, priority)


@put("/job/{id:str}/duedate", status_code=204, sync_to_thread=True)
def set_job_duedate(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[JobDuedateDto | None] = None,
) -> None:
    """A new due date, or none (`"duedate": null`: due now, as an async continuation is)."""
    body = data or JobDuedateDto()
    if body.cascade:
        raise invalid("cascade is not supported: this engine moves the due date of this job only")
    due = None if body.duedate is None else parse_date(body.duedate, "duedate")
    if due is not None:
        with refused_as_400():
            due = stored_moment(due, "duedate").replace(tzinfo=UTC)
    engine.management_service.set_job_due_date(id, due)


@get("/job/{id:str}/stacktrace", sync_to_thread=True, media_type=MediaType.TEXT)
def get_stacktrace(engine: NamedDependency[Engine], id: FromPath[str]) -> Response[str]:
    """The stack trace of the job's last failure; as in Camunda, a job that has not failed
    answers 204 with no body, and an unknown one 404."""
    stacktrace = engine.management_service.job_stacktrace(id)
    if stacktrace is None:
        return Response("", status_code=204, media_type=MediaType.TEXT)
    return Response(stacktrace, media_type=MediaType.TEXT)


routes: list[Any] = [
    *list_routes(
        JOBS,
        get_list="get_jobs",
        post_list="query_jobs",
        get_count="get_jobs_count",
        post_count="query_jobs_count",
    ),
    get_job,
    execute_job,
    set_job_retries,
    set_job_duedate,
    set_job_suspended,
    set_job_priority,
    get_stacktrace,
]
