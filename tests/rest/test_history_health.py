"""Asynchronous history under a real `flowledger serve` process: a commit history cannot project
stops the follower loudly (log, health endpoint, verify) without stopping commands; a killed
follower is restarted; a CLI command on the same database never touches the follower's state."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.core import events as ev
from flowledger.engine.storage.codec import make_codec
from flowledger.eventlog import EventStore, NewCommit
from flowledger.eventlog.tables import projection_checkpoint
from flowledger.projections.follower import CHECKPOINT
from tests.support import fresh_database, selected_kind

from .served import WAIT, flowledger, serving, wait_until


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    with fresh_database(selected_kind(), tmp_path) as database:
        yield database


def append_unprojectable_commit(url: str) -> tuple[int, str]:
    """A commit whose events no projector can apply (a task completed in a stream that never
    started), appended past the engine as a defect or a bad upgrade could leave one."""
    db = sa.create_engine(url)
    store = EventStore(db.dialect.name)
    stream = "poisoned-stream"
    events = make_codec().encode(
        [ev.TaskCompleted(task_id="no-such-task", time=datetime(2031, 5, 4, tzinfo=UTC))]
    )
    try:
        with db.begin() as conn:
            (stored,) = store.append(
                conn,
                [NewCommit(stream, 0, None, events, 1, "poison-command", "CompleteTask")],
                datetime.now(UTC),
            )
    finally:
        db.dispose()
    return stored.first_position, stream


def checkpoint_row(url: str) -> dict[str, Any] | None:
    db = sa.create_engine(url)
    try:
        with db.connect() as conn:
            row = conn.execute(
                sa.select(projection_checkpoint).where(projection_checkpoint.c.name == CHECKPOINT)
            ).first()
    finally:
        db.dispose()
    return None if row is None else dict(row._mapping)


def test_a_commit_history_cannot_project_stops_the_follower_loudly(
    url: str, tmp_path: Path
) -> None:
    with serving(url, tmp_path) as served:
        before = served.start("before")
        wait_until(lambda: served.in_history(before), "history of the first instance")
        status, body = served.health()
        assert status == 200 and body["status"] == "UP"
        assert body["components"]["history"]["details"]["follower"] == "running"

        position, stream = append_unprojectable_commit(url)
        after = served.start("after")  # commands go on: the runtime does not depend on history

        wait_until(lambda: served.health()[0] == 503, "the health endpoint to report history down")
        status, body = served.health()
        history = body["components"]["history"]
        assert body["status"] == "DOWN" and history["status"] == "DOWN"
        assert history["details"]["follower"] == "failed"
        assert f"position {position}" in history["details"]["detail"]
        assert stream in history["details"]["detail"]
        assert history["details"]["position"] == position - 1  # everything before it is in
        assert history["details"]["lag"] > 0
        assert not served.in_history(after)
        row = checkpoint_row(url)
        assert row is not None and row["status"] == "failed"
        wait_until(lambda: "history projection stopped" in served.log_text(), "the log line")
        assert f"position {position}" in served.log_text()

        served.process.send_signal(signal.SIGTERM)
        assert served.process.wait(timeout=WAIT) == 0, served.log_text()
    assert "Traceback" not in served.log_text()

    # Another engine on the database starts (it tries once more, and says why it cannot).
    with Engine(url) as engine:
        assert engine.history_health().status == "DOWN"
        assert f"position {position}" in (engine.history_health().detail or "")
        report = engine.verify()
    assert any(f"position {position}" in p and stream in p for p in report.problems), (
        report.problems
    )


def test_a_killed_follower_is_restarted_and_history_goes_on(url: str, tmp_path: Path) -> None:
    with serving(url, tmp_path) as served:
        wait_until(lambda: served.follower_pid() is not None, "the follower process")
        first = served.follower_pid()
        assert first is not None
        os.kill(first, signal.SIGKILL)

        wait_until(lambda: served.follower_pid() not in (None, first), "a new follower process")
        instance = served.start("after-the-kill")
        wait_until(lambda: served.in_history(instance), "history after the restart")
        status, body = served.health()
        assert status == 200
        assert body["components"]["history"]["details"]["restarts"] == 1
        assert "history follower process exited with status -9; restart 1" in served.log_text()


def test_a_cli_command_leaves_the_servers_follower_alone(url: str, tmp_path: Path) -> None:
    with serving(url, tmp_path) as served:
        first = served.start("first")
        wait_until(lambda: served.in_history(first), "history of the first instance")
        wait_until(lambda: served.follower_pid() is not None, "the follower process")

        for command in (["tasks"], ["verify"]):
            cli = flowledger(
                "--db", url, *command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            _out, err = cli.communicate(timeout=WAIT)
            assert cli.returncode == 0, err.decode()
            row = checkpoint_row(url)
            assert row is not None and row["status"] == "following", command

        second = served.start("second")
        wait_until(lambda: served.in_history(second), "history after the CLI commands")
        assert served.health()[0] == 200


@pytest.mark.parametrize(
    ("field", "value"),
    [("businessKey", "k" * 300), ("businessKey", "nul\x00key"), ("variable name", "v" * 300)],
)
def test_a_start_history_could_not_hold_is_refused_and_history_goes_on(
    url: str, tmp_path: Path, field: str, value: str
) -> None:
    """The request that used to poison asynchronous history on PostgreSQL and MariaDB: an
    instance that ends in its start command with a value no column can hold."""
    with serving(url, tmp_path, deploy="pass_through_activities.bpmn") as served:
        key = served.client.get("/process-definition").json()[0]["key"]
        body: dict[str, Any] = {"variables": {}}
        if field == "businessKey":
            body["businessKey"] = value
        else:
            body["variables"][value] = {"value": 1}
        refused = served.client.post(f"/process-definition/key/{key}/start", json=body)
        assert refused.status_code == 400, refused.text
        assert refused.json()["type"] == "InvalidRequestException"
        assert ("255" in refused.json()["message"]) or ("NUL" in refused.json()["message"])

        fine = served.client.post(f"/process-definition/key/{key}/start", json={})
        assert fine.status_code == 200, fine.text
        wait_until(lambda: served.in_history(fine.json()["id"]), "history after the refusal")
        assert served.health()[0] == 200
