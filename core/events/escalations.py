"""Events of escalations: an escalation raised at an activity, and what caught it.

Pure data.
"""

from __future__ import annotations

from datetime import datetime

from .base import Event


class EscalationThrown(Event, tag=True, frozen=True):
    """An escalation was raised at (or, from a called instance, arrived at) an activity;
    `caught_by` is the boundary event or event subprocess start event of this instance that
    caught it, None when nothing here did (it went on to the calling instance, or nothing
    caught it). A record for the audit trail: what it caused are events of their own."""

    activity_instance_id: str
    escalation_code: str | None
    caught_by: str | None
    time: datetime
