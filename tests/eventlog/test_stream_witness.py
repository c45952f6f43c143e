"""Each stream's witness (`stream_head`: its last commit's version and hash, written with every
commit): a stream changed behind the engine's back is noticed when a command loads it, without
walking its whole chain, and refused with CorruptStream; untouched streams work on; verify names
the damage. Tampering is plain SQL on a fresh database of the suite's kind (FLOWLEDGER_TEST_DB).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from flowledger import ControllableClock, Engine, migrations
from flowledger.engine.storage.streams import READ_ATTEMPTS, RECHECK_SECONDS, Repository
from flowledger.eventlog import ConcurrencyError, CorruptStream, EventStore, StoredCommit
from flowledger.eventlog.hashing import commit_hash
from flowledger.eventlog.integrity import stored_hash
from flowledger.eventlog.records import NewCommit
from flowledger.projections.tables import (
    ACT_HI_ACTINST,
    ACT_HI_COMMENT,
    ACT_HI_PROCINST,
    ACT_RU_JOB,
)
from tests.eventlog.test_store import make_sql_engine

MB = 1024**2

MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="w" targetNamespace="t">
  <bpmn:process id="claim" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="check" />
    <bpmn:userTask id="check" camunda:formKey="embedded:app:check.html" />
    <bpmn:sequenceFlow id="f2" sourceRef="check" targetRef="pay" />
    <bpmn:userTask id="pay" camunda:formKey="embedded:app:pay.html" />
    <bpmn:sequenceFlow id="f3" sourceRef="pay" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>
"""


@pytest.fixture
def sql(db_url: str) -> Iterator[sa.Engine]:
    """A connection pool of our own on the engine's database: the tamperer's."""
    db = sa.create_engine(db_url)
    try:
        yield db
    finally:
        db.dispose()


def two_claims(engine: Engine) -> tuple[str, str]:
    """Two instances, each past its first task (two commits each), waiting at `pay`."""
    engine.deploy({"claim.bpmn": MODEL})
    ids = []
    for n in range(2):
        instance = engine.start_process_instance("claim", {"n": n}).id
        (task,) = engine.tasks(process_instance_id=instance)
        engine.complete_task(task.id)
        ids.append(instance)
    return ids[0], ids[1]


def task_of(engine: Engine, instance: str) -> str:
    (task,) = engine.tasks(process_instance_id=instance)
    return task.id


def rows(conn: Connection, stream_id: str) -> list[sa.Row[tuple[int, int, int, str, str]]]:
    return list(
        conn.execute(
            sa.text(
                "SELECT first_position, first_version, last_version, hash, events FROM event_log "
                "WHERE stream_id = :s ORDER BY first_version"
            ),
            {"s": stream_id},
        )
    )


def witness(conn: Connection, stream_id: str) -> tuple[int, str] | None:
    row = conn.execute(
        sa.text("SELECT last_version, last_hash FROM stream_head WHERE stream_id = :s"),
        {"s": stream_id},
    ).first()
    return None if row is None else (int(row[0]), str(row[1]))


def log_position(sql: sa.Engine) -> int:
    with sql.connect() as conn:
        return int(conn.execute(sa.text("SELECT last_position FROM log_head")).scalar_one())


def test_each_commit_writes_its_streams_witness(engine: Engine, sql: sa.Engine) -> None:
    a, b = two_claims(engine)
    with sql.connect() as conn:
        for stream in (a, b):
            last = rows(conn, stream)[-1]
            assert witness(conn, stream) == (last.last_version, last.hash)
        streams = conn.execute(sa.text("SELECT COUNT(DISTINCT stream_id) FROM event_log"))
        witnesses = conn.execute(sa.text("SELECT COUNT(*) FROM stream_head"))
        assert streams.scalar_one() == witnesses.scalar_one() == 3  # and the deployment's


