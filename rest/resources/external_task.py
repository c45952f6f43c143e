"""engine-rest: the external-task resource — fetch and lock (with long polling), complete,
failure, BPMN error, lock handling, retries, priority, error details, and the task query.

Fetch and lock never writes unless it can answer: a read query (`projections.queries`) looks for
fetchable tasks first, and `ExternalTaskService.fetch_and_lock` — a command with a command-log
row — runs only when there are some. A long poll waits on the application's `LongPoll` and
locks right before answering, so a client that leaves or a server that stops leaves nothing locked.

Topic filters (businessKey, processDefinitionId/Key(In), processDefinitionVersionTag,
processVariables, tenantIdIn, withoutTenantId) are applied by the read query; the engine is
then asked to lock only among the tasks it found (`task_ids`), which it re-checks under its
own lock, so a task another worker took meanwhile is simply not in the answer.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from litestar import Litestar, Request, Response, get, post, put
from litestar.di import NamedDependency
from litestar.enums import MediaType
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, JSONBody

from flowledger.core import FlowledgerError, NotFound, views
from flowledger.core.limits import check_fetch, strings_in
from flowledger.engine import Engine
from flowledger.projections.queries import external_tasks as search
from flowledger.projections.queries.declaration import count, find, first

from ..dto import Added, derived, to_dto
from ..errors import invalid, not_found
from ..formats import parse_bool, parse_date
from ..listing import Listing, Params, list_routes
from ..longpoll import LongPoll, attempt_once
from ..params import Sort, SortingDto, check_query_limits, paging
from ..variables import VariableValueDto, check_decoded_size, engine_variables, variables_dto

log = logging.getLogger("flowledger.rest.external_task")

# Camunda refuses longer long polls (FetchAndLockHandlerImpl.MAX_REQUEST_TIMEOUT).
MAX_ASYNC_RESPONSE_TIMEOUT = 1_800_000
LONG_POLL_STATE = "external_task_long_poll"

# Camunda's Java int and long; durations in milliseconds up to a century (a date beyond that
# cannot be stored).
Int = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]
Long = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
Millis = Annotated[int, msgspec.Meta(ge=-(2**63), le=100 * 366 * 24 * 3600 * 1000)]


# -- DTOs ----------------------------------------------------------------------------------------


class FetchExternalTaskTopicDto(msgspec.Struct, rename="camel"):
    topic_name: str | None = None
    lock_duration: Millis | None = None
    variables: list[str] | None = None
    local_variables: bool | None = None
    deserialize_values: bool | None = None
    business_key: str | None = None
    process_definition_id: str | None = None
    process_definition_id_in: list[str] | None = None
    process_definition_key: str | None = None
    process_definition_key_in: list[str] | None = None
    process_definition_version_tag: str | None = None
    process_variables: dict[str, Any] | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    include_extension_properties: bool | None = None


class FetchExternalTasksDto(msgspec.Struct, rename="camel"):
    worker_id: str | None = None
    max_tasks: Int | None = None
    use_priority: bool | None = None
    async_response_timeout: Long | None = None
    include_extension_properties: bool | None = None
    # Sent as null by the Python clients; newer Camunda sorts by createTime. Accepted, ignored:
    # tasks come oldest first (highest priority first with usePriority).
    sorting: Any = None
    topics: list[FetchExternalTaskTopicDto] | None = None


@derived(
    search.ExternalTaskRow,
    # 7.15's ExternalTaskDto has no createTime.
    omit=("create_time",),
)
class ExternalTaskDto(msgspec.Struct):
    """Camunda's ExternalTaskDto."""


@derived(
    search.ExternalTaskRow,
    omit=("create_time",),
    # No `extensionProperties`: 7.15's schema has none, and the model keeps no camunda:properties
    # to fill it (the external-task client reads it with a default).
    add=(
        Added("error_details", str | None, after="error_message"),
        Added("variables", dict[str, VariableValueDto], {}),
    ),
)
class LockedExternalTaskDto(msgspec.Struct):
    """Camunda's LockedExternalTaskDto: a fetched task with its variables."""

    if TYPE_CHECKING:
        id: str  # read to release an answer nobody waits for


