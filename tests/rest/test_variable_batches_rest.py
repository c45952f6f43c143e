"""engine-rest: `POST /process-instance/variables-async` and `/process-instance/message-async`
answer Camunda's BatchDto; the batch's variables are listed by `GET /variable-instance` with
`batchIdIn` until the batch ends; and the `…-historic-query-based` forms of instance deletion
and job retries take a historicProcessInstanceQuery. The server runs no job executor: the test
runs the jobs."""

from __future__ import annotations

import uuid

from tests.support import BPMN_DIR

from .server import LiveServer
from .test_batch_rest import started

MESSAGES = BPMN_DIR / "rest_messages.bpmn"


def instance_variable(rest: LiveServer, instance_id: str, name: str) -> dict[str, object] | None:
    response = rest.client.get(f"/process-instance/{instance_id}/variables/{name}")
    if response.status_code == 404:
        return None
    assert response.status_code == 200, response.text
    found = response.json()
    assert isinstance(found, dict)
    return found


def test_variables_async_sets_typed_variables_on_the_instances_a_query_finds(
    rest: LiveServer,
) -> None:
    rest.deploy(BPMN_DIR / "rest_task_steps.bpmn")
    key = uuid.uuid4().hex
    ids = started(rest, 2, key)
    response = rest.client.post(
        "/process-instance/variables-async",
        json={
            "processInstanceQuery": {"businessKey": key},
            "variables": {
                "amount": {"value": 5, "type": "Long"},
                "order": {"value": '{"id": 7}', "type": "Json"},
                "note": {"value": "checked"},
            },
        },
    )
    assert response.status_code == 200, response.text
    batch = response.json()
    assert (batch["type"], batch["totalJobs"]) == ("set-variables", 2)

    held = rest.client.get("/variable-instance", params={"batchIdIn": batch["id"]}).json()
    assert sorted((v["name"], v["type"], v["batchId"]) for v in held) == [
        ("amount", "Long", batch["id"]),
        ("note", "String", batch["id"]),
        ("order", "Json", batch["id"]),
    ]
    assert all(v["processInstanceId"] is None for v in held)

    rest.engine.run_due_jobs()
    for instance_id in ids:
        assert instance_variable(rest, instance_id, "amount") == {
            "value": 5,
            "type": "Long",
            "valueInfo": {},
        }
        order = instance_variable(rest, instance_id, "order")
        assert order is not None and order["type"] == "Json"
    assert rest.client.get("/variable-instance", params={"batchIdIn": batch["id"]}).json() == []
    [historic] = rest.client.get("/history/batch", params={"batchId": batch["id"]}).json()
    assert historic["endTime"] is not None


def test_variables_async_with_a_historic_query_takes_the_running_instances_only(
    rest: LiveServer,
) -> None:
    rest.deploy(BPMN_DIR / "rest_task_steps.bpmn")
    key = uuid.uuid4().hex
    alive, ended = started(rest, 2, key)
    assert rest.client.delete(f"/process-instance/{ended}").status_code == 204
    response = rest.client.post(
        "/process-instance/variables-async",
        json={
            "historicProcessInstanceQuery": {"processInstanceBusinessKey": key},
            "variables": {"flag": {"value": True}},
        },
    )
    assert response.status_code == 200, response.text
    assert response.json()["totalJobs"] == 1
    rest.engine.run_due_jobs()
    assert instance_variable(rest, alive, "flag") == {
        "value": True,
        "type": "Boolean",
        "valueInfo": {},
    }


def test_variables_async_refusals_are_400_with_camundas_words(rest: LiveServer) -> None:
    rest.deploy(BPMN_DIR / "rest_task_steps.bpmn")
    [instance] = started(rest, 1, uuid.uuid4().hex)
    for body, message in (
        ({"processInstanceIds": [instance], "variables": {}}, "variables is empty"),
        ({"processInstanceIds": [instance]}, "variables is null"),
        ({"variables": {"x": {"value": 1}}}, "No process instances found."),
        ({"processInstanceIds": [], "variables": {"x": {"value": 1}}}, "processInstanceIds"),
        (
            {"processInstanceIds": [instance], "variables": {"x": {"value": "a", "type": "Xml"}}},
            "Cannot set variables: Cannot put variable 'x'",
        ),
        (
            {"processInstanceIds": [instance], "variables": {"x": {"value": "z", "type": "Long"}}},
            "'x'",
        ),
    ):
        response = rest.client.post("/process-instance/variables-async", json=body)
        assert response.status_code == 400, (body, response.text)
        assert message in response.json()["message"], (body, response.text)


def test_message_async_correlates_to_the_waiting_instances(rest: LiveServer) -> None:
    rest.deploy(MESSAGES)
    waiting = []
    for _ in range(2):
        response = rest.client.post("/process-definition/key/restMessages/start", json={})
        assert response.status_code == 200, response.text
        waiting.append(response.json()["id"])
    response = rest.client.post(
        "/process-instance/message-async",
        json={
            "messageName": "restPaymentReceived",
            "processInstanceIds": waiting,
            "variables": {"paidBy": {"value": "card"}},
        },
    )
    assert response.status_code == 200, response.text
    assert response.json()["type"] == "correlate-message"
    rest.engine.run_due_jobs()
    for instance_id in waiting:
        tasks = rest.client.get("/task", params={"processInstanceId": instance_id}).json()
        assert [t["taskDefinitionKey"] for t in tasks] == ["ship"]
        assert instance_variable(rest, instance_id, "paidBy") == {
            "value": "card",
            "type": "String",
            "valueInfo": {},
        }
    refused = rest.client.post(
        "/process-instance/message-async", json={"processInstanceIds": waiting}
    )
    assert refused.status_code == 400 and "messageName" in refused.json()["message"]


def test_the_historic_query_based_forms_of_deletion_and_job_retries(rest: LiveServer) -> None:
    rest.deploy(BPMN_DIR / "rest_async_script_then_timer.bpmn")
    key = uuid.uuid4().hex
    response = rest.client.post("/process-definition/key/restJobs/start", json={"businessKey": key})
    instance = response.json()["id"]
    [job] = rest.client.get("/job", params={"processInstanceId": instance}).json()
    query = {"processInstanceBusinessKey": key}
    response = rest.client.post(
        "/process-instance/job-retries-historic-query-based",
        json={"historicProcessInstanceQuery": query, "retries": 6},
    )
    assert response.status_code == 200, response.text
    assert (response.json()["type"], response.json()["totalJobs"]) == ("set-job-retries", 1)
    management = rest.engine.management_service
    for handler in ("batch-seed-job", "set-job-retries", "batch-monitor-job"):
        for j in management.jobs(handler_type=handler):
            management.execute_job(j.id)
    [after] = rest.client.get("/job", params={"processInstanceId": instance}).json()
    assert (after["id"], after["retries"]) == (job["id"], 6)

    response = rest.client.post(
        "/process-instance/delete-historic-query-based",
        json={"historicProcessInstanceQuery": query, "deleteReason": "tidy"},
    )
    assert response.status_code == 200, response.text
    assert (response.json()["type"], response.json()["totalJobs"]) == ("instance-deletion", 1)
    for handler in ("batch-seed-job", "instance-deletion", "batch-monitor-job"):
        for j in management.jobs(handler_type=handler):
            management.execute_job(j.id)
    assert rest.client.get(f"/process-instance/{instance}").status_code == 404
    historic = rest.client.get(f"/history/process-instance/{instance}").json()
    assert historic["deleteReason"] == "tidy"
