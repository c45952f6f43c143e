"""Gateways: exclusive (first true condition, else default), parallel and inclusive fork and join,
event-based (the first of the catch events after it).

Decide-side: the chosen flows are recorded by the ActivityStarted events of their targets.
"""

from __future__ import annotations

from .. import events as ev
from ..errors import ProcessEngineError
from ..model import Activity, SequenceFlow
from .base import Behavior
from .conditions import CONDITIONAL, definition_of, holds, occurred
from .conditions import subscribe as subscribe_conditional
from .jobs import schedule_timer, timer_of
from .operations import FlowOperations
from .subscriptions import subscribe


class ExclusiveGateway(Behavior):
    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        model = flow.model
        for flow_id in activity.outgoing:
            if flow_id == activity.default_flow:
                continue
            candidate = model.flows[flow_id]
            if candidate.condition is None or flow.condition(execution_id, candidate):
                flow.complete(execution_id, activity, [candidate])
                return
        if activity.default_flow is not None:
            flow.complete(execution_id, activity, [model.flows[activity.default_flow]])
            return
        if not activity.outgoing:
            flow.complete(execution_id, activity, [])
            return
        raise ProcessEngineError(
            f"No outgoing sequence flow for the element with id '{activity.id}' could be "
            "selected for continuing the process"
        )


def _wait(flow: FlowOperations, execution_id: str) -> None:
    execution = flow.execution(execution_id)
    flow.emit(
        ev.TokenWaitingAtJoin(
            execution_id=execution_id, activity_instance_id=execution.activity_instance_id or ""
        )
    )


class ParallelGateway(Behavior):
    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        outgoing = flow.model.outgoing(activity)  # conditions are ignored on parallel gateways
        if len(activity.incoming) <= 1:
            flow.complete(execution_id, activity, outgoing)
            return
        scope = flow.flow_scope_execution(execution_id)
        waiting = flow.waiting_at(scope, activity.id, exclude=execution_id)
        if len(waiting) + 1 >= len(activity.incoming):
            flow.join(execution_id, waiting, outgoing)
        else:
            _wait(flow, execution_id)


class InclusiveGateway(Behavior):
    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        scope = flow.flow_scope_execution(execution_id)
        waiting = flow.waiting_at(scope, activity.id, exclude=execution_id)
        arrived = len(waiting) + 1
        if arrived < len(activity.incoming) and flow.other_tokens_can_arrive(
            scope, activity.id, {execution_id, *waiting}
        ):
            _wait(flow, execution_id)
            return
        flows = self._chosen(flow, execution_id, activity)
        flow.join(execution_id, waiting, flows)

    def _chosen(
        self, flow: FlowOperations, execution_id: str, activity: Activity
    ) -> list[SequenceFlow]:
        model = flow.model
        chosen = [
            model.flows[f]
            for f in activity.outgoing
            if f != activity.default_flow
            and (model.flows[f].condition is None or flow.condition(execution_id, model.flows[f]))
        ]
        if chosen:
            return chosen
        if activity.default_flow is not None:
            return [model.flows[activity.default_flow]]
        if not activity.outgoing:
            return []
        raise ProcessEngineError(
            f"No outgoing sequence flow for the element with id '{activity.id}' could be "
            "selected for continuing the process"
        )


class EventBasedGateway(Behavior):
    """Waits for the first of the catch events after it: each subscribes (or schedules its
    timer) on the gateway's activity instance, so that all end with the gateway when one
    occurs (`Flow.event_occurred`)."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        ai = flow.execution(execution_id).activity_instance_id
        assert ai is not None
        for flow_id in activity.outgoing:
            event = flow.model.activities[flow.model.flows[flow_id].target]
            if timer_of(event) is not None:
                schedule_timer(flow, execution_id, event, ai)
            elif definition_of(event) is not None:
                subscribe_conditional(flow, execution_id, event, ai)
            else:
                subscribe(flow, execution_id, event, ai)
        # Camunda: a conditional event after the gateway whose condition already holds occurs
        # at once (the first in the order of the flows), and the gateway waits no more.
        waiting = {
            sub.activity_id: sub.id
            for sub in flow.session.state.subscriptions.values()
            if sub.activity_instance_id == ai and sub.event_type == CONDITIONAL
        }
        for event_id, subscription_id in waiting.items():
            event = flow.model.activities[event_id]
            if holds(flow, execution_id, event):
                occurred(flow, subscription_id, event, None)
                flow.event_occurred(execution_id, event)
                return
