"""Table definitions of the event store (SQLAlchemy Core).

The log tables change only additively, by revisions in `migrations/`; nothing here creates them.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Index,
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
    # The Merkle tree over the commits (revision 0018): how many commits it holds, and its right
    # edge (`merkle.Frontier.encode`: one 32-byte hash per set bit of the size, NULL when empty).
    # Written by every append under this row's lock, so a tree head is one read of this row.
    Column("tree_size", BigInteger, nullable=False, server_default="0"),
    Column("frontier", LargeBinary),
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

# Stored levels of the Merkle tree (revision 0018), tiles of height 8 as C2SP tlog-tiles cuts them:
# tile (level, idx) holds the hashes of tree level 8*level, nodes 256*idx .. 256*idx + 255, back to
# back (level 0: the leaf hashes). The right-edge tile of a level is partial (fewer hashes) and is
# rewritten as it fills. Level-0 tiles also keep each leaf's commit's last log position (8 bytes,
# big-endian), and every tile the last position it covers: a position finds its leaf in one read.
# Derived data, written by a follower (`eventlog.tile_store`), never by the command path.
merkle_tile = Table(
    "merkle_tile",
    metadata,
    Column("level", Integer, primary_key=True, autoincrement=False),
    Column("idx", BigInteger, primary_key=True, autoincrement=False),
    Column("hashes", LargeBinary, nullable=False),
    Column("positions", LargeBinary),
    Column("last_position", BigInteger, nullable=False),
    Index("ix_merkle_tile_position", "level", "last_position"),
)

# The keys personal values are sealed with in the log (revision 0019): one per data subject and
# instance stream, AES-256-GCM. Not part of the log (no hash covers them): erasure sets
# `key_material` to NULL and records who and why; the log's ciphertext can no longer be read.
subject_key = Table(
    "subject_key",
    metadata,
    Column("key_id", String(64), primary_key=True),
    Column("subject", String(255), nullable=False),
    Column("stream_id", String(64), nullable=False),
    Column("key_material", LargeBinary),
    Column("created_at", Timestamp, nullable=False),
    Column("erased_at", Timestamp),
    Column("erased_by", String(255)),
    Column("reason", Text),
    Index("ix_subject_key_subject", "subject"),
    Index("ix_subject_key_stream", "stream_id", "subject"),
)
