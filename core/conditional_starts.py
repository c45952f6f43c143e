"""Conditional start events of a process: which start events are conditional, and whether a
start condition holds for the variables a condition evaluation brings
(runtimeService.createConditionEvaluation, REST POST /condition).

Pure: the engine hands in the deployed model and the request's variables; it starts the
instances. Conditional start events are evaluated only on such a request, never by themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import element_kinds as kinds
from .errors import ProcessEngineError
from .expressions import ExpressionEvaluationError, MappingContext, UnknownIdentifier
from .model import Activity, ConditionalEventDefinition, EventSpec, ProcessModel
from .variables import from_stored, to_stored


def conditional_starts(model: ProcessModel) -> list[Activity]:
    """The process's own conditional start events (not its event subprocesses'), by id."""
    return sorted(
        (
            a
            for a in model.activities.values()
            if a.type == kinds.CONDITIONAL_START_EVENT.type and a.scope_id == model.id
        ),
        key=lambda a: a.id,
    )


def values(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The variables as a condition sees them: typed values (a REST request's) as the values an
    instance would hold, read back from their stored form."""
    return {name: from_stored(to_stored(name, value)) for name, value in variables.items()}


def start_condition_holds(start: Activity, variables: Mapping[str, Any]) -> bool:
    """Whether the start event's condition holds for `variables` (as `values` gives them).
    Camunda's DefaultConditionHandler.evaluateCondition: with a camunda:variableName the
    request must bring that variable; a variable the condition names that the request lacks
    makes it false (tryEvaluate); camunda:variableEvents do not matter here."""
    spec = start.spec
    assert isinstance(spec, EventSpec) and isinstance(spec.definition, ConditionalEventDefinition)
    definition = spec.definition
    if definition.variable_name is not None and definition.variable_name not in variables:
        return False
    try:
        value = definition.condition.evaluate(MappingContext(dict(variables)))
    except UnknownIdentifier:
        return False
    except ExpressionEvaluationError as exc:
        raise ProcessEngineError(
            f"Cannot evaluate the condition of conditional start event '{start.id}' "
            f"({definition.condition.source}): {exc}"
        ) from exc
    if not isinstance(value, bool):
        raise ProcessEngineError(
            f"The condition of conditional start event '{start.id}' "
            f"({definition.condition.source}) evaluated to {value!r}, not to a boolean"
        )
    return value
