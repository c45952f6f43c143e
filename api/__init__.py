"""flowledger: an event-sourced BPMN 2.0 engine for Python that speaks Camunda 7.

The public API is what this module exports: `from flowledger import Engine`. The folders of the
source tree install as subpackages of this one (pyproject's package-dir): `flowledger.core` (the
domain and the engine), `flowledger.eventlog`, `flowledger.projections`, `flowledger.migrations`,
`flowledger.rest` and `flowledger.tools` (the CLI).
"""

from flowledger.core import (
    BpmnError,
    ControllableClock,
    FlowledgerError,
    InvalidValue,
    ModelError,
    NotFound,
    ProcessEngineError,
    Rejected,
    SchemaMismatch,
    SystemClock,
    TaskAlreadyClaimed,
    TypedValue,
    typed,
)
from flowledger.core.engine import ConcurrencyError, Engine

__all__ = [
    "BpmnError",
    "ConcurrencyError",
    "ControllableClock",
    "Engine",
    "FlowledgerError",
    "InvalidValue",
    "ModelError",
    "NotFound",
    "ProcessEngineError",
    "Rejected",
    "SchemaMismatch",
    "SystemClock",
    "TaskAlreadyClaimed",
    "TypedValue",
    "typed",
]
