"""Comments on tasks over REST, as a tasklist writes and reads them: the comment answered with its
link and its author, the list newest first, one comment by id, Camunda's errors for an unknown
task, a missing or blank message and an unknown comment; the comment is an event of the
instance (its timeline shows it) and a row of ACT_HI_COMMENT."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from flowledger.core.comments import MAX_COMMENT
from flowledger.projections.tables import ACT_HI_COMMENT
from flowledger.rest.auth import Users, hash_password
from tests.support import BPMN_DIR

from .server import LiveServer, live_server

MODEL = BPMN_DIR / "rest_task_steps.bpmn"
COMMENT_KEYS = {
    "links",
    "id",
    "userId",
    "time",
    "taskId",
    "message",
    "removalTime",
    "rootProcessInstanceId",
}


@pytest.fixture(scope="module")
def authenticated(rest: LiveServer) -> Iterator[httpx.Client]:
    """The same engine served again, with a user: comments record who wrote them."""
    users = Users({"kermit": hash_password("frog")})
    with live_server(rest.engine, users=users) as server:
        server.client.auth = ("kermit", "frog")
        yield server.client


@pytest.fixture(scope="module")
def key(rest: LiveServer) -> str:
    deployment = rest.deploy(MODEL, name="comments")
    (definition,) = deployment["deployedProcessDefinitions"].values()
    return str(definition["key"])


def _task(rest: LiveServer, key: str) -> tuple[str, str]:
    started = rest.client.post(f"/process-definition/key/{key}/start", json={}).json()
    (task,) = rest.client.get("/task", params={"processInstanceId": started["id"]}).json()
    return str(started["id"]), str(task["id"])


def test_a_comment_is_answered_with_its_link_and_author(
    rest: LiveServer, key: str, authenticated: httpx.Client
) -> None:
    instance_id, task_id = _task(rest, key)
    response = authenticated.post(
        f"/task/{task_id}/comment/create", json={"message": "Waiting for\nthe invoice"}
    )
    assert response.status_code == 200, response.text
    comment: dict[str, Any] = response.json()
    assert set(comment) == COMMENT_KEYS
    assert comment["userId"] == "kermit"
    assert comment["taskId"] == task_id
    assert comment["message"] == "Waiting for\nthe invoice"
    assert comment["rootProcessInstanceId"] == instance_id
    (link,) = comment["links"]
    assert (link["method"], link["rel"]) == ("GET", "self")
    assert link["href"].endswith(f"/engine-rest/task/{task_id}/comment/{comment['id']}")
    one = rest.client.get(f"/task/{task_id}/comment/{comment['id']}").json()
    assert one == {**comment, "links": []}
    timeline = rest.engine.audit_service.timeline(instance_id)
    assert any(entry.what == "comment by kermit: Waiting for the invoice" for entry in timeline)


def test_comments_are_listed_newest_first_and_kept_whole_in_history(
    rest: LiveServer, key: str
) -> None:
    _instance_id, task_id = _task(rest, key)
    long_text = "word " * 100
    for message in ("first", long_text):
        assert (
            rest.client.post(
                f"/task/{task_id}/comment/create", json={"message": message}
            ).status_code
            == 200
        )
    listed = rest.client.get(f"/task/{task_id}/comment").json()
    assert [c["message"] for c in listed] == [long_text, "first"]
    assert listed[0]["userId"] is None  # no user signed in
    with rest.engine.reading() as conn:
        row = (
            conn.execute(select(ACT_HI_COMMENT).where(ACT_HI_COMMENT.c.ID_ == listed[0]["id"]))
            .mappings()
            .one()
        )
    assert row["TYPE_"] == "comment" and row["ACTION_"] == "AddComment"
    assert row["MESSAGE_"] == long_text[:160] + "..."  # Camunda's event message
    assert bytes(row["FULL_MSG_"]).decode() == long_text


@pytest.mark.parametrize("body", [{}, {"message": None}, {"message": "  \n "}])
def test_a_comment_without_a_message_is_refused(
    rest: LiveServer, key: str, body: dict[str, Any]
) -> None:
    _instance_id, task_id = _task(rest, key)
    response = rest.client.post(f"/task/{task_id}/comment/create", json=body)
    assert response.status_code == 400
    assert "'message'" in response.json()["message"]
    assert rest.client.get(f"/task/{task_id}/comment").json() == []


def test_a_comment_over_the_limit_is_refused_naming_it(rest: LiveServer, key: str) -> None:
    _instance_id, task_id = _task(rest, key)
    response = rest.client.post(
        f"/task/{task_id}/comment/create", json={"message": "x" * (MAX_COMMENT + 1)}
    )
    assert response.status_code == 400
    assert f"at most {MAX_COMMENT}" in response.json()["message"]


def test_unknown_tasks_and_comments_are_answered_as_camunda_does(
    rest: LiveServer, key: str
) -> None:
    listed = rest.client.get("/task/nope/comment")
    assert listed.status_code == 404
    assert listed.json() == {
        "type": "InvalidRequestException",
        "message": "No task found for task id nope",
    }
    created = rest.client.post("/task/nope/comment/create", json={"message": "hi"})
    assert created.status_code == 400
    assert created.json()["message"] == "No task found for task id nope"
    _instance_id, task_id = _task(rest, key)
    one = rest.client.get(f"/task/{task_id}/comment/nope")
    assert one.status_code == 404
    assert one.json()["message"] == (
        f"Task comment with id nope does not exist for task id '{task_id}'."
    )


def test_a_completed_tasks_comments_stay_readable(rest: LiveServer, key: str) -> None:
    _instance_id, task_id = _task(rest, key)
    rest.client.post(f"/task/{task_id}/comment/create", json={"message": "done soon"})
    assert rest.client.post(f"/task/{task_id}/complete", json={}).status_code == 204
    listed = rest.client.get(f"/task/{task_id}/comment").json()
    assert [c["message"] for c in listed] == ["done soon"]
    late = rest.client.post(f"/task/{task_id}/comment/create", json={"message": "late"})
    assert late.status_code == 400
    assert "completed" in late.json()["message"]
