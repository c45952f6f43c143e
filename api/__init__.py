"""flowledger: an event-sourced BPMN 2.0 engine for Python that speaks Camunda 7.

The public API is what this module exports: `from flowledger import Engine`. The folders of the
source tree install as subpackages of this one (pyproject's package-dir): `flowledger.core` (the
domain and the engine), `flowledger.eventlog`, `flowledger.projections`, `flowledger.migrations`,
`flowledger.rest` and `flowledger.tools` (the CLI).
"""

from typing import TYPE_CHECKING, Any

from flowledger.core import (
    BpmnError,
    ControllableClock,
    DecisionEvaluationError,
    DecisionPolicyViolation,
    FlowledgerError,
    HistoryLevelMismatch,
    InvalidValue,
    JobFailure,
    MigratingInstanceInvalid,
    MigrationInstruction,
    MigrationPlan,
    MigrationPlanInvalid,
    MismatchingMessageCorrelation,
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

if TYPE_CHECKING:
    from flowledger.engine import ConcurrencyError, Engine
    from flowledger.engine.outbound import OutboundPolicy


def __getattr__(name: str) -> Any:
    # The engine (SQLAlchemy, the event log, the projections) loads on first use, so that
    # importing the domain alone (`flowledger.core.model`, …) stays free of it.
    if name in ("Engine", "ConcurrencyError"):
        from flowledger import engine

        return getattr(engine, name)
    if name == "OutboundPolicy":
        from flowledger.engine.outbound import OutboundPolicy

        return OutboundPolicy
    raise AttributeError(f"module 'flowledger' has no attribute {name!r}")


__all__ = [
    "BpmnError",
    "ConcurrencyError",
    "ControllableClock",
    "DecisionEvaluationError",
    "DecisionPolicyViolation",
    "Engine",
    "FlowledgerError",
    "HistoryLevelMismatch",
    "InvalidValue",
    "JobFailure",
    "MigratingInstanceInvalid",
    "MigrationInstruction",
    "MigrationPlan",
    "MigrationPlanInvalid",
    "MismatchingMessageCorrelation",
    "ModelError",
    "NotFound",
    "OutboundPolicy",
    "ProcessEngineError",
    "Rejected",
    "SchemaMismatch",
    "SystemClock",
    "TaskAlreadyClaimed",
    "TypedValue",
    "typed",
]
