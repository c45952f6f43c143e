"""The domain: BPMN model and parser, expressions, commands, events, state, decide/evolve.

Pure: nothing here imports the event log, the projections, SQLAlchemy or Litestar, reads a clock
or a database (import-linter checks it in CI). The engine that runs it on a database is the
package `flowledger.engine`; users import `Engine` from `flowledger`.
"""

from .clock import ControllableClock, SystemClock
from .dmn import DecisionEvaluationError, DecisionPolicyViolation
from .errors import (
    BpmnError,
    FlowledgerError,
    HistoryLevelMismatch,
    InvalidValue,
    JobFailure,
    MigrationPlanInvalid,
    MismatchingMessageCorrelation,
    ModelError,
    NotFound,
    ProcessEngineError,
    ProjectionBehind,
    Rejected,
    SchemaMismatch,
    TaskAlreadyClaimed,
)
from .instance_migration.instance_validation import MigratingInstanceInvalid
from .instance_migration.plan import MigrationInstruction, MigrationPlan
from .variables import TypedValue, typed

__all__ = [
    "BpmnError",
    "ControllableClock",
    "DecisionEvaluationError",
    "DecisionPolicyViolation",
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
    "ProcessEngineError",
    "ProjectionBehind",
    "Rejected",
    "SchemaMismatch",
    "SystemClock",
    "TaskAlreadyClaimed",
    "TypedValue",
    "typed",
]
