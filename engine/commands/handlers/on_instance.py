"""The handler of a command on one existing instance: find the instance that owns what the command
names, then let the domain's `decide_on` read the command. It decides nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError

from flowledger.core.commands import Command
from flowledger.core.decide import decide_on
from flowledger.core.errors import NotFound
from flowledger.core.session import InstanceSession
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers.effects import settle
from flowledger.engine.commands.unit_of_work import UnitOfWork
from flowledger.eventlog import ConcurrencyError

C = TypeVar("C", bound=Command)


def decided_on(
    command: type[C],
    owner: Callable[[UnitOfWork, C], InstanceSession],
    failed: Callable[[InstanceSession, C, Exception], Exception] | None = None,
    elsewhere: Callable[[UnitOfWork, C], bool] | None = None,
) -> Handler[C, None]:
    """The handler of `command`: the session `owner` finds for it, decided on by the domain.

    `failed` turns an exception of the decision into the error the command fails with (a job's
    work raised: the engine records the failure on the job), or returns it to let it stand.
    `elsewhere` handles the command when no instance owns what it names (a job of a definition,
    not of an instance): True when it did, False to let NotFound stand."""

    def handle(unit: UnitOfWork, cmd: C) -> None:
        try:
            session = owner(unit, cmd)
        except NotFound:
            if elsewhere is not None and elsewhere(unit, cmd):
                return
            raise
        if failed is None:
            decide_on(session, cmd)
            return
        try:
            decide_on(session, cmd)
            # What the work asked of other instances is part of it: a failure there (a called
            # process not deployed) fails the work as well.
            settle(unit)
        except (DBAPIError, ConcurrencyError):
            raise
        except Exception as exc:
            error = failed(session, cmd, exc)
            if error is exc:
                raise
            raise error from exc

    return Handler(command, handle)
