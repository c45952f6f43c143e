"""The cockpit's dashboard, `GET /flowledger/v1/dashboard`: per definition its running instances,
open incidents and open tasks (the latest version of every key, and an older version while it
still has running instances), and the incidents of the last hour."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from flowledger.rest.paths import BASE_PATH, EXTENSIONS_PATH
from tests.support import BPMN_DIR

from .server import LiveServer

MODEL = BPMN_DIR / "rest_history_statistics.bpmn"
KEY = "restHistoryStatistics"
TOPIC = "statsCharge"


@pytest.fixture(scope="module")
def ext(rest: LiveServer) -> Iterator[httpx.Client]:
    base = rest.url.removesuffix(BASE_PATH) + EXTENSIONS_PATH
    with httpx.Client(base_url=base, timeout=60) as client:
        yield client


def _deploy(rest: LiveServer, marker: str) -> str:
    # A changed resource, so that the same key gets a new version.
    text = MODEL.read_text().replace('name="History statistics"', f'name="Dashboard {marker}"')
    response = rest.client.post(
        "/deployment/create",
        data={"deployment-name": f"dashboard-{marker}"},
        files=[("model", ("dashboard.bpmn", text.encode(), "text/xml"))],
    )
    assert response.status_code == 200, response.text
    (definition,) = response.json()["deployedProcessDefinitions"].values()
    return str(definition["id"])


def _start(rest: LiveServer, definition_id: str) -> str:
    started = rest.client.post(f"/process-definition/{definition_id}/start", json={}).json()
    return str(started["id"])


def _fail_charge(rest: LiveServer, instance_id: str) -> None:
    (task,) = rest.client.get("/task", params={"processInstanceId": instance_id}).json()
    assert rest.client.post(f"/task/{task['id']}/complete", json={}).status_code == 204
    fetched = rest.client.post(
        "/external-task/fetchAndLock",
        json={
            "workerId": "dash",
            "maxTasks": 1,
            "topics": [{"topicName": TOPIC, "lockDuration": 60_000}],
        },
    ).json()
    (charge,) = fetched
    failure = {"workerId": "dash", "errorMessage": "card declined", "retries": 0}
    assert (
        rest.client.post(f"/external-task/{charge['id']}/failure", json=failure).status_code == 204
    )


def _definitions(ext: httpx.Client) -> dict[str, dict[str, Any]]:
    response = ext.get("/dashboard")
    assert response.status_code == 200, response.text
    return {d["id"]: d for d in response.json()["definitions"]}


def test_the_dashboard_counts_per_definition_version(rest: LiveServer, ext: httpx.Client) -> None:
    old = _deploy(rest, "one")
    waiting = _start(rest, old)
    failing = _start(rest, old)
    _fail_charge(rest, failing)
    newest = _deploy(rest, "two")
    unused = _deploy(rest, "three")
    shown = _definitions(ext)
    assert shown[old]["runningInstances"] == 2
    assert shown[old]["openIncidents"] == 1
    assert shown[old]["openTasks"] == 1  # the failing one left its review
    assert newest not in shown  # neither latest nor busy
    assert shown[unused] == {
        "id": unused,
        "key": KEY,
        "name": "Dashboard three",
        "version": shown[unused]["version"],
        "runningInstances": 0,
        "openIncidents": 0,
        "openTasks": 0,
    }
    assert rest.client.delete(f"/process-instance/{waiting}").status_code == 204
    assert rest.client.delete(f"/process-instance/{failing}").status_code == 204
    assert old not in _definitions(ext)  # an older version without instances drops out


def test_the_incidents_of_the_last_hour_are_listed_newest_first(
    rest: LiveServer, ext: httpx.Client
) -> None:
    definition_id = _deploy(rest, "failures")
    instance_id = _start(rest, definition_id)
    _fail_charge(rest, instance_id)
    failures = ext.get("/dashboard").json()["failedLastHour"]
    newest = failures[0]
    assert {k: v for k, v in newest.items() if k != "time"} == {
        "processInstanceId": instance_id,
        "processDefinitionId": definition_id,
        "activityId": "charge",
        "incidentType": "failedExternalTask",
        "message": "card declined",
    }
    assert newest["time"] >= failures[-1]["time"]
