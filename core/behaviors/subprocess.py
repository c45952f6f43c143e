"""Embedded and event subprocesses: a scope whose start event runs when it is entered (its own
event subprocesses armed first).

It is left, through `leave`, when the last token inside ends (`Flow.complete_scope`).
"""

from __future__ import annotations

from ..model import Activity
from .base import Behavior
from .event_subprocesses import arm
from .operations import FlowOperations


class EmbeddedSubprocess(Behavior):
    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        arm(flow, execution_id, activity.id)
        flow.enter(execution_id, flow.model.start_events[activity.id], None)

    def leave(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        # The scope execution's own activity instance is the subprocess's: its token is gone.
        flows = flow.select_outgoing(execution_id, activity)
        scope_ai = flow.execution(execution_id).scope_activity_instance_id
        flow.complete(execution_id, activity, flows, activity_instance_id=scope_ai)
