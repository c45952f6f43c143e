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

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.sql.elements import quoted_name

revision = "0007_jobs_incidents"
down_revision = "0006_list_indexes"
branch_labels = None
depends_on = None

# Frozen history, as revision 0002: every definition spelled out here, never imported from
# `projections.tables`; identifiers unquoted; no foreign keys.

_timestamp = sa.DateTime().with_variant(mysql.DATETIME(fsp=3), "mysql", "mariadb")
_bool = sa.Boolean(create_constraint=False)
_v64 = sa.String(64)
_v255 = sa.String(255)
_v4000 = sa.String(4000)

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
        "ACT_RU_JOB",
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer),
        _column("TYPE_", _v255, nullable=False),
        _column("LOCK_EXP_TIME_", _timestamp),
        _column("LOCK_OWNER_", _v255),
        _column("EXCLUSIVE_", _bool),
        _column("EXECUTION_ID_", _v64),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("PROCESS_INSTANCE_ID_", _v64),
        _column("PROCESS_DEF_ID_", _v64),
        _column("PROCESS_DEF_KEY_", _v255),
        _column("RETRIES_", sa.Integer),
        _column("EXCEPTION_STACK_ID_", _v64),
        _column("EXCEPTION_MSG_", _v4000),
        _column("FAILED_ACT_ID_", _v255),
        _column("DUEDATE_", _timestamp),
        _column("REPEAT_", _v255),
        _column("REPEAT_OFFSET_", sa.BigInteger, server_default=sa.text("0")),
        _column("HANDLER_TYPE_", _v255),
        _column("HANDLER_CFG_", _v4000),
        _column("DEPLOYMENT_ID_", _v64),
        _column("SUSPENSION_STATE_", sa.Integer, nullable=False, server_default=sa.text("1")),
        _column("JOB_DEF_ID_", _v64),
        _column("PRIORITY_", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        _column("SEQUENCE_COUNTER_", sa.BigInteger),
        _column("TENANT_ID_", _v64),
        _column("CREATE_TIME_", _timestamp),
        _column("LAST_FAILURE_LOG_ID_", _v64),
        _column("BATCH_ID_", _v64),
        _column("ACT_ID_", _v255),
    )
    _index("ACT_IDX_JOB_PROCINST", "ACT_RU_JOB", "PROCESS_INSTANCE_ID_")
    _index("ACT_IDX_JOB_EXECUTION_ID", "ACT_RU_JOB", "EXECUTION_ID_")
    _index("ACT_IDX_JOB_DUEDATE", "ACT_RU_JOB", "DUEDATE_", "ID_")
    _table(
        "ACT_RU_JOBDEF",
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer),
        _column("PROC_DEF_ID_", _v64),
        _column("PROC_DEF_KEY_", _v255),
        _column("ACT_ID_", _v255),
        _column("JOB_TYPE_", _v255, nullable=False),
        _column("JOB_CONFIGURATION_", _v255),
        _column("SUSPENSION_STATE_", sa.Integer),
        _column("JOB_PRIORITY_", sa.BigInteger),
        _column("TENANT_ID_", _v64),
        _column("DEPLOYMENT_ID_", _v64),
    )
    _table(
        "ACT_RU_INCIDENT",
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer, nullable=False),
        _column("INCIDENT_TIMESTAMP_", _timestamp, nullable=False),
        _column("INCIDENT_MSG_", _v4000),
        _column("INCIDENT_TYPE_", _v255, nullable=False),
        _column("EXECUTION_ID_", _v64),
        _column("ACTIVITY_ID_", _v255),
        _column("FAILED_ACTIVITY_ID_", _v255),
        _column("PROC_INST_ID_", _v64),
        _column("PROC_DEF_ID_", _v64),
        _column("CAUSE_INCIDENT_ID_", _v64),
        _column("ROOT_CAUSE_INCIDENT_ID_", _v64),
        _column("CONFIGURATION_", _v255),
        _column("TENANT_ID_", _v64),
        _column("JOB_DEF_ID_", _v64),
        _column("ANNOTATION_", _v4000),
    )
    _index("ACT_IDX_INC_PROCINSTID", "ACT_RU_INCIDENT", "PROC_INST_ID_")
    _index("ACT_IDX_INC_CONFIGURATION", "ACT_RU_INCIDENT", "CONFIGURATION_")
    _table(
        "ACT_HI_INCIDENT",
        _column("ID_", _v64, primary_key=True),
        _column("PROC_DEF_KEY_", _v255),
        _column("PROC_DEF_ID_", _v64),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("EXECUTION_ID_", _v64),
        _column("CREATE_TIME_", _timestamp, nullable=False),
        _column("END_TIME_", _timestamp),
        _column("INCIDENT_MSG_", _v4000),
        _column("INCIDENT_TYPE_", _v255, nullable=False),
        _column("ACTIVITY_ID_", _v255),
        _column("FAILED_ACTIVITY_ID_", _v255),
        _column("CAUSE_INCIDENT_ID_", _v64),
        _column("ROOT_CAUSE_INCIDENT_ID_", _v64),
        _column("CONFIGURATION_", _v255),
        _column("HISTORY_CONFIGURATION_", _v255),
        _column("INCIDENT_STATE_", sa.Integer),
        _column("TENANT_ID_", _v64),
        _column("JOB_DEF_ID_", _v64),
        _column("ANNOTATION_", _v4000),
        _column("REMOVAL_TIME_", _timestamp),
    )
    _index("ACT_IDX_HI_INCIDENT_PROCINST", "ACT_HI_INCIDENT", "PROC_INST_ID_")
    _table(
        "ACT_HI_JOB_LOG",
        _column("ID_", _v64, primary_key=True),
        _column("TIMESTAMP_", _timestamp, nullable=False),
        _column("JOB_ID_", _v64, nullable=False),
        _column("JOB_DUEDATE_", _timestamp),
        _column("JOB_RETRIES_", sa.Integer),
        _column("JOB_PRIORITY_", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        _column("JOB_EXCEPTION_MSG_", _v4000),
        _column("JOB_EXCEPTION_STACK_ID_", _v64),
        _column("JOB_STATE_", sa.Integer),
        _column("JOB_DEF_ID_", _v64),
        _column("JOB_DEF_TYPE_", _v255),
        _column("JOB_DEF_CONFIGURATION_", _v255),
        _column("ACT_ID_", _v255),
        _column("FAILED_ACT_ID_", _v255),
        _column("HOSTNAME_", _v255),
        _column("EXECUTION_ID_", _v64),
        _column("ROOT_PROC_INST_ID_", _v64),
        _column("PROCESS_INSTANCE_ID_", _v64),
        _column("PROCESS_DEF_ID_", _v64),
        _column("PROCESS_DEF_KEY_", _v255),
        _column("DEPLOYMENT_ID_", _v64),
        _column("SEQUENCE_COUNTER_", sa.BigInteger),
        _column("TENANT_ID_", _v64),
        _column("REMOVAL_TIME_", _timestamp),
    )
    _index("ACT_IDX_HI_JOB_LOG_PROCINST", "ACT_HI_JOB_LOG", "PROCESS_INSTANCE_ID_")
    _index("ACT_IDX_HI_JOB_LOG_JOB_ID", "ACT_HI_JOB_LOG", "JOB_ID_")


def downgrade() -> None:
    for table in (
        "ACT_HI_JOB_LOG",
        "ACT_HI_INCIDENT",
        "ACT_RU_INCIDENT",
        "ACT_RU_JOBDEF",
        "ACT_RU_JOB",
    ):
        op.drop_table(_name(table))
