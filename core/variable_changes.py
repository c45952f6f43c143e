"""The variable changes of one command, as conditional events see them: which scope's variable,
which name, and whether it was created, updated or deleted (Camunda's VariableEvent).

Pure: read off each VariableSet or VariableDeleted event and the state just before it; a task's
local variables are no change of any execution's (they never trigger a conditional event).
"""

from __future__ import annotations

from typing import NamedTuple

from .events import Event, VariableDeleted, VariableSet
from .state import InstanceState

CREATE, UPDATE, DELETE = "create", "update", "delete"  # camunda:variableEvents' names


class VariableChange(NamedTuple):
    """`name` of the execution `execution_id` was created, updated or deleted (`event`)."""

    execution_id: str
    name: str
    event: str


def variable_change(state: InstanceState, event: Event) -> VariableChange | None:
    """The change `event` makes to the variables of `state` (before it), if any."""
    if isinstance(event, VariableSet):
        if event.task_id is not None:
            return None
        kind = UPDATE if event.variable_id in state.variables else CREATE
        return VariableChange(event.execution_id, event.name, kind)
    if isinstance(event, VariableDeleted):
        var = state.variables.get(event.variable_id)
        if var is None or var.task_id is not None:
            return None
        return VariableChange(var.execution_id, var.name, DELETE)
    return None