@pytest.mark.parametrize("restarted", [False, True], ids=["cached", "restarted"])
def test_a_stream_whose_last_commit_was_deleted_refuses_commands(
    engine: Engine, db_url: str, clock: ControllableClock, sql: sa.Engine, restarted: bool
) -> None:
    a, b = two_claims(engine)
    with sql.begin() as conn:
        last = rows(conn, a)[-1]
        conn.execute(
            sa.text("DELETE FROM event_log WHERE first_position = :p"), {"p": last.first_position}
        )
    head = log_position(sql)
    serving = Engine(db_url, clock=clock) if restarted else engine
    try:
        # The task of the deleted commit is still in ACT_RU_TASK: the tables do not know.
        with pytest.raises(CorruptStream) as refused:
            serving.complete_task(task_of(serving, a))
        assert refused.value.stream_id == a
        assert f"version {last.first_version - 1}" in str(refused.value)
        assert "flowledger verify" in str(refused.value)
        assert log_position(sql) == head  # nothing written
        serving.complete_task(task_of(serving, b))  # a stream nobody touched works on
        instance = serving.runtime_service.process_instance(b)
        assert instance is not None and instance.ended
    finally:
        if restarted:
            serving.close()
    problems = [str(p) for p in engine.verify().problems]
    assert any(p.startswith(f"witness: stream {a}") for p in problems), problems


def test_a_commit_added_at_the_end_with_a_valid_hash_is_noticed(
    engine: Engine, sql: sa.Engine
) -> None:
    """Chained and hashed right, but written by no command: the witness still names the one
    before."""
    a, _b = two_claims(engine)
    task = task_of(engine, a)  # before the forgery: a deferred engine's reads stop at it
    with sql.begin() as conn:
        last = rows(conn, a)[-1]
        position = int(conn.execute(sa.text("SELECT last_position FROM log_head")).scalar_one())
        recorded = datetime(2026, 3, 1, 9, 30)
        forged = dict(
            prev_hash=last.hash,
            stream_id=a,
            first_version=last.last_version + 1,
            last_version=last.last_version + 1,
            first_position=position + 1,
            last_position=position + 1,
            command_id="forged",
            command_type="CompleteTask",
            actor="mallory",
            causation_position=None,
            recorded_at=recorded,
            events=b'[{"type":"Forged"}]',
        )
        conn.execute(
            sa.text(
                "INSERT INTO event_log (first_position, last_position, stream_id, first_version, "
                "last_version, events, command_id, command_type, actor, recorded_at, prev_hash, "
                "hash) VALUES (:first_position, :last_position, :stream_id, :first_version, "
                ":last_version, :events, :command_id, :command_type, :actor, :recorded_at, "
                ":prev_hash, :hash)"
            ),
            {**forged, "events": '[{"type":"Forged"}]', "hash": commit_hash(**forged)},  # type: ignore[arg-type]
        )
        conn.execute(sa.text("UPDATE log_head SET last_position = :p"), {"p": position + 1})
    with pytest.raises(CorruptStream, match="witness says version"):
        engine.complete_task(task)


def test_a_byte_edit_is_noticed_when_the_stream_is_next_read_from_the_log(
    engine: Engine, db_url: str, clock: ControllableClock, sql: sa.Engine
) -> None:
    a, b = two_claims(engine)
    with sql.begin() as conn:
        first = rows(conn, a)[0]
        edited = first.events.replace('"call_depth":0', '"call_depth":1', 1)  # one byte
        assert edited != first.events
        conn.execute(
            sa.text("UPDATE event_log SET events = :e WHERE first_position = :p"),
            {"e": edited, "p": first.first_position},
        )
    with Engine(db_url, clock=clock) as restarted:
        with pytest.raises(CorruptStream) as refused:
            restarted.complete_task(task_of(restarted, a))
        assert (refused.value.stream_id, refused.value.position) == (a, first.first_position)
        assert "does not match its hash" in str(refused.value)
        # Reads that need the state say the same, not an internal error.
        with pytest.raises(CorruptStream):
            restarted.task_service.form_keys({task_of(restarted, a): a})
        assert restarted.task_service.form_keys({task_of(restarted, b): b}) == {
            task_of(restarted, b): "embedded:app:pay.html"
        }


