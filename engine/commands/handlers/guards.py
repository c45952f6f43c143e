"""Checks a command makes once the log head orders it after every earlier commit: what it decided
on is still so, else it lost a race and runs again.
"""

from __future__ import annotations

from sqlalchemy.engine import Connection

from flowledger.engine import lookups
from flowledger.eventlog import ConcurrencyError


def still_deployed(definition_id: str, conn: Connection) -> None:
    """Guard of a start: its definition was not deleted while the start was decided."""
    if lookups.process_definition(conn, definition_id) is None:
        raise ConcurrencyError(definition_id, 0)
