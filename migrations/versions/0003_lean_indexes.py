"""Runtime and history tables keep only the indexes flowledger's queries use.

Every runtime and history row is written on the command path (or by the history follower), and
each secondary index costs one more B-tree page per command, written to the WAL at commit.
Camunda's indexes for history cleanup by removal time, root-instance lookups, activity
statistics, tenants, batches, call activities and owner/last-updated task scans serve features
flowledger does not have yet; those features bring back what they query, by migration. Runtime
rows by process definition or creation time are found through the instance (few rows each), and
an execution's or a task's variables through ACT_UNIQ_VARIABLE (VAR_SCOPE_ is the owner's id);
executions and tasks are found by instance or by id, never by parent or by execution.

Revision ID: 0003_lean_indexes
Revises: 0002_act_tables
Create Date: 2026-12-02
"""

from __future__ import annotations

from flowledger.migrations.ddl import IndexSpec, create_indexes, drop_indexes

revision = "0003_lean_indexes"
down_revision = "0002_act_tables"
branch_labels = None
depends_on = None

# (index, table, columns) exactly as 0002 created them, so downgrade restores them.
_DROPPED: tuple[IndexSpec, ...] = (
    ("ACT_IDX_EXE_SUPER", "ACT_RU_EXECUTION", ("SUPER_EXEC_",)),
    ("ACT_IDX_EXE_PARENT", "ACT_RU_EXECUTION", ("PARENT_ID_",)),
    ("ACT_IDX_TASK_EXEC", "ACT_RU_TASK", ("EXECUTION_ID_",)),
    ("ACT_IDX_VARIABLE_TASK_ID", "ACT_RU_VARIABLE", ("TASK_ID_",)),
    ("ACT_IDX_EXE_PROCDEF", "ACT_RU_EXECUTION", ("PROC_DEF_ID_",)),
    ("ACT_IDX_TASK_PROCDEF", "ACT_RU_TASK", ("PROC_DEF_ID_",)),
    ("ACT_IDX_TASK_CREATE", "ACT_RU_TASK", ("CREATE_TIME_",)),
    ("ACT_IDX_VAR_EXE", "ACT_RU_VARIABLE", ("EXECUTION_ID_",)),
    ("ACT_IDX_EXE_ROOT_PI", "ACT_RU_EXECUTION", ("ROOT_PROC_INST_ID_",)),
    ("ACT_IDX_EXEC_TENANT_ID", "ACT_RU_EXECUTION", ("TENANT_ID_",)),
    ("ACT_IDX_TASK_OWNER", "ACT_RU_TASK", ("OWNER_",)),
    ("ACT_IDX_TASK_LAST_UPDATED", "ACT_RU_TASK", ("LAST_UPDATED_",)),
    ("ACT_IDX_TASK_TENANT_ID", "ACT_RU_TASK", ("TENANT_ID_",)),
    ("ACT_IDX_VAR_BYTEARRAY", "ACT_RU_VARIABLE", ("BYTEARRAY_ID_",)),
    ("ACT_IDX_VARIABLE_TASK_NAME_TYPE", "ACT_RU_VARIABLE", ("TASK_ID_", "NAME_", "TYPE_")),
    ("ACT_IDX_BATCH_ID", "ACT_RU_VARIABLE", ("BATCH_ID_",)),
    ("ACT_IDX_EXT_TASK_ERR_DETAILS", "ACT_RU_EXT_TASK", ("ERROR_DETAILS_ID_",)),
    ("ACT_IDX_HI_PRO_INST_PROC_TIME", "ACT_HI_PROCINST", ("START_TIME_", "END_TIME_")),
    ("ACT_IDX_HI_PI_PDEFID_END_TIME", "ACT_HI_PROCINST", ("PROC_DEF_ID_", "END_TIME_")),
    ("ACT_IDX_HI_PRO_INST_ROOT_PI", "ACT_HI_PROCINST", ("ROOT_PROC_INST_ID_",)),
    ("ACT_IDX_HI_PRO_INST_RM_TIME", "ACT_HI_PROCINST", ("REMOVAL_TIME_",)),
    (
        "ACT_IDX_HI_ACT_INST_COMP",
        "ACT_HI_ACTINST",
        ("EXECUTION_ID_", "ACT_ID_", "END_TIME_", "ID_"),
    ),
    (
        "ACT_IDX_HI_ACT_INST_STATS",
        "ACT_HI_ACTINST",
        ("PROC_DEF_ID_", "PROC_INST_ID_", "ACT_ID_", "END_TIME_", "ACT_INST_STATE_"),
    ),
    ("ACT_IDX_HI_ACTINST_ROOT_PI", "ACT_HI_ACTINST", ("ROOT_PROC_INST_ID_",)),
    ("ACT_IDX_HI_ACT_INST_RM_TIME", "ACT_HI_ACTINST", ("REMOVAL_TIME_",)),
    ("ACT_IDX_HI_ACT_INST_END", "ACT_HI_ACTINST", ("END_TIME_",)),
    ("ACT_IDX_HI_DETAIL_VAR_INST_ID", "ACT_HI_DETAIL", ("VAR_INST_ID_",)),
)


def upgrade() -> None:
    drop_indexes(_DROPPED)


def downgrade() -> None:
    create_indexes(_DROPPED)