def test_a_consistently_forged_commit_this_engine_cannot_read_is_a_damaged_stream(
    engine: Engine, db_url: str, clock: ControllableClock, sql: sa.Engine
) -> None:
    """Hash and witness rewritten to match: the events themselves do not decode (not a 500)."""
    if engine.projection == "deferred":
        pytest.skip(
            "a deferred engine's follower stops at a commit it cannot decode, before any command "
            "reads the stream; reads then refuse (ProjectionBehind, see "
            "tests/engine/test_deferred_projection.py)"
        )
    a, _b = two_claims(engine)
    store = EventStore(sql.dialect.name)
    with sql.begin() as conn:
        last = store.read_stream(conn, a)[-1]
        events = last.events.replace(b'"type":"', b'"type":"Forged', 1)
        forged = StoredCommit(**{**_fields(last), "events": events})
        digest = stored_hash(forged)
        conn.execute(
            sa.text("UPDATE event_log SET events = :e, hash = :h WHERE first_position = :p"),
            {"e": events.decode(), "h": digest, "p": last.first_position},
        )
        conn.execute(
            sa.text("UPDATE stream_head SET last_hash = :h WHERE stream_id = :s"),
            {"h": digest, "s": a},
        )
    with (
        Engine(db_url, clock=clock) as restarted,
        pytest.raises(CorruptStream, match="its events cannot be read"),
    ):
        restarted.complete_task(task_of(restarted, a))


def _fields(c: StoredCommit) -> dict[str, object]:
    return {name: getattr(c, name) for name in StoredCommit.__dataclass_fields__}


def test_an_append_refuses_a_stream_whose_witness_is_elsewhere(db_url: str) -> None:
    """The append itself: the stream's last commit deleted, a writer that found the stream at
    the commit before appends a commit the log's unique key lets through; the witness does not."""
    db = make_sql_engine(db_url)
    try:
        migrations.upgrade(db)
        store = EventStore(db.dialect.name)
        when = datetime(2026, 3, 1, 9, 0)
        with db.begin() as conn:
            (one,) = store.append(conn, [_new("s-1", 0, None)], when)
            (two,) = store.append(conn, [_new("s-1", 1, one.hash)], when)
        with db.begin() as conn:
            conn.execute(
                sa.text("DELETE FROM event_log WHERE first_position = :p"),
                {"p": two.first_position},
            )
        with pytest.raises(CorruptStream) as refused, db.begin() as conn:
            store.append(conn, [_new("s-1", 1, one.hash)], when, check_heads=False)
        assert "decided on it at version 1" in str(refused.value)
        assert "witness at version 2" in str(refused.value)
        with db.connect() as conn:
            assert store.witness(conn, "s-1") == (2, two.hash)
            assert [c.first_version for c in store.read_stream(conn, "s-1")] == [1]
    finally:
        db.dispose()


def _new(stream_id: str, version: int, prev_hash: str | None) -> NewCommit:
    return NewCommit(stream_id, version, prev_hash, b'[{"type":"X"}]', 1, f"c-{version}", "T")


