"""Event subprocesses: armed when their enclosing scope (the process or a subprocess) starts,
started by their start event's message, signal, timer, error or condition while the scope runs.

Arming subscribes the message and signal start events and schedules the timers on the scope's
own execution and activity instance, so they end with the scope. An interrupting event
subprocess cancels everything else in the scope (the other event subprocesses' subscriptions and
timers too) and runs on the scope's execution; a non-interrupting one runs beside on a new
concurrent execution, and its subscription (or its timer's next firing) stays.

Decide-side; every change is an emitted event.
"""

from __future__ import annotations

from .. import element_kinds as kinds
from ..model import Activity, EventSpec
from .conditions import subscribe as subscribe_conditional
from .jobs import drop_jobs, schedule_timer, timer_of
from .operations import FlowOperations
from .subscriptions import COMPENSATE, drop_subscriptions, subscribe, waits_for


def arm(flow: FlowOperations, scope_execution_id: str, scope_id: str) -> None:
    """The scope just started: its event subprocesses wait for their start events."""
    ai = flow.execution(scope_execution_id).scope_activity_instance_id
    assert ai is not None, "a started scope has its activity instance"
    conditional = False
    for esp in flow.model.event_subprocesses(scope_id):
        start = flow.model.activities[flow.model.start_events[esp.id]]
        if timer_of(start) is not None:
            schedule_timer(flow, scope_execution_id, start, ai)
        elif waits_for(start) is not None:
            subscribe(flow, scope_execution_id, start, ai)
        elif start.type == kinds.CONDITIONAL_START_EVENT.type:
            subscribe_conditional(flow, scope_execution_id, start, ai)
            conditional = True
    if conditional:
        # Evaluated once the scope's tokens rest (core.behaviors.conditionals).
        flow.session.entered_scopes.append((scope_execution_id, ai))


# The start events an event subprocess is armed with (an error start is thrown to, not armed).
_TRIGGERED_STARTS = kinds.types_of(
    kinds.MESSAGE_START_EVENT,
    kinds.SIGNAL_START_EVENT,
    kinds.START_TIMER_EVENT,
    kinds.CONDITIONAL_START_EVENT,
)


def is_event_subprocess_start(flow: FlowOperations, event: Activity) -> bool:
    return event.type in _TRIGGERED_STARTS and flow.model.is_event_subprocess(event.scope_id)


def interrupting(start: Activity) -> bool:
    spec = start.spec
    return not isinstance(spec, EventSpec) or spec.cancel_activity


def fire(flow: FlowOperations, scope_execution_id: str, start: Activity) -> None:
    """The start event of an event subprocess occurred in the scope whose execution is
    `scope_execution_id`: the event subprocess starts there."""
    esp_id = start.scope_id
    if interrupting(start):
        scope = flow.execution(scope_execution_id)
        scope_ai = scope.scope_activity_instance_id
        flow.cancel_contents(scope_execution_id, "event subprocess")
        # The scope's other event subprocesses wait no more: this one takes the scope over.
        drop_jobs(flow, lambda job: job.activity_instance_id == scope_ai)
        # What completed in the scope stays compensable: the event subprocess may compensate it.
        drop_subscriptions(
            flow,
            lambda sub: sub.activity_instance_id == scope_ai and sub.event_type != COMPENSATE,
        )
        flow.enter_later(flow.resolve(scope_execution_id), esp_id)
        return
    token = flow.concurrent_beside(scope_execution_id)
    flow.enter_later(token, esp_id)
