"""History tables: ACT_HI_PROCINST, _ACTINST, _TASKINST, _VARINST, _DETAIL, _INCIDENT, _JOB_LOG,
_OP_LOG, _COMMENT and the decision history (_DECINST, _DEC_IN, _DEC_OUT), as in Camunda 7.24.

Definitions only (SQLAlchemy Core); revisions `0002_act_tables`, `0007_jobs_incidents`,
`0012_user_operation_log`, `0013_decisions`, `0016_comments` and `0017_cockpit_indexes` in
`migrations/versions/` create them.
"""

from __future__ import annotations

import sqlalchemy as sa

from flowledger.projections.tables.types import (
    V20,
    V30,
    V64,
    V100,
    V255,
    V4000,
    Blob,
    Bool,
    Double,
    Timestamp,
    act_table,
    column,
    index,
    unique,
    unquoted,
)

# No foreign keys (Camunda has none between ACT_HI_* tables either): these tables are projections
# rebuilt from the event log, and the rows of one flush may be written in any order.

ACT_HI_PROCINST = act_table(
    "ACT_HI_PROCINST",
    column("ID_", V64, primary_key=True),
    column("PROC_INST_ID_", V64, nullable=False),
    column("BUSINESS_KEY_", V255),
    column("PROC_DEF_KEY_", V255),
    column("PROC_DEF_ID_", V64, nullable=False),
    column("START_TIME_", Timestamp, nullable=False),
    column("END_TIME_", Timestamp),
    column("REMOVAL_TIME_", Timestamp),
    column("DURATION_", sa.BigInteger),
    column("START_USER_ID_", V255),
    column("START_ACT_ID_", V255),
    column("END_ACT_ID_", V255),
    column("SUPER_PROCESS_INSTANCE_ID_", V64),
    column("ROOT_PROC_INST_ID_", V64),
    column("SUPER_CASE_INSTANCE_ID_", V64),
    column("CASE_INST_ID_", V64),
    column("DELETE_REASON_", V4000),
    column("TENANT_ID_", V64),
    column("STATE_", V255),
    column("RESTARTED_PROC_INST_ID_", V64),
    # flowledger's: events the instance produced, up to the one that ended it (revision 0011)
    column("EVENT_COUNT_", sa.BigInteger),
    # Camunda declares it inline and unnamed (`unique (PROC_INST_ID_)`); named here so that a
    # later revision can address it on every dialect.
    unique("ACT_UNIQ_HI_PROCINST_PROC_INST_ID", "PROC_INST_ID_"),
    index("ACT_IDX_HI_PRO_I_BUSKEY", "BUSINESS_KEY_"),
    # a root's end finds its hierarchy to stamp its removal time (revision 0015)
    index("ACT_IDX_HI_PRO_INST_ROOT_PI", "ROOT_PROC_INST_ID_"),
    # Camunda's: a definition's instances counted and paged from the index (revision 0017)
    index("ACT_IDX_HI_PI_PDEFID_END_TIME", "PROC_DEF_ID_", "END_TIME_"),
)

ACT_HI_ACTINST = act_table(
    "ACT_HI_ACTINST",
    column("ID_", V64, primary_key=True),
    column("PARENT_ACT_INST_ID_", V64),
    column("PROC_DEF_KEY_", V255),
    column("PROC_DEF_ID_", V64, nullable=False),
    column("ROOT_PROC_INST_ID_", V64),
    column("PROC_INST_ID_", V64, nullable=False),
    column("EXECUTION_ID_", V64, nullable=False),
    column("ACT_ID_", V255, nullable=False),
    column("TASK_ID_", V64),
    column("CALL_PROC_INST_ID_", V64),
    column("CALL_CASE_INST_ID_", V64),
    column("ACT_NAME_", V255),
    column("ACT_TYPE_", V255, nullable=False),
    column("ASSIGNEE_", V255),
    column("START_TIME_", Timestamp, nullable=False),
    column("END_TIME_", Timestamp),
    column("DURATION_", sa.BigInteger),
    column("ACT_INST_STATE_", sa.Integer),
    column("SEQUENCE_COUNTER_", sa.BigInteger),
    column("TENANT_ID_", V64),
    column("REMOVAL_TIME_", Timestamp),
    index("ACT_IDX_HI_ACT_INST_PROCINST", "PROC_INST_ID_", "ACT_ID_"),
    # Camunda's name, back with the historic activity statistics (revision 0016), holding the
    # durations too (0017): a definition's heat map counted and timed from the index alone
    index(
        "ACT_IDX_HI_ACT_INST_STATS",
        "PROC_DEF_ID_",
        "ACT_ID_",
        "END_TIME_",
        "ACT_INST_STATE_",
        "DURATION_",
    ),
)

