"""The lifecycle every element behaviour has: execute, leave, cancel, trigger.

Decide-side: behaviours act only through the flow operations (`operations.FlowOperations`) and
the events they emit. The defaults here fit an activity that does nothing special on leaving or
cancelling and is not a wait state that accepts a trigger.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from ..errors import Rejected
from ..model import Activity
from ..state import Execution
from .operations import FlowOperations


def refuse_trigger(execution: Execution) -> Rejected:
    """The answer to triggering an execution that does not wait for a trigger."""
    where = f"at '{execution.activity_id}'" if execution.activity_id else "not at an activity"
    return Rejected(
        f"Execution '{execution.id}' is {where}; only executions waiting in a receive task or "
        "a message or signal catch event can be triggered"
    )


class Behavior(ABC):
    """What one element family does when a token enters, leaves, is cancelled or triggered."""

    # Whether the activity ending the last token of its scope completes the scope (end events;
    # Camunda's SCOPE_COMPLETE activity instance state).
    completes_scope: ClassVar[bool] = False

    @abstractmethod
    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        """The token has entered the activity (its instance is started)."""

    def leave(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        """The activity is done: continue along the flows Camunda would take."""
        flow.complete(execution_id, activity, flow.select_outgoing(execution_id, activity))

    def cancel(
        self,
        flow: FlowOperations,
        execution_id: str,
        activity: Activity,
        activity_instance_id: str,
        reason: str,
    ) -> None:
        """The activity instance is about to be cancelled: end what it owns (tasks, jobs).

        The flow records the cancellation itself afterwards."""
        return None  # most activities own nothing beyond their instance

    def trigger(
        self,
        flow: FlowOperations,
        execution_id: str,
        activity: Activity,
        variables: Mapping[str, Any],
    ) -> None:
        """Something the waiting activity waits for happened, carrying `variables`."""
        raise refuse_trigger(flow.execution(execution_id))
