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

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.sql.elements import quoted_name

revision = "0008_event_subscriptions"
down_revision = "0007_jobs_incidents"
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
        "ACT_RU_EVENT_SUBSCR",
        _column("ID_", _v64, primary_key=True),
        _column("REV_", sa.Integer),
        _column("EVENT_TYPE_", _v255, nullable=False),
        _column("EVENT_NAME_", _v255),
        _column("EXECUTION_ID_", _v64),
        _column("PROC_INST_ID_", _v64),
        _column("ACTIVITY_ID_", _v255),
        _column("CONFIGURATION_", _v255),
        _column("CREATED_", _timestamp, nullable=False),
        _column("TENANT_ID_", _v64),
        _column("ACT_INST_ID_", _v64),
    )
    _index("ACT_IDX_EVENT_SUBSCR", "ACT_RU_EVENT_SUBSCR", "EXECUTION_ID_")
    _index("ACT_IDX_EVENT_SUBSCR_EVT_NAME", "ACT_RU_EVENT_SUBSCR", "EVENT_NAME_")
    _index("ACT_IDX_EVENT_SUBSCR_PROCINST", "ACT_RU_EVENT_SUBSCR", "PROC_INST_ID_")


def downgrade() -> None:
    op.drop_table(_name("ACT_RU_EVENT_SUBSCR"))
