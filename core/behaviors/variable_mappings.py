"""Delegate variable mappings of call activities (`camunda:variableMappingClass`, a delegate
registered by name, or `camunda:variableMappingDelegateExpression`, an expression giving one):
Camunda's DelegateVariableMapping with Python names. Its `map_input(execution, variables)` may
change the called instance's start variables (a dict) after the `camunda:in` mappings made
them; its `map_output(execution, sub_variables)` sets the caller's variables (through
`execution.set_variable`) from the ended instance's, after the `camunda:out` mappings.

Decide-side: what it does is recorded as the called instance's start variables and the caller's
VariableSet events; replay never calls it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from ..budget import evaluating
from ..errors import FlowledgerError, ProcessEngineError
from ..model import Activity, CallActivitySpec
from ..scope import ExecutionFacade, evaluate
from ..session import InstanceSession


def _delegate(
    session: InstanceSession, execution_id: str, activity: Activity, spec: CallActivitySpec
) -> tuple[Any, str] | None:
    """The activity's mapping delegate and how to name it, or None when it has none."""
    if spec.variable_mapping_class is not None:
        name = spec.variable_mapping_class
        target = session.ctx.delegates.get(name)
        if target is None:
            raise ProcessEngineError(
                f"No delegate registered under the name '{name}' for "
                f"camunda:variableMappingClass of '{activity.id}'; register one with "
                "Engine.register_delegate"
            )
        return target, f"the variable mapping '{name}' of '{activity.id}'"
    if spec.variable_mapping_expression is not None:
        expression = spec.variable_mapping_expression
        target = evaluate(
            session,
            expression,
            execution_id,
            element_id=activity.id,
            what="camunda:variableMappingDelegateExpression",
        )
        return target, f"the variable mapping {expression.source} of '{activity.id}'"
    return None


def _run(what: str, method: Callable[..., Any] | None, *arguments: Any) -> None:
    if not callable(method):
        raise ProcessEngineError(f"{what} has no map_input and map_output methods")
    try:
        with evaluating(what):
            method(*arguments)
    except FlowledgerError:
        raise
    except Exception as exc:
        raise ProcessEngineError(f"{what} failed: {type(exc).__name__}: {exc}") from exc


def map_input(
    session: InstanceSession,
    execution_id: str,
    activity: Activity,
    spec: CallActivitySpec,
    variables: dict[str, Any],
) -> None:
    """Let the mapping delegate change the called instance's start variables in place."""
    found = _delegate(session, execution_id, activity, spec)
    if found is not None:
        target, what = found
        facade = ExecutionFacade(session, execution_id)
        _run(what, getattr(target, "map_input", None), facade, variables)


def map_output(
    session: InstanceSession,
    execution_id: str,
    activity: Activity,
    spec: CallActivitySpec,
    ended_with: Mapping[str, Any],
) -> None:
    """Let the mapping delegate set the caller's variables from the ended instance's."""
    found = _delegate(session, execution_id, activity, spec)
    if found is not None:
        target, what = found
        facade = ExecutionFacade(session, execution_id)
        _run(what, getattr(target, "map_output", None), facade, MappingProxyType(dict(ended_with)))
