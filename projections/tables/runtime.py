"""Runtime tables: ACT_RU_EXECUTION, _TASK, _IDENTITYLINK, _VARIABLE, _EXT_TASK, _JOB, _JOBDEF,
_INCIDENT and _EVENT_SUBSCR, as in Camunda 7.24.

Definitions only (SQLAlchemy Core); revisions `0002_act_tables`, `0007_jobs_incidents` and
`0008_event_subscriptions` in `migrations/versions/` create them.
"""

from __future__ import annotations

import sqlalchemy as sa

from flowledger.projections.tables.types import (
    V64,
    V255,
    V4000,
    Bool,
    Double,
    Timestamp,
    act_table,
    column,
    index,
    unique,
    unquoted,
)

# No foreign keys, unlike Camunda's runtime group (execution -> parent, task -> execution, ...):
# these tables are projections rebuilt from the event log, and the rows of one flush may be
# written in any order.

ACT_RU_EXECUTION = act_table(
    "ACT_RU_EXECUTION",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("ROOT_PROC_INST_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("BUSINESS_KEY_", V255),
    column("PARENT_ID_", V64),
    column("PROC_DEF_ID_", V64),
    column("SUPER_EXEC_", V64),
    column("SUPER_CASE_EXEC_", V64),
    column("CASE_INST_ID_", V64),
    column("ACT_ID_", V255),
    column("ACT_INST_ID_", V64),
    column("IS_ACTIVE_", Bool),
    column("IS_CONCURRENT_", Bool),
    column("IS_SCOPE_", Bool),
    column("IS_EVENT_SCOPE_", Bool),
    column("SUSPENSION_STATE_", sa.Integer),
    column("CACHED_ENT_STATE_", sa.Integer),
    column("SEQUENCE_COUNTER_", sa.BigInteger),
    column("TENANT_ID_", V64),
    column("PROC_DEF_KEY_", V255),
    index("ACT_IDX_EXE_PROCINST", "PROC_INST_ID_"),
    index("ACT_IDX_EXEC_BUSKEY", "BUSINESS_KEY_"),
)

ACT_RU_TASK = act_table(
    "ACT_RU_TASK",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("EXECUTION_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("PROC_DEF_ID_", V64),
    column("CASE_EXECUTION_ID_", V64),
    column("CASE_INST_ID_", V64),
    column("CASE_DEF_ID_", V64),
    column("NAME_", V255),
    column("PARENT_TASK_ID_", V64),
    column("DESCRIPTION_", V4000),
    column("TASK_DEF_KEY_", V255),
    column("OWNER_", V255),
    column("ASSIGNEE_", V255),
    column("DELEGATION_", V64),
    column("PRIORITY_", sa.Integer),
    column("CREATE_TIME_", Timestamp),
    column("LAST_UPDATED_", Timestamp),
    column("DUE_DATE_", Timestamp),
    column("FOLLOW_UP_DATE_", Timestamp),
    column("SUSPENSION_STATE_", sa.Integer),
    column("TENANT_ID_", V64),
    column("TASK_STATE_", V64),
    index("ACT_IDX_TASK_PROCINST", "PROC_INST_ID_"),
    # Not in Camunda: task lists filtered by task definition key.
    index("ACT_IDX_RU_TASK_TASK_DEF_KEY", "TASK_DEF_KEY_"),
)

# Tasklist's lists, newest first (revision 0006, which says why): all tasks, one user's, and
# the unassigned ones that every candidate list reads; the creation time descending, then the
# id (the list's tie-breaker, ascending), so that a page is the next entries of the index.
sa.Index(
    unquoted("ACT_IDX_TASK_CREATE"),
    ACT_RU_TASK.c.CREATE_TIME_.desc(),
    ACT_RU_TASK.c.ID_,
    quote=False,
)
sa.Index(
    unquoted("ACT_IDX_TASK_ASSIGNEE"),
    ACT_RU_TASK.c.ASSIGNEE_,
    ACT_RU_TASK.c.CREATE_TIME_.desc(),
    ACT_RU_TASK.c.ID_,
    quote=False,
)

ACT_RU_IDENTITYLINK = act_table(
    "ACT_RU_IDENTITYLINK",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("GROUP_ID_", V255),
    column("TYPE_", V255),
    column("USER_ID_", V255),
    column("TASK_ID_", V64),
    column("PROC_DEF_ID_", V64),
    column("TENANT_ID_", V64),
    index("ACT_IDX_TSKASS_TASK", "TASK_ID_"),
    # The tasks of candidate groups and users, read from the index alone (revision 0006).
    index("ACT_IDX_IDENT_LNK_USER", "USER_ID_", "TYPE_", "TASK_ID_"),
    index("ACT_IDX_IDENT_LNK_GROUP", "GROUP_ID_", "TYPE_", "TASK_ID_"),
)

ACT_RU_VARIABLE = act_table(
    "ACT_RU_VARIABLE",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("TYPE_", V255, nullable=False),
    column("NAME_", V255, nullable=False),
    column("EXECUTION_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("PROC_DEF_ID_", V64),
    column("CASE_EXECUTION_ID_", V64),
    column("CASE_INST_ID_", V64),
    column("TASK_ID_", V64),
    column("BATCH_ID_", V64),
    column("BYTEARRAY_ID_", V64),
    column("DOUBLE_", Double),
    column("LONG_", sa.BigInteger),
    column("TEXT_", V4000),
    column("TEXT2_", V4000),
    column("VAR_SCOPE_", V64),
    column("SEQUENCE_COUNTER_", sa.BigInteger),
    column("IS_CONCURRENT_LOCAL_", Bool),
    column("TENANT_ID_", V64),
    unique("ACT_UNIQ_VARIABLE", "VAR_SCOPE_", "NAME_"),
    index("ACT_IDX_VAR_PROCINST", "PROC_INST_ID_"),
)

ACT_RU_EXT_TASK = act_table(
    "ACT_RU_EXT_TASK",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer, nullable=False),
    column("WORKER_ID_", V255),
    column("TOPIC_NAME_", V255),
    column("RETRIES_", sa.Integer),
    column("ERROR_MSG_", V4000),
    column("ERROR_DETAILS_ID_", V64),
    column("LOCK_EXP_TIME_", Timestamp),
    column("CREATE_TIME_", Timestamp),
    column("SUSPENSION_STATE_", sa.Integer),
    column("EXECUTION_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("PROC_DEF_ID_", V64),
    column("PROC_DEF_KEY_", V255),
    column("ACT_ID_", V255),
    column("ACT_INST_ID_", V64),
    column("TENANT_ID_", V64),
    column("PRIORITY_", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    column("LAST_FAILURE_LOG_ID_", V64),
    index("ACT_IDX_EXT_TASK_TOPIC", "TOPIC_NAME_"),
    index("ACT_IDX_EXT_TASK_PRIORITY", "PRIORITY_"),
    index("ACT_IDX_EXT_TASK_EXEC", "EXECUTION_ID_"),
    # Not in Camunda: external tasks of one process instance.
    index("ACT_IDX_RU_EXT_TASK_PROC_INST_ID", "PROC_INST_ID_"),
)

ACT_RU_JOB = act_table(
    "ACT_RU_JOB",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("TYPE_", V255, nullable=False),
    # The lease of a job executor: written by the executor alone, never by the projection
    # (a projected write of the job ends the lease), and ignored by replay comparisons.
    column("LOCK_EXP_TIME_", Timestamp),
    column("LOCK_OWNER_", V255),
    column("EXCLUSIVE_", Bool),
    column("EXECUTION_ID_", V64),
    column("ROOT_PROC_INST_ID_", V64),
    column("PROCESS_INSTANCE_ID_", V64),
    column("PROCESS_DEF_ID_", V64),
    column("PROCESS_DEF_KEY_", V255),
    column("RETRIES_", sa.Integer),
    column("EXCEPTION_STACK_ID_", V64),
    column("EXCEPTION_MSG_", V4000),
    column("FAILED_ACT_ID_", V255),
    column("DUEDATE_", Timestamp),
    column("REPEAT_", V255),
    column("REPEAT_OFFSET_", sa.BigInteger, server_default=sa.text("0")),
    column("HANDLER_TYPE_", V255),
    column("HANDLER_CFG_", V4000),
    column("DEPLOYMENT_ID_", V64),
    column("SUSPENSION_STATE_", sa.Integer, nullable=False, server_default=sa.text("1")),
    column("JOB_DEF_ID_", V64),
    column("PRIORITY_", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    column("SEQUENCE_COUNTER_", sa.BigInteger),
    column("TENANT_ID_", V64),
    column("CREATE_TIME_", Timestamp),
    column("LAST_FAILURE_LOG_ID_", V64),
    column("BATCH_ID_", V64),
    # Not in Camunda (which finds a job's activity through its job definition): the activity
    # the job belongs to, for the job query's activityId filter.
    column("ACT_ID_", V255),
    index("ACT_IDX_JOB_PROCINST", "PROCESS_INSTANCE_ID_"),
    index("ACT_IDX_JOB_EXECUTION_ID", "EXECUTION_ID_"),
    # Not in Camunda: the job executor's acquisition reads due jobs in due-date order (revision
    # 0007 says why this shape).
    index("ACT_IDX_JOB_DUEDATE", "DUEDATE_", "ID_"),
    # Camunda's: a batch's jobs by their job definition (statistics, its monitor's count).
    index("ACT_IDX_JOB_JOB_DEF_ID", "JOB_DEF_ID_"),
)

# The job definitions of deployed process definitions: written with their deployment.
ACT_RU_JOBDEF = act_table(
    "ACT_RU_JOBDEF",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("PROC_DEF_ID_", V64),
    column("PROC_DEF_KEY_", V255),
    column("ACT_ID_", V255),
    column("JOB_TYPE_", V255, nullable=False),
    column("JOB_CONFIGURATION_", V255),
    column("SUSPENSION_STATE_", sa.Integer),
    column("JOB_PRIORITY_", sa.BigInteger),
    column("TENANT_ID_", V64),
    column("DEPLOYMENT_ID_", V64),
)

ACT_RU_INCIDENT = act_table(
    "ACT_RU_INCIDENT",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer, nullable=False),
    column("INCIDENT_TIMESTAMP_", Timestamp, nullable=False),
    column("INCIDENT_MSG_", V4000),
    column("INCIDENT_TYPE_", V255, nullable=False),
    column("EXECUTION_ID_", V64),
    column("ACTIVITY_ID_", V255),
    column("FAILED_ACTIVITY_ID_", V255),
    column("PROC_INST_ID_", V64),
    column("PROC_DEF_ID_", V64),
    column("CAUSE_INCIDENT_ID_", V64),
    column("ROOT_CAUSE_INCIDENT_ID_", V64),
    column("CONFIGURATION_", V255),
    column("TENANT_ID_", V64),
    column("JOB_DEF_ID_", V64),
    column("ANNOTATION_", V4000),
    index("ACT_IDX_INC_PROCINSTID", "PROC_INST_ID_"),
    index("ACT_IDX_INC_CONFIGURATION", "CONFIGURATION_"),
)


ACT_RU_EVENT_SUBSCR = act_table(
    "ACT_RU_EVENT_SUBSCR",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("EVENT_TYPE_", V255, nullable=False),
    column("EVENT_NAME_", V255),
    column("EXECUTION_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("ACTIVITY_ID_", V255),
    column("CONFIGURATION_", V255),
    column("CREATED_", Timestamp, nullable=False),
    column("TENANT_ID_", V64),
    # not Camunda's: the activity instance the subscription ends with
    column("ACT_INST_ID_", V64),
    index("ACT_IDX_EVENT_SUBSCR", "EXECUTION_ID_"),
    index("ACT_IDX_EVENT_SUBSCR_EVT_NAME", "EVENT_NAME_"),
    index("ACT_IDX_EVENT_SUBSCR_PROCINST", "PROC_INST_ID_"),
)


# Batches (issue 37), as Camunda 7.24's DDL: written from the events of the batch's stream.
ACT_RU_BATCH = act_table(
    "ACT_RU_BATCH",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer, nullable=False),
    column("TYPE_", V255),
    column("TOTAL_JOBS_", sa.Integer),
    column("JOBS_CREATED_", sa.Integer),
    column("JOBS_PER_SEED_", sa.Integer),
    column("INVOCATIONS_PER_JOB_", sa.Integer),
    column("SEED_JOB_DEF_ID_", V64),
    column("BATCH_JOB_DEF_ID_", V64),
    column("MONITOR_JOB_DEF_ID_", V64),
    column("SUSPENSION_STATE_", sa.Integer),
    column("CONFIGURATION_", V255),
    column("TENANT_ID_", V64),
    column("CREATE_USER_ID_", V255),
    column("START_TIME_", Timestamp),
    column("EXEC_START_TIME_", Timestamp),
    index("ACT_IDX_BATCH_SEED_JOB_DEF", "SEED_JOB_DEF_ID_"),
    index("ACT_IDX_BATCH_MONITOR_JOB_DEF", "MONITOR_JOB_DEF_ID_"),
    index("ACT_IDX_BATCH_JOB_DEF", "BATCH_JOB_DEF_ID_"),
)
