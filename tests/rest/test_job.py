"""The job resource over HTTP: the job query (GET and JSON, counts, filters, sorting, paging),
one job, running it now (a failure answers 500 and is recorded on the job), retries, due dates,
the stack trace, and the job log in `/history/job-log` (the REST server runs at history level
full).

Every test starts its own instances of tests/bpmn/rest_async_script_then_timer.bpmn and looks
only at their jobs: an asynchronous script task that fails without a `divisor` variable, then a
timer that waits an hour.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from flowledger.rest.formats import format_date
from tests.support import bpmn

from .server import LiveServer
from .test_openapi_contract import HISTORIC_JOB_LOG, JOB

MODEL = bpmn("rest_async_script_then_timer.bpmn")
JOB_FIELDS = set(JOB)  # Camunda's JobDto
CAMUNDA_DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}$")
UNKNOWN = "00000000-0000-0000-0000-000000000000"


@pytest.fixture(scope="module", autouse=True)
def deployed(rest: LiveServer) -> None:
    rest.deploy(MODEL, name="rest-jobs")


def start(rest: LiveServer, **variables: Any) -> str:
    body = {"variables": {name: {"value": value} for name, value in variables.items()}}
    response = rest.client.post("/process-definition/key/restJobs/start", json=body)
    assert response.status_code == 200, response.text
    instance_id: str = response.json()["id"]
    return instance_id


def jobs_of(rest: LiveServer, instance_id: str, **params: Any) -> list[dict[str, Any]]:
    response = rest.client.get("/job", params={"processInstanceId": instance_id, **params})
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()
    return found


def only_job(rest: LiveServer, instance_id: str) -> dict[str, Any]:
    (job,) = jobs_of(rest, instance_id)
    return job


def job_log(rest: LiveServer, job_id: str) -> list[dict[str, Any]]:
    """The job's log in the order it was written."""
    body = {
        "jobId": job_id,
        "sorting": [
            {"sortBy": "timestamp", "sortOrder": "asc"},
            {"sortBy": "occurrence", "sortOrder": "asc"},
        ],
    }
    response = rest.client.post("/history/job-log", json=body)
    assert response.status_code == 200, response.text
    entries: list[dict[str, Any]] = response.json()
    return entries


def kinds(entries: list[dict[str, Any]]) -> list[str]:
    names = ("creationLog", "failureLog", "successLog", "deletionLog")
    return [next(name for name in names if entry[name]) for entry in entries]


# -- the query and one job ----------------------------------------------------------------------


def test_a_waiting_continuation_is_listed_counted_and_found_by_id(rest: LiveServer) -> None:
    instance_id = start(rest)
    job = only_job(rest, instance_id)
    assert set(job) == JOB_FIELDS
    assert job["processInstanceId"] == instance_id
    assert job["processDefinitionKey"] == "restJobs"
    assert job["retries"] == 3
    assert job["dueDate"] is None  # an asynchronous continuation is due at once
    assert job["exceptionMessage"] is None and job["failedActivityId"] is None
    assert job["suspended"] is False and job["priority"] == 0
    assert job["jobDefinitionId"]
    assert CAMUNDA_DATE.match(job["createTime"])

    assert rest.client.get(f"/job/{job['id']}").json() == job
    for method in ("GET", "POST"):
        if method == "GET":
            counted = rest.client.get("/job/count", params={"processInstanceId": instance_id})
        else:
            counted = rest.client.post("/job/count", json={"processInstanceId": instance_id})
        assert counted.status_code == 200, counted.text
        assert counted.json() == {"count": 1}
    listed = rest.client.post("/job", json={"processInstanceIds": [instance_id]})
    assert listed.json() == [job]
    assert jobs_of(rest, instance_id, messages="true") == [job]
    assert jobs_of(rest, instance_id, timers="true") == []
    assert jobs_of(rest, instance_id, activityId="divide") == [job]
    assert jobs_of(rest, instance_id, jobDefinitionId=job["jobDefinitionId"]) == [job]
    assert jobs_of(rest, instance_id, executable="true") == [job]
    assert jobs_of(rest, instance_id, withException="true") == []


