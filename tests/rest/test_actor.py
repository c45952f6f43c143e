"""Who sent a command through the API is in the log: with authentication, every command records
the authenticated user as its actor, whatever the endpoint (one authentication path: the engine
the handlers get acts as the caller); without it, a worker's commands record the worker."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from flowledger import Engine
from flowledger.rest.auth import Users, hash_password
from tests.support import bpmn, fresh_database, selected_kind

from .server import LiveServer, live_server

WORKER_MODEL = "rest_ext_worker.bpmn"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    users = Users({"kermit": hash_password("frog")})
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("actor")) as url,
        Engine(url) as engine,
        live_server(engine, users=users) as server,
    ):
        server.client.auth = ("kermit", "frog")
        yield server


def _commands(engine: Engine, stream_id: str) -> list[tuple[str, str | None]]:
    """(command type, actor) of every command that appended to a stream, in order."""
    commands = {e.command_id: (e.command_type, e.actor) for e in engine.events(stream_id)}
    return list(commands.values())


def _work_through_the_api(server: LiveServer) -> tuple[str, str]:
    """Deploy, start, write a variable, fetch and complete the external task, as a client does;
    (deployment id, process instance id)."""
    client = server.client
    deployment_id = str(server.deploy(bpmn(WORKER_MODEL), name="actor")["id"])
    started = client.post(
        "/process-definition/key/restExtWorker/start",
        json={"variables": {"topic": {"value": "actor-topic"}}},
    )
    assert started.status_code == 200, started.text
    instance_id = str(started.json()["id"])
    written = client.put(
        f"/process-instance/{instance_id}/variables/note", json={"value": "checked"}
    )
    assert written.status_code == 204, written.text
    fetch: dict[str, Any] = {
        "workerId": "worker-1",
        "maxTasks": 1,
        "topics": [{"topicName": "actor-topic", "lockDuration": 60_000}],
    }
    [task] = client.post("/external-task/fetchAndLock", json=fetch).json()
    completed = client.post(f"/external-task/{task['id']}/complete", json={"workerId": "worker-1"})
    assert completed.status_code == 204, completed.text
    return deployment_id, instance_id


def test_every_command_records_the_authenticated_user(guarded: LiveServer) -> None:
    deployment_id, instance_id = _work_through_the_api(guarded)
    assert _commands(guarded.engine, deployment_id) == [("Deploy", "kermit")]
    assert _commands(guarded.engine, instance_id) == [
        ("StartProcessInstance", "kermit"),
        ("SetVariables", "kermit"),
        ("FetchAndLock", "kermit"),
        ("CompleteExternalTask", "kermit"),
    ]


def test_without_authentication_a_worker_is_the_actor_of_its_commands(rest: LiveServer) -> None:
    deployment_id, instance_id = _work_through_the_api(rest)
    assert _commands(rest.engine, deployment_id) == [("Deploy", None)]
    assert _commands(rest.engine, instance_id) == [
        ("StartProcessInstance", None),
        ("SetVariables", None),
        ("FetchAndLock", "worker-1"),
        ("CompleteExternalTask", "worker-1"),
    ]
