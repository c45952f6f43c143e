"""Comments on tasks: ACT_HI_COMMENT, with Camunda 7.24's columns and its indexes by task and by
process instance (the comment list of a task, and an instance's history deleted whole); and
Camunda's ACT_IDX_HI_ACT_INST_STATS back on ACT_HI_ACTINST (revision 0003 dropped it until a
feature queried it): the historic activity statistics of a definition, the cockpit's heat map,
count its activity instances from that index instead of reading the whole table.

A comment is an event of its task's instance stream (TaskCommentAdded), projected here at every
history level but none, as Camunda's CommentManager writes it. A log written before this
revision holds no comment: nothing is rebuilt when it is applied.

Revision ID: 0016_comments
Revises: 0015_hierarchy_removal_time
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa

from flowledger.migrations.ddl import (
    BLOB,
    TIMESTAMP,
    IndexSpec,
    column,
    create_index,
    create_indexes,
    create_table,
    drop_indexes,
    drop_table,
)

revision = "0016_comments"
down_revision = "0015_hierarchy_removal_time"
branch_labels = None
depends_on = None

# Frozen history, as revision 0002: the table spelled out here, never imported from
# `projections.tables`; identifiers unquoted; no foreign keys.

_v64 = sa.String(64)
_v255 = sa.String(255)
_v4000 = sa.String(4000)

_INDEXES = (
    ("ACT_IDX_HI_COMMENT_TASK", "TASK_ID_"),
    ("ACT_IDX_HI_COMMENT_PROCINST", "PROC_INST_ID_"),
)
_STATISTICS: IndexSpec = (
    "ACT_IDX_HI_ACT_INST_STATS",
    "ACT_HI_ACTINST",
    ("PROC_DEF_ID_", "PROC_INST_ID_", "ACT_ID_", "END_TIME_", "ACT_INST_STATE_"),
)


def upgrade() -> None:
    create_table(
        "ACT_HI_COMMENT",
        column("ID_", _v64, primary_key=True),
        column("TYPE_", _v255),
        column("TIME_", TIMESTAMP, nullable=False),
        column("USER_ID_", _v255),
        column("TASK_ID_", _v64),
        column("ROOT_PROC_INST_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("ACTION_", _v255),
        column("MESSAGE_", _v4000),
        column("FULL_MSG_", BLOB),
        column("TENANT_ID_", _v64),
        column("REMOVAL_TIME_", TIMESTAMP),
        column("REV_", sa.Integer, nullable=False, server_default=sa.text("1")),
    )
    for index, indexed in _INDEXES:
        create_index(index, "ACT_HI_COMMENT", indexed)
    create_indexes((_STATISTICS,))


def downgrade() -> None:
    drop_indexes((_STATISTICS,))
    drop_table("ACT_HI_COMMENT")
