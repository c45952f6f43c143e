"""Imported audit packages: `log_import`, one row per package loaded into this database.

A package carries some streams of another log at their original positions (positions are part
of every commit's hash), so the positions it leaves out are gaps here. Each row records the gaps
its import left, and verify accepts exactly those: a commit removed later still shows as a gap.

Revision ID: 0010_log_imports
Revises: 0009_command_channel
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from flowledger.migrations.ddl import LONG_TEXT, TIMESTAMP

revision = "0010_log_imports"
down_revision = "0009_command_channel"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "log_import",
        sa.Column("package_digest", sa.String(64), primary_key=True),
        sa.Column("subject", sa.String(64), nullable=False),
        sa.Column("source_engine_version", sa.String(64), nullable=False),
        sa.Column("first_position", sa.BigInteger, nullable=False),
        sa.Column("last_position", sa.BigInteger, nullable=False),
        sa.Column("gaps", LONG_TEXT, nullable=False),
        sa.Column("imported_at", TIMESTAMP, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("log_import")
