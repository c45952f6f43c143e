"""End, boundary and catch events: none end, terminate end, error end, boundary events and how
they fire, intermediate timer catch.

Decide-side; changes happen only through the flow's emitted events.
"""

from __future__ import annotations

from typing import ClassVar

from .. import events as ev
from ..model import Activity, ErrorEventDefinition, EventSpec
from .base import Behavior
from .errors import throw_error
from .jobs import schedule_timer
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


class IntermediateTimer(Behavior):
    """Waits until its timer job fires (the job's execution leaves it)."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        ai = flow.execution(execution_id).activity_instance_id
        assert ai is not None
        schedule_timer(flow, execution_id, activity, ai)


def fire_boundary(flow: FlowOperations, scope_execution_id: str, boundary: Activity) -> None:
    """A boundary event of the activity whose scope execution is `scope_execution_id` fired.

    Interrupting: the activity (and all inside it) is cancelled, the boundary event continues on
    its parent. Non-interrupting: the activity goes on, and a new concurrent token leaves through
    the boundary event beside it (a token alone in its scope first becomes concurrent itself,
    Camunda's tree expansion)."""
    scope = flow.execution(scope_execution_id)
    parent_id = scope.parent_id
    assert parent_id is not None, "a boundary event's activity has a scope execution"
    spec = boundary.spec
    assert isinstance(spec, EventSpec)
    if spec.cancel_activity:
        flow.cancel_tree(scope_execution_id, "deleted")
        flow.enter_later(parent_id, boundary.id)
        return
    parent = flow.execution(parent_id)
    new_id = flow.session.ctx.new_id
    if parent.is_concurrent:
        assert parent.parent_id is not None
        flow_scope = parent.parent_id
    else:
        flow_scope = parent_id
        flow.emit(
            ev.ExecutionCreated(
                execution_id=new_id(),
                parent_id=parent_id,
                is_scope=False,
                is_concurrent=True,
                replaces=parent_id,
            )
        )
    token = new_id()
    flow.emit(
        ev.ExecutionCreated(
            execution_id=token, parent_id=flow_scope, is_scope=False, is_concurrent=True
        )
    )
    flow.enter_later(token, boundary.id)
