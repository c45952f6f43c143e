"""The history level lives in the database, as Camunda keeps it: ACT_GE_PROPERTY `historyLevel`.

History tables are a projection of the log at one level; an engine opened at another level
would write the future at that level and leave the past at the old one. So the level the
tables hold is recorded here, and an engine that asks for another one is refused until
`flowledger history-level LEVEL` rebuilds them (Camunda refuses a mismatch at boot the same way).

A database that already holds events was written at the then default, `full` (3); one that ran
at another level is set to it with `flowledger history-level`. An empty database gets its row
when the first engine opens it (the default then is Camunda's, `audit`).

Revision ID: 0005_history_level
Revises: 0004_checkpoint_detail
Create Date: 2026-12-03
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.sql.elements import quoted_name

revision = "0005_history_level"
down_revision = "0004_checkpoint_detail"
branch_labels = None
depends_on = None

_MYSQL: dict[str, Any] = {
    f"{dialect}_{option}": value
    for dialect in ("mysql", "mariadb")
    for option, value in (("engine", "InnoDB"), ("charset", "utf8mb4"), ("collate", "utf8mb4_bin"))
}


def _name(text: str) -> quoted_name:
    return quoted_name(text, False)


def upgrade() -> None:
    table = op.create_table(
        _name("ACT_GE_PROPERTY"),
        sa.Column(_name("NAME_"), sa.String(64), primary_key=True),
        sa.Column(_name("VALUE_"), sa.String(300)),
        sa.Column(_name("REV_"), sa.Integer),
        quote=False,
        **_MYSQL,
    )
    conn = op.get_bind()
    written = conn.execute(sa.text("SELECT 1 FROM event_log LIMIT 1")).first()
    if written is not None:
        op.bulk_insert(table, [{"NAME_": "historyLevel", "VALUE_": "3", "REV_": 1}])


def downgrade() -> None:
    op.drop_table(_name("ACT_GE_PROPERTY"))
