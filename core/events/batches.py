"""Events of a batch's stream (stream id = the batch id): the batch created, its seed job's runs,
its jobs done or failed, suspended, completed by its monitor job, deleted.

Pure data. A batch stream has no folded state (like a deployment's): every event carries what its
rows need, so the projectors write them without reading (STATELESS_STREAM_EVENTS).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from ..variables import StoredValue
from .base import Event


class LoggedOperation(msgspec.Struct, frozen=True):
    """One user operation log entry the batch's creation writes (Camunda logs the operation a
    batch will carry out when it is created, with `async` true): operation and entity type, the
    property changes (name, new value) and context columns (ACT_HI_OP_LOG names: PROC_DEF_ID_…)."""

    operation_type: str
    entity_type: str
    properties: list[tuple[str, Any]] = []
    context: dict[str, str] = {}
    # a property's value before (ORG_VALUE_), where Camunda logs one (a migration's source)
    before: dict[str, Any] = {}


class BatchVariable(msgspec.Struct, frozen=True):
    """A variable the batch holds for its jobs (Camunda's batch variables: ACT_RU_VARIABLE rows
    with BATCH_ID_, set on or correlated to each target), kept once, not in every job."""

    id: str
    name: str
    value: StoredValue


class BatchJobLogged(msgspec.Struct, frozen=True):
    """One ACT_HI_JOB_LOG row of a job of the batch (Camunda logs seed, monitor and batch jobs as
    any job, at history level full): the job as it was, in `state` (created 0, failed 1,
    successful 2, deleted 3). A failure's message and stack trace are its event's."""

    log_id: str
    job_id: str
    state: int
    job_definition_id: str
    job_type: str
    retries: int
    due_date: datetime | None = None


class BatchCreated(Event, tag=True, frozen=True):
    """A batch of `batch_type` over `targets` (resolved when it was created, in order), run by
    jobs of `invocations_per_batch_job` targets each, created `batch_jobs_per_seed` at a time by
    its seed job (`seed_job_id`, due at once). `parameters`: the operation's own (Camunda's batch
    configuration without the ids). Its configuration byte array holds targets and parameters."""

    batch_id: str
    batch_type: str
    total_jobs: int
    batch_jobs_per_seed: int
    invocations_per_batch_job: int
    seed_job_definition_id: str
    monitor_job_definition_id: str
    batch_job_definition_id: str
    configuration_id: str
    seed_job_id: str
    targets: list[str]
    time: datetime
    parameters: dict[str, Any] = {}
    tenant_id: str | None = None
    create_user_id: str | None = None
    logged: list[LoggedOperation] = []
    variables: list[BatchVariable] = []
    job_log: list[BatchJobLogged] = []


class BatchJob(msgspec.Struct, frozen=True):
    """One batch job: its id, its configuration byte array and the targets it runs."""

    job_id: str
    configuration_id: str
    targets: list[str]


class BatchJobsCreated(Event, tag=True, frozen=True):
    """The seed job `seed_job_id` ran: it created `jobs` (`jobs_created` now in all) and either a
    new seed job (`next_seed_job_id`) or, all created, the monitor job (`monitor_job_id`, due at
    once). The jobs' rows need the batch's type, job definition, tenant and parameters."""

    batch_id: str
    batch_type: str
    seed_job_id: str
    seed_had_stacktrace: bool
    jobs: list[BatchJob]
    jobs_created: int
    batch_job_definition_id: str
    seed_job_definition_id: str
    monitor_job_definition_id: str
    time: datetime
    parameters: dict[str, Any] = {}
    next_seed_job_id: str | None = None
    monitor_job_id: str | None = None
    tenant_id: str | None = None
    job_log: list[BatchJobLogged] = []


class BatchJobCompleted(Event, tag=True, frozen=True):
    """A batch job ran: its work's events are in the same commit, on the targets' streams.
    `execution_started`: it was the batch's first (EXEC_START_TIME_)."""

    batch_id: str
    job_id: str
    configuration_id: str | None
    had_stacktrace: bool
    time: datetime
    execution_started: bool = False
    job_log: list[BatchJobLogged] = []


class BatchJobFailed(Event, tag=True, frozen=True):
    """A job of the batch (seed, monitor or batch job) failed: nothing its work did was kept;
    its retries went down to `retries` and it waits until `due_date`."""

    batch_id: str
    job_id: str
    retries: int
    error_message: str | None
    stacktrace: str | None
    had_stacktrace: bool
    due_date: datetime | None
    time: datetime
    job_log: list[BatchJobLogged] = []


class BatchJobRetriesSet(Event, tag=True, frozen=True):
    batch_id: str
    job_id: str
    retries: int
    retries_before: int
    time: datetime


class BatchMonitorRescheduled(Event, tag=True, frozen=True):
    """The monitor job `ran_job_id` found jobs left: the next poll is `job_id`, due `due_date`."""

    batch_id: str
    ran_job_id: str
    ran_had_stacktrace: bool
    job_id: str
    monitor_job_definition_id: str
    due_date: datetime
    time: datetime
    tenant_id: str | None = None
    job_log: list[BatchJobLogged] = []


class BatchSuspended(Event, tag=True, frozen=True):
    """The batch and its jobs and job definitions are suspended (`job_ids`: every job it had)."""

    batch_id: str
    job_ids: list[str]
    job_definition_ids: list[str]
    time: datetime


class BatchActivated(Event, tag=True, frozen=True):
    batch_id: str
    job_ids: list[str]
    job_definition_ids: list[str]
    time: datetime


class EndedBatchJob(msgspec.Struct, frozen=True):
    """A job ended with its batch, with the byte arrays that go with it."""

    job_id: str
    configuration_id: str | None = None
    had_stacktrace: bool = False


class BatchCompleted(Event, tag=True, frozen=True):
    """The monitor job found no batch job left: the batch's runtime rows go, its history ends."""

    batch_id: str
    monitor_job: EndedBatchJob
    job_definition_ids: list[str]
    configuration_id: str
    time: datetime
    job_log: list[BatchJobLogged] = []


class BatchDeleted(Event, tag=True, frozen=True):
    """Deleted through the API with every job it still had; `cascade`: its history too."""

    batch_id: str
    jobs: list[EndedBatchJob]
    job_definition_ids: list[str]
    configuration_id: str
    cascade: bool
    time: datetime
    job_log: list[BatchJobLogged] = []


class HistoricBatchDeleted(Event, tag=True, frozen=True):
    batch_id: str
    time: datetime


class HistoricBatchRemovalTimeSet(Event, tag=True, frozen=True):
    """The batch's history (ACT_HI_BATCH, its operation log entries) gets `removal_time`
    (None: kept until deleted): Camunda's batch-set-removal-time."""

    batch_id: str
    removal_time: datetime | None
    time: datetime


BATCH_EVENTS: tuple[type[Event], ...] = (
    BatchCreated,
    BatchJobsCreated,
    BatchJobCompleted,
    BatchJobFailed,
    BatchJobRetriesSet,
    BatchMonitorRescheduled,
    BatchSuspended,
    BatchActivated,
    BatchCompleted,
    BatchDeleted,
    HistoricBatchDeleted,
    HistoricBatchRemovalTimeSet,
)
