"""The external-task resource: fetch and lock with its filters and long polling, the worker's
reports (complete, failure, BPMN error, extendLock, unlock), retries, priority, error details,
and the task query.

Every test works on its own topic (the model's topic is `${topic}`), so tests sharing the
module's server never fetch each other's tasks.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pycamunda.externaltask
import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.engine.services.external_tasks import ExternalTaskService
from flowledger.engine.storage.database import is_memory_url
from flowledger.eventlog.tables import command_log
from tests.support import bpmn

from .server import LiveServer, live_server

WORKER_MODEL = bpmn("rest_ext_worker.bpmn")
LOCKED_TASK_FIELDS = {
    "activityId",
    "activityInstanceId",
    "errorMessage",
    "errorDetails",
    "executionId",
    "id",
    "lockExpirationTime",
    "processDefinitionId",
    "processDefinitionKey",
    "processDefinitionVersionTag",
    "processInstanceId",
    "tenantId",
    "retries",
    "suspended",
    "workerId",
    "priority",
    "topicName",
    "businessKey",
    "variables",
}
TASK_FIELDS = LOCKED_TASK_FIELDS - {"errorDetails", "variables"}
UNKNOWN = "00000000-0000-0000-0000-000000000000"


@pytest.fixture(scope="module", autouse=True)
def deployed(rest: LiveServer) -> None:
    rest.engine.deploy(WORKER_MODEL, name="rest-ext")
    # The same model under another key and version tag, for the definition filters.
    other = (
        WORKER_MODEL.read_text()
        .replace('id="restExtWorker"', 'id="restExtOther"')
        .replace('camunda:versionTag="v1"', 'camunda:versionTag="v2"')
    )
    rest.engine.deploy(other, name="rest-ext-other")


@pytest.fixture
def topic() -> str:
    return f"topic-{uuid.uuid4().hex[:12]}"


def start(
    rest: LiveServer,
    topic: str,
    *,
    business_key: str | None = None,
    key: str = "restExtWorker",
    **variables: Any,
) -> str:
    """Start an instance waiting in its external task on `topic`; the external task's id."""
    instance = rest.engine.start_process_instance(
        key, {"topic": topic, **variables}, business_key=business_key
    )
    (task,) = rest.engine.external_task_service.external_tasks(process_instance_id=instance.id)
    return task.id


def fetch(
    rest: LiveServer,
    worker: str,
    topic: str,
    *,
    max_tasks: int = 1,
    topic_fields: dict[str, Any] | None = None,
    **body: Any,
) -> httpx.Response:
    """fetchAndLock of one topic; `topic_fields` go into the topic, `body` into the request."""
    topic_body = {"topicName": topic, "lockDuration": 60_000, **(topic_fields or {})}
    return rest.client.post(
        "/external-task/fetchAndLock",
        json={"workerId": worker, "maxTasks": max_tasks, "topics": [topic_body], **body},
    )


def locked(rest: LiveServer, worker: str, topic: str) -> dict[str, Any]:
    """Fetch exactly one task of `topic` for `worker`."""
    response = fetch(rest, worker, topic)
    assert response.status_code == 200, response.text
    (task,) = response.json()
    result: dict[str, Any] = task
    return result


def get_task(rest: LiveServer, task_id: str) -> dict[str, Any]:
    response = rest.client.get(f"/external-task/{task_id}")
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def open_user_tasks(rest: LiveServer, task_id: str, instance_id: str) -> list[str]:
    return sorted(t.name or "" for t in rest.engine.tasks(process_instance_id=instance_id))


def command_count(rest: LiveServer) -> int:
    with rest.engine.reading() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(command_log)).scalar_one())


