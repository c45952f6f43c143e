"""What a batch is made of, as the decisions read it: its settings, its runtime row, a job of it,
and its configuration (the targets and the operation's parameters) as its byte array holds it.

Pure: no clock, no SQL. The engine reads the rows and hands them in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import msgspec

# Camunda's job handler types of a batch's own jobs (BatchSeedJobHandler, BatchMonitorJobHandler);
# a batch job's handler type is the batch's type.
SEED_JOB = "batch-seed-job"
MONITOR_JOB = "batch-monitor-job"

# Camunda's Batch.TYPE_* names.
INSTANCE_DELETION = "instance-deletion"
INSTANCE_MIGRATION = "instance-migration"
INSTANCE_MODIFICATION = "instance-modification"
INSTANCE_RESTART = "instance-restart"
INSTANCE_SUSPENSION = "instance-update-suspension-state"
HISTORIC_INSTANCE_DELETION = "historic-instance-deletion"
SET_JOB_RETRIES = "set-job-retries"
SET_EXTERNAL_TASK_RETRIES = "set-external-task-retries"
SET_VARIABLES = "set-variables"
CORRELATE_MESSAGE = "correlate-message"
PROCESS_SET_REMOVAL_TIME = "process-set-removal-time"
DECISION_SET_REMOVAL_TIME = "decision-set-removal-time"
BATCH_SET_REMOVAL_TIME = "batch-set-removal-time"
HISTORIC_DECISION_INSTANCE_DELETION = "historic-decision-instance-deletion"

# Camunda's removal time modes of the set-removal-time builders (the operation log names them).
ABSOLUTE_REMOVAL_TIME = "ABSOLUTE_REMOVAL_TIME"
CALCULATED_REMOVAL_TIME = "CALCULATED_REMOVAL_TIME"
CLEARED_REMOVAL_TIME = "CLEARED_REMOVAL_TIME"

# Camunda's retries of a new job (DEFAULT_NUMBER_OF_RETRIES).
JOB_RETRIES = 3

# ACT_HI_JOB_LOG.JOB_STATE_: Camunda's JobState codes.
JOB_CREATED, JOB_FAILED, JOB_SUCCESSFUL, JOB_DELETED = 0, 1, 2, 3

# Targets of one batch: they are recorded in its first event, its command and its configuration
# (100,000 ids are about 4 MB of each). Camunda has no bound.
MAX_BATCH_TARGETS = 100_000

# ACT_RU_BATCH.SUSPENSION_STATE_ and ACT_RU_JOB's: Camunda's SuspensionState codes.
ACTIVE, SUSPENDED = 1, 2


@dataclass(frozen=True, slots=True)
class BatchSettings:
    """Camunda's engine settings of batches, with its defaults: batch jobs a seed job run creates
    (batchJobsPerSeed), targets per batch job (invocationsPerBatchJob), seconds between the
    monitor job's polls (batchPollTime)."""

    batch_jobs_per_seed: int = 100
    invocations_per_batch_job: int = 1
    poll_seconds: int = 30

    def __post_init__(self) -> None:
        # Bounded so that one seed run stays a small command (100 x 1 is Camunda's default).
        if not 1 <= self.batch_jobs_per_seed <= 1_000:
            raise ValueError("batch_jobs_per_seed must be 1 to 1,000")
        if not 1 <= self.invocations_per_batch_job <= 1_000:
            raise ValueError("invocations_per_batch_job must be 1 to 1,000")
        if not 1 <= self.poll_seconds <= 86_400:
            raise ValueError("batch_poll_time must be 1 to 86,400 seconds")


DEFAULT_BATCH_SETTINGS = BatchSettings()


class BatchConfiguration(msgspec.Struct, frozen=True):
    """A batch's configuration byte array (ACT_RU_BATCH.CONFIGURATION_), or a batch job's
    (ACT_RU_JOB.HANDLER_CFG_): the targets, in order, and the operation's parameters."""

    ids: list[str]
    parameters: dict[str, Any] = {}


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(BatchConfiguration)


def encode_configuration(ids: list[str], parameters: dict[str, Any]) -> bytes:
    return _encoder.encode(BatchConfiguration(ids, parameters))


def decode_configuration(data: bytes) -> BatchConfiguration:
    return _decoder.decode(data)


@dataclass(frozen=True, slots=True)
class BatchRow:
    """A batch as its runtime row (ACT_RU_BATCH) holds it."""

    id: str
    type: str
    total_jobs: int
    jobs_created: int
    batch_jobs_per_seed: int
    invocations_per_batch_job: int
    seed_job_definition_id: str
    batch_job_definition_id: str
    monitor_job_definition_id: str
    suspended: bool
    configuration_id: str
    tenant_id: str | None
    execution_started: bool

    @property
    def job_definition_ids(self) -> list[str]:
        return [
            self.seed_job_definition_id,
            self.monitor_job_definition_id,
            self.batch_job_definition_id,
        ]


@dataclass(frozen=True, slots=True)
class BatchJobRow:
    """A job of a batch (ACT_RU_JOB), with its batch and, for a batch job, its configuration."""

    job_id: str
    handler_type: str
    job_definition_id: str
    retries: int
    due_date: datetime | None
    suspended: bool
    has_stacktrace: bool
    configuration_id: str | None
    configuration: bytes | None
    batch: BatchRow

    @property
    def kind(self) -> str:
        """seed, monitor or batch (a job of the batch's own type)."""
        if self.job_definition_id == self.batch.seed_job_definition_id:
            return SEED_JOB
        if self.job_definition_id == self.batch.monitor_job_definition_id:
            return MONITOR_JOB
        return self.batch.type


@dataclass(frozen=True, slots=True)
class BatchJobEntry:
    """A job of a batch as its deletion needs it: its byte arrays, and what its log row says."""

    job_id: str
    configuration_id: str | None
    has_stacktrace: bool
    job_definition_id: str
    handler_type: str
    retries: int
    due_date: datetime | None
