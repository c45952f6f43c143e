"""Table definitions of the event store (SQLAlchemy Core).

The log tables change only additively, by revisions in `migrations/`; nothing here creates them.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects import mysql

metadata = MetaData()

# SQLite only makes an INTEGER PRIMARY KEY the rowid alias; other dialects get a real BIGINT.
Position = BigInteger().with_variant(Integer(), "sqlite")
# MySQL's DATETIME drops milliseconds unless asked for them.
Timestamp = DateTime().with_variant(mysql.DATETIME(fsp=3), "mysql", "mariadb")
# MySQL's TEXT stops at 64 KB; a commit of a long command can be larger.
LongText = Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")
Blob = LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")

event_log = Table(
    "event_log",
    metadata,
    Column("first_position", Position, primary_key=True, autoincrement=False),
    Column("last_position", BigInteger, nullable=False),
    Column("stream_id", String(64), nullable=False),
    Column("first_version", Integer, nullable=False),
    Column("last_version", Integer, nullable=False),
    Column("events", LongText, nullable=False),
    Column("command_id", String(64), nullable=False),
    Column("command_type", String(64), nullable=False),
    Column("actor", String(255)),
    Column("causation_position", BigInteger),
    # Through what the command came: rest, cli, python, job-executor (revision 0009).
    Column("via", String(32)),
    Column("recorded_at", Timestamp, nullable=False),
    Column("prev_hash", String(64)),
    Column("hash", String(64), nullable=False),
    UniqueConstraint("stream_id", "first_version", name="uq_event_log_stream_version"),
)

command_log = Table(
    "command_log",
    metadata,
    Column("command_id", String(64), primary_key=True),
    Column("command_type", String(64), nullable=False),
    Column("payload", LongText, nullable=False),
    Column("status", String(16), nullable=False),
    Column("reason", Text),
    Column("result", LongText),
    Column("first_position", BigInteger),
    Column("last_position", BigInteger),
    Column("actor", String(255)),
    Column("received_at", Timestamp, nullable=False),
    Column("via", String(32)),
)

log_head = Table(
    "log_head",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("last_position", BigInteger, nullable=False),
)

# Each stream's witness: its last commit's version and hash, written with every commit in the
# same transaction (revision 0014). A stream whose commits no longer end there was tampered with.
stream_head = Table(
    "stream_head",
    metadata,
    Column("stream_id", String(64), primary_key=True),
    Column("last_version", Integer, nullable=False),
    Column("last_hash", String(64), nullable=False),
)

instance_snapshot = Table(
    "instance_snapshot",
    metadata,
    Column("stream_id", String(64), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("position", BigInteger, nullable=False),
    Column("state_schema", Integer, nullable=False),
    Column("state", Blob, nullable=False),
    Column("created_at", Timestamp, nullable=False),
)

# Audit packages loaded here, and the position gaps each left (revision 0010).
log_import = Table(
    "log_import",
    metadata,
    Column("package_digest", String(64), primary_key=True),
    Column("subject", String(64), nullable=False),
    Column("source_engine_version", String(64), nullable=False),
    Column("first_position", BigInteger, nullable=False),
    Column("last_position", BigInteger, nullable=False),
    Column("gaps", LongText, nullable=False),
    Column("imported_at", Timestamp, nullable=False),
)

projection_checkpoint = Table(
    "projection_checkpoint",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("position", BigInteger, nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("updated_at", Timestamp, nullable=False),
    # Why a projection stopped: the commit it cannot project and the error (revision 0004).
    Column("detail", Text),
)