class ExternalTaskQueryDto(msgspec.Struct, rename="camel"):
    """The query as it arrives: dates in Camunda's format, plus the JSON query's `sorting`."""

    external_task_id: str | None = None
    external_task_id_in: list[str] | None = None
    topic_name: str | None = None
    worker_id: str | None = None
    locked: bool | None = None
    not_locked: bool | None = None
    with_retries_left: bool | None = None
    no_retries_left: bool | None = None
    lock_expiration_after: str | None = None
    lock_expiration_before: str | None = None
    activity_id: str | None = None
    activity_id_in: list[str] | None = None
    execution_id: str | None = None
    process_instance_id: str | None = None
    process_instance_id_in: list[str] | None = None
    process_definition_id: str | None = None
    tenant_id_in: list[str] | None = None
    active: bool | None = None
    suspended: bool | None = None
    priority_higher_than_or_equals: Long | None = None
    priority_lower_than_or_equals: Long | None = None
    sorting: list[SortingDto] | SortingDto | None = None


class CompleteExternalTaskDto(msgspec.Struct, rename="camel"):
    worker_id: str | None = None
    variables: dict[str, VariableValueDto] | None = None
    local_variables: dict[str, VariableValueDto] | None = None


class ExternalTaskFailureDto(msgspec.Struct, rename="camel"):
    worker_id: str | None = None
    error_message: str | None = None
    error_details: str | None = None
    retries: Int | None = None
    retry_timeout: Millis | None = None
    variables: dict[str, VariableValueDto] | None = None
    local_variables: dict[str, VariableValueDto] | None = None


class ExternalTaskBpmnErrorDto(msgspec.Struct, rename="camel"):
    worker_id: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    variables: dict[str, VariableValueDto] | None = None


class ExtendLockOnExternalTaskDto(msgspec.Struct, rename="camel"):
    worker_id: str | None = None
    new_duration: Millis | None = None


class RetriesDto(msgspec.Struct, rename="camel"):
    retries: Int | None = None


class PriorityDto(msgspec.Struct, rename="camel"):
    priority: Long | None = None


# -- fetch and lock ------------------------------------------------------------------------------


class _Topic(msgspec.Struct, frozen=True):
    """One validated topic of a fetch: which tasks, how long to lock, which variables."""

    filter: search.TopicFilter
    lock_duration: int
    variables: list[str] | None
    local_variables: bool
    deserialize_values: bool


class _Fetch(msgspec.Struct, frozen=True):
    worker_id: str
    max_tasks: int
    use_priority: bool
    timeout_ms: int
    topics: list[_Topic]

    def topic(self, name: str) -> _Topic:
        return next(t for t in reversed(self.topics) if t.filter.topic_name == name)


def _narrow(single: str | None, many: list[str] | None) -> list[str] | None:
    """`x` and `xIn` of a topic together: a task must satisfy both."""
    if single is None:
        return many
    return [single] if many is None or single in many else []


def _process_variables(index: int, values: dict[str, Any] | None) -> dict[str, Any] | None:
    for name, value in (values or {}).items():
        if value is not None and not isinstance(value, str | int | float | bool):
            raise invalid(
                f"topics[{index}].processVariables.{name}: only string, number, boolean or "
                "null values can be matched"
            )
    return values or None


def _topic(index: int, dto: FetchExternalTaskTopicDto) -> _Topic:
    if not dto.topic_name:
        raise invalid(f"topics[{index}].topicName is required")
    if dto.lock_duration is None or dto.lock_duration <= 0:
        raise invalid(
            f"topics[{index}].lockDuration must be a positive number of milliseconds "
            f"(got {dto.lock_duration})"
        )
    return _Topic(
        filter=search.TopicFilter(
            topic_name=dto.topic_name,
            business_key=dto.business_key,
            process_definition_ids=_narrow(dto.process_definition_id, dto.process_definition_id_in),
            process_definition_keys=_narrow(
                dto.process_definition_key, dto.process_definition_key_in
            ),
            process_definition_version_tag=dto.process_definition_version_tag,
            tenant_ids=dto.tenant_id_in,
            without_tenant_id=bool(dto.without_tenant_id),
            process_variables=_process_variables(index, dto.process_variables),
        ),
        lock_duration=dto.lock_duration,
        variables=dto.variables,
        local_variables=bool(dto.local_variables),
        deserialize_values=bool(dto.deserialize_values),
    )


