"""Execution listeners (start and end of activities and of the process, take of sequence flows)
and task listeners (create, assignment, complete, delete of user tasks): user code run at those
moments, as an expression, a delegate expression, a registered delegate (`class`) or a script.

Decide-side: what a listener changes is recorded by the events its calls emit (a variable set
is a VariableSet). A listener that raises fails the command, naming the listener and element.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..budget import evaluating
from ..errors import FlowledgerError, ProcessEngineError
from ..model import Listener, UserTaskSpec
from ..scope import ExecutionFacade, TaskFacade, evaluate
from ..session import InstanceSession
from .scripts import run_python


def notify(
    session: InstanceSession,
    listeners: Sequence[Listener],
    event: str,
    execution_id: str,
    element_id: str,
    task_id: str | None = None,
    at_activity: str | None = None,
) -> None:
    """Run the listeners of `event` on the element, in the model's order. `at_activity`: the
    activity the execution is seen at (Camunda's: a process's start listener sees the initial
    start event, a flow's take listener its source)."""
    if session.skip_custom_listeners:
        return
    for listener in listeners:
        if listener.event == event:
            _run(session, listener, execution_id, element_id, task_id, at_activity)


def notify_task(session: InstanceSession, task_id: str, event: str) -> None:
    """Run the user task's task listeners of `event` (create, assignment, complete, delete)."""
    task = session.state.tasks[task_id]
    activity = session.model.activities.get(task.task_definition_key)
    spec = activity.spec if activity is not None else None
    if activity is not None and isinstance(spec, UserTaskSpec) and spec.task_listeners:
        notify(session, spec.task_listeners, event, task.execution_id, activity.id, task_id)


def _run(
    session: InstanceSession,
    listener: Listener,
    execution_id: str,
    element_id: str,
    task_id: str | None,
    at_activity: str | None,
) -> None:
    what = f"the {listener.event} listener of '{element_id}'"
    event = listener.event
    facade: ExecutionFacade = (
        ExecutionFacade(session, execution_id, event, at_activity)
        if task_id is None
        else TaskFacade(session, task_id, event)
    )
    try:
        if listener.kind == "class":
            name = listener.class_name or ""
            target = session.ctx.delegates.get(name)
            if target is None:
                raise ProcessEngineError(
                    f"No delegate registered under the name '{name}' for {what}; register one "
                    "with Engine.register_delegate"
                )
            _call(target, facade, what)
        elif listener.expression is not None:
            value = evaluate(
                session,
                listener.expression,
                execution_id,
                element_id=element_id,
                what=what,
                task_id=task_id,
                execution=facade,
            )
            if listener.kind == "delegateExpression":
                _call(value, facade, what)
        else:
            run_python(session, execution_id, listener.code, listener.result_code, facade)
    except FlowledgerError:
        raise
    except Exception as exc:
        raise ProcessEngineError(f"{what} failed: {type(exc).__name__}: {exc}") from exc


def _call(target: Any, facade: ExecutionFacade, what: str) -> None:
    """A listener object's `notify` (Camunda's ExecutionListener/TaskListener), else its
    `execute`, else the object itself when it is callable."""
    for method in ("notify", "execute"):
        bound = getattr(target, method, None)
        if callable(bound):
            with evaluating(what):
                bound(facade)
            return
    if not callable(target):
        raise ProcessEngineError(f"{what} is neither callable nor has a notify method")
    with evaluating(what):
        target(facade)
