"""A command on one existing instance is handled through the domain's table: the engine's handler
finds the instance and calls `decide_on`, with no translation of the command of its own.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core.decide import INSTANCE_DECISIONS
from flowledger.engine.commands.handlers import HANDLERS
from flowledger.engine.commands.handlers.on_instance import decided_on


def test_the_handlers_through_decide_on_are_those_of_the_domain_table() -> None:
    through_table = decided_on(cmd.UnclaimTask, lambda unit, command: None).handle.__qualname__
    handled_so = {c.__name__ for c, h in HANDLERS.items() if h.handle.__qualname__ == through_table}
    assert len(INSTANCE_DECISIONS) >= 15  # the table was found filled, not empty
    assert handled_so == {c.__name__ for c in INSTANCE_DECISIONS}
