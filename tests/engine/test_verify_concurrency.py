"""A full verify holds the engine's lock only to fix the point of the log it checks: commands
complete while it reads, and its report describes the log as it was when it began (its anchor
at the head of then, the states then served), a damaged log included. Each verify here is held
at its first progress call until the test has run its commands beside it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.core import views
from flowledger.engine.audit import verification
from flowledger.engine.audit.verify_tasks import DONE, RUNNING
from flowledger.eventlog import LogAnchor
from tests.core.test_verify import MODEL

# Seconds a test waits for what must happen before calling it a hang (a command stuck behind
# the verify): never reached when the engine behaves.
HANG = 60


class Paused:
    """A progress callback that holds the verify at its first call until `resume`."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self._resume = threading.Event()

    def __call__(self, done: int, total: int) -> None:
        self.reached.set()
        self._resume.wait(HANG)

    def resume(self) -> None:
        self._resume.set()


class Beside:
    """`run` in a thread of its own: its result, or what it raised, once `finished`."""

    def __init__(self, run: Callable[[], Any]) -> None:
        self.result: Any = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._call, args=(run,), daemon=True)
        self._thread.start()

    def _call(self, run: Callable[[], Any]) -> None:
        try:
            self.result = run()
        except BaseException as exc:
            self.error = exc

    def finished(self) -> bool:
        self._thread.join(HANG)
        if self.error is not None:
            raise self.error
        return not self._thread.is_alive()


@pytest.fixture(autouse=True)
def progress_every_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verification, "PROGRESS_EVERY", 1)


@pytest.fixture(params=["inline", "async"])
def engine(request: pytest.FixtureRequest, db_url: str) -> Iterator[Engine]:
    clock = ControllableClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    with Engine(db_url, clock=clock, history_mode=request.param) as engine:
        yield engine


@pytest.fixture
def two(engine: Engine) -> tuple[str, str]:
    """Two instances at their first task, their states in the engine's cache; before them, two
    that ended, one with its history deleted (their history is purged, and stamped with its
    removal time: purges the verify makes in its tables too)."""
    engine.deploy(MODEL, "refunds")
    for deleted in (False, True):
        ended = engine.start_process_instance("refund", {"amount": 1}).id
        for _ in range(2):
            engine.complete_task(first_task(engine, ended))
        if deleted:
            engine.history_service.delete_historic_process_instance(ended)
    a = engine.start_process_instance("refund", {"amount": 10}).id
    b = engine.start_process_instance("refund", {"amount": 20}).id
    return a, b


def first_task(engine: Engine, instance_id: str) -> str:
    return engine.tasks(process_instance_id=instance_id)[0].id


def commands_beside(engine: Engine, a: str) -> str:
    """Complete `a`'s first task (a command evolving a state the verify holds) and start an
    instance; the new instance's id."""
    engine.complete_task(first_task(engine, a), {"checked": True})
    return engine.start_process_instance("refund", {"amount": 30}).id


def paused_before_its_first_read(monkeypatch: pytest.MonkeyPatch) -> Paused:
    """A verify paused once its lock is released, before the check reads anything."""
    paused = Paused()
    run = verification.Verifier.run

    def held_back(self: verification.Verifier, *args: Any, **options: Any) -> Any:
        paused(0, 0)
        return run(self, *args, **options)

    monkeypatch.setattr(verification.Verifier, "run", held_back)
    return paused


@pytest.mark.parametrize("where", ["before its first read", "while it reads"])
def test_commands_complete_while_verify_runs_and_it_reports_the_log_at_its_start(
    engine: Engine, two: tuple[str, str], where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _b = two
    head = engine.audit_service.head()
    if where == "before its first read":
        paused = paused_before_its_first_read(monkeypatch)
        verify = Beside(engine.verify)
    else:
        paused = Paused()
        verify = Beside(lambda: engine.verify(progress=paused))
    try:
        assert paused.reached.wait(HANG)
        commands = Beside(lambda: commands_beside(engine, a))
        assert commands.finished(), "a command waited for the verify"
    finally:
        paused.resume()
    assert verify.finished()
    report: views.VerificationReport = verify.result
    assert report.problems == []
    assert report.anchor == head.anchor
    assert report.commits_checked == head.commits
    assert first_task(engine, commands.result)  # the new instance runs

    after = engine.verify()
    assert after.problems == []
    assert LogAnchor.parse(after.anchor).position > head.position
    assert engine.verify(expect_anchor=report.anchor).problems == []


def test_the_cockpits_background_verify_lets_commands_run(
    engine: Engine, two: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """POST /flowledger/v1/log/verify-tasks runs `Engine.start_verify`."""
    a, _b = two
    head = engine.audit_service.head()
    tasks = engine._parts.audit.verify_tasks
    paused = Paused()
    counted = tasks._update

    def update(task_id: str, **changes: object) -> None:
        counted(task_id, **changes)
        if "checked" in changes and "report" not in changes:
            paused(0, 0)

    monkeypatch.setattr(tasks, "_update", update)
    task = engine.audit_service.start_verify()
    try:
        assert paused.reached.wait(HANG)
        assert Beside(lambda: commands_beside(engine, a)).finished(), "a command waited"
    finally:
        paused.resume()
    for _ in range(HANG * 100):
        done = engine.audit_service.verify_task(task.id)
        if done.state != RUNNING:
            break
        time.sleep(0.01)
    assert done.state == DONE
    assert done.report is not None
    assert done.report.problems == []
    assert done.report.anchor == head.anchor


def test_a_damaged_log_is_reported_by_a_verify_commands_ran_beside(
    engine: Engine, two: tuple[str, str], db_url: str
) -> None:
    a, b = two
    sql = sa.create_engine(db_url)
    try:
        with sql.begin() as conn:
            damaged = conn.execute(
                sa.text("SELECT max(first_position) FROM event_log WHERE stream_id = :s"),
                {"s": b},
            ).scalar_one()
            conn.execute(
                sa.text("UPDATE event_log SET actor = 'mallory' WHERE first_position = :p"),
                {"p": damaged},
            )
    finally:
        sql.dispose()
    paused = Paused()
    verify = Beside(lambda: engine.verify(progress=paused))
    try:
        assert paused.reached.wait(HANG)
        assert Beside(lambda: commands_beside(engine, a)).finished(), "a command waited"
    finally:
        paused.resume()
    assert verify.finished()
    problems = verify.result.problems
    assert any(b in p and f"position {damaged}" in p for p in problems), problems
    assert not [p for p in problems if a in p], problems


def test_in_memory_sqlite_verifies_under_the_lock() -> None:
    """One connection for everyone: its verify keeps the lock, and checks as before."""
    with Engine("sqlite://") as engine:
        engine.deploy(MODEL, "refunds")
        a = engine.start_process_instance("refund", {"amount": 10}).id
        engine.complete_task(first_task(engine, a))
        report = engine.verify()
    assert report.problems == []
    assert report.commits_checked == 3
