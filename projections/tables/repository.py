"""Repository tables: ACT_RE_DEPLOYMENT, ACT_RE_PROCDEF, ACT_RE_DECISION_DEF,
ACT_RE_DECISION_REQ_DEF, ACT_GE_BYTEARRAY and ACT_GE_PROPERTY.

As in Camunda 7.24. Definitions only (SQLAlchemy Core); `migrations/versions/0002_act_tables.py`
creates the deployment, process definition and byte array tables, `0005_history_level.py` the
property table, `0013_decisions.py` the decision tables.
"""

from __future__ import annotations

import sqlalchemy as sa

from flowledger.projections.tables.types import (
    V64,
    V255,
    V300,
    V4000,
    Blob,
    Bool,
    Timestamp,
    act_table,
    column,
    index,
)

# No foreign keys on any ACT_* table, unlike Camunda: they are projections rebuilt from the event
# log, so the rows of one flush may be written in any order.

ACT_GE_BYTEARRAY = act_table(
    "ACT_GE_BYTEARRAY",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("NAME_", V255),
    column("DEPLOYMENT_ID_", V64),
    column("BYTES_", Blob),
    column("GENERATED_", Bool),
    column("TENANT_ID_", V64),
    column("TYPE_", sa.Integer),
    column("CREATE_TIME_", Timestamp),
    column("ROOT_PROC_INST_ID_", V64),
    column("REMOVAL_TIME_", Timestamp),
    index("ACT_IDX_BYTEAR_DEPL", "DEPLOYMENT_ID_"),
)

ACT_RE_DEPLOYMENT = act_table(
    "ACT_RE_DEPLOYMENT",
    column("ID_", V64, primary_key=True),
    column("NAME_", V255),
    column("DEPLOY_TIME_", Timestamp),
    column("SOURCE_", V255),
    column("TENANT_ID_", V64),
)

ACT_RE_PROCDEF = act_table(
    "ACT_RE_PROCDEF",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("CATEGORY_", V255),
    column("NAME_", V255),
    column("KEY_", V255, nullable=False),
    column("VERSION_", sa.Integer, nullable=False),
    column("DEPLOYMENT_ID_", V64),
    column("RESOURCE_NAME_", V4000),
    column("DGRM_RESOURCE_NAME_", V4000),
    column("HAS_START_FORM_KEY_", Bool),
    column("SUSPENSION_STATE_", sa.Integer),
    column("TENANT_ID_", V64),
    column("VERSION_TAG_", V64),
    column("HISTORY_TTL_", sa.Integer),
    column("STARTABLE_", Bool, nullable=False, server_default=sa.true()),
    index("ACT_IDX_PROCDEF_DEPLOYMENT_ID", "DEPLOYMENT_ID_"),
    index("ACT_IDX_PROCDEF_TENANT_ID", "TENANT_ID_"),
    index("ACT_IDX_PROCDEF_VER_TAG", "VERSION_TAG_"),
    # Not in Camunda (which has no unique key here either): latest version of a key.
    index("ACT_IDX_RE_PROCDEF_KEY_VERSION", "KEY_", "VERSION_"),
)

ACT_RE_DECISION_DEF = act_table(
    "ACT_RE_DECISION_DEF",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("CATEGORY_", V255),
    column("NAME_", V255),
    column("KEY_", V255, nullable=False),
    column("VERSION_", sa.Integer, nullable=False),
    column("DEPLOYMENT_ID_", V64),
    column("RESOURCE_NAME_", V4000),
    column("DGRM_RESOURCE_NAME_", V4000),
    column("DEC_REQ_ID_", V64),
    column("DEC_REQ_KEY_", V255),
    column("TENANT_ID_", V64),
    column("HISTORY_TTL_", sa.Integer),
    column("VERSION_TAG_", V64),
    index("ACT_IDX_DEC_DEF_TENANT_ID", "TENANT_ID_"),
    index("ACT_IDX_DEC_DEF_REQ_ID", "DEC_REQ_ID_"),
    # Not in Camunda, as on ACT_RE_PROCDEF: latest version of a key, a deployment's definitions.
    index("ACT_IDX_DEC_DEF_KEY_VERSION", "KEY_", "VERSION_"),
    index("ACT_IDX_DEC_DEF_DEPLOYMENT_ID", "DEPLOYMENT_ID_"),
)

ACT_RE_DECISION_REQ_DEF = act_table(
    "ACT_RE_DECISION_REQ_DEF",
    column("ID_", V64, primary_key=True),
    column("REV_", sa.Integer),
    column("CATEGORY_", V255),
    column("NAME_", V255),
    column("KEY_", V255, nullable=False),
    column("VERSION_", sa.Integer, nullable=False),
    column("DEPLOYMENT_ID_", V64),
    column("RESOURCE_NAME_", V4000),
    column("DGRM_RESOURCE_NAME_", V4000),
    column("TENANT_ID_", V64),
    index("ACT_IDX_DEC_REQ_DEF_TENANT_ID", "TENANT_ID_"),
    index("ACT_IDX_DEC_REQ_DEF_KEY_VERSION", "KEY_", "VERSION_"),
)

# Engine properties, as Camunda keeps them. Not a projection of the log: a rebuild keeps it.
# flowledger writes one row, `historyLevel` (0..3), the level its history tables are built at.
ACT_GE_PROPERTY = act_table(
    "ACT_GE_PROPERTY",
    column("NAME_", V64, primary_key=True),
    column("VALUE_", V300),
    column("REV_", sa.Integer),
)
