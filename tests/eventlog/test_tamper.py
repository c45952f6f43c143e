"""Engine.verify() against a log and tables edited behind the engine's back with plain SQL.

Each case tampers with one thing on a fresh database of the suite's kind (FLOWLEDGER_TEST_DB).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import msgspec
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from flowledger import ControllableClock, Engine

MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
    id="tamper-defs" targetNamespace="http://flowledger.test/tamper">
  <bpmn:process id="expense" name="Expense" isExecutable="true" camunda:historyTimeToLive="30">
    <bpmn:startEvent id="submitted" />
    <bpmn:sequenceFlow id="f1" sourceRef="submitted" targetRef="review" />
    <bpmn:userTask id="review" name="Review" camunda:candidateUsers="alice,bob" />
    <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="pay" />
    <bpmn:userTask id="pay" name="Pay" camunda:candidateGroups="accounting" />
    <bpmn:sequenceFlow id="f3" sourceRef="pay" targetRef="paid" />
    <bpmn:endEvent id="paid" />
  </bpmn:process>
</bpmn:definitions>
"""

MARKER = "Zebra-Expense-0042"  # a string value that occurs once in the whole log

_raw_events = msgspec.json.Decoder(list[msgspec.Raw])


@dataclass(frozen=True)
class Commit:
    first_position: int
    last_position: int
    stream_id: str
    events: str


@dataclass(frozen=True)
class Scenario:
    """Two instances run through a few commands: `done` to its end, `open` halfway."""

    done: str
    open: str


@pytest.fixture
def scenario(engine: Engine, clock: ControllableClock) -> Scenario:
    engine.deploy(MODEL, "expenses")
    done = engine.start_process_instance("expense", {"title": MARKER, "amount": 120}).id
    clock.advance(seconds=30)
    open_ = engine.start_process_instance("expense", {"title": "Taxi", "amount": 35}).id
    clock.advance(minutes=2)
    review = engine.tasks(process_instance_id=done)[0].id
    engine.claim(review, "alice")
    clock.advance(minutes=1)
    engine.complete_task(review, {"approved": True})
    clock.advance(minutes=1)
    engine.complete_task(engine.tasks(process_instance_id=done)[0].id)
    clock.advance(seconds=10)
    engine.complete_task(engine.tasks(process_instance_id=open_)[0].id, {"approved": True})
    assert engine.history_service.historic_process_instance(done).state == "COMPLETED"
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=open_)] == ["pay"]
    assert engine.verify().problems == []
    return Scenario(done, open_)


@pytest.fixture
def sql(db_url: str) -> Iterator[sa.Engine]:
    """A connection pool of our own on the engine's database: the tamperer's."""
    db = sa.create_engine(db_url)
    try:
        yield db
    finally:
        db.dispose()


