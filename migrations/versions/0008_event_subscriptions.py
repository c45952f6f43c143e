"""Event subscriptions: ACT_RU_EVENT_SUBSCR, what waiting catch events are subscribed to.

A message catch (intermediate, boundary, receive task) subscribes its execution to a message
name; correlation finds the waiting ones by name (Camunda's ACT_IDX_EVENT_SUBSCR_EVT_NAME) and an
instance's by execution (ACT_IDX_EVENT_SUBSCR, which ending an execution deletes by). Camunda
7.24's columns, and one more, ACT_INST_ID_: the activity instance a subscription ends with (the
catch event's own, or a boundary event's host), as ACT_RU_JOB.ACT_ID_ is one more for jobs.

Nothing to rebuild: logs written before this revision hold no subscription events, so the new
table starts out as a rebuild would leave it, empty.

Revision ID: 0008_event_subscriptions
Revises: 0007_jobs_incidents
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa

from flowledger.migrations.ddl import TIMESTAMP, column, create_index, create_table, drop_table

revision = "0008_event_subscriptions"
down_revision = "0007_jobs_incidents"
branch_labels = None
depends_on = None

# Frozen history, as revision 0002: every table spelled out here, never imported from
# `projections.tables`; identifiers unquoted; no foreign keys.

_v64 = sa.String(64)
_v255 = sa.String(255)
_v4000 = sa.String(4000)


def upgrade() -> None:
    create_table(
        "ACT_RU_EVENT_SUBSCR",
        column("ID_", _v64, primary_key=True),
        column("REV_", sa.Integer),
        column("EVENT_TYPE_", _v255, nullable=False),
        column("EVENT_NAME_", _v255),
        column("EXECUTION_ID_", _v64),
        column("PROC_INST_ID_", _v64),
        column("ACTIVITY_ID_", _v255),
        column("CONFIGURATION_", _v255),
        column("CREATED_", TIMESTAMP, nullable=False),
        column("TENANT_ID_", _v64),
        column("ACT_INST_ID_", _v64),
    )
    create_index("ACT_IDX_EVENT_SUBSCR", "ACT_RU_EVENT_SUBSCR", "EXECUTION_ID_")
    create_index("ACT_IDX_EVENT_SUBSCR_EVT_NAME", "ACT_RU_EVENT_SUBSCR", "EVENT_NAME_")
    create_index("ACT_IDX_EVENT_SUBSCR_PROCINST", "ACT_RU_EVENT_SUBSCR", "PROC_INST_ID_")


def downgrade() -> None:
    drop_table("ACT_RU_EVENT_SUBSCR")
