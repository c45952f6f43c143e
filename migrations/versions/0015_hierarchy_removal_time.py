"""ACT_HI_PROCINST by ROOT_PROC_INST_ID_: a root instance's end finds the instances it called.

With Camunda's removal-time strategy `end`, a root instance's end stamps its removal time on every
history row of its hierarchy (the instances it called, transitively), so that history cleanup
removes the hierarchy whole. The stamp finds the hierarchy's instances through this index (the
one of Camunda's that revision 0003 dropped), then each instance's rows through the indexes by
instance id their deletion already uses: one index more, on a table written once at an
instance's start and once at its end, rather than Camunda's ROOT_PROC_INST_ID_ index on every
history table.

Revision ID: 0015_hierarchy_removal_time
Revises: 0014_stream_heads
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op
from sqlalchemy.sql.elements import quoted_name

revision = "0015_hierarchy_removal_time"
down_revision = "0014_stream_heads"
branch_labels = None
depends_on = None

_INDEX = quoted_name("ACT_IDX_HI_PRO_INST_ROOT_PI", False)
_TABLE = quoted_name("ACT_HI_PROCINST", False)


def upgrade() -> None:
    op.create_index(_INDEX, _TABLE, [quoted_name("ROOT_PROC_INST_ID_", False)])


def downgrade() -> None:
    op.drop_index(_INDEX, table_name=_TABLE)