def commits(conn: Connection, stream_id: str | None = None) -> list[Commit]:
    query = "SELECT first_position, last_position, stream_id, events FROM event_log"
    params: dict[str, str] = {}
    if stream_id is not None:
        query += " WHERE stream_id = :s"
        params["s"] = stream_id
    rows = conn.execute(sa.text(query + " ORDER BY first_position"), params).all()
    return [Commit(int(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]


def set_events(conn: Connection, first_position: int, events: str) -> None:
    updated = conn.execute(
        sa.text("UPDATE event_log SET events = :e WHERE first_position = :p"),
        {"e": events, "p": first_position},
    ).rowcount
    assert updated == 1


def elements(events: str) -> list[bytes]:
    """The commit's events, each exactly as stored."""
    return [bytes(raw) for raw in _raw_events.decode(events)]


def joined(parts: list[bytes]) -> str:
    return (b"[" + b",".join(parts) + b"]").decode()


def reported(problems: list[str], stream_id: str | None, position: int) -> list[str]:
    """The problems that name `stream_id` (when given) and `position`."""
    at = re.compile(rf"\bposition {position}\b")
    return [p for p in problems if (stream_id is None or stream_id in p) and at.search(p)]


def longest_commit(conn: Connection, stream_id: str) -> Commit:
    return max(commits(conn, stream_id), key=lambda c: c.last_position - c.first_position)


# -- the log -------------------------------------------------------------------------------------


def test_untouched_log_verifies_clean(engine: Engine, scenario: Scenario) -> None:
    report = engine.verify()
    assert report.problems == []
    assert report.streams_checked == 2
    assert report.commits_checked == 7  # one deployment, four + two instance commands
    assert report.rows_compared > 0


def test_one_changed_byte_in_a_payload_is_reported(
    engine: Engine, scenario: Scenario, sql: sa.Engine
) -> None:
    with sql.begin() as conn:
        [target] = [c for c in commits(conn) if MARKER in c.events]
        assert target.stream_id == scenario.done
        set_events(conn, target.first_position, target.events.replace("Zebra", "Zebrb"))
    problems = engine.verify().problems
    assert reported(problems, scenario.done, target.first_position), problems
    assert any(
        p.startswith("hash:") for p in reported(problems, scenario.done, target.first_position)
    )


def test_one_event_removed_from_a_commit_is_reported(
    engine: Engine, scenario: Scenario, sql: sa.Engine
) -> None:
    with sql.begin() as conn:
        target = longest_commit(conn, scenario.open)
        parts = elements(target.events)
        assert len(parts) >= 3
        set_events(conn, target.first_position, joined(parts[:-2] + parts[-1:]))
    problems = engine.verify().problems
    found = reported(problems, scenario.open, target.first_position)
    assert any(p.startswith("event-count:") for p in found), problems
    assert any(p.startswith("hash:") for p in found), problems


def test_a_deleted_commit_is_reported_as_a_gap(
    engine: Engine, scenario: Scenario, sql: sa.Engine
) -> None:
    with sql.begin() as conn:
        everything = commits(conn)
        # the claim: neither the first nor the last commit of the log or of its stream
        [target] = [c for c in everything if c.stream_id == scenario.done][1:2]
        assert everything[0] != target != everything[-1]
        conn.execute(
            sa.text("DELETE FROM event_log WHERE first_position = :p"),
            {"p": target.first_position},
        )
    problems = engine.verify().problems
    gap = [p for p in problems if p.startswith("gap:")]
    assert any(f"positions {target.first_position}.." in p for p in gap), problems
    # the stream's chain is broken right after the removed commit
    following = next(
        c
        for c in everything
        if c.stream_id == scenario.done and c.first_position > target.first_position
    )
    assert reported(problems, scenario.done, following.first_position), problems


def test_two_events_swapped_inside_a_commit_are_reported(
    engine: Engine, scenario: Scenario, sql: sa.Engine
) -> None:
    with sql.begin() as conn:
        target = longest_commit(conn, scenario.done)
        parts = elements(target.events)
        parts[1], parts[2] = parts[2], parts[1]
        set_events(conn, target.first_position, joined(parts))
    problems = engine.verify().problems
    found = reported(problems, scenario.done, target.first_position)
    assert any(p.startswith("hash:") for p in found), problems


def test_payloads_swapped_between_two_commits_of_a_stream_are_reported(
    engine: Engine, scenario: Scenario, sql: sa.Engine
) -> None:
    with sql.begin() as conn:
        own = commits(conn, scenario.done)
        a, b = own[1], own[2]
        set_events(conn, a.first_position, b.events)
        set_events(conn, b.first_position, a.events)
    problems = engine.verify().problems
    for swapped in (a, b):
        found = reported(problems, scenario.done, swapped.first_position)
        assert any(p.startswith("hash:") for p in found), problems


@pytest.mark.parametrize(
    "edit", ["actor = 'mallory'", "via = 'rest'", "via = NULL"], ids=["actor", "via", "no-via"]
)
def test_edited_commit_metadata_is_reported(
    engine: Engine, scenario: Scenario, sql: sa.Engine, edit: str
) -> None:
    with sql.begin() as conn:
        target = commits(conn, scenario.open)[-1]
        conn.execute(
            sa.text(f"UPDATE event_log SET {edit} WHERE first_position = :p"),
            {"p": target.first_position},
        )
    problems = engine.verify().problems
    found = reported(problems, scenario.open, target.first_position)
    assert [p for p in found if p.startswith("hash:")] == found != [], problems


def test_a_log_head_moved_past_the_last_event_is_reported_as_a_gap(
    engine: Engine, scenario: Scenario, sql: sa.Engine
) -> None:
    with sql.begin() as conn:
        last = conn.execute(sa.text("SELECT last_position FROM log_head")).scalar_one()
        conn.execute(sa.text("UPDATE log_head SET last_position = last_position + 3"))
    problems = engine.verify().problems
    assert problems, "a log head past the last event went unnoticed"
    assert all(p.startswith("gap:") for p in problems), problems
    assert reported(problems, None, last + 1), problems
    assert str(last + 3) in problems[0]


# -- the projections -----------------------------------------------------------------------------


def test_an_edited_history_row_is_reported(
    engine: Engine, scenario: Scenario, sql: sa.Engine
) -> None:
    with sql.begin() as conn:
        row_id = conn.execute(
            sa.text(
                "SELECT ID_ FROM ACT_HI_ACTINST WHERE PROC_INST_ID_ = :p AND ACT_ID_ = 'review'"
            ),
            {"p": scenario.done},
        ).scalar_one()
        conn.execute(
            sa.text("UPDATE ACT_HI_ACTINST SET ACT_ID_ = 'x' WHERE ID_ = :id"), {"id": row_id}
        )
    problems = engine.verify().problems
    assert [p for p in problems if "ACT_HI_ACTINST" in p and row_id in p and "ACT_ID_" in p], (
        problems
    )
    assert all(p.startswith("ACT_HI_ACTINST") for p in problems), problems


def test_a_deleted_runtime_task_row_is_reported(
    engine: Engine, scenario: Scenario, sql: sa.Engine
) -> None:
    with sql.begin() as conn:
        task_id = conn.execute(
            sa.text("SELECT ID_ FROM ACT_RU_TASK WHERE PROC_INST_ID_ = :p"), {"p": scenario.open}
        ).scalar_one()
        conn.execute(sa.text("DELETE FROM ACT_RU_TASK WHERE ID_ = :id"), {"id": task_id})
    problems = engine.verify().problems
    assert problems == [
        f"ACT_RU_TASK row {task_id}: in the rebuild but missing from the live table"
    ]
