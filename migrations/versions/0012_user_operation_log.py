"""The user operation log: ACT_HI_OP_LOG, who did what through the API (history level full).

One row per property an operation changed, as Camunda 7.24 writes them, with its columns and
indexes. The rows are projected from the log's commits (command, actor and events), so a log
written before this revision fills the table for the past: this revision declares the history
projection invalid at level full, and `migrate` rebuilds it there. History cleanup's deletions
written before its commands said so (`cleanup`) read as a user's `DeleteHistory`.

Revision ID: 0012_user_operation_log
Revises: 0011_instance_event_count
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa

from flowledger.migrations.ddl import TIMESTAMP, column, create_index, create_table, drop_table

revision = "0012_user_operation_log"
down_revision = "0011_instance_event_count"
branch_labels = None
depends_on = None

# The projections whose tables this revision changes: rebuilt from the log once it is applied,
# only when history is written at level full (3): below it the table stays empty.
invalidates = ("history",)
invalidates_from_level = 3

# Frozen history, as revision 0002: every table spelled out here, never imported from
# `projections.tables`; identifiers unquoted; no foreign keys.

_v64 = sa.String(64)
_v255 = sa.String(255)
_v4000 = sa.String(4000)
_v30 = sa.String(30)


def upgrade() -> None:
    create_table(
        "ACT_HI_OP_LOG",
        column("ID_", _v64, primary_key=True),
        column("DEPLOYMENT_ID_", _v64),
        column("PROC_DEF_ID_", _v64),
        column("PROC_DEF_KEY_", _v255),
        column("ROOT_PROC_INST_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("EXECUTION_ID_", _v64),
        column("CASE_DEF_ID_", _v64),
        column("CASE_INST_ID_", _v64),
        column("CASE_EXECUTION_ID_", _v64),
        column("TASK_ID_", _v64),
        column("JOB_ID_", _v64),
        column("JOB_DEF_ID_", _v64),
        column("BATCH_ID_", _v64),
        column("USER_ID_", _v255),
        column("TIMESTAMP_", TIMESTAMP, nullable=False),
        column("OPERATION_TYPE_", _v64),
        column("OPERATION_ID_", _v64),
        column("ENTITY_TYPE_", _v30),
        column("PROPERTY_", _v64),
        column("ORG_VALUE_", _v4000),
        column("NEW_VALUE_", _v4000),
        column("TENANT_ID_", _v64),
        column("REMOVAL_TIME_", TIMESTAMP),
        column("CATEGORY_", _v64),
        column("EXTERNAL_TASK_ID_", _v64),
        column("ANNOTATION_", _v4000),
    )
    for index, indexed in _INDEXES:
        create_index(index, "ACT_HI_OP_LOG", indexed)


_INDEXES = (
    ("ACT_IDX_HI_OP_LOG_ROOT_PI", "ROOT_PROC_INST_ID_"),
    ("ACT_IDX_HI_OP_LOG_PROCINST", "PROC_INST_ID_"),
    ("ACT_IDX_HI_OP_LOG_PROCDEF", "PROC_DEF_ID_"),
    ("ACT_IDX_HI_OP_LOG_TASK", "TASK_ID_"),
    ("ACT_IDX_HI_OP_LOG_RM_TIME", "REMOVAL_TIME_"),
    ("ACT_IDX_HI_OP_LOG_TIMESTAMP", "TIMESTAMP_"),
    ("ACT_IDX_HI_OP_LOG_USER_ID", "USER_ID_"),
    ("ACT_IDX_HI_OP_LOG_OP_TYPE", "OPERATION_TYPE_"),
    ("ACT_IDX_HI_OP_LOG_ENTITY_TYPE", "ENTITY_TYPE_"),
)


def downgrade() -> None:
    drop_table("ACT_HI_OP_LOG")
