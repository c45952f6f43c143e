"""Embedded subprocess: a scope whose none start event runs when it is entered.

Its completion is driven by `Flow.end` when the last token inside reaches an end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import Activity

if TYPE_CHECKING:
    from ..flow import Flow


class EmbeddedSubprocess:
    def execute(self, flow: Flow, execution_id: str, activity: Activity) -> None:
        flow.enter(execution_id, flow.model.start_events[activity.id], None)
