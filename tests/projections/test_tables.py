"""The ACT_* tables: metadata and revision 0002 against Camunda's reference, on SQLite, PG, MariaDB.

PostgreSQL and MariaDB are skipped when unreachable, except under CI=true, where that fails.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.dialects import mysql
from sqlalchemy.engine import Engine
from sqlalchemy.schema import CreateIndex, CreateTable

from flowledger import migrations
from flowledger.projections.tables import (
    ACT_HI_ACTINST,
    ACT_HI_PROCINST,
    ACT_RE_PROCDEF,
    ACT_RU_EXT_TASK,
    ACT_RU_VARIABLE,
    HISTORY_TABLES,
    REPOSITORY_TABLES,
    RUNTIME_TABLES,
    metadata,
)

POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
MARIADB_URL = "mysql+pymysql://root@127.0.0.1:3306/test"

# Copied from shared/reference/camunda7.md §1 (Camunda 7.24's PostgreSQL create scripts), in
# script order: `NAME_ type [NN] [(unique)] [dflt value]`. A drift of the metadata is caught here.
CAMUNDA_COLUMNS: dict[str, str] = {
    "ACT_GE_PROPERTY": "NAME_ v64 NN, VALUE_ v300, REV_ int",
    "ACT_GE_BYTEARRAY": (
        "ID_ v64, REV_ int, NAME_ v255, DEPLOYMENT_ID_ v64, BYTES_ bytea, GENERATED_ bool, "
        "TENANT_ID_ v64, TYPE_ int, CREATE_TIME_ ts, ROOT_PROC_INST_ID_ v64, REMOVAL_TIME_ ts"
    ),
    "ACT_RE_DEPLOYMENT": ("ID_ v64, NAME_ v255, DEPLOY_TIME_ ts, SOURCE_ v255, TENANT_ID_ v64"),
    "ACT_RE_PROCDEF": (
        "ID_ v64 NN, REV_ int, CATEGORY_ v255, NAME_ v255, KEY_ v255 NN, VERSION_ int NN, "
        "DEPLOYMENT_ID_ v64, RESOURCE_NAME_ v4000, DGRM_RESOURCE_NAME_ v4000, "
        "HAS_START_FORM_KEY_ bool, SUSPENSION_STATE_ int, TENANT_ID_ v64, VERSION_TAG_ v64, "
        "HISTORY_TTL_ int, STARTABLE_ bool NN dflt TRUE"
    ),
    "ACT_RU_EXECUTION": (
        "ID_ v64, REV_ int, ROOT_PROC_INST_ID_ v64, PROC_INST_ID_ v64, BUSINESS_KEY_ v255, "
        "PARENT_ID_ v64, PROC_DEF_ID_ v64, SUPER_EXEC_ v64, SUPER_CASE_EXEC_ v64, "
        "CASE_INST_ID_ v64, ACT_ID_ v255, ACT_INST_ID_ v64, IS_ACTIVE_ bool, IS_CONCURRENT_ bool, "
        "IS_SCOPE_ bool, IS_EVENT_SCOPE_ bool, SUSPENSION_STATE_ int, CACHED_ENT_STATE_ int, "
        "SEQUENCE_COUNTER_ big, TENANT_ID_ v64, PROC_DEF_KEY_ v255"
    ),
    "ACT_RU_TASK": (
        "ID_ v64, REV_ int, EXECUTION_ID_ v64, PROC_INST_ID_ v64, PROC_DEF_ID_ v64, "
        "CASE_EXECUTION_ID_ v64, CASE_INST_ID_ v64, CASE_DEF_ID_ v64, NAME_ v255, "
        "PARENT_TASK_ID_ v64, DESCRIPTION_ v4000, TASK_DEF_KEY_ v255, OWNER_ v255, "
        "ASSIGNEE_ v255, DELEGATION_ v64, PRIORITY_ int, CREATE_TIME_ ts, LAST_UPDATED_ ts, "
        "DUE_DATE_ ts, FOLLOW_UP_DATE_ ts, SUSPENSION_STATE_ int, TENANT_ID_ v64, TASK_STATE_ v64"
    ),
    "ACT_RU_IDENTITYLINK": (
        "ID_ v64, REV_ int, GROUP_ID_ v255, TYPE_ v255, USER_ID_ v255, TASK_ID_ v64, "
        "PROC_DEF_ID_ v64, TENANT_ID_ v64"
    ),
    "ACT_RU_VARIABLE": (
        "ID_ v64 NN, REV_ int, TYPE_ v255 NN, NAME_ v255 NN, EXECUTION_ID_ v64, PROC_INST_ID_ v64, "
        "PROC_DEF_ID_ v64, CASE_EXECUTION_ID_ v64, CASE_INST_ID_ v64, TASK_ID_ v64, BATCH_ID_ v64, "
        "BYTEARRAY_ID_ v64, DOUBLE_ dbl, LONG_ big, TEXT_ v4000, TEXT2_ v4000, VAR_SCOPE_ v64, "
        "SEQUENCE_COUNTER_ big, IS_CONCURRENT_LOCAL_ bool, TENANT_ID_ v64"
    ),
    "ACT_RU_EXT_TASK": (
        "ID_ v64 NN, REV_ int NN, WORKER_ID_ v255, TOPIC_NAME_ v255, RETRIES_ int, "
        "ERROR_MSG_ v4000, ERROR_DETAILS_ID_ v64, LOCK_EXP_TIME_ ts, CREATE_TIME_ ts, "
        "SUSPENSION_STATE_ int, EXECUTION_ID_ v64, PROC_INST_ID_ v64, PROC_DEF_ID_ v64, "
        "PROC_DEF_KEY_ v255, ACT_ID_ v255, ACT_INST_ID_ v64, TENANT_ID_ v64, "
        "PRIORITY_ big NN dflt 0, LAST_FAILURE_LOG_ID_ v64"
    ),
    # ACT_ID_ at the end is not Camunda's: the activity of the job (revision 0007).
    "ACT_RU_JOB": (
        "ID_ v64 NN, REV_ int, TYPE_ v255 NN, LOCK_EXP_TIME_ ts, LOCK_OWNER_ v255, "
        "EXCLUSIVE_ bool, EXECUTION_ID_ v64, ROOT_PROC_INST_ID_ v64, PROCESS_INSTANCE_ID_ v64, "
        "PROCESS_DEF_ID_ v64, PROCESS_DEF_KEY_ v255, RETRIES_ int, EXCEPTION_STACK_ID_ v64, "
        "EXCEPTION_MSG_ v4000, FAILED_ACT_ID_ v255, DUEDATE_ ts, REPEAT_ v255, "
        "REPEAT_OFFSET_ big dflt 0, HANDLER_TYPE_ v255, HANDLER_CFG_ v4000, DEPLOYMENT_ID_ v64, "
        "SUSPENSION_STATE_ int NN dflt 1, JOB_DEF_ID_ v64, PRIORITY_ big NN dflt 0, "
        "SEQUENCE_COUNTER_ big, TENANT_ID_ v64, CREATE_TIME_ ts, LAST_FAILURE_LOG_ID_ v64, "
        "BATCH_ID_ v64, ACT_ID_ v255"
    ),
    "ACT_RU_JOBDEF": (
        "ID_ v64 NN, REV_ int, PROC_DEF_ID_ v64, PROC_DEF_KEY_ v255, ACT_ID_ v255, "
        "JOB_TYPE_ v255 NN, JOB_CONFIGURATION_ v255, SUSPENSION_STATE_ int, JOB_PRIORITY_ big, "
        "TENANT_ID_ v64, DEPLOYMENT_ID_ v64"
    ),
    "ACT_RU_INCIDENT": (
        "ID_ v64 NN, REV_ int NN, INCIDENT_TIMESTAMP_ ts NN, INCIDENT_MSG_ v4000, "
        "INCIDENT_TYPE_ v255 NN, EXECUTION_ID_ v64, ACTIVITY_ID_ v255, FAILED_ACTIVITY_ID_ v255, "
        "PROC_INST_ID_ v64, PROC_DEF_ID_ v64, CAUSE_INCIDENT_ID_ v64, "
        "ROOT_CAUSE_INCIDENT_ID_ v64, CONFIGURATION_ v255, TENANT_ID_ v64, JOB_DEF_ID_ v64, "
        "ANNOTATION_ v4000"
    ),
    # ACT_INST_ID_ at the end is not Camunda's: the activity instance a subscription ends with
    # (revision 0008).
    "ACT_RU_EVENT_SUBSCR": (
        "ID_ v64 NN, REV_ int, EVENT_TYPE_ v255 NN, EVENT_NAME_ v255, EXECUTION_ID_ v64, "
        "PROC_INST_ID_ v64, ACTIVITY_ID_ v255, CONFIGURATION_ v255, CREATED_ ts NN, "
        "TENANT_ID_ v64, ACT_INST_ID_ v64"
    ),
    # EVENT_COUNT_ at the end is not Camunda's: the events an instance produced (revision 0011).
    "ACT_HI_PROCINST": (
        "ID_ v64 NN, PROC_INST_ID_ v64 NN (unique), BUSINESS_KEY_ v255, PROC_DEF_KEY_ v255, "
        "PROC_DEF_ID_ v64 NN, START_TIME_ ts NN, END_TIME_ ts, REMOVAL_TIME_ ts, DURATION_ big, "
        "START_USER_ID_ v255, START_ACT_ID_ v255, END_ACT_ID_ v255, "
        "SUPER_PROCESS_INSTANCE_ID_ v64, ROOT_PROC_INST_ID_ v64, SUPER_CASE_INSTANCE_ID_ v64, "
        "CASE_INST_ID_ v64, DELETE_REASON_ v4000, TENANT_ID_ v64, STATE_ v255, "
        "RESTARTED_PROC_INST_ID_ v64, EVENT_COUNT_ big"
    ),
    "ACT_HI_ACTINST": (
        "ID_ v64 NN, PARENT_ACT_INST_ID_ v64, PROC_DEF_KEY_ v255, PROC_DEF_ID_ v64 NN, "
        "ROOT_PROC_INST_ID_ v64, PROC_INST_ID_ v64 NN, EXECUTION_ID_ v64 NN, ACT_ID_ v255 NN, "
        "TASK_ID_ v64, CALL_PROC_INST_ID_ v64, CALL_CASE_INST_ID_ v64, ACT_NAME_ v255, "
        "ACT_TYPE_ v255 NN, ASSIGNEE_ v255, START_TIME_ ts NN, END_TIME_ ts, DURATION_ big, "
        "ACT_INST_STATE_ int, SEQUENCE_COUNTER_ big, TENANT_ID_ v64, REMOVAL_TIME_ ts"
    ),
    "ACT_HI_TASKINST": (
        "ID_ v64 NN, TASK_DEF_KEY_ v255, PROC_DEF_KEY_ v255, PROC_DEF_ID_ v64, "
        "ROOT_PROC_INST_ID_ v64, PROC_INST_ID_ v64, EXECUTION_ID_ v64, CASE_DEF_KEY_ v255, "
        "CASE_DEF_ID_ v64, CASE_INST_ID_ v64, CASE_EXECUTION_ID_ v64, ACT_INST_ID_ v64, "
        "NAME_ v255, PARENT_TASK_ID_ v64, DESCRIPTION_ v4000, OWNER_ v255, ASSIGNEE_ v255, "
        "START_TIME_ ts NN, END_TIME_ ts, DURATION_ big, DELETE_REASON_ v4000, PRIORITY_ int, "
        "DUE_DATE_ ts, FOLLOW_UP_DATE_ ts, TENANT_ID_ v64, REMOVAL_TIME_ ts, TASK_STATE_ v64"
    ),
    "ACT_HI_VARINST": (
        "ID_ v64 NN, PROC_DEF_KEY_ v255, PROC_DEF_ID_ v64, ROOT_PROC_INST_ID_ v64, "
        "PROC_INST_ID_ v64, EXECUTION_ID_ v64, ACT_INST_ID_ v64, CASE_DEF_KEY_ v255, "
        "CASE_DEF_ID_ v64, CASE_INST_ID_ v64, CASE_EXECUTION_ID_ v64, TASK_ID_ v64, "
        "NAME_ v255 NN, VAR_TYPE_ v100, CREATE_TIME_ ts, REV_ int, BYTEARRAY_ID_ v64, "
        "DOUBLE_ dbl, LONG_ big, TEXT_ v4000, TEXT2_ v4000, TENANT_ID_ v64, STATE_ v20, "
        "REMOVAL_TIME_ ts"
    ),
    "ACT_HI_DETAIL": (
        "ID_ v64 NN, TYPE_ v255 NN, PROC_DEF_KEY_ v255, PROC_DEF_ID_ v64, ROOT_PROC_INST_ID_ v64, "
        "PROC_INST_ID_ v64, EXECUTION_ID_ v64, CASE_DEF_KEY_ v255, CASE_DEF_ID_ v64, "
        "CASE_INST_ID_ v64, CASE_EXECUTION_ID_ v64, TASK_ID_ v64, ACT_INST_ID_ v64, "
        "VAR_INST_ID_ v64, NAME_ v255 NN, VAR_TYPE_ v64, REV_ int, TIME_ ts NN, "
        "BYTEARRAY_ID_ v64, DOUBLE_ dbl, LONG_ big, TEXT_ v4000, TEXT2_ v4000, "
        "SEQUENCE_COUNTER_ big, TENANT_ID_ v64, OPERATION_ID_ v64, REMOVAL_TIME_ ts, INITIAL_ bool"
    ),
    "ACT_HI_INCIDENT": (
        "ID_ v64 NN, PROC_DEF_KEY_ v255, PROC_DEF_ID_ v64, ROOT_PROC_INST_ID_ v64, "
        "PROC_INST_ID_ v64, EXECUTION_ID_ v64, CREATE_TIME_ ts NN, END_TIME_ ts, "
        "INCIDENT_MSG_ v4000, INCIDENT_TYPE_ v255 NN, ACTIVITY_ID_ v255, "
        "FAILED_ACTIVITY_ID_ v255, CAUSE_INCIDENT_ID_ v64, ROOT_CAUSE_INCIDENT_ID_ v64, "
        "CONFIGURATION_ v255, HISTORY_CONFIGURATION_ v255, INCIDENT_STATE_ int, TENANT_ID_ v64, "
        "JOB_DEF_ID_ v64, ANNOTATION_ v4000, REMOVAL_TIME_ ts"
    ),
    # camunda7.md lists its key columns only: these are Camunda 7.24's PostgreSQL script's.
    "ACT_HI_JOB_LOG": (
        "ID_ v64 NN, TIMESTAMP_ ts NN, JOB_ID_ v64 NN, JOB_DUEDATE_ ts, JOB_RETRIES_ int, "
        "JOB_PRIORITY_ big NN dflt 0, JOB_EXCEPTION_MSG_ v4000, JOB_EXCEPTION_STACK_ID_ v64, "
        "JOB_STATE_ int, JOB_DEF_ID_ v64, JOB_DEF_TYPE_ v255, JOB_DEF_CONFIGURATION_ v255, "
        "ACT_ID_ v255, FAILED_ACT_ID_ v255, HOSTNAME_ v255, EXECUTION_ID_ v64, "
        "ROOT_PROC_INST_ID_ v64, PROCESS_INSTANCE_ID_ v64, PROCESS_DEF_ID_ v64, "
        "PROCESS_DEF_KEY_ v255, DEPLOYMENT_ID_ v64, SEQUENCE_COUNTER_ big, TENANT_ID_ v64, "
        "REMOVAL_TIME_ ts"
    ),
    "ACT_HI_OP_LOG": (
        "ID_ v64 NN, DEPLOYMENT_ID_ v64, PROC_DEF_ID_ v64, PROC_DEF_KEY_ v255, "
        "ROOT_PROC_INST_ID_ v64, PROC_INST_ID_ v64, EXECUTION_ID_ v64, CASE_DEF_ID_ v64, "
        "CASE_INST_ID_ v64, CASE_EXECUTION_ID_ v64, TASK_ID_ v64, JOB_ID_ v64, JOB_DEF_ID_ v64, "
        "BATCH_ID_ v64, USER_ID_ v255, TIMESTAMP_ ts NN, OPERATION_TYPE_ v64, OPERATION_ID_ v64, "
        "ENTITY_TYPE_ v30, PROPERTY_ v64, ORG_VALUE_ v4000, NEW_VALUE_ v4000, TENANT_ID_ v64, "
        "REMOVAL_TIME_ ts, CATEGORY_ v64, EXTERNAL_TASK_ID_ v64, ANNOTATION_ v4000"
    ),
    # Camunda 7.24's PostgreSQL scripts (revision 0020).
    "ACT_RU_BATCH": (
        "ID_ v64 NN, REV_ int NN, TYPE_ v255, TOTAL_JOBS_ int, JOBS_CREATED_ int, "
        "JOBS_PER_SEED_ int, INVOCATIONS_PER_JOB_ int, SEED_JOB_DEF_ID_ v64, "
        "BATCH_JOB_DEF_ID_ v64, MONITOR_JOB_DEF_ID_ v64, SUSPENSION_STATE_ int, "
        "CONFIGURATION_ v255, TENANT_ID_ v64, CREATE_USER_ID_ v255, START_TIME_ ts, "
        "EXEC_START_TIME_ ts"
    ),
    "ACT_HI_BATCH": (
        "ID_ v64 NN, TYPE_ v255, TOTAL_JOBS_ int, JOBS_PER_SEED_ int, INVOCATIONS_PER_JOB_ int, "
        "SEED_JOB_DEF_ID_ v64, MONITOR_JOB_DEF_ID_ v64, BATCH_JOB_DEF_ID_ v64, TENANT_ID_ v64, "
        "CREATE_USER_ID_ v255, START_TIME_ ts NN, END_TIME_ ts, REMOVAL_TIME_ ts, "
        "EXEC_START_TIME_ ts"
    ),
    "ACT_HI_COMMENT": (
        "ID_ v64 NN, TYPE_ v255, TIME_ ts NN, USER_ID_ v255, TASK_ID_ v64, ROOT_PROC_INST_ID_ v64, "
        "PROC_INST_ID_ v64, ACTION_ v255, MESSAGE_ v4000, FULL_MSG_ bytea, TENANT_ID_ v64, "
        "REMOVAL_TIME_ ts, REV_ int NN dflt 1"
    ),
    "ACT_RE_DECISION_DEF": (
        "ID_ v64 NN, REV_ int, CATEGORY_ v255, NAME_ v255, KEY_ v255 NN, VERSION_ int NN, "
        "DEPLOYMENT_ID_ v64, RESOURCE_NAME_ v4000, DGRM_RESOURCE_NAME_ v4000, DEC_REQ_ID_ v64, "
        "DEC_REQ_KEY_ v255, TENANT_ID_ v64, HISTORY_TTL_ int, VERSION_TAG_ v64"
    ),
    "ACT_RE_DECISION_REQ_DEF": (
        "ID_ v64 NN, REV_ int, CATEGORY_ v255, NAME_ v255, KEY_ v255 NN, VERSION_ int NN, "
        "DEPLOYMENT_ID_ v64, RESOURCE_NAME_ v4000, DGRM_RESOURCE_NAME_ v4000, TENANT_ID_ v64"
    ),
    "ACT_HI_DECINST": (
        "ID_ v64 NN, DEC_DEF_ID_ v64 NN, DEC_DEF_KEY_ v255 NN, DEC_DEF_NAME_ v255, "
        "PROC_DEF_KEY_ v255, PROC_DEF_ID_ v64, PROC_INST_ID_ v64, CASE_DEF_KEY_ v255, "
        "CASE_DEF_ID_ v64, CASE_INST_ID_ v64, ACT_INST_ID_ v64, ACT_ID_ v255, EVAL_TIME_ ts NN, "
        "REMOVAL_TIME_ ts, COLLECT_VALUE_ dbl, USER_ID_ v255, ROOT_DEC_INST_ID_ v64, "
        "ROOT_PROC_INST_ID_ v64, DEC_REQ_ID_ v64, DEC_REQ_KEY_ v255, TENANT_ID_ v64"
    ),
    "ACT_HI_DEC_IN": (
        "ID_ v64 NN, DEC_INST_ID_ v64 NN, CLAUSE_ID_ v64, CLAUSE_NAME_ v255, VAR_TYPE_ v100, "
        "BYTEARRAY_ID_ v64, DOUBLE_ dbl, LONG_ big, TEXT_ v4000, TEXT2_ v4000, TENANT_ID_ v64, "
        "CREATE_TIME_ ts, ROOT_PROC_INST_ID_ v64, REMOVAL_TIME_ ts"
    ),
    "ACT_HI_DEC_OUT": (
        "ID_ v64 NN, DEC_INST_ID_ v64 NN, CLAUSE_ID_ v64, CLAUSE_NAME_ v255, RULE_ID_ v64, "
        "RULE_ORDER_ int, VAR_NAME_ v255, VAR_TYPE_ v100, BYTEARRAY_ID_ v64, DOUBLE_ dbl, "
        "LONG_ big, TEXT_ v4000, TEXT2_ v4000, TENANT_ID_ v64, CREATE_TIME_ ts, "
        "ROOT_PROC_INST_ID_ v64, REMOVAL_TIME_ ts"
    ),
}

# Camunda's index names (PostgreSQL scripts) where it has the index, else ACT_IDX_<TABLE>_<COLS>.
# Runtime and history keep only the indexes flowledger queries (migration 0003 dropped others).
EXPECTED_INDEXES: dict[str, dict[str, tuple[str, ...]]] = {
    "ACT_GE_BYTEARRAY": {"ACT_IDX_BYTEAR_DEPL": ("DEPLOYMENT_ID_",)},
    "ACT_GE_PROPERTY": {},
    "ACT_RE_DEPLOYMENT": {},
    "ACT_RE_PROCDEF": {
        "ACT_IDX_PROCDEF_DEPLOYMENT_ID": ("DEPLOYMENT_ID_",),
        "ACT_IDX_PROCDEF_TENANT_ID": ("TENANT_ID_",),
        "ACT_IDX_PROCDEF_VER_TAG": ("VERSION_TAG_",),
        "ACT_IDX_RE_PROCDEF_KEY_VERSION": ("KEY_", "VERSION_"),
    },
    "ACT_RU_EXECUTION": {
        "ACT_IDX_EXE_PROCINST": ("PROC_INST_ID_",),
        "ACT_IDX_EXEC_BUSKEY": ("BUSINESS_KEY_",),
    },
    # Revision 0006: an index under Camunda's name starts with Camunda's columns and goes on
    # with what its list orders by (then the tie-breaking order) or reads from it.
    "ACT_RU_TASK": {
        "ACT_IDX_TASK_PROCINST": ("PROC_INST_ID_",),
        "ACT_IDX_TASK_ASSIGNEE": ("ASSIGNEE_", "CREATE_TIME_", "ID_"),
        "ACT_IDX_TASK_CREATE": ("CREATE_TIME_", "ID_"),
        "ACT_IDX_RU_TASK_TASK_DEF_KEY": ("TASK_DEF_KEY_",),
    },
    "ACT_RU_IDENTITYLINK": {
        "ACT_IDX_TSKASS_TASK": ("TASK_ID_",),
        "ACT_IDX_IDENT_LNK_USER": ("USER_ID_", "TYPE_", "TASK_ID_"),
        "ACT_IDX_IDENT_LNK_GROUP": ("GROUP_ID_", "TYPE_", "TASK_ID_"),
    },
    "ACT_RU_VARIABLE": {
        "ACT_IDX_VAR_PROCINST": ("PROC_INST_ID_",),
    },
    "ACT_RU_EXT_TASK": {
        "ACT_IDX_EXT_TASK_TOPIC": ("TOPIC_NAME_",),
        "ACT_IDX_EXT_TASK_PRIORITY": ("PRIORITY_",),
        "ACT_IDX_EXT_TASK_EXEC": ("EXECUTION_ID_",),
        "ACT_IDX_RU_EXT_TASK_PROC_INST_ID": ("PROC_INST_ID_",),
    },
    # Revision 0007: the job executor's acquisition reads ACT_IDX_JOB_DUEDATE in order.
    "ACT_RU_JOB": {
        "ACT_IDX_JOB_PROCINST": ("PROCESS_INSTANCE_ID_",),
        "ACT_IDX_JOB_EXECUTION_ID": ("EXECUTION_ID_",),
        "ACT_IDX_JOB_DUEDATE": ("DUEDATE_", "ID_"),
        "ACT_IDX_JOB_JOB_DEF_ID": ("JOB_DEF_ID_",),  # revision 0020: a batch's jobs
    },
    "ACT_RU_JOBDEF": {},
    # Revision 0020: Camunda's.
    "ACT_RU_BATCH": {
        "ACT_IDX_BATCH_SEED_JOB_DEF": ("SEED_JOB_DEF_ID_",),
        "ACT_IDX_BATCH_MONITOR_JOB_DEF": ("MONITOR_JOB_DEF_ID_",),
        "ACT_IDX_BATCH_JOB_DEF": ("BATCH_JOB_DEF_ID_",),
    },
    "ACT_HI_BATCH": {"ACT_HI_BAT_RM_TIME": ("REMOVAL_TIME_",)},
    "ACT_RU_INCIDENT": {
        "ACT_IDX_INC_PROCINSTID": ("PROC_INST_ID_",),
        "ACT_IDX_INC_CONFIGURATION": ("CONFIGURATION_",),
    },
    "ACT_RU_EVENT_SUBSCR": {
        "ACT_IDX_EVENT_SUBSCR": ("EXECUTION_ID_",),
        "ACT_IDX_EVENT_SUBSCR_EVT_NAME": ("EVENT_NAME_",),
        "ACT_IDX_EVENT_SUBSCR_PROCINST": ("PROC_INST_ID_",),
    },
    "ACT_HI_PROCINST": {
        "ACT_IDX_HI_PRO_I_BUSKEY": ("BUSINESS_KEY_",),
        "ACT_IDX_HI_PRO_INST_START": ("START_TIME_", "ID_", "END_TIME_"),
        "ACT_IDX_HI_PRO_INST_END": ("END_TIME_", "START_TIME_", "ID_"),
        "ACT_IDX_HI_PRO_INST_PROC_DEF_KEY": ("PROC_DEF_KEY_", "START_TIME_", "ID_"),
        # revision 0015: a root's end finds its hierarchy
        "ACT_IDX_HI_PRO_INST_ROOT_PI": ("ROOT_PROC_INST_ID_",),
        # revision 0017: a definition's instances
        "ACT_IDX_HI_PI_PDEFID_END_TIME": ("PROC_DEF_ID_", "END_TIME_"),
    },
    "ACT_HI_ACTINST": {
        "ACT_IDX_HI_ACT_INST_PROCINST": ("PROC_INST_ID_", "ACT_ID_"),
        # revisions 0016 and 0017: a definition's historic activity statistics and durations
        "ACT_IDX_HI_ACT_INST_STATS": (
            "PROC_DEF_ID_",
            "ACT_ID_",
            "END_TIME_",
            "ACT_INST_STATE_",
            "DURATION_",
        ),
    },
    "ACT_HI_TASKINST": {
        "ACT_IDX_HI_TASKINST_PROCINST": ("PROC_INST_ID_",),
        "ACT_IDX_HI_TASK_INST_START": ("START_TIME_", "ID_", "END_TIME_"),
        "ACT_IDX_HI_TASK_INST_END": ("END_TIME_", "START_TIME_", "ID_"),
    },
    "ACT_HI_VARINST": {"ACT_IDX_HI_VAR_PI_NAME_TYPE": ("PROC_INST_ID_", "NAME_", "VAR_TYPE_")},
    "ACT_HI_DETAIL": {
        "ACT_IDX_HI_DETAIL_PROC_INST": ("PROC_INST_ID_",),
    },
    "ACT_HI_INCIDENT": {"ACT_IDX_HI_INCIDENT_PROCINST": ("PROC_INST_ID_",)},
    "ACT_HI_JOB_LOG": {
        "ACT_IDX_HI_JOB_LOG_PROCINST": ("PROCESS_INSTANCE_ID_",),
        "ACT_IDX_HI_JOB_LOG_JOB_ID": ("JOB_ID_",),
    },
    "ACT_HI_OP_LOG": {
        "ACT_IDX_HI_OP_LOG_ROOT_PI": ("ROOT_PROC_INST_ID_",),
        "ACT_IDX_HI_OP_LOG_PROCINST": ("PROC_INST_ID_",),
        "ACT_IDX_HI_OP_LOG_PROCDEF": ("PROC_DEF_ID_",),
        "ACT_IDX_HI_OP_LOG_TASK": ("TASK_ID_",),
        "ACT_IDX_HI_OP_LOG_RM_TIME": ("REMOVAL_TIME_",),
        "ACT_IDX_HI_OP_LOG_TIMESTAMP": ("TIMESTAMP_",),
        "ACT_IDX_HI_OP_LOG_USER_ID": ("USER_ID_",),
        "ACT_IDX_HI_OP_LOG_OP_TYPE": ("OPERATION_TYPE_",),
        "ACT_IDX_HI_OP_LOG_ENTITY_TYPE": ("ENTITY_TYPE_",),
    },
    # Revision 0016: by task (its comment list) and by instance (its history deleted whole).
    "ACT_HI_COMMENT": {
        "ACT_IDX_HI_COMMENT_TASK": ("TASK_ID_",),
        "ACT_IDX_HI_COMMENT_PROCINST": ("PROC_INST_ID_",),
    },
    # Revision 0013: Camunda's, and on ACT_RE_DECISION_DEF two of flowledger's (latest version
    # of a key, a deployment's decisions) as on ACT_RE_PROCDEF.
    "ACT_RE_DECISION_DEF": {
        "ACT_IDX_DEC_DEF_TENANT_ID": ("TENANT_ID_",),
        "ACT_IDX_DEC_DEF_REQ_ID": ("DEC_REQ_ID_",),
        "ACT_IDX_DEC_DEF_KEY_VERSION": ("KEY_", "VERSION_"),
        "ACT_IDX_DEC_DEF_DEPLOYMENT_ID": ("DEPLOYMENT_ID_",),
    },
    "ACT_RE_DECISION_REQ_DEF": {
        "ACT_IDX_DEC_REQ_DEF_TENANT_ID": ("TENANT_ID_",),
        "ACT_IDX_DEC_REQ_DEF_KEY_VERSION": ("KEY_", "VERSION_"),
    },
    "ACT_HI_DECINST": {
        "ACT_IDX_HI_DEC_INST_ID": ("DEC_DEF_ID_",),
        "ACT_IDX_HI_DEC_INST_KEY": ("DEC_DEF_KEY_",),
        "ACT_IDX_HI_DEC_INST_PI": ("PROC_INST_ID_",),
        "ACT_IDX_HI_DEC_INST_TIME": ("EVAL_TIME_", "ID_"),
        "ACT_IDX_HI_DEC_INST_ROOT_ID": ("ROOT_DEC_INST_ID_",),
    },
    "ACT_HI_DEC_IN": {"ACT_IDX_HI_DEC_IN_INST": ("DEC_INST_ID_",)},
    "ACT_HI_DEC_OUT": {"ACT_IDX_HI_DEC_OUT_INST": ("DEC_INST_ID_",)},
}

EXPECTED_UNIQUE: dict[str, dict[str, tuple[str, ...]]] = {
    "ACT_RU_VARIABLE": {"ACT_UNIQ_VARIABLE": ("VAR_SCOPE_", "NAME_")},
    "ACT_HI_PROCINST": {"ACT_UNIQ_HI_PROCINST_PROC_INST_ID": ("PROC_INST_ID_",)},
}

_SPEC = re.compile(
    r"^(?P<name>[A-Z0-9_]+_) (?P<type>v\d+|ts|int|big|dbl|bool|bytea)"
    r"(?P<nn> NN)?(?P<unique> \(unique\))?(?: dflt (?P<default>\w+))?$"
)


def _camunda_columns(table: str) -> list[dict[str, Any]]:
    """The columns of `table` as camunda7.md lists them; ID_ is the primary key, hence NOT NULL."""
    columns = []
    for item in CAMUNDA_COLUMNS[table].split(", "):
        match = _SPEC.match(item)
        assert match, f"{table}: cannot read {item!r}"
        spec = match.groupdict()
        spec["nn"] = bool(spec["nn"]) or spec["name"] == "ID_"
        columns.append(spec)
    return columns


def _type_code(type_: sa.types.TypeEngine[Any]) -> str:
    """Camunda's abbreviation for a metadata or reflected column type."""
    if isinstance(type_, sa.Boolean) or (
        isinstance(type_, mysql.TINYINT) and type_.display_width == 1
    ):
        return "bool"
    if isinstance(type_, sa.String):
        return f"v{type_.length}"
    if isinstance(type_, sa.DateTime):
        return "ts"
    if isinstance(type_, sa.BigInteger):
        return "big"
    if isinstance(type_, sa.Integer):
        return "int"
    if isinstance(type_, sa.Float):
        return "dbl"
    if isinstance(type_, (sa.LargeBinary, mysql.LONGBLOB)):
        return "bytea"
    raise AssertionError(f"unexpected column type {type_!r}")


