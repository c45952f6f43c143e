"""engine-rest batches: `POST /process-instance/delete` answers Camunda's BatchDto; `/batch`
lists, counts, finds, suspends and deletes it; `/batch/statistics` shows its progress;
`/history/batch` its history. The server runs no job executor: the test runs the jobs."""

from __future__ import annotations

import uuid
from typing import Any

from tests.support import BPMN_DIR

from .server import LiveServer

MODEL = BPMN_DIR / "rest_task_steps.bpmn"
KEY = "restTaskSteps"


def started(rest: LiveServer, n: int, business_key: str) -> list[str]:
    ids = []
    for _ in range(n):
        response = rest.client.post(
            f"/process-definition/key/{KEY}/start", json={"businessKey": business_key}
        )
        assert response.status_code == 200, response.text
        ids.append(str(response.json()["id"]))
    return ids


def statistics(rest: LiveServer, batch_id: str) -> dict[str, Any]:
    response = rest.client.get("/batch/statistics", params={"batchId": batch_id})
    assert response.status_code == 200, response.text
    [found] = response.json()
    assert isinstance(found, dict)
    return found


def test_a_deletion_batch_over_rest(rest: LiveServer) -> None:
    rest.deploy(MODEL)
    key = uuid.uuid4().hex
    ids = started(rest, 3, key)
    response = rest.client.post(
        "/process-instance/delete",
        json={
            "processInstanceIds": ids[:1],
            "processInstanceQuery": {"businessKey": key},
            "deleteReason": "cleanup",
            "skipCustomListeners": True,
        },
    )
    assert response.status_code == 200, response.text
    batch = response.json()
    assert batch["type"] == "instance-deletion"
    assert (batch["totalJobs"], batch["jobsCreated"], batch["suspended"]) == (3, 0, False)
    assert batch["batchJobsPerSeed"] == 100 and batch["invocationsPerBatchJob"] == 1
    for field in ("seedJobDefinitionId", "monitorJobDefinitionId", "batchJobDefinitionId"):
        assert batch[field]
    batch_id = batch["id"]

    assert rest.client.get(f"/batch/{batch_id}").json()["id"] == batch_id
    listed = rest.client.get("/batch", params={"type": "instance-deletion"}).json()
    assert batch_id in [b["id"] for b in listed]
    assert rest.client.get("/batch/count", params={"batchId": batch_id}).json() == {"count": 1}
    stats = statistics(rest, batch_id)
    assert (stats["remainingJobs"], stats["completedJobs"], stats["failedJobs"]) == (3, 0, 0)

    # suspended, nothing runs; activated, it runs to the end
    suspend = rest.client.put(f"/batch/{batch_id}/suspended", json={"suspended": True})
    assert suspend.status_code == 204, suspend.text
    assert rest.client.get(f"/batch/{batch_id}").json()["suspended"] is True
    assert rest.engine.run_due_jobs() == 0
    rest.client.put(f"/batch/{batch_id}/suspended", json={"suspended": False})
    rest.engine.run_due_jobs()
    gone = rest.client.get("/process-instance", params={"businessKey": key}).json()
    assert gone == []
    assert rest.client.get(f"/batch/{batch_id}").status_code == 404
    historic = rest.client.get(f"/history/batch/{batch_id}").json()
    assert historic["endTime"] is not None and historic["totalJobs"] == 3
    count = rest.client.get("/history/batch/count", params={"completed": "true"}).json()
    assert count["count"] >= 1
    assert rest.client.delete(f"/history/batch/{batch_id}").status_code == 204
    assert rest.client.get(f"/history/batch/{batch_id}").status_code == 404


def test_deleting_a_running_batch_and_the_errors(rest: LiveServer) -> None:
    rest.deploy(MODEL)
    key = uuid.uuid4().hex
    ids = started(rest, 2, key)
    batch_id = rest.client.post(
        "/process-instance/delete", json={"processInstanceIds": ids}
    ).json()["id"]
    deleted = rest.client.delete(f"/batch/{batch_id}", params={"cascade": "true"})
    assert deleted.status_code == 204, deleted.text
    assert rest.client.get(f"/history/batch/{batch_id}").status_code == 404
    assert len(rest.client.get("/process-instance", params={"businessKey": key}).json()) == 2

    empty = rest.client.post("/process-instance/delete", json={"processInstanceIds": []})
    assert empty.status_code == 400
    assert empty.json()["type"] == "BadUserRequestException"
    assert rest.client.get("/batch/nope").status_code == 404
    assert rest.client.delete("/batch/nope").status_code == 400
    bad = rest.client.put("/batch/nope/suspended", json={"suspended": True})
    assert bad.status_code == 400


