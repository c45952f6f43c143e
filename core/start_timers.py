"""Timer start events: the definition-level jobs that start instances on a schedule.

A start timer belongs to a process definition, not to an instance: its events live in the stream
of the definition's deployment (scheduled at deployment, fired, failed, removed when a newer
version replaces the definition or the deployment is deleted). Pure: the engine hands in what
the job's row says (`StartTimer`) and appends the events these functions return.

An asynchronous signal's job at a signal start event (`schedule_signal_start`, handler type
`event`) is such a job too: due at once, it starts one instance there and does not repeat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from . import events as ev
from .behaviors.jobs import (
    DEFAULT_RETRIES,
    PROCESS_EVENT,
    TIMER_START,
    job_definition_id,
    retry_due,
)
from .errors import Rejected
from .limits import MAX_STACKTRACE, MAX_TEXT, check_java_int
from .model import EventSpec, ProcessModel, TimerEventDefinition
from .timers import parse_retry_cycle, parse_timer

__all__ = [
    "TIMER_START",
    "StartTimer",
    "fail",
    "fire",
    "remove",
    "schedule",
    "schedule_signal_start",
    "set_due_date",
    "set_retries",
]


@dataclass(frozen=True, slots=True)
class StartTimer:
    """A scheduled start timer, as its ACT_RU_JOB row holds it."""

    job_id: str
    deployment_id: str
    definition_id: str
    definition_key: str
    activity_id: str
    due_date: datetime | None
    repeat: str | None
    retries: int
    created: datetime
    has_stacktrace: bool = False  # a failure's stack trace is stored with it
    incident_id: str | None = None  # its open failedJob incident
    handler_type: str = TIMER_START  # or PROCESS_EVENT: an asynchronous signal's start

    def as_it_is(self) -> ev.StartTimerJob:
        """What the events that change it record of it, for its job log and incident rows."""
        return ev.StartTimerJob(
            job_definition_id=job_definition_id(
                self.definition_id, self.activity_id, self.handler_type
            ),
            deployment_id=self.deployment_id,
            definition_id=self.definition_id,
            definition_key=self.definition_key,
            activity_id=self.activity_id,
            due_date=self.due_date,
            retries=self.retries,
            handler_type=self.handler_type,
        )


def schedule(
    model: ProcessModel,
    deployment_id: str,
    definition_id: str,
    now: datetime,
    new_id: Callable[[], str],
) -> ev.StartTimerScheduled | None:
    """The first job of the definition's timer start event, if it has one and it fires."""
    start = model.start_timer
    if start is None:
        return None
    spec = start.spec
    assert isinstance(spec, EventSpec) and isinstance(spec.definition, TimerEventDefinition)
    definition = spec.definition
    assert definition.timer is not None  # the parser refuses expressions on start timers
    due = definition.timer.first_due(now)
    if due is None:
        return None  # a cycle wholly in the past: nothing to start
    cycle = start.jobs.retry_cycle
    return ev.StartTimerScheduled(
        job_id=new_id(),
        job_definition_id=job_definition_id(definition_id, start.id, TIMER_START),
        deployment_id=deployment_id,
        definition_id=definition_id,
        definition_key=model.id,
        activity_id=start.id,
        due_date=due,
        retries=DEFAULT_RETRIES if cycle is None else parse_retry_cycle(cycle).retries,
        time=now,
        repeat=definition.timer.anchored_text(now),
        log_id=new_id(),
    )


def schedule_signal_start(
    *,
    deployment_id: str,
    definition_id: str,
    definition_key: str,
    activity_id: str,
    subscription_id: str,
    now: datetime,
    new_id: Callable[[], str],
) -> ev.StartTimerScheduled:
    """An asynchronous signal reached a signal start event: a job, due at once, starts the
    instance (Camunda's EventSubscriptionJobDeclaration of the start event; no payload)."""
    return ev.StartTimerScheduled(
        job_id=new_id(),
        job_definition_id=job_definition_id(definition_id, activity_id, PROCESS_EVENT),
        deployment_id=deployment_id,
        definition_id=definition_id,
        definition_key=definition_key,
        activity_id=activity_id,
        due_date=None,
        retries=DEFAULT_RETRIES,
        time=now,
        log_id=new_id(),
        handler_type=PROCESS_EVENT,
        configuration=subscription_id,
    )


