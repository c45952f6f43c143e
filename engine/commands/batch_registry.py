"""The batch operation types: per Camunda batch type, what one batch job does with its targets
and what the batch's creation writes to the user operation log. The plug-in point of batches.

Registering decides nothing; the batch handlers (handlers/batches.py) look a type up here when a
batch is created and each time one of its jobs runs. Built-in types: handlers/batch_operations.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flowledger.core import events as ev
from flowledger.core.errors import Rejected

if TYPE_CHECKING:
    from flowledger.engine.commands.unit_of_work import UnitOfWork

# (the job's command, its targets in order, the batch's parameters): act on the targets' streams
# through the unit of work, as a synchronous command would; raising fails the job (nothing of it
# is kept, its retries go down).
RunTargets = Callable[["UnitOfWork", list[str], Mapping[str, Any]], None]
# (targets, parameters) -> the entries logged when the batch is created
LogOperations = Callable[[list[str], Mapping[str, Any]], list[ev.LoggedOperation]]
# (the creating command, targets, parameters): refuse a batch that could never run (raise
# Rejected / NotFound), before it exists
CheckBatch = Callable[["UnitOfWork", list[str], Mapping[str, Any]], None]


@dataclass(frozen=True, slots=True)
class BatchOperation:
    """One batch type. `invocations_per_batch_job`: targets per job when not the engine's
    setting (Camunda lets some types override it)."""

    batch_type: str
    run: RunTargets
    logged: LogOperations
    check: CheckBatch | None = None
    invocations_per_batch_job: int | None = None
    # its jobs read the batch's variables: `run` finds them under VARIABLES in its parameters
    uses_variables: bool = False


# The parameter a job of an operation `uses_variables` finds the batch's variables under
# ({name: StoredValue}); never a key of the recorded parameters.
VARIABLES = "__variables__"

_OPERATIONS: dict[str, BatchOperation] = {}


def register(operation: BatchOperation) -> BatchOperation:
    """Make `operation.batch_type` a batch type; registering a type twice is a mistake."""
    if operation.batch_type in _OPERATIONS:
        raise ValueError(f"batch type {operation.batch_type!r} is registered already")
    _OPERATIONS[operation.batch_type] = operation
    return operation


def operation(batch_type: str) -> BatchOperation:
    """The operation of `batch_type`; an unknown type is refused (no batch is made of it)."""
    found = _OPERATIONS.get(batch_type)
    if found is None:
        raise Rejected(f"Batch type '{batch_type}' is not supported")
    return found


def registered_types() -> list[str]:
    return sorted(_OPERATIONS)


def logged_operation(
    operation_type: str,
    entity_type: str,
    count: int,
    *extra: tuple[str, Any],
    context: Mapping[str, str] | None = None,
) -> ev.LoggedOperation:
    """Camunda's entry of a batch operation: `nrOfInstances`, `async` true, then `extra`."""
    properties: list[tuple[str, Any]] = [("nrOfInstances", count), ("async", True), *extra]
    return ev.LoggedOperation(operation_type, entity_type, properties, dict(context or {}))
