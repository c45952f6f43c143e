"""The command bus's one table: every command has exactly one handler, and nothing else has one."""

from __future__ import annotations

import pytest

from flowledger.core import commands as cmd
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers import HANDLERS, by_command, deployments


def _commands() -> set[type[cmd.Command]]:
    """Every command type core/commands.py declares (subclasses of Command, at any depth)."""
    found: set[type[cmd.Command]] = set()
    todo: list[type[cmd.Command]] = [cmd.Command]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__ == cmd.__name__:
                found.add(sub)
    return found


def test_every_command_has_exactly_one_handler() -> None:
    commands = _commands()
    assert len(commands) >= 20  # the walk found the vocabulary, not an empty set
    missing = sorted(c.__name__ for c in commands - set(HANDLERS))
    assert missing == [], f"commands without a handler: {missing}"
    for command, handler in HANDLERS.items():
        assert isinstance(handler, Handler)
        assert handler.command is command, f"{command.__name__} is handled as another command"


def test_the_table_holds_no_handler_for_a_non_command() -> None:
    strays = [
        key.__name__
        for key in HANDLERS
        if not (isinstance(key, type) and issubclass(key, cmd.Command)) or key is cmd.Command
    ]
    assert strays == []
    assert set(HANDLERS) <= _commands()


def test_a_command_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="Deploy has more than one handler"):
        by_command([*deployments.HANDLERS, deployments.HANDLERS[0]])
