"""`POST /task/{id}/bpmnEscalation` and `/task/{id}/bpmnError`: the user task raises an
escalation or throws a BPMN error where it waits, as Camunda's TaskService.handleEscalation and
handleBpmnError; an unknown task is a 404 and a missing code a 400 (both RestException, as
Camunda's TaskResourceImpl), an escalation nothing catches the engine's 500."""

from __future__ import annotations

import pytest

from tests.support import BPMN_DIR

from .server import LiveServer


@pytest.fixture(scope="module")
def deployed(rest: LiveServer) -> None:
    rest.deploy(BPMN_DIR / "task_escalation_and_error.bpmn")


def start(rest: LiveServer) -> tuple[str, str]:
    response = rest.client.post("/process-definition/key/taskEscalation/start", json={})
    assert response.status_code == 200, response.text
    instance_id: str = response.json()["id"]
    [task] = rest.client.get("/task", params={"processInstanceId": instance_id}).json()
    return instance_id, task["id"]


def open_keys(rest: LiveServer, instance_id: str) -> list[str]:
    tasks = rest.client.get("/task", params={"processInstanceId": instance_id}).json()
    return sorted(t["taskDefinitionKey"] for t in tasks)


def test_an_escalation_starts_the_reminder_beside_the_review(
    rest: LiveServer, deployed: None
) -> None:
    instance_id, task_id = start(rest)
    body = {"escalationCode": "LATE", "variables": {"reason": {"value": "on holiday"}}}
    response = rest.client.post(f"/task/{task_id}/bpmnEscalation", json=body)
    assert response.status_code == 204, response.text
    assert open_keys(rest, instance_id) == ["remind", "review"]
    variables = rest.client.get(f"/process-instance/{instance_id}/variables").json()
    assert variables["escalated"]["value"] == "LATE"
    assert variables["reason"]["value"] == "on holiday"
    history = rest.client.get(
        "/history/activity-instance", params={"processInstanceId": instance_id}
    ).json()
    assert {"late": "boundaryEscalation"}.items() <= {
        a["activityId"]: a["activityType"] for a in history
    }.items()


def test_an_escalation_nothing_catches_is_the_engines_error(
    rest: LiveServer, deployed: None
) -> None:
    instance_id, task_id = start(rest)
    body = {"escalationCode": "UNKNOWN", "variables": {"x": {"value": 1}}}
    response = rest.client.post(f"/task/{task_id}/bpmnEscalation", json=body)
    assert response.status_code == 500
    answer = response.json()
    assert answer["type"] == "ProcessEngineException"
    assert "no escalation handler was defined" in answer["message"]
    # Nothing changed: the variables were not set, the review still waits.
    assert open_keys(rest, instance_id) == ["review"]
    variables = rest.client.get(f"/process-instance/{instance_id}/variables").json()
    assert "x" not in variables


def test_a_bpmn_error_ends_the_review_and_starts_the_rework(
    rest: LiveServer, deployed: None
) -> None:
    instance_id, task_id = start(rest)
    body = {
        "errorCode": "REJECTED",
        "errorMessage": "figures do not add up",
        "variables": {"reviewer": {"value": "anna"}},
    }
    response = rest.client.post(f"/task/{task_id}/bpmnError", json=body)
    assert response.status_code == 204, response.text
    assert open_keys(rest, instance_id) == ["rework"]
    assert rest.client.get(f"/task/{task_id}").status_code == 404
    variables = rest.client.get(f"/process-instance/{instance_id}/variables").json()
    assert variables["errorCode"]["value"] == "REJECTED"
    assert variables["errorMessage"]["value"] == "figures do not add up"
    assert variables["reviewer"]["value"] == "anna"


@pytest.mark.parametrize("path", ["bpmnEscalation", "bpmnError"])
def test_an_unknown_task_is_a_404(rest: LiveServer, path: str) -> None:
    code = "escalationCode" if path == "bpmnEscalation" else "errorCode"
    response = rest.client.post(f"/task/no-such-task/{path}", json={code: "LATE"})
    assert response.status_code == 404
    assert response.json()["type"] == "RestException"
    assert "no-such-task" in response.json()["message"]


@pytest.mark.parametrize("path", ["bpmnEscalation", "bpmnError"])
def test_a_missing_code_is_a_400(rest: LiveServer, deployed: None, path: str) -> None:
    instance_id, task_id = start(rest)
    response = rest.client.post(f"/task/{task_id}/{path}", json={})
    assert response.status_code == 400
    assert response.json()["type"] == "RestException"
    assert "Code is null or empty" in response.json()["message"]
    assert open_keys(rest, instance_id) == ["review"]
