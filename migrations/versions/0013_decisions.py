"""DMN decisions: the decision repository (ACT_RE_DECISION_DEF, ACT_RE_DECISION_REQ_DEF) and the
decision history (ACT_HI_DECINST, ACT_HI_DEC_IN, ACT_HI_DEC_OUT), with Camunda 7.24's columns and
indexes.

A log written before this revision holds no decision: a `.dmn` resource was kept as a resource
then, never deployed as a decision. So nothing is rebuilt when it is applied.

Revision ID: 0013_decisions
Revises: 0012_user_operation_log
Create Date: 2026-12-05
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from flowledger.migrations.ddl import (
    DOUBLE,
    TIMESTAMP,
    column,
    create_index,
    create_table,
    drop_table,
)

revision = "0013_decisions"
down_revision = "0012_user_operation_log"
branch_labels = None
depends_on = None

# Frozen history, as revision 0002: every table spelled out here, never imported from
# `projections.tables`; identifiers unquoted; no foreign keys.

_v64 = sa.String(64)
_v255 = sa.String(255)
_v4000 = sa.String(4000)
_v100 = sa.String(100)


def _definition_columns() -> list[sa.Column[Any]]:
    return [
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer),
        column("CATEGORY_", _v255),
        column("NAME_", _v255),
        column("KEY_", _v255, nullable=False),
        column("VERSION_", sa.Integer, nullable=False),
        column("DEPLOYMENT_ID_", _v64),
        column("RESOURCE_NAME_", _v4000),
        column("DGRM_RESOURCE_NAME_", _v4000),
    ]


def _value_columns() -> list[sa.Column[Any]]:
    return [
        column("VAR_TYPE_", _v100),
        column("BYTEARRAY_ID_", _v64),
        column("DOUBLE_", DOUBLE),
        column("LONG_", sa.BigInteger),
        column("TEXT_", _v4000),
        column("TEXT2_", _v4000),
        column("TENANT_ID_", _v64),
        column("CREATE_TIME_", TIMESTAMP),
        column("ROOT_PROC_INST_ID_", _v64),
        column("REMOVAL_TIME_", TIMESTAMP),
    ]


def upgrade() -> None:
    create_table(
        "ACT_RE_DECISION_DEF",
        *_definition_columns(),
        column("DEC_REQ_ID_", _v64),
        column("DEC_REQ_KEY_", _v255),
        column("TENANT_ID_", _v64),
        column("HISTORY_TTL_", sa.Integer),
        column("VERSION_TAG_", _v64),
    )
    create_table("ACT_RE_DECISION_REQ_DEF", *_definition_columns(), column("TENANT_ID_", _v64))
    create_table(
        "ACT_HI_DECINST",
        column("ID_", _v64, primary_key=True),
        column("DEC_DEF_ID_", _v64, nullable=False),
        column("DEC_DEF_KEY_", _v255, nullable=False),
        column("DEC_DEF_NAME_", _v255),
        column("PROC_DEF_KEY_", _v255),
        column("PROC_DEF_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("CASE_DEF_KEY_", _v255),
        column("CASE_DEF_ID_", _v64),
        column("CASE_INST_ID_", _v64),
        column("ACT_INST_ID_", _v64),
        column("ACT_ID_", _v255),
        column("EVAL_TIME_", TIMESTAMP, nullable=False),
        column("REMOVAL_TIME_", TIMESTAMP),
        column("COLLECT_VALUE_", DOUBLE),
        column("USER_ID_", _v255),
        column("ROOT_DEC_INST_ID_", _v64),
        column("ROOT_PROC_INST_ID_", _v64),
        column("DEC_REQ_ID_", _v64),
        column("DEC_REQ_KEY_", _v255),
        column("TENANT_ID_", _v64),
    )
    create_table(
        "ACT_HI_DEC_IN",
        column("ID_", _v64, primary_key=True),
        column("DEC_INST_ID_", _v64, nullable=False),
        column("CLAUSE_ID_", _v64),
        column("CLAUSE_NAME_", _v255),
        *_value_columns(),
    )
    create_table(
        "ACT_HI_DEC_OUT",
        column("ID_", _v64, primary_key=True),
        column("DEC_INST_ID_", _v64, nullable=False),
        column("CLAUSE_ID_", _v64),
        column("CLAUSE_NAME_", _v255),
        column("RULE_ID_", _v64),
        column("RULE_ORDER_", sa.Integer),
        column("VAR_NAME_", _v255),
        *_value_columns(),
    )
    for name, table, *columns in _INDEXES:
        create_index(name, table, *columns)


_INDEXES = (
    ("ACT_IDX_DEC_DEF_TENANT_ID", "ACT_RE_DECISION_DEF", "TENANT_ID_"),
    ("ACT_IDX_DEC_DEF_REQ_ID", "ACT_RE_DECISION_DEF", "DEC_REQ_ID_"),
    ("ACT_IDX_DEC_DEF_KEY_VERSION", "ACT_RE_DECISION_DEF", "KEY_", "VERSION_"),
    ("ACT_IDX_DEC_DEF_DEPLOYMENT_ID", "ACT_RE_DECISION_DEF", "DEPLOYMENT_ID_"),
    ("ACT_IDX_DEC_REQ_DEF_TENANT_ID", "ACT_RE_DECISION_REQ_DEF", "TENANT_ID_"),
    ("ACT_IDX_DEC_REQ_DEF_KEY_VERSION", "ACT_RE_DECISION_REQ_DEF", "KEY_", "VERSION_"),
    # Camunda's history indexes that flowledger reads by, as revision 0003 kept for the others
    ("ACT_IDX_HI_DEC_INST_ID", "ACT_HI_DECINST", "DEC_DEF_ID_"),
    ("ACT_IDX_HI_DEC_INST_KEY", "ACT_HI_DECINST", "DEC_DEF_KEY_"),
    ("ACT_IDX_HI_DEC_INST_PI", "ACT_HI_DECINST", "PROC_INST_ID_"),
    ("ACT_IDX_HI_DEC_INST_TIME", "ACT_HI_DECINST", "EVAL_TIME_", "ID_"),
    ("ACT_IDX_HI_DEC_INST_ROOT_ID", "ACT_HI_DECINST", "ROOT_DEC_INST_ID_"),
    ("ACT_IDX_HI_DEC_IN_INST", "ACT_HI_DEC_IN", "DEC_INST_ID_"),
    ("ACT_IDX_HI_DEC_OUT_INST", "ACT_HI_DEC_OUT", "DEC_INST_ID_"),
)

_TABLES = (
    "ACT_HI_DEC_OUT",
    "ACT_HI_DEC_IN",
    "ACT_HI_DECINST",
    "ACT_RE_DECISION_REQ_DEF",
    "ACT_RE_DECISION_DEF",
)


def downgrade() -> None:
    for table in _TABLES:
        drop_table(table)