def _fetch_request(dto: FetchExternalTasksDto | None) -> _Fetch:
    if dto is None:
        raise invalid("A request body {workerId, maxTasks, topics} is required")
    if dto.worker_id is None:
        raise invalid("workerId is required")
    if dto.max_tasks is None or dto.max_tasks < 0:
        raise invalid(f"maxTasks must be zero or a positive number (got {dto.max_tasks})")
    # Topic filters are compared with text columns, which PostgreSQL cannot do with NUL; the
    # same refusal on every database, before any query.
    if any("\x00" in text for _path, text in strings_in(dto)):
        raise invalid("fetchAndLock: NUL characters are not allowed in workerId or topics")
    check_query_limits(dto)
    timeout = dto.async_response_timeout or 0
    if timeout < 0:
        raise invalid(
            "The asynchronous response timeout must be zero or a positive number of "
            f"milliseconds (asyncResponseTimeout: {timeout})"
        )
    if timeout > MAX_ASYNC_RESPONSE_TIMEOUT:
        raise invalid(
            "The asynchronous response timeout cannot be set to a value greater than "
            f"{MAX_ASYNC_RESPONSE_TIMEOUT} milliseconds (asyncResponseTimeout: {timeout})"
        )
    return _Fetch(
        worker_id=dto.worker_id,
        max_tasks=dto.max_tasks,
        use_priority=bool(dto.use_priority),
        timeout_ms=timeout,
        topics=[_topic(i, t) for i, t in enumerate(dto.topics or [])],
    )


def _plan(engine: Engine, fetch: _Fetch) -> tuple[bool, list[str] | None]:
    """(anything fetchable now, the ids the topic filters allow or None for any). Reads only."""
    filters = [t.filter for t in fetch.topics]
    now = engine.clock.now()
    with engine.reading() as conn:
        wanted = search.fetchable(conn, filters, now, fetch.max_tasks, fetch.use_priority)
    if not wanted:
        return False, None
    if not any(f.filtered for f in filters):
        return True, None
    return True, [c.id for c in wanted]


def _unlock(engine: Engine, task_ids: Sequence[str]) -> None:
    for task_id in task_ids:
        try:
            engine.external_task_service.unlock(task_id)
        except FlowledgerError as exc:  # gone meanwhile: nothing left to release
            log.warning("could not unlock external task %s: %s", task_id, exc)


def _variables(engine: Engine, execution_id: str, topic: _Topic) -> dict[str, VariableValueDto]:
    if topic.variables is not None and not topic.variables:
        return {}
    try:
        values = engine.runtime_service.get_variable_values(
            execution_id, local=topic.local_variables
        )
    except NotFound:
        return {}
    if topic.variables is not None:
        names = set(topic.variables)
        values = {n: v for n, v in values.items() if n in names}
    return variables_dto(values, deserialize=topic.deserialize_values)


def _answer(
    engine: Engine, fetch: _Fetch, locked: Sequence[views.ExternalTask]
) -> list[LockedExternalTaskDto]:
    """The locked tasks as the read model has them now: one another node deleted meanwhile
    (its instance ended or was deleted) is left out, as Camunda skips it, never a 404."""
    query = search.ExternalTaskQuery(external_task_id_in=[t.id for t in locked])
    with engine.reading() as conn:
        by_id = {r.id: r for r in find(conn, search.EXTERNAL_TASKS, query)}
    answer: list[LockedExternalTaskDto] = []
    for task in locked:
        row = by_id.get(task.id)
        if row is None:
            continue
        try:
            answer.append(_locked_dto(engine, row, fetch.topic(task.topic_name)))
        except NotFound:
            continue
    return answer


def _locked_dto(
    engine: Engine, row: search.ExternalTaskRow, topic: _Topic
) -> LockedExternalTaskDto:
    # Error details exist only after a failure report, which also sets the retries.
    details = (
        engine.external_task_service.error_details(row.id) if row.retries is not None else None
    )
    variables = _variables(engine, row.execution_id, topic)
    return to_dto(LockedExternalTaskDto, row, error_details=details, variables=variables)


def _try_fetch(engine: Engine, fetch: _Fetch) -> list[LockedExternalTaskDto] | None:
    """Lock and describe what is fetchable now; None (and nothing written) when nothing is."""
    fetchable, only = _plan(engine, fetch)
    if not fetchable:
        return None
    pairs = [(t.filter.topic_name, t.lock_duration) for t in fetch.topics]
    locked = engine.external_task_service.fetch_and_lock(
        fetch.worker_id, pairs, fetch.max_tasks, use_priority=fetch.use_priority, task_ids=only
    )
    if not locked:
        return None  # taken by another worker between the read and the lock
    try:
        return _answer(engine, fetch, locked)
    except BaseException:
        _unlock(engine, [t.id for t in locked])
        raise


