"""Events of compensation inside an instance: a completed scope's local variables retained for
its compensation, a compensation handler started on behalf of a throw, a completed scope
reopened to compensate what ran inside it, and closed again.

Pure data. The compensation subscriptions themselves are event subscriptions of type
`compensate` (EventSubscriptionCreated/Deleted), as Camunda's ACT_RU_EVENT_SUBSCR rows.
"""

from __future__ import annotations

from datetime import datetime

from .base import Event


class CompensationScopeRetained(Event, tag=True, frozen=True):
    """A subprocess, transaction or multi-instance body completed with something to compensate
    inside: its compensation subscription `subscription_id` keeps the completed activity
    instance and a copy of the scope execution's local variables as they are now (Camunda's
    event-scope execution): its handlers read them, not the values set later."""

    subscription_id: str
    activity_instance_id: str
    execution_id: str
    time: datetime


class CompensationStarted(Event, tag=True, frozen=True):
    """Compensation thrown: the execution runs the compensation of `subscription_id` (its
    handler, or a reopened scope), and `waiter_activity_instance_id` (the throw event, or the
    reopened scope) goes on when all executions started for it ended."""

    execution_id: str
    subscription_id: str
    activity_id: str
    waiter_activity_instance_id: str
    time: datetime


class CompensationScopeReopened(Event, tag=True, frozen=True):
    """A retained scope is compensated: a new activity instance of the subprocess or body
    (`activity_id`) on `execution_id` stands for the completed one
    (`original_activity_instance_id`), whose compensation subscriptions it now throws to.

    Camunda's event-scope execution enters an activity instance without a history event: the
    runtime tree shows it (the handlers' parent), ACT_HI_ACTINST has no row for it."""

    subscription_id: str
    activity_instance_id: str
    original_activity_instance_id: str
    activity_id: str
    activity_type: str
    activity_name: str | None
    execution_id: str
    parent_activity_instance_id: str
    time: datetime


class CompensationScopeClosed(Event, tag=True, frozen=True):
    """Everything a reopened scope compensated has ended: its activity instance ends (no
    history row, as it had none)."""

    activity_instance_id: str
    time: datetime
