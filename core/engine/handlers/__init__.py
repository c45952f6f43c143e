"""The one table from command type to its handler, gathered from the handler modules by area.

Adding a command: its Struct in core/commands.py, its handler in the module of its area, listed
in that module's HANDLERS; a test checks that every command has exactly one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from flowledger.core.commands import Command

from ..bus import Handler
from ..unit_of_work import UnitOfWork
from . import (
    deployments,
    external_tasks,
    instances,
    jobs,
    messages,
    signals,
    tasks,
    variables,
)


def by_command(handlers: Iterable[Handler[Any, Any]]) -> Mapping[type[Command], Handler[Any, Any]]:
    """The handlers keyed by their command type; a command listed twice is a mistake. Each
    decides, then broadcasts the signals its decision threw (`signals.deliver_signals`)."""
    table: dict[type[Command], Handler[Any, Any]] = {}
    for handler in handlers:
        if handler.command in table:
            raise ValueError(f"{handler.command.__name__} has more than one handler")
        table[handler.command] = replace(handler, handle=_then_signals(handler.handle))
    return MappingProxyType(table)


def _then_signals(handle: Callable[[UnitOfWork, Any], Any]) -> Callable[[UnitOfWork, Any], Any]:
    def decide(unit: UnitOfWork, command: Any) -> Any:
        result = handle(unit, command)
        signals.deliver_signals(unit)
        return result

    return decide


HANDLERS = by_command(
    (
        *deployments.HANDLERS,
        *instances.HANDLERS,
        *variables.HANDLERS,
        *tasks.HANDLERS,
        *external_tasks.HANDLERS,
        *jobs.HANDLERS,
        *messages.HANDLERS,
        *signals.HANDLERS,
    )
)
