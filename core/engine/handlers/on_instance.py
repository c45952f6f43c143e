"""The handler of a command on one existing instance: find the instance that owns what the command
names, then let the domain's `decide_on` read the command. It decides nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flowledger.core.commands import Command
from flowledger.core.decide import decide_on
from flowledger.core.session import InstanceSession

from ..bus import Handler
from ..unit_of_work import UnitOfWork

C = TypeVar("C", bound=Command)


def decided_on(
    command: type[C], owner: Callable[[UnitOfWork, C], InstanceSession]
) -> Handler[C, None]:
    """The handler of `command`: the session `owner` finds for it, decided on by the domain."""

    def handle(unit: UnitOfWork, cmd: C) -> None:
        decide_on(owner(unit, cmd), cmd)

    return Handler(command, handle)
