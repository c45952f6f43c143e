"""Engine.verify() against forgeries that the per-stream hash chain alone cannot see, the log
anchor an auditor keeps, the command log cross-check, progress, and commands refused on a
stream that does not verify. Tampering is plain SQL on a database of the suite's kind.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import OperationalError

from flowledger import ControllableClock, Engine
from flowledger.core.errors import InvalidValue
from flowledger.engine.audit.verification import _spill_temporary_tables
from flowledger.eventlog import CorruptStream, EventStore
from flowledger.eventlog.integrity import stored_hash

MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
    id="verify-defs" targetNamespace="http://flowledger.test/verify">
  <bpmn:process id="refund" name="Refund" isExecutable="true" camunda:historyTimeToLive="30">
    <bpmn:startEvent id="asked" />
    <bpmn:sequenceFlow id="f1" sourceRef="asked" targetRef="check" />
    <bpmn:userTask id="check" name="Check" />
    <bpmn:sequenceFlow id="f2" sourceRef="check" targetRef="pay" />
    <bpmn:userTask id="pay" name="Pay" />
    <bpmn:sequenceFlow id="f3" sourceRef="pay" targetRef="done" />
    <bpmn:endEvent id="done" />
  </bpmn:process>
</bpmn:definitions>
"""


@pytest.fixture
def sql(db_url: str) -> Iterator[sa.Engine]:
    db = sa.create_engine(db_url)
    try:
        yield db
    finally:
        db.dispose()


def first_task(engine: Engine, instance_id: str) -> str:
    return engine.tasks(process_instance_id=instance_id)[0].id


@pytest.fixture
def two(engine: Engine, clock: ControllableClock) -> tuple[str, str]:
    """Two instances; the last commit of the log is `b`'s, the one before it `a`'s."""
    engine.deploy(MODEL, "refunds")
    a = engine.start_process_instance("refund", {"amount": 10, "note": "Zebra-10"}).id
    b = engine.start_process_instance("refund", {"amount": 20}).id
    clock.advance(minutes=1)
    engine.complete_task(first_task(engine, a), {"checked": True})
    engine.complete_task(first_task(engine, b), {"checked": True})
    assert engine.verify().problems == []
    return a, b


def last_commit(conn: sa.Connection, stream_id: str) -> tuple[int, int, str]:
    row = conn.execute(
        sa.text(
            "SELECT first_position, last_position, command_id FROM event_log "
            "WHERE stream_id = :s ORDER BY first_position DESC"
        ),
        {"s": stream_id},
    ).first()
    assert row is not None
    return int(row[0]), int(row[1]), str(row[2])


def test_a_removed_last_commit_of_a_stream_names_that_stream_not_its_neighbour(
    db_url: str, clock: ControllableClock, two: tuple[str, str], sql: sa.Engine
) -> None:
    a, b = two
    with sql.begin() as conn:
        first, last, command_id = last_commit(conn, a)
        conn.execute(sa.text("DELETE FROM event_log WHERE first_position = :p"), {"p": first})
    # A new process, as `flowledger verify` is: nothing cached to compare with.
    with Engine(db_url, clock=clock) as fresh:
        problems = fresh.verify().problems
    assert any(
        p.startswith(f"missing-commit: stream {a} at position {first}:") for p in problems
    ), problems
    assert any(command_id in p and f"{first}..{last}" in p for p in problems), problems
    assert not [p for p in problems if b in p], problems


def forge(conn: sa.Connection, stream_id: str, old: str, new: str) -> None:
    """Rewrite the stream's first commit holding `old` and recompute every later hash of the
    stream: the per-stream chain is consistent again."""
    store = EventStore(conn.dialect.name)
    previous: str | None = None
    forged = False
    for commit in store.read_stream(conn, stream_id):
        events = commit.events
        if not forged and old.encode() in events:
            events, forged = events.replace(old.encode(), new.encode()), True
        if forged:
            changed = dataclasses.replace(commit, events=events, prev_hash=previous)
            digest = stored_hash(changed)
            conn.execute(
                sa.text(
                    "UPDATE event_log SET events = :e, prev_hash = :p, hash = :h "
                    "WHERE first_position = :f"
                ),
                {"e": events.decode(), "p": previous, "h": digest, "f": commit.first_position},
            )
            previous = digest
        else:
            previous = commit.hash
    assert forged


