"""The engine: BPMN model and parser, expressions, events, state, decide/evolve, the Engine facade.

Import `Engine` from here; everything else is the engine's own business.
"""

from typing import TYPE_CHECKING, Any

from .clock import ControllableClock, SystemClock
from .errors import (
    BpmnError,
    ConcurrencyError,
    FlowledgerError,
    InvalidValue,
    ModelError,
    NotFound,
    ProcessEngineError,
    Rejected,
    SchemaMismatch,
    TaskAlreadyClaimed,
)
from .variables import TypedValue, typed

if TYPE_CHECKING:
    from .engine import Engine


def __getattr__(name: str) -> Any:
    # The facade imports the projections, which import the pure core (core.events, ...):
    # loading it lazily keeps `import core.events` free of that cycle.
    if name == "Engine":
        from .engine import Engine

        return Engine
    raise AttributeError(f"module 'core' has no attribute {name!r}")


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
