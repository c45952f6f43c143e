"""The engine: BPMN model and parser, expressions, events, state, decide/evolve, the Engine facade.

Import `Engine` from here; everything else is the engine's own business.
"""

from .clock import ControllableClock, SystemClock
from .engine import Engine
from .errors import (
    BpmnError,
    ConcurrencyError,
    FlowledgerError,
    ModelError,
    NotFound,
    ProcessEngineError,
    Rejected,
    TaskAlreadyClaimed,
)
from .variables import TypedValue, typed

__all__ = [
    "BpmnError",
    "ConcurrencyError",
    "ControllableClock",
    "Engine",
    "FlowledgerError",
    "ModelError",
    "NotFound",
    "ProcessEngineError",
    "Rejected",
    "SystemClock",
    "TaskAlreadyClaimed",
    "TypedValue",
    "typed",
]
