"""The channel a command came through: `via` on the event log and the command log.

`actor` says who issued a command (the authenticated REST user, the operating-system user of the
CLI, an external worker); `via` says through what: `rest`, `cli`, `python` (the library called
directly), `job-executor`. Commits written before this revision have none, and their hashes do
not cover it: a commit's hash covers `via` only when it is set, so older chains still verify.

Revision ID: 0009_command_channel
Revises: 0008_event_subscriptions
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_command_channel"
down_revision = "0008_event_subscriptions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("event_log", sa.Column("via", sa.String(32)))
    op.add_column("command_log", sa.Column("via", sa.String(32)))


def downgrade() -> None:
    op.drop_column("command_log", "via")
    op.drop_column("event_log", "via")
