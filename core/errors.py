"""Typed errors of the engine, each with a message a user can act on.

The REST layer maps these to Camunda's error shapes in one table; nothing here knows about HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the report's module imports this one: no dependency at run time
    from .instance_migration.plan_validation import MigrationPlanReport

__all__ = [
    "BpmnError",
    "FlowledgerError",
    "HistoryLevelMismatch",
    "InvalidValue",
    "JobFailure",
    "MigrationPlanInvalid",
    "MismatchingMessageCorrelation",
    "ModelError",
    "ModelProblem",
    "NotFound",
    "ProcessEngineError",
    "Rejected",
    "SchemaMismatch",
    "TaskAlreadyClaimed",
]


class FlowledgerError(Exception):
    """Base of every error the engine raises on purpose."""


@dataclass(frozen=True, slots=True)
class ModelProblem:
    """One thing wrong with a BPMN resource, located as precisely as the parser can."""

    message: str
    resource: str | None = None
    element_id: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = []
        if self.resource:
            where.append(f"resource '{self.resource}'")
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.element_id:
            where.append(f"element '{self.element_id}'")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class ModelError(FlowledgerError):
    """A deployment was refused because a resource is not a model this engine can run."""

    def __init__(self, problems: list[ModelProblem]) -> None:
        self.problems = problems
        lines = "; ".join(str(p) for p in problems)
        super().__init__(f"Deployment refused: {lines}")


class NotFound(FlowledgerError):
    """The command or query names an entity that does not exist (or no longer exists)."""

    def __init__(self, kind: str, entity_id: str, detail: str = "") -> None:
        self.kind = kind
        self.entity_id = entity_id
        super().__init__(f"{kind} '{entity_id}' not found" + (f": {detail}" if detail else ""))


class Rejected(FlowledgerError):
    """The command is not allowed in the current state; nothing was written but its audit row."""


class InvalidValue(Rejected):
    """An input the engine cannot hold: a value of the wrong type, too long, nested too deep,
    or with a NUL character. `field` and `limit` name what was exceeded, when it is a limit."""

    def __init__(self, message: str, field: str | None = None, limit: int | None = None) -> None:
        self.field = field
        self.limit = limit
        super().__init__(message)


class TaskAlreadyClaimed(Rejected):
    def __init__(self, task_id: str, assignee: str) -> None:
        self.task_id = task_id
        self.assignee = assignee
        super().__init__(f"Task '{task_id}' is already claimed by someone else ('{assignee}')")


class ProcessEngineError(FlowledgerError):
    """Executing the model failed (no flow to take, an expression or delegate failed, ...)."""


class ProjectionBehind(FlowledgerError):
    """A read found the deferred projections behind the log and could not bring them up to it
    within its bound: answering would show data older than a write already acknowledged."""


class SchemaMismatch(FlowledgerError):
    """The database's tables were made by a flowledger version this one cannot work with."""


class HistoryLevelMismatch(SchemaMismatch):
    """The engine asks for another history level than the database's history tables hold."""


class BpmnError(Exception):
    """Raised by a delegate to throw a BPMN error, caught by a matching error boundary event."""

    def __init__(self, error_code: str, message: str | None = None) -> None:
        self.error_code = error_code
        self.error_message = message
        super().__init__(message or error_code)


class JobFailure(FlowledgerError):
    """Running a job raised: nothing it did was kept. The engine records the failure on the job
    (its retries go down) with what this carries; the caller of `execute_job` gets this error."""

    def __init__(
        self, job_id: str, message: str, stacktrace: str, failed_activity_id: str | None
    ) -> None:
        self.job_id = job_id
        self.message = message
        self.stacktrace = stacktrace
        self.failed_activity_id = failed_activity_id
        super().__init__(f"Job '{job_id}' failed: {message}")


class MismatchingMessageCorrelation(Rejected):
    """A message matched no waiting subscription, or more than one where one was asked for
    (Camunda's MismatchingMessageCorrelationException)."""


class MigrationPlanInvalid(Rejected):
    """A migration plan failed Camunda's validation against its source and target definitions
    (Camunda's MigrationPlanValidationException): `report` holds every failing instruction and
    variable with its failures; the message is Camunda's text of the same."""

    def __init__(self, message: str, report: MigrationPlanReport) -> None:
        self.report = report
        super().__init__(message)