def test_the_job_definitions_of_a_deployment_name_its_jobs(rest: LiveServer) -> None:
    instance_id = start(rest)
    job = only_job(rest, instance_id)
    listed = rest.client.get("/job-definition", params={"processDefinitionKey": "restJobs"})
    assert listed.status_code == 200, listed.text
    by_activity = {d["activityId"]: d for d in listed.json()}
    definition = by_activity["divide"]
    assert definition["id"] == job["jobDefinitionId"]
    assert (definition["jobType"], definition["jobConfiguration"]) == (
        "async-continuation",
        "async-before",
    )
    assert definition["suspended"] is False
    assert definition["processDefinitionId"] == job["processDefinitionId"]
    timer = next(d for d in listed.json() if d["jobType"] == "timer-intermediate-transition")
    assert timer["jobConfiguration"].startswith("DURATION: ")
    assert rest.client.get(f"/job-definition/{definition['id']}").json() == definition
    counted = rest.client.post("/job-definition/count", json={"activityIdIn": ["divide"]})
    assert counted.json() == {"count": 1}
    missing = rest.client.get(f"/job-definition/{UNKNOWN}")
    assert missing.status_code == 404 and UNKNOWN in missing.json()["message"]


def test_a_job_is_suspended_and_activated(rest: LiveServer) -> None:
    instance_id = start(rest)
    job = only_job(rest, instance_id)
    suspended = rest.client.put(f"/job/{job['id']}/suspended", json={"suspended": True})
    assert suspended.status_code == 204, suspended.text
    assert rest.client.get(f"/job/{job['id']}").json()["suspended"] is True
    assert jobs_of(rest, instance_id, suspended="true") == [{**job, "suspended": True}]
    assert jobs_of(rest, instance_id, active="true") == []
    refused = rest.client.post(f"/job/{job['id']}/execute")
    assert refused.status_code in (400, 500) and "suspended" in refused.json()["message"]
    activated = rest.client.put(f"/job/{job['id']}/suspended", json={"suspended": False})
    assert activated.status_code == 204
    assert rest.client.get(f"/job/{job['id']}").json() == job
    missing = rest.client.put(f"/job/{job['id']}/suspended", json={})
    assert missing.status_code == 400


def test_a_job_s_priority_is_set(rest: LiveServer) -> None:
    job = only_job(rest, start(rest))
    changed = rest.client.put(f"/job/{job['id']}/priority", json={"priority": 42})
    assert changed.status_code == 204, changed.text
    assert rest.client.get(f"/job/{job['id']}").json()["priority"] == 42
    assert rest.client.put(f"/job/{job['id']}/priority", json={}).status_code == 400


def test_an_unknown_job_answers_404_everywhere(rest: LiveServer) -> None:
    for method, path, body in (
        ("GET", f"/job/{UNKNOWN}", None),
        ("POST", f"/job/{UNKNOWN}/execute", None),
        ("PUT", f"/job/{UNKNOWN}/retries", {"retries": 1}),
        ("PUT", f"/job/{UNKNOWN}/duedate", {"duedate": None}),
        ("PUT", f"/job/{UNKNOWN}/suspended", {"suspended": True}),
        ("PUT", f"/job/{UNKNOWN}/priority", {"priority": 1}),
        ("GET", f"/job/{UNKNOWN}/stacktrace", None),
        ("GET", f"/history/job-log/{UNKNOWN}", None),
        ("GET", f"/history/job-log/{UNKNOWN}/stacktrace", None),
    ):
        response = rest.client.request(method, path, json=body)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["type"] == "InvalidRequestException"
        assert UNKNOWN in response.json()["message"]


# -- running a job ------------------------------------------------------------------------------