# ---------------------------------------------------------------------------------------------
# Metadata only


def test_metadata_holds_the_act_tables_in_their_groups() -> None:
    grouped = [*REPOSITORY_TABLES, *RUNTIME_TABLES, *HISTORY_TABLES]
    assert [t.name for t in grouped] == [
        "ACT_RE_DEPLOYMENT",
        "ACT_RE_PROCDEF",
        "ACT_RE_DECISION_DEF",
        "ACT_RE_DECISION_REQ_DEF",
        "ACT_GE_BYTEARRAY",
        "ACT_RU_JOBDEF",  # written with deployments
        "ACT_RU_BATCH",  # written from batch streams, as the repository's rows
        "ACT_RU_EXECUTION",
        "ACT_RU_TASK",
        "ACT_RU_IDENTITYLINK",
        "ACT_RU_VARIABLE",
        "ACT_RU_EXT_TASK",
        "ACT_RU_JOB",
        "ACT_RU_INCIDENT",
        "ACT_RU_EVENT_SUBSCR",
        "ACT_HI_PROCINST",
        "ACT_HI_ACTINST",
        "ACT_HI_TASKINST",
        "ACT_HI_VARINST",
        "ACT_HI_DETAIL",
        "ACT_HI_INCIDENT",
        "ACT_HI_JOB_LOG",
        "ACT_HI_OP_LOG",
        "ACT_HI_COMMENT",
        "ACT_HI_DECINST",
        "ACT_HI_DEC_IN",
        "ACT_HI_DEC_OUT",
        "ACT_HI_BATCH",
    ]
    # The property table is the engine's configuration, not a projection: no rebuild clears it.
    projected = {t.name for t in grouped}
    assert set(metadata.tables) == set(CAMUNDA_COLUMNS) == projected | {"ACT_GE_PROPERTY"}


