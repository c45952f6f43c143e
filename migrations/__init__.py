"""Alembic environment and revisions: the only way any flowledger table is created or changed.

`upgrade(engine)` brings an empty or older database to the newest revision; it never drops data.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

_HERE = Path(__file__).resolve().parent


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic configuration pointing at this package, optionally bound to a connection."""
    cfg = Config()
    cfg.set_main_option("script_location", str(_HERE))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


class UnknownSchema(RuntimeError):
    """The database was migrated by a flowledger this one does not know (a newer one)."""


def upgrade(engine: Engine, revision: str = "head") -> set[str]:
    """Upgrade the database behind `engine` to `revision` (default: the newest); the projections
    (`runtime`, `history`) the revisions applied invalidate, to be rebuilt from the log. A new
    database invalidates nothing: its log is empty."""
    with engine.begin() as connection:
        current = current_revision(connection)
        if current == head_revision() and revision == "head":
            return set()
        scripts = ScriptDirectory.from_config(alembic_config())
        known = {r.revision for r in scripts.walk_revisions()}
        if current is not None and current not in known:
            raise UnknownSchema(
                f"the database is at schema revision {current!r}, which this version of "
                f"flowledger does not know (it knows up to {head_revision()!r}); it was written "
                "by another version: use that version, or a new database"
            )
        command.upgrade(alembic_config(connection), revision)
        if current is None:
            return set()
        target = head_revision() if revision == "head" else revision
        applied = scripts.iterate_revisions(target, current)
        level = _history_level(connection)
        invalidated = {
            p
            for script in applied
            # A revision may change only rows written from some history level on: below it
            # there is nothing to rebuild (and a rebuild of a large history would be for nothing).
            if level >= getattr(script.module, "invalidates_from_level", 0)
            for p in getattr(script.module, "invalidates", ())
        }
        if invalidated:
            _owe_rebuild(connection, invalidated)
        return invalidated


def _history_level(connection: Connection) -> int:
    """The history level the database records (ACT_GE_PROPERTY, Camunda's number); the highest
    when it records none, so that nothing owed is left out."""
    row = connection.execute(
        text("SELECT VALUE_ FROM ACT_GE_PROPERTY WHERE NAME_ = 'historyLevel'")
    ).first()
    try:
        return int(row[0]) if row is not None else 3
    except ValueError:
        return 3


def _owe_rebuild(connection: Connection, invalidated: set[str]) -> None:
    """Record, with the revisions (in their transaction where DDL is transactional), that the
    projections must be rebuilt: a start interrupted before the rebuild still owes it."""
    projection = next(iter(invalidated)) if len(invalidated) == 1 else "all"
    plan = json.dumps({"projection": projection, "history_level": "", "reason": "migration"})
    connection.execute(text("DELETE FROM projection_checkpoint WHERE name = 'rebuild'"))
    connection.execute(
        text(
            "INSERT INTO projection_checkpoint (name, position, schema_version, status, "
            "updated_at, detail) VALUES ('rebuild', 0, 0, 'owed', :now, :plan)"
        ),
        {"now": datetime.now(UTC).replace(tzinfo=None), "plan": plan},
    )
