"""Batches (issue 37): ACT_RU_BATCH and ACT_HI_BATCH as Camunda 7.24's DDL has them, and
Camunda's index of ACT_RU_JOB by job definition (a batch's jobs are counted by it).

New tables only: a log written before has no batch events, so nothing is rebuilt.

Revision ID: 0020_batches
Revises: 0019_personal_data
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa

from flowledger.migrations.ddl import (
    TIMESTAMP,
    column,
    create_index,
    create_table,
    drop_index,
    drop_table,
)

revision = "0020_batches"
down_revision = "0019_personal_data"
branch_labels = None
depends_on = None

# Frozen history, as revision 0002: every table spelled out here, never imported from
# `projections.tables`; identifiers unquoted; no foreign keys.

_v64 = sa.String(64)
_v255 = sa.String(255)
_int = sa.Integer()

_RUNTIME_INDEXES = (
    ("ACT_IDX_BATCH_SEED_JOB_DEF", "SEED_JOB_DEF_ID_"),
    ("ACT_IDX_BATCH_MONITOR_JOB_DEF", "MONITOR_JOB_DEF_ID_"),
    ("ACT_IDX_BATCH_JOB_DEF", "BATCH_JOB_DEF_ID_"),
)


def upgrade() -> None:
    create_table(
        "ACT_RU_BATCH",
        column("ID_", _v64, primary_key=True),
        column("REV_", _int, nullable=False),
        column("TYPE_", _v255),
        column("TOTAL_JOBS_", _int),
        column("JOBS_CREATED_", _int),
        column("JOBS_PER_SEED_", _int),
        column("INVOCATIONS_PER_JOB_", _int),
        column("SEED_JOB_DEF_ID_", _v64),
        column("BATCH_JOB_DEF_ID_", _v64),
        column("MONITOR_JOB_DEF_ID_", _v64),
        column("SUSPENSION_STATE_", _int),
        column("CONFIGURATION_", _v255),
        column("TENANT_ID_", _v64),
        column("CREATE_USER_ID_", _v255),
        column("START_TIME_", TIMESTAMP),
        column("EXEC_START_TIME_", TIMESTAMP),
    )
    for index, indexed in _RUNTIME_INDEXES:
        create_index(index, "ACT_RU_BATCH", indexed)
    create_table(
        "ACT_HI_BATCH",
        column("ID_", _v64, primary_key=True),
        column("TYPE_", _v255),
        column("TOTAL_JOBS_", _int),
        column("JOBS_PER_SEED_", _int),
        column("INVOCATIONS_PER_JOB_", _int),
        column("SEED_JOB_DEF_ID_", _v64),
        column("MONITOR_JOB_DEF_ID_", _v64),
        column("BATCH_JOB_DEF_ID_", _v64),
        column("TENANT_ID_", _v64),
        column("CREATE_USER_ID_", _v255),
        column("START_TIME_", TIMESTAMP, nullable=False),
        column("END_TIME_", TIMESTAMP),
        column("REMOVAL_TIME_", TIMESTAMP),
        column("EXEC_START_TIME_", TIMESTAMP),
    )
    create_index("ACT_HI_BAT_RM_TIME", "ACT_HI_BATCH", "REMOVAL_TIME_")
    create_index("ACT_IDX_JOB_JOB_DEF_ID", "ACT_RU_JOB", "JOB_DEF_ID_")


def downgrade() -> None:
    drop_index("ACT_IDX_JOB_JOB_DEF_ID", "ACT_RU_JOB")
    drop_table("ACT_HI_BATCH")
    drop_table("ACT_RU_BATCH")