@pytest.mark.parametrize("table_name", sorted(CAMUNDA_COLUMNS))
def test_metadata_columns_match_camunda(table_name: str) -> None:
    table = metadata.tables[table_name]
    expected = _camunda_columns(table_name)
    assert [c.name for c in table.columns] == [spec["name"] for spec in expected]
    for column, spec in zip(table.columns, expected, strict=True):
        where = f"{table_name}.{column.name}"
        assert _type_code(column.type) == spec["type"], where
        assert column.nullable is not spec["nn"], where
        key = "NAME_" if table_name == "ACT_GE_PROPERTY" else "ID_"  # camunda7.md §1
        assert column.primary_key is (column.name == key), where
        default = column.server_default
        if spec["default"] is None:
            assert default is None, where
        else:
            assert isinstance(default, sa.DefaultClause), where
            assert str(default.arg).upper() == spec["default"].upper(), where


def _is_unquoted(name: object) -> bool:
    return getattr(name, "quote", None) is False


def test_identifiers_are_unquoted_and_there_are_no_foreign_keys() -> None:
    postgres = sa.create_engine(POSTGRES_URL).dialect  # compiles only, never connects
    index_names: list[str] = []
    for table in metadata.tables.values():
        assert _is_unquoted(table.name)
        ddl = [str(CreateTable(table).compile(dialect=postgres))]
        ddl += [str(CreateIndex(i).compile(dialect=postgres)) for i in table.indexes]
        assert not any('"' in statement for statement in ddl), ddl
        for column in table.columns:
            assert _is_unquoted(column.name), f"{table.name}.{column.name}"
            assert not column.foreign_keys, f"{table.name}.{column.name}"
        assert not table.foreign_key_constraints
        for constraint in [*table.indexes, *table.constraints]:
            if isinstance(constraint, (sa.Index, sa.UniqueConstraint)):
                assert isinstance(constraint.name, str)
                assert _is_unquoted(constraint.name)
                assert len(constraint.name) <= 63, constraint.name  # PostgreSQL's limit
                index_names.append(constraint.name)
    assert len(index_names) == len(set(index_names)), "index names are per schema on PostgreSQL"


