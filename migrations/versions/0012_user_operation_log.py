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

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.sql.elements import quoted_name

revision = "0012_user_operation_log"
down_revision = "0011_instance_event_count"
branch_labels = None
depends_on = None

# The projections whose tables this revision changes: rebuilt from the log once it is applied,
# only when history is written at level full (3): below it the table stays empty.
invalidates = ("history",)
invalidates_from_level = 3

# Frozen history, as revision 0002: every definition spelled out here, never imported from
# `projections.tables`; identifiers unquoted; no foreign keys.

_timestamp = sa.DateTime().with_variant(mysql.DATETIME(fsp=3), "mysql", "mariadb")
_bool = sa.Boolean(create_constraint=False)
_v64 = sa.String(64)
_v255 = sa.String(255)
_v4000 = sa.String(4000)
_v30 = sa.String(30)

_TABLE_OPTIONS: dict[str, Any] = {
    f"{dialect}_{option}": value
    for dialect in ("mysql", "mariadb")
    for option, value in (("engine", "InnoDB"), ("charset", "utf8mb4"), ("collate", "utf8mb4_bin"))
}


def _name(name: str) -> quoted_name:
    """An identifier rendered unquoted on every dialect."""
    return quoted_name(name, False)


def _column(
    name: str,
    type_: Any,
    *,
    nullable: bool = True,
    primary_key: bool = False,
    server_default: Any = None,
) -> sa.Column[Any]:
    return sa.Column(
        _name(name),
        type_,
        nullable=nullable and not primary_key,
        primary_key=primary_key,
        server_default=server_default,
        quote=False,
    )


def _table(name: str, *columns: sa.Column[Any]) -> None:
    op.create_table(_name(name), *columns, quote=False, **_TABLE_OPTIONS)


def _index(name: str, table: str, *columns: str) -> None:
    op.create_index(_name(name), _name(table), [_name(c) for c in columns])


def upgrade() -> None:
    _table(
        "ACT_HI_OP_LOG",
        _column("ID_", _v64, primary_key=True),
        _column("DEPLOYMENT_ID_", _v64),
        _column("PROC_DEF_ID_", _v64),
        _column("PROC_DEF_KEY_", _v255),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("EXECUTION_ID_", _v64),
        _column("CASE_DEF_ID_", _v64),
        _column("CASE_INST_ID_", _v64),
        _column("CASE_EXECUTION_ID_", _v64),
        _column("TASK_ID_", _v64),
        _column("JOB_ID_", _v64),
        _column("JOB_DEF_ID_", _v64),
        _column("BATCH_ID_", _v64),
        _column("USER_ID_", _v255),
        _column("TIMESTAMP_", _timestamp, nullable=False),
        _column("OPERATION_TYPE_", _v64),
        _column("OPERATION_ID_", _v64),
        _column("ENTITY_TYPE_", _v30),
        _column("PROPERTY_", _v64),
        _column("ORG_VALUE_", _v4000),
        _column("NEW_VALUE_", _v4000),
        _column("TENANT_ID_", _v64),
        _column("REMOVAL_TIME_", _timestamp),
        _column("CATEGORY_", _v64),
        _column("EXTERNAL_TASK_ID_", _v64),
        _column("ANNOTATION_", _v4000),
    )
    for name, column in _INDEXES:
        _index(name, "ACT_HI_OP_LOG", column)


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
    op.drop_table(_name("ACT_HI_OP_LOG"))
