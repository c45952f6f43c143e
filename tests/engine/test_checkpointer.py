"""SQLite's WAL checkpoints run in a background thread, not in the commands' commits; when that
thread cannot run, commits checkpoint again and the operator is told."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from flowledger import Engine
from flowledger.engine.workers import checkpointer as checkpointer_module
from flowledger.engine.workers.checkpointer import Checkpointer

BPMN = Path(__file__).resolve().parents[1] / "bpmn" / "rest_pi_wait.bpmn"


def autocheckpoint(engine: Engine) -> int:
    """SQLite's automatic checkpoint threshold on the connection commands write with."""
    with engine._db.write() as conn:
        return int(conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one())


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.02)


def run_instances(engine: Engine, count: int) -> None:
    for i in range(count):
        variables = {"i": i}
        instance = engine.start_process_instance("restPiWait", variables)
        for task in engine.tasks(process_instance_id=instance.id):
            engine.complete_task(task.id)


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    engine = Engine(f"sqlite:///{tmp_path / 'wal.db'}")
    engine.deploy(BPMN)
    yield engine  # type: ignore[misc]
    engine.close()


def test_commits_leave_checkpoints_to_the_background_thread(engine: Engine) -> None:
    checkpointer = engine._checkpointer
    assert checkpointer is not None and checkpointer.running

    assert autocheckpoint(engine) == 0
    run_instances(engine, 20)
    wait_until(lambda: checkpointer.checkpoints > 0, "the thread checkpointed")
    assert checkpointer.failures == 0


def test_when_the_thread_stops_commits_checkpoint_again_and_it_is_logged(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    checkpointer = engine._checkpointer
    assert checkpointer is not None

    def broken(self: Checkpointer, connection: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Checkpointer, "_checkpoint", broken)
    with caplog.at_level(logging.ERROR, logger="flowledger.checkpoint"):
        run_instances(engine, 1)
        wait_until(lambda: not checkpointer.running, "the thread stopped")

    assert "the WAL checkpoint thread stopped" in caplog.text
    run_instances(engine, 1)  # commands go on
    assert autocheckpoint(engine) == 1000


def test_an_engine_whose_thread_cannot_start_keeps_sqlites_own_checkpoints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def cannot_open(*args: object, **kwargs: object) -> object:
        raise checkpointer_module.sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(checkpointer_module.sqlite3, "connect", cannot_open)
    with caplog.at_level(logging.WARNING, logger="flowledger.checkpoint"):
        engine = Engine(f"sqlite:///{tmp_path / 'plain.db'}")
    monkeypatch.undo()
    try:
        assert engine._checkpointer is None
        assert "WAL checkpoints stay with each commit" in caplog.text
        engine.deploy(BPMN)
        run_instances(engine, 1)
        assert autocheckpoint(engine) == 1000
    finally:
        engine.close()


def test_no_thread_for_databases_without_a_wal_file() -> None:
    with Engine("sqlite://") as engine:
        assert engine._checkpointer is None


def test_no_thread_when_every_commit_syncs(tmp_path: Path) -> None:
    with Engine(f"sqlite:///{tmp_path / 'full.db'}", sqlite_synchronous="FULL") as engine:
        assert engine._checkpointer is None
        engine.deploy(BPMN)
        run_instances(engine, 1)
        assert autocheckpoint(engine) == 1000