def test_the_migration_fills_witnesses_from_the_log(
    engine: Engine, db_url: str, clock: ControllableClock, sql: sa.Engine
) -> None:
    a, _b = two_claims(engine)
    with sql.begin() as conn:
        expected = {
            stream: witness(conn, stream)
            for (stream,) in conn.execute(sa.text("SELECT DISTINCT stream_id FROM event_log"))
        }
        conn.execute(sa.text("DROP TABLE stream_head"))
        # and what later revisions made, which they make again
        for later in ACT_HI_PROCINST.indexes:
            if later.name in ("ACT_IDX_HI_PRO_INST_ROOT_PI", "ACT_IDX_HI_PI_PDEFID_END_TIME"):
                later.drop(conn)
        (stats,) = [i for i in ACT_HI_ACTINST.indexes if i.name == "ACT_IDX_HI_ACT_INST_STATS"]
        stats.drop(conn)
        ACT_HI_COMMENT.drop(conn)
        conn.execute(sa.text("DROP TABLE subject_key"))  # revision 0019
        (by_jobdef,) = [i for i in ACT_RU_JOB.indexes if i.name == "ACT_IDX_JOB_JOB_DEF_ID"]
        by_jobdef.drop(conn)  # revision 0020
        conn.execute(sa.text("DROP TABLE ACT_HI_BATCH"))
        conn.execute(sa.text("DROP TABLE ACT_RU_BATCH"))
        conn.execute(sa.text("DROP TABLE merkle_tile"))
        conn.execute(sa.text("ALTER TABLE log_head DROP COLUMN frontier"))
        conn.execute(sa.text("ALTER TABLE log_head DROP COLUMN tree_size"))
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '0013_decisions'"))
    engine.close()
    with Engine(db_url, clock=clock) as upgraded:  # migrates on open
        with sql.connect() as conn:
            assert {stream: witness(conn, stream) for stream in expected} == expected
        upgraded.complete_task(task_of(upgraded, a))
        assert upgraded.verify().problems == []


def test_a_cached_state_is_read_and_checked_again_once_its_check_is_old(
    engine: Engine, sql: sa.Engine
) -> None:
    """The cache does not hide an edited commit for long: a state checked RECHECK_SECONDS ago
    is read from the log again; a command's evolved state keeps the time of its read."""
    a, b = two_claims(engine)
    cache = engine._repository.cache
    with sql.begin() as conn:
        first = rows(conn, a)[0]
        edited = first.events.replace('"call_depth":0', '"call_depth":1', 1)
        conn.execute(
            sa.text("UPDATE event_log SET events = :e WHERE first_position = :p"),
            {"e": edited, "p": first.first_position},
        )
    held = cache.peek(a)
    assert held is not None
    held.checked_at -= RECHECK_SECONDS
    with pytest.raises(CorruptStream, match="does not match its hash"):
        engine.complete_task(task_of(engine, a))

    other = cache.peek(b)
    assert other is not None
    other.checked_at -= RECHECK_SECONDS / 2  # still fresh enough: served from the cache
    engine.complete_task(task_of(engine, b))
    evolved = cache.peek(b)
    assert evolved is not None and evolved is not other and evolved.state.ended
    assert evolved.checked_at == other.checked_at


class _Racing(EventStore):
    """A store whose witness moves while a stream is read, as another engine's commits on a
    server database (READ COMMITTED) would make it: in the first `moves` reads of the stream,
    the witness read before the commits is an older one."""

    def __init__(self, dialect: str, older: tuple[int, str], moves: int) -> None:
        super().__init__(dialect)
        self.older = older
        self.moves = moves
        self.reads = 0

    def witness(self, conn: Connection, stream_id: str) -> tuple[int, str] | None:
        self.reads += 1
        attempt, before_the_tail = (self.reads + 1) // 2, self.reads % 2 == 1
        if attempt <= self.moves and before_the_tail:
            return self.older
        return super().witness(conn, stream_id)


@pytest.mark.parametrize("moves", [1, 2, 3])
def test_a_commit_racing_the_read_of_a_stream_is_not_taken_for_damage(
    engine: Engine, sql: sa.Engine, moves: int
) -> None:
    a, _b = two_claims(engine)
    with sql.connect() as conn:
        *_, before, last = EventStore(sql.dialect.name).read_stream(conn, a)
    store = _Racing(sql.dialect.name, (before.last_version, before.hash), moves)
    repository = Repository(store, engine._repository._codec, allow_scripts=False, cache_bytes=MB)
    with sql.connect() as conn:
        loaded = repository.checkout(conn, a)
    assert loaded is not None
    assert (loaded.version, loaded.head_hash) == (last.last_version, last.hash)
    assert store.reads == 2 * (moves + 1)  # read again until the witness stood still