class Background:
    """A request running in a thread while the test does something else."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.response: Any = None
        self.error: BaseException | None = None
        self.seconds = 0.0
        self._thread = threading.Thread(target=self._run, args=(call,), daemon=True)
        self._thread.start()

    def _run(self, call: Callable[[], Any]) -> None:
        started = time.monotonic()
        try:
            self.response = call()
        except BaseException as exc:
            self.error = exc
        self.seconds = time.monotonic() - started

    def result(self) -> Any:
        self._thread.join(40)
        if self.error is not None:
            raise self.error
        assert self.response is not None, "the request did not finish"
        return self.response


def long_poll(rest: LiveServer, worker: str, topic: str, timeout_ms: int) -> Background:
    def call() -> httpx.Response:
        with httpx.Client(base_url=rest.url, timeout=timeout_ms / 1000 + 10) as client:
            return client.post(
                "/external-task/fetchAndLock",
                json={
                    "workerId": worker,
                    "maxTasks": 1,
                    "asyncResponseTimeout": timeout_ms,
                    "topics": [{"topicName": topic, "lockDuration": 60_000}],
                },
            )

    poll = Background(call)
    time.sleep(0.5)  # let the request reach the server and start waiting
    return poll


# -- fetch and lock ------------------------------------------------------------------------------


def test_fetch_and_lock_answers_camundas_locked_task(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic, business_key="order-1", amount=5, note="rush")
    response = fetch(rest, "worker-1", topic)
    assert response.status_code == 200
    (task,) = response.json()
    assert set(task) == LOCKED_TASK_FIELDS
    assert task["id"] == task_id
    assert task["workerId"] == "worker-1"
    assert task["topicName"] == topic
    assert task["activityId"] == "work"
    assert task["businessKey"] == "order-1"
    assert task["processDefinitionKey"] == "restExtWorker"
    assert task["processDefinitionVersionTag"] == "v1"
    assert task["retries"] is None
    assert task["errorMessage"] is None
    assert task["errorDetails"] is None
    assert task["suspended"] is False
    assert task["tenantId"] is None
    assert task["lockExpirationTime"].endswith("+0000")
    assert task["variables"]["amount"] == {"value": 5, "type": "Integer", "valueInfo": {}}
    assert task["variables"]["note"]["value"] == "rush"
    assert get_task(rest, task_id)["workerId"] == "worker-1"


def test_a_locked_task_is_not_fetched_again(rest: LiveServer, topic: str) -> None:
    start(rest, topic)
    locked(rest, "worker-1", topic)
    response = fetch(rest, "worker-2", topic)
    assert response.status_code == 200
    assert response.json() == []


def test_variables_list_restricts_the_variables_returned(rest: LiveServer, topic: str) -> None:
    start(rest, topic, amount=5, note="rush")
    start(rest, topic, amount=6, note="calm")
    (only_amount,) = fetch(rest, "w", topic, topic_fields={"variables": ["amount"]}).json()
    assert set(only_amount["variables"]) == {"amount"}
    (none,) = fetch(rest, "w", topic, topic_fields={"variables": []}).json()
    assert none["variables"] == {}


def test_fetch_tolerates_the_clients_nulls_and_extra_fields(rest: LiveServer, topic: str) -> None:
    start(rest, topic)
    start(rest, topic)
    # camunda-external-task-client-python3, as recorded
    ext = {
        "workerId": "ext",
        "maxTasks": 1,
        "topics": [
            {
                "topicName": topic,
                "lockDuration": 10000,
                "processVariables": {},
                "includeExtensionProperties": True,
                "deserializeValues": True,
                "variables": None,
            }
        ],
        "asyncResponseTimeout": 0,
        "usePriority": False,
        "sorting": None,
    }
    # camunda-client
    cc = {
        "workerId": "cc",
        "maxTasks": 1,
        "asyncResponseTimeout": 0,
        "topics": [
            {
                "topicName": topic,
                "lockDuration": 60000,
                "variables": None,
                "localVariables": None,
                "businessKey": None,
                "processVariables": None,
            }
        ],
    }
    for body in (ext, cc):
        response = rest.client.post("/external-task/fetchAndLock", json=body)
        assert response.status_code == 200, response.text
        assert [t["workerId"] for t in response.json()] == [body["workerId"]]


def test_business_key_filter_locks_only_matching_tasks(rest: LiveServer, topic: str) -> None:
    other = start(rest, topic, business_key="other")
    mine = start(rest, topic, business_key="mine")
    response = fetch(rest, "w", topic, topic_fields={"businessKey": "mine"})
    assert [t["id"] for t in response.json()] == [mine]
    # The older task of another business key stays fetchable for everyone else.
    skipped = get_task(rest, other)
    assert skipped["workerId"] is None
    assert skipped["lockExpirationTime"] is None
    assert fetch(rest, "w", topic, topic_fields={"businessKey": "nobody"}).json() == []


def test_definition_and_variable_filters(rest: LiveServer, topic: str) -> None:
    plain = start(rest, topic, region="north")
    other_key = start(rest, topic, key="restExtOther", region="south")
    by_key = fetch(rest, "w", topic, topic_fields={"processDefinitionKeyIn": ["restExtOther"]})
    assert [t["id"] for t in by_key.json()] == [other_key]
    rest.client.post(f"/external-task/{other_key}/unlock")
    by_tag = fetch(rest, "w", topic, topic_fields={"processDefinitionVersionTag": "v2"})
    assert [t["id"] for t in by_tag.json()] == [other_key]
    by_variable = fetch(rest, "w", topic, topic_fields={"processVariables": {"region": "north"}})
    assert [t["id"] for t in by_variable.json()] == [plain]


def test_use_priority_fetches_the_highest_priority_first(rest: LiveServer, topic: str) -> None:
    start(rest, topic)
    urgent = start(rest, topic)
    assert (
        rest.client.put(f"/external-task/{urgent}/priority", json={"priority": 10}).status_code
        == 204
    )
    response = fetch(rest, "w", topic, usePriority=True)
    assert [t["id"] for t in response.json()] == [urgent]
    assert response.json()[0]["priority"] == 10


def test_max_tasks_limits_the_answer(rest: LiveServer, topic: str) -> None:
    for _ in range(3):
        start(rest, topic)
    assert len(fetch(rest, "w", topic, max_tasks=2).json()) == 2
    assert len(fetch(rest, "w", topic, max_tasks=5).json()) == 1
    assert fetch(rest, "w", topic, max_tasks=0).json() == []


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"maxTasks": 1, "topics": []}, "workerId"),
        ({"workerId": "w", "topics": []}, "maxTasks"),
        ({"workerId": "w", "maxTasks": -1, "topics": []}, "maxTasks"),
        ({"workerId": "w", "maxTasks": 1, "topics": [{"topicName": "t"}]}, "lockDuration"),
        ({"workerId": "w", "maxTasks": 1, "topics": [{"lockDuration": 1000}]}, "topicName"),
        (
            {"workerId": "w", "maxTasks": 1, "asyncResponseTimeout": 1_800_001, "topics": []},
            "asynchronous response timeout",
        ),
        (
            {
                "workerId": "w",
                "maxTasks": 1,
                "topics": [
                    {"topicName": "t", "lockDuration": 1000, "processVariables": {"a": [1]}}
                ],
            },
            "processVariables",
        ),
        ({"workerId": "w", "maxTasks": "many", "topics": []}, "maxTasks"),
        ({"workerId": "w", "maxTasks": 1, "asyncResponseTimeout": -1, "topics": []}, "-1"),
    ],
)
def test_invalid_fetch_is_a_400_naming_the_parameter(
    rest: LiveServer, body: dict[str, Any], named: str
) -> None:
    response = rest.client.post("/external-task/fetchAndLock", json=body)
    assert response.status_code == 400
    assert response.json()["type"] == "InvalidRequestException"
    assert named in response.json()["message"]


def test_an_empty_fetch_writes_nothing(rest: LiveServer, topic: str) -> None:
    before = command_count(rest)
    assert fetch(rest, "w", topic).json() == []
    # A long poll that finds nothing re-checks several times, and still writes nothing.
    response = fetch(rest, "w", topic, asyncResponseTimeout=1500)
    assert response.status_code == 200
    assert response.json() == []
    assert command_count(rest) == before


# -- long polling --------------------------------------------------------------------------------


def test_long_poll_that_times_out_answers_an_empty_list(rest: LiveServer, topic: str) -> None:
    response = fetch(rest, "w", topic, asyncResponseTimeout=800)
    assert response.status_code == 200
    assert response.json() == []


def test_long_poll_is_answered_when_a_rest_call_frees_a_task(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    locked(rest, "first", topic)
    poll = long_poll(rest, "second", topic, timeout_ms=20_000)
    assert rest.client.post(f"/external-task/{task_id}/unlock").status_code == 204
    response = poll.result()
    assert response.status_code == 200
    assert [(t["id"], t["workerId"]) for t in response.json()] == [(task_id, "second")]
    assert poll.seconds < 10  # well before the 20 s timeout


def test_long_poll_is_answered_when_this_engine_creates_a_task(
    rest: LiveServer, topic: str
) -> None:
    poll = long_poll(rest, "w", topic, timeout_ms=20_000)
    task_id = start(rest, topic)
    response = poll.result()
    assert [t["id"] for t in response.json()] == [task_id]
    assert poll.seconds < 10


@pytest.fixture
def other_engine(rest: LiveServer) -> Iterator[Engine]:
    """Another Engine on the server's database, as another process would open it."""
    if is_memory_url(rest.engine.url):
        pytest.skip("an in-memory database cannot be shared with another engine")
    with Engine(rest.engine.url) as engine:
        yield engine


