"""engine-rest of Camunda 7.24's set-removal-time batches and the historic decision instance
deletion batch (issue 37): each answers a BatchDto, its jobs run (the server runs no job
executor: the test runs them), `/batch/statistics` shows it until its monitor ends it,
`/history/batch` keeps it; the history DTOs show the `removalTime` set; a bad request is a 400
with Camunda's message."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from flowledger.projections import tables
from tests.dmn.models import dinner, dish
from tests.projections.test_removal_time import DINNER, MODEL, _run

from .server import LiveServer

PAST = "2020-01-01T00:00:00.000+0000"


def _removal(rest: LiveServer, path: str) -> Any:
    """The `removalTime` of a history DTO."""
    response = rest.client.get(path)
    assert response.status_code == 200, response.text
    return response.json()["removalTime"]


def _run_batch(rest: LiveServer, batch: dict[str, Any]) -> None:
    """Seed job, work jobs, then the monitor job (run now, not after its poll time)."""
    management = rest.engine.management_service
    for handler in ("batch-seed-job", batch["type"], "batch-monitor-job"):
        for job in management.jobs(handler_type=handler):
            management.execute_job(job.id)
    rest.engine.history_service.flush_history()


def _post(rest: LiveServer, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = rest.client.post(path, json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert isinstance(answer, dict)
    return answer


def test_process_removal_times_over_rest_and_cleanup_honours_them(rest: LiveServer) -> None:
    engine = rest.engine
    engine.deploy({"dish.dmn": dish(), "p.bpmn": MODEL})
    gone, cleared = _run(engine), _run(engine)
    batch = _post(
        rest,
        "/history/process-instance/set-removal-time",
        {
            "absoluteRemovalTime": PAST,
            "historicProcessInstanceQuery": {"processInstanceId": gone},
            "hierarchical": True,
        },
    )
    assert (batch["type"], batch["totalJobs"]) == ("process-set-removal-time", 1)
    stats = rest.client.get("/batch/statistics", params={"batchId": batch["id"]}).json()
    assert [(s["remainingJobs"], s["completedJobs"]) for s in stats] == [(1, 0)]
    _run_batch(rest, batch)
    assert rest.client.get("/batch/statistics", params={"batchId": batch["id"]}).json() == []
    historic = rest.client.get(f"/history/batch/{batch['id']}").json()
    assert historic["type"] == "process-set-removal-time" and historic["endTime"] is not None
    assert _removal(rest, f"/history/process-instance/{gone}") == PAST

    cleared_batch = _post(
        rest,
        "/history/process-instance/set-removal-time",
        {"clearedRemovalTime": True, "historicProcessInstanceIds": [cleared]},
    )
    _run_batch(rest, cleared_batch)
    assert _removal(rest, f"/history/process-instance/{cleared}") is None

    assert rest.client.post("/history/cleanup").status_code == 200
    assert rest.client.get(f"/history/process-instance/{gone}").status_code == 404
    assert rest.client.get(f"/history/process-instance/{cleared}").status_code == 200

    calculated = _post(
        rest,
        "/history/process-instance/set-removal-time",
        {"calculatedRemovalTime": True, "historicProcessInstanceIds": [cleared]},
    )
    _run_batch(rest, calculated)
    assert _removal(rest, f"/history/process-instance/{cleared}") is not None


def test_invalid_requests_are_400_with_camundas_messages(rest: LiveServer) -> None:
    path = "/history/process-instance/set-removal-time"
    cases = [
        ({}, "Neither query nor ids provided."),
        ({"historicProcessInstanceIds": ["x"]}, "removalTime is null"),
        (
            {"clearedRemovalTime": True, "historicProcessInstanceIds": []},
            "historicProcessInstances is empty",
        ),
        (
            {"clearedRemovalTime": True, "calculatedRemovalTime": True},
            "The removal time modes are mutually exclusive: mode is not null",
        ),
        (
            {
                "clearedRemovalTime": True,
                "historicProcessInstanceIds": ["x"],
                "updateInChunks": True,
            },
            "updateInChunks is not supported: flowledger updates an instance at once",
        ),
        (
            {"clearedRemovalTime": True, "historicProcessInstanceIds": ["x"], "updateChunkSize": 5},
            "updateChunkSize is not supported: flowledger updates an instance at once",
        ),
        (
            {"absoluteRemovalTime": "soon", "historicProcessInstanceIds": ["x"]},
            None,
        ),
    ]
    for body, message in cases:
        response = rest.client.post(path, json=body)
        assert response.status_code == 400, (body, response.text)
        if message is not None:
            assert response.json()["message"] == message, body
    for path, body, message in [
        ("/history/batch/set-removal-time", {"calculatedRemovalTime": True}, None),
        (
            "/history/batch/set-removal-time",
            {"calculatedRemovalTime": True, "historicBatchIds": ["unknown"]},
            "historicBatches is empty",
        ),
        (
            "/history/decision-instance/set-removal-time",
            {"clearedRemovalTime": True, "historicDecisionInstanceIds": []},
            "historicDecisionInstances is empty",
        ),
        ("/history/decision-instance/delete", {}, "historicDecisionInstanceIds is empty"),
    ]:
        response = rest.client.post(path, json=body)
        assert response.status_code == 400, (body, response.text)
        if message is not None:
            assert response.json()["message"] == message, body


def test_decision_removal_time_and_deletion_batches_over_rest(rest: LiveServer) -> None:
    rest.engine.deploy({"dinner.dmn": dinner()})
    variables = {name: {"value": value} for name, value in DINNER.items()}

    def evaluate() -> str:
        answer = rest.client.post(
            "/decision-definition/key/beverages/evaluate", json={"variables": variables}
        )
        assert answer.status_code == 200, answer.text
        [root] = rest.client.get(
            "/history/decision-instance",
            params={
                "decisionDefinitionKey": "beverages",
                "sortBy": "evaluationTime",
                "sortOrder": "desc",
                "maxResults": 1,
            },
        ).json()
        return str(root["id"])

    first, second = evaluate(), evaluate()
    batch = _post(
        rest,
        "/history/decision-instance/set-removal-time",
        {
            "absoluteRemovalTime": PAST,
            "historicDecisionInstanceQuery": {"decisionInstanceId": first},
            "hierarchical": True,
        },
    )
    assert batch["type"] == "decision-set-removal-time"
    _run_batch(rest, batch)
    assert _removal(rest, f"/history/decision-instance/{first}") == PAST
    assert _removal(rest, f"/history/decision-instance/{second}") is None

    deletion = _post(
        rest,
        "/history/decision-instance/delete",
        {"historicDecisionInstanceIds": [first, second], "deleteReason": "tidy"},
    )
    assert (deletion["type"], deletion["totalJobs"]) == ("historic-decision-instance-deletion", 2)
    _run_batch(rest, deletion)
    for decision_id in (first, second):
        found = rest.client.get(f"/history/decision-instance/{decision_id}")
        assert found.status_code == 404
    with rest.engine.reading() as conn:
        t = tables.ACT_HI_DEC_IN
        left = conn.execute(sa.select(t.c.ID_).where(t.c.DEC_INST_ID_.in_([first, second])))
        assert list(left) == []

    # the deletion batch's history gets a removal time
    removal = _post(
        rest,
        "/history/batch/set-removal-time",
        {"absoluteRemovalTime": PAST, "historicBatchIds": [deletion["id"]]},
    )
    assert removal["type"] == "batch-set-removal-time"
    _run_batch(rest, removal)
    assert _removal(rest, f"/history/batch/{deletion['id']}") == PAST
    assert _removal(rest, f"/history/batch/{batch['id']}") is None
