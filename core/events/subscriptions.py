"""Events of an instance's event subscriptions: a catch event waiting for a message or signal,
the subscription deleted, a message correlated to it, a signal thrown and received.

Pure data; the audit records among them change no state.
"""

from __future__ import annotations

from datetime import datetime

from .base import Event


class EventSubscriptionCreated(Event, tag=True, frozen=True):
    """A catch event waits for a message (`event_type` message) named `event_name`.

    `activity_id` is the catching event (a boundary event's own id); `activity_instance_id` the
    activity instance it ends with: the catch event's own, or the host activity's for a
    boundary event."""

    subscription_id: str
    event_type: str
    event_name: str
    execution_id: str
    activity_id: str
    activity_instance_id: str
    time: datetime


class EventSubscriptionDeleted(Event, tag=True, frozen=True):
    """Its activity ended or was cancelled: nothing waits for the event any more."""

    subscription_id: str
    time: datetime


class MessageCorrelated(Event, tag=True, frozen=True):
    """The message `message_name` arrived at the subscription (what it set and triggered are
    the events after it). An audit record: the state does not change by it."""

    subscription_id: str
    message_name: str
    time: datetime


class SignalThrown(Event, tag=True, frozen=True):
    """A signal throw or end event broadcast `signal_name` (who received it: the SignalReceived
    events of their streams). An audit record: the state does not change by it."""

    signal_name: str
    activity_id: str
    time: datetime


class SignalReceived(Event, tag=True, frozen=True):
    """The broadcast signal `signal_name` reached the subscription (what it triggered are the
    events after it). An audit record: the state does not change by it."""

    subscription_id: str
    signal_name: str
    time: datetime