def _release(engine: Engine, answer: list[LockedExternalTaskDto]) -> None:
    _unlock(engine, [t.id for t in answer])


@post("/external-task/fetchAndLock", status_code=200)
async def fetch_and_lock(
    request: Request[Any, Any, Any],
    engine: NamedDependency[Engine],
    data: JSONBody[FetchExternalTasksDto | None] = None,
) -> list[LockedExternalTaskDto]:
    fetch = _fetch_request(data)
    # the engine's checks, before a long poll would wait for tasks it could not lock
    durations = {t.filter.topic_name: t.lock_duration for t in fetch.topics}
    check_fetch(fetch.worker_id, durations, fetch.max_tasks, engine.clock.now())
    if fetch.max_tasks == 0:
        return []
    attempt = partial(_try_fetch, engine, fetch)
    release = partial(_release, engine)
    poll: LongPoll | None = request.app.state.get(LONG_POLL_STATE)
    if poll is None or fetch.timeout_ms == 0:
        return await attempt_once(attempt, release) or []
    answer = await poll.until(attempt, release, fetch.timeout_ms / 1000, request.receive)
    return answer or []


async def _start_long_poll(app: Litestar) -> None:
    poll = LongPoll(app.state.engine)
    await poll.start()
    app.state[LONG_POLL_STATE] = poll


async def _stop_long_poll(app: Litestar) -> None:
    poll: LongPoll | None = app.state.get(LONG_POLL_STATE)
    if poll is not None:
        await poll.stop()


on_startup = [_start_long_poll]
on_shutdown = [_stop_long_poll]


# -- operations on one task ----------------------------------------------------------------------


def _worker(worker_id: str | None) -> str:
    if worker_id is None:
        raise invalid("workerId is required")
    return worker_id


@post("/external-task/{id:str}/complete", status_code=204, sync_to_thread=True)
def complete(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    id: FromPath[str],
    data: JSONBody[CompleteExternalTaskDto | None] = None,
) -> None:
    body = data or CompleteExternalTaskDto()
    check_decoded_size(request, body.variables, body.local_variables)
    engine.external_task_service.complete(
        id,
        _worker(body.worker_id),
        engine_variables(body.variables),
        engine_variables(body.local_variables),
    )


@post("/external-task/{id:str}/failure", status_code=204, sync_to_thread=True)
def handle_failure(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    id: FromPath[str],
    data: JSONBody[ExternalTaskFailureDto | None] = None,
) -> None:
    body = data or ExternalTaskFailureDto()
    check_decoded_size(request, body.variables, body.local_variables)
    worker_id = _worker(body.worker_id)
    # Camunda reads a missing or null `retries` (an int field there) as 0: an incident.
    engine.external_task_service.handle_failure(
        id,
        worker_id,
        body.error_message,
        error_details=body.error_details,
        retries=body.retries or 0,
        retry_timeout=body.retry_timeout or 0,
        variables=engine_variables(body.variables),
        local_variables=engine_variables(body.local_variables),
    )


@post("/external-task/{id:str}/bpmnError", status_code=204, sync_to_thread=True)
def handle_bpmn_error(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    id: FromPath[str],
    data: JSONBody[ExternalTaskBpmnErrorDto | None] = None,
) -> None:
    body = data or ExternalTaskBpmnErrorDto()
    check_decoded_size(request, body.variables)
    worker_id = _worker(body.worker_id)
    if not body.error_code:
        raise invalid("errorCode is required")
    engine.external_task_service.handle_bpmn_error(
        id, worker_id, body.error_code, body.error_message, engine_variables(body.variables)
    )


@post("/external-task/{id:str}/extendLock", status_code=204, sync_to_thread=True)
def extend_lock(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[ExtendLockOnExternalTaskDto | None] = None,
) -> None:
    body = data or ExtendLockOnExternalTaskDto()
    worker_id = _worker(body.worker_id)
    if body.new_duration is None:
        raise invalid("newDuration is required")
    engine.external_task_service.extend_lock(id, worker_id, body.new_duration)


@post("/external-task/{id:str}/unlock", status_code=204, sync_to_thread=True)
def unlock(engine: NamedDependency[Engine], id: FromPath[str]) -> None:
    engine.external_task_service.unlock(id)