@pytest.mark.parametrize("table_name", sorted(CAMUNDA_COLUMNS))
def test_metadata_indexes_and_unique_constraints(table_name: str) -> None:
    table = metadata.tables[table_name]
    indexes = {str(i.name): tuple(c.name for c in i.columns) for i in table.indexes}
    assert indexes == EXPECTED_INDEXES[table_name]
    assert not any(i.unique for i in table.indexes)
    uniques = {
        str(c.name): tuple(col.name for col in c.columns)
        for c in table.constraints
        if isinstance(c, sa.UniqueConstraint)
    }
    assert uniques == EXPECTED_UNIQUE.get(table_name, {})


# ---------------------------------------------------------------------------------------------
# Real databases


def _unreachable(url: str, exc: Exception) -> None:
    message = f"{url} unreachable: {exc}"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def _reset_database(engine: Engine) -> None:
    """Drop every view and table (the event log, alembic_version, ACT_*) of a test database."""
    with engine.begin() as conn:
        inspector = sa.inspect(conn)
        quote = conn.dialect.identifier_preparer.quote_identifier
        cascade = " CASCADE" if conn.dialect.name == "postgresql" else ""
        if conn.dialect.name != "postgresql":
            conn.exec_driver_sql("SET FOREIGN_KEY_CHECKS = 0")
        for view in inspector.get_view_names():
            conn.exec_driver_sql(f"DROP VIEW IF EXISTS {quote(view)}{cascade}")
        for table in inspector.get_table_names():
            conn.exec_driver_sql(f"DROP TABLE IF EXISTS {quote(table)}{cascade}")
        if conn.dialect.name != "postgresql":
            conn.exec_driver_sql("SET FOREIGN_KEY_CHECKS = 1")