def test_long_poll_is_answered_when_another_engine_creates_a_task(
    rest: LiveServer, other_engine: Engine, topic: str
) -> None:
    poll = long_poll(rest, "w", topic, timeout_ms=20_000)
    instance = other_engine.start_process_instance("restExtWorker", {"topic": topic})
    response = poll.result()
    assert response.status_code == 200
    (task,) = response.json()
    assert task["processInstanceId"] == instance.id
    assert poll.seconds < 10


def test_a_client_that_leaves_a_long_poll_gets_nothing_locked(rest: LiveServer, topic: str) -> None:
    def leave_early() -> httpx.Response:
        with httpx.Client(base_url=rest.url, timeout=0.5) as client:
            return client.post(
                "/external-task/fetchAndLock",
                json={
                    "workerId": "gone",
                    "maxTasks": 1,
                    "asyncResponseTimeout": 20_000,
                    "topics": [{"topicName": topic, "lockDuration": 60_000}],
                },
            )

    poll = Background(leave_early)
    with pytest.raises(httpx.ReadTimeout):
        poll.result()
    time.sleep(0.5)  # the server notices the closed connection
    task_id = start(rest, topic)
    time.sleep(1.0)  # a waiter still there would have locked it by now
    assert get_task(rest, task_id)["workerId"] is None


