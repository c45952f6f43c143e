"""How the asynchronous history follower meets errors: a passing one is retried and moves
nothing; a commit it cannot project stops it at that commit, recorded for every process."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import OperationalError

from flowledger import ControllableClock, Engine, ProcessEngineError
from flowledger.core import events as ev
from flowledger.engine.storage.codec import make_codec
from flowledger.engine.workers.history_worker import HistoryProcess
from flowledger.eventlog import EventStore, NewCommit
from flowledger.projections.follower import HistoryFollower
from tests.support import bpmn, fresh_database, selected_kind

START = datetime(2031, 5, 4, 8, 0, tzinfo=UTC)
VARIABLES = {"initiator": "a", "extraUser": "b", "due": START, "priority": 1, "orderId": "X"}


@pytest.fixture
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A database for async engines whose follower moves only when the test flushes."""
    monkeypatch.setattr(HistoryProcess, "start", lambda self: None)
    with fresh_database(selected_kind(), tmp_path) as database:
        yield database


def poison(url: str) -> int:
    """Append a commit no projector can apply; its position."""
    db = sa.create_engine(url)
    events = make_codec().encode([ev.TaskCompleted(task_id="nothing", time=START)])
    try:
        with db.begin() as conn:
            (stored,) = EventStore(db.dialect.name).append(
                conn, [NewCommit("poisoned", 0, None, events, 1, "poison", "CompleteTask")], START
            )
    finally:
        db.dispose()
    return stored.first_position


def started(engine: Engine, key: str) -> str:
    return engine.start_process_instance("userTaskAssignment", {**VARIABLES, "orderId": key}).id


def test_a_passing_error_is_raised_and_moves_nothing(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Engine(url, clock=ControllableClock(START), history_mode="async") as engine:
        engine.deploy(bpmn("user_task_assignment.bpmn"))
        pi = started(engine, "A")
        real = HistoryFollower.prepare
        calls = {"n": 0}

        def flaky(self: HistoryFollower, conn: sa.Connection, max_events: int = 20_000) -> object:
            calls["n"] += 1
            if calls["n"] == 1:
                raise OperationalError("SELECT", {}, Exception("server closed the connection"))
            return real(self, conn, max_events)

        monkeypatch.setattr(HistoryFollower, "prepare", flaky)
        with pytest.raises(ProcessEngineError, match="server closed the connection"):
            engine.flush_history()
        assert engine.history_health().follower != "failed"
        assert engine.history_service.history_lag() > 0
        engine.flush_history()  # the same batch, once the database is back
        assert engine.history_service.history_lag() == 0
        assert engine.history_service.historic_process_instance(pi).state == "ACTIVE"


def test_a_commit_that_cannot_be_projected_stops_history_right_before_it(url: str) -> None:
    clock = ControllableClock(START)
    with Engine(url, clock=clock, history_mode="async") as engine:
        engine.deploy(bpmn("user_task_assignment.bpmn"))
        before = started(engine, "before")
        position = poison(url)
        after = started(engine, "after")  # commands go on

        with pytest.raises(ProcessEngineError, match=f"position {position} .*stream poisoned"):
            engine.flush_history()
        # Everything before the commit is in history; nothing after it.
        assert engine.history_service.historic_process_instance(before).state == "ACTIVE"
        assert engine.history_service.historic_process_instances(process_instance_id=after) == []
        health = engine.history_health()
        assert (health.status, health.follower) == ("DOWN", "failed")
        assert health.position == position - 1
        assert f"position {position}" in (health.detail or "")
        engine.flush_history()  # stopped: nothing more is tried until the engine starts again
        task = engine.tasks(process_instance_id=after)[0]
        engine.complete_task(task.id)  # and commands still go on

    # The next engine tries once more: the commit still fails, and it still says so.
    with Engine(url, clock=clock, history_mode="async") as again:
        with pytest.raises(ProcessEngineError, match=f"position {position}"):
            again.flush_history()
        problems = again.verify().problems
        assert any(f"position {position}" in p and "poisoned" in p for p in problems), problems


def test_an_inline_engine_starts_on_a_database_whose_history_stopped(url: str) -> None:
    with Engine(url, history_mode="async") as engine:
        engine.deploy(bpmn("user_task_assignment.bpmn"))
        position = poison(url)
        with pytest.raises(ProcessEngineError):
            engine.flush_history()
    with Engine(url) as inline:  # it used to refuse to start
        # It cannot bring history up to date, so it leaves it where it stopped and says so.
        assert inline.history_mode == "async"
        health = inline.history_health()
        assert health.status == "DOWN"
        assert f"position {position}" in (health.detail or "")
        pi = started(inline, "runs")
        assert inline.tasks(process_instance_id=pi)


def test_verify_compares_history_as_far_as_the_follower_got(url: str) -> None:
    """Another process may commit between verify's catch-up and its read: history it has not
    projected yet is not a difference, history it projected is compared."""
    with Engine(url, clock=ControllableClock(START), history_mode="async") as engine:
        engine.deploy(bpmn("user_task_assignment.bpmn"))
        started(engine, "projected")
        engine.flush_history()
        started(engine, "not yet")  # as if committed by another process after the catch-up
        assert engine.history_service.history_lag() > 0
        with engine.reading() as conn:
            report = engine._parts.audit.verify_on(conn, None, None)
        assert report.problems == []

        with engine.reading() as conn:  # what the follower did write is still checked
            conn.execute(sa.text("UPDATE ACT_HI_PROCINST SET BUSINESS_KEY_ = 'forged'"))
            conn.commit()
            report = engine._parts.audit.verify_on(conn, None, None)
        assert any("ACT_HI_PROCINST" in p for p in report.problems), report.problems
