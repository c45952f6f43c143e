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

import sqlalchemy as sa
from alembic import op

from flowledger.migrations.ddl import column, create_table, drop_table

revision = "0005_history_level"
down_revision = "0004_checkpoint_detail"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = create_table(
        "ACT_GE_PROPERTY",
        column("NAME_", sa.String(64), primary_key=True),
        column("VALUE_", sa.String(300)),
        column("REV_", sa.Integer),
    )
    conn = op.get_bind()
    written = conn.execute(sa.text("SELECT 1 FROM event_log LIMIT 1")).first()
    if written is not None:
        op.bulk_insert(table, [{"NAME_": "historyLevel", "VALUE_": "3", "REV_": 1}])


def downgrade() -> None:
    drop_table("ACT_GE_PROPERTY")
