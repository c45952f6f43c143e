"""ACT_* projection tables: Camunda 7.24's repository, runtime and history tables flowledger fills.

Revision ID: 0002_act_tables
Revises: 0001_event_log
Create Date: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.sql.elements import quoted_name

revision = "0002_act_tables"
down_revision = "0001_event_log"
branch_labels = None
depends_on = None

# Frozen history: every definition is spelled out here, never imported from `projections.tables`.
# Identifiers are unquoted, as in Camunda's scripts: PostgreSQL folds them to lower case
# (`act_hi_actinst`), MySQL/MariaDB keep them upper case (`ACT_HI_ACTINST`), and reports written
# unquoted find them on both. No foreign keys: these tables are projections rebuilt from the
# event log, and the rows of one flush may be written in any order.

_timestamp = sa.DateTime().with_variant(mysql.DATETIME(fsp=3), "mysql", "mariadb")
_blob = sa.LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")
_bool = sa.Boolean(create_constraint=False)
_double: sa.Double[float] = sa.Double()
_v20 = sa.String(20)
_v64 = sa.String(64)
_v100 = sa.String(100)
_v255 = sa.String(255)
_v4000 = sa.String(4000)

# InnoDB with a binary (case-sensitive) collation, as Camunda's MySQL/MariaDB scripts; both
# prefixes because SQLAlchemy reads `mysql_*` for the "mysql" dialect, `mariadb_*` for "mariadb".
_TABLE_OPTIONS: dict[str, Any] = {
    f"{dialect}_{option}": value
    for dialect in ("mysql", "mariadb")
    for option, value in (("engine", "InnoDB"), ("charset", "utf8mb4"), ("collate", "utf8mb4_bin"))
}


def _name(name: str) -> quoted_name:
    """An identifier rendered unquoted on every dialect."""
    return quoted_name(name, False)


def _names(*names: str) -> list[str]:
    return [_name(name) for name in names]


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


def upgrade() -> None:
    op.create_table(
        _name("ACT_RE_DEPLOYMENT"),
        _column("ID_", _v64, primary_key=True),
        _column("NAME_", _v255),
        _column("DEPLOY_TIME_", _timestamp),
        _column("SOURCE_", _v255),
        _column("TENANT_ID_", _v64),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_table(
        _name("ACT_RE_PROCDEF"),
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer),
        _column("CATEGORY_", _v255),
        _column("NAME_", _v255),
        _column("KEY_", _v255, nullable=False),
        _column("VERSION_", sa.Integer, nullable=False),
        _column("DEPLOYMENT_ID_", _v64),
        _column("RESOURCE_NAME_", _v4000),
        _column("DGRM_RESOURCE_NAME_", _v4000),
        _column("HAS_START_FORM_KEY_", _bool),
        _column("SUSPENSION_STATE_", sa.Integer),
        _column("TENANT_ID_", _v64),
        _column("VERSION_TAG_", _v64),
        _column("HISTORY_TTL_", sa.Integer),
        _column("STARTABLE_", _bool, nullable=False, server_default=sa.true()),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(
        _name("ACT_IDX_PROCDEF_DEPLOYMENT_ID"), _name("ACT_RE_PROCDEF"), _names("DEPLOYMENT_ID_")
    )
    op.create_index(
        _name("ACT_IDX_PROCDEF_TENANT_ID"), _name("ACT_RE_PROCDEF"), _names("TENANT_ID_")
    )
    op.create_index(
        _name("ACT_IDX_PROCDEF_VER_TAG"), _name("ACT_RE_PROCDEF"), _names("VERSION_TAG_")
    )
    op.create_index(
        _name("ACT_IDX_RE_PROCDEF_KEY_VERSION"), _name("ACT_RE_PROCDEF"), _names("KEY_", "VERSION_")
    )
    op.create_table(
        _name("ACT_GE_BYTEARRAY"),
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer),
        _column("NAME_", _v255),
        _column("DEPLOYMENT_ID_", _v64),
        _column("BYTES_", _blob),
        _column("GENERATED_", _bool),
        _column("TENANT_ID_", _v64),
        _column("TYPE_", sa.Integer),
        _column("CREATE_TIME_", _timestamp),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("REMOVAL_TIME_", _timestamp),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(
        _name("ACT_IDX_BYTEAR_DEPL"), _name("ACT_GE_BYTEARRAY"), _names("DEPLOYMENT_ID_")
    )
    op.create_table(
        _name("ACT_RU_EXECUTION"),
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("BUSINESS_KEY_", _v255),
        _column("PARENT_ID_", _v64),
        _column("PROC_DEF_ID_", _v64),
        _column("SUPER_EXEC_", _v64),
        _column("SUPER_CASE_EXEC_", _v64),
        _column("CASE_INST_ID_", _v64),
        _column("ACT_ID_", _v255),
        _column("ACT_INST_ID_", _v64),
        _column("IS_ACTIVE_", _bool),
        _column("IS_CONCURRENT_", _bool),
        _column("IS_SCOPE_", _bool),
        _column("IS_EVENT_SCOPE_", _bool),
        _column("SUSPENSION_STATE_", sa.Integer),
        _column("CACHED_ENT_STATE_", sa.Integer),
        _column("SEQUENCE_COUNTER_", sa.BigInteger),
        _column("TENANT_ID_", _v64),
        _column("PROC_DEF_KEY_", _v255),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(
        _name("ACT_IDX_EXE_PROCINST"), _name("ACT_RU_EXECUTION"), _names("PROC_INST_ID_")
    )
    op.create_index(_name("ACT_IDX_EXE_PARENT"), _name("ACT_RU_EXECUTION"), _names("PARENT_ID_"))
    op.create_index(_name("ACT_IDX_EXE_SUPER"), _name("ACT_RU_EXECUTION"), _names("SUPER_EXEC_"))
    op.create_index(_name("ACT_IDX_EXE_PROCDEF"), _name("ACT_RU_EXECUTION"), _names("PROC_DEF_ID_"))
    op.create_index(
        _name("ACT_IDX_EXE_ROOT_PI"), _name("ACT_RU_EXECUTION"), _names("ROOT_PROC_INST_ID_")
    )
    op.create_index(
        _name("ACT_IDX_EXEC_BUSKEY"), _name("ACT_RU_EXECUTION"), _names("BUSINESS_KEY_")
    )
    op.create_index(
        _name("ACT_IDX_EXEC_TENANT_ID"), _name("ACT_RU_EXECUTION"), _names("TENANT_ID_")
    )
    op.create_table(
        _name("ACT_RU_TASK"),
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer),
        _column("EXECUTION_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("PROC_DEF_ID_", _v64),
        _column("CASE_EXECUTION_ID_", _v64),
        _column("CASE_INST_ID_", _v64),
        _column("CASE_DEF_ID_", _v64),
        _column("NAME_", _v255),
        _column("PARENT_TASK_ID_", _v64),
        _column("DESCRIPTION_", _v4000),
        _column("TASK_DEF_KEY_", _v255),
        _column("OWNER_", _v255),
        _column("ASSIGNEE_", _v255),
        _column("DELEGATION_", _v64),
        _column("PRIORITY_", sa.Integer),
        _column("CREATE_TIME_", _timestamp),
        _column("LAST_UPDATED_", _timestamp),
        _column("DUE_DATE_", _timestamp),
        _column("FOLLOW_UP_DATE_", _timestamp),
        _column("SUSPENSION_STATE_", sa.Integer),
        _column("TENANT_ID_", _v64),
        _column("TASK_STATE_", _v64),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(_name("ACT_IDX_TASK_EXEC"), _name("ACT_RU_TASK"), _names("EXECUTION_ID_"))
    op.create_index(_name("ACT_IDX_TASK_PROCINST"), _name("ACT_RU_TASK"), _names("PROC_INST_ID_"))
    op.create_index(_name("ACT_IDX_TASK_PROCDEF"), _name("ACT_RU_TASK"), _names("PROC_DEF_ID_"))
    op.create_index(_name("ACT_IDX_TASK_ASSIGNEE"), _name("ACT_RU_TASK"), _names("ASSIGNEE_"))
    op.create_index(_name("ACT_IDX_TASK_OWNER"), _name("ACT_RU_TASK"), _names("OWNER_"))
    op.create_index(_name("ACT_IDX_TASK_CREATE"), _name("ACT_RU_TASK"), _names("CREATE_TIME_"))
    op.create_index(
        _name("ACT_IDX_TASK_LAST_UPDATED"), _name("ACT_RU_TASK"), _names("LAST_UPDATED_")
    )
    op.create_index(_name("ACT_IDX_TASK_TENANT_ID"), _name("ACT_RU_TASK"), _names("TENANT_ID_"))
    op.create_index(
        _name("ACT_IDX_RU_TASK_TASK_DEF_KEY"), _name("ACT_RU_TASK"), _names("TASK_DEF_KEY_")
    )
    op.create_table(
        _name("ACT_RU_IDENTITYLINK"),
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer),
        _column("GROUP_ID_", _v255),
        _column("TYPE_", _v255),
        _column("USER_ID_", _v255),
        _column("TASK_ID_", _v64),
        _column("PROC_DEF_ID_", _v64),
        _column("TENANT_ID_", _v64),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(_name("ACT_IDX_TSKASS_TASK"), _name("ACT_RU_IDENTITYLINK"), _names("TASK_ID_"))
    op.create_index(
        _name("ACT_IDX_IDENT_LNK_GROUP"), _name("ACT_RU_IDENTITYLINK"), _names("GROUP_ID_")
    )
    op.create_index(
        _name("ACT_IDX_IDENT_LNK_USER"), _name("ACT_RU_IDENTITYLINK"), _names("USER_ID_")
    )
    op.create_table(
        _name("ACT_RU_VARIABLE"),
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer),
        _column("TYPE_", _v255, nullable=False),
        _column("NAME_", _v255, nullable=False),
        _column("EXECUTION_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("PROC_DEF_ID_", _v64),
        _column("CASE_EXECUTION_ID_", _v64),
        _column("CASE_INST_ID_", _v64),
        _column("TASK_ID_", _v64),
        _column("BATCH_ID_", _v64),
        _column("BYTEARRAY_ID_", _v64),
        _column("DOUBLE_", _double),
        _column("LONG_", sa.BigInteger),
        _column("TEXT_", _v4000),
        _column("TEXT2_", _v4000),
        _column("VAR_SCOPE_", _v64),
        _column("SEQUENCE_COUNTER_", sa.BigInteger),
        _column("IS_CONCURRENT_LOCAL_", _bool),
        _column("TENANT_ID_", _v64),
        sa.UniqueConstraint("VAR_SCOPE_", "NAME_", name=_name("ACT_UNIQ_VARIABLE")),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(_name("ACT_IDX_VAR_EXE"), _name("ACT_RU_VARIABLE"), _names("EXECUTION_ID_"))
    op.create_index(
        _name("ACT_IDX_VAR_PROCINST"), _name("ACT_RU_VARIABLE"), _names("PROC_INST_ID_")
    )
    op.create_index(
        _name("ACT_IDX_VAR_BYTEARRAY"), _name("ACT_RU_VARIABLE"), _names("BYTEARRAY_ID_")
    )
    op.create_index(_name("ACT_IDX_VARIABLE_TASK_ID"), _name("ACT_RU_VARIABLE"), _names("TASK_ID_"))
    op.create_index(
        _name("ACT_IDX_VARIABLE_TASK_NAME_TYPE"),
        _name("ACT_RU_VARIABLE"),
        _names("TASK_ID_", "NAME_", "TYPE_"),
    )
    op.create_index(_name("ACT_IDX_BATCH_ID"), _name("ACT_RU_VARIABLE"), _names("BATCH_ID_"))
    op.create_table(
        _name("ACT_RU_EXT_TASK"),
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer, nullable=False),
        _column("WORKER_ID_", _v255),
        _column("TOPIC_NAME_", _v255),
        _column("RETRIES_", sa.Integer),
        _column("ERROR_MSG_", _v4000),
        _column("ERROR_DETAILS_ID_", _v64),
        _column("LOCK_EXP_TIME_", _timestamp),
        _column("CREATE_TIME_", _timestamp),
        _column("SUSPENSION_STATE_", sa.Integer),
        _column("EXECUTION_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("PROC_DEF_ID_", _v64),
        _column("PROC_DEF_KEY_", _v255),
        _column("ACT_ID_", _v255),
        _column("ACT_INST_ID_", _v64),
        _column("TENANT_ID_", _v64),
        _column("PRIORITY_", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        _column("LAST_FAILURE_LOG_ID_", _v64),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(
        _name("ACT_IDX_EXT_TASK_TOPIC"), _name("ACT_RU_EXT_TASK"), _names("TOPIC_NAME_")
    )
    op.create_index(
        _name("ACT_IDX_EXT_TASK_PRIORITY"), _name("ACT_RU_EXT_TASK"), _names("PRIORITY_")
    )
    op.create_index(
        _name("ACT_IDX_EXT_TASK_EXEC"), _name("ACT_RU_EXT_TASK"), _names("EXECUTION_ID_")
    )
    op.create_index(
        _name("ACT_IDX_EXT_TASK_ERR_DETAILS"), _name("ACT_RU_EXT_TASK"), _names("ERROR_DETAILS_ID_")
    )
    op.create_index(
        _name("ACT_IDX_RU_EXT_TASK_PROC_INST_ID"), _name("ACT_RU_EXT_TASK"), _names("PROC_INST_ID_")
    )
    op.create_table(
        _name("ACT_HI_PROCINST"),
        _column("ID_", _v64, primary_key=True),
        _column("PROC_INST_ID_", _v64, nullable=False),
        _column("BUSINESS_KEY_", _v255),
        _column("PROC_DEF_KEY_", _v255),
        _column("PROC_DEF_ID_", _v64, nullable=False),
        _column("START_TIME_", _timestamp, nullable=False),
        _column("END_TIME_", _timestamp),
        _column("REMOVAL_TIME_", _timestamp),
        _column("DURATION_", sa.BigInteger),
        _column("START_USER_ID_", _v255),
        _column("START_ACT_ID_", _v255),
        _column("END_ACT_ID_", _v255),
        _column("SUPER_PROCESS_INSTANCE_ID_", _v64),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("SUPER_CASE_INSTANCE_ID_", _v64),
        _column("CASE_INST_ID_", _v64),
        _column("DELETE_REASON_", _v4000),
        _column("TENANT_ID_", _v64),
        _column("STATE_", _v255),
        _column("RESTARTED_PROC_INST_ID_", _v64),
        sa.UniqueConstraint("PROC_INST_ID_", name=_name("ACT_UNIQ_HI_PROCINST_PROC_INST_ID")),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(_name("ACT_IDX_HI_PRO_INST_END"), _name("ACT_HI_PROCINST"), _names("END_TIME_"))
    op.create_index(
        _name("ACT_IDX_HI_PRO_I_BUSKEY"), _name("ACT_HI_PROCINST"), _names("BUSINESS_KEY_")
    )
    op.create_index(
        _name("ACT_IDX_HI_PRO_INST_PROC_DEF_KEY"), _name("ACT_HI_PROCINST"), _names("PROC_DEF_KEY_")
    )
    op.create_index(
        _name("ACT_IDX_HI_PRO_INST_PROC_TIME"),
        _name("ACT_HI_PROCINST"),
        _names("START_TIME_", "END_TIME_"),
    )
    op.create_index(
        _name("ACT_IDX_HI_PI_PDEFID_END_TIME"),
        _name("ACT_HI_PROCINST"),
        _names("PROC_DEF_ID_", "END_TIME_"),
    )
    op.create_index(
        _name("ACT_IDX_HI_PRO_INST_ROOT_PI"), _name("ACT_HI_PROCINST"), _names("ROOT_PROC_INST_ID_")
    )
    op.create_index(
        _name("ACT_IDX_HI_PRO_INST_RM_TIME"), _name("ACT_HI_PROCINST"), _names("REMOVAL_TIME_")
    )
    op.create_table(
        _name("ACT_HI_ACTINST"),
        _column("ID_", _v64, primary_key=True),
        _column("PARENT_ACT_INST_ID_", _v64),
        _column("PROC_DEF_KEY_", _v255),
        _column("PROC_DEF_ID_", _v64, nullable=False),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("PROC_INST_ID_", _v64, nullable=False),
        _column("EXECUTION_ID_", _v64, nullable=False),
        _column("ACT_ID_", _v255, nullable=False),
        _column("TASK_ID_", _v64),
        _column("CALL_PROC_INST_ID_", _v64),
        _column("CALL_CASE_INST_ID_", _v64),
        _column("ACT_NAME_", _v255),
        _column("ACT_TYPE_", _v255, nullable=False),
        _column("ASSIGNEE_", _v255),
        _column("START_TIME_", _timestamp, nullable=False),
        _column("END_TIME_", _timestamp),
        _column("DURATION_", sa.BigInteger),
        _column("ACT_INST_STATE_", sa.Integer),
        _column("SEQUENCE_COUNTER_", sa.BigInteger),
        _column("TENANT_ID_", _v64),
        _column("REMOVAL_TIME_", _timestamp),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(
        _name("ACT_IDX_HI_ACT_INST_PROCINST"),
        _name("ACT_HI_ACTINST"),
        _names("PROC_INST_ID_", "ACT_ID_"),
    )
    op.create_index(
        _name("ACT_IDX_HI_ACT_INST_COMP"),
        _name("ACT_HI_ACTINST"),
        _names("EXECUTION_ID_", "ACT_ID_", "END_TIME_", "ID_"),
    )
    op.create_index(
        _name("ACT_IDX_HI_ACT_INST_STATS"),
        _name("ACT_HI_ACTINST"),
        _names("PROC_DEF_ID_", "PROC_INST_ID_", "ACT_ID_", "END_TIME_", "ACT_INST_STATE_"),
    )
    op.create_index(
        _name("ACT_IDX_HI_ACTINST_ROOT_PI"), _name("ACT_HI_ACTINST"), _names("ROOT_PROC_INST_ID_")
    )
    op.create_index(
        _name("ACT_IDX_HI_ACT_INST_RM_TIME"), _name("ACT_HI_ACTINST"), _names("REMOVAL_TIME_")
    )
    op.create_index(_name("ACT_IDX_HI_ACT_INST_END"), _name("ACT_HI_ACTINST"), _names("END_TIME_"))
    op.create_table(
        _name("ACT_HI_TASKINST"),
        _column("ID_", _v64, primary_key=True),
        _column("TASK_DEF_KEY_", _v255),
        _column("PROC_DEF_KEY_", _v255),
        _column("PROC_DEF_ID_", _v64),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("EXECUTION_ID_", _v64),
        _column("CASE_DEF_KEY_", _v255),
        _column("CASE_DEF_ID_", _v64),
        _column("CASE_INST_ID_", _v64),
        _column("CASE_EXECUTION_ID_", _v64),
        _column("ACT_INST_ID_", _v64),
        _column("NAME_", _v255),
        _column("PARENT_TASK_ID_", _v64),
        _column("DESCRIPTION_", _v4000),
        _column("OWNER_", _v255),
        _column("ASSIGNEE_", _v255),
        _column("START_TIME_", _timestamp, nullable=False),
        _column("END_TIME_", _timestamp),
        _column("DURATION_", sa.BigInteger),
        _column("DELETE_REASON_", _v4000),
        _column("PRIORITY_", sa.Integer),
        _column("DUE_DATE_", _timestamp),
        _column("FOLLOW_UP_DATE_", _timestamp),
        _column("TENANT_ID_", _v64),
        _column("REMOVAL_TIME_", _timestamp),
        _column("TASK_STATE_", _v64),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(
        _name("ACT_IDX_HI_TASKINST_PROCINST"), _name("ACT_HI_TASKINST"), _names("PROC_INST_ID_")
    )
    op.create_table(
        _name("ACT_HI_VARINST"),
        _column("ID_", _v64, primary_key=True),
        _column("PROC_DEF_KEY_", _v255),
        _column("PROC_DEF_ID_", _v64),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("EXECUTION_ID_", _v64),
        _column("ACT_INST_ID_", _v64),
        _column("CASE_DEF_KEY_", _v255),
        _column("CASE_DEF_ID_", _v64),
        _column("CASE_INST_ID_", _v64),
        _column("CASE_EXECUTION_ID_", _v64),
        _column("TASK_ID_", _v64),
        _column("NAME_", _v255, nullable=False),
        _column("VAR_TYPE_", _v100),
        _column("CREATE_TIME_", _timestamp),
        _column("REV_", sa.Integer),
        _column("BYTEARRAY_ID_", _v64),
        _column("DOUBLE_", _double),
        _column("LONG_", sa.BigInteger),
        _column("TEXT_", _v4000),
        _column("TEXT2_", _v4000),
        _column("TENANT_ID_", _v64),
        _column("STATE_", _v20),
        _column("REMOVAL_TIME_", _timestamp),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(
        _name("ACT_IDX_HI_VAR_PI_NAME_TYPE"),
        _name("ACT_HI_VARINST"),
        _names("PROC_INST_ID_", "NAME_", "VAR_TYPE_"),
    )
    op.create_table(
        _name("ACT_HI_DETAIL"),
        _column("ID_", _v64, primary_key=True),
        _column("TYPE_", _v255, nullable=False),
        _column("PROC_DEF_KEY_", _v255),
        _column("PROC_DEF_ID_", _v64),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("EXECUTION_ID_", _v64),
        _column("CASE_DEF_KEY_", _v255),
        _column("CASE_DEF_ID_", _v64),
        _column("CASE_INST_ID_", _v64),
        _column("CASE_EXECUTION_ID_", _v64),
        _column("TASK_ID_", _v64),
        _column("ACT_INST_ID_", _v64),
        _column("VAR_INST_ID_", _v64),
        _column("NAME_", _v255, nullable=False),
        _column("VAR_TYPE_", _v64),
        _column("REV_", sa.Integer),
        _column("TIME_", _timestamp, nullable=False),
        _column("BYTEARRAY_ID_", _v64),
        _column("DOUBLE_", _double),
        _column("LONG_", sa.BigInteger),
        _column("TEXT_", _v4000),
        _column("TEXT2_", _v4000),
        _column("SEQUENCE_COUNTER_", sa.BigInteger),
        _column("TENANT_ID_", _v64),
        _column("OPERATION_ID_", _v64),
        _column("REMOVAL_TIME_", _timestamp),
        _column("INITIAL_", _bool),
        quote=False,
        **_TABLE_OPTIONS,
    )
    op.create_index(
        _name("ACT_IDX_HI_DETAIL_PROC_INST"), _name("ACT_HI_DETAIL"), _names("PROC_INST_ID_")
    )
    op.create_index(
        _name("ACT_IDX_HI_DETAIL_VAR_INST_ID"), _name("ACT_HI_DETAIL"), _names("VAR_INST_ID_")
    )


def downgrade() -> None:
    for table in (
        "ACT_HI_DETAIL",
        "ACT_HI_VARINST",
        "ACT_HI_TASKINST",
        "ACT_HI_ACTINST",
        "ACT_HI_PROCINST",
        "ACT_RU_EXT_TASK",
        "ACT_RU_VARIABLE",
        "ACT_RU_IDENTITYLINK",
        "ACT_RU_TASK",
        "ACT_RU_EXECUTION",
        "ACT_GE_BYTEARRAY",
        "ACT_RE_PROCDEF",
        "ACT_RE_DEPLOYMENT",
    ):
        op.drop_table(_name(table))
