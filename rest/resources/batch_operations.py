"""engine-rest: the operations Camunda answers with a batch (BatchDto) — each resolves its
targets (ids given and those its queries find now) and creates a batch of its type through the
service verb; the batch's jobs do the work in the background.

`POST /process-instance/delete` (deleteProcessInstancesAsync), `POST /job/retries` and
`POST /process-instance/job-retries` (setJobRetriesAsync), `POST /process-instance/suspended-async`,
`POST /external-task/retries-async`, `POST /history/process-instance/delete`,
`POST /process-instance/variables-async` (setVariablesAsync), `POST /process-instance/message-async`
(correlateAllAsync), and the `…-historic-query-based` forms of deletion and job retries.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import Request, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from flowledger.core.batches.model import MAX_BATCH_TARGETS
from flowledger.engine import Engine
from flowledger.projections.queries import external_tasks, history_instances, jobs, runtime
from flowledger.projections.queries.declaration import find

from ..errors import RestError, invalid
from ..formats import parse_date
from ..listing import refused_as_400
from ..variables import VariableValueDto, check_decoded_size, wire_variables
from .batch import BatchDto, batch_dto


class DeleteProcessInstancesDto(msgspec.Struct, rename="camel"):
    """Camunda's DeleteProcessInstancesDto."""

    process_instance_ids: list[str] | None = None
    process_instance_query: dict[str, Any] | None = None
    historic_process_instance_query: dict[str, Any] | None = None
    delete_reason: str | None = None
    skip_custom_listeners: bool = False
    skip_subprocesses: bool = False
    skip_io_mappings: bool = False
    fail_if_not_exists: bool = True


def _query(name: str, query: dict[str, Any], kind: type[Any]) -> Any:
    try:
        return msgspec.convert(query, kind)
    except msgspec.ValidationError as exc:
        raise invalid(f"{name}: {exc}") from None


def running_instances(engine: Engine, query: dict[str, Any] | None) -> list[str]:
    """The running instances a processInstanceQuery selects now (as GET /process-instance)."""
    if query is None:
        return []
    parsed = _query("processInstanceQuery", query, runtime.ProcessInstanceQuery)
    with refused_as_400(), engine.reading() as conn:
        rows = find(conn, runtime.PROCESS_INSTANCES, parsed, maximum=MAX_BATCH_TARGETS + 1)
    return [row.id for row in rows]


def historic_instances(
    engine: Engine, query: dict[str, Any] | None, *, unfinished: bool = False
) -> list[str]:
    """The instances a historicProcessInstanceQuery selects now (as GET
    /history/process-instance); with `unfinished`, the running ones only."""
    if query is None:
        return []
    kind = history_instances.HistoricProcessInstanceQuery
    parsed = _query("historicProcessInstanceQuery", query, kind)
    if unfinished:
        parsed = msgspec.structs.replace(parsed, unfinished=True)
    with refused_as_400(), engine.reading() as conn:
        rows = find(
            conn, history_instances.PROCESS_INSTANCES, parsed, maximum=MAX_BATCH_TARGETS + 1
        )
    return [row.id for row in rows]


@post("/process-instance/delete", status_code=200, sync_to_thread=True)
def delete_process_instances_async_operation(
    engine: NamedDependency[Engine], data: JSONBody[DeleteProcessInstancesDto]
) -> BatchDto:
    return _delete_instances(engine, data)


@post("/process-instance/delete-historic-query-based", status_code=200, sync_to_thread=True)
def delete_async_historic_query_based(
    engine: NamedDependency[Engine], data: JSONBody[DeleteProcessInstancesDto]
) -> BatchDto:
    """The same batch, Camunda's form for a historicProcessInstanceQuery (its ids too)."""
    return _delete_instances(engine, data)


def _delete_instances(engine: Engine, data: DeleteProcessInstancesDto) -> BatchDto:
    ids = [
        *(data.process_instance_ids or ()),
        *running_instances(engine, data.process_instance_query),
        *historic_instances(engine, data.historic_process_instance_query),
    ]
    batch = engine.runtime_service.delete_process_instances_async(
        ids,
        delete_reason=data.delete_reason,
        skip_custom_listeners=data.skip_custom_listeners,
        skip_subprocesses=data.skip_subprocesses,
        skip_io_mappings=data.skip_io_mappings,
        fail_if_not_exists=data.fail_if_not_exists,
    )
    return batch_dto(engine, batch.id)


# -- set-job-retries ----------------------------------------------------------------------------