@pytest.fixture(scope="module", params=["sqlite", "postgresql", "mariadb"])
def engine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """A database brought by `migrations.upgrade` from empty to head."""
    if request.param == "sqlite":
        engine = sa.create_engine(f"sqlite:///{tmp_path_factory.mktemp('act') / 'act.db'}")
    else:
        url = POSTGRES_URL if request.param == "postgresql" else MARIADB_URL
        engine = sa.create_engine(url, connect_args={"connect_timeout": 5})
        try:
            with engine.connect():
                pass
        except sa.exc.DBAPIError as exc:
            engine.dispose()
            _unreachable(url, exc)
        _reset_database(engine)
    migrations.upgrade(engine)
    yield engine
    engine.dispose()


def _physical_name(engine: Engine, name: str) -> str:
    """The name Camunda's unquoted DDL gives a table: folded to lower case on PostgreSQL."""
    return name.lower() if engine.dialect.name == "postgresql" else name


def test_upgrade_creates_the_tables_as_camunda_does(engine: Engine) -> None:
    inspector = sa.inspect(engine)
    table_names = set(inspector.get_table_names())
    for name in CAMUNDA_COLUMNS:
        physical = _physical_name(engine, name)
        assert physical in table_names, f"{physical} missing in {sorted(table_names)}"
        reflected = inspector.get_columns(physical)
        expected = _camunda_columns(name)
        assert [c["name"].upper() for c in reflected] == [
            c.name.upper() for c in metadata.tables[name].columns
        ]
        assert [c["name"].upper() for c in reflected] == [spec["name"] for spec in expected]
        for column, spec in zip(reflected, expected, strict=True):
            where = f"{name}.{spec['name']}"
            assert _type_code(column["type"]) == spec["type"], where
            assert column["nullable"] is not spec["nn"], where
            if engine.dialect.name in ("mysql", "mariadb"):
                if spec["type"] == "ts":
                    assert getattr(column["type"], "fsp", None) == 3, where
                if spec["type"] == "bytea":
                    assert isinstance(column["type"], mysql.LONGBLOB), where
        indexes = {
            str(i["name"]).upper(): tuple(str(c).upper() for c in i["column_names"])
            for i in inspector.get_indexes(physical)
            if not i["unique"]
        }
        assert indexes == EXPECTED_INDEXES[name]
        uniques = {
            str(u["name"]).upper(): tuple(c.upper() for c in u["column_names"])
            for u in inspector.get_unique_constraints(physical)
        }
        assert uniques == EXPECTED_UNIQUE.get(name, {})
        assert inspector.get_foreign_keys(physical) == []


