"""ACT_* projection tables: Camunda 7.24's repository, runtime and history tables flowledger fills.

Revision ID: 0002_act_tables
Revises: 0001_event_log
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa

from flowledger.migrations.ddl import (
    BLOB,
    BOOLEAN,
    DOUBLE,
    TIMESTAMP,
    column,
    create_index,
    create_table,
    drop_table,
    unquoted,
)

revision = "0002_act_tables"
down_revision = "0001_event_log"
branch_labels = None
depends_on = None

# Frozen history: every table is spelled out here, never imported from `projections.tables`
# (the DDL helpers of `flowledger.migrations.ddl` never change what they emit).
# Identifiers are unquoted, as in Camunda's scripts: PostgreSQL folds them to lower case
# (`act_hi_actinst`), MySQL/MariaDB keep them upper case (`ACT_HI_ACTINST`), and reports written
# unquoted find them on both. No foreign keys: these tables are projections rebuilt from the
# event log, and the rows of one flush may be written in any order.

_v20 = sa.String(20)
_v64 = sa.String(64)
_v100 = sa.String(100)
_v255 = sa.String(255)
_v4000 = sa.String(4000)


def upgrade() -> None:
    create_table(
        "ACT_RE_DEPLOYMENT",
        column("ID_", _v64, primary_key=True),
        column("NAME_", _v255),
        column("DEPLOY_TIME_", TIMESTAMP),
        column("SOURCE_", _v255),
        column("TENANT_ID_", _v64),
    )
    create_table(
        "ACT_RE_PROCDEF",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer),
        column("CATEGORY_", _v255),
        column("NAME_", _v255),
        column("KEY_", _v255, nullable=False),
        column("VERSION_", sa.Integer, nullable=False),
        column("DEPLOYMENT_ID_", _v64),
        column("RESOURCE_NAME_", _v4000),
        column("DGRM_RESOURCE_NAME_", _v4000),
        column("HAS_START_FORM_KEY_", BOOLEAN),
        column("SUSPENSION_STATE_", sa.Integer),
        column("TENANT_ID_", _v64),
        column("VERSION_TAG_", _v64),
        column("HISTORY_TTL_", sa.Integer),
        column("STARTABLE_", BOOLEAN, nullable=False, server_default=sa.true()),
    )
    create_index("ACT_IDX_PROCDEF_DEPLOYMENT_ID", "ACT_RE_PROCDEF", "DEPLOYMENT_ID_")
    create_index("ACT_IDX_PROCDEF_TENANT_ID", "ACT_RE_PROCDEF", "TENANT_ID_")
    create_index("ACT_IDX_PROCDEF_VER_TAG", "ACT_RE_PROCDEF", "VERSION_TAG_")
    create_index("ACT_IDX_RE_PROCDEF_KEY_VERSION", "ACT_RE_PROCDEF", "KEY_", "VERSION_")
    create_table(
        "ACT_GE_BYTEARRAY",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer),
        column("NAME_", _v255),
        column("DEPLOYMENT_ID_", _v64),
        column("BYTES_", BLOB),
        column("GENERATED_", BOOLEAN),
        column("TENANT_ID_", _v64),
        column("TYPE_", sa.Integer),
        column("CREATE_TIME_", TIMESTAMP),
        column("ROOT_PROC_INST_ID_", _v64),
        column("REMOVAL_TIME_", TIMESTAMP),
    )
    create_index("ACT_IDX_BYTEAR_DEPL", "ACT_GE_BYTEARRAY", "DEPLOYMENT_ID_")
    create_table(
        "ACT_RU_EXECUTION",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer),
        column("ROOT_PROC_INST_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("BUSINESS_KEY_", _v255),
        column("PARENT_ID_", _v64),
        column("PROC_DEF_ID_", _v64),
        column("SUPER_EXEC_", _v64),
        column("SUPER_CASE_EXEC_", _v64),
        column("CASE_INST_ID_", _v64),
        column("ACT_ID_", _v255),
        column("ACT_INST_ID_", _v64),
        column("IS_ACTIVE_", BOOLEAN),
        column("IS_CONCURRENT_", BOOLEAN),
        column("IS_SCOPE_", BOOLEAN),
        column("IS_EVENT_SCOPE_", BOOLEAN),
        column("SUSPENSION_STATE_", sa.Integer),
        column("CACHED_ENT_STATE_", sa.Integer),
        column("SEQUENCE_COUNTER_", sa.BigInteger),
        column("TENANT_ID_", _v64),
        column("PROC_DEF_KEY_", _v255),
    )
    create_index("ACT_IDX_EXE_PROCINST", "ACT_RU_EXECUTION", "PROC_INST_ID_")
    create_index("ACT_IDX_EXE_PARENT", "ACT_RU_EXECUTION", "PARENT_ID_")
    create_index("ACT_IDX_EXE_SUPER", "ACT_RU_EXECUTION", "SUPER_EXEC_")
    create_index("ACT_IDX_EXE_PROCDEF", "ACT_RU_EXECUTION", "PROC_DEF_ID_")
    create_index("ACT_IDX_EXE_ROOT_PI", "ACT_RU_EXECUTION", "ROOT_PROC_INST_ID_")
    create_index("ACT_IDX_EXEC_BUSKEY", "ACT_RU_EXECUTION", "BUSINESS_KEY_")
    create_index("ACT_IDX_EXEC_TENANT_ID", "ACT_RU_EXECUTION", "TENANT_ID_")
    create_table(
        "ACT_RU_TASK",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer),
        column("EXECUTION_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("PROC_DEF_ID_", _v64),
        column("CASE_EXECUTION_ID_", _v64),
        column("CASE_INST_ID_", _v64),
        column("CASE_DEF_ID_", _v64),
        column("NAME_", _v255),
        column("PARENT_TASK_ID_", _v64),
        column("DESCRIPTION_", _v4000),
        column("TASK_DEF_KEY_", _v255),
        column("OWNER_", _v255),
        column("ASSIGNEE_", _v255),
        column("DELEGATION_", _v64),
        column("PRIORITY_", sa.Integer),
        column("CREATE_TIME_", TIMESTAMP),
        column("LAST_UPDATED_", TIMESTAMP),
        column("DUE_DATE_", TIMESTAMP),
        column("FOLLOW_UP_DATE_", TIMESTAMP),
        column("SUSPENSION_STATE_", sa.Integer),
        column("TENANT_ID_", _v64),
        column("TASK_STATE_", _v64),
    )
    create_index("ACT_IDX_TASK_EXEC", "ACT_RU_TASK", "EXECUTION_ID_")
    create_index("ACT_IDX_TASK_PROCINST", "ACT_RU_TASK", "PROC_INST_ID_")
    create_index("ACT_IDX_TASK_PROCDEF", "ACT_RU_TASK", "PROC_DEF_ID_")
    create_index("ACT_IDX_TASK_ASSIGNEE", "ACT_RU_TASK", "ASSIGNEE_")
    create_index("ACT_IDX_TASK_OWNER", "ACT_RU_TASK", "OWNER_")
    create_index("ACT_IDX_TASK_CREATE", "ACT_RU_TASK", "CREATE_TIME_")
    create_index("ACT_IDX_TASK_LAST_UPDATED", "ACT_RU_TASK", "LAST_UPDATED_")
    create_index("ACT_IDX_TASK_TENANT_ID", "ACT_RU_TASK", "TENANT_ID_")
    create_index("ACT_IDX_RU_TASK_TASK_DEF_KEY", "ACT_RU_TASK", "TASK_DEF_KEY_")
    create_table(
        "ACT_RU_IDENTITYLINK",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer),
        column("GROUP_ID_", _v255),
        column("TYPE_", _v255),
        column("USER_ID_", _v255),
        column("TASK_ID_", _v64),
        column("PROC_DEF_ID_", _v64),
        column("TENANT_ID_", _v64),
    )
    create_index("ACT_IDX_TSKASS_TASK", "ACT_RU_IDENTITYLINK", "TASK_ID_")
    create_index("ACT_IDX_IDENT_LNK_GROUP", "ACT_RU_IDENTITYLINK", "GROUP_ID_")
    create_index("ACT_IDX_IDENT_LNK_USER", "ACT_RU_IDENTITYLINK", "USER_ID_")
    create_table(
        "ACT_RU_VARIABLE",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer),
        column("TYPE_", _v255, nullable=False),
        column("NAME_", _v255, nullable=False),
        column("EXECUTION_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("PROC_DEF_ID_", _v64),
        column("CASE_EXECUTION_ID_", _v64),
        column("CASE_INST_ID_", _v64),
        column("TASK_ID_", _v64),
        column("BATCH_ID_", _v64),
        column("BYTEARRAY_ID_", _v64),
        column("DOUBLE_", DOUBLE),
        column("LONG_", sa.BigInteger),
        column("TEXT_", _v4000),
        column("TEXT2_", _v4000),
        column("VAR_SCOPE_", _v64),
        column("SEQUENCE_COUNTER_", sa.BigInteger),
        column("IS_CONCURRENT_LOCAL_", BOOLEAN),
        column("TENANT_ID_", _v64),
        sa.UniqueConstraint("VAR_SCOPE_", "NAME_", name=unquoted("ACT_UNIQ_VARIABLE")),
    )
    create_index("ACT_IDX_VAR_EXE", "ACT_RU_VARIABLE", "EXECUTION_ID_")
    create_index("ACT_IDX_VAR_PROCINST", "ACT_RU_VARIABLE", "PROC_INST_ID_")
    create_index("ACT_IDX_VAR_BYTEARRAY", "ACT_RU_VARIABLE", "BYTEARRAY_ID_")
    create_index("ACT_IDX_VARIABLE_TASK_ID", "ACT_RU_VARIABLE", "TASK_ID_")
    create_index(
        "ACT_IDX_VARIABLE_TASK_NAME_TYPE",
        "ACT_RU_VARIABLE",
        "TASK_ID_",
        "NAME_",
        "TYPE_",
    )
    create_index("ACT_IDX_BATCH_ID", "ACT_RU_VARIABLE", "BATCH_ID_")
    create_table(
        "ACT_RU_EXT_TASK",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer, nullable=False),
        column("WORKER_ID_", _v255),
        column("TOPIC_NAME_", _v255),
        column("RETRIES_", sa.Integer),
        column("ERROR_MSG_", _v4000),
        column("ERROR_DETAILS_ID_", _v64),
        column("LOCK_EXP_TIME_", TIMESTAMP),
        column("CREATE_TIME_", TIMESTAMP),
        column("SUSPENSION_STATE_", sa.Integer),
        column("EXECUTION_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("PROC_DEF_ID_", _v64),
        column("PROC_DEF_KEY_", _v255),
        column("ACT_ID_", _v255),
        column("ACT_INST_ID_", _v64),
        column("TENANT_ID_", _v64),
        column("PRIORITY_", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        column("LAST_FAILURE_LOG_ID_", _v64),
    )
    create_index("ACT_IDX_EXT_TASK_TOPIC", "ACT_RU_EXT_TASK", "TOPIC_NAME_")
    create_index("ACT_IDX_EXT_TASK_PRIORITY", "ACT_RU_EXT_TASK", "PRIORITY_")
    create_index("ACT_IDX_EXT_TASK_EXEC", "ACT_RU_EXT_TASK", "EXECUTION_ID_")
    create_index("ACT_IDX_EXT_TASK_ERR_DETAILS", "ACT_RU_EXT_TASK", "ERROR_DETAILS_ID_")
    create_index("ACT_IDX_RU_EXT_TASK_PROC_INST_ID", "ACT_RU_EXT_TASK", "PROC_INST_ID_")
    create_table(
        "ACT_HI_PROCINST",
        column("ID_", _v64, primary_key=True),
        column("PROC_INST_ID_", _v64, nullable=False),
        column("BUSINESS_KEY_", _v255),
        column("PROC_DEF_KEY_", _v255),
        column("PROC_DEF_ID_", _v64, nullable=False),
        column("START_TIME_", TIMESTAMP, nullable=False),
        column("END_TIME_", TIMESTAMP),
        column("REMOVAL_TIME_", TIMESTAMP),
        column("DURATION_", sa.BigInteger),
        column("START_USER_ID_", _v255),
        column("START_ACT_ID_", _v255),
        column("END_ACT_ID_", _v255),
        column("SUPER_PROCESS_INSTANCE_ID_", _v64),
        column("ROOT_PROC_INST_ID_", _v64),
        column("SUPER_CASE_INSTANCE_ID_", _v64),
        column("CASE_INST_ID_", _v64),
        column("DELETE_REASON_", _v4000),
        column("TENANT_ID_", _v64),
        column("STATE_", _v255),
        column("RESTARTED_PROC_INST_ID_", _v64),
        sa.UniqueConstraint("PROC_INST_ID_", name=unquoted("ACT_UNIQ_HI_PROCINST_PROC_INST_ID")),
    )
    create_index("ACT_IDX_HI_PRO_INST_END", "ACT_HI_PROCINST", "END_TIME_")
    create_index("ACT_IDX_HI_PRO_I_BUSKEY", "ACT_HI_PROCINST", "BUSINESS_KEY_")
    create_index("ACT_IDX_HI_PRO_INST_PROC_DEF_KEY", "ACT_HI_PROCINST", "PROC_DEF_KEY_")
    create_index(
        "ACT_IDX_HI_PRO_INST_PROC_TIME",
        "ACT_HI_PROCINST",
        "START_TIME_",
        "END_TIME_",
    )
    create_index(
        "ACT_IDX_HI_PI_PDEFID_END_TIME",
        "ACT_HI_PROCINST",
        "PROC_DEF_ID_",
        "END_TIME_",
    )
    create_index("ACT_IDX_HI_PRO_INST_ROOT_PI", "ACT_HI_PROCINST", "ROOT_PROC_INST_ID_")
    create_index("ACT_IDX_HI_PRO_INST_RM_TIME", "ACT_HI_PROCINST", "REMOVAL_TIME_")
    create_table(
        "ACT_HI_ACTINST",
        column("ID_", _v64, primary_key=True),
        column("PARENT_ACT_INST_ID_", _v64),
        column("PROC_DEF_KEY_", _v255),
        column("PROC_DEF_ID_", _v64, nullable=False),
        column("ROOT_PROC_INST_ID_", _v64),
        column("PROC_INST_ID_", _v64, nullable=False),
        column("EXECUTION_ID_", _v64, nullable=False),
        column("ACT_ID_", _v255, nullable=False),
        column("TASK_ID_", _v64),
        column("CALL_PROC_INST_ID_", _v64),
        column("CALL_CASE_INST_ID_", _v64),
        column("ACT_NAME_", _v255),
        column("ACT_TYPE_", _v255, nullable=False),
        column("ASSIGNEE_", _v255),
        column("START_TIME_", TIMESTAMP, nullable=False),
        column("END_TIME_", TIMESTAMP),
        column("DURATION_", sa.BigInteger),
        column("ACT_INST_STATE_", sa.Integer),
        column("SEQUENCE_COUNTER_", sa.BigInteger),
        column("TENANT_ID_", _v64),
        column("REMOVAL_TIME_", TIMESTAMP),
    )
    create_index(
        "ACT_IDX_HI_ACT_INST_PROCINST",
        "ACT_HI_ACTINST",
        "PROC_INST_ID_",
        "ACT_ID_",
    )
    create_index(
        "ACT_IDX_HI_ACT_INST_COMP",
        "ACT_HI_ACTINST",
        "EXECUTION_ID_",
        "ACT_ID_",
        "END_TIME_",
        "ID_",
    )
    create_index(
        "ACT_IDX_HI_ACT_INST_STATS",
        "ACT_HI_ACTINST",
        "PROC_DEF_ID_",
        "PROC_INST_ID_",
        "ACT_ID_",
        "END_TIME_",
        "ACT_INST_STATE_",
    )
    create_index("ACT_IDX_HI_ACTINST_ROOT_PI", "ACT_HI_ACTINST", "ROOT_PROC_INST_ID_")
    create_index("ACT_IDX_HI_ACT_INST_RM_TIME", "ACT_HI_ACTINST", "REMOVAL_TIME_")
    create_index("ACT_IDX_HI_ACT_INST_END", "ACT_HI_ACTINST", "END_TIME_")
    create_table(
        "ACT_HI_TASKINST",
        column("ID_", _v64, primary_key=True),
        column("TASK_DEF_KEY_", _v255),
        column("PROC_DEF_KEY_", _v255),
        column("PROC_DEF_ID_", _v64),
        column("ROOT_PROC_INST_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("EXECUTION_ID_", _v64),
        column("CASE_DEF_KEY_", _v255),
        column("CASE_DEF_ID_", _v64),
        column("CASE_INST_ID_", _v64),
        column("CASE_EXECUTION_ID_", _v64),
        column("ACT_INST_ID_", _v64),
        column("NAME_", _v255),
        column("PARENT_TASK_ID_", _v64),
        column("DESCRIPTION_", _v4000),
        column("OWNER_", _v255),
        column("ASSIGNEE_", _v255),
        column("START_TIME_", TIMESTAMP, nullable=False),
        column("END_TIME_", TIMESTAMP),
        column("DURATION_", sa.BigInteger),
        column("DELETE_REASON_", _v4000),
        column("PRIORITY_", sa.Integer),
        column("DUE_DATE_", TIMESTAMP),
        column("FOLLOW_UP_DATE_", TIMESTAMP),
        column("TENANT_ID_", _v64),
        column("REMOVAL_TIME_", TIMESTAMP),
        column("TASK_STATE_", _v64),
    )
    create_index("ACT_IDX_HI_TASKINST_PROCINST", "ACT_HI_TASKINST", "PROC_INST_ID_")
    create_table(
        "ACT_HI_VARINST",
        column("ID_", _v64, primary_key=True),
        column("PROC_DEF_KEY_", _v255),
        column("PROC_DEF_ID_", _v64),
        column("ROOT_PROC_INST_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("EXECUTION_ID_", _v64),
        column("ACT_INST_ID_", _v64),
        column("CASE_DEF_KEY_", _v255),
        column("CASE_DEF_ID_", _v64),
        column("CASE_INST_ID_", _v64),
        column("CASE_EXECUTION_ID_", _v64),
        column("TASK_ID_", _v64),
        column("NAME_", _v255, nullable=False),
        column("VAR_TYPE_", _v100),
        column("CREATE_TIME_", TIMESTAMP),
        column("REV_", sa.Integer),
        column("BYTEARRAY_ID_", _v64),
        column("DOUBLE_", DOUBLE),
        column("LONG_", sa.BigInteger),
        column("TEXT_", _v4000),
        column("TEXT2_", _v4000),
        column("TENANT_ID_", _v64),
        column("STATE_", _v20),
        column("REMOVAL_TIME_", TIMESTAMP),
    )
    create_index(
        "ACT_IDX_HI_VAR_PI_NAME_TYPE",
        "ACT_HI_VARINST",
        "PROC_INST_ID_",
        "NAME_",
        "VAR_TYPE_",
    )
    create_table(
        "ACT_HI_DETAIL",
        column("ID_", _v64, primary_key=True),
        column("TYPE_", _v255, nullable=False),
        column("PROC_DEF_KEY_", _v255),
        column("PROC_DEF_ID_", _v64),
        column("ROOT_PROC_INST_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("EXECUTION_ID_", _v64),
        column("CASE_DEF_KEY_", _v255),
        column("CASE_DEF_ID_", _v64),
        column("CASE_INST_ID_", _v64),
        column("CASE_EXECUTION_ID_", _v64),
        column("TASK_ID_", _v64),
        column("ACT_INST_ID_", _v64),
        column("VAR_INST_ID_", _v64),
        column("NAME_", _v255, nullable=False),
        column("VAR_TYPE_", _v64),
        column("REV_", sa.Integer),
        column("TIME_", TIMESTAMP, nullable=False),
        column("BYTEARRAY_ID_", _v64),
        column("DOUBLE_", DOUBLE),
        column("LONG_", sa.BigInteger),
        column("TEXT_", _v4000),
        column("TEXT2_", _v4000),
        column("SEQUENCE_COUNTER_", sa.BigInteger),
        column("TENANT_ID_", _v64),
        column("OPERATION_ID_", _v64),
        column("REMOVAL_TIME_", TIMESTAMP),
        column("INITIAL_", BOOLEAN),
    )
    create_index("ACT_IDX_HI_DETAIL_PROC_INST", "ACT_HI_DETAIL", "PROC_INST_ID_")
    create_index("ACT_IDX_HI_DETAIL_VAR_INST_ID", "ACT_HI_DETAIL", "VAR_INST_ID_")


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
        drop_table(table)
