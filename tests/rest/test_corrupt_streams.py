"""A stream changed behind the engine's back answers 409 in Camunda's error shape, naming the
stream and `flowledger verify`, for commands and for reads that need its state alike (never a
500); untouched instances are served as before. Tampering is plain SQL on the server's database.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from flowledger import Engine
from tests.eventlog.test_stream_witness import MODEL, rows
from tests.support import fresh_database, selected_kind

from .server import LiveServer, live_server


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    with fresh_database(selected_kind(), tmp_path) as url:
        yield url


@contextmanager
def serving(db_url: str) -> Iterator[LiveServer]:
    with Engine(db_url) as engine, live_server(engine) as server:
        yield server


@contextmanager
def tampering(db_url: str) -> Iterator[sa.Connection]:
    """A transaction on a connection pool of our own: the tamperer's."""
    db = sa.create_engine(db_url)
    try:
        with db.begin() as conn:
            yield conn
    finally:
        db.dispose()


def start(server: LiveServer, n: int) -> tuple[str, str]:
    """A claim instance through the API: (its id, its open task's id)."""
    started = server.client.post(
        "/process-definition/key/claim/start",
        json={"variables": {"n": {"value": n, "type": "Integer"}}},
    )
    assert started.status_code == 200, started.text
    instance = str(started.json()["id"])
    return instance, task_of(server, instance)


def task_of(server: LiveServer, instance: str) -> str:
    listed = server.client.get("/task", params={"processInstanceId": instance})
    assert listed.status_code == 200, listed.text
    (task,) = listed.json()
    return str(task["id"])


def refused_as_damaged(response: httpx.Response, stream_id: str) -> dict[str, Any]:
    assert response.status_code == 409, response.text
    body: dict[str, Any] = response.json()
    assert body["type"] == "CorruptStreamException"
    assert stream_id in body["message"] and "flowledger verify" in body["message"]
    assert "Traceback" not in body["message"]
    return body


def test_completing_a_task_of_a_stream_whose_last_commit_was_deleted_is_a_409(
    db_url: str,
) -> None:
    with serving(db_url) as server:
        server.engine.deploy({"claim.bpmn": MODEL})
        damaged, task = start(server, 0)
        untouched, other = start(server, 1)
        with tampering(db_url) as conn:
            last = rows(conn, damaged)[-1]
            conn.execute(
                sa.text("DELETE FROM event_log WHERE first_position = :p"),
                {"p": last.first_position},
            )
        completed = server.client.post(f"/task/{task}/complete", json={})
        refused_as_damaged(completed, damaged)
        assert server.client.post(f"/task/{other}/complete", json={}).status_code == 204
        (pay,) = server.client.get("/task", params={"processInstanceId": untouched}).json()
        assert pay["taskDefinitionKey"] == "pay"
    with Engine(db_url) as engine:
        problems = [str(p) for p in engine.verify().problems]
    assert any(damaged in p for p in problems), problems


def test_a_byte_edit_answers_409_for_the_task_list_and_for_commands(db_url: str) -> None:
    with serving(db_url) as server:
        server.engine.deploy({"claim.bpmn": MODEL})
        damaged, task = start(server, 0)
        untouched, other = start(server, 1)
    with tampering(db_url) as conn:
        first = rows(conn, damaged)[0]
        edited = first.events.replace('"call_depth":0', '"call_depth":1', 1)
        assert edited != first.events
        conn.execute(
            sa.text("UPDATE event_log SET events = :e WHERE first_position = :p"),
            {"e": edited, "p": first.first_position},
        )
    # Restarted: the state of the damaged instance is read from the log again.
    with serving(db_url) as server:
        listed = server.client.get("/task", params={"processInstanceId": damaged})
        body = refused_as_damaged(listed, damaged)
        assert f"position {first.first_position}" in body["message"]
        completed = server.client.post(f"/task/{task}/complete", json={})
        refused_as_damaged(completed, damaged)
        (task_dto,) = server.client.get("/task", params={"processInstanceId": untouched}).json()
        assert task_dto["formKey"] == "embedded:app:check.html"
        assert server.client.post(f"/task/{other}/complete", json={}).status_code == 204
