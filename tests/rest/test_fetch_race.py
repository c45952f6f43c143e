"""`fetchAndLock` from two server processes on one database: a lost race is answered with the
tasks this node could lock (perhaps none), never a 500, and no task is locked twice."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import fresh_database, selected_kind

from .served import Served, serving

INSTANCES = 60
WORKERS_PER_NODE = 3


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    with fresh_database(selected_kind(), tmp_path) as database:
        yield database


def fetch_until_done(node: Served, worker: str, answers: list[int], locked: list[str]) -> None:
    """Fetch (two at a time) until a fetch comes back empty twice in a row; bounded."""
    empty = 0
    for _ in range(INSTANCES * 4):
        response = node.client.post(
            "/external-task/fetchAndLock",
            json={
                "workerId": worker,
                "maxTasks": 2,
                "topics": [{"topicName": "invoice", "lockDuration": 600_000}],
            },
        )
        answers.append(response.status_code)
        if response.status_code != 200:
            continue
        tasks = [task["id"] for task in response.json()]
        locked.extend(tasks)
        empty = 0 if tasks else empty + 1
        if empty == 2:
            return


def test_two_nodes_fetch_without_500_and_without_locking_a_task_twice(
    url: str, tmp_path: Path
) -> None:
    with (
        serving(url, tmp_path, history_mode="inline", deploy="external_task.bpmn") as one,
        serving(url, tmp_path, history_mode="inline", deploy="external_task.bpmn") as two,
    ):
        for i in range(INSTANCES):
            started = one.client.post(
                "/process-definition/key/externalInvoice/start",
                json={"variables": {"priority": {"value": i % 3}}},
            )
            assert started.status_code == 200, started.text
        answers: list[int] = []
        locked: list[str] = []
        threads = [
            threading.Thread(target=fetch_until_done, args=(node, f"{name}-{i}", answers, locked))
            for name, node in (("one", one), ("two", two))
            for i in range(WORKERS_PER_NODE)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert not any(thread.is_alive() for thread in threads)

        assert set(answers) == {200}, sorted(set(answers))
        assert len(locked) == len(set(locked)), "a task was locked twice"
        listed = one.client.get("/external-task", params={"locked": "true"}).json()
        assert sorted(locked) == sorted(task["id"] for task in listed)
        assert len(locked) == INSTANCES