def test_a_failing_job_answers_500_and_its_failure_is_kept_on_the_job(rest: LiveServer) -> None:
    instance_id = start(rest)
    job_id = only_job(rest, instance_id)["id"]
    assert rest.client.get(f"/job/{job_id}/stacktrace").status_code == 204  # not failed yet

    response = rest.client.post(f"/job/{job_id}/execute")
    assert response.status_code == 500, response.text
    body = response.json()
    assert body["type"] == "RestException"
    assert "divisor" in body["message"]
    assert "Traceback" not in body["message"]  # the stack trace is the job's, not the answer's

    job = rest.client.get(f"/job/{job_id}").json()
    assert job["retries"] == 2
    assert job["exceptionMessage"] == body["message"]
    assert job["failedActivityId"] == "divide"
    assert jobs_of(rest, instance_id, withException="true") == [job]
    assert jobs_of(rest, instance_id, exceptionMessage=body["message"]) == [job]
    trace = rest.client.get(f"/job/{job_id}/stacktrace")
    assert trace.status_code == 200
    assert trace.headers["content-type"].startswith("text/plain")
    assert "divisor" in trace.text

    entries = job_log(rest, job_id)
    assert kinds(entries) == ["creationLog", "failureLog"]
    created, failed = entries
    assert set(created) == HISTORIC_JOB_LOG
    assert failed["jobExceptionMessage"] == body["message"]
    assert failed["failedActivityId"] == "divide"
    assert failed["jobDefinitionType"] == "async-continuation"
    assert CAMUNDA_DATE.match(failed["timestamp"])
    assert rest.client.get(f"/history/job-log/{failed['id']}").json() == failed
    failure_trace = rest.client.get(f"/history/job-log/{failed['id']}/stacktrace")
    assert failure_trace.status_code == 200 and "divisor" in failure_trace.text
    assert rest.client.get(f"/history/job-log/{created['id']}/stacktrace").status_code == 204
    failures = rest.client.get(
        "/history/job-log/count", params={"jobId": job_id, "failureLog": "true"}
    )
    assert failures.json() == {"count": 1}


def test_a_job_that_runs_leaves_a_timer_whose_due_date_can_be_moved(rest: LiveServer) -> None:
    instance_id = start(rest, divisor=4)
    continuation = only_job(rest, instance_id)["id"]
    response = rest.client.post(f"/job/{continuation}/execute")
    assert response.status_code == 204, response.text
    assert kinds(job_log(rest, continuation)) == ["creationLog", "successLog"]

    timer = only_job(rest, instance_id)
    assert timer["id"] != continuation
    assert jobs_of(rest, instance_id, timers="true") == [timer]
    assert jobs_of(rest, instance_id, executable="true") == []  # due in an hour
    due = datetime.strptime(timer["dueDate"], "%Y-%m-%dT%H:%M:%S.%f%z")
    before, after = format_date(due - timedelta(minutes=1)), format_date(due + timedelta(minutes=1))
    assert jobs_of(rest, instance_id, dueDates=f"gt_{before},lt_{after}") == [timer]
    assert jobs_of(rest, instance_id, dueDates=f"gt_{after}") == []
    listed = rest.client.post(
        "/job",
        json={
            "processInstanceId": instance_id,
            "dueDates": [{"operator": "lt", "value": before}],
        },
    )
    assert listed.status_code == 200 and listed.json() == []

    past = format_date(datetime.now(UTC) - timedelta(days=1))
    moved = rest.client.put(f"/job/{timer['id']}/duedate", json={"duedate": past})
    assert moved.status_code == 204, moved.text
    (executable,) = jobs_of(rest, instance_id, executable="true")
    assert executable["id"] == timer["id"] and executable["dueDate"] == past

    cleared = rest.client.put(f"/job/{timer['id']}/duedate", json={"duedate": None})
    assert cleared.status_code == 204, cleared.text
    assert rest.client.get(f"/job/{timer['id']}").json()["dueDate"] is None