class SetJobRetriesDto(msgspec.Struct, rename="camel"):
    """Camunda's SetJobRetriesDto (7.22's `dueDate` too)."""

    job_ids: list[str] | None = None
    job_query: dict[str, Any] | None = None
    retries: int | None = None
    due_date: str | None = None


class SetJobRetriesByProcessDto(msgspec.Struct, rename="camel"):
    """Camunda's SetJobRetriesByProcessDto."""

    process_instances: list[str] | None = None
    process_instance_query: dict[str, Any] | None = None
    historic_process_instance_query: dict[str, Any] | None = None
    retries: int | None = None
    due_date: str | None = None


def _retries(retries: int | None) -> int:
    if retries is None or retries < 0:
        raise invalid(
            f"The number of job retries must be a non-negative Integer, but '{retries}' has "
            "been provided."
        )
    return retries


def _due(text: str | None) -> datetime | None:
    return None if text is None else parse_date(text, "dueDate")


@post("/job/retries", status_code=200, sync_to_thread=True)
def set_job_retries_async_operation(
    engine: NamedDependency[Engine], data: JSONBody[SetJobRetriesDto]
) -> BatchDto:
    query = None
    if data.job_query is not None:
        query = _query("jobQuery", data.job_query, jobs.JobSearchQuery)
    with refused_as_400():
        batch = engine.management_service.set_job_retries_async(
            data.job_ids,
            query,
            _retries(data.retries),
            due_date=_due(data.due_date),
            set_due_date=data.due_date is not None,
        )
    return batch_dto(engine, batch.id)


@post("/process-instance/job-retries", status_code=200, sync_to_thread=True)
def set_retries_by_process(
    engine: NamedDependency[Engine], data: JSONBody[SetJobRetriesByProcessDto]
) -> BatchDto:
    return _retries_by_process(engine, data)


@post("/process-instance/job-retries-historic-query-based", status_code=200, sync_to_thread=True)
def set_retries_by_process_historic_query_based(
    engine: NamedDependency[Engine], data: JSONBody[SetJobRetriesByProcessDto]
) -> BatchDto:
    """The same batch, Camunda's form for a historicProcessInstanceQuery."""
    return _retries_by_process(engine, data)


def _retries_by_process(engine: Engine, data: SetJobRetriesByProcessDto) -> BatchDto:
    ids = [
        *(data.process_instances or ()),
        *running_instances(engine, data.process_instance_query),
        *historic_instances(engine, data.historic_process_instance_query),
    ]
    batch = engine.management_service.set_job_retries_async_by_process(
        ids,
        _retries(data.retries),
        due_date=_due(data.due_date),
        set_due_date=data.due_date is not None,
    )
    return batch_dto(engine, batch.id)


# -- instance-update-suspension-state, set-external-task-retries, historic-instance-deletion ----


class ProcessInstanceSuspensionStateAsyncDto(msgspec.Struct, rename="camel"):
    process_instance_ids: list[str] | None = None
    process_instance_query: dict[str, Any] | None = None
    historic_process_instance_query: dict[str, Any] | None = None
    suspended: bool | None = None


@post("/process-instance/suspended-async", status_code=200, sync_to_thread=True)
def update_suspension_state_async_operation(
    engine: NamedDependency[Engine], data: JSONBody[ProcessInstanceSuspensionStateAsyncDto]
) -> BatchDto:
    if data.suspended is None:
        raise invalid("suspended is required")
    ids = [
        *(data.process_instance_ids or ()),
        *running_instances(engine, data.process_instance_query),
        *historic_instances(engine, data.historic_process_instance_query),
    ]
    batch = engine.runtime_service.update_process_instances_suspension_state_async(
        ids, suspended=data.suspended
    )
    return batch_dto(engine, batch.id)


class SetRetriesForExternalTasksDto(msgspec.Struct, rename="camel"):
    external_task_ids: list[str] | None = None
    process_instance_ids: list[str] | None = None
    external_task_query: dict[str, Any] | None = None
    process_instance_query: dict[str, Any] | None = None
    historic_process_instance_query: dict[str, Any] | None = None
    retries: int | None = None


