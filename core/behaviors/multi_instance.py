"""Multi-instance bodies: the scope `X#multiInstanceBody` that runs its inner activity `X` once
per item of a collection (or loopCardinality times), in parallel (a concurrent execution per
instance) or sequentially (one instance after the other on the body's execution), with Camunda's
variables: `nrOfInstances`, `nrOfActiveInstances`, `nrOfCompletedInstances` on the body,
`loopCounter` and the element variable on each instance. After each instance the completion
condition may end the body early, cancelling the instances still running.

Decide-side; every change is an emitted event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import events as ev
from ..errors import ProcessEngineError
from ..model import Activity, MultiInstanceSpec
from ..scope import evaluate, find_local, set_variable_local
from ..variables import from_stored
from .base import Behavior
from .operations import FlowOperations

MAX_INSTANCES = 10_000  # one command creates them all (parallel): a bound on its size
INSTANCES, ACTIVE, COMPLETED = "nrOfInstances", "nrOfActiveInstances", "nrOfCompletedInstances"
LOOP_COUNTER = "loopCounter"


def _spec(body: Activity) -> MultiInstanceSpec:
    assert isinstance(body.spec, MultiInstanceSpec)
    return body.spec


def _items(flow: FlowOperations, execution_id: str, body: Activity) -> Sequence[Any] | None:
    """The collection's items (None without a collection)."""
    spec = _spec(body)
    if spec.collection is None:
        return None
    value = evaluate(
        flow.session,
        spec.collection,
        execution_id,
        element_id=spec.inner,
        what="camunda:collection",
    )
    if isinstance(value, list | tuple):
        return value
    raise ProcessEngineError(
        f"camunda:collection of multi-instance activity '{spec.inner}' "
        f"({spec.collection.source}) evaluated to {type(value).__name__}, not a list"
    )


def _count(flow: FlowOperations, execution_id: str, body: Activity) -> int:
    spec = _spec(body)
    items = _items(flow, execution_id, body)
    if items is not None:
        count = len(items)
    else:
        assert spec.cardinality is not None
        value = evaluate(
            flow.session,
            spec.cardinality,
            execution_id,
            element_id=spec.inner,
            what="the loopCardinality",
        )
        try:
            count = int(str(value))
        except ValueError:
            raise ProcessEngineError(
                f"the loopCardinality of multi-instance activity '{spec.inner}' evaluated to "
                f"{value!r}, not a number"
            ) from None
    if count < 0 or count > MAX_INSTANCES:
        raise ProcessEngineError(
            f"multi-instance activity '{spec.inner}' would run {count} instances; it runs from "
            f"0 to {MAX_INSTANCES}"
        )
    return count


def _local(flow: FlowOperations, execution_id: str, name: str) -> int:
    var = find_local(flow.session, execution_id, name)
    value = None if var is None else from_stored(var.value)
    return int(value) if isinstance(value, int) else 0


def _instance_variables(
    flow: FlowOperations,
    body_execution: str,
    on: str,
    body: Activity,
    index: int,
    items: Sequence[Any] | None = None,
) -> None:
    """loopCounter and the element variable of instance `index`, local to its execution.

    `items`: the collection, when the caller evaluated it already (all parallel instances are
    created from one evaluation; a sequential instance evaluates it again, as Camunda does)."""
    session = flow.session
    set_variable_local(session, on, LOOP_COUNTER, index)
    spec = _spec(body)
    if spec.element_variable:
        if items is None:
            items = _items(flow, body_execution, body) or []
        item = items[index] if index < len(items) else None
        set_variable_local(session, on, spec.element_variable, item)


class MultiInstanceBody(Behavior):
    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        spec = _spec(activity)
        count = _count(flow, execution_id, activity)
        session = flow.session
        set_variable_local(session, execution_id, INSTANCES, count)
        set_variable_local(
            session, execution_id, ACTIVE, min(count, 1) if spec.sequential else count
        )
        set_variable_local(session, execution_id, COMPLETED, 0)
        if count == 0:
            self._finish(flow, execution_id, activity)
            return
        if spec.sequential:
            _instance_variables(flow, execution_id, execution_id, activity, 0)
            flow.enter_later(execution_id, spec.inner)
            return
        new_id = session.ctx.new_id
        items = _items(flow, execution_id, activity) if spec.element_variable else None
        for index in range(count):
            token = new_id()
            flow.emit(
                ev.ExecutionCreated(
                    execution_id=token, parent_id=execution_id, is_scope=False, is_concurrent=True
                )
            )
            _instance_variables(flow, execution_id, token, activity, index, items or [])
            flow.enter_later(token, spec.inner)

    def instance_ended(self, flow: FlowOperations, token: str, body: Activity) -> None:
        """A parallel instance ended on its concurrent execution."""
        execution = flow.execution(token)
        scope = execution.parent_id
        assert scope is not None
        flow.emit(ev.ExecutionRemoved(execution_id=token))
        self._counted(flow, scope, body, parallel=True)

    def leave(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        """A sequential instance ended on the body's execution (the last token inside)."""
        self._counted(flow, execution_id, activity, parallel=False)

    def _counted(self, flow: FlowOperations, scope: str, body: Activity, *, parallel: bool) -> None:
        session = flow.session
        spec = _spec(body)
        completed = _local(flow, scope, COMPLETED) + 1
        total = _local(flow, scope, INSTANCES)
        active = _local(flow, scope, ACTIVE) - 1 if parallel else (1 if completed < total else 0)
        set_variable_local(session, scope, COMPLETED, completed)
        set_variable_local(session, scope, ACTIVE, active)
        done = completed >= total or self._condition(flow, scope, spec)
        if not done and not parallel:
            _instance_variables(flow, scope, scope, body, completed)
            flow.enter_later(scope, spec.inner)
            return
        if not done:
            return
        for child in list(flow.execution(scope).children):
            flow.cancel_tree(child, "the completion condition of the multi-instance activity")
        self._finish(flow, scope, body)

    def _condition(self, flow: FlowOperations, scope: str, spec: MultiInstanceSpec) -> bool:
        if spec.completion_condition is None:
            return False
        value = evaluate(
            flow.session,
            spec.completion_condition,
            scope,
            element_id=spec.inner,
            what="the completionCondition",
        )
        if not isinstance(value, bool):
            raise ProcessEngineError(
                f"the completionCondition of multi-instance activity '{spec.inner}' "
                f"({spec.completion_condition.source}) evaluated to {value!r}, not a boolean"
            )
        return value

    def _finish(self, flow: FlowOperations, scope: str, body: Activity) -> None:
        """Every instance ran (or the condition holds): the body completes and the flow goes
        on from it."""
        scope_ai = flow.execution(scope).scope_activity_instance_id
        flow.complete(scope, body, flow.select_outgoing(scope, body), activity_instance_id=scope_ai)
