"""Projection checkpoints say why a projection stopped.

A history follower that cannot project a commit stops at it and records which commit and why
(`detail`), so that the server's health endpoint, `flowledger` and every other process on the
database see it, not only the log of the process that failed. Additive: old rows read as NULL.

Revision ID: 0004_checkpoint_detail
Revises: 0003_lean_indexes
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_checkpoint_detail"
down_revision = "0003_lean_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("projection_checkpoint") as batch:
        batch.add_column(sa.Column("detail", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("projection_checkpoint") as batch:
        batch.drop_column("detail")
