"""Stream witnesses: `stream_head`, one row per stream with its last commit's version and hash.

Every commit writes its stream's row in the same transaction, so a stream whose commits no longer
end at its witness was changed behind the engine's back (its last commit deleted, a commit
inserted after it); loading the stream for a command notices it without walking the whole chain.
Filled here from the log as it stands: each stream's last commit. Nothing is rebuilt.

Revision ID: 0014_stream_heads
Revises: 0013_decisions
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_stream_heads"
down_revision = "0013_decisions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "stream_head",
        sa.Column("stream_id", sa.String(64), primary_key=True),
        sa.Column("last_version", sa.Integer, nullable=False),
        sa.Column("last_hash", sa.String(64), nullable=False),
    )
    # UNIQUE(stream_id, first_version) makes the commit with a stream's highest first version its
    # last one; that index answers the inner query.
    op.execute(
        """
        INSERT INTO stream_head (stream_id, last_version, last_hash)
        SELECT e.stream_id, e.last_version, e.hash
        FROM event_log e
        JOIN (
            SELECT stream_id, MAX(first_version) AS first_version
            FROM event_log GROUP BY stream_id
        ) last_commit
          ON last_commit.stream_id = e.stream_id
         AND last_commit.first_version = e.first_version
        """
    )


def downgrade() -> None:
    op.drop_table("stream_head")
