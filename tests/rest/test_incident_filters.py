"""The incident filters of the process instance searches, as Cockpit's "instances with incidents"
search sends them: `withIncident`, `incidentId`, `incidentType`, `incidentMessage(Like)` on
`/process-instance` (open incidents) and on `/execution`; `withIncidents`, `withRootIncidents`,
`incidentStatus`, `incidentType`, `incidentMessage(Like)` on `/history/process-instance` (open and
resolved ones), where `executedJobAfter`/`Before` read the job log. GET and POST, list and count.

The instances (tests/bpmn/rest_ext_worker.bpmn, one external task each): `open` has an open
incident (its worker failed with no retries left), `resolved` a resolved one (its retries were
given back), `both` a resolved one and then an open one with another message, `clean` none.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.support import bpmn

from .server import LiveServer

TOPIC = "incident-filters"
CLOSED, JAMMED = "ledger closed", "printer jammed"
EXTERNAL = "failedExternalTask"


@dataclass(frozen=True)
class World:
    instances: dict[str, str]  # name → process instance id
    incidents: dict[str, str]  # "open", "resolved", "both-open", "both-resolved" → incident id

    def ids(self, *names: str) -> set[str]:
        return {self.instances[name] for name in names}


def _lock(rest: LiveServer, business_key: str) -> str:
    locked = rest.client.post(
        "/external-task/fetchAndLock",
        json={
            "workerId": "tester",
            "maxTasks": 10,
            "topics": [{"topicName": TOPIC, "lockDuration": 60_000, "businessKey": business_key}],
        },
    )
    assert locked.status_code == 200, locked.text
    (task,) = locked.json()
    task_id: str = task["id"]
    return task_id


def _fail(rest: LiveServer, instance_id: str, business_key: str, message: str) -> tuple[str, str]:
    """The instance's worker gives up: an open incident. (external task id, incident id)"""
    task_id = _lock(rest, business_key)
    answer = rest.client.post(
        f"/external-task/{task_id}/failure",
        json={"workerId": "tester", "errorMessage": message, "retries": 0},
    )
    assert answer.status_code == 204, answer.text
    opened = rest.client.get("/incident", params={"processInstanceId": instance_id}).json()
    (incident,) = [i for i in opened if i["incidentMessage"] == message]
    return task_id, incident["id"]


def _give_retries(rest: LiveServer, task_id: str) -> None:
    answer = rest.client.put(f"/external-task/{task_id}/retries", json={"retries": 1})
    assert answer.status_code == 204, answer.text


@pytest.fixture(scope="module")
def world(rest: LiveServer) -> World:
    rest.deploy(bpmn("rest_ext_worker.bpmn"), name="incident-filters")
    instances: dict[str, str] = {}
    for name in ("open", "resolved", "both", "clean"):
        started = rest.client.post(
            "/process-definition/key/restExtWorker/start",
            json={
                "businessKey": name,
                "variables": {"topic": {"value": TOPIC, "type": "String"}},
            },
        )
        assert started.status_code == 200, started.text
        instances[name] = started.json()["id"]
    incidents: dict[str, str] = {}
    _, incidents["open"] = _fail(rest, instances["open"], "open", CLOSED)
    task_id, incidents["resolved"] = _fail(rest, instances["resolved"], "resolved", JAMMED)
    _give_retries(rest, task_id)
    task_id, incidents["both-resolved"] = _fail(rest, instances["both"], "both", JAMMED)
    _give_retries(rest, task_id)
    _, incidents["both-open"] = _fail(rest, instances["both"], "both", CLOSED)
    return World(instances, incidents)


def _get_form(params: dict[str, Any]) -> dict[str, Any]:
    return {k: str(v).lower() if isinstance(v, bool) else v for k, v in params.items()}


def found(rest: LiveServer, path: str, params: dict[str, Any]) -> set[str]:
    """The ids `path` lists for `params`, asked in the four ways (GET and POST, list and count),
    which must agree."""
    by_get = rest.client.get(path, params=_get_form(params))
    by_post = rest.client.post(path, json=params)
    count_get = rest.client.get(f"{path}/count", params=_get_form(params))
    count_post = rest.client.post(f"{path}/count", json=params)
    for answer in (by_get, by_post, count_get, count_post):
        assert answer.status_code == 200, (path, params, answer.text)
    ids = [entry["id"] for entry in by_get.json()]
    assert sorted(ids) == sorted(entry["id"] for entry in by_post.json()), params
    assert count_get.json() == count_post.json() == {"count": len(ids)}, params
    return set(ids)


def instances(rest: LiveServer, path: str, **params: Any) -> set[str]:
    """`found`, among the instances of the external task model."""
    return found(rest, path, {"processDefinitionKey": "restExtWorker", **params})


