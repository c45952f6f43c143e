"""Why a token went the way it did: the conditions on the outgoing flows of a gateway (or of any
activity with conditional flows), evaluated again against the instance's state as it was when
the engine chose, with the variables each one read.

An explanation, not a replay: the condition recorded in the deployed model is evaluated over the
state replayed from the log, so it works for every instance already in the log. It is side-effect
free: only the instance's variables are resolved (copies of their values); a condition that
needs `execution`, `task` or a bean is reported as not evaluated, never called. Evaluations are
bounded by the budget the caller opened (core/budget.py).

Pure: no I/O, no clock; the moment `now()` answers is the one the choice was recorded at.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import msgspec

from . import events as ev
from .budget import BudgetExceeded, evaluating
from .expressions import EvaluationContext, Expression, ExpressionEvaluationError
from .instance_view import readable_value
from .model import Activity, ProcessModel
from .state import InstanceState, variable_index
from .variables import from_stored

# Types whose outgoing conditions the engine ignores (parallel) or never has (event-based).
_NO_CONDITIONS = ("parallelGateway", "eventBasedGateway")
# Names the engine resolves from its running context, which an explanation does not have.
_CONTEXT_ONLY = ("execution", "task")


class ConditionCheck(msgspec.Struct, frozen=True):
    """One condition of a flow leaving `gateway_id` (a gateway, or an activity with conditional
    flows): its text, what it gives now on the state of then (`result`: a boolean, or
    "not evaluated: <why>"), and the variables it read with their values then."""

    gateway_id: str
    flow_id: str
    expression: str
    result: bool | str
    variables: dict[str, Any]


class _NotEvaluable(Exception):
    """The condition needs what an explanation does not call or have."""


class _Variables(EvaluationContext):
    """The variables visible from an execution in a replayed state, and nothing else."""

    def __init__(self, state: InstanceState, execution_id: str, now: datetime) -> None:
        self._state = state
        self._chain = _scopes(state, execution_id)
        self._now = now
        self.read: dict[str, Any] = {}

    def resolve(self, name: str) -> object:
        if name in _CONTEXT_ONLY:
            raise _NotEvaluable(
                f"it reads '{name}', which only the running engine provides (an explanation "
                "calls nothing)"
            )
        index = variable_index(self._state)
        for scope in self._chain:
            vid = index.local(scope, name)
            if vid is not None:
                stored = self._state.variables[vid].value
                self.read[name] = readable_value(stored)
                return from_stored(stored)  # a fresh copy: a method the condition calls on it
                # changes nothing of the state
        raise _NotEvaluable(
            f"'{name}' was no variable of the instance then: it names a bean or delegate, which "
            "an explanation does not call"
        )

    def call_function(self, name: str, args: list[object]) -> object:
        if name in ("now", "dateTime") and not args:
            return self._now
        raise ExpressionEvaluationError(f"Unknown function '{name}' in expression")


def _scopes(state: InstanceState, execution_id: str) -> list[str]:
    """The execution and its ancestors, innermost first (those the state still holds)."""
    chain: list[str] = []
    current: str | None = execution_id
    while current is not None and current in state.executions and current not in chain:
        chain.append(current)
        current = state.executions[current].parent_id
    return chain


def conditional(activity: Activity, model: ProcessModel) -> bool:
    """Whether leaving `activity` evaluates conditions (so that its choice can be explained)."""
    if activity.type in _NO_CONDITIONS:
        return False
    return any(model.flows[f].condition is not None for f in activity.outgoing)


def explain_choice(
    model: ProcessModel, state: InstanceState, completed: ev.ActivityCompleted
) -> list[ConditionCheck]:
    """The conditions the engine evaluated when the activity instance `completed` ends left its
    activity, each evaluated on `state`: the instance right before that event. In the engine's
    order: the flows as the model lists them, the default flow left out (it has no condition);
    an exclusive gateway stops at the first true one, as the engine did. Empty when the
    activity evaluates no condition."""
    instance = state.activity_instances.get(completed.activity_instance_id)
    if instance is None:
        return []
    activity = model.activities.get(instance.activity_id)
    if activity is None or not conditional(activity, model):
        return []
    checks: list[ConditionCheck] = []
    for flow_id in activity.outgoing:
        flow = model.flows[flow_id]
        if flow_id == activity.default_flow or flow.condition is None:
            continue
        check = _check(
            activity.id, flow_id, flow.condition, state, instance.execution_id, completed
        )
        checks.append(check)
        if activity.type == "exclusiveGateway" and check.result is True:
            break
    return checks


def _check(
    activity_id: str,
    flow_id: str,
    condition: Expression,
    state: InstanceState,
    execution_id: str,
    completed: ev.ActivityCompleted,
) -> ConditionCheck:
    context = _Variables(state, execution_id, completed.time)
    result: bool | str
    try:
        with evaluating(f"the condition of '{flow_id}'"):
            value = condition.evaluate(context)
    except _NotEvaluable as exc:
        result = f"not evaluated: {exc}"
    except BudgetExceeded as exc:
        result = f"not evaluated: {exc.what} exceeded the budget of {exc.limit}"
    except ExpressionEvaluationError as exc:
        result = f"not evaluated: {exc}"
    except Exception as exc:  # a method of a value failed: reported, never raised on a reader
        result = f"not evaluated: {type(exc).__name__}: {exc}"
    else:
        result = (
            value if isinstance(value, bool) else f"not evaluated: gave {value!r}, not a boolean"
        )
    return ConditionCheck(activity_id, flow_id, condition.source, result, context.read)


def explained(
    events: Sequence[ev.Event], index: int, model: ProcessModel, state: InstanceState
) -> list[ConditionCheck]:
    """`explain_choice` for `events[index]` when it is an activity's completion that chose a
    path: not for the tokens a join ends (their execution is removed right after, and the one
    token that goes on is explained), nor for anything else."""
    event = events[index]
    if not isinstance(event, ev.ActivityCompleted):
        return []
    instance = state.activity_instances.get(event.activity_instance_id)
    if instance is None:
        return []
    following = events[index + 1] if index + 1 < len(events) else None
    activity = model.activities.get(instance.activity_id)
    if (
        isinstance(following, ev.ExecutionRemoved)
        and following.execution_id == instance.execution_id
        and activity is not None
        and not activity.is_scope
    ):
        return []
    return explain_choice(model, state, event)