ACT_HI_TASKINST = act_table(
    "ACT_HI_TASKINST",
    column("ID_", V64, primary_key=True),
    column("TASK_DEF_KEY_", V255),
    column("PROC_DEF_KEY_", V255),
    column("PROC_DEF_ID_", V64),
    column("ROOT_PROC_INST_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("EXECUTION_ID_", V64),
    column("CASE_DEF_KEY_", V255),
    column("CASE_DEF_ID_", V64),
    column("CASE_INST_ID_", V64),
    column("CASE_EXECUTION_ID_", V64),
    column("ACT_INST_ID_", V64),
    column("NAME_", V255),
    column("PARENT_TASK_ID_", V64),
    column("DESCRIPTION_", V4000),
    column("OWNER_", V255),
    column("ASSIGNEE_", V255),
    column("START_TIME_", Timestamp, nullable=False),
    column("END_TIME_", Timestamp),
    column("DURATION_", sa.BigInteger),
    column("DELETE_REASON_", V4000),
    column("PRIORITY_", sa.Integer),
    column("DUE_DATE_", Timestamp),
    column("FOLLOW_UP_DATE_", Timestamp),
    column("TENANT_ID_", V64),
    column("REMOVAL_TIME_", Timestamp),
    column("TASK_STATE_", V64),
    index("ACT_IDX_HI_TASKINST_PROCINST", "PROC_INST_ID_"),
)

ACT_HI_VARINST = act_table(
    "ACT_HI_VARINST",
    column("ID_", V64, primary_key=True),
    column("PROC_DEF_KEY_", V255),
    column("PROC_DEF_ID_", V64),
    column("ROOT_PROC_INST_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("EXECUTION_ID_", V64),
    column("ACT_INST_ID_", V64),
    column("CASE_DEF_KEY_", V255),
    column("CASE_DEF_ID_", V64),
    column("CASE_INST_ID_", V64),
    column("CASE_EXECUTION_ID_", V64),
    column("TASK_ID_", V64),
    column("NAME_", V255, nullable=False),
    column("VAR_TYPE_", V100),
    column("CREATE_TIME_", Timestamp),
    column("REV_", sa.Integer),
    column("BYTEARRAY_ID_", V64),
    column("DOUBLE_", Double),
    column("LONG_", sa.BigInteger),
    column("TEXT_", V4000),
    column("TEXT2_", V4000),
    column("TENANT_ID_", V64),
    column("STATE_", V20),
    column("REMOVAL_TIME_", Timestamp),
    # Camunda's index; its leading (PROC_INST_ID_, NAME_) serves lookups by instance and name.
    index("ACT_IDX_HI_VAR_PI_NAME_TYPE", "PROC_INST_ID_", "NAME_", "VAR_TYPE_"),
)

ACT_HI_DETAIL = act_table(
    "ACT_HI_DETAIL",
    column("ID_", V64, primary_key=True),
    column("TYPE_", V255, nullable=False),
    column("PROC_DEF_KEY_", V255),
    column("PROC_DEF_ID_", V64),
    column("ROOT_PROC_INST_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("EXECUTION_ID_", V64),
    column("CASE_DEF_KEY_", V255),
    column("CASE_DEF_ID_", V64),
    column("CASE_INST_ID_", V64),
    column("CASE_EXECUTION_ID_", V64),
    column("TASK_ID_", V64),
    column("ACT_INST_ID_", V64),
    column("VAR_INST_ID_", V64),
    column("NAME_", V255, nullable=False),
    column("VAR_TYPE_", V64),
    column("REV_", sa.Integer),
    column("TIME_", Timestamp, nullable=False),
    column("BYTEARRAY_ID_", V64),
    column("DOUBLE_", Double),
    column("LONG_", sa.BigInteger),
    column("TEXT_", V4000),
    column("TEXT2_", V4000),
    column("SEQUENCE_COUNTER_", sa.BigInteger),
    column("TENANT_ID_", V64),
    column("OPERATION_ID_", V64),
    column("REMOVAL_TIME_", Timestamp),
    column("INITIAL_", Bool),
    index("ACT_IDX_HI_DETAIL_PROC_INST", "PROC_INST_ID_"),
)

ACT_HI_INCIDENT = act_table(
    "ACT_HI_INCIDENT",
    column("ID_", V64, primary_key=True),
    column("PROC_DEF_KEY_", V255),
    column("PROC_DEF_ID_", V64),
    column("ROOT_PROC_INST_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("EXECUTION_ID_", V64),
    column("CREATE_TIME_", Timestamp, nullable=False),
    column("END_TIME_", Timestamp),
    column("INCIDENT_MSG_", V4000),
    column("INCIDENT_TYPE_", V255, nullable=False),
    column("ACTIVITY_ID_", V255),
    column("FAILED_ACTIVITY_ID_", V255),
    column("CAUSE_INCIDENT_ID_", V64),
    column("ROOT_CAUSE_INCIDENT_ID_", V64),
    column("CONFIGURATION_", V255),
    column("HISTORY_CONFIGURATION_", V255),
    column("INCIDENT_STATE_", sa.Integer),
    column("TENANT_ID_", V64),
    column("JOB_DEF_ID_", V64),
    column("ANNOTATION_", V4000),
    column("REMOVAL_TIME_", Timestamp),
    index("ACT_IDX_HI_INCIDENT_PROCINST", "PROC_INST_ID_"),
)

ACT_HI_JOB_LOG = act_table(
    "ACT_HI_JOB_LOG",
    column("ID_", V64, primary_key=True),
    column("TIMESTAMP_", Timestamp, nullable=False),
    column("JOB_ID_", V64, nullable=False),
    column("JOB_DUEDATE_", Timestamp),
    column("JOB_RETRIES_", sa.Integer),
    column("JOB_PRIORITY_", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    column("JOB_EXCEPTION_MSG_", V4000),
    column("JOB_EXCEPTION_STACK_ID_", V64),
    column("JOB_STATE_", sa.Integer),
    column("JOB_DEF_ID_", V64),
    column("JOB_DEF_TYPE_", V255),
    column("JOB_DEF_CONFIGURATION_", V255),
    column("ACT_ID_", V255),
    column("FAILED_ACT_ID_", V255),
    column("HOSTNAME_", V255),
    column("EXECUTION_ID_", V64),
    column("ROOT_PROC_INST_ID_", V64),
    column("PROCESS_INSTANCE_ID_", V64),
    column("PROCESS_DEF_ID_", V64),
    column("PROCESS_DEF_KEY_", V255),
    column("DEPLOYMENT_ID_", V64),
    column("SEQUENCE_COUNTER_", sa.BigInteger),
    column("TENANT_ID_", V64),
    column("REMOVAL_TIME_", Timestamp),
    index("ACT_IDX_HI_JOB_LOG_PROCINST", "PROCESS_INSTANCE_ID_"),
    index("ACT_IDX_HI_JOB_LOG_JOB_ID", "JOB_ID_"),
)

# Who did what through the API (level full): one row per property an operation changed, the
# rows of one command sharing OPERATION_ID_. Camunda 7.24's columns; the CASE_* and BATCH_ID_
# columns stay empty (no CMMN, no batches), kept so Camunda's tools find the table they expect.
ACT_HI_OP_LOG = act_table(
    "ACT_HI_OP_LOG",
    column("ID_", V64, primary_key=True),
    column("DEPLOYMENT_ID_", V64),
    column("PROC_DEF_ID_", V64),
    column("PROC_DEF_KEY_", V255),
    column("ROOT_PROC_INST_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("EXECUTION_ID_", V64),
    column("CASE_DEF_ID_", V64),
    column("CASE_INST_ID_", V64),
    column("CASE_EXECUTION_ID_", V64),
    column("TASK_ID_", V64),
    column("JOB_ID_", V64),
    column("JOB_DEF_ID_", V64),
    column("BATCH_ID_", V64),
    column("USER_ID_", V255),
    column("TIMESTAMP_", Timestamp, nullable=False),
    column("OPERATION_TYPE_", V64),
    column("OPERATION_ID_", V64),
    column("ENTITY_TYPE_", V30),
    column("PROPERTY_", V64),
    column("ORG_VALUE_", V4000),
    column("NEW_VALUE_", V4000),
    column("TENANT_ID_", V64),
    column("REMOVAL_TIME_", Timestamp),
    column("CATEGORY_", V64),
    column("EXTERNAL_TASK_ID_", V64),
    column("ANNOTATION_", V4000),
    index("ACT_IDX_HI_OP_LOG_ROOT_PI", "ROOT_PROC_INST_ID_"),
    index("ACT_IDX_HI_OP_LOG_PROCINST", "PROC_INST_ID_"),
    index("ACT_IDX_HI_OP_LOG_PROCDEF", "PROC_DEF_ID_"),
    index("ACT_IDX_HI_OP_LOG_TASK", "TASK_ID_"),
    index("ACT_IDX_HI_OP_LOG_RM_TIME", "REMOVAL_TIME_"),
    index("ACT_IDX_HI_OP_LOG_TIMESTAMP", "TIMESTAMP_"),
    index("ACT_IDX_HI_OP_LOG_USER_ID", "USER_ID_"),
    index("ACT_IDX_HI_OP_LOG_OP_TYPE", "OPERATION_TYPE_"),
    index("ACT_IDX_HI_OP_LOG_ENTITY_TYPE", "ENTITY_TYPE_"),
)

# Comments on tasks (any level but none, as Camunda's CommentManager): MESSAGE_ holds the text
# with its whitespace collapsed, cut at 160 characters and "..."; FULL_MSG_ the whole text.
ACT_HI_COMMENT = act_table(
    "ACT_HI_COMMENT",
    column("ID_", V64, primary_key=True),
    column("TYPE_", V255),
    column("TIME_", Timestamp, nullable=False),
    column("USER_ID_", V255),
    column("TASK_ID_", V64),
    column("ROOT_PROC_INST_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("ACTION_", V255),
    column("MESSAGE_", V4000),
    column("FULL_MSG_", Blob),
    column("TENANT_ID_", V64),
    column("REMOVAL_TIME_", Timestamp),
    column("REV_", sa.Integer, nullable=False, server_default=sa.text("1")),
    index("ACT_IDX_HI_COMMENT_TASK", "TASK_ID_"),
    index("ACT_IDX_HI_COMMENT_PROCINST", "PROC_INST_ID_"),
)

# The lists Cockpit reads newest first (revision 0006, which says why): the sorted column
# descending, then the list's tie-breaking order (`Search.then`, ascending), so that a page is
# the next entries of the index, however deep. Camunda's names where Camunda's index starts the
# same. END_TIME_ at the end of a start-time index answers `finished`/`unfinished` from it.
_P, _T = ACT_HI_PROCINST, ACT_HI_TASKINST
sa.Index(
    unquoted("ACT_IDX_HI_PRO_INST_START"),
    _P.c.START_TIME_.desc(),
    _P.c.ID_,
    _P.c.END_TIME_,
    quote=False,
)
sa.Index(
    unquoted("ACT_IDX_HI_PRO_INST_END"),
    _P.c.END_TIME_.desc(),
    _P.c.START_TIME_,
    _P.c.ID_,
    quote=False,
)
sa.Index(
    unquoted("ACT_IDX_HI_PRO_INST_PROC_DEF_KEY"),
    _P.c.PROC_DEF_KEY_,
    _P.c.START_TIME_.desc(),
    _P.c.ID_,
    quote=False,
)
sa.Index(
    unquoted("ACT_IDX_HI_TASK_INST_START"),
    _T.c.START_TIME_.desc(),
    _T.c.ID_,
    _T.c.END_TIME_,
    quote=False,
)
sa.Index(
    unquoted("ACT_IDX_HI_TASK_INST_END"),
    _T.c.END_TIME_.desc(),
    _T.c.START_TIME_,
    _T.c.ID_,
    quote=False,
)

ACT_HI_DECINST = act_table(
    "ACT_HI_DECINST",
    column("ID_", V64, primary_key=True),
    column("DEC_DEF_ID_", V64, nullable=False),
    column("DEC_DEF_KEY_", V255, nullable=False),
    column("DEC_DEF_NAME_", V255),
    column("PROC_DEF_KEY_", V255),
    column("PROC_DEF_ID_", V64),
    column("PROC_INST_ID_", V64),
    column("CASE_DEF_KEY_", V255),
    column("CASE_DEF_ID_", V64),
    column("CASE_INST_ID_", V64),
    column("ACT_INST_ID_", V64),
    column("ACT_ID_", V255),
    column("EVAL_TIME_", Timestamp, nullable=False),
    column("REMOVAL_TIME_", Timestamp),
    column("COLLECT_VALUE_", Double),
    column("USER_ID_", V255),
    column("ROOT_DEC_INST_ID_", V64),
    column("ROOT_PROC_INST_ID_", V64),
    column("DEC_REQ_ID_", V64),
    column("DEC_REQ_KEY_", V255),
    column("TENANT_ID_", V64),
    # Camunda's indexes that flowledger reads by (as revision 0003 kept for the other history
    # tables): by definition, key and instance, the root of an evaluation, the list's order.
    index("ACT_IDX_HI_DEC_INST_ID", "DEC_DEF_ID_"),
    index("ACT_IDX_HI_DEC_INST_KEY", "DEC_DEF_KEY_"),
    index("ACT_IDX_HI_DEC_INST_PI", "PROC_INST_ID_"),
    index("ACT_IDX_HI_DEC_INST_TIME", "EVAL_TIME_", "ID_"),
    index("ACT_IDX_HI_DEC_INST_ROOT_ID", "ROOT_DEC_INST_ID_"),
)

ACT_HI_DEC_IN = act_table(
    "ACT_HI_DEC_IN",
    column("ID_", V64, primary_key=True),
    column("DEC_INST_ID_", V64, nullable=False),
    column("CLAUSE_ID_", V64),
    column("CLAUSE_NAME_", V255),
    column("VAR_TYPE_", V100),
    column("BYTEARRAY_ID_", V64),
    column("DOUBLE_", Double),
    column("LONG_", sa.BigInteger),
    column("TEXT_", V4000),
    column("TEXT2_", V4000),
    column("TENANT_ID_", V64),
    column("CREATE_TIME_", Timestamp),
    column("ROOT_PROC_INST_ID_", V64),
    column("REMOVAL_TIME_", Timestamp),
    index("ACT_IDX_HI_DEC_IN_INST", "DEC_INST_ID_"),
)

ACT_HI_DEC_OUT = act_table(
    "ACT_HI_DEC_OUT",
    column("ID_", V64, primary_key=True),
    column("DEC_INST_ID_", V64, nullable=False),
    column("CLAUSE_ID_", V64),
    column("CLAUSE_NAME_", V255),
    column("RULE_ID_", V64),
    column("RULE_ORDER_", sa.Integer),
    column("VAR_NAME_", V255),
    column("VAR_TYPE_", V100),
    column("BYTEARRAY_ID_", V64),
    column("DOUBLE_", Double),
    column("LONG_", sa.BigInteger),
    column("TEXT_", V4000),
    column("TEXT2_", V4000),
    column("TENANT_ID_", V64),
    column("CREATE_TIME_", Timestamp),
    column("ROOT_PROC_INST_ID_", V64),
    column("REMOVAL_TIME_", Timestamp),
    index("ACT_IDX_HI_DEC_OUT_INST", "DEC_INST_ID_"),
)

# Values of ACT_HI_JOB_LOG.JOB_STATE_, as Camunda writes them.
JOB_CREATED, JOB_FAILED, JOB_SUCCESSFUL, JOB_DELETED = 0, 1, 2, 3
# Values of ACT_HI_INCIDENT.INCIDENT_STATE_.
INCIDENT_OPEN, INCIDENT_RESOLVED, INCIDENT_DELETED = 0, 1, 2


# A batch's history (level full, as Camunda writes it), from the events of its stream.
ACT_HI_BATCH = act_table(
    "ACT_HI_BATCH",
    column("ID_", V64, primary_key=True),
    column("TYPE_", V255),
    column("TOTAL_JOBS_", sa.Integer),
    column("JOBS_PER_SEED_", sa.Integer),
    column("INVOCATIONS_PER_JOB_", sa.Integer),
    column("SEED_JOB_DEF_ID_", V64),
    column("MONITOR_JOB_DEF_ID_", V64),
    column("BATCH_JOB_DEF_ID_", V64),
    column("TENANT_ID_", V64),
    column("CREATE_USER_ID_", V255),
    column("START_TIME_", Timestamp, nullable=False),
    column("END_TIME_", Timestamp),
    column("REMOVAL_TIME_", Timestamp),
    column("EXEC_START_TIME_", Timestamp),
    index("ACT_HI_BAT_RM_TIME", "REMOVAL_TIME_"),
)
