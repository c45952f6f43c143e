"""The cockpit's definition page answered from indexes: ACT_IDX_HI_ACT_INST_STATS holds
DURATION_ (and leads with the definition and the activity), so a definition's history
statistics and activity durations (the heat map) read the index alone instead of every activity
instance of the definition from the table; and Camunda's ACT_IDX_HI_PI_PDEFID_END_TIME on
ACT_HI_PROCINST, so a definition's instances are counted and paged without reading the whole
table. On the list-pages benchmark's 100,000 instances (SQLite, a copy with these indexes): the
durations 274 → 30 ms, the statistics 100 → 33 ms (docs/benchmarks.md).

Indexes only: nothing is rebuilt when it is applied.

Revision ID: 0017_cockpit_indexes
Revises: 0016_comments
Create Date: 2026-12-07
"""

from __future__ import annotations

from flowledger.migrations.ddl import IndexSpec, create_indexes, drop_indexes

revision = "0017_cockpit_indexes"
down_revision = "0016_comments"
branch_labels = None
depends_on = None

_STATISTICS_BEFORE: IndexSpec = (
    "ACT_IDX_HI_ACT_INST_STATS",
    "ACT_HI_ACTINST",
    ("PROC_DEF_ID_", "PROC_INST_ID_", "ACT_ID_", "END_TIME_", "ACT_INST_STATE_"),
)
_STATISTICS: IndexSpec = (
    "ACT_IDX_HI_ACT_INST_STATS",
    "ACT_HI_ACTINST",
    ("PROC_DEF_ID_", "ACT_ID_", "END_TIME_", "ACT_INST_STATE_", "DURATION_"),
)
_DEFINITION_END: IndexSpec = (
    "ACT_IDX_HI_PI_PDEFID_END_TIME",
    "ACT_HI_PROCINST",
    ("PROC_DEF_ID_", "END_TIME_"),
)


def upgrade() -> None:
    drop_indexes((_STATISTICS_BEFORE,))
    create_indexes((_STATISTICS, _DEFINITION_END))


def downgrade() -> None:
    drop_indexes((_STATISTICS, _DEFINITION_END))
    create_indexes((_STATISTICS_BEFORE,))
