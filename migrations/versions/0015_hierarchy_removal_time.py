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

from flowledger.migrations.ddl import create_index, drop_index

revision = "0015_hierarchy_removal_time"
down_revision = "0014_stream_heads"
branch_labels = None
depends_on = None

_INDEX = "ACT_IDX_HI_PRO_INST_ROOT_PI"
_TABLE = "ACT_HI_PROCINST"


def upgrade() -> None:
    create_index(_INDEX, _TABLE, "ROOT_PROC_INST_ID_")


def downgrade() -> None:
    drop_index(_INDEX, _TABLE)
