"""Input/output mappings (`camunda:inputOutput`): inputs are evaluated in the enclosing scope
and set as local variables of the activity's own execution when it starts; outputs are
evaluated in the activity's scope and set from the enclosing one when it completes (not when it
is cancelled).

Decide-side: the values are recorded by the VariableSet events they cause.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ProcessEngineError
from ..model import Activity, MappedValue
from ..scope import evaluate, set_variable, set_variable_local
from ..session import InstanceSession
from .operations import FlowOperations
from .scripts import run_python


def value_of(
    session: InstanceSession,
    value: MappedValue,
    execution_id: str,
    element_id: str,
    what: str,
    extra: Mapping[str, Any] | None = None,
) -> Any:
    """A mapped value, evaluated seen from the execution (`extra` names first)."""
    if value.kind == "null":
        return None
    if value.kind == "text":
        return value.text
    if value.kind == "expression":
        if value.expression is None:
            raise ProcessEngineError(f"{what} of '{element_id}' has no valid expression")
        return evaluate(
            session, value.expression, execution_id, element_id=element_id, what=what, extra=extra
        )
    if value.kind == "list":
        return [
            value_of(session, item, execution_id, element_id, what, extra) for item in value.items
        ]
    if value.kind == "map":
        return {
            key: value_of(session, entry, execution_id, element_id, what, extra)
            for key, entry in value.entries
        }
    return run_python(session, execution_id, value.code, value.result_code)


def map_inputs(flow: FlowOperations, execution_id: str, activity: Activity) -> None:
    """The activity started on `execution_id` (its own scope execution): each input parameter,
    evaluated in the enclosing scope, becomes a local variable there."""
    if activity.io is None or not activity.io.inputs or flow.session.skip_io_mappings:
        return
    outer = flow.execution(execution_id).parent_id or execution_id
    session = flow.session
    for parameter in activity.io.inputs:
        what = f"input parameter '{parameter.name}'"
        value = value_of(session, parameter.value, outer, activity.id, what)
        set_variable_local(session, execution_id, parameter.name, value)


def map_outputs(flow: FlowOperations, execution_id: str, activity: Activity) -> None:
    """The activity completes on `execution_id`: each output parameter, evaluated in its scope,
    is set from the enclosing scope (where the name exists, else on the process instance)."""
    if activity.io is None or not activity.io.outputs or flow.session.skip_io_mappings:
        return
    outer = flow.execution(execution_id).parent_id or execution_id
    session = flow.session
    values = [
        (
            p.name,
            value_of(session, p.value, execution_id, activity.id, f"output parameter '{p.name}'"),
        )
        for p in activity.io.outputs
    ]
    for name, value in values:
        set_variable(session, outer, name, value)