def test_mysql_tables_use_a_binary_collation(engine: Engine) -> None:
    if engine.dialect.name not in ("mysql", "mariadb"):
        pytest.skip("MySQL/MariaDB only")
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT TABLE_NAME, TABLE_COLLATION, ENGINE FROM information_schema.TABLES "
                "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'ACT\\_%'"
            )
        ).all()
    assert {row[0] for row in rows} == set(CAMUNDA_COLUMNS)
    assert {(row[1], row[2]) for row in rows} == {("utf8mb4_bin", "InnoDB")}


def _activity_instance(proc_inst_id: str, **values: Any) -> dict[str, Any]:
    row = {
        "ID_": f"start:{uuid.uuid4()}",
        "PROC_DEF_ID_": "invoice:1:1",
        "PROC_INST_ID_": proc_inst_id,
        "EXECUTION_ID_": proc_inst_id,
        "ACT_ID_": "StartEvent_1",
        "ACT_TYPE_": "startEvent",
        "START_TIME_": datetime(2026, 12, 2, 16, 31, 40),
    }
    row.update(values)
    return row


def test_unquoted_report_query_finds_rows_written_through_core(engine: Engine) -> None:
    proc_inst_id = str(uuid.uuid4())
    row = _activity_instance(proc_inst_id)
    with engine.begin() as conn:
        conn.execute(sa.insert(ACT_HI_ACTINST), [row])

    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute(
            f"SELECT ID_, ACT_ID_ FROM ACT_HI_ACTINST WHERE PROC_INST_ID_ = '{proc_inst_id}'"
        )
        assert [tuple(r) for r in cursor.fetchall()] == [(row["ID_"], "StartEvent_1")]
        cursor.close()
    finally:
        raw.close()

    with engine.connect() as conn:
        found = conn.execute(
            sa.select(ACT_HI_ACTINST.c.ID_, ACT_HI_ACTINST.c.ACT_ID_).filter_by(
                PROC_INST_ID_=proc_inst_id
            )
        ).one()
        whole = conn.execute(sa.select(ACT_HI_ACTINST).filter_by(ID_=row["ID_"])).one()
    assert found._mapping[ACT_HI_ACTINST.c.ID_] == row["ID_"]
    assert found._mapping[ACT_HI_ACTINST.c.ACT_ID_] == "StartEvent_1"
    assert found._mapping["ID_"] == row["ID_"]
    assert whole._mapping[ACT_HI_ACTINST.c.ACT_TYPE_] == "startEvent"
    assert whole._mapping[ACT_HI_ACTINST.c.END_TIME_] is None


