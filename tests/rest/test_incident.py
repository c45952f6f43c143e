"""Incidents over HTTP: a job out of retries opens a `failedJob` incident, listed at `/incident`
and, open, at `/history/incident`; retries given back resolve it (gone from `/incident`,
resolved in history). The REST server runs at history level full.

Every test starts its own instances of tests/bpmn/rest_async_script_then_timer.bpmn, whose
asynchronous script task fails without a `divisor` variable.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support import bpmn

from .server import LiveServer
from .test_openapi_contract import HISTORIC_INCIDENT

MODEL = bpmn("rest_async_script_then_timer.bpmn")
INCIDENT_FIELDS = {
    "id",
    "processDefinitionId",
    "processInstanceId",
    "executionId",
    "incidentTimestamp",
    "incidentType",
    "activityId",
    "failedActivityId",
    "causeIncidentId",
    "rootCauseIncidentId",
    "configuration",
    "tenantId",
    "incidentMessage",
    "jobDefinitionId",
    "annotation",
}
CAMUNDA_DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}$")
UNKNOWN = "00000000-0000-0000-0000-000000000000"


@pytest.fixture(scope="module", autouse=True)
def deployed(rest: LiveServer) -> None:
    rest.deploy(MODEL, name="rest-incidents")


def failing_job(rest: LiveServer) -> tuple[str, dict[str, Any]]:
    """A new instance and its job, which fails when run."""
    started = rest.client.post("/process-definition/key/restJobs/start", json={})
    assert started.status_code == 200, started.text
    instance_id: str = started.json()["id"]
    (job,) = rest.client.get("/job", params={"processInstanceId": instance_id}).json()
    return instance_id, job


def get(rest: LiveServer, path: str, **params: Any) -> Any:
    response = rest.client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_retries_at_zero_open_an_incident_and_retries_resolve_it(rest: LiveServer) -> None:
    instance_id, job = failing_job(rest)
    assert get(rest, "/incident", processInstanceId=instance_id) == []
    assert rest.client.put(f"/job/{job['id']}/retries", json={"retries": 0}).status_code == 204

    (incident,) = get(rest, "/incident", processInstanceId=instance_id)
    assert set(incident) == INCIDENT_FIELDS
    assert incident["incidentType"] == "failedJob"
    assert incident["configuration"] == job["id"]
    assert incident["activityId"] == "divide"
    assert incident["processDefinitionId"] == job["processDefinitionId"]
    assert incident["jobDefinitionId"] == job["jobDefinitionId"]
    assert incident["causeIncidentId"] == incident["rootCauseIncidentId"] == incident["id"]
    assert CAMUNDA_DATE.match(incident["incidentTimestamp"])
    assert get(rest, f"/incident/{incident['id']}") == incident
    assert get(rest, "/incident/count", processInstanceId=instance_id) == {"count": 1}
    assert get(rest, "/incident", configuration=job["id"]) == [incident]
    assert get(rest, "/incident", incidentId=incident["id"], incidentType="failedJob") == [incident]
    assert get(rest, "/incident", incidentId=incident["id"], incidentType="other") == []
    assert get(rest, "/incident", incidentId=incident["id"], processDefinitionKeyIn="restJobs") == [
        incident
    ]
    assert get(rest, "/incident", jobDefinitionIdIn=job["jobDefinitionId"], configuration=job["id"])

    (opened,) = get(rest, "/history/incident", processInstanceId=instance_id)
    assert set(opened) == HISTORIC_INCIDENT
    assert opened["id"] == incident["id"]
    assert (opened["open"], opened["resolved"], opened["deleted"]) == (True, False, False)
    assert opened["endTime"] is None
    assert opened["processDefinitionKey"] == "restJobs"
    assert get(rest, "/history/incident", processInstanceId=instance_id, resolved="true") == []
    # A failed job's incident is not resolved by hand (Camunda's 400): its job needs retries.
    by_hand = rest.client.delete(f"/incident/{incident['id']}")
    assert by_hand.status_code == 400, by_hand.text
    assert by_hand.json()["type"] == "BadUserRequestException"
    assert "Cannot resolve an incident of type failedJob" in by_hand.json()["message"]
    assert rest.client.delete(f"/incident/{UNKNOWN}").status_code == 404

    assert rest.client.put(f"/job/{job['id']}/retries", json={"retries": 1}).status_code == 204
    assert get(rest, "/incident", processInstanceId=instance_id) == []
    assert rest.client.get(f"/incident/{incident['id']}").status_code == 404
    (resolved,) = get(rest, "/history/incident", processInstanceId=instance_id, resolved="true")
    assert (resolved["open"], resolved["resolved"], resolved["deleted"]) == (False, True, False)
    assert CAMUNDA_DATE.match(resolved["endTime"])
    assert get(rest, "/history/incident/count", processInstanceId=instance_id, open="true") == {
        "count": 0
    }


def test_a_job_that_fails_its_last_retry_opens_an_incident(rest: LiveServer) -> None:
    instance_id, job = failing_job(rest)
    for _ in range(job["retries"]):
        assert rest.client.post(f"/job/{job['id']}/execute").status_code == 500
    (incident,) = get(rest, "/incident", processInstanceId=instance_id)
    assert incident["failedActivityId"] == "divide"
    assert "divisor" in incident["incidentMessage"]
    assert get(rest, f"/job/{job['id']}")["retries"] == 0
    # Camunda runs a job without retries when asked to: it fails again, no second incident
    assert rest.client.post(f"/job/{job['id']}/execute").status_code == 500
    assert get(rest, "/incident/count", processInstanceId=instance_id) == {"count": 1}


def test_incidents_sort_and_page(rest: LiveServer) -> None:
    jobs = [failing_job(rest)[1] for _ in range(3)]
    for job in jobs:
        assert rest.client.put(f"/job/{job['id']}/retries", json={"retries": 0}).status_code == 204
    incidents = [get(rest, "/incident", configuration=job["id"])[0]["id"] for job in jobs]
    ids = sorted(incidents)
    instances = [job["processInstanceId"] for job in jobs]
    found = [
        i["id"]
        for i in get(rest, "/incident", sortBy="incidentId", sortOrder="desc")
        if i["processInstanceId"] in instances
    ]
    assert found == ids[::-1]
    histories = [
        i["id"]
        for i in get(rest, "/history/incident", sortBy="incidentId", sortOrder="asc", open="true")
        if i["processInstanceId"] in instances
    ]
    assert histories == ids


def test_unknown_incidents_and_bad_queries(rest: LiveServer) -> None:
    missing = rest.client.get(f"/incident/{UNKNOWN}")
    assert missing.status_code == 404
    assert missing.json() == {
        "type": "InvalidRequestException",
        "message": f"No matching incident with id {UNKNOWN}",
    }
    for path, params in (
        ("/incident", {"sortBy": "createTime", "sortOrder": "asc"}),
        ("/incident", {"incidentTimestampBefore": "yesterday"}),
        ("/history/incident", {"sortBy": "incidentTimestamp", "sortOrder": "asc"}),
        ("/history/incident", {"createTimeAfter": "2026-13-40T00:00:00.000+0000"}),
    ):
        response = rest.client.get(path, params=params)
        assert response.status_code == 400, (path, params, response.text)
        assert response.json()["type"] == "InvalidRequestException"
