"""Events of process variables: a variable set (created or changed) or deleted.

Pure data; the value is stored as `core.variables` serializes it.
"""

from __future__ import annotations

from datetime import datetime

from ..variables import StoredValue
from .base import Event


class VariableSet(Event, tag=True, frozen=True):
    """A variable was created or changed; `variable_id` says which instance of the name."""

    variable_id: str
    name: str
    execution_id: str
    value: StoredValue
    time: datetime
    detail_id: str
    task_id: str | None = None


class VariableDeleted(Event, tag=True, frozen=True):
    variable_id: str
    time: datetime
