"""The token operations behaviours may ask of the flow: the seam between elements and the engine's
PVM (`core.flow.Flow` implements it), listing exactly what behaviours call.

Pure: a Protocol, no behaviour of its own.
"""

from __future__ import annotations

from typing import Protocol

from .. import events as ev
from ..model import Activity, ProcessModel, SequenceFlow
from ..session import InstanceSession
from ..state import Execution


class FlowOperations(Protocol):
    """One command's token movements, as the element behaviours see them."""

    session: InstanceSession
    model: ProcessModel

    def emit(self, event: ev.Event) -> None:
        """Record an event (it is applied to the state at once)."""
        ...

    def execution(self, execution_id: str) -> Execution: ...

    def activity_of(self, execution_id: str) -> Activity:
        """The activity the execution is at (refused when it is at none)."""
        ...

    def flow_scope_execution(self, execution_id: str) -> Execution:
        """The scope execution the activities of this token's flow scope belong to."""
        ...

    def scope_execution_for(self, execution_id: str, activity_id: str) -> Execution | None:
        """The execution, from this one outwards, that is the scope of `activity_id`."""
        ...

    def resolve(self, execution_id: str) -> str:
        """The execution a token lives on now (it may have been folded into its scope)."""
        ...

    def condition(self, execution_id: str, flow: SequenceFlow) -> bool:
        """The value of a sequence flow's condition, seen from the execution."""
        ...

    def select_outgoing(self, execution_id: str, activity: Activity) -> list[SequenceFlow]:
        """Camunda's default choice: all true or unconditional flows, else the default flow."""
        ...

    def enter(
        self, execution_id: str, activity_id: str, via: str | None, *, resumed: bool = False
    ) -> None:
        """Start the activity on the token (`resumed`: its asyncBefore job runs)."""
        ...

    def resume_after(self, execution_id: str, configuration: str) -> None:
        """Continue after an asyncAfter activity as its job's configuration says."""
        ...

    def enter_later(self, execution_id: str, activity_id: str) -> None:
        """Start the activity once the work already queued is done."""
        ...

    def leave(self, execution_id: str) -> None:
        """The execution's activity is done: its behaviour leaves it."""
        ...

    def event_occurred(self, execution_id: str, event: Activity) -> None:
        """The catch event `event` the execution waits for (at it, or at the event-based
        gateway before it) occurred: it goes on."""
        ...

    def complete(
        self,
        execution_id: str,
        activity: Activity,
        flows: list[SequenceFlow],
        activity_instance_id: str | None = None,
    ) -> None:
        """Complete the activity instance and continue along `flows` (none: the path ends)."""
        ...

    def waiting_at(self, scope: Execution, activity_id: str, exclude: str) -> list[str]:
        """Tokens of the scope waiting at a join gateway."""
        ...

    def other_tokens_can_arrive(self, scope: Execution, gateway: str, joined: set[str]) -> bool:
        """Whether a token of the scope not waiting at the gateway may still reach it."""
        ...

    def join(self, execution_id: str, joined: list[str], flows: list[SequenceFlow]) -> None:
        """End the waiting tokens of a join and continue with the arriving one along `flows`."""
        ...

    def cancel_tree(self, execution_id: str, reason: str) -> None:
        """Cancel the execution and everything below it, innermost first."""
        ...

    def cancel_contents(self, scope_execution_id: str, reason: str) -> None:
        """Cancel everything running in a scope, keeping the scope itself."""
        ...

    def concurrent_beside(self, scope_execution_id: str) -> str:
        """A new concurrent execution in the scope beside what runs there."""
        ...

    def try_prune(self, scope_execution_id: str) -> None:
        """Fold a scope's last concurrent child back into it."""
        ...
