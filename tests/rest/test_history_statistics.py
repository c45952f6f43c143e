"""A definition's history per activity, as the cockpit's heat map reads it: Camunda's
`GET /history/process-definition/{id}/statistics` (running, finished, canceled, scope-completing
instances, open / resolved / deleted incidents; sorting; instance filters) and the extension
`GET /flowledger/v1/process-definition/{id}/activity-durations`.

The data set, five instances of rest_history_statistics.bpmn (review -> external charge):
A waits at review; B's charge failed (open incident); C's charge failed, was retried and
completed (resolved incident); D was deleted at review; E was deleted with its charge failed
(deleted incident)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import httpx
import pytest

from flowledger.rest.paths import BASE_PATH, EXTENSIONS_PATH
from tests.support import BPMN_DIR

from .server import LiveServer

MODEL = BPMN_DIR / "rest_history_statistics.bpmn"
TOPIC = "statsCharge"
ZERO = {
    "instances": 0,
    "canceled": 0,
    "finished": 0,
    "completeScope": 0,
    "openIncidents": 0,
    "resolvedIncidents": 0,
    "deletedIncidents": 0,
}


class DataSet(NamedTuple):
    definition_id: str
    instances: dict[str, str]  # A..E -> instance id


def _start(rest: LiveServer, key: str) -> tuple[str, str]:
    started = rest.client.post(f"/process-definition/key/{key}/start", json={}).json()
    (task,) = rest.client.get("/task", params={"processInstanceId": started["id"]}).json()
    return str(started["id"]), str(task["id"])


def _failed_charge(rest: LiveServer, task_id: str) -> str:
    """Complete the review, fetch the charge and fail it for good: an open incident."""
    assert rest.client.post(f"/task/{task_id}/complete", json={}).status_code == 204
    response = rest.client.post(
        "/external-task/fetchAndLock",
        json={
            "workerId": "stats",
            "maxTasks": 1,
            "topics": [{"topicName": TOPIC, "lockDuration": 60_000}],
        },
    )
    (charge,) = response.json()
    failure = {"workerId": "stats", "errorMessage": "declined", "retries": 0, "retryTimeout": 0}
    failed = rest.client.post(f"/external-task/{charge['id']}/failure", json=failure)
    assert failed.status_code == 204
    return str(charge["id"])


@pytest.fixture(scope="module")
def data(rest: LiveServer) -> DataSet:
    deployment = rest.deploy(MODEL, name="statistics")
    (definition,) = deployment["deployedProcessDefinitions"].values()
    key = definition["key"]
    ids: dict[str, str] = {}
    ids["A"], _ = _start(rest, key)
    ids["B"], task = _start(rest, key)
    _failed_charge(rest, task)
    ids["C"], task = _start(rest, key)
    charge = _failed_charge(rest, task)
    assert (
        rest.client.put(f"/external-task/{charge}/retries", json={"retries": 1}).status_code == 204
    )
    rest.client.post(
        "/external-task/fetchAndLock",
        json={
            "workerId": "stats",
            "maxTasks": 1,
            "topics": [{"topicName": TOPIC, "lockDuration": 1000}],
        },
    )
    done = rest.client.post(f"/external-task/{charge}/complete", json={"workerId": "stats"})
    assert done.status_code == 204, done.text
    ids["D"], _ = _start(rest, key)
    assert rest.client.delete(f"/process-instance/{ids['D']}").status_code == 204
    ids["E"], task = _start(rest, key)
    _failed_charge(rest, task)
    assert rest.client.delete(f"/process-instance/{ids['E']}").status_code == 204
    return DataSet(str(definition["id"]), ids)


def _statistics(rest: LiveServer, data: DataSet, **params: Any) -> dict[str, dict[str, int]]:
    response = rest.client.get(
        f"/history/process-definition/{data.definition_id}/statistics", params=params
    )
    assert response.status_code == 200, response.text
    return {row.pop("id"): row for row in response.json()}


def test_by_default_only_running_activity_instances_count(rest: LiveServer, data: DataSet) -> None:
    # B's charge runs (with its incident); A waits at review. Finished activities are left out.
    assert _statistics(rest, data) == {
        "charge": {**ZERO, "instances": 1},
        "review": {**ZERO, "instances": 1},
    }


def test_finished_canceled_and_scope_completing_instances_are_counted_when_asked(
    rest: LiveServer, data: DataSet
) -> None:
    stats = _statistics(rest, data, finished="true", canceled="true", completeScope="true")
    assert stats["start"] == {**ZERO, "finished": 5}
    # review: A runs; B, C, E completed it and D's was canceled
    assert stats["review"] == {**ZERO, "instances": 1, "finished": 4, "canceled": 1}
    # charge: B's runs; C's completed, E's was canceled
    assert stats["charge"] == {**ZERO, "instances": 1, "finished": 2, "canceled": 1}
    assert stats["done"] == {**ZERO, "finished": 1, "completeScope": 1}


def test_canceled_without_finished_adds_the_canceled_ones_only(
    rest: LiveServer, data: DataSet
) -> None:
    stats = _statistics(rest, data, canceled="true")
    assert stats == {
        "charge": {**ZERO, "instances": 1, "canceled": 1},
        "review": {**ZERO, "instances": 1, "canceled": 1},
    }


def test_incidents_are_counted_by_state(rest: LiveServer, data: DataSet) -> None:
    stats = _statistics(rest, data, incidents="true")
    assert stats["charge"] == {
        **ZERO,
        "instances": 1,
        "openIncidents": 1,
        "resolvedIncidents": 1,
        "deletedIncidents": 1,
    }


def test_sorting_and_instance_filters(rest: LiveServer, data: DataSet) -> None:
    response = rest.client.get(
        f"/history/process-definition/{data.definition_id}/statistics",
        params={"finished": "true", "sortBy": "activityId", "sortOrder": "desc"},
    )
    assert [row["id"] for row in response.json()] == ["start", "review", "done", "charge"]
    only_a = _statistics(rest, data, finished="true", processInstanceIdIn=data.instances["A"])
    assert only_a == {"review": {**ZERO, "instances": 1}, "start": {**ZERO, "finished": 1}}
    later = _statistics(rest, data, startedAfter="2999-01-01T00:00:00.000+0000")
    assert later == {}
    bad = rest.client.get(
        f"/history/process-definition/{data.definition_id}/statistics",
        params={"sortBy": "instances", "sortOrder": "asc"},
    )
    assert bad.status_code == 400
    assert "sortBy" in bad.json()["message"]


def test_an_unknown_definition_has_no_statistics(rest: LiveServer) -> None:
    response = rest.client.get("/history/process-definition/nope/statistics")
    assert (response.status_code, response.json()) == (200, [])


@pytest.fixture(scope="module")
def ext(rest: LiveServer) -> Iterator[httpx.Client]:
    base = rest.url.removesuffix(BASE_PATH) + EXTENSIONS_PATH
    with httpx.Client(base_url=base, timeout=60) as client:
        yield client


def test_activity_durations_count_every_run_and_time_the_finished_ones(
    data: DataSet, ext: httpx.Client
) -> None:
    response = ext.get(f"/process-definition/{data.definition_id}/activity-durations")
    assert response.status_code == 200, response.text
    rows = {row["activityId"]: row for row in response.json()}
    assert list(rows) == ["charge", "done", "review", "start"]
    review = rows["review"]
    assert (review["count"], review["finished"]) == (5, 4)
    assert 0 <= review["minMillis"] <= review["avgMillis"] <= review["maxMillis"]
    assert (rows["done"]["count"], rows["done"]["finished"]) == (1, 1)
    missing = ext.get("/process-definition/nope/activity-durations")
    assert missing.status_code == 404
    assert missing.json()["message"] == "No matching definition with id nope"
