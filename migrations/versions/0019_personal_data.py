"""Keys of personal data: `subject_key`, one AES-256-GCM key per data subject and instance stream,
which the personal values of the log are sealed with; erasure destroys the key (issue 34).

A new table only: values written before are not sealed by it (docs/design.md, "Erasure").

Revision ID: 0019_personal_data
Revises: 0018_merkle_tree
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from flowledger.migrations.ddl import BLOB, TIMESTAMP

revision = "0019_personal_data"
down_revision = "0018_merkle_tree"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "subject_key",
        sa.Column("key_id", sa.String(64), primary_key=True),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("stream_id", sa.String(64), nullable=False),
        sa.Column("key_material", BLOB),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("erased_at", TIMESTAMP),
        sa.Column("erased_by", sa.String(255)),
        sa.Column("reason", sa.Text),
    )
    op.create_index("ix_subject_key_subject", "subject_key", ["subject"])
    op.create_index("ix_subject_key_stream", "subject_key", ["stream_id", "subject"])


def downgrade() -> None:
    op.drop_table("subject_key")
