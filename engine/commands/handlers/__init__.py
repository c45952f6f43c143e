"""The one table from command type to its handler, gathered from the handler modules by area.

Adding a command: its Struct in core/commands.py, its handler in the module of its area, listed
in that module's HANDLERS; a test checks that every command has exactly one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from flowledger.core.commands import Command
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers import (
    batch_operations,
    batches,
    comments,
    conditions,
    decisions,
    deployments,
    effects,
    external_tasks,
    instances,
    jobs,
    messages,
    migration,
    modification,
    personal_data,
    removal_time,
    restart,
    signals,
    signing_keys,
    suspension,
    tasks,
    variables,
)


def by_command(handlers: Iterable[Handler[Any, Any]]) -> Mapping[type[Command], Handler[Any, Any]]:
    """The handlers keyed by their command type; a command listed twice is a mistake."""
    table: dict[type[Command], Handler[Any, Any]] = {}
    for handler in handlers:
        if handler.command in table:
            raise ValueError(f"{handler.command.__name__} has more than one handler")
        table[handler.command] = handler
    return MappingProxyType(table)


# What follows every handler's decision, in the same unit of work: what it asked of other
# instances (signals to broadcast, called instances to start, end or cancel).
AFTER_DECISION = effects.settle


HANDLERS = by_command(
    (
        *deployments.HANDLERS,
        *decisions.HANDLERS,
        *instances.HANDLERS,
        *variables.HANDLERS,
        *tasks.HANDLERS,
        *comments.HANDLERS,
        *external_tasks.HANDLERS,
        *jobs.HANDLERS,
        *messages.HANDLERS,
        *signals.HANDLERS,
        *suspension.HANDLERS,
        *personal_data.HANDLERS,
        *signing_keys.HANDLERS,
        *conditions.HANDLERS,
        *modification.HANDLERS,
        *restart.HANDLERS,
        *migration.HANDLERS,
        *batches.HANDLERS,
    )
)

# The built-in batch types (they register themselves when their module is imported).
BATCH_TYPES = (*batch_operations.REGISTERED, *removal_time.REGISTERED)