@post("/external-task/retries-async", status_code=200, sync_to_thread=True)
def set_external_task_retries_async_operation(
    engine: NamedDependency[Engine], data: JSONBody[SetRetriesForExternalTasksDto]
) -> BatchDto:
    """The tasks named, those the external task query finds, and those of the instances named
    or found, now (Camunda's setRetriesAsync builder)."""
    ids = list(data.external_task_ids or ())
    queries: list[external_tasks.ExternalTaskQuery] = []
    if data.external_task_query is not None:
        kind = external_tasks.ExternalTaskQuery
        queries.append(_query("externalTaskQuery", data.external_task_query, kind))
    instances = [
        *(data.process_instance_ids or ()),
        *running_instances(engine, data.process_instance_query),
        *historic_instances(engine, data.historic_process_instance_query),
    ]
    if instances:
        queries.append(external_tasks.ExternalTaskQuery(process_instance_id_in=instances))
    with refused_as_400(), engine.reading() as conn:
        for query in queries:
            found = find(conn, external_tasks.EXTERNAL_TASKS, query, maximum=MAX_BATCH_TARGETS)
            ids += [row.id for row in found]
    batch = engine.external_task_service.set_retries_async(ids, _retries(data.retries))
    return batch_dto(engine, batch.id)


class DeleteHistoricProcessInstancesDto(msgspec.Struct, rename="camel"):
    historic_process_instance_ids: list[str] | None = None
    historic_process_instance_query: dict[str, Any] | None = None
    delete_reason: str | None = None
    fail_if_not_exists: bool = True


@post("/history/process-instance/delete", status_code=200, sync_to_thread=True)
def delete_historic_process_instances_async(
    engine: NamedDependency[Engine], data: JSONBody[DeleteHistoricProcessInstancesDto]
) -> BatchDto:
    ids = [
        *(data.historic_process_instance_ids or ()),
        *historic_instances(engine, data.historic_process_instance_query),
    ]
    batch = engine.history_service.delete_historic_process_instances_async(
        ids, data.delete_reason, fail_if_not_exists=data.fail_if_not_exists
    )
    return batch_dto(engine, batch.id)


# -- set-variables and correlate-message ---------------------------------------------------------


class SetVariablesAsyncDto(msgspec.Struct, rename="camel"):
    process_instance_ids: list[str] | None = None
    process_instance_query: dict[str, Any] | None = None
    historic_process_instance_query: dict[str, Any] | None = None
    variables: dict[str, VariableValueDto] | None = None


class CorrelationMessageAsyncDto(msgspec.Struct, rename="camel"):
    message_name: str | None = None
    process_instance_ids: list[str] | None = None
    process_instance_query: dict[str, Any] | None = None
    historic_process_instance_query: dict[str, Any] | None = None
    variables: dict[str, VariableValueDto] | None = None


def _batch_variables(
    request: Request[Any, Any, Any], dtos: dict[str, VariableValueDto] | None
) -> dict[str, Any] | None:
    if dtos is None:
        return None
    check_decoded_size(request, dtos)
    try:
        return wire_variables(dtos)
    except RestError as exc:
        raise invalid(f"Cannot set variables: {exc.message}") from None


def _instances(
    engine: Engine,
    ids: list[str] | None,
    query: dict[str, Any] | None,
    history: dict[str, Any] | None,
    *,
    unfinished: bool = False,
) -> list[str] | None:
    """Camunda's BatchElementConfiguration: the ids, then what each query finds; None when
    none of the three was given."""
    if ids is None and query is None and history is None:
        return None
    return [
        *(ids or ()),
        *running_instances(engine, query),
        *historic_instances(engine, history, unfinished=unfinished),
    ]


@post("/process-instance/variables-async", status_code=200, sync_to_thread=True)
def set_variables_async_operation(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    data: JSONBody[SetVariablesAsyncDto],
) -> BatchDto:
    """runtimeService.setVariablesAsync: a history query finds running instances only."""
    variables = _batch_variables(request, data.variables)
    ids = _instances(
        engine,
        data.process_instance_ids,
        data.process_instance_query,
        data.historic_process_instance_query,
        unfinished=True,
    )
    batch = engine.runtime_service.set_variables_async(ids, variables=variables)
    return batch_dto(engine, batch.id)


@post("/process-instance/message-async", status_code=200, sync_to_thread=True)
def correlate_message_async_operation(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    data: JSONBody[CorrelationMessageAsyncDto],
) -> BatchDto:
    variables = _batch_variables(request, data.variables)
    ids = _instances(
        engine,
        data.process_instance_ids,
        data.process_instance_query,
        data.historic_process_instance_query,
    )
    batch = engine.runtime_service.correlate_message_async(
        data.message_name or "", ids, variables=variables
    )
    return batch_dto(engine, batch.id)


routes: list[Any] = [
    delete_process_instances_async_operation,
    delete_async_historic_query_based,
    set_retries_by_process_historic_query_based,
    set_variables_async_operation,
    correlate_message_async_operation,
    set_job_retries_async_operation,
    set_retries_by_process,
    update_suspension_state_async_operation,
    set_external_task_retries_async_operation,
    delete_historic_process_instances_async,
]
