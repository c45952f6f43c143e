"""Events of a deployment's stream that start instances: a timer start event's job (scheduled,
fired, failed, its retries and due date set, removed) and a message or signal start event's
subscription.

Pure data; kept with the definition's deployment, not in any instance's stream.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from .base import Event


class StartTimerScheduled(Event, tag=True, frozen=True):
    """A job that starts an instance of `definition_id` at `activity_id`, belonging to no
    instance: a timer start event's (handler `timer-start-event`, due at `due_date`), or an
    asynchronous signal's at a signal start event (handler `event`, due at once,
    `configuration` the start event's subscription). Kept in the stream of the definition's
    deployment, as the definition's other facts are; `repeat` is a timer's cycle, anchored at its
    first scheduling."""

    job_id: str
    job_definition_id: str
    deployment_id: str
    definition_id: str
    definition_key: str
    activity_id: str
    due_date: datetime | None
    retries: int
    time: datetime
    repeat: str | None = None
    log_id: str | None = None  # its ACT_HI_JOB_LOG row (None in logs written before it had one)
    handler_type: str = "timer-start-event"
    configuration: str | None = None  # ACT_RU_JOB.HANDLER_CFG_ (None: the definition key)


class StartTimerJob(msgspec.Struct, frozen=True):
    """A start timer as it was just before an event changed it: what that event's job log and
    incident rows name (a deployment stream has no state to look it up in)."""

    job_definition_id: str
    deployment_id: str
    definition_id: str
    definition_key: str
    activity_id: str
    due_date: datetime | None
    retries: int
    handler_type: str = "timer-start-event"


class StartTimerFired(Event, tag=True, frozen=True):
    """The job ran: it started `process_instance_id` (that instance's stream has the rest).
    `had_stacktrace`: an earlier failure's stack trace goes with it; `ended_incident_id`: its
    incident is resolved."""

    job_id: str
    process_instance_id: str
    time: datetime
    had_stacktrace: bool = False
    job: StartTimerJob | None = None
    log_id: str | None = None
    ended_incident_id: str | None = None


class StartTimerFailed(Event, tag=True, frozen=True):
    """Starting the instance raised: nothing of it was kept; the job may run again at
    `due_date` while `retries` remain. Out of retries, it opens `opened_incident_id`."""

    job_id: str
    retries: int
    error_message: str | None
    stacktrace: str | None
    due_date: datetime | None
    time: datetime
    had_stacktrace: bool = False  # an earlier failure's, replaced by this one's
    job: StartTimerJob | None = None
    log_id: str | None = None
    opened_incident_id: str | None = None


class StartTimerRetriesSet(Event, tag=True, frozen=True):
    """Retries set: to 0 it opens `opened_incident_id`; above 0 from 0 it resolves
    `ended_incident_id`."""

    job_id: str
    retries: int
    time: datetime
    job: StartTimerJob | None = None
    opened_incident_id: str | None = None
    ended_incident_id: str | None = None


class StartTimerDueDateSet(Event, tag=True, frozen=True):
    job_id: str
    due_date: datetime | None
    time: datetime


class StartTimerRemoved(Event, tag=True, frozen=True):
    """A newer version of the definition replaced it, or its deployment was deleted (its
    incident, `ended_incident_id`, is deleted with it)."""

    job_id: str
    time: datetime
    had_stacktrace: bool = False
    job: StartTimerJob | None = None
    log_id: str | None = None
    ended_incident_id: str | None = None


class StartEventSubscribed(Event, tag=True, frozen=True):
    """A message or signal start event of `definition_id` waits for `event_name`
    (ACT_RU_EVENT_SUBSCR, no execution, CONFIGURATION_ the definition): a correlated message or
    a broadcast signal starts an instance there. Kept in the stream of the definition's
    deployment; the latest version's subscribe."""

    subscription_id: str
    event_type: str  # message | signal | conditional (its event_name is empty)
    definition_id: str
    activity_id: str
    event_name: str
    time: datetime


class StartEventUnsubscribed(Event, tag=True, frozen=True):
    """A newer version of the definition replaced it, or its deployment was deleted."""

    subscription_id: str
    time: datetime


START_TIMER_EVENTS: tuple[type[Event], ...] = (
    StartTimerScheduled,
    StartTimerFired,
    StartTimerFailed,
    StartTimerRetriesSet,
    StartTimerDueDateSet,
    StartTimerRemoved,
)
START_SUBSCRIPTION_EVENTS: tuple[type[Event], ...] = (StartEventSubscribed, StartEventUnsubscribed)