def test_stopping_server_answers_its_long_polls_empty(rest: LiveServer, topic: str) -> None:
    with live_server(rest.engine) as stopping:
        poll = long_poll(stopping, "w", topic, timeout_ms=20_000)
    response = poll.result()
    assert response.status_code == 200
    assert response.json() == []
    task_id = start(rest, topic)
    assert get_task(rest, task_id)["workerId"] is None


# -- the worker's reports ------------------------------------------------------------------------


def test_a_task_deleted_by_another_node_while_it_was_locked_is_left_out(
    rest: LiveServer, topic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another node deletes the instance between this node's lock and its reading the task's
    error details: Camunda skips the task; the answer holds the others, never a 404."""
    doomed = start(rest, topic)
    kept = start(rest, topic)
    # a failure report gives both error details, which the answer reads after the lock
    for task_id in (doomed, kept):
        locked_now = rest.engine.external_task_service.fetch_and_lock(
            "w", {topic: 60_000}, task_ids=[task_id]
        )
        assert [t.id for t in locked_now] == [task_id]
        rest.engine.external_task_service.handle_failure(
            task_id, "w", "boom", error_details="trace", retries=1, retry_timeout=0
        )
    doomed_instance = instance_of(rest, doomed)
    real = ExternalTaskService.error_details

    def deleted_meanwhile(service: ExternalTaskService, task_id: str) -> str | None:
        if task_id == doomed:
            rest.engine.runtime_service.delete_process_instance(doomed_instance, "by another node")
        return real(service, task_id)

    monkeypatch.setattr(ExternalTaskService, "error_details", deleted_meanwhile)

    response = fetch(rest, "w", topic, max_tasks=5)

    assert response.status_code == 200, response.text
    assert [task["id"] for task in response.json()] == [kept]


def instance_of(rest: LiveServer, task_id: str) -> str:
    return str(get_task(rest, task_id)["processInstanceId"])


def test_complete_continues_the_process_with_the_variables(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    instance_id = instance_of(rest, task_id)
    locked(rest, "w", topic)
    response = rest.client.post(
        f"/external-task/{task_id}/complete",
        json={"workerId": "w", "variables": {"charged": {"value": True}}},
    )
    assert response.status_code == 204
    assert response.content == b""
    assert open_user_tasks(rest, task_id, instance_id) == ["After work"]
    assert rest.engine.runtime_service.get_variables(instance_id)["charged"] is True
    assert rest.client.get(f"/external-task/{task_id}").status_code == 404


def test_complete_by_another_worker_is_refused(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    locked(rest, "w", topic)
    response = rest.client.post(f"/external-task/{task_id}/complete", json={"workerId": "x"})
    assert response.status_code == 400
    assert response.json()["type"] == "BadUserRequestException"
    assert get_task(rest, task_id)["workerId"] == "w"


def test_complete_needs_a_worker_id(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    response = rest.client.post(f"/external-task/{task_id}/complete", json={})
    assert response.status_code == 400
    assert "workerId" in response.json()["message"]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "complete", {"workerId": "w"}),
        ("POST", "failure", {"workerId": "w", "retries": 1}),
        ("POST", "bpmnError", {"workerId": "w", "errorCode": "REJECTED"}),
        ("POST", "extendLock", {"workerId": "w", "newDuration": 1000}),
        ("POST", "unlock", None),
        ("PUT", "retries", {"retries": 1}),
        ("PUT", "priority", {"priority": 1}),
        ("GET", "errorDetails", None),
    ],
)
def test_unknown_task_is_a_404(
    rest: LiveServer, method: str, path: str, body: dict[str, Any] | None
) -> None:
    response = rest.client.request(method, f"/external-task/{UNKNOWN}/{path}", json=body)
    assert response.status_code == 404
    assert response.json()["type"] == "InvalidRequestException"
    assert UNKNOWN in response.json()["message"]


def test_failure_with_retries_makes_the_task_fetchable_again(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    locked(rest, "w", topic)
    response = rest.client.post(
        f"/external-task/{task_id}/failure",
        json={
            "workerId": "w",
            "errorMessage": "card declined",
            "errorDetails": "Traceback: ...",
            "retries": 2,
            "retryTimeout": 0,
        },
    )
    assert response.status_code == 204
    task = get_task(rest, task_id)
    assert (task["retries"], task["errorMessage"]) == (2, "card declined")
    again = locked(rest, "w", topic)
    assert (again["id"], again["retries"]) == (task_id, 2)
    assert again["errorDetails"] == "Traceback: ..."


def test_failure_sets_the_variables_it_carries(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    instance_id = instance_of(rest, task_id)
    locked(rest, "w", topic)
    response = rest.client.post(
        f"/external-task/{task_id}/failure",
        json={
            "workerId": "w",
            "errorMessage": "timeout",
            "retries": 1,
            "retryTimeout": 0,
            "variables": {"attempts": {"value": 1, "type": "Integer"}},
            "localVariables": {"lastError": {"value": "timeout"}},
        },
    )
    assert response.status_code == 204, response.text
    assert rest.engine.runtime_service.get_variables(instance_id)["attempts"] == 1
    again = locked(rest, "w", topic)
    assert again["variables"]["attempts"] == {"value": 1, "type": "Integer", "valueInfo": {}}
    assert again["variables"]["lastError"]["value"] == "timeout"


def test_failure_with_null_retries_means_no_retries_left(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    locked(rest, "w", topic)
    response = rest.client.post(
        f"/external-task/{task_id}/failure",
        json={"workerId": "w", "errorMessage": "boom", "retries": None, "retryTimeout": None},
    )
    assert response.status_code == 204
    assert get_task(rest, task_id)["retries"] == 0
    assert fetch(rest, "w", topic).json() == []


def test_failure_by_another_worker_is_refused(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    locked(rest, "w", topic)
    response = rest.client.post(
        f"/external-task/{task_id}/failure", json={"workerId": "x", "retries": 1}
    )
    assert response.status_code == 400
    negative = rest.client.post(
        f"/external-task/{task_id}/failure", json={"workerId": "w", "retries": -1}
    )
    assert negative.status_code == 400


def test_bpmn_error_takes_the_boundary_path(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    instance_id = instance_of(rest, task_id)
    locked(rest, "w", topic)
    response = rest.client.post(
        f"/external-task/{task_id}/bpmnError",
        json={
            "workerId": "w",
            "errorCode": "REJECTED",
            "errorMessage": "declined",
            "variables": {"reason": {"value": "card"}},
        },
    )
    assert response.status_code == 204
    assert open_user_tasks(rest, task_id, instance_id) == ["Fix it"]
    assert rest.engine.runtime_service.get_variables(instance_id)["reason"] == "card"


def test_bpmn_error_needs_an_error_code(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    locked(rest, "w", topic)
    response = rest.client.post(f"/external-task/{task_id}/bpmnError", json={"workerId": "w"})
    assert response.status_code == 400
    assert "errorCode" in response.json()["message"]


def test_extend_lock_moves_the_expiration(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    first = locked(rest, "w", topic)["lockExpirationTime"]
    response = rest.client.post(
        f"/external-task/{task_id}/extendLock", json={"workerId": "w", "newDuration": 3_600_000}
    )
    assert response.status_code == 204
    assert get_task(rest, task_id)["lockExpirationTime"] > first


def test_extend_lock_refuses_bad_input(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    locked(rest, "w", topic)
    path = f"/external-task/{task_id}/extendLock"
    assert rest.client.post(path, json={"workerId": "x", "newDuration": 1000}).status_code == 400
    missing = rest.client.post(path, json={"workerId": "w"})
    assert missing.status_code == 400
    assert "newDuration" in missing.json()["message"]
    assert rest.client.post(path, json={"workerId": "w", "newDuration": -5}).status_code == 400


def test_unlock_frees_the_task(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    locked(rest, "w", topic)
    assert rest.client.post(f"/external-task/{task_id}/unlock").status_code == 204
    task = get_task(rest, task_id)
    assert (task["workerId"], task["lockExpirationTime"]) == (None, None)
    assert locked(rest, "v", topic)["id"] == task_id


def test_set_retries_and_priority(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    assert (
        rest.client.put(f"/external-task/{task_id}/retries", json={"retries": 3}).status_code == 204
    )
    assert (
        rest.client.put(f"/external-task/{task_id}/priority", json={"priority": 7}).status_code
        == 204
    )
    task = get_task(rest, task_id)
    assert (task["retries"], task["priority"]) == (3, 7)
    assert (
        rest.client.put(f"/external-task/{task_id}/retries", json={"retries": 0}).status_code == 204
    )
    assert fetch(rest, "w", topic).json() == []


@pytest.mark.parametrize(
    ("path", "body", "named"),
    [
        ("retries", {"retries": -1}, "retries"),
        ("retries", {}, "retries"),
        ("priority", {"priority": None}, "priority"),
        ("priority", {"priority": "high"}, "priority"),
    ],
)
def test_retries_and_priority_refuse_bad_input(
    rest: LiveServer, topic: str, path: str, body: dict[str, Any], named: str
) -> None:
    task_id = start(rest, topic)
    response = rest.client.put(f"/external-task/{task_id}/{path}", json=body)
    assert response.status_code == 400
    assert named in response.json()["message"]


# -- reading -------------------------------------------------------------------------------------


def test_get_answers_camundas_external_task(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic, business_key="bk-7")
    task = get_task(rest, task_id)
    assert set(task) == TASK_FIELDS
    assert task["id"] == task_id
    assert (task["topicName"], task["businessKey"], task["priority"]) == (topic, "bk-7", 0)
    assert (task["workerId"], task["lockExpirationTime"], task["retries"]) == (None, None, None)
    assert task["processDefinitionVersionTag"] == "v1"


def test_get_unknown_task_is_a_404(rest: LiveServer) -> None:
    response = rest.client.get(f"/external-task/{UNKNOWN}")
    assert response.status_code == 404
    assert UNKNOWN in response.json()["message"]


def test_error_details_as_text(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic)
    assert rest.client.get(f"/external-task/{task_id}/errorDetails").status_code == 204
    locked(rest, "w", topic)
    rest.client.post(
        f"/external-task/{task_id}/failure",
        json={"workerId": "w", "errorMessage": "m", "errorDetails": "line 1\nline 2", "retries": 1},
    )
    response = rest.client.get(f"/external-task/{task_id}/errorDetails")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == "line 1\nline 2"


def test_query_filters_sorts_and_pages(rest: LiveServer, topic: str) -> None:
    ids = [start(rest, topic) for _ in range(3)]
    rest.client.put(f"/external-task/{ids[1]}/priority", json={"priority": 9})
    grabbed = locked(rest, "w", topic)["id"]
    listed = rest.client.get("/external-task", params={"topicName": topic})
    assert listed.status_code == 200
    assert {t["id"] for t in listed.json()} == set(ids)
    assert all(set(t) == TASK_FIELDS for t in listed.json())

    by_priority = rest.client.get(
        "/external-task",
        params={"topicName": topic, "sortBy": "taskPriority", "sortOrder": "desc", "maxResults": 1},
    )
    assert [t["id"] for t in by_priority.json()] == [ids[1]]
    locked_now = rest.client.get("/external-task", params={"topicName": topic, "locked": "true"})
    assert [t["id"] for t in locked_now.json()] == [grabbed]
    by_worker = rest.client.post(
        "/external-task",
        json={
            "workerId": "w",
            "topicName": topic,
            "sorting": [{"sortBy": "id", "sortOrder": "asc"}],
        },
    )
    assert [t["id"] for t in by_worker.json()] == [grabbed]
    some = rest.client.post(
        "/external-task", json={"externalTaskIdIn": ids[:2], "priorityHigherThanOrEquals": 5}
    )
    assert [t["id"] for t in some.json()] == [ids[1]]


def test_count(rest: LiveServer, topic: str) -> None:
    for _ in range(2):
        start(rest, topic)
    locked(rest, "w", topic)
    assert rest.client.get("/external-task/count", params={"topicName": topic}).json() == {
        "count": 2
    }
    not_locked = rest.client.post(
        "/external-task/count", json={"topicName": topic, "notLocked": True}
    )
    assert not_locked.status_code == 200
    assert not_locked.json() == {"count": 1}
    after = rest.client.get(
        "/external-task/count",
        params={"topicName": topic, "lockExpirationAfter": "2000-01-01T00:00:00.000+0000"},
    )
    assert after.json() == {"count": 1}


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"sortBy": "nonsense", "sortOrder": "asc"}, "sortBy"),
        ({"sortBy": "id"}, "sortOrder"),
        ({"lockExpirationBefore": "yesterday"}, "lockExpirationBefore"),
        ({"priorityHigherThanOrEquals": "high"}, "priorityHigherThanOrEquals"),
        ({"maxResults": "-1"}, "maxResults"),
    ],
)
def test_query_refuses_bad_parameters(rest: LiveServer, params: dict[str, str], named: str) -> None:
    response = rest.client.get("/external-task", params=params)
    assert response.status_code == 400
    assert named in response.json()["message"]


def test_topic_names(rest: LiveServer, topic: str) -> None:
    start(rest, topic)
    names = rest.client.get("/external-task/topic-names")
    assert names.status_code == 200
    assert topic in names.json()
    locked_only = rest.client.get("/external-task/topic-names", params={"withLockedTasks": "true"})
    assert topic not in locked_only.json()


# -- real clients --------------------------------------------------------------------------------


def test_pycamunda_fetches_reads_and_completes(rest: LiveServer, topic: str) -> None:
    task_id = start(rest, topic, amount=3)
    instance_id = instance_of(rest, task_id)
    fetch_and_lock = pycamunda.externaltask.FetchAndLock(rest.url, "pc-worker", max_tasks=1)
    fetch_and_lock.add_topic(topic, lock_duration=10_000)
    (task,) = fetch_and_lock()
    assert task.id_ == task_id
    assert task.variables["amount"].value == 3
    fetched = pycamunda.externaltask.Get(rest.url, task_id)()  # also reads errorDetails
    assert fetched.worker_id == "pc-worker"
    pycamunda.externaltask.Complete(rest.url, task_id, "pc-worker")()
    assert open_user_tasks(rest, task_id, instance_id) == ["After work"]


def test_external_task_client_long_polls_and_completes(rest: LiveServer, topic: str) -> None:
    # camunda-external-task-client-python3 imports pydantic without declaring it.
    pytest.importorskip("pydantic", reason="camunda-external-task-client-python3 needs pydantic")
    from camunda.client.external_task_client import ExternalTaskClient

    client = ExternalTaskClient(
        "ext-worker", rest.url, config={"asyncResponseTimeout": 20_000, "lockDuration": 10_000}
    )
    waiting = Background(lambda: client.fetch_and_lock(topic))
    time.sleep(0.5)
    task_id = start(rest, topic, amount=8)
    instance_id = instance_of(rest, task_id)
    (task,) = waiting.result()
    assert (task["id"], task["workerId"]) == (task_id, "ext-worker")
    assert waiting.seconds < 10
    assert client.complete(task_id, {"charged": True}, {"attempt": 1}) is True
    assert open_user_tasks(rest, task_id, instance_id) == ["After work"]
