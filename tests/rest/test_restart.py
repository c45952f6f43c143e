"""POST /process-definition/{id}/restart: Camunda's synchronous restart of ended instances, by
ids or by a historic process instance query, 204; the new instance's history names the one it
was restarted from (restartedProcessInstanceId); bad requests are 400 InvalidRequestException
and change nothing."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.support import BPMN_DIR

from .server import LiveServer

MODEL = BPMN_DIR / "restart_two_tasks.bpmn"


def deployed(rest: LiveServer) -> str:
    """The model under a key of its own; its definition id."""
    key = f"restart_{uuid.uuid4().hex[:10]}"
    data = MODEL.read_bytes().replace(b'id="restartTwoTasks"', f'id="{key}"'.encode())
    response = rest.client.post(
        "/deployment/create",
        data={"deployment-name": "restart"},
        files=[("resource", ("restart.bpmn", data, "application/octet-stream"))],
    )
    assert response.status_code == 200, response.text
    [definition] = response.json()["deployedProcessDefinitions"].values()
    return str(definition["id"])


def ended_instance(rest: LiveServer, definition_id: str, business_key: str) -> str:
    started = rest.client.post(
        f"/process-definition/{definition_id}/start",
        json={"businessKey": business_key, "variables": {"amount": {"value": 7, "type": "Long"}}},
    )
    assert started.status_code == 200, started.text
    instance_id = str(started.json()["id"])
    deleted = rest.client.delete(f"/process-instance/{instance_id}")
    assert deleted.status_code == 204, deleted.text
    return instance_id


def history(rest: LiveServer, **params: str) -> list[dict[str, Any]]:
    response = rest.client.get("/history/process-instance", params=params)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()
    return found


def restart(rest: LiveServer, definition_id: str, body: dict[str, Any]) -> Any:
    return rest.client.post(f"/process-definition/{definition_id}/restart", json=body)


def restarted_from(rest: LiveServer, definition_id: str, old: str) -> dict[str, Any]:
    [new] = [
        h
        for h in history(rest, processDefinitionId=definition_id)
        if h["restartedProcessInstanceId"] == old
    ]
    return new


def test_restart_by_ids_starts_before_the_activity_with_the_last_variables(
    rest: LiveServer,
) -> None:
    definition = deployed(rest)
    old = ended_instance(rest, definition, "order-7")

    response = restart(
        rest,
        definition,
        {
            "processInstanceIds": [old],
            "instructions": [{"type": "startBeforeActivity", "activityId": "user2"}],
        },
    )

    assert response.status_code == 204, response.text
    new = restarted_from(rest, definition, old)
    assert new["businessKey"] == "order-7"
    assert new["startActivityId"] == "user2"
    assert new["state"] == "ACTIVE"
    [single] = [rest.client.get(f"/history/process-instance/{new['id']}").json()]
    assert single["restartedProcessInstanceId"] == old
    variables = rest.client.get(f"/process-instance/{new['id']}/variables").json()
    assert variables["amount"] == {"type": "Long", "value": 7, "valueInfo": {}}
    tasks = rest.client.get("/task", params={"processInstanceId": new["id"]}).json()
    assert [t["taskDefinitionKey"] for t in tasks] == ["user2"]
    # an instance started plainly names none
    assert history(rest, processInstanceId=old)[0]["restartedProcessInstanceId"] is None


def test_restart_by_historic_query_without_business_key(rest: LiveServer) -> None:
    definition = deployed(rest)
    old = ended_instance(rest, definition, "order-8")

    response = restart(
        rest,
        definition,
        {
            "historicProcessInstanceQuery": {
                "processDefinitionId": definition,
                "finished": True,
                "processInstanceBusinessKey": "order-8",
            },
            "instructions": [{"type": "startTransition", "transitionId": "f2"}],
            "withoutBusinessKey": True,
            "initialVariables": True,
        },
    )

    assert response.status_code == 204, response.text
    new = restarted_from(rest, definition, old)
    assert new["businessKey"] is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"processInstanceIds": ["OLD"]}, "Restart instructions cannot be empty"),
        ({"processInstanceIds": ["OLD"], "instructions": []}, "instructions cannot be empty"),
        (
            {"instructions": [{"type": "startBeforeActivity", "activityId": "user2"}]},
            "Process instance ids cannot be empty",
        ),
        (
            {"processInstanceIds": ["OLD"], "instructions": [{"type": "startBeforeActivity"}]},
            "'activityId' must be set",
        ),
        (
            {"processInstanceIds": ["OLD"], "instructions": [{"type": "cancel"}]},
            "Instruction type 'cancel' is not one of startBeforeActivity",
        ),
        (
            {
                "processInstanceIds": ["nope"],
                "instructions": [{"type": "startBeforeActivity", "activityId": "user2"}],
            },
            "Historic process instance 'nope' cannot be found",
        ),
        (
            {
                "processInstanceIds": ["RUNNING"],
                "instructions": [{"type": "startBeforeActivity", "activityId": "user2"}],
            },
            "It is not completed or terminated",
        ),
        (
            {
                "historicProcessInstanceQuery": {"finished": "yes"},
                "instructions": [{"type": "startBeforeActivity", "activityId": "user2"}],
            },
            "",
        ),
    ],
    ids=[
        "no instructions",
        "empty instructions",
        "no ids",
        "no activity",
        "cancel",
        "unknown",
        "running",
        "bad query",
    ],
)
def test_bad_requests_are_400_and_restart_nothing(
    rest: LiveServer, body: dict[str, Any], message: str
) -> None:
    definition = deployed(rest)
    old = ended_instance(rest, definition, "kept")
    running = rest.client.post(f"/process-definition/{definition}/start", json={}).json()["id"]
    ids = {"OLD": old, "RUNNING": running}
    if "processInstanceIds" in body:
        body = {**body, "processInstanceIds": [ids.get(i, i) for i in body["processInstanceIds"]]}
    count = len(history(rest, processDefinitionId=definition))

    response = restart(rest, definition, body)

    assert response.status_code == 400, response.text
    assert response.json()["type"] == "InvalidRequestException"
    assert message in response.json()["message"]
    assert len(history(rest, processDefinitionId=definition)) == count


def test_an_unknown_definition_is_404(rest: LiveServer) -> None:
    response = restart(
        rest,
        "nope:1:x",
        {
            "processInstanceIds": ["x"],
            "instructions": [{"type": "startBeforeActivity", "activityId": "user2"}],
        },
    )

    assert response.status_code == 404, response.text
    assert "nope:1:x" in response.json()["message"]