@put("/external-task/{id:str}/retries", status_code=204, sync_to_thread=True)
def set_retries(
    engine: NamedDependency[Engine], id: FromPath[str], data: JSONBody[RetriesDto | None] = None
) -> None:
    retries = (data or RetriesDto()).retries
    if retries is None or retries < 0:
        raise invalid(f"retries must be zero or a positive number (got {retries})")
    engine.external_task_service.set_retries(id, retries)


@put("/external-task/{id:str}/priority", status_code=204, sync_to_thread=True)
def set_priority(
    engine: NamedDependency[Engine], id: FromPath[str], data: JSONBody[PriorityDto | None] = None
) -> None:
    priority = (data or PriorityDto()).priority
    if priority is None:
        raise invalid("priority is required")
    engine.external_task_service.set_priority(id, priority)


@get("/external-task/{id:str}", sync_to_thread=True)
def get_external_task(engine: NamedDependency[Engine], id: FromPath[str]) -> ExternalTaskDto:
    with engine.reading() as conn:
        row = first(conn, search.EXTERNAL_TASKS, search.ExternalTaskQuery(external_task_id=id))
    if row is None:
        raise not_found(f"External task with id {id} does not exist")
    return to_dto(ExternalTaskDto, row)


@get("/external-task/{id:str}/errorDetails", sync_to_thread=True)
def get_error_details(engine: NamedDependency[Engine], id: FromPath[str]) -> Response[str]:
    details = engine.external_task_service.error_details(id)
    if details is None:
        return Response("", status_code=204, media_type=MediaType.TEXT)
    return Response(details, media_type=MediaType.TEXT)


# -- queries -------------------------------------------------------------------------------------


def _query(engine: Engine, dto: ExternalTaskQueryDto) -> search.ExternalTaskQuery:
    """The search's query: dates parsed, `locked` meaning locked at the engine's now."""
    values = msgspec.structs.asdict(dto)
    del values["sorting"]
    for key, parameter in (
        ("lock_expiration_after", "lockExpirationAfter"),
        ("lock_expiration_before", "lockExpirationBefore"),
    ):
        text = values[key]
        values[key] = None if text is None else parse_date(text, parameter)
    return search.ExternalTaskQuery(**values, now=engine.clock.now())


def _find(
    engine: Engine, dto: ExternalTaskQueryDto, sorting: list[Sort], params: Params
) -> list[ExternalTaskDto]:
    query = _query(engine, dto)
    first_result, max_results = paging(params)
    with engine.reading() as conn:
        rows = find(conn, search.EXTERNAL_TASKS, query, sorting, first_result, max_results)
    return [to_dto(ExternalTaskDto, r) for r in rows]


def _count(engine: Engine, dto: ExternalTaskQueryDto) -> int:
    query = _query(engine, dto)
    with engine.reading() as conn:
        return count(conn, search.EXTERNAL_TASKS, query)


EXTERNAL_TASKS = Listing(
    path="/external-task",
    query=ExternalTaskQueryDto,
    body=ExternalTaskQueryDto,
    result=ExternalTaskDto,
    sorts=search.EXTERNAL_TASKS.sorts,
    find=_find,
    count=_count,
)


# Its switches are Java booleans, which never fail to parse: Camunda documents no 400 body.
@get(
    "/external-task/topic-names",
    sync_to_thread=True,
    responses={400: ResponseSpec(None, description="Bad Request")},
)
def topic_names(engine: NamedDependency[Engine], request: Request[Any, Any, Any]) -> list[str]:
    params = request.query_params
    with engine.reading() as conn:
        return search.topic_names(
            conn,
            with_locked_tasks=parse_bool(params.get("withLockedTasks")),
            with_unlocked_tasks=parse_bool(params.get("withUnlockedTasks")),
            with_retries_left=parse_bool(params.get("withRetriesLeft")),
            now=engine.clock.now(),
        )


routes: list[Any] = [
    fetch_and_lock,
    complete,
    handle_failure,
    handle_bpmn_error,
    extend_lock,
    unlock,
    set_retries,
    set_priority,
    get_external_task,
    get_error_details,
    *list_routes(
        EXTERNAL_TASKS,
        get_list="list_external_tasks",
        post_list="query_external_tasks",
        get_count="count_external_tasks",
        post_count="query_external_tasks_count",
    ),
    topic_names,
]