def test_running_instances_by_their_open_incidents(rest: LiveServer, world: World) -> None:
    def runtime(**params: Any) -> set[str]:
        return instances(rest, "/process-instance", **params)

    assert runtime() == world.ids("open", "resolved", "both", "clean")
    assert runtime(withIncident=True) == world.ids("open", "both")
    # false is Camunda's default: no filter
    assert runtime(withIncident=False) == world.ids("open", "resolved", "both", "clean")
    assert runtime(incidentId=world.incidents["open"]) == world.ids("open")
    assert runtime(incidentId=world.incidents["both-open"]) == world.ids("both")
    # a resolved incident is no longer a runtime incident
    assert runtime(incidentId=world.incidents["resolved"]) == set()
    assert runtime(incidentType=EXTERNAL) == world.ids("open", "both")
    assert runtime(incidentType="failedJob") == set()
    assert runtime(incidentMessage=CLOSED) == world.ids("open", "both")
    assert runtime(incidentMessage=JAMMED) == set()
    assert runtime(incidentMessageLike="%closed") == world.ids("open", "both")
    assert runtime(incidentMessageLike="%jam%") == set()
    assert runtime(incidentId=world.incidents["open"], incidentMessage=CLOSED) == world.ids("open")
    # the filters are on one incident: this one has another message
    assert runtime(incidentId=world.incidents["open"], incidentMessage="other") == set()
    assert runtime(withIncident=True, businessKey="clean") == set()


def test_executions_by_their_open_incidents(rest: LiveServer, world: World) -> None:
    opened = rest.client.get(f"/incident/{world.incidents['open']}").json()
    execution = {opened["executionId"]}
    assert found(rest, "/execution", {"incidentId": world.incidents["open"]}) == execution
    mine = {"processInstanceId": world.instances["open"]}
    assert found(rest, "/execution", {**mine, "incidentType": EXTERNAL}) == execution
    assert found(rest, "/execution", {**mine, "incidentMessage": CLOSED}) == execution
    assert found(rest, "/execution", {**mine, "incidentMessageLike": "ledger%"}) == execution
    assert found(rest, "/execution", {**mine, "incidentMessage": JAMMED}) == set()
    resolved = {"processInstanceId": world.instances["resolved"]}
    assert found(rest, "/execution", {**resolved, "incidentType": EXTERNAL}) == set()


def test_historic_instances_by_their_incidents(rest: LiveServer, world: World) -> None:
    def history(**params: Any) -> set[str]:
        return instances(rest, "/history/process-instance", **params)

    assert history() == world.ids("open", "resolved", "both", "clean")
    assert history(withIncidents=True) == world.ids("open", "resolved", "both")
    assert history(withIncidents=False) == world.ids("open", "resolved", "both", "clean")
    # an external task's incident is its own root cause
    assert history(withRootIncidents=True) == world.ids("open", "resolved", "both")
    assert history(incidentStatus="open") == world.ids("open", "both")
    assert history(incidentStatus="resolved") == world.ids("resolved", "both")
    assert history(incidentType=EXTERNAL) == world.ids("open", "resolved", "both")
    assert history(incidentType="failedJob") == set()
    assert history(incidentMessage=JAMMED) == world.ids("resolved", "both")
    assert history(incidentMessageLike="%closed") == world.ids("open", "both")
    assert history(incidentMessageLike="ledger\\_%") == set()  # `_` escaped: a real underscore
    assert history(incidentType=EXTERNAL, incidentStatus="open") == world.ids("open", "both")
    # All on one incident: `both` has a jammed incident and an open one, not an open jammed one.
    assert history(incidentMessage=JAMMED, incidentStatus="open") == set()
    assert history(incidentMessage=JAMMED, incidentStatus="resolved") == world.ids(
        "resolved", "both"
    )
    assert history(incidentMessage=CLOSED, incidentStatus="resolved") == set()
    assert (
        history(withIncidents=True, incidentStatus="open", processInstanceBusinessKey="resolved")
        == set()
    )


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("path", ["/history/process-instance", "/history/process-instance/count"])
def test_an_unknown_incident_status_is_a_400_naming_it(
    rest: LiveServer, method: str, path: str
) -> None:
    query = {"incidentStatus": "closed"}
    answer = rest.client.request(
        method,
        path,
        params=query if method == "GET" else None,
        json=query if method == "POST" else None,
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["type"] == "InvalidRequestException"
    assert "'incidentStatus'" in answer.json()["message"]
    assert "closed" in answer.json()["message"]


def _camunda_date(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}+0000"


def test_historic_instances_by_their_executed_jobs(rest: LiveServer, world: World) -> None:
    rest.deploy(bpmn("rest_async_script_then_timer.bpmn"), name="incident-filters-jobs")
    started = rest.client.post("/process-definition/key/restJobs/start", json={})
    assert started.status_code == 200, started.text
    instance_id = started.json()["id"]
    (created,) = rest.client.get(
        "/history/job-log", params={"processInstanceId": instance_id}
    ).json()
    logged = datetime.strptime(created["timestamp"], "%Y-%m-%dT%H:%M:%S.%f%z")
    at, later = _camunda_date(logged), _camunda_date(logged + timedelta(milliseconds=1))

    def history(**params: str) -> set[str]:
        return found(rest, "/history/process-instance", params)

    # The external task instances have no job: never found by these filters.
    assert history(executedJobAfter=at) == {instance_id}
    assert history(executedJobBefore=at) == {instance_id}
    assert history(executedJobAfter=at, executedJobBefore=at) == {instance_id}
    assert history(executedJobAfter=later) == set()
    earlier = _camunda_date(logged - timedelta(milliseconds=1))
    assert history(executedJobBefore=earlier) == set()
    assert instance_id not in history(incidentStatus="open")