def test_retries_set_over_http_make_a_job_executable_or_not(rest: LiveServer) -> None:
    instance_id = start(rest)
    job_id = only_job(rest, instance_id)["id"]
    assert rest.client.put(f"/job/{job_id}/retries", json={"retries": 0}).status_code == 204
    assert jobs_of(rest, instance_id, noRetriesLeft="true")[0]["retries"] == 0
    assert jobs_of(rest, instance_id, withRetriesLeft="true") == []
    assert jobs_of(rest, instance_id, executable="true") == []
    assert rest.client.put(f"/job/{job_id}/retries", json={"retries": 5}).status_code == 204
    assert jobs_of(rest, instance_id, withRetriesLeft="true")[0]["retries"] == 5


# -- refused requests -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body", "params", "words"),
    [
        ("PUT", "retries", {"retries": -1}, {}, ["non-negative", "-1"]),
        ("PUT", "retries", {}, {}, ["retries"]),
        ("PUT", "duedate", {"duedate": "next tuesday"}, {}, ["duedate", "next tuesday"]),
        ("PUT", "duedate", {"duedate": None, "cascade": True}, {}, ["cascade"]),
    ],
)
def test_a_bad_command_is_refused_with_400(
    rest: LiveServer,
    method: str,
    path: str,
    body: dict[str, Any],
    params: dict[str, str],
    words: list[str],
) -> None:
    instance_id = start(rest)
    job = only_job(rest, instance_id)
    response = rest.client.request(method, f"/job/{job['id']}/{path}", json=body, params=params)
    assert response.status_code == 400, response.text
    assert response.json()["type"] == "InvalidRequestException"
    for word in words:
        assert word in response.json()["message"]
    assert rest.client.get(f"/job/{job['id']}").json() == job


@pytest.mark.parametrize(
    "params",
    [
        {"sortBy": "nothing", "sortOrder": "asc"},
        {"sortBy": "jobId"},
        {"timers": "true", "messages": "true"},
        {"dueDates": "eq_2026-12-02T16:31:40.000+0000"},
        {"dueDates": "gt_yesterday"},
        {"createTimes": "lt"},
        {"firstResult": "-1"},
    ],
)
def test_a_bad_query_is_refused_with_400(rest: LiveServer, params: dict[str, str]) -> None:
    for path in ("/job", "/job/count"):
        if path == "/job/count" and "sortBy" in params:
            continue  # counts ignore sorting, as Camunda's
        if path == "/job/count" and "firstResult" in params:
            continue
        response = rest.client.get(path, params=params)
        assert response.status_code == 400, (path, params, response.text)
        assert response.json()["type"] == "InvalidRequestException"


def test_a_bad_json_query_is_refused_with_400(rest: LiveServer) -> None:
    for body in (
        {"dueDates": [{"operator": "eq", "value": "2026-12-02T16:31:40.000+0000"}]},
        {"sorting": [{"sortBy": "dueDate", "sortOrder": "asc"}]},
        {"jobIds": "not a list"},
    ):
        response = rest.client.post("/job", json=body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["type"] == "InvalidRequestException"


# -- sorting and paging ---------------------------------------------------------------------------


def test_jobs_sort_and_page_as_camunda_asks(rest: LiveServer) -> None:
    instances = [start(rest) for _ in range(3)]
    ids = sorted(only_job(rest, i)["id"] for i in instances)
    query = {"processInstanceIds": ",".join(instances), "sortBy": "jobId"}
    ascending = rest.client.get("/job", params={**query, "sortOrder": "asc"}).json()
    assert [j["id"] for j in ascending] == ids
    descending = rest.client.get("/job", params={**query, "sortOrder": "desc"}).json()
    assert [j["id"] for j in descending] == ids[::-1]
    paged = rest.client.get(
        "/job", params={**query, "sortOrder": "asc", "firstResult": 1, "maxResults": 1}
    ).json()
    assert [j["id"] for j in paged] == ids[1:2]
    body = {"processInstanceIds": instances, "sorting": [{"sortBy": "jobId", "sortOrder": "desc"}]}
    posted = rest.client.post("/job", params={"maxResults": 2}, json=body).json()
    assert [j["id"] for j in posted] == ids[::-1][:2]
