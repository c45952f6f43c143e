"""Messages over HTTP: `POST /message` correlates by name, business key, process instance and
correlation keys (typed values), answers 204 or, with `resultEnabled`, where the message went
(with `variablesInResultEnabled`, the variables there); no match or an ambiguous one is 400.
`POST /execution/{id}/messageSubscriptions/{name}/trigger` delivers to one execution.

Every test starts its own instances of tests/bpmn/rest_messages.bpmn (a catch event waiting for
`restPaymentReceived`, then a user task), each with a business key of its own.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.support import bpmn

from .server import LiveServer

NAME = "restPaymentReceived"


@pytest.fixture(scope="module", autouse=True)
def deployed(rest: LiveServer) -> None:
    rest.deploy(bpmn("rest_messages.bpmn"), bpmn("rest_message_start.bpmn"), name="rest-messages")


def started(rest: LiveServer, **variables: Any) -> tuple[str, str]:
    """A new waiting instance: (its id, its business key)."""
    key = f"order-{uuid.uuid4()}"
    body = {
        "businessKey": key,
        "variables": {n: {"value": v, "type": "String"} for n, v in variables.items()},
    }
    response = rest.client.post("/process-definition/key/restMessages/start", json=body)
    assert response.status_code == 200, response.text
    return response.json()["id"], key


def tasks(rest: LiveServer, instance_id: str) -> list[str]:
    found = rest.client.get("/task", params={"processInstanceId": instance_id}).json()
    return [t["taskDefinitionKey"] for t in found]


def test_a_message_by_business_key_moves_its_instance_on(rest: LiveServer) -> None:
    instance_id, key = started(rest)
    other_id, _ = started(rest)
    body = {
        "messageName": NAME,
        "businessKey": key,
        "processVariables": {"amount": {"value": 42, "type": "Integer"}},
    }
    response = rest.client.post("/message", json=body)
    assert response.status_code == 204, response.text
    assert tasks(rest, instance_id) == ["ship"]
    assert tasks(rest, other_id) == []
    amount = rest.client.get(f"/process-instance/{instance_id}/variables/amount").json()
    assert (amount["value"], amount["type"]) == (42, "Integer")


def test_results_and_variables_are_returned_when_asked_for(rest: LiveServer) -> None:
    instance_id, key = started(rest, customer="ada")
    body = {
        "messageName": NAME,
        "correlationKeys": {"customer": {"value": "ada", "type": "String"}},
        "businessKey": key,
        "resultEnabled": True,
        "variablesInResultEnabled": True,
    }
    response = rest.client.post("/message", json=body)
    assert response.status_code == 200, response.text
    (result,) = response.json()
    assert result["resultType"] == "Execution"
    assert result["processInstance"] is None
    assert result["execution"]["processInstanceId"] == instance_id
    assert result["execution"]["ended"] is False
    assert result["variables"]["customer"] == {"value": "ada", "type": "String", "valueInfo": {}}


def test_no_match_or_an_ambiguous_match_is_a_400_and_delivers_nothing(rest: LiveServer) -> None:
    first, key = started(rest, region="north")
    second, _ = started(rest, region="north")
    nobody = rest.client.post("/message", json={"messageName": NAME, "businessKey": "nobody"})
    assert nobody.status_code == 400
    assert nobody.json()["type"] == "InvalidRequestException"
    assert nobody.json()["message"] == (
        f"Cannot correlate message '{NAME}': No process definition or execution matches the "
        "parameters"
    )
    keys = {"region": {"value": "north", "type": "String"}}
    ambiguous = rest.client.post("/message", json={"messageName": NAME, "correlationKeys": keys})
    assert ambiguous.status_code == 400
    assert "2 executions match" in ambiguous.json()["message"]
    assert tasks(rest, first) == tasks(rest, second) == []
    both = rest.client.post(
        "/message",
        json={"messageName": NAME, "correlationKeys": keys, "all": True, "resultEnabled": True},
    )
    assert both.status_code == 200, both.text
    reached = sorted(r["execution"]["processInstanceId"] for r in both.json())
    assert reached == sorted([first, second])
    assert rest.client.post("/message", json={"businessKey": key}).status_code == 400


def test_a_message_to_one_execution_subscription(rest: LiveServer) -> None:
    instance_id, _ = started(rest)
    (subscription,) = rest.client.get(
        "/event-subscription", params={"processInstanceId": instance_id}
    ).json()
    assert (subscription["eventType"], subscription["eventName"]) == ("message", NAME)
    execution_id = subscription["executionId"]
    wrong = rest.client.post(f"/execution/{execution_id}/messageSubscriptions/other/trigger")
    assert wrong.status_code == 400
    assert "does not have a subscription" in wrong.json()["message"]
    body = {"variables": {"paid": {"value": True, "type": "Boolean"}}}
    path = f"/execution/{execution_id}/messageSubscriptions/{NAME}/trigger"
    assert rest.client.post(path, json=body).status_code == 204
    assert tasks(rest, instance_id) == ["ship"]
    again = rest.client.post(path, json=body)  # the execution waits no more
    assert again.status_code == 400 and "does not have a subscription" in again.json()["message"]
    unknown = f"/execution/{instance_id}-gone/messageSubscriptions/{NAME}/trigger"
    assert rest.client.post(unknown, json=body).status_code == 404


def test_a_message_start_event_answers_with_the_instance_it_started(rest: LiveServer) -> None:
    body = {
        "messageName": "restOrderPlaced",
        "businessKey": "order-77",
        "processVariables": {"total": {"value": 12.5, "type": "Double"}},
        "resultEnabled": True,
        "variablesInResultEnabled": True,
    }
    response = rest.client.post("/message", json=body)
    assert response.status_code == 200, response.text
    (result,) = response.json()
    assert (result["resultType"], result["execution"]) == ("ProcessDefinition", None)
    instance = result["processInstance"]
    assert (instance["businessKey"], instance["ended"], instance["suspended"]) == (
        "order-77",
        False,
        False,
    )
    assert instance["links"][0]["href"].endswith(f"/process-instance/{instance['id']}")
    assert result["variables"]["total"]["value"] == 12.5
    assert tasks(rest, instance["id"]) == ["confirm"]
    definition = rest.client.get(f"/process-definition/{instance['definitionId']}").json()
    assert definition["key"] == "restMessageStart"


def test_a_signal_over_rest_reaches_the_waiting_execution(rest: LiveServer) -> None:
    rest.deploy(bpmn("rest_signal_catch.bpmn"), name="rest-signals")
    started = rest.client.post("/process-definition/key/restSignalCatch/start", json={})
    instance_id = started.json()["id"]
    (subscription,) = rest.client.get(
        "/event-subscription", params={"processInstanceId": instance_id, "eventType": "signal"}
    ).json()
    assert subscription["eventName"] == "restAlert"
    body = {"name": "restAlert", "variables": {"level": {"value": 2, "type": "Integer"}}}
    assert rest.client.post("/signal", json=body).status_code == 204
    assert tasks(rest, instance_id) == ["respond"]
    level = rest.client.get(f"/process-instance/{instance_id}/variables/level").json()
    assert level["value"] == 2
    assert rest.client.post("/signal", json={}).status_code == 400
    unknown = rest.client.post("/signal", json={"name": "restAlert", "executionId": "nope"})
    assert unknown.status_code == 404