def test_job_retries_batches(rest: LiveServer) -> None:
    rest.deploy(BPMN_DIR / "rest_async_script_then_timer.bpmn")
    instance = rest.client.post("/process-definition/key/restJobs/start", json={}).json()["id"]
    [job] = rest.client.get("/job", params={"processInstanceId": instance}).json()
    response = rest.client.post(
        "/job/retries",
        json={"jobIds": [job["id"]], "retries": 7, "dueDate": "2040-01-01T10:00:00.000+0000"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["type"] == "set-job-retries"
    by_query = rest.client.post(
        "/process-instance/job-retries",
        json={"processInstanceQuery": {"processInstanceIds": [instance]}, "retries": 4},
    )
    assert by_query.status_code == 200, by_query.text
    assert by_query.json()["totalJobs"] == 1
    # the batches' jobs, one kind after the other (the instance's own job is not due)
    management = rest.engine.management_service
    for handler in ("batch-seed-job", "set-job-retries", "batch-monitor-job"):
        for j in management.jobs(handler_type=handler):
            management.execute_job(j.id)
    for batch_id in (response.json()["id"], by_query.json()["id"]):
        assert rest.client.get(f"/batch/{batch_id}").status_code == 404  # completed
    [after] = rest.client.get("/job", params={"processInstanceId": instance}).json()
    assert after["retries"] in (4, 7)  # both batches ran; their jobs' order is not given
    bad = rest.client.post("/job/retries", json={"jobIds": [job["id"]], "retries": -1})
    assert bad.status_code == 400
    none = rest.client.post("/job/retries", json={"retries": 1})
    assert none.status_code == 400


def test_suspension_external_task_and_history_deletion_batches(rest: LiveServer) -> None:
    rest.deploy(MODEL, BPMN_DIR / "external_task.bpmn")
    key = uuid.uuid4().hex
    ids = started(rest, 2, key)
    management = rest.engine.management_service

    def run_batches() -> None:
        for handler in (
            "batch-seed-job",
            "instance-update-suspension-state",
            "set-external-task-retries",
            "historic-instance-deletion",
            "batch-monitor-job",
        ):
            for j in management.jobs(handler_type=handler):
                management.execute_job(j.id)

    suspended = rest.client.post(
        "/process-instance/suspended-async",
        json={"processInstanceQuery": {"businessKey": key}, "suspended": True},
    )
    assert suspended.status_code == 200, suspended.text
    assert suspended.json()["type"] == "instance-update-suspension-state"
    run_batches()
    listed = rest.client.get("/process-instance", params={"businessKey": key}).json()
    assert {p["suspended"] for p in listed} == {True}

    started_task = rest.client.post(
        "/process-definition/key/externalInvoice/start",
        json={"variables": {"amount": {"value": 5}, "priority": {"value": 1}}},
    ).json()["id"]
    retries = rest.client.post(
        "/external-task/retries-async",
        json={"processInstanceIds": [started_task], "retries": 3},
    )
    assert retries.status_code == 200, retries.text
    assert retries.json()["totalJobs"] == 1
    run_batches()
    [task] = rest.client.get("/external-task", params={"processInstanceId": started_task}).json()
    assert task["retries"] == 3

    for instance_id in ids:
        assert rest.client.delete(f"/process-instance/{instance_id}").status_code == 204
    deleted = rest.client.post(
        "/history/process-instance/delete",
        json={"historicProcessInstanceIds": ids, "deleteReason": "tidy"},
    )
    assert deleted.status_code == 200, deleted.text
    run_batches()
    assert rest.client.get(f"/history/process-instance/{ids[0]}").status_code == 404
    empty = rest.client.post("/history/process-instance/delete", json={})
    assert empty.status_code == 400


def test_modification_and_restart_batches(rest: LiveServer) -> None:
    rest.deploy(MODEL)
    key = uuid.uuid4().hex
    ids = started(rest, 2, key)
    definition = rest.client.get(f"/process-instance/{ids[0]}").json()["definitionId"]
    management = rest.engine.management_service

    def run_batches() -> None:
        for handler in ("batch-seed-job", "instance-modification", "instance-restart"):
            for j in management.jobs(handler_type=handler):
                management.execute_job(j.id)

    moves = [
        {"type": "startBeforeActivity", "activityId": "serve"},
        {"type": "cancel", "activityId": "prepare"},
    ]
    many = rest.client.post(
        "/modification/executeAsync",
        json={
            "processDefinitionId": definition,
            "processInstanceIds": ids[:1],
            "instructions": moves,
        },
    )
    assert many.status_code == 200, many.text
    one = rest.client.post(
        f"/process-instance/{ids[1]}/modification-async", json={"instructions": moves}
    )
    assert one.status_code == 200, one.text
    assert {many.json()["type"], one.json()["type"]} == {"instance-modification"}
    run_batches()
    tasks = rest.client.get("/task", params={"processInstanceBusinessKey": key}).json()
    assert {t["taskDefinitionKey"] for t in tasks} == {"serve"}

    for instance_id in ids:
        rest.client.delete(f"/process-instance/{instance_id}")
    restarted = rest.client.post(
        f"/process-definition/{definition}/restart-async",
        json={
            "processInstanceIds": ids,
            "instructions": [{"type": "startBeforeActivity", "activityId": "prepare"}],
        },
    )
    assert restarted.status_code == 200, restarted.text
    assert restarted.json()["type"] == "instance-restart"
    run_batches()
    assert len(rest.client.get("/task", params={"processInstanceBusinessKey": key}).json()) == 2
    unknown = rest.client.post(
        "/process-definition/nope/restart-async",
        json={
            "processInstanceIds": ids,
            "instructions": [{"type": "startBeforeActivity", "activityId": "prepare"}],
        },
    )
    assert unknown.status_code == 404
