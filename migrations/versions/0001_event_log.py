"""Event store: event_log, command_log, log_head, instance_snapshot, projection_checkpoint.

Revision ID: 0001_event_log
Revises:
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from flowledger.migrations.ddl import BLOB, LONG_TEXT, TIMESTAMP

revision = "0001_event_log"
down_revision = None
branch_labels = None
depends_on = None

_position = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

# One row per event, for auditors who query single events in plain SQL.
_EVENTS_VIEW = {
    "sqlite": """
        CREATE VIEW event_log_events AS
        SELECT e.first_position + j.key AS position,
               e.stream_id AS stream_id,
               e.first_version + j.key AS version,
               json_extract(j.value, '$.type') AS event_type,
               json_extract(j.value, '$.v') AS schema_version,
               j.value AS payload,
               e.command_id AS command_id,
               e.recorded_at AS recorded_at
        FROM event_log e, json_each(e.events) j
    """,
    "postgresql": """
        CREATE VIEW event_log_events AS
        SELECT e.first_position + j.ord - 1 AS position,
               e.stream_id AS stream_id,
               e.first_version + j.ord - 1 AS version,
               j.value ->> 'type' AS event_type,
               (j.value ->> 'v')::integer AS schema_version,
               j.value AS payload,
               e.command_id AS command_id,
               e.recorded_at AS recorded_at
        FROM event_log e
        CROSS JOIN LATERAL jsonb_array_elements(e.events::jsonb) WITH ORDINALITY AS j(value, ord)
    """,
    "mysql": """
        CREATE VIEW event_log_events AS
        SELECT e.first_position + j.ord - 1 AS position,
               e.stream_id AS stream_id,
               e.first_version + j.ord - 1 AS version,
               j.event_type AS event_type,
               j.schema_version AS schema_version,
               j.payload AS payload,
               e.command_id AS command_id,
               e.recorded_at AS recorded_at
        FROM event_log e,
             JSON_TABLE(e.events, '$[*]' COLUMNS (
                 ord FOR ORDINALITY,
                 event_type VARCHAR(64) PATH '$.type',
                 schema_version INT PATH '$.v',
                 payload JSON PATH '$'
             )) AS j
    """,
}


def upgrade() -> None:
    op.create_table(
        "event_log",
        sa.Column("first_position", _position, primary_key=True, autoincrement=False),
        sa.Column("last_position", sa.BigInteger, nullable=False),
        sa.Column("stream_id", sa.String(64), nullable=False),
        sa.Column("first_version", sa.Integer, nullable=False),
        sa.Column("last_version", sa.Integer, nullable=False),
        sa.Column("events", LONG_TEXT, nullable=False),
        sa.Column("command_id", sa.String(64), nullable=False),
        sa.Column("command_type", sa.String(64), nullable=False),
        sa.Column("actor", sa.String(255)),
        sa.Column("causation_position", sa.BigInteger),
        sa.Column("recorded_at", TIMESTAMP, nullable=False),
        sa.Column("prev_hash", sa.String(64)),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("stream_id", "first_version", name="uq_event_log_stream_version"),
    )
    op.create_table(
        "command_log",
        sa.Column("command_id", sa.String(64), primary_key=True),
        sa.Column("command_type", sa.String(64), nullable=False),
        sa.Column("payload", LONG_TEXT, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text),
        sa.Column("result", LONG_TEXT),
        sa.Column("first_position", sa.BigInteger),
        sa.Column("last_position", sa.BigInteger),
        sa.Column("actor", sa.String(255)),
        sa.Column("received_at", TIMESTAMP, nullable=False),
    )
    log_head = op.create_table(
        "log_head",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("last_position", sa.BigInteger, nullable=False),
    )
    op.bulk_insert(log_head, [{"id": 1, "last_position": 0}])
    op.create_table(
        "instance_snapshot",
        sa.Column("stream_id", sa.String(64), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("state_schema", sa.Integer, nullable=False),
        sa.Column("state", BLOB, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
    )
    op.create_table(
        "projection_checkpoint",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
    )
    dialect = op.get_bind().dialect.name
    op.execute(_EVENTS_VIEW["mysql" if dialect == "mariadb" else dialect])


def downgrade() -> None:
    op.execute("DROP VIEW event_log_events")
    for table in (
        "projection_checkpoint",
        "instance_snapshot",
        "log_head",
        "command_log",
        "event_log",
    ):
        op.drop_table(table)
