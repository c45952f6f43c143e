"""Jobs and incidents: ACT_RU_JOB, ACT_RU_JOBDEF, ACT_RU_INCIDENT, ACT_HI_INCIDENT, ACT_HI_JOB_LOG.

Timers and asynchronous continuations are jobs for the job executor; a job (or an external task)
that runs out of retries raises an incident. The tables are Camunda 7.24's, with one column
more: ACT_RU_JOB.ACT_ID_, the activity a job belongs to (Camunda reaches it through the job's
definition; the job query filters by it). ACT_RU_JOBDEF is created for Camunda's schema and
stays empty until job definitions are projected.

Nothing to rebuild: the logs written before this revision hold no job or incident events, so
the new tables start out as a rebuild would leave them, empty.

Indexes: the job's instance and execution (Camunda's ACT_IDX_JOB_PROCINST and
ACT_IDX_JOB_EXECUTION_ID: a command that ends an execution deletes its jobs), and one that is
not Camunda's for acquisition, (DUEDATE_, ID_). The executor reads due jobs, oldest due date
first, a few at a time: from this index it reads the due ones in order and stops, checking the
retries, lease and suspension of each row it reads. Led by RETRIES_ instead, the index would
give no order (RETRIES_ > 0 is a range), and every due job would be sorted at each acquisition.
Jobs without a due date (asynchronous continuations) sort first, as due since they were made.
Incidents by instance and by CONFIGURATION_ (the job or external task that raised one, as
Camunda's ACT_IDX_INC_PROCINSTID and ACT_IDX_INC_CONFIGURATION); history by instance (what
deleting an instance's history purges by) and the job log by job too.

Revision ID: 0007_jobs_incidents
Revises: 0006_list_indexes
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa

from flowledger.migrations.ddl import (
    BOOLEAN,
    TIMESTAMP,
    column,
    create_index,
    create_table,
    drop_table,
)

revision = "0007_jobs_incidents"
down_revision = "0006_list_indexes"
branch_labels = None
depends_on = None

# Frozen history, as revision 0002: every table spelled out here, never imported from
# `projections.tables`; identifiers unquoted; no foreign keys.

_v64 = sa.String(64)
_v255 = sa.String(255)
_v4000 = sa.String(4000)


def upgrade() -> None:
    create_table(
        "ACT_RU_JOB",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer),
        column("TYPE_", _v255, nullable=False),
        column("LOCK_EXP_TIME_", TIMESTAMP),
        column("LOCK_OWNER_", _v255),
        column("EXCLUSIVE_", BOOLEAN),
        column("EXECUTION_ID_", _v64),
        column("ROOT_PROC_INST_ID_", _v64),
        column("PROCESS_INSTANCE_ID_", _v64),
        column("PROCESS_DEF_ID_", _v64),
        column("PROCESS_DEF_KEY_", _v255),
        column("RETRIES_", sa.Integer),
        column("EXCEPTION_STACK_ID_", _v64),
        column("EXCEPTION_MSG_", _v4000),
        column("FAILED_ACT_ID_", _v255),
        column("DUEDATE_", TIMESTAMP),
        column("REPEAT_", _v255),
        column("REPEAT_OFFSET_", sa.BigInteger, server_default=sa.text("0")),
        column("HANDLER_TYPE_", _v255),
        column("HANDLER_CFG_", _v4000),
        column("DEPLOYMENT_ID_", _v64),
        column("SUSPENSION_STATE_", sa.Integer, nullable=False, server_default=sa.text("1")),
        column("JOB_DEF_ID_", _v64),
        column("PRIORITY_", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        column("SEQUENCE_COUNTER_", sa.BigInteger),
        column("TENANT_ID_", _v64),
        column("CREATE_TIME_", TIMESTAMP),
        column("LAST_FAILURE_LOG_ID_", _v64),
        column("BATCH_ID_", _v64),
        column("ACT_ID_", _v255),
    )
    create_index("ACT_IDX_JOB_PROCINST", "ACT_RU_JOB", "PROCESS_INSTANCE_ID_")
    create_index("ACT_IDX_JOB_EXECUTION_ID", "ACT_RU_JOB", "EXECUTION_ID_")
    create_index("ACT_IDX_JOB_DUEDATE", "ACT_RU_JOB", "DUEDATE_", "ID_")
    create_table(
        "ACT_RU_JOBDEF",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer),
        column("PROC_DEF_ID_", _v64),
        column("PROC_DEF_KEY_", _v255),
        column("ACT_ID_", _v255),
        column("JOB_TYPE_", _v255, nullable=False),
        column("JOB_CONFIGURATION_", _v255),
        column("SUSPENSION_STATE_", sa.Integer),
        column("JOB_PRIORITY_", sa.BigInteger),
        column("TENANT_ID_", _v64),
        column("DEPLOYMENT_ID_", _v64),
    )
    create_table(
        "ACT_RU_INCIDENT",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer, nullable=False),
        column("INCIDENT_TIMESTAMP_", TIMESTAMP, nullable=False),
        column("INCIDENT_MSG_", _v4000),
        column("INCIDENT_TYPE_", _v255, nullable=False),
        column("EXECUTION_ID_", _v64),
        column("ACTIVITY_ID_", _v255),
        column("FAILED_ACTIVITY_ID_", _v255),
        column("PROC_INST_ID_", _v64),
        column("PROC_DEF_ID_", _v64),
        column("CAUSE_INCIDENT_ID_", _v64),
        column("ROOT_CAUSE_INCIDENT_ID_", _v64),
        column("CONFIGURATION_", _v255),
        column("TENANT_ID_", _v64),
        column("JOB_DEF_ID_", _v64),
        column("ANNOTATION_", _v4000),
    )
    create_index("ACT_IDX_INC_PROCINSTID", "ACT_RU_INCIDENT", "PROC_INST_ID_")
    create_index("ACT_IDX_INC_CONFIGURATION", "ACT_RU_INCIDENT", "CONFIGURATION_")
    create_table(
        "ACT_HI_INCIDENT",
        column("ID_", _v64, primary_key=True),
        column("PROC_DEF_KEY_", _v255),
        column("PROC_DEF_ID_", _v64),
        column("ROOT_PROC_INST_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("EXECUTION_ID_", _v64),
        column("CREATE_TIME_", TIMESTAMP, nullable=False),
        column("END_TIME_", TIMESTAMP),
        column("INCIDENT_MSG_", _v4000),
        column("INCIDENT_TYPE_", _v255, nullable=False),
        column("ACTIVITY_ID_", _v255),
        column("FAILED_ACTIVITY_ID_", _v255),
        column("CAUSE_INCIDENT_ID_", _v64),
        column("ROOT_CAUSE_INCIDENT_ID_", _v64),
        column("CONFIGURATION_", _v255),
        column("HISTORY_CONFIGURATION_", _v255),
        column("INCIDENT_STATE_", sa.Integer),
        column("TENANT_ID_", _v64),
        column("JOB_DEF_ID_", _v64),
        column("ANNOTATION_", _v4000),
        column("REMOVAL_TIME_", TIMESTAMP),
    )
    create_index("ACT_IDX_HI_INCIDENT_PROCINST", "ACT_HI_INCIDENT", "PROC_INST_ID_")
    create_table(
        "ACT_HI_JOB_LOG",
        column("ID_", _v64, primary_key=True),
        column("TIMESTAMP_", TIMESTAMP, nullable=False),
        column("JOB_ID_", _v64, nullable=False),
        column("JOB_DUEDATE_", TIMESTAMP),
        column("JOB_RETRIES_", sa.Integer),
        column("JOB_PRIORITY_", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        column("JOB_EXCEPTION_MSG_", _v4000),
        column("JOB_EXCEPTION_STACK_ID_", _v64),
        column("JOB_STATE_", sa.Integer),
        column("JOB_DEF_ID_", _v64),
        column("JOB_DEF_TYPE_", _v255),
        column("JOB_DEF_CONFIGURATION_", _v255),
        column("ACT_ID_", _v255),
        column("FAILED_ACT_ID_", _v255),
        column("HOSTNAME_", _v255),
        column("EXECUTION_ID_", _v64),
        column("ROOT_PROC_INST_ID_", _v64),
        column("PROCESS_INSTANCE_ID_", _v64),
        column("PROCESS_DEF_ID_", _v64),
        column("PROCESS_DEF_KEY_", _v255),
        column("DEPLOYMENT_ID_", _v64),
        column("SEQUENCE_COUNTER_", sa.BigInteger),
        column("TENANT_ID_", _v64),
        column("REMOVAL_TIME_", TIMESTAMP),
    )
    create_index("ACT_IDX_HI_JOB_LOG_PROCINST", "ACT_HI_JOB_LOG", "PROCESS_INSTANCE_ID_")
    create_index("ACT_IDX_HI_JOB_LOG_JOB_ID", "ACT_HI_JOB_LOG", "JOB_ID_")


def downgrade() -> None:
    for table in (
        "ACT_HI_JOB_LOG",
        "ACT_HI_INCIDENT",
        "ACT_RU_INCIDENT",
        "ACT_RU_JOBDEF",
        "ACT_RU_JOB",
    ):
        drop_table(table)
