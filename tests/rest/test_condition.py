"""Conditional start events over HTTP: `POST /condition` evaluates them with the request's
variables and starts an instance at each whose condition holds, answering the started
instances (Camunda's ProcessInstanceDto list); nothing to evaluate is Camunda's error, and
`tenantId` with `withoutTenantId` a 400.

Uses tests/bpmn/rest_conditional_start.bpmn (starts when `temperature` > 100).
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.support import bpmn

from .server import LiveServer

KEY = "restConditionalStart"


@pytest.fixture(scope="module", autouse=True)
def deployed(rest: LiveServer) -> None:
    rest.deploy(bpmn("rest_conditional_start.bpmn"), name="rest-conditional")


def definition_id(rest: LiveServer) -> str:
    response = rest.client.get(f"/process-definition/key/{KEY}")
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


def evaluate(rest: LiveServer, temperature: int, **body: Any) -> Any:
    body = {
        "variables": {"temperature": {"value": temperature, "type": "Integer"}},
        "processDefinitionId": definition_id(rest),
        **body,
    }
    return rest.client.post("/condition", json=body)


def test_a_true_condition_starts_an_instance_with_the_variables(rest: LiveServer) -> None:
    key = f"boiler-{uuid.uuid4()}"
    response = evaluate(rest, 120, businessKey=key)
    assert response.status_code == 200, response.text
    (instance,) = response.json()
    assert instance["definitionId"] == definition_id(rest)
    assert instance["businessKey"] == key
    assert instance["ended"] is False
    assert instance["links"] == []
    tasks = rest.client.get("/task", params={"processInstanceId": instance["id"]}).json()
    assert [t["taskDefinitionKey"] for t in tasks] == ["coolDown"]
    variable = rest.client.get(f"/process-instance/{instance['id']}/variables/temperature")
    assert (variable.json()["value"], variable.json()["type"]) == (120, "Integer")


def test_a_false_condition_starts_nothing(rest: LiveServer) -> None:
    response = evaluate(rest, 20)
    assert response.status_code == 200, response.text
    assert response.json() == []


def test_without_a_definition_the_latest_conditional_start_events_are_evaluated(
    rest: LiveServer,
) -> None:
    body = {
        "variables": {"temperature": {"value": 150, "type": "Integer"}},
        "withoutTenantId": True,
    }
    response = rest.client.post("/condition", json=body)
    assert response.status_code == 200, response.text
    assert definition_id(rest) in [i["definitionId"] for i in response.json()]


def test_tenant_id_with_without_tenant_id_is_a_bad_request(rest: LiveServer) -> None:
    response = evaluate(rest, 120, tenantId="t1", withoutTenantId=True)
    assert response.status_code == 400, response.text
    assert response.json()["type"] == "InvalidRequestException"
    assert "withoutTenantId" in response.json()["message"]


def test_a_definition_without_conditional_start_events_is_refused(rest: LiveServer) -> None:
    rest.deploy(bpmn("rest_pi_wait.bpmn"), name="rest-conditional-none")
    plain = rest.client.get("/process-definition", params={"latestVersion": "true"}).json()
    other = next(d["id"] for d in plain if d["key"] != KEY)
    body = {"processDefinitionId": other}
    response = rest.client.post("/condition", json=body)
    assert response.status_code == 500, response.text
    assert "does not declare conditional start event" in response.json()["message"]


def test_the_start_event_waits_as_a_nameless_conditional_subscription(rest: LiveServer) -> None:
    found = rest.client.get("/event-subscription", params={"eventType": "conditional"}).json()
    (start,) = [s for s in found if s["activityId"] == "overheated"]
    assert (start["eventName"], start["executionId"], start["processInstanceId"]) == (
        None,
        None,
        None,
    )
