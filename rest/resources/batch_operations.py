"""engine-rest: the operations Camunda answers with a batch (BatchDto) — each resolves its
targets (ids given and those its queries find now) and creates a batch of its type through the
service verb; the batch's jobs do the work in the background.

`POST /process-instance/delete` (deleteProcessInstancesAsync), `POST /job/retries` and
`POST /process-instance/job-retries` (setJobRetriesAsync).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from flowledger.core.batches.model import MAX_BATCH_TARGETS
from flowledger.engine import Engine
from flowledger.projections.queries import history_instances, jobs, runtime
from flowledger.projections.queries.declaration import find

from ..errors import invalid
from ..formats import parse_date
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
    with engine.reading() as conn:
        rows = find(conn, runtime.PROCESS_INSTANCES, parsed, maximum=MAX_BATCH_TARGETS + 1)
    return [row.id for row in rows]


def historic_instances(engine: Engine, query: dict[str, Any] | None) -> list[str]:
    """The instances a historicProcessInstanceQuery selects now (as GET
    /history/process-instance)."""
    if query is None:
        return []
    kind = history_instances.HistoricProcessInstanceQuery
    parsed = _query("historicProcessInstanceQuery", query, kind)
    with engine.reading() as conn:
        rows = find(
            conn, history_instances.PROCESS_INSTANCES, parsed, maximum=MAX_BATCH_TARGETS + 1
        )
    return [row.id for row in rows]


@post("/process-instance/delete", status_code=200, sync_to_thread=True)
def delete_process_instances_async_operation(
    engine: NamedDependency[Engine], data: JSONBody[DeleteProcessInstancesDto]
) -> BatchDto:
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


routes: list[Any] = [
    delete_process_instances_async_operation,
    set_job_retries_async_operation,
    set_retries_by_process,
]