def test_millisecond_timestamps_round_trip(engine: Engine) -> None:
    started = datetime(2026, 12, 2, 16, 31, 40, 123000)
    proc_inst_id = str(uuid.uuid4())
    with engine.begin() as conn:
        conn.execute(
            sa.insert(ACT_HI_PROCINST),
            [
                {
                    "ID_": proc_inst_id,
                    "PROC_INST_ID_": proc_inst_id,
                    "PROC_DEF_ID_": "invoice:1:1",
                    "START_TIME_": started,
                }
            ],
        )
    with engine.connect() as conn:
        stored = conn.execute(
            sa.select(ACT_HI_PROCINST.c.START_TIME_).filter_by(PROC_INST_ID_=proc_inst_id)
        ).scalar_one()
    assert stored == started


def test_server_defaults(engine: Engine) -> None:
    procdef_id = f"invoice:1:{uuid.uuid4()}"
    ext_task_id = str(uuid.uuid4())
    with engine.begin() as conn:
        conn.execute(
            sa.insert(ACT_RE_PROCDEF), [{"ID_": procdef_id, "KEY_": "invoice", "VERSION_": 1}]
        )
        conn.execute(sa.insert(ACT_RU_EXT_TASK), [{"ID_": ext_task_id, "REV_": 1}])
    with engine.connect() as conn:
        startable = conn.execute(
            sa.select(ACT_RE_PROCDEF.c.STARTABLE_).filter_by(ID_=procdef_id)
        ).scalar_one()
        priority = conn.execute(
            sa.select(ACT_RU_EXT_TASK.c.PRIORITY_).filter_by(ID_=ext_task_id)
        ).scalar_one()
    assert startable is True
    assert priority == 0