def fire(
    job: StartTimer, instance_id: str, now: datetime, new_id: Callable[[], str]
) -> list[ev.Event]:
    """The job started `instance_id`; a cycle schedules its next firing first."""
    fired: list[ev.Event] = []
    if job.repeat is not None:
        due = parse_timer("timeCycle", job.repeat).next_due(
            job.created, max(now, job.due_date or now)
        )
        if due is not None:
            fired.append(
                ev.StartTimerScheduled(
                    job_id=new_id(),
                    job_definition_id=job_definition_id(
                        job.definition_id, job.activity_id, TIMER_START
                    ),
                    deployment_id=job.deployment_id,
                    definition_id=job.definition_id,
                    definition_key=job.definition_key,
                    activity_id=job.activity_id,
                    due_date=due,
                    retries=job.retries,
                    time=now,
                    repeat=job.repeat,
                    log_id=new_id(),
                )
            )
    fired.append(
        ev.StartTimerFired(
            job_id=job.job_id,
            process_instance_id=instance_id,
            time=now,
            had_stacktrace=job.has_stacktrace,
            job=job.as_it_is(),
            log_id=new_id(),
            ended_incident_id=job.incident_id,
        )
    )
    return fired


def fail(
    job: StartTimer,
    model: ProcessModel,
    message: str | None,
    stacktrace: str | None,
    now: datetime,
    new_id: Callable[[], str],
) -> ev.StartTimerFailed:
    """Retries go down, waiting as the start event's retry cycle says (at once without one);
    the last one opens a failedJob incident."""
    due = retry_due(model.activities.get(job.activity_id), job.retries, job.due_date, now)
    retries = max(job.retries - 1, 0)
    return ev.StartTimerFailed(
        job_id=job.job_id,
        retries=retries,
        error_message=None if message is None else message[:MAX_TEXT],
        stacktrace=None if stacktrace is None else stacktrace[:MAX_STACKTRACE],
        due_date=due,
        time=now,
        had_stacktrace=job.has_stacktrace,
        job=job.as_it_is(),
        log_id=new_id(),
        opened_incident_id=new_id() if retries == 0 and job.incident_id is None else None,
    )


def set_retries(
    job: StartTimer, retries: int, now: datetime, new_id: Callable[[], str]
) -> ev.StartTimerRetriesSet:
    """New retries: 0 opens a failedJob incident (as running out does), more resolves it."""
    if retries < 0:
        raise Rejected(f"The number of job retries must be a non-negative Integer, but '{retries}'")
    check_java_int("retries", retries)
    opens = retries == 0 and job.incident_id is None
    return ev.StartTimerRetriesSet(
        job_id=job.job_id,
        retries=retries,
        time=now,
        job=job.as_it_is(),
        opened_incident_id=new_id() if opens else None,
        ended_incident_id=job.incident_id if retries > 0 else None,
    )


def set_due_date(
    job: StartTimer, due_date: datetime | None, now: datetime
) -> ev.StartTimerDueDateSet:
    return ev.StartTimerDueDateSet(job_id=job.job_id, due_date=due_date, time=now)


def remove(jobs: list[StartTimer], now: datetime, new_id: Callable[[], str]) -> list[ev.Event]:
    """Remove these start timers (their incidents are deleted with them)."""
    return [
        ev.StartTimerRemoved(
            job_id=job.job_id,
            time=now,
            had_stacktrace=job.has_stacktrace,
            job=job.as_it_is(),
            log_id=new_id(),
            ended_incident_id=job.incident_id,
        )
        for job in sorted(jobs, key=lambda j: j.job_id)
    ]