def test_a_consistent_forgery_is_caught_by_the_anchor_an_auditor_kept(
    engine: Engine, two: tuple[str, str], sql: sa.Engine
) -> None:
    a, _b = two
    kept = engine.verify().anchor
    with sql.begin() as conn:
        forge(conn, a, "Zebra-10", "Zebra-99")
        # the chain is consistent again; a forger who rewrites the tables as well leaves
        # nothing for verify to see but a log that no longer digests to the kept anchor
    problems = engine.verify().problems
    assert not [p for p in problems if p.startswith(("hash:", "chain:"))], problems
    problems = engine.verify(expect_anchor=kept).problems
    anchored = [p for p in problems if p.startswith("anchor:")]
    assert anchored and kept.split(":")[0] in anchored[0], problems


def test_an_untouched_log_matches_its_anchor_and_a_malformed_anchor_is_refused(
    engine: Engine, two: tuple[str, str]
) -> None:
    kept = engine.verify().anchor
    assert engine.verify(expect_anchor=kept).problems == []
    with pytest.raises(InvalidValue, match="POSITION:DIGEST"):
        engine.verify(expect_anchor="12:not-a-digest")


def test_the_anchor_moves_with_every_commit(
    engine: Engine, two: tuple[str, str], clock: ControllableClock
) -> None:
    a, _b = two
    before = engine.verify().anchor
    engine.complete_task(first_task(engine, a))
    after = engine.verify()
    assert after.anchor != before and after.problems == []
    # the old anchor still holds for the log's beginning
    assert engine.verify(expect_anchor=before).problems == []


def test_command_log_disagreeing_with_the_log_is_reported(
    engine: Engine, two: tuple[str, str], sql: sa.Engine
) -> None:
    a, b = two
    with sql.begin() as conn:
        _first, _last, edited = last_commit(conn, a)
        _first, _last, dropped = last_commit(conn, b)
        conn.execute(
            sa.text("UPDATE command_log SET actor = 'mallory' WHERE command_id = :c"),
            {"c": edited},
        )
        conn.execute(sa.text("DELETE FROM command_log WHERE command_id = :c"), {"c": dropped})
    problems = engine.verify().problems
    assert [p for p in problems if p.startswith(f"command-log: command {edited}:")], problems
    assert any(
        p.startswith(f"command-log: command {dropped}:") and "no such command" in p
        for p in problems
    ), problems
    assert all(p.startswith("command-log:") for p in problems), problems


def test_progress_reports_commits_done_of_the_total(engine: Engine, two: tuple[str, str]) -> None:
    calls: list[tuple[int, int]] = []
    report = engine.verify(progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (report.commits_checked, report.commits_checked)
    assert all(done <= total for done, total in calls)


def test_a_command_on_a_stream_that_does_not_verify_is_refused_and_writes_nothing(
    db_url: str, clock: ControllableClock, two: tuple[str, str], sql: sa.Engine
) -> None:
    a, _b = two
    with sql.begin() as conn:
        first, _last, _command = last_commit(conn, a)
        conn.execute(
            sa.text("UPDATE event_log SET actor = 'mallory' WHERE first_position = :p"),
            {"p": first},
        )
        head = conn.execute(sa.text("SELECT last_position FROM log_head")).scalar_one()
    with Engine(db_url, clock=clock) as fresh:
        task = first_task(fresh, a)
        with pytest.raises(CorruptStream) as refused:
            fresh.complete_task(task)
        message = str(refused.value)
        assert a in message and f"position {first}" in message and "hash" in message
    with sql.begin() as conn:
        assert conn.execute(sa.text("SELECT last_position FROM log_head")).scalar_one() == head


def test_verify_says_when_sqlite_keeps_its_shadows_in_memory(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The shadows of every table go to a temporary file; when SQLite refuses the switch the
    operator is warned that verify's memory now grows with the database."""

    class Refusing:
        engine = sa.create_engine("sqlite://")

        def exec_driver_sql(self, statement: str) -> None:
            raise OperationalError(statement, {}, Exception("temporary storage is in use"))

    with caplog.at_level(logging.WARNING, logger="flowledger"):
        _spill_temporary_tables(Refusing())  # type: ignore[arg-type]
    assert "kept its temporary tables in memory" in caplog.text
    assert any(r.levelno == logging.WARNING for r in caplog.records)
