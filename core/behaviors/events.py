"""End and boundary events: none end, terminate end, error end, error boundary.

Decide-side; changes happen only through the flow's emitted events.
"""

from __future__ import annotations

from typing import ClassVar

from ..model import Activity, ErrorEventDefinition, EventSpec
from .base import Behavior
from .errors import throw_error
from .operations import FlowOperations


class NoneEndEvent(Behavior):
    completes_scope: ClassVar[bool] = True

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        flow.complete(execution_id, activity, [])


class TerminateEndEvent(Behavior):
    """Ends its scope at once: every other token of the scope is cancelled."""

    completes_scope: ClassVar[bool] = True

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        scope = flow.flow_scope_execution(execution_id)
        for child in list(scope.children):
            if child != execution_id:
                flow.cancel_tree(child, "terminate end event")
        flow.try_prune(scope.id)
        token = flow.resolve(execution_id)
        flow.complete(token, activity, [])


class ErrorEndEvent(Behavior):
    completes_scope: ClassVar[bool] = True

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        spec = activity.spec
        assert isinstance(spec, EventSpec) and isinstance(spec.definition, ErrorEventDefinition)
        throw_error(flow, execution_id, spec.definition.error_code, spec.definition.error_message)


class BoundaryEvent(Behavior):
    """The boundary event fired (its scope is already cancelled): continue along its flows."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        flow.leave(execution_id)
