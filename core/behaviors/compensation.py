"""Compensation: subscribing completed activities, throwing compensation (intermediate and end
compensation events, the cancel end event of a transaction), running the handlers in reverse
order of completion and going on once all of them ended.

Camunda's model (CompensationUtil, CompensationEventHandler): completing an activity with a
compensation handler subscribes it (an event subscription of type `compensate`, ACTIVITY_ID_
its handler) in the scope it ran in; a completed subprocess, transaction or multi-instance body
with subscriptions inside retains them, with a copy of its local variables, under one
subscription of its own in the enclosing scope. A throw collects the subscriptions of its scope
(through event subprocesses, to the scope they sit in), starts one execution per subscription
beside the throw, newest first, and waits for all of them; compensating a retained scope
reopens it and throws to what it retained.

Decide-side; every change is an emitted event.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from .. import element_kinds as kinds
from .. import events as ev
from ..errors import ProcessEngineError
from ..model import Activity, CompensateEventDefinition, EventSpec, MultiInstanceSpec
from ..state import EventSubscription, Execution
from .base import Behavior
from .events import fire_boundary
from .operations import FlowOperations
from .subscriptions import COMPENSATE

# Activities whose scope is retained for compensation when they complete.
_RETAINING = kinds.types_of(kinds.SUB_PROCESS, kinds.TRANSACTION, kinds.MULTI_INSTANCE_BODY)


# -- subscribing --------------------------------------------------------------------------


def _scope_execution(flow: FlowOperations, execution_id: str, scope_id: str) -> Execution:
    """The execution of the scope `scope_id` (the process or a subprocess), from a token in it
    or below it."""
    state = flow.session.state
    if scope_id == flow.model.id:
        return state.executions[state.id]
    found = flow.scope_execution_for(execution_id, scope_id)
    if found is None:
        raise ProcessEngineError(f"no execution found for the scope '{scope_id}'")
    return found


def _subscriptions_in(flow: FlowOperations, scope_instance_id: str) -> list[EventSubscription]:
    """The compensate subscriptions kept in a scope instance, oldest first (the state keeps
    them in the order they were made)."""
    return [
        sub
        for sub in flow.session.state.subscriptions.values()
        if sub.event_type == COMPENSATE and sub.activity_instance_id == scope_instance_id
    ]


def retained_before_completion(
    flow: FlowOperations, activity: Activity, activity_instance_id: str | None
) -> list[EventSubscription]:
    """A scope is about to complete (its subscriptions end with it): what it holds to
    compensate, to be retained by `subscribe_completed`."""
    if activity_instance_id is None or activity.type not in _RETAINING:
        return []
    return _subscriptions_in(flow, activity_instance_id)


def subscribe_completed(
    flow: FlowOperations,
    execution_id: str,
    activity: Activity,
    activity_instance_id: str | None,
    retained: list[EventSubscription],
) -> None:
    """The activity instance completed (its execution still there): subscribe its compensation
    in the scope it ran in, retaining a completed scope with what it holds."""
    if activity_instance_id is None or activity.for_compensation:
        return
    handler = flow.model.activities.get(activity.compensation_handler or "")
    esp = handler if handler is not None and flow.model.is_event_subprocess(handler.id) else None
    if not retained and esp is None and handler is None:
        return
    scope = _scope_execution(flow, execution_id, activity.scope_id)
    scope_ai = scope.scope_activity_instance_id
    if scope_ai is None:
        return
    state = flow.session.state
    scope_ai = state.reopened_scopes.get(scope_ai, scope_ai)
    now = flow.session.ctx.now
    if activity.type in _RETAINING and (retained or esp is not None):
        # Camunda's event-scope execution: the scope's subscriptions and local variables kept
        # under one subscription (its handler: the compensation event subprocess, or the scope)
        record = _subscribe(
            flow, scope.id, esp.id if esp is not None else activity.id, scope_ai, now
        )
        flow.emit(
            ev.CompensationScopeRetained(
                subscription_id=record,
                activity_instance_id=activity_instance_id,
                execution_id=execution_id,
                time=now,
            )
        )
        for sub in retained:
            _subscribe(flow, scope.id, sub.activity_id, activity_instance_id, sub.created)
    if handler is not None and esp is None:
        _subscribe(flow, scope.id, handler.id, scope_ai, now)


def _subscribe(
    flow: FlowOperations,
    execution_id: str,
    handler_id: str,
    activity_instance_id: str,
    created: datetime,
) -> str:
    """A compensate subscription (nameless, as Camunda's) for `handler_id`; returns its id."""
    subscription_id = flow.session.ctx.new_id()
    flow.emit(
        ev.EventSubscriptionCreated(
            subscription_id=subscription_id,
            event_type=COMPENSATE,
            event_name="",
            execution_id=execution_id,
            activity_id=handler_id,
            activity_instance_id=activity_instance_id,
            time=created,
        )
    )
    return subscription_id


# -- throwing -----------------------------------------------------------------------------


def _consumes(flow: FlowOperations, scope_id: str) -> bool:
    """Whether compensation thrown in the scope stays there: an event subprocess passes it on
    to the scope around it (Camunda's consumesCompensation)."""
    return scope_id == flow.model.id or not flow.model.is_event_subprocess(scope_id)


def collect(flow: FlowOperations, execution_id: str, activity: Activity) -> list[EventSubscription]:
    """The subscriptions a compensation throw at `activity` compensates, oldest first."""
    state = flow.session.state
    keys: list[str] = []
    scope_id = activity.scope_id
    while True:
        ai = _scope_execution(flow, execution_id, scope_id).scope_activity_instance_id
        if ai is not None:
            keys.append(state.reopened_scopes.get(ai, ai))
        if _consumes(flow, scope_id):
            break
        scope_id = flow.model.activities[scope_id].scope_id
    found = [s for key in keys for s in _subscriptions_in(flow, key)]
    spec = activity.spec
    ref = (
        spec.definition.activity_ref
        if isinstance(spec, EventSpec) and isinstance(spec.definition, CompensateEventDefinition)
        else None
    )
    if ref is not None:
        wanted = _subscription_activity(flow, ref)
        found = [s for s in found if s.activity_id == wanted]
    # the state keeps subscriptions in the order they were made: completion order
    order = {sid: i for i, sid in enumerate(state.subscriptions)}
    return sorted(found, key=lambda sub: order[sub.id])


def _subscription_activity(flow: FlowOperations, ref: str) -> str:
    """The ACTIVITY_ID_ of the subscriptions of the activity `ref` (Camunda's
    getSubscriptionActivityId): a multi-instance activity's body, else its handler, else it."""
    target = flow.model.activities[ref]
    body = flow.model.activities.get(target.scope_id)
    if body is not None and isinstance(body.spec, MultiInstanceSpec) and body.spec.inner == ref:
        return body.id
    return target.compensation_handler or ref


def throw(flow: FlowOperations, execution_id: str, subscriptions: list[EventSubscription]) -> None:
    """Compensate `subscriptions` from the throw event the execution is at: an execution per
    subscription beside the throw, the newest first; the throw waits for all of them."""
    waiter = flow.execution(execution_id).activity_instance_id
    assert waiter is not None, "a throw event waits in its activity instance"
    scope_id = flow.flow_scope_execution(execution_id).id
    tokens = [(flow.concurrent_beside(scope_id), sub) for sub in reversed(subscriptions)]
    _start_all(flow, tokens, waiter)


def _start_all(
    flow: FlowOperations, tokens: list[tuple[str, EventSubscription]], waiter: str
) -> None:
    """Each execution compensates its subscription: all are recorded as started for `waiter`
    before any runs, so one that ends at once does not end the wait for the others."""
    now = flow.session.ctx.now
    for token, sub in tokens:
        flow.emit(ev.EventSubscriptionDeleted(subscription_id=sub.id, time=now))
        flow.emit(
            ev.CompensationStarted(
                execution_id=token,
                subscription_id=sub.id,
                activity_id=sub.activity_id,
                waiter_activity_instance_id=waiter,
                time=now,
            )
        )
    for token, sub in tokens:
        if sub.id in flow.session.state.retained_scopes:
            _reopen(flow, token, sub)  # the scope it retained runs again
        else:
            flow.enter_later(token, sub.activity_id)  # its handler runs


def _reopen(flow: FlowOperations, token: str, sub: EventSubscription) -> None:
    """Compensate a completed scope: it runs again as a scope with its retained variables, and
    its compensation event subprocess runs in it, or what it retained is compensated there."""
    session = flow.session
    state = session.state
    retained = state.retained_scopes[sub.id]
    handler = flow.model.activities[sub.activity_id]
    esp = handler if flow.model.is_event_subprocess(handler.id) else None
    scope_activity = flow.model.activities[handler.scope_id] if esp is not None else handler
    new_id = session.ctx.new_id
    now = session.ctx.now
    scope_execution = new_id()
    flow.emit(
        ev.ExecutionCreated(
            execution_id=scope_execution, parent_id=token, is_scope=True, is_concurrent=False
        )
    )
    parent_ai = flow.flow_scope_execution(token).scope_activity_instance_id or ""
    instance = f"{scope_activity.id}:{new_id()}"
    reopened = instance if len(instance) <= 64 else new_id()
    flow.emit(
        ev.CompensationScopeReopened(
            subscription_id=sub.id,
            activity_instance_id=reopened,
            original_activity_instance_id=retained.activity_instance_id,
            activity_id=scope_activity.id,
            activity_type=scope_activity.type,
            activity_name=scope_activity.name,
            execution_id=scope_execution,
            parent_activity_instance_id=parent_ai,
            time=now,
        )
    )
    for name, value in retained.variables.items():
        flow.emit(
            ev.VariableSet(
                variable_id=new_id(),
                name=name,
                execution_id=scope_execution,
                value=value,
                time=now,
                detail_id=new_id(),
            )
        )
    if esp is not None:
        # The compensation event subprocess consumes the compensation: what it compensates
        # inside, it throws itself.
        child = _child(flow, scope_execution)
        flow.emit(
            ev.CompensationStarted(
                execution_id=child,
                subscription_id=sub.id,
                activity_id=esp.id,
                waiter_activity_instance_id=reopened,
                time=now,
            )
        )
        flow.enter_later(child, esp.id)
        return
    inner = _subscriptions_in(flow, retained.activity_instance_id)
    if not inner:
        _close(flow, reopened)
        return
    _start_all(flow, [(_child(flow, scope_execution), s) for s in reversed(inner)], reopened)


def _child(flow: FlowOperations, scope_execution: str) -> str:
    """A concurrent execution in a reopened scope, for one of its compensations."""
    child = flow.session.ctx.new_id()
    flow.emit(
        ev.ExecutionCreated(
            execution_id=child, parent_id=scope_execution, is_scope=False, is_concurrent=True
        )
    )
    return child


# -- joining ------------------------------------------------------------------------------


def is_compensating(flow: FlowOperations, execution_id: str) -> bool:
    return execution_id in flow.session.state.compensating


def path_ended(flow: FlowOperations, execution_id: str) -> None:
    """A compensating execution's handler ended: it goes; once the last one started for its
    waiter ended, the waiter goes on (a throw event leaves, a reopened scope closes)."""
    state = flow.session.state
    waiter = state.compensating[execution_id]
    parent = flow.execution(execution_id).parent_id
    flow.emit(ev.ExecutionRemoved(execution_id=execution_id))
    if waiter in state.compensating.values():
        return
    if waiter in state.reopened_scopes:
        _close(flow, waiter)
        return
    thrower = state.activity_instances.get(waiter)
    if thrower is None:
        return  # the throw was cancelled meanwhile
    if parent is not None and parent in state.executions:
        flow.try_prune(parent)
    flow.leave(flow.resolve(state.activity_instances[waiter].execution_id))


def _close(flow: FlowOperations, reopened: str) -> None:
    """Everything compensated in a reopened scope: it closes, and the execution that
    reopened it has ended its compensation."""
    state = flow.session.state
    scope_execution = state.activity_instances[reopened].execution_id
    token = flow.execution(scope_execution).parent_id
    flow.emit(ev.CompensationScopeClosed(activity_instance_id=reopened, time=flow.session.ctx.now))
    flow.emit(ev.ExecutionRemoved(execution_id=scope_execution))
    if token is not None and token in state.compensating:
        path_ended(flow, token)


# -- behaviours ---------------------------------------------------------------------------


class CompensationThrowEvent(Behavior):
    """An intermediate compensation throw event: compensates, waits, goes on."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        subscriptions = collect(flow, execution_id, activity)
        if not subscriptions:
            flow.leave(execution_id)
            return
        throw(flow, execution_id, subscriptions)


class CompensationEndEvent(CompensationThrowEvent):
    """A compensation end event: compensates, waits, then ends its path."""

    completes_scope: ClassVar[bool] = True

    def leave(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        flow.complete(execution_id, activity, [])


class CancelEndEvent(Behavior):
    """A cancel end event: compensates what completed in its transaction, then the transaction
    is cancelled and left by its cancel boundary event."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        subscriptions = collect(flow, execution_id, activity)
        if not subscriptions:
            self.leave(flow, execution_id, activity)
            return
        throw(flow, execution_id, subscriptions)

    def leave(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        host = flow.model.activities[activity.scope_id]
        body = flow.model.activities.get(host.scope_id)
        if body is not None and isinstance(body.spec, MultiInstanceSpec):
            host = body  # a multi-instance transaction's boundary events sit on its body
        boundary = next(
            flow.model.activities[b]
            for b in host.boundary_events
            if flow.model.activities[b].type == kinds.BOUNDARY_CANCEL.type
        )
        scope = _scope_execution(flow, execution_id, host.id)
        fire_boundary(flow, scope.id, boundary)
