"""Append and read commits of events; the command log; checkpoints; snapshots.

Works inside the caller's transaction (a SQLAlchemy Connection): the engine commits the log,
the projections and the command log together. Knows nothing about what the events mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import (
    Integer,
    LargeBinary,
    Row,
    and_,
    bindparam,
    cast,
    delete,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .errors import ConcurrencyError, CorruptStream
from .fastsql import Prepared, PreparedCache
from .hashing import commit_hash
from .integrity import LogAnchor, LogChecker
from .merkle import Frontier, leaf_hash
from .records import CommandRecord, LogEntry, LogProblem, NewCommit, Snapshot, StoredCommit
from .tables import (
    command_log,
    event_log,
    instance_snapshot,
    log_head,
    log_import,
    projection_checkpoint,
    stream_head,
)
from .tree_check import TreeCheckingLogChecker


def _naive_utc(moment: datetime) -> datetime:
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.replace(microsecond=(moment.microsecond // 1000) * 1000)


def _as_bytes(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


def _row_to_commit(row: Row[Any]) -> StoredCommit:
    m = row._mapping
    return StoredCommit(
        first_position=m["first_position"],
        last_position=m["last_position"],
        stream_id=m["stream_id"],
        first_version=m["first_version"],
        last_version=m["last_version"],
        events=_as_bytes(m["events"]),
        command_id=m["command_id"],
        command_type=m["command_type"],
        actor=m["actor"],
        causation_position=m["causation_position"],
        recorded_at=m["recorded_at"],
        prev_hash=m["prev_hash"],
        hash=m["hash"],
        via=m["via"],
    )


def _row_to_command(row: Row[Any]) -> CommandRecord:
    m = row._mapping
    return CommandRecord(
        command_id=m["command_id"],
        command_type=m["command_type"],
        payload=_as_bytes(m["payload"]),
        status=m["status"],
        received_at=m["received_at"],
        reason=m["reason"],
        result=None if m["result"] is None else _as_bytes(m["result"]),
        first_position=m["first_position"],
        last_position=m["last_position"],
        actor=m["actor"],
        via=m["via"],
    )


_prepared = PreparedCache()
_LOAD_BATCH_BYTES = 8 * 1024 * 1024  # events written at a time when loading an audit package
_COMMIT_FIELDS = tuple(f.name for f in fields(StoredCommit))


class EventStore:
    """The event log on one database dialect (sqlite, postgresql, mysql/mariadb)."""

    def __init__(self, dialect: str) -> None:
        self._returning = dialect in ("sqlite", "postgresql")
        self._reserve_returning = text(
            "UPDATE log_head SET last_position = last_position + :n WHERE id = 1 "
            "RETURNING last_position"
        )
        self._reserve = update(log_head).where(log_head.c.id == 1)
        # An append claims its positions and reads the tree's right edge in one statement, then
        # writes the edge grown by its commits (the row is locked by then): the tree head is
        # kept with the log head (`merkle.Frontier`), not recomputed from the log.
        h = log_head.c
        self._reserve_tree_returning = text(
            "UPDATE log_head SET last_position = last_position + :n WHERE id = 1 "
            "RETURNING last_position, tree_size, frontier"
        )
        self._head_tree_locked = (
            select(h.last_position, h.tree_size, h.frontier).where(h.id == 1).with_for_update()
        )
        self._set_tree = (
            update(log_head)
            .where(h.id == 1)
            .values(tree_size=bindparam("tree_size"), frontier=bindparam("frontier"))
        )
        self._advance_tree = (
            update(log_head)
            .where(h.id == 1)
            .values(
                last_position=bindparam("last_position"),
                tree_size=bindparam("tree_size"),
                frontier=bindparam("frontier"),
            )
        )
        self._head = select(log_head.c.last_position).where(log_head.c.id == 1)
        # The head and one checkpoint in one round trip: a read's check that the projections
        # have caught up with the log costs this one statement when they have.
        checkpoint_position = (
            select(projection_checkpoint.c.position)
            .where(projection_checkpoint.c.name == bindparam("name"))
            .scalar_subquery()
        )
        self._checkpoint_position = select(projection_checkpoint.c.position).where(
            projection_checkpoint.c.name == bindparam("name")
        )
        c = projection_checkpoint.c
        self._checkpoint_row = select(c.position, c.status, c.updated_at, c.detail).where(
            c.name == bindparam("name")
        )
        self._move_checkpoint = (
            update(projection_checkpoint)
            .where(projection_checkpoint.c.name == bindparam("name"))
            .values(position=bindparam("position"), updated_at=bindparam("updated_at"))
        )
        self._head_and_checkpoint = select(
            log_head.c.last_position, checkpoint_position.label("checkpoint")
        ).where(log_head.c.id == 1)
        self._insert_commit = insert(event_log)
        self._insert_command = insert(command_log)
        self._stream_head = (
            select(event_log.c.last_version, event_log.c.hash)
            .where(event_log.c.stream_id == bindparam("stream_id"))
            .order_by(event_log.c.first_version.desc())
            .limit(1)
        )
        w = stream_head.c
        self._witness = select(w.last_version, w.last_hash).where(
            w.stream_id == bindparam("stream_id")
        )
        self._witness_insert = insert(stream_head)
        # Compare-and-set: a witness that is not where the command found the stream does not move.
        self._witness_advance = (
            update(stream_head)
            .where(
                w.stream_id == bindparam("w_stream"),
                w.last_version == bindparam("w_expected", type_=Integer),
                w.last_hash == bindparam("w_prev"),
            )
            .values(
                last_version=bindparam("w_version", type_=Integer), last_hash=bindparam("w_hash")
            )
        )
        self._advance = update(log_head).where(log_head.c.id == 1)
        self._advance = self._advance.values(
            last_position=log_head.c.last_position + bindparam("n", type_=Integer)
        )

        events = event_log.c.events
        self._entries = (
            select(
                event_log.c.first_position,
                event_log.c.last_position,
                event_log.c.stream_id,
                event_log.c.first_version,
                event_log.c.last_version,
                # SQLite hands text back as bytes this way, without decoding it to a str that
                # the codec would encode again; elsewhere the text comes as it is.
                (cast(events, LargeBinary) if dialect == "sqlite" else events).label("events"),
                event_log.c.command_id,
                event_log.c.command_type,
                event_log.c.actor,
            )
            .where(event_log.c.first_position > bindparam("after", type_=Integer))
            .order_by(event_log.c.first_position)
            .limit(bindparam("limit", type_=Integer))
        )

        # Every stored column of a commit, in StoredCommit's field order (events as bytes, as
        # above): `read_all` makes its commits straight from the driver's rows.
        stored = [
            (cast(events, LargeBinary) if dialect == "sqlite" else events).label("events")
            if name == "events"
            else event_log.c[name]
            for name in _COMMIT_FIELDS
        ]
        after = event_log.c.first_position > bindparam("after", type_=Integer)
        self._commits = (
            select(*stored)
            .where(after)
            .order_by(event_log.c.first_position)
            .limit(bindparam("limit", type_=Integer))
        )
        self._commits_up_to = (
            select(*stored)
            .where(after, event_log.c.first_position <= bindparam("up_to", type_=Integer))
            .order_by(event_log.c.first_position)
            .limit(bindparam("limit", type_=Integer))
        )

    def _prepared(self, conn: Connection, name: str) -> Prepared:
        return _prepared.get(conn.dialect, name, lambda: getattr(self, name))

    # -- appending -------------------------------------------------------------------------

    def reserve(self, conn: Connection, count: int) -> int:
        """Lock the log head and claim `count` positions; returns the first one.

        The row lock is held until commit, so positions are gapless and in commit order: a
        transaction that claims positions after ours waits for our commit. Callers take it as
        late as they can (after writing their projection rows) and must not wait for any row
        another writer may hold while it waits for this one."""
        if self._returning:
            last = self._prepared(conn, "_reserve_returning").execute(conn, {"n": count}).fetchone()
        else:
            self._prepared(conn, "_advance").execute(conn, {"n": count}).close()
            last = self._prepared(conn, "_head").execute(conn, {}).fetchone()
        return int(last[0]) - count + 1

    def _reserve_tree(self, conn: Connection, count: int) -> tuple[int, Frontier]:
        """`reserve`, and the tree's right edge as the log head holds it. Without RETURNING
        (MySQL/MariaDB) the row is read locked and `_write_tree` moves the head with the tree."""
        if self._returning:
            row = self._prepared(conn, "_reserve_tree_returning").execute(conn, {"n": count})
            last, size, edge = row.fetchone()
            first = int(last) - count + 1
        else:
            cursor = self._prepared(conn, "_head_tree_locked").execute(conn, {})
            last, size, edge = cursor.fetchone()
            cursor.close()
            first = int(last) + 1
        return first, Frontier.decode(int(size), edge or b"")

    def _write_tree(self, conn: Connection, tree: Frontier, last_position: int | None) -> None:
        values: dict[str, Any] = {"tree_size": tree.size, "frontier": tree.encode() or None}
        if last_position is None:
            self._prepared(conn, "_set_tree").execute(conn, values).close()
        else:
            values["last_position"] = last_position
            self._prepared(conn, "_advance_tree").execute(conn, values).close()

    def tree(self, conn: Connection) -> tuple[int, Frontier]:
        """(last log position, the tree's right edge) as the log head holds them: a tree head
        in one read."""
        h = log_head.c
        row = conn.execute(select(h.last_position, h.tree_size, h.frontier).where(h.id == 1)).one()
        return int(row[0]), Frontier.decode(int(row[1]), row[2] or b"")

    def lock_head(self, conn: Connection) -> None:
        """Take the log head's row lock without claiming positions (serialises deployments)."""
        conn.execute(self._reserve.values(last_position=log_head.c.last_position))

    def check_heads(self, conn: Connection, commits: Sequence[NewCommit]) -> None:
        """Raise ConcurrencyError when a stream moved past a commit's `expected_version` (or its
        head hash is not the commit's `prev_hash`). Takes no lock: a writer racing past this
        check still loses on UNIQUE(stream_id, first_version) when it appends."""
        for c in commits:
            if c.expected_version == 0:
                continue  # a new stream: UNIQUE(stream_id, first_version) catches a second creator
            if self.stream_head(conn, c.stream_id) != (c.expected_version, c.prev_hash):
                raise ConcurrencyError(c.stream_id, c.expected_version)

    def append(
        self,
        conn: Connection,
        commits: Sequence[NewCommit],
        recorded_at: datetime,
        *,
        check_heads: bool = True,
    ) -> list[StoredCommit]:
        """Append one commit per stream, all in the caller's transaction.

        Raises ConcurrencyError when a stream moved past `expected_version`; the caller must
        roll back its transaction then. `check_heads=False` skips reading the heads, for a
        caller that read them in this transaction already; racing writers still collide on
        UNIQUE(stream_id, first_version). Claims the positions (`reserve`): the log head stays
        locked until the caller commits.
        """
        if not commits:
            return []
        if check_heads:
            self.check_heads(conn, commits)
        recorded_at = _naive_utc(recorded_at)
        count = sum(c.event_count for c in commits)
        position, tree = self._reserve_tree(conn, count)
        stored: list[StoredCommit] = []
        for c in commits:
            first = position
            last = position + c.event_count - 1
            position = last + 1
            digest = commit_hash(
                prev_hash=c.prev_hash,
                stream_id=c.stream_id,
                first_version=c.expected_version + 1,
                last_version=c.expected_version + c.event_count,
                first_position=first,
                last_position=last,
                command_id=c.command_id,
                command_type=c.command_type,
                actor=c.actor,
                causation_position=c.causation_position,
                recorded_at=recorded_at,
                events=c.events,
                via=c.via,
            )
            stored.append(
                StoredCommit(
                    first_position=first,
                    last_position=last,
                    stream_id=c.stream_id,
                    first_version=c.expected_version + 1,
                    last_version=c.expected_version + c.event_count,
                    events=c.events,
                    command_id=c.command_id,
                    command_type=c.command_type,
                    actor=c.actor,
                    causation_position=c.causation_position,
                    recorded_at=recorded_at,
                    prev_hash=c.prev_hash,
                    hash=digest,
                    via=c.via,
                )
            )
        rows = [
            {
                "first_position": s.first_position,
                "last_position": s.last_position,
                "stream_id": s.stream_id,
                "first_version": s.first_version,
                "last_version": s.last_version,
                "events": s.events.decode(),
                "command_id": s.command_id,
                "command_type": s.command_type,
                "actor": s.actor,
                "causation_position": s.causation_position,
                "recorded_at": recorded_at,
                "prev_hash": s.prev_hash,
                "hash": s.hash,
                "via": s.via,
            }
            for s in stored
        ]
        for s in stored:
            tree.append_hash(leaf_hash(bytes.fromhex(s.hash)))
        self._write_tree(conn, tree, None if self._returning else position - 1)
        # One insert per commit: a lost race then names its own stream (multi-stream is rare).
        insert_commit = self._prepared(conn, "_insert_commit")
        for row, commit in zip(rows, commits, strict=True):
            try:
                insert_commit.executemany(conn, (row,))
            except IntegrityError as exc:
                raise ConcurrencyError(commit.stream_id, commit.expected_version) from exc
        for s in stored:
            self._advance_witness(conn, s)
        return stored

    def _advance_witness(self, conn: Connection, s: StoredCommit) -> None:
        """Move the stream's witness to `s`, from exactly where `s` continues the stream.

        `s` was inserted, so no commit held its first version and the log head is locked: a
        racing writer of the stream lost on UNIQUE(stream_id, first_version) before reaching
        here. A witness elsewhere means the stream's commits were changed behind the engine's
        back (its last commits deleted, its witness removed): nothing may be appended to it."""
        if s.first_version == 1:
            values = {"stream_id": s.stream_id, "last_version": s.last_version, "last_hash": s.hash}
            try:
                self._prepared(conn, "_witness_insert").execute(conn, values).close()
            except IntegrityError:
                # PostgreSQL refuses any statement after the error: the witness is not read.
                raise CorruptStream(
                    s.stream_id,
                    s.first_position,
                    "a command creates it, but it has a witness already: its commits were "
                    "removed behind the engine's back",
                ) from None
            return
        cursor = self._prepared(conn, "_witness_advance").execute(
            conn,
            {
                "w_stream": s.stream_id,
                "w_expected": s.first_version - 1,
                "w_prev": s.prev_hash,
                "w_version": s.last_version,
                "w_hash": s.hash,
            },
        )
        moved = cursor.rowcount
        cursor.close()
        if moved != 1:
            raise self._damaged(conn, s)

    def _damaged(self, conn: Connection, s: StoredCommit) -> CorruptStream:
        witness = self.witness(conn, s.stream_id)
        found = (
            "no witness"
            if witness is None
            else f"its witness at version {witness[0]} (hash {witness[1][:12]}…)"
        )
        expected = s.first_version - 1
        return CorruptStream(
            s.stream_id,
            s.first_position,
            f"a command decided on it at version {expected}, but the log holds {found}: its "
            "commits were changed behind the engine's back",
        )

    # -- reading ---------------------------------------------------------------------------

    def read_stream(
        self, conn: Connection, stream_id: str, after_version: int = 0
    ) -> list[StoredCommit]:
        """Every commit of a stream whose events come after `after_version`, in order."""
        stmt = (
            select(event_log)
            .where(
                and_(event_log.c.stream_id == stream_id, event_log.c.last_version > after_version)
            )
            .order_by(event_log.c.first_version)
        )
        return [_row_to_commit(r) for r in conn.execute(stmt)]

    def read_all(
        self,
        conn: Connection,
        after_position: int = 0,
        up_to_position: int | None = None,
        batch_size: int = 2000,
    ) -> Iterator[StoredCommit]:
        """Every commit in position order, fetched in batches so memory stays flat."""
        values: dict[str, Any] = {"after": after_position, "limit": batch_size}
        if up_to_position is None:
            query = self._prepared(conn, "_commits")
        else:
            query = self._prepared(conn, "_commits_up_to")
            values["up_to"] = up_to_position
        at = _COMMIT_FIELDS.index("events")
        while True:
            rows = query.tuples(conn, values)
            if not rows:
                return
            for row in rows:
                events = row[at]
                if not isinstance(events, bytes):
                    row = (*row[:at], _as_bytes(events), *row[at + 1 :])
                commit = StoredCommit(*row)
                values["after"] = commit.first_position
                yield commit

    def entries(
        self, conn: Connection, after_position: int = 0, batch_size: int = 2000
    ) -> Iterator[LogEntry]:
        """Every commit after `after_position` in position order, with only what projecting
        needs: the readers that replay the whole log (rebuild, history follower) use this."""
        cursor = after_position
        query = self._prepared(conn, "_entries")
        while True:
            rows = query.all(conn, {"after": cursor, "limit": batch_size})
            if not rows:
                return
            for row in rows:
                events = row["events"]
                entry = LogEntry(
                    row["stream_id"],
                    row["first_version"],
                    row["last_version"],
                    row["last_position"],
                    events if isinstance(events, bytes) else events.encode(),
                    row["command_id"],
                    row["command_type"],
                    row["actor"],
                )
                cursor = row["first_position"]
                yield entry

    def stream_head(self, conn: Connection, stream_id: str) -> tuple[int, str] | None:
        cursor = self._prepared(conn, "_stream_head").execute(conn, {"stream_id": stream_id})
        row = cursor.fetchone()
        cursor.close()
        return None if row is None else (int(row[0]), str(row[1]))

    def witness(self, conn: Connection, stream_id: str) -> tuple[int, str] | None:
        """(last version, hash) the stream's last commit wrote as its witness, or None."""
        cursor = self._prepared(conn, "_witness").execute(conn, {"stream_id": stream_id})
        row = cursor.fetchone()
        cursor.close()
        return None if row is None else (int(row[0]), str(row[1]))

    def witnesses(self, conn: Connection) -> Iterator[tuple[str, int, str]]:
        """(stream id, last version, hash) of every stream's witness."""
        w = stream_head.c
        for row in conn.execute(select(w.stream_id, w.last_version, w.last_hash)):
            yield str(row[0]), int(row[1]), str(row[2])

    def commit_count(self, conn: Connection) -> int:
        return int(conn.execute(select(func.count()).select_from(event_log)).scalar_one())

    def head_position(self, conn: Connection) -> int:
        return int(conn.execute(self._head).scalar_one())

    def head_and_checkpoint(self, conn: Connection, name: str) -> tuple[int, int | None]:
        """The log's last position and the checkpoint `name` (None: there is none)."""
        row = self._prepared(conn, "_head_and_checkpoint").first(conn, {"name": name})
        assert row is not None  # log_head has its one row from the first migration on
        found = row["checkpoint"]
        return int(row["last_position"]), None if found is None else int(found)

    def stream_ids(self, conn: Connection) -> list[str]:
        stmt = (
            select(event_log.c.stream_id, func.min(event_log.c.first_position).label("p"))
            .group_by(event_log.c.stream_id)
            .order_by("p")
        )
        return [r[0] for r in conn.execute(stmt)]

    # -- command log -----------------------------------------------------------------------

    def find_command(self, conn: Connection, command_id: str) -> CommandRecord | None:
        row = conn.execute(
            select(command_log).where(command_log.c.command_id == command_id)
        ).first()
        if row is None:
            return None
        return _row_to_command(row)

    def all_commands(self, conn: Connection) -> Iterator[CommandRecord]:
        """Every command-log row, accepted and refused, in the order they were received."""
        rows = conn.execute(
            select(command_log).order_by(command_log.c.received_at, command_log.c.command_id)
        )
        for row in rows:
            yield _row_to_command(row)

    def record_command(self, conn: Connection, record: CommandRecord) -> None:
        """Insert the command's audit row; IntegrityError means the id was used before."""
        self._prepared(conn, "_insert_command").executemany(
            conn,
            (
                {
                    "command_id": record.command_id,
                    "command_type": record.command_type,
                    "payload": record.payload.decode(),
                    "status": record.status,
                    "reason": record.reason,
                    "result": None if record.result is None else record.result.decode(),
                    "first_position": record.first_position,
                    "last_position": record.last_position,
                    "actor": record.actor,
                    "via": record.via,
                    "received_at": _naive_utc(record.received_at),
                },
            ),
        )

    # -- projection checkpoints ------------------------------------------------------------

    def checkpoint(self, conn: Connection, name: str, *, lock: bool = False) -> int | None:
        """The log position a projection has consumed up to, or None when it has no checkpoint.

        With `lock`, the row stays locked until commit (one follower writes at a time).
        """
        if lock and conn.dialect.name != "sqlite":  # SQLite's write lock covers every row
            stmt = select(projection_checkpoint.c.position).where(
                projection_checkpoint.c.name == name
            )
            value = conn.execute(stmt.with_for_update()).scalar()
        else:
            # prepared: the deferred projection reads it with every batch
            row = self._prepared(conn, "_checkpoint_position").first(conn, {"name": name})
            value = None if row is None else row["position"]
        return None if value is None else int(value)

    def save_checkpoint(
        self, conn: Connection, name: str, position: int, schema_version: int, now: datetime
    ) -> None:
        values = {
            "position": position,
            "schema_version": schema_version,
            "status": "following",
            "updated_at": _naive_utc(now),
        }
        updated = conn.execute(
            update(projection_checkpoint).where(projection_checkpoint.c.name == name).values(values)
        )
        if updated.rowcount == 0:
            conn.execute(insert(projection_checkpoint).values(name=name, **values))

    def checkpoint_row(
        self, conn: Connection, name: str, *, lock: bool = False
    ) -> tuple[int, str, datetime, str | None] | None:
        """(position, status, updated_at in UTC, detail) of a checkpoint, or None."""
        if lock and conn.dialect.name != "sqlite":  # SQLite's write lock covers every row
            c = projection_checkpoint.c
            stmt = select(c.position, c.status, c.updated_at, c.detail).where(c.name == name)
            found = conn.execute(stmt.with_for_update()).first()
            row = None if found is None else dict(found._mapping)
        else:  # prepared: the followers read it twice per batch
            row = self._prepared(conn, "_checkpoint_row").first(conn, {"name": name})
        if row is None:
            return None
        updated: datetime = row["updated_at"]
        if updated.tzinfo is None:
            updated = updated.replace(tzinfo=UTC)
        return int(row["position"]), str(row["status"]), updated, row["detail"]

    def set_checkpoint_status(
        self, conn: Connection, name: str, status: str, detail: str | None, now: datetime
    ) -> None:
        conn.execute(
            update(projection_checkpoint)
            .where(projection_checkpoint.c.name == name)
            .values(status=status, detail=detail, updated_at=_naive_utc(now))
        )

    def touch_checkpoint(self, conn: Connection, name: str, status: str, now: datetime) -> bool:
        """Stamp `updated_at` of a checkpoint in `status`; False when there is none such."""
        touched = conn.execute(
            update(projection_checkpoint)
            .where(projection_checkpoint.c.name == name)
            .where(projection_checkpoint.c.status == status)
            .values(updated_at=_naive_utc(now))
        )
        return bool(touched.rowcount)

    def move_checkpoint(self, conn: Connection, name: str, position: int, now: datetime) -> None:
        """Move a checkpoint to `position`, its status and detail as they are."""
        self._prepared(conn, "_move_checkpoint").run(
            conn,
            [
                self._prepared(conn, "_move_checkpoint").params(
                    {"name": name, "position": position, "updated_at": _naive_utc(now)}
                )
            ],
        )

    def drop_checkpoint(self, conn: Connection, name: str) -> None:
        conn.execute(delete(projection_checkpoint).where(projection_checkpoint.c.name == name))

    # -- snapshots -------------------------------------------------------------------------

    def load_snapshot(self, conn: Connection, stream_id: str, state_schema: int) -> Snapshot | None:
        row = conn.execute(
            select(instance_snapshot).where(instance_snapshot.c.stream_id == stream_id)
        ).first()
        if row is None or row._mapping["state_schema"] != state_schema:
            return None
        m = row._mapping
        return Snapshot(m["stream_id"], m["version"], m["position"], m["state_schema"], m["state"])

    def save_snapshot(self, conn: Connection, snapshot: Snapshot, created_at: datetime) -> None:
        values = {
            "version": snapshot.version,
            "position": snapshot.position,
            "state_schema": snapshot.state_schema,
            "state": snapshot.state,
            "created_at": _naive_utc(created_at),
        }
        updated = conn.execute(
            update(instance_snapshot)
            .where(instance_snapshot.c.stream_id == snapshot.stream_id)
            .values(**values)
        ).rowcount
        if not updated:
            conn.execute(insert(instance_snapshot).values(stream_id=snapshot.stream_id, **values))

    # -- verification ----------------------------------------------------------------------

    def verify(self, conn: Connection, expect: LogAnchor | None = None) -> list[LogProblem]:
        """Check gapless positions, stream continuity and every hash of every stream's chain
        (and, given an anchor an auditor kept, that the log up to it is still what it was)."""
        checker = self.log_checker(conn, expect)
        for commit in self.read_all(conn):
            checker.check(commit)
        checker.finish(self.head_position(conn))
        return checker.problems

    def log_checker(self, conn: Connection, expect: LogAnchor | None = None) -> LogChecker:
        """A checker of this log: it accepts the gaps imported audit packages left, no other, and
        compares each stream's chain head with its witness."""
        return TreeCheckingLogChecker(
            conn,
            self,
            expect,
            self.imported_gaps(conn),
            lambda: self.witnesses(conn),
            lambda stream_id, version, digest: self.holds(conn, stream_id, version, digest),
        )

    def holds(self, conn: Connection, stream_id: str, last_version: int, digest: str) -> bool:
        """Whether the log holds the stream's commit ending at `last_version` with `digest`."""
        e = event_log.c
        found = conn.execute(
            select(e.first_position).where(
                e.stream_id == stream_id, e.last_version == last_version, e.hash == digest
            )
        ).first()
        return found is not None

    # -- imported audit packages -----------------------------------------------------------

    def imported_gaps(self, conn: Connection) -> list[tuple[int, int]]:
        gaps: list[tuple[int, int]] = []
        for (recorded,) in conn.execute(select(log_import.c.gaps)):
            gaps.extend((int(a), int(b)) for a, b in msgspec.json.decode(recorded))
        return gaps

    def load_commits(
        self,
        conn: Connection,
        commits: Iterable[StoredCommit],
        commands: Iterable[CommandRecord],
        *,
        first_position: int,
        last_position: int,
        digest: str,
        subject: str,
        source_engine_version: str,
        imported_at: datetime,
        batch_size: int = 500,
    ) -> None:
        """Write another log's commits as they are, at their own positions (their hashes cover
        them), with their commands and each stream's witness, and move the head past them.
        Refuses (ValueError) unless every position (`first_position`..`last_position`, as the
        caller checked them) lies beyond this log's head; records the gaps the commits leave.
        Takes the commits in position order, written `batch_size` at a time."""
        self.lock_head(conn)
        head, tree = self.tree(conn)
        first, last = first_position, last_position
        if first <= head:
            raise ValueError(
                f"the package holds positions {first}..{last}, but this log already reaches "
                f"position {head}: a commit's position is part of its hash, so the package loads "
                "only into a log that ends before it (a fresh database)"
            )
        gaps: list[tuple[int, int]] = []
        expected = head + 1
        witnesses: dict[str, tuple[int, str]] = {}
        batch: list[dict[str, Any]] = []
        held = 0  # bytes of events in `batch`
        for c in commits:
            if c.first_position > expected:
                gaps.append((expected, c.first_position - 1))
            expected = c.last_position + 1
            witnesses[c.stream_id] = (c.last_version, c.hash)
            tree.append_hash(leaf_hash(bytes.fromhex(c.hash)))
            batch.append(
                {
                    "first_position": c.first_position,
                    "last_position": c.last_position,
                    "stream_id": c.stream_id,
                    "first_version": c.first_version,
                    "last_version": c.last_version,
                    "events": c.events.decode(),
                    "command_id": c.command_id,
                    "command_type": c.command_type,
                    "actor": c.actor,
                    "causation_position": c.causation_position,
                    "recorded_at": _naive_utc(c.recorded_at),
                    "prev_hash": c.prev_hash,
                    "hash": c.hash,
                    "via": c.via,
                }
            )
            held += len(c.events)
            if len(batch) >= batch_size or held >= _LOAD_BATCH_BYTES:
                conn.execute(insert(event_log), batch)
                batch, held = [], 0
        if batch:
            conn.execute(insert(event_log), batch)
        if expected != last + 1:
            raise ValueError(f"the commits end at position {expected - 1}, not at {last}")
        conn.execute(
            insert(stream_head),
            [
                {"stream_id": stream_id, "last_version": version, "last_hash": digest_}
                for stream_id, (version, digest_) in witnesses.items()
            ],
        )
        for record in commands:
            self.record_command(conn, record)
        self._write_tree(conn, tree, last)
        conn.execute(
            insert(log_import).values(
                package_digest=digest,
                subject=subject,
                source_engine_version=source_engine_version,
                first_position=first,
                last_position=last,
                gaps=msgspec.json.encode(gaps).decode(),
                imported_at=_naive_utc(imported_at),
            )
        )

    def accepted_commands(
        self, conn: Connection, batch_size: int = 5000
    ) -> Iterator[tuple[str, str, str | None, int, int]]:
        """(command id, type, actor, first position, last position) of every accepted command
        that appended events, in position order, fetched in batches (keyset on the position)."""
        cursor = 0
        c = command_log.c
        while True:
            rows = conn.execute(
                select(c.command_id, c.command_type, c.actor, c.first_position, c.last_position)
                .where(
                    and_(
                        c.status == "accepted",
                        c.first_position.is_not(None),
                        c.first_position > cursor,
                    )
                )
                .order_by(c.first_position)
                .limit(batch_size)
            ).all()
            if not rows:
                return
            for row in rows:
                cursor = int(row[3])
                yield str(row[0]), str(row[1]), row[2], int(row[3]), int(row[4])
