"""Contract tests of eventlog.EventStore, one abstract class run on SQLite, PostgreSQL and MariaDB.

Talks to the store through SQLAlchemy connections only (no engine); never edits the log by hand.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from itertools import pairwise
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest
import sqlalchemy as sa
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.exc import IntegrityError

from flowledger import migrations
from flowledger.eventlog import (
    CommandLogChecker,
    CommandRecord,
    ConcurrencyError,
    CorruptStream,
    EventCodec,
    EventStore,
    LogAnchor,
    LogChecker,
    NewCommit,
    Snapshot,
    StoredCommit,
    check_stream,
)
from tests.support import fresh_database

# -- a tiny event vocabulary of our own: the store must not care what events mean -----------------


class LedgerEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    v: int = 1


class ItemAdded(LedgerEvent, tag=True, frozen=True):
    sku: str
    qty: int


class NoteWritten(LedgerEvent, tag=True, frozen=True):
    text: str


CODEC = EventCodec(ItemAdded | NoteWritten, {"ItemAdded": 1, "NoteWritten": 1})
NOW = datetime(2026, 3, 1, 9, 0, 0, 123_456, tzinfo=UTC)


def items(n: int, prefix: str = "sku") -> list[LedgerEvent]:
    return [ItemAdded(sku=f"{prefix}-{i}", qty=i + 1) for i in range(n)]


def new_commit(
    stream_id: str,
    expected_version: int,
    prev_hash: str | None,
    events: Sequence[LedgerEvent],
    **extra: Any,
) -> NewCommit:
    return NewCommit(
        stream_id=stream_id,
        expected_version=expected_version,
        prev_hash=prev_hash,
        events=CODEC.encode(events),
        event_count=len(events),
        command_id=extra.pop("command_id", uuid.uuid4().hex),
        command_type=extra.pop("command_type", "AddItems"),
        **extra,
    )


def make_sql_engine(url: str) -> SqlEngine:
    """A SQLAlchemy engine configured like the flowledger engine opens its database.

    SQLite writers take the write lock up front (BEGIN IMMEDIATE), as `core.Engine` does; without
    it two WAL writers fail with SQLITE_BUSY instead of queueing. Servers run READ COMMITTED.
    """
    if not url.startswith("sqlite"):
        return sa.create_engine(url, isolation_level="READ COMMITTED")
    db = sa.create_engine(url, connect_args={"check_same_thread": False})

    @sa_event.listens_for(db, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @sa_event.listens_for(db, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return db


@dataclass
class Log:
    """A migrated database and the store on it, plus shorthands for the common steps."""

    db: SqlEngine
    store: EventStore

    def append(
        self, commits: Sequence[NewCommit], recorded_at: datetime = NOW
    ) -> list[StoredCommit]:
        with self.db.begin() as conn:
            return self.store.append(conn, commits, recorded_at)

    def append_next(
        self, stream_id: str, events: Sequence[LedgerEvent], recorded_at: datetime = NOW
    ) -> StoredCommit:
        """Read the stream's head and append after it, in one transaction."""
        with self.db.begin() as conn:
            version, head = self.head(conn, stream_id)
            return self.store.append(
                conn, [new_commit(stream_id, version, head, events)], recorded_at
            )[0]

    def head(self, conn: Connection, stream_id: str) -> tuple[int, str | None]:
        found = self.store.stream_head(conn, stream_id)
        return (0, None) if found is None else found

    def read_all(self, **kwargs: Any) -> list[StoredCommit]:
        with self.db.connect() as conn:
            return list(self.store.read_all(conn, **kwargs))

    def head_position(self) -> int:
        with self.db.connect() as conn:
            return self.store.head_position(conn)


