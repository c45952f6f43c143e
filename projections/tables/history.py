"""History tables: ACT_HI_PROCINST, _ACTINST, _TASKINST, _VARINST, _DETAIL, _INCIDENT and _JOB_LOG,
as in Camunda 7.24.

Definitions only (SQLAlchemy Core); revisions `0002_act_tables` and `0007_jobs_incidents` in
`migrations/versions/` create them.
"""

from __future__ import annotations

import sqlalchemy as sa

from flowledger.projections.tables.types import (
    V20,
    V64,
    V100,
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
