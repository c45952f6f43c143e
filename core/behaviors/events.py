"""End and boundary events: none end, terminate end, error end, error boundary.

Decide-side; changes happen only through the flow's emitted events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import Activity, ErrorSpec

if TYPE_CHECKING:
    from ..flow import Flow


class NoneEndEvent:
    def execute(self, flow: Flow, execution_id: str, activity: Activity) -> None:
        flow.complete(execution_id, activity, [])


class TerminateEndEvent:
    """Ends its scope at once: every other token of the scope is cancelled."""

    def execute(self, flow: Flow, execution_id: str, activity: Activity) -> None:
        scope = flow.flow_scope_execution(execution_id)
        for child in list(scope.children):
            if child != execution_id:
                flow.cancel_tree(child, "terminate end event")
        flow.try_prune(scope.id)
        token = flow.resolve(execution_id)
        flow.complete(token, activity, [])


class ErrorEndEvent:
    def execute(self, flow: Flow, execution_id: str, activity: Activity) -> None:
        spec = activity.spec
        assert isinstance(spec, ErrorSpec)
        flow.throw_error(execution_id, spec.error_code, spec.error_message)


class BoundaryEvent:
    """The boundary event fired (its scope is already cancelled): continue along its flows."""

    def execute(self, flow: Flow, execution_id: str, activity: Activity) -> None:
        flow.leave(execution_id)
