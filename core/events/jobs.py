"""Events of jobs (timers and asynchronous continuations: created, executed, failed, deleted,
their retries, due date and priority set, suspended, activated) and of the incidents a job or an
external task out of retries opens.

Pure data.
"""

from __future__ import annotations

from datetime import datetime

from .base import Event


class JobCreated(Event, tag=True, frozen=True):
    """Work for the job executor: a timer (due at `due_date`) or an asynchronous continuation.

    `handler_type` and `handler_configuration` are Camunda's (ACT_RU_JOB.HANDLER_TYPE_/_CFG_);
    the job ends with its `activity_instance_id` (a timer of that activity) or, when that is None,
    with its execution (a continuation waiting before or after an activity). `repeat` is a
    cycle's definition anchored at its first creation, so each firing knows the next."""

    job_id: str
    job_type: str  # timer | message (ACT_RU_JOB.TYPE_)
    handler_type: str
    handler_configuration: str
    job_definition_id: str
    execution_id: str
    activity_id: str
    activity_instance_id: str | None
    due_date: datetime | None
    retries: int
    priority: int
    exclusive: bool
    time: datetime
    repeat: str | None = None


class JobExecuted(Event, tag=True, frozen=True):
    """The job ran to its end: what it did are the events after this one."""

    job_id: str
    time: datetime


class JobDeleted(Event, tag=True, frozen=True):
    """The job went away unexecuted: its activity ended or its scope was cancelled."""

    job_id: str
    time: datetime


class JobFailed(Event, tag=True, frozen=True):
    """Running the job raised: its work was rolled back, this records the failure.

    `due_date` is when it may run again (a retry cycle's interval), `retries` what is left."""

    job_id: str
    retries: int
    error_message: str | None
    stacktrace: str | None
    failed_activity_id: str | None
    due_date: datetime | None
    time: datetime


class JobRetriesSet(Event, tag=True, frozen=True):
    job_id: str
    retries: int
    time: datetime


class JobDueDateSet(Event, tag=True, frozen=True):
    job_id: str
    due_date: datetime | None
    time: datetime


class JobPrioritySet(Event, tag=True, frozen=True):
    """managementService.setJobPriority: the executor's order when it acquires by priority."""

    job_id: str
    priority: int
    time: datetime


class JobSuspended(Event, tag=True, frozen=True):
    """The job stays, but no executor runs it until it is activated again."""

    job_id: str
    time: datetime


class JobActivated(Event, tag=True, frozen=True):
    job_id: str
    time: datetime


# -- incidents ----------------------------------------------------------------------------------


class IncidentCreated(Event, tag=True, frozen=True):
    """Something needs a person: a job or an external task ran out of retries.

    `incident_type` is Camunda's (`failedJob`, `failedExternalTask`); `configuration` the id of
    the job or external task."""

    incident_id: str
    incident_type: str
    configuration: str
    execution_id: str
    activity_id: str | None
    failed_activity_id: str | None
    message: str | None
    time: datetime
    job_definition_id: str | None = None


class IncidentResolved(Event, tag=True, frozen=True):
    """Its cause is gone: retries were set above 0 (HI state resolved)."""

    incident_id: str
    time: datetime


class IncidentDeleted(Event, tag=True, frozen=True):
    """Its job or task went away with its activity or instance (HI state deleted)."""

    incident_id: str
    time: datetime
