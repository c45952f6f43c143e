"""The event of a conditional event's condition found true at a waiting subscription: which
variable change made it so (none: evaluated as its scope started).

Pure data; an audit record, the state does not change by it.
"""

from __future__ import annotations

from datetime import datetime

from .base import Event


class ConditionalEventOccurred(Event, tag=True, frozen=True):
    """The condition of the conditional event `activity_id` waiting at the subscription held
    (what it caused are the events after it). `variable_name` and `variable_event` (create,
    update or delete) name the change that was evaluated; both None: it was evaluated as its
    activity or scope started. An audit record: the state does not change by it, and a replay
    never evaluates the condition again."""

    subscription_id: str
    activity_id: str
    time: datetime
    variable_name: str | None = None
    variable_event: str | None = None