def test_a_stream_whose_witness_never_stands_still_is_a_lost_race(
    engine: Engine, sql: sa.Engine
) -> None:
    a, _b = two_claims(engine)
    with sql.connect() as conn:
        *_, before, _last = EventStore(sql.dialect.name).read_stream(conn, a)
    store = _Racing(sql.dialect.name, (before.last_version, before.hash), moves=READ_ATTEMPTS)
    repository = Repository(store, engine._repository._codec, allow_scripts=False, cache_bytes=MB)
    with sql.connect() as conn, pytest.raises(ConcurrencyError):
        repository.checkout(conn, a)


def test_a_model_edited_in_its_deployment_stream_is_not_run(
    engine: Engine, db_url: str, clock: ControllableClock, sql: sa.Engine
) -> None:
    """The models come from the deployment's stream: it is checked as an instance's is when a
    model is read from it, so an edited definition is refused, not run."""
    deployment = engine.deploy({"claim.bpmn": MODEL}).id
    with sql.begin() as conn:
        (created,) = rows(conn, deployment)
        edited = created.events.replace("embedded:app:pay.html", "embedded:app:paX.html", 1)
        assert edited != created.events
        conn.execute(
            sa.text("UPDATE event_log SET events = :e WHERE first_position = :p"),
            {"e": edited, "p": created.first_position},
        )
    with Engine(db_url, clock=clock) as restarted:
        with pytest.raises(CorruptStream) as refused:
            restarted.start_process_instance("claim")
        assert refused.value.stream_id == deployment
        assert "does not match its hash" in str(refused.value)
        assert restarted.history_service.historic_process_instances() == []


def test_an_append_recreating_a_stream_whose_commits_were_deleted_is_refused(db_url: str) -> None:
    db = make_sql_engine(db_url)
    try:
        migrations.upgrade(db)
        store = EventStore(db.dialect.name)
        when = datetime(2026, 3, 1, 9, 0)
        with db.begin() as conn:
            (one,) = store.append(conn, [_new("s-2", 0, None)], when)
        with db.begin() as conn:
            conn.execute(sa.text("DELETE FROM event_log WHERE stream_id = 's-2'"))
        with pytest.raises(CorruptStream, match="has a witness already"), db.begin() as conn:
            store.append(conn, [_new("s-2", 0, None)], when, check_heads=False)
        with db.connect() as conn:
            assert store.witness(conn, "s-2") == (1, one.hash)
            assert store.read_stream(conn, "s-2") == []
    finally:
        db.dispose()


def test_verify_tells_a_commit_made_while_it_read_from_a_removed_one(
    engine: Engine, sql: sa.Engine
) -> None:
    """On a server database other engines commit while verify reads: a witness ahead of the
    commits read is a problem only when the log does not hold the commit it names."""
    a, _b = two_claims(engine)
    engine.complete_task(task_of(engine, a))  # the log's last commit is a's
    store = EventStore(sql.dialect.name)
    with sql.connect() as conn:
        *read, last = store.read_stream(conn, a)  # as if `last` came after the read
        checker = store.log_checker(conn)
        for commit in store.read_all(conn):
            if commit != last:
                checker.check(commit)
        checker.finish(last.first_position - 1)
    assert [p for p in checker.problems if p.kind == "witness"] == []
    with sql.begin() as conn:
        conn.execute(
            sa.text("DELETE FROM event_log WHERE first_position = :p"), {"p": last.first_position}
        )
        conn.execute(
            sa.text("UPDATE log_head SET last_position = :p"), {"p": last.first_position - 1}
        )
    problems = [str(p) for p in engine.verify().problems]
    # The log head moved back with it: no gap shows; the witness does.
    assert not [p for p in problems if p.startswith("gap:")], problems
    assert (
        f"witness: stream {a}: its witness says its last commit is version {last.last_version} "
        f"(hash {last.hash[:12]}…), but the stream ends at version {read[-1].last_version}: "
        "commits after it were removed or inserted, or the witness was edited"
    ) in problems