def assert_gapless(commits: Sequence[StoredCommit]) -> None:
    """Positions 1..n, each commit a consecutive range right after the previous one."""
    expected = 1
    for c in commits:
        assert c.first_position == expected, f"commit at {c.first_position}, expected {expected}"
        assert c.last_position - c.first_position + 1 == len(CODEC.decode(c.events))
        expected = c.last_position + 1


def assert_stream_versions(commits: Sequence[StoredCommit]) -> None:
    """Per stream: versions 1..n without gaps, each commit chained to its predecessor."""
    heads: dict[str, tuple[int, str | None]] = {}
    for c in commits:
        version, prev_hash = heads.get(c.stream_id, (0, None))
        assert c.first_version == version + 1
        assert c.last_version - c.first_version == c.last_position - c.first_position
        assert c.prev_hash == prev_hash
        heads[c.stream_id] = (c.last_version, c.hash)


class EventStoreContract:
    """What every dialect's event store must do; subclasses only say which database."""

    kind: ClassVar[str]

    @pytest.fixture
    def log(self, tmp_path: Path) -> Iterator[Log]:
        with fresh_database(self.kind, tmp_path) as url:
            db = make_sql_engine(url)
            try:
                migrations.upgrade(db)
                yield Log(db, EventStore(db.dialect.name))
            finally:
                db.dispose()

    # -- appending -------------------------------------------------------------------------

    def test_empty_log(self, log: Log) -> None:
        assert log.head_position() == 0
        assert log.read_all() == []
        with log.db.connect() as conn:
            assert log.store.stream_head(conn, "nothing") is None
            assert log.store.read_stream(conn, "nothing") == []
            assert log.store.verify(conn) == []
        assert log.append([]) == []
        assert log.head_position() == 0

    def test_first_append_gets_positions_and_versions_from_one(self, log: Log) -> None:
        [first] = log.append([new_commit("order-1", 0, None, items(3))])
        assert (first.first_position, first.last_position) == (1, 3)
        assert (first.first_version, first.last_version) == (1, 3)
        assert first.prev_hash is None
        assert re.fullmatch(r"[0-9a-f]{64}", first.hash)
        assert CODEC.decode(first.events) == items(3)

        [second] = log.append([new_commit("order-1", 3, first.hash, items(2, "more"))])
        assert (second.first_position, second.last_position) == (4, 5)
        assert (second.first_version, second.last_version) == (4, 5)
        assert second.prev_hash == first.hash

        assert log.read_all() == [first, second]
        assert log.head_position() == 5
        with log.db.connect() as conn:
            assert log.store.stream_head(conn, "order-1") == (5, second.hash)

    def test_stored_commit_keeps_its_metadata(self, log: Log) -> None:
        [stored] = log.append(
            [
                new_commit(
                    "order-1",
                    0,
                    None,
                    items(1),
                    command_id="cmd-42",
                    command_type="StartOrder",
                    actor="alice",
                    causation_position=None,
                )
            ]
        )
        [after] = log.append(
            [new_commit("order-2", 0, None, items(1), actor=None, causation_position=1)]
        )
        [read, read_after] = log.read_all()
        assert read == stored
        assert (read.command_id, read.command_type, read.actor) == ("cmd-42", "StartOrder", "alice")
        assert read_after == after
        assert (read_after.actor, read_after.causation_position) == (None, 1)

    def test_one_append_of_several_streams_gets_consecutive_positions(self, log: Log) -> None:
        log.append([new_commit("deployment-1", 0, None, items(1))])
        stored = log.append(
            [
                new_commit("order-a", 0, None, items(2, "a")),
                new_commit("order-b", 0, None, items(3, "b")),
            ]
        )
        assert [(c.stream_id, c.first_position, c.last_position) for c in stored] == [
            ("order-a", 2, 3),
            ("order-b", 4, 6),
        ]
        assert [(c.first_version, c.last_version) for c in stored] == [(1, 2), (1, 3)]
        assert log.read_all()[1:] == stored
        assert log.head_position() == 6

    def test_stale_expected_version_raises_and_writes_nothing(self, log: Log) -> None:
        first = log.append_next("order-1", items(2))
        second = log.append_next("order-1", items(2, "second"))
        before = log.read_all()

        for stale, prev_hash in ((0, None), (2, first.hash)):
            with pytest.raises(ConcurrencyError) as raised, log.db.begin() as conn:
                log.store.append(conn, [new_commit("order-1", stale, prev_hash, items(1))], NOW)
            assert raised.value.stream_id == "order-1"
            assert raised.value.expected_version == stale
            assert "order-1" in str(raised.value)

        assert log.read_all() == before
        assert log.head_position() == 4
        with log.db.connect() as conn:
            assert log.store.stream_head(conn, "order-1") == (4, second.hash)
            assert log.store.verify(conn) == []

    def test_expected_version_inside_an_earlier_commit_is_rejected(self, log: Log) -> None:
        first = log.append_next("order-1", items(3))  # versions 1..3 in one commit
        with pytest.raises(ConcurrencyError), log.db.begin() as conn:
            # the stream has moved past version 1: this writer decided on an outdated state
            log.store.append(conn, [new_commit("order-1", 1, first.hash, items(1))], NOW)
        with log.db.connect() as conn:
            assert log.store.verify(conn) == []

    def test_concurrency_error_names_the_stream_that_moved(self, log: Log) -> None:
        log.append_next("order-moved", items(1))
        with pytest.raises(ConcurrencyError) as raised, log.db.begin() as conn:
            log.store.append(
                conn,
                [
                    new_commit("order-new", 0, None, items(1)),
                    new_commit("order-moved", 0, None, items(1)),
                ],
                NOW,
            )
        assert raised.value.stream_id == "order-moved"

    def test_two_writers_that_read_the_same_head_one_wins(self, log: Log) -> None:
        log.append_next("order-1", items(1))
        with log.db.connect() as reader_a, reader_a.begin():
            head_a = log.head(reader_a, "order-1")
        with log.db.connect() as reader_b, reader_b.begin():
            head_b = log.head(reader_b, "order-1")
        assert head_a == head_b

        winner = log.append([new_commit("order-1", *head_a, items(1, "a"))])
        with pytest.raises(ConcurrencyError), log.db.begin() as conn:
            log.store.append(conn, [new_commit("order-1", *head_b, items(1, "b"))], NOW)

        commits = log.read_all()
        assert commits[-1] == winner[0]
        assert [c.last_version for c in commits] == [1, 2]
        assert log.head_position() == 2

    def test_second_writer_blocks_until_the_first_commits_then_loses(self, log: Log) -> None:
        """Two connections, both decided on the same head: the second waits on the log head lock
        while the first transaction is open, and gets ConcurrencyError once it commits."""
        log.append_next("order-1", items(1))
        with log.db.connect() as reader, reader.begin():
            head = log.head(reader, "order-1")

        finished = threading.Event()
        outcome: list[BaseException | list[StoredCommit]] = []

        def second_writer() -> None:
            try:
                with log.db.begin() as conn:
                    outcome.append(
                        log.store.append(conn, [new_commit("order-1", *head, items(1, "b"))], NOW)
                    )
            except BaseException as exc:
                outcome.append(exc)
            finally:
                finished.set()

        with log.db.connect() as first, first.begin():
            won = log.store.append(first, [new_commit("order-1", *head, items(1, "a"))], NOW)
            thread = threading.Thread(target=second_writer)
            thread.start()
            assert not finished.wait(0.5), "the second writer did not wait for the first"
        thread.join(30)
        assert finished.is_set()
        assert len(outcome) == 1
        assert isinstance(outcome[0], ConcurrencyError), outcome[0]
        assert log.read_all()[-1] == won[0]
        assert log.head_position() == 2

    def test_checking_heads_does_not_wait_for_a_writer_holding_the_log_head(self, log: Log) -> None:
        """Callers check their streams' heads before they write rows and only then claim
        positions: the check itself waits for nobody, and names the stream that moved."""
        if self.kind == "sqlite":
            pytest.skip("SQLite has one writer at a time: a second writer waits at BEGIN")
        first = log.append_next("order-1", items(1))
        log.append_next("order-2", items(1))
        stale = new_commit("order-2", 1, "0" * 64, items(1))  # not the head's hash
        fresh = new_commit("order-1", first.last_version, first.hash, items(1))
        checked: list[BaseException | None] = []

        def check() -> None:
            try:
                with log.db.begin() as conn:
                    log.store.check_heads(conn, [fresh])
                    checked.append(None)
                    log.store.check_heads(conn, [stale])
            except BaseException as exc:
                checked.append(exc)

        with log.db.connect() as holder, holder.begin():
            log.store.append(holder, [new_commit("order-3", 0, None, items(2))], NOW)
            thread = threading.Thread(target=check)
            thread.start()
            thread.join(30)  # only a bound: the check must finish while the log head is held
            assert not thread.is_alive(), "checking heads waited for the log head"
        assert checked[0] is None
        assert isinstance(checked[1], ConcurrencyError) and checked[1].stream_id == "order-2"

    def test_positions_follow_commit_order(self, log: Log) -> None:
        """A writer that starts while another holds positions gets the positions after it."""
        finished = threading.Event()
        outcome: list[BaseException | StoredCommit] = []

        def later_writer() -> None:
            try:
                outcome.append(log.append_next("order-later", items(1, "later")))
            except BaseException as exc:
                outcome.append(exc)
            finally:
                finished.set()

        with log.db.connect() as first, first.begin():
            [earlier] = log.store.append(
                first, [new_commit("order-earlier", 0, None, items(3))], NOW
            )
            thread = threading.Thread(target=later_writer)
            thread.start()
            assert not finished.wait(0.5), "the later writer did not wait for the log head"
        thread.join(30)
        [later] = outcome
        assert isinstance(later, StoredCommit), later
        assert (earlier.first_position, earlier.last_position) == (1, 3)
        assert later.first_position == 4
        assert_gapless(log.read_all())

    def test_rolled_back_append_leaves_no_gap(self, log: Log) -> None:
        first = log.append_next("order-1", items(2))
        with log.db.connect() as conn:
            txn = conn.begin()
            undone = log.store.append(conn, [new_commit("order-2", 0, None, items(5))], NOW)
            assert undone[0].first_position == 3
            txn.rollback()
        assert log.head_position() == 2

        # a failed (ConcurrencyError) append is rolled back with its log head update as well
        with pytest.raises(ConcurrencyError), log.db.begin() as conn:
            log.store.append(
                conn,
                [
                    new_commit("order-3", 0, None, items(4)),
                    new_commit("order-1", 0, None, items(1)),
                ],
                NOW,
            )
        assert log.head_position() == 2

        after = log.append_next("order-2", items(1))
        assert after.first_position == first.last_position + 1 == 3
        assert after.first_version == 1
        commits = log.read_all()
        assert commits == [first, after]
        assert_gapless(commits)
        with log.db.connect() as conn:
            assert log.store.verify(conn) == []

    # -- reading ---------------------------------------------------------------------------

    def test_read_stream_after_version(self, log: Log) -> None:
        a1 = log.append_next("order-a", items(2))  # versions 1..2
        log.append_next("order-b", items(1))
        a2 = log.append_next("order-a", items(1))  # 3
        a3 = log.append_next("order-a", items(3))  # 4..6
        with log.db.connect() as conn:
            read = log.store.read_stream
            assert read(conn, "order-a") == [a1, a2, a3]
            assert read(conn, "order-a", after_version=2) == [a2, a3]
            # a commit that straddles the version is returned whole
            assert read(conn, "order-a", after_version=4) == [a3]
            assert read(conn, "order-a", after_version=6) == []
            assert [c.stream_id for c in read(conn, "order-b")] == ["order-b"]
            assert read(conn, "order-c") == []

    def test_read_all_in_position_order_with_batches(self, log: Log) -> None:
        written = [log.append_next(f"order-{i % 3}", items(i % 2 + 1, f"e{i}")) for i in range(7)]
        assert log.read_all() == written
        assert log.read_all(batch_size=2) == written
        assert log.read_all(batch_size=1) == written
        firsts = [c.first_position for c in log.read_all(batch_size=2)]
        assert firsts == sorted(firsts)
        assert_gapless(written)

        cut = written[2].last_position
        assert log.read_all(after_position=cut, batch_size=2) == written[3:]
        assert log.read_all(up_to_position=written[4].first_position, batch_size=2) == written[:5]
        assert log.read_all(after_position=written[-1].last_position) == []

    def test_stream_head_and_head_position(self, log: Log) -> None:
        a = log.append_next("order-a", items(2))
        b = log.append_next("order-b", items(3))
        a2 = log.append_next("order-a", items(1))
        with log.db.connect() as conn:
            assert log.store.stream_head(conn, "order-a") == (3, a2.hash)
            assert log.store.stream_head(conn, "order-b") == (3, b.hash)
            assert log.store.head_position(conn) == 6
            assert log.store.stream_ids(conn) == ["order-a", "order-b"]
        assert a.hash != a2.hash

    # -- the hash chain --------------------------------------------------------------------

    def test_hash_chain_links_each_streams_commits(self, log: Log) -> None:
        for i in range(6):
            log.append_next(f"order-{i % 2}", items(i + 1))
        commits = log.read_all()
        assert_stream_versions(commits)
        for stream in ("order-0", "order-1"):
            own = [c for c in commits if c.stream_id == stream]
            assert own[0].prev_hash is None
            for before, after in pairwise(own):
                assert after.prev_hash == before.hash
        assert len({c.hash for c in commits}) == len(commits)
        with log.db.connect() as conn:
            assert log.store.verify(conn) == []

    def test_append_refuses_a_previous_hash_that_is_not_the_heads(self, log: Log) -> None:
        log.append_next("order-1", items(1))
        before = log.read_all()
        with pytest.raises(ConcurrencyError), log.db.begin() as conn:
            log.store.append(conn, [new_commit("order-1", 1, "0" * 64, items(1))], NOW)
        assert log.read_all() == before

    def test_verify_reports_a_stored_commit_with_a_wrong_previous_hash(self, log: Log) -> None:
        log.append_next("order-1", items(1))
        bad = log.append_next("order-1", items(1))
        with log.db.begin() as conn:
            conn.execute(
                sa.text("UPDATE event_log SET prev_hash = :h WHERE first_position = :p"),
                {"h": "0" * 64, "p": bad.first_position},
            )
        with log.db.connect() as conn:
            problems = log.store.verify(conn)
        assert (("chain", "order-1", bad.first_position)) in [
            (p.kind, p.stream_id, p.position) for p in problems
        ]
        assert "order-1" in str(problems[0]) and f"position {bad.first_position}" in str(
            problems[0]
        )

    def test_check_stream_refuses_an_edited_commit_naming_stream_and_position(
        self, log: Log
    ) -> None:
        log.append_next("order-1", items(1))
        bad = log.append_next("order-1", items(2))
        log.append_next("order-1", items(1))
        with log.db.connect() as conn:
            check_stream("order-1", log.store.read_stream(conn, "order-1"), 0, linked_to_start=True)
        with log.db.begin() as conn:
            conn.execute(
                sa.text("UPDATE event_log SET actor = 'mallory' WHERE first_position = :p"),
                {"p": bad.first_position},
            )
        with log.db.connect() as conn:
            commits = log.store.read_stream(conn, "order-1")
            with pytest.raises(CorruptStream) as refused:
                check_stream("order-1", commits, 0, linked_to_start=True)
            # a tail read after a snapshot is checked from where it starts
            check_stream("order-1", commits[2:], 3, linked_to_start=False)
        assert (refused.value.stream_id, refused.value.position) == ("order-1", bad.first_position)
        assert f"position {bad.first_position}" in str(refused.value)

    def test_an_anchor_holds_while_the_log_grows_and_fails_once_its_past_changes(
        self, log: Log
    ) -> None:
        first = log.append_next("order-1", items(2))
        log.append_next("order-2", items(1))
        with log.db.connect() as conn:
            checker = LogChecker()
            for commit in log.store.read_all(conn):
                checker.check(commit)
            anchor = checker.finish(log.store.head_position(conn))
        assert anchor.position == log.head_position()
        assert LogAnchor.parse(str(anchor)) == anchor
        log.append_next("order-1", items(1))
        with log.db.connect() as conn:
            assert log.store.verify(conn, anchor) == []
        with log.db.begin() as conn:
            conn.execute(
                sa.text("UPDATE event_log SET command_type = 'Forged' WHERE first_position = :p"),
                {"p": first.first_position},
            )
        with log.db.connect() as conn:
            problems = log.store.verify(conn, anchor)
        assert ("anchor", None, anchor.position) in [
            (p.kind, p.stream_id, p.position) for p in problems
        ]
        with pytest.raises(ValueError, match="POSITION:DIGEST"):
            LogAnchor.parse("3")

    def test_command_log_checker_compares_accepted_commands_with_their_commits(
        self, log: Log
    ) -> None:
        def accepted(commit: StoredCommit, actor: str | None = None) -> CommandRecord:
            return CommandRecord(
                commit.command_id,
                commit.command_type,
                b"{}",
                "accepted",
                NOW,
                first_position=commit.first_position,
                last_position=commit.last_position,
                actor=actor,
            )

        a = log.append_next("order-1", items(2))
        b = log.append_next("order-2", items(1))
        c = log.append_next("order-1", items(1))
        ghost = CommandRecord(
            "ghost", "AddItems", b"{}", "accepted", NOW, first_position=9, last_position=9
        )
        with log.db.begin() as conn:
            log.store.record_command(conn, accepted(a))
            log.store.record_command(conn, accepted(b, actor="mallory"))
            log.store.record_command(conn, ghost)
        with log.db.connect() as conn:
            checker = CommandLogChecker(log.store, conn)
            for commit in log.store.read_all(conn):
                checker.check(commit)
            checker.finish()
        found = {p.command_id: str(p) for p in checker.problems}
        assert set(found) == {b.command_id, c.command_id, "ghost"}, found
        assert "mallory" in found[b.command_id]
        assert "no such command" in found[c.command_id]
        assert "positions 9..9" in found["ghost"]
        assert checker.missing == [("ghost", 9, 9)]

    # -- the command log -------------------------------------------------------------------

    def test_command_log_round_trip(self, log: Log) -> None:
        accepted = CommandRecord(
            command_id="cmd-1",
            command_type="CompleteTask",
            payload=b'{"task_id":"t-1","note":"na\xc3\xafve"}',
            status="accepted",
            received_at=datetime(
                2026, 3, 1, 10, 0, 0, 987_654, tzinfo=timezone(timedelta(hours=2))
            ),
            result=b'{"ok":true}',
            first_position=1,
            last_position=4,
            actor="alice",
        )
        rejected = CommandRecord(
            command_id="cmd-2",
            command_type="ClaimTask",
            payload=b"{}",
            status="rejected",
            received_at=NOW,
            reason="TaskAlreadyClaimed: task t-1 is claimed by alice",
        )
        with log.db.begin() as conn:
            log.store.record_command(conn, accepted)
            log.store.record_command(conn, rejected)
        with log.db.connect() as conn:
            assert log.store.find_command(conn, "cmd-1") == CommandRecord(
                command_id="cmd-1",
                command_type="CompleteTask",
                payload=accepted.payload,
                status="accepted",
                received_at=datetime(2026, 3, 1, 8, 0, 0, 987_000),  # naive UTC, milliseconds
                result=b'{"ok":true}',
                first_position=1,
                last_position=4,
                actor="alice",
            )
            found = log.store.find_command(conn, "cmd-2")
            assert found is not None
            assert (found.status, found.reason, found.result) == ("rejected", rejected.reason, None)
            assert (found.first_position, found.last_position, found.actor) == (None, None, None)
            assert log.store.find_command(conn, "cmd-3") is None

    def test_duplicate_command_id_raises_integrity_error(self, log: Log) -> None:
        record = CommandRecord("cmd-1", "StartProcessInstance", b"{}", "accepted", NOW)
        with log.db.begin() as conn:
            log.store.record_command(conn, record)
        with pytest.raises(IntegrityError), log.db.begin() as conn:
            log.store.record_command(conn, record)
        with log.db.connect() as conn:
            assert log.store.find_command(conn, "cmd-1") is not None

    # -- snapshots -------------------------------------------------------------------------

    def test_snapshot_save_load_overwrite(self, log: Log) -> None:
        with log.db.begin() as conn:
            assert log.store.load_snapshot(conn, "order-1", 1) is None
            log.store.save_snapshot(conn, Snapshot("order-1", 500, 512, 1, b"\x00state-1\xff"), NOW)
        with log.db.connect() as conn:
            loaded = log.store.load_snapshot(conn, "order-1", 1)
            assert loaded == Snapshot("order-1", 500, 512, 1, b"\x00state-1\xff")
            assert isinstance(loaded.state, bytes)

        newer = Snapshot("order-1", 1000, 1030, 1, b"state-2" * 1000)
        with log.db.begin() as conn:
            log.store.save_snapshot(conn, newer, NOW + timedelta(minutes=1))
            # saving the very same snapshot again is an overwrite, not a second row
            log.store.save_snapshot(conn, newer, NOW + timedelta(minutes=1))
        with log.db.connect() as conn:
            assert log.store.load_snapshot(conn, "order-1", 1) == newer
            assert log.store.load_snapshot(conn, "order-1", 2) is None
            assert log.store.load_snapshot(conn, "order-2", 1) is None
            count = conn.execute(sa.text("SELECT COUNT(*) FROM instance_snapshot")).scalar_one()
            assert count == 1

    # -- what auditors and metadata readers see --------------------------------------------

    def test_events_view_has_one_row_per_event(self, log: Log) -> None:
        log.append_next("order-a", [ItemAdded(sku="x", qty=1), NoteWritten(text="hi")])
        log.append_next("order-b", [NoteWritten(text="other")])
        log.append_next("order-a", [ItemAdded(sku="y", qty=2)])
        with log.db.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT position, stream_id, version, event_type, schema_version "
                    "FROM event_log_events ORDER BY position"
                )
            ).all()
            by_type = conn.execute(
                sa.text(
                    "SELECT position FROM event_log_events "
                    "WHERE stream_id = :s AND event_type = :t ORDER BY position"
                ),
                {"s": "order-a", "t": "ItemAdded"},
            ).scalars()
            assert list(by_type) == [1, 4]
        assert [tuple(r) for r in rows] == [
            (1, "order-a", 1, "ItemAdded", 1),
            (2, "order-a", 2, "NoteWritten", 1),
            (3, "order-b", 1, "NoteWritten", 1),
            (4, "order-a", 3, "ItemAdded", 1),
        ]

    def test_recorded_at_keeps_milliseconds(self, log: Log) -> None:
        moment = datetime(2026, 3, 1, 11, 30, 15, 678_901, tzinfo=timezone(timedelta(hours=2)))
        [stored] = log.append([new_commit("order-1", 0, None, items(1))], moment)
        expected = datetime(2026, 3, 1, 9, 30, 15, 678_000)  # naive UTC
        assert stored.recorded_at == expected
        [read] = log.read_all()
        assert read.recorded_at == expected
        with log.db.connect() as conn:
            raw = conn.execute(sa.text("SELECT recorded_at FROM event_log")).scalar_one()
            if isinstance(raw, str):  # SQLite keeps datetimes as ISO text
                raw = datetime.fromisoformat(raw)
            assert raw == expected
            assert log.store.verify(conn) == []

    def test_non_ascii_and_large_commits_round_trip(self, log: Log) -> None:
        events: list[LedgerEvent] = [
            NoteWritten(text='naïve café ☃ 🎉 \u2028 "quoted" \\ back'),
            NoteWritten(text="x" * 100_000),  # past MySQL's 64 KB TEXT
        ]
        stored = log.append_next("order-ü", events)
        [read] = log.read_all()
        assert read == stored
        assert CODEC.decode(read.events) == events
        with log.db.connect() as conn:
            assert log.store.stream_head(conn, "order-ü") == (2, stored.hash)
            assert log.store.verify(conn) == []

    # -- many writers at once --------------------------------------------------------------

    def test_concurrent_writers_keep_positions_gapless(self, log: Log) -> None:
        writers, per_writer = 4, 25
        barrier = threading.Barrier(writers)

        def write(w: int) -> list[StoredCommit]:
            barrier.wait()
            return [
                log.append_next(f"writer-{w}", items(i % 3 + 1, f"w{w}-{i}"))
                for i in range(per_writer)
            ]

        with ThreadPoolExecutor(writers) as pool:
            results = list(pool.map(write, range(writers)))

        commits = log.read_all(batch_size=7)
        total = sum(c.last_position - c.first_position + 1 for c in commits)
        assert len(commits) == writers * per_writer
        assert total == sum(i % 3 + 1 for i in range(per_writer)) * writers
        assert_gapless(commits)
        assert_stream_versions(commits)
        assert log.head_position() == total
        assert sorted(c.first_position for r in results for c in r) == [
            c.first_position for c in commits
        ]
        by_position = {c.first_position: c for c in commits}
        for mine in results:
            assert all(by_position[c.first_position] == c for c in mine)
            firsts = [c.first_position for c in mine]
            assert firsts == sorted(firsts)  # one writer's commits stay in its own order
        with log.db.connect() as conn:
            assert log.store.verify(conn) == []

    def test_concurrent_writers_on_one_stream_retry_on_conflict(self, log: Log) -> None:
        writers, per_writer = 4, 10
        barrier = threading.Barrier(writers)

        def write(w: int) -> int:
            barrier.wait()
            conflicts = 0
            for i in range(per_writer):
                while True:
                    try:
                        log.append_next("shared", [NoteWritten(text=f"{w}:{i}")])
                        break
                    except ConcurrencyError:
                        conflicts += 1
            return conflicts

        with ThreadPoolExecutor(writers) as pool:
            list(pool.map(write, range(writers)))

        commits = log.read_all()
        assert [c.first_version for c in commits] == list(range(1, writers * per_writer + 1))
        assert_gapless(commits)
        assert_stream_versions(commits)
        texts = sorted(e.text for c in commits for e in CODEC.decode(c.events))
        assert texts == sorted(f"{w}:{i}" for w in range(writers) for i in range(per_writer))
        with log.db.connect() as conn:
            assert log.store.verify(conn) == []


class TestEventStoreSQLite(EventStoreContract):
    kind = "sqlite"


class TestEventStorePostgreSQL(EventStoreContract):
    kind = "postgresql"


class TestEventStoreMariaDB(EventStoreContract):
    kind = "mariadb"