def test_variable_names_are_unique_per_scope_and_case_sensitive(engine: Engine) -> None:
    scope = str(uuid.uuid4())

    def variable(name: str) -> dict[str, Any]:
        return {"ID_": str(uuid.uuid4()), "TYPE_": "string", "NAME_": name, "VAR_SCOPE_": scope}

    with engine.begin() as conn:
        conn.execute(sa.insert(ACT_RU_VARIABLE), [variable("amount"), variable("Amount")])
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
        conn.execute(sa.insert(ACT_RU_VARIABLE), [variable("amount")])


def test_downgrade_to_event_log_and_upgrade_again(engine: Engine) -> None:
    with engine.begin() as conn:
        command.downgrade(migrations.alembic_config(conn), "0001_event_log")
    remaining = {name.upper() for name in sa.inspect(engine).get_table_names()}
    assert not remaining & set(CAMUNDA_COLUMNS)
    assert {"EVENT_LOG", "ALEMBIC_VERSION"} <= remaining
    with engine.connect() as conn:
        assert migrations.current_revision(conn) == "0001_event_log"

    migrations.upgrade(engine)
    inspector = sa.inspect(engine)
    assert {_physical_name(engine, name) for name in CAMUNDA_COLUMNS} <= set(
        inspector.get_table_names()
    )
    with engine.connect() as conn:
        assert migrations.current_revision(conn) == migrations.head_revision()
