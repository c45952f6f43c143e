"""Camunda 7's ACT_* tables (SQLAlchemy Core), under Camunda's names, on one shared `metadata`.

Definitions only: never `metadata.create_all`; the revisions in `migrations/` create the tables.
"""

from __future__ import annotations

from flowledger.projections.tables.history import (
    ACT_HI_ACTINST,
    ACT_HI_BATCH,
    ACT_HI_COMMENT,
    ACT_HI_DEC_IN,
    ACT_HI_DEC_OUT,
    ACT_HI_DECINST,
    ACT_HI_DETAIL,
    ACT_HI_INCIDENT,
    ACT_HI_JOB_LOG,
    ACT_HI_OP_LOG,
    ACT_HI_PROCINST,
    ACT_HI_TASKINST,
    ACT_HI_VARINST,
)
from flowledger.projections.tables.repository import (
    ACT_GE_BYTEARRAY,
    ACT_GE_PROPERTY,
    ACT_RE_DECISION_DEF,
    ACT_RE_DECISION_REQ_DEF,
    ACT_RE_DEPLOYMENT,
    ACT_RE_PROCDEF,
)
from flowledger.projections.tables.runtime import (
    ACT_RU_BATCH,
    ACT_RU_EVENT_SUBSCR,
    ACT_RU_EXECUTION,
    ACT_RU_EXT_TASK,
    ACT_RU_IDENTITYLINK,
    ACT_RU_INCIDENT,
    ACT_RU_JOB,
    ACT_RU_JOBDEF,
    ACT_RU_TASK,
    ACT_RU_VARIABLE,
)
from flowledger.projections.tables.types import metadata

# ACT_RU_JOBDEF is Camunda's runtime group, but its rows come with deployments.
REPOSITORY_TABLES = (
    ACT_RE_DEPLOYMENT,
    ACT_RE_PROCDEF,
    ACT_RE_DECISION_DEF,
    ACT_RE_DECISION_REQ_DEF,
    ACT_GE_BYTEARRAY,
    ACT_RU_JOBDEF,
    ACT_RU_BATCH,  # a batch's stream, projected without state as a deployment's
)
RUNTIME_TABLES = (
    ACT_RU_EXECUTION,
    ACT_RU_TASK,
    ACT_RU_IDENTITYLINK,
    ACT_RU_VARIABLE,
    ACT_RU_EXT_TASK,
    ACT_RU_JOB,
    ACT_RU_INCIDENT,
    ACT_RU_EVENT_SUBSCR,
)
HISTORY_TABLES = (
    ACT_HI_PROCINST,
    ACT_HI_ACTINST,
    ACT_HI_TASKINST,
    ACT_HI_VARINST,
    ACT_HI_DETAIL,
    ACT_HI_INCIDENT,
    ACT_HI_JOB_LOG,
    ACT_HI_OP_LOG,
    ACT_HI_COMMENT,
    ACT_HI_DECINST,
    ACT_HI_DEC_IN,
    ACT_HI_DEC_OUT,
    ACT_HI_BATCH,
)
# Columns a replay cannot reproduce and comparisons skip: a job executor's lease is operational
# (who works on the job right now), written by the executor alone, never by a projector.
UNPROJECTED_COLUMNS: dict[str, frozenset[str]] = {
    "ACT_RU_JOB": frozenset({"LOCK_OWNER_", "LOCK_EXP_TIME_"}),
}

__all__ = [
    "ACT_GE_BYTEARRAY",
    "ACT_GE_PROPERTY",
    "ACT_HI_ACTINST",
    "ACT_HI_BATCH",
    "ACT_HI_COMMENT",
    "ACT_HI_DECINST",
    "ACT_HI_DEC_IN",
    "ACT_HI_DEC_OUT",
    "ACT_HI_DETAIL",
    "ACT_HI_INCIDENT",
    "ACT_HI_JOB_LOG",
    "ACT_HI_OP_LOG",
    "ACT_HI_PROCINST",
    "ACT_HI_TASKINST",
    "ACT_HI_VARINST",
    "ACT_RE_DECISION_DEF",
    "ACT_RE_DECISION_REQ_DEF",
    "ACT_RE_DEPLOYMENT",
    "ACT_RE_PROCDEF",
    "ACT_RU_BATCH",
    "ACT_RU_EVENT_SUBSCR",
    "ACT_RU_EXECUTION",
    "ACT_RU_EXT_TASK",
    "ACT_RU_IDENTITYLINK",
    "ACT_RU_INCIDENT",
    "ACT_RU_JOB",
    "ACT_RU_JOBDEF",
    "ACT_RU_TASK",
    "ACT_RU_VARIABLE",
    "HISTORY_TABLES",
    "REPOSITORY_TABLES",
    "RUNTIME_TABLES",
    "UNPROJECTED_COLUMNS",
    "metadata",
]
