"""`POST /history/cleanup`: the history of instances past their removal time is removed within
the request, answered with a JobDto of that finished run."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from flowledger import ControllableClock, Engine
from tests.support import fresh_database, selected_kind

from .server import LiveServer, live_server

MODEL = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="shortLived" isExecutable="true" camunda:historyTimeToLive="1">
    <bpmn:startEvent id="s" /><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>"""


@pytest.fixture(scope="module")
def clock() -> ControllableClock:
    return ControllableClock(datetime(2026, 12, 4, 9, 0, tzinfo=UTC))


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, clock: ControllableClock
) -> Iterator[LiveServer]:
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("cleanup")) as url,
        Engine(url, clock=clock) as engine,
        live_server(engine) as live,
    ):
        yield live


def test_cleanup_removes_expired_history(
    server: LiveServer, clock: ControllableClock, tmp_path: Path
) -> None:
    model = tmp_path / "short.bpmn"
    model.write_bytes(MODEL)
    server.deploy(model)
    started = server.client.post("/process-definition/key/shortLived/start", json={})
    assert started.status_code == 200, started.text
    instance_id = started.json()["id"]
    found = server.client.get(
        "/history/process-instance", params={"processInstanceId": instance_id}
    )
    assert found.json()[0]["removalTime"] is not None

    clock.advance(days=2)
    answer = server.client.post("/history/cleanup", params={"immediatelyDue": "true"})

    assert answer.status_code == 200, answer.text
    job = answer.json()
    assert job["id"] == "history-cleanup" and job["suspended"] is False
    found = server.client.get(
        "/history/process-instance", params={"processInstanceId": instance_id}
    )
    assert found.json() == []
