"""How many events each finished instance produced: ACT_HI_PROCINST.EVENT_COUNT_ (flowledger's).

Its instance stream's events up to and including the one that ended it; NULL while it runs.
Filled for every past instance by rebuilding history from the log: this revision declares the
projection it invalidates, and the engine that applies it rebuilds exactly that (`migrate`).

Revision ID: 0011_instance_event_count
Revises: 0010_log_imports
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from flowledger.migrations.ddl import column, unquoted

revision = "0011_instance_event_count"
down_revision = "0010_log_imports"
branch_labels = None
depends_on = None

# The projections whose tables this revision changes: rebuilt from the log once it is applied.
invalidates = ("history",)


def upgrade() -> None:
    op.add_column(unquoted("ACT_HI_PROCINST"), column("EVENT_COUNT_", sa.BigInteger))


def downgrade() -> None:
    op.drop_column(unquoted("ACT_HI_PROCINST"), unquoted("EVENT_COUNT_"))
