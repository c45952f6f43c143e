"""Suspension over HTTP: an instance suspended refuses its task's completion until activated;
a definition suspended with its instances starts nothing and shows them suspended."""

from __future__ import annotations

from tests.support import bpmn

from .server import LiveServer


def test_suspending_an_instance_and_a_definition(rest: LiveServer) -> None:
    deployed = rest.deploy(bpmn("rest_messages.bpmn"), name="rest-suspension")
    (definition_id,) = deployed["deployedProcessDefinitions"]
    started = rest.client.post("/process-definition/key/restMessages/start", json={}).json()
    instance = started["id"]
    path = f"/process-instance/{instance}/suspended"
    assert rest.client.put(path, json={"suspended": True}).status_code == 204
    assert rest.client.get(f"/process-instance/{instance}").json()["suspended"] is True
    assert rest.client.put(path, json={}).status_code == 400
    assert rest.client.put(path, json={"suspended": False}).status_code == 204
    assert rest.client.get(f"/process-instance/{instance}").json()["suspended"] is False

    body = {"suspended": True, "includeProcessInstances": True}
    by_id = f"/process-definition/{definition_id}/suspended"
    assert rest.client.put(by_id, json=body).status_code == 204
    assert rest.client.get(f"/process-definition/{definition_id}").json()["suspended"] is True
    assert rest.client.get(f"/process-instance/{instance}").json()["suspended"] is True
    refused = rest.client.post("/process-definition/key/restMessages/start", json={})
    assert refused.status_code == 400
    by_key = "/process-definition/key/restMessages/suspended"
    body = {"suspended": False, "includeProcessInstances": True}
    assert rest.client.put(by_key, json=body).status_code == 204
    assert rest.client.get(f"/process-instance/{instance}").json()["suspended"] is False
    unknown = rest.client.put("/process-instance/nope/suspended", json={"suspended": True})
    assert unknown.status_code == 404


def test_suspending_instances_by_ids(rest: LiveServer) -> None:
    rest.deploy(bpmn("rest_messages.bpmn"), name="rest-suspension-ids")
    ids = [
        rest.client.post("/process-definition/key/restMessages/start", json={}).json()["id"]
        for _ in range(2)
    ]
    body = {"suspended": True, "processInstanceIds": ids}
    assert rest.client.put("/process-instance/suspended", json=body).status_code == 204
    assert all(rest.client.get(f"/process-instance/{i}").json()["suspended"] for i in ids)
    query = {"suspended": False, "processInstanceQuery": {"processDefinitionKey": "x"}}
    assert rest.client.put("/process-instance/suspended", json=query).status_code == 400
    body = {"suspended": False, "processDefinitionKey": "restMessages"}
    assert rest.client.put("/process-instance/suspended", json=body).status_code == 204
    assert not any(rest.client.get(f"/process-instance/{i}").json()["suspended"] for i in ids)
