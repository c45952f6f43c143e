"""`GET /history/user-operation` (and `/count`): Camunda's user operation log over REST. With
authentication at history level full, what a user does through the API is listed with who did
it, Camunda's operation and entity types, and the property changes; filters, sorting, paging
and counts as in Camunda."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from flowledger import Engine
from flowledger.rest.auth import Users, hash_password
from tests.support import bpmn, fresh_database, selected_kind

from .server import LiveServer, live_server
from .test_openapi_contract import USER_OPERATION

MODEL = "rest_task_steps.bpmn"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    users = Users({"kermit": hash_password("frog"), "gonzo": hash_password("chicken")})
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("op-log")) as url,
        Engine(url, history_level="full") as engine,
        live_server(engine, users=users) as server,
    ):
        server.client.auth = ("kermit", "frog")
        yield server


def _work(server: LiveServer) -> tuple[str, str]:
    """Start an instance, claim and complete its first task as kermit; (instance id, task id)."""
    client = server.client
    server.deploy(bpmn(MODEL), name="op-log")
    started = client.post("/process-definition/key/restTaskSteps/start", json={})
    assert started.status_code == 200, started.text
    instance_id = str(started.json()["id"])
    [task] = client.get("/task", params={"processInstanceId": instance_id}).json()
    claimed = client.post(f"/task/{task['id']}/claim", json={"userId": "kermit"})
    assert claimed.status_code == 204, claimed.text
    completed = client.post(f"/task/{task['id']}/complete", json={})
    assert completed.status_code in (200, 204), completed.text
    return instance_id, str(task["id"])


def _list(server: LiveServer, **params: Any) -> list[dict[str, Any]]:
    answer = server.client.get("/history/user-operation", params=params)
    assert answer.status_code == 200, answer.text
    return list(answer.json())


def test_the_users_operations_are_listed(guarded: LiveServer) -> None:
    instance_id, task_id = _work(guarded)
    listed = _list(guarded, processInstanceId=instance_id, sortBy="timestamp", sortOrder="asc")
    assert [(e["operationType"], e["entityType"], e["property"]) for e in listed] == [
        ("Create", "ProcessInstance", None),
        ("Claim", "Task", "assignee"),
        ("Complete", "Task", "delete"),
    ]
    assert all(set(e) == USER_OPERATION for e in listed)
    assert {e["userId"] for e in listed} == {"kermit"}
    claim = listed[1]
    assert (claim["orgValue"], claim["newValue"], claim["taskId"]) == (None, "kermit", task_id)
    assert claim["category"] == "TaskWorker"
    assert claim["timestamp"].endswith("+0000")  # Camunda's date format

    count = guarded.client.get(
        "/history/user-operation/count", params={"processInstanceId": instance_id}
    )
    assert count.json() == {"count": 3}
    # Filters and paging as Camunda's query has them.
    tasks = _list(guarded, processInstanceId=instance_id, entityType="Task")
    assert {e["operationType"] for e in tasks} == {"Claim", "Complete"}
    assert _list(guarded, taskId=task_id, operationType="Complete")[0]["newValue"] == "true"
    assert len(_list(guarded, processInstanceId=instance_id, firstResult=1, maxResults=1)) == 1
    assert _list(guarded, userId="gonzo") == []
    in_types = _list(guarded, processInstanceId=instance_id, entityTypeIn="Task,ProcessInstance")
    assert len(in_types) == 3
    newest_first = _list(
        guarded, processInstanceId=instance_id, sortBy="timestamp", sortOrder="desc"
    )
    moments = [e["timestamp"] for e in newest_first]
    assert moments == sorted(moments, reverse=True)
    assert moments[0] > moments[-1]  # the start came before the completion
    assert {e["id"] for e in newest_first} == {e["id"] for e in listed}
    # The bounds leave the moment itself out, as Camunda's do.
    created = listed[0]["timestamp"]
    later = _list(guarded, processInstanceId=instance_id, afterTimestamp=created)
    assert later and all(e["timestamp"] > created for e in later)
    completed = listed[-1]["timestamp"]
    earlier = _list(guarded, processInstanceId=instance_id, beforeTimestamp=completed)
    assert earlier and all(e["timestamp"] < completed for e in earlier)


def test_another_user_is_recorded_as_themself(guarded: LiveServer) -> None:
    guarded.client.auth = ("gonzo", "chicken")
    try:
        instance_id, _task = _work(guarded)
    finally:
        guarded.client.auth = ("kermit", "frog")
    assert {e["userId"] for e in _list(guarded, processInstanceId=instance_id)} == {"gonzo"}
    assert len(_list(guarded, userId="gonzo", processInstanceId=instance_id)) == 3


def test_bad_parameters_are_refused(guarded: LiveServer) -> None:
    answer = guarded.client.get("/history/user-operation", params={"sortBy": "userId"})
    assert answer.status_code == 400
    assert "sortBy" in answer.json()["message"] or "userId" in answer.json()["message"]
    answer = guarded.client.get("/history/user-operation", params={"afterTimestamp": "yesterday"})
    assert answer.status_code == 400


@pytest.mark.parametrize(
    ("path", "parameter"),
    [
        ("/history/user-operation", "afterTimestamp"),
        ("/history/process-instance", "startedBefore"),
        ("/history/process-instance", "finishedAfter"),
        ("/history/incident", "createTimeBefore"),
        ("/history/task", "taskDueDateBefore"),
    ],
)
def test_a_date_with_no_utc_moment_is_the_clients_mistake(
    guarded: LiveServer, path: str, parameter: str
) -> None:
    """Year 1 east of Greenwich has no UTC moment: a 400 naming the parameter, not a 500."""
    answer = guarded.client.get(path, params={parameter: "0001-01-01T00:00:00.000+0100"})
    assert answer.status_code == 400, answer.text
    assert parameter in answer.json()["message"]
