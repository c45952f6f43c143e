"""Engine properties kept in ACT_GE_PROPERTY: the history level the history tables are built at.

Not a projection of the log, so a rebuild keeps it. Camunda stores the level the same way (row
`historyLevel`, the level's number) and refuses to boot with another one configured.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from flowledger.eventlog.fastsql import PreparedCache

from .history import HISTORY_LEVELS
from .tables import ACT_GE_PROPERTY

HISTORY_LEVEL = "historyLevel"
_NAMES = {number: name for name, number in HISTORY_LEVELS.items()}
_name = ACT_GE_PROPERTY.c.NAME_
_value = ACT_GE_PROPERTY.c.VALUE_


# Compiled once: the followers ask with every batch (another engine may have changed the level).
_prepared = PreparedCache()


def _level_query() -> Select[Any]:
    return select(_value).where(_name == HISTORY_LEVEL)


def stored_history_level(conn: Connection) -> str | None:
    """The level the history tables hold ('none' .. 'full'); None before any engine set it."""
    row = _prepared.get(conn.dialect, "history-level", _level_query).first(conn, {})
    value = None if row is None else row["VALUE_"]
    if value is None:
        return None
    try:
        return _NAMES[int(value)]
    except (KeyError, ValueError):
        raise ValueError(
            f"ACT_GE_PROPERTY holds historyLevel {value!r}, which is no history level (0..3)"
        ) from None


def claim_history_level(conn: Connection, level: str) -> str:
    """Record `level` unless a level is recorded already; returns the recorded one (an engine
    opening the database at the same moment may have won)."""
    found = stored_history_level(conn)
    if found is not None:
        return found
    try:
        with conn.begin_nested():
            conn.execute(
                insert(ACT_GE_PROPERTY).values(
                    NAME_=HISTORY_LEVEL, VALUE_=str(HISTORY_LEVELS[level]), REV_=1
                )
            )
    except IntegrityError:
        pass  # another engine recorded one first: that one holds
    found = stored_history_level(conn)
    assert found is not None
    return found


def save_history_level(conn: Connection, level: str) -> None:
    """Record `level` as the one the history tables hold now (with their rebuild)."""
    number = str(HISTORY_LEVELS[level])
    changed = conn.execute(
        update(ACT_GE_PROPERTY)
        .where(_name == HISTORY_LEVEL)
        .values(VALUE_=number, REV_=ACT_GE_PROPERTY.c.REV_ + 1)
    ).rowcount
    if not changed:
        conn.execute(insert(ACT_GE_PROPERTY).values(NAME_=HISTORY_LEVEL, VALUE_=number, REV_=1))
