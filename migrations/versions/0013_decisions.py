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
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.sql.elements import quoted_name

revision = "0013_decisions"
down_revision = "0012_user_operation_log"
branch_labels = None
depends_on = None

# Frozen history, as revision 0002: every definition spelled out here, never imported from
# `projections.tables`; identifiers unquoted; no foreign keys.

_timestamp = sa.DateTime().with_variant(mysql.DATETIME(fsp=3), "mysql", "mariadb")
_bool = sa.Boolean(create_constraint=False)
_v64 = sa.String(64)
_v255 = sa.String(255)
_v4000 = sa.String(4000)
_v100 = sa.String(100)
_double: sa.Double[float] = sa.Double()

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


def _definition_columns() -> list[sa.Column[Any]]:
    return [
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer),
        _column("CATEGORY_", _v255),
        _column("NAME_", _v255),
        _column("KEY_", _v255, nullable=False),
        _column("VERSION_", sa.Integer, nullable=False),
        _column("DEPLOYMENT_ID_", _v64),
        _column("RESOURCE_NAME_", _v4000),
        _column("DGRM_RESOURCE_NAME_", _v4000),
    ]


def _value_columns() -> list[sa.Column[Any]]:
    return [
        _column("VAR_TYPE_", _v100),
        _column("BYTEARRAY_ID_", _v64),
        _column("DOUBLE_", _double),
        _column("LONG_", sa.BigInteger),
        _column("TEXT_", _v4000),
        _column("TEXT2_", _v4000),
        _column("TENANT_ID_", _v64),
        _column("CREATE_TIME_", _timestamp),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("REMOVAL_TIME_", _timestamp),
    ]


def upgrade() -> None:
    _table(
        "ACT_RE_DECISION_DEF",
        *_definition_columns(),
        _column("DEC_REQ_ID_", _v64),
        _column("DEC_REQ_KEY_", _v255),
        _column("TENANT_ID_", _v64),
        _column("HISTORY_TTL_", sa.Integer),
        _column("VERSION_TAG_", _v64),
    )
    _table("ACT_RE_DECISION_REQ_DEF", *_definition_columns(), _column("TENANT_ID_", _v64))
    _table(
        "ACT_HI_DECINST",
        _column("ID_", _v64, primary_key=True),
        _column("DEC_DEF_ID_", _v64, nullable=False),
        _column("DEC_DEF_KEY_", _v255, nullable=False),
        _column("DEC_DEF_NAME_", _v255),
        _column("PROC_DEF_KEY_", _v255),
        _column("PROC_DEF_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("CASE_DEF_KEY_", _v255),
        _column("CASE_DEF_ID_", _v64),
        _column("CASE_INST_ID_", _v64),
        _column("ACT_INST_ID_", _v64),
        _column("ACT_ID_", _v255),
        _column("EVAL_TIME_", _timestamp, nullable=False),
        _column("REMOVAL_TIME_", _timestamp),
        _column("COLLECT_VALUE_", _double),
        _column("USER_ID_", _v255),
        _column("ROOT_DEC_INST_ID_", _v64),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("DEC_REQ_ID_", _v64),
        _column("DEC_REQ_KEY_", _v255),
        _column("TENANT_ID_", _v64),
    )
    _table(
        "ACT_HI_DEC_IN",
        _column("ID_", _v64, primary_key=True),
        _column("DEC_INST_ID_", _v64, nullable=False),
        _column("CLAUSE_ID_", _v64),
        _column("CLAUSE_NAME_", _v255),
        *_value_columns(),
    )
    _table(
        "ACT_HI_DEC_OUT",
        _column("ID_", _v64, primary_key=True),
        _column("DEC_INST_ID_", _v64, nullable=False),
        _column("CLAUSE_ID_", _v64),
        _column("CLAUSE_NAME_", _v255),
        _column("RULE_ID_", _v64),
        _column("RULE_ORDER_", sa.Integer),
        _column("VAR_NAME_", _v255),
        *_value_columns(),
    )
    for name, table, *columns in _INDEXES:
        _index(name, table, *columns)


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
        op.drop_table(_name(table))
