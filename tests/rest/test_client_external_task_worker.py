"""camunda-external-task-client-python3 4.5.0, unmodified, as a worker against the live server.

tests/bpmn/rest_e2e_payment.bpmn: the external task `charge` (topic rest_e2e_charge) is worked by
the library's ExternalTaskWorker; a declined card is a BPMN error caught by the boundary event on
`charge` (the order goes to `callCustomer`), a charged one goes to `ship`. What the worker does
depends on the instance's `card` variable: "ok" completes, "flaky" first reports a failure with
retries (the task is fetched again and then completed), "declined" throws CARD_DECLINED.

`ExternalTaskWorker.subscribe` polls forever and cannot be stopped, so each test runs the
worker's own poll step (`fetch_and_execute`: fetchAndLock with long polling, then complete,
failure or bpmnError through the library's executor) in a bounded loop on a thread.
"""

from __future__ import annotations

import contextlib
import importlib.util
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.support import BPMN_DIR, in_ci

# The library imports pydantic without declaring it (its metadata requires only requests).
if importlib.util.find_spec("pydantic") is None:
    message = "camunda-external-task-client-python3 needs pydantic: pip install 'pydantic>=2'"
    if in_ci():
        raise RuntimeError(message)
    pytest.skip(message, allow_module_level=True)

from camunda.external_task.external_task import ExternalTask, TaskResult
from camunda.external_task.external_task_worker import (
    ExternalTaskWorker,
    NoExternalTaskFound,
)

from .server import LiveServer

MODEL = BPMN_DIR / "rest_e2e_payment.bpmn"
KEY = "restE2ePayment"
TOPIC = "rest_e2e_charge"
LONG_POLL_MS = 10_000
DEADLINE_S = 60.0


@dataclass
class Seen:
    """What the worker's action was handed, per attempt."""

    contexts: list[dict[str, Any]] = field(default_factory=list)
    attempts: dict[str, int] = field(default_factory=dict)


def charge(seen: Seen) -> Callable[[ExternalTask], TaskResult]:
    """The worker's action: decides by the instance's `card` variable."""

    def action(task: ExternalTask) -> TaskResult:
        # The whole locked task as the server sent it: the library has no getter for retries
        # or errorMessage.
        seen.contexts.append(dict(task._context))
        instance = task.get_process_instance_id()
        attempt = seen.attempts.get(instance, 0) + 1
        seen.attempts[instance] = attempt
        card = task.get_variable("card")
        if card == "declined":
            return task.bpmn_error(
                "CARD_DECLINED", "card declined", {"declineReason": "insufficient funds"}
            )
        if card == "flaky" and attempt == 1:
            return task.failure("gateway timeout", "HTTP 504 from the card gateway", 3, 0)
        return task.complete(
            {"chargeId": f"ch_{instance[:8]}", "charged": True, "amountCharged": 42.5},
            {"attempt": attempt},
        )

    return action


def worker(rest: LiveServer, name: str) -> ExternalTaskWorker:
    config = {
        "maxTasks": 1,
        "lockDuration": 10_000,
        "asyncResponseTimeout": LONG_POLL_MS,
        "retries": 3,
        "retryTimeout": 0,
        "sleepSeconds": 0,
    }
    return ExternalTaskWorker(worker_id=name, base_url=rest.url, config=config)


def work_until(
    rest: LiveServer, seen: Seen, done: Callable[[], bool], name: str = "e2e-worker"
) -> None:
    """The worker's poll step in a loop until `done()`; fails after DEADLINE_S."""
    polling = worker(rest, name)
    deadline = time.monotonic() + DEADLINE_S
    while not done():
        assert time.monotonic() < deadline, f"worker gave up; it saw {seen.contexts}"
        with contextlib.suppress(NoExternalTaskFound):  # an empty long poll: poll again
            polling.fetch_and_execute(TOPIC, charge(seen))


@pytest.fixture(scope="module")
def deployed(rest: LiveServer) -> Iterator[None]:
    rest.deploy(MODEL, name="payments")
    yield


def start(rest: LiveServer, card: str) -> str:
    response = rest.client.post(
        f"/process-definition/key/{KEY}/start",
        json={
            "businessKey": f"order-{card}",
            "variables": {"card": {"value": card}, "amount": {"value": 42.5, "type": "Double"}},
        },
    )
    assert response.status_code == 200, response.text
    instance_id: str = response.json()["id"]
    return instance_id


def open_tasks(rest: LiveServer, instance_id: str) -> list[str]:
    response = rest.client.get("/task", params={"processInstanceId": instance_id})
    assert response.status_code == 200, response.text
    return [t["taskDefinitionKey"] for t in response.json()]


def variables(rest: LiveServer, instance_id: str) -> dict[str, Any]:
    response = rest.client.get(f"/process-instance/{instance_id}/variables")
    assert response.status_code == 200, response.text
    return {name: (v["value"], v["type"]) for name, v in response.json().items()}


def external_tasks_left(rest: LiveServer, instance_id: str) -> int:
    response = rest.client.get("/external-task/count", params={"processInstanceId": instance_id})
    assert response.status_code == 200, response.text
    count: int = response.json()["count"]
    return count


def finish_user_task(rest: LiveServer, instance_id: str) -> None:
    response = rest.client.get("/task", params={"processInstanceId": instance_id})
    (task,) = response.json()
    assert rest.client.post(f"/task/{task['id']}/complete", json={}).status_code == 204


def history_states(rest: LiveServer, instance_ids: list[str]) -> dict[str, str]:
    response = rest.client.get(
        "/history/process-instance", params={"processInstanceIds": ",".join(instance_ids)}
    )
    assert response.status_code == 200, response.text
    return {row["id"]: row["state"] for row in response.json()}


def historic_variables(rest: LiveServer, instance_id: str) -> dict[str, Any]:
    response = rest.client.get(
        "/history/variable-instance", params={"processInstanceId": instance_id}
    )
    assert response.status_code == 200, response.text
    return {row["name"]: (row["value"], row["type"]) for row in response.json()}


def test_a_long_poll_opened_before_the_instance_returns_its_task(
    rest: LiveServer, deployed: None
) -> None:
    seen = Seen()
    polled: list[BaseException] = []

    def poll_once() -> None:
        try:
            worker(rest, "long-poller").fetch_and_execute(TOPIC, charge(seen))
        except BaseException as exc:
            polled.append(exc)

    poller = threading.Thread(target=poll_once, daemon=True)
    poller.start()
    poller.join(0.5)
    assert poller.is_alive(), f"the poll was answered before any task existed: {polled}"
    instance_id = start(rest, "ok")
    poller.join(LONG_POLL_MS / 1000 + 10)
    assert not poller.is_alive() and polled == []
    assert [c["processInstanceId"] for c in seen.contexts] == [instance_id]
    assert open_tasks(rest, instance_id) == ["ship"]


def test_completion_variables_reach_the_process(rest: LiveServer, deployed: None) -> None:
    seen = Seen()
    instance_id = start(rest, "ok")
    work_until(rest, seen, lambda: external_tasks_left(rest, instance_id) == 0)
    (context,) = [c for c in seen.contexts if c["processInstanceId"] == instance_id]
    assert context["topicName"] == TOPIC and context["workerId"] == "e2e-worker"
    assert context["activityId"] == "charge"
    assert context["variables"]["amount"] == {"value": 42.5, "type": "Double", "valueInfo": {}}
    assert open_tasks(rest, instance_id) == ["ship"]
    found = variables(rest, instance_id)
    assert found["chargeId"] == (f"ch_{instance_id[:8]}", "String")
    assert found["charged"] == (True, "Boolean")
    assert found["amountCharged"] == (42.5, "Double")


def test_a_failure_with_retries_is_fetched_again_and_then_completed(
    rest: LiveServer, deployed: None
) -> None:
    seen = Seen()
    instance_id = start(rest, "flaky")
    work_until(rest, seen, lambda: external_tasks_left(rest, instance_id) == 0)
    first, second = [c for c in seen.contexts if c["processInstanceId"] == instance_id]
    assert first["retries"] is None and first["errorMessage"] is None
    # The failure left 3 retries (retry timeout 0: fetchable at once) and its message.
    assert second["id"] == first["id"]
    assert second["retries"] == 3 and second["errorMessage"] == "gateway timeout"
    assert seen.attempts[instance_id] == 2
    assert open_tasks(rest, instance_id) == ["ship"]
    assert variables(rest, instance_id)["charged"] == (True, "Boolean")


def test_a_bpmn_error_is_caught_by_the_boundary_event(rest: LiveServer, deployed: None) -> None:
    seen = Seen()
    instance_id = start(rest, "declined")
    work_until(rest, seen, lambda: external_tasks_left(rest, instance_id) == 0)
    assert open_tasks(rest, instance_id) == ["callCustomer"]
    found = variables(rest, instance_id)
    assert found["errorCode"] == ("CARD_DECLINED", "String")
    assert found["errorMessage"] == ("card declined", "String")
    assert found["declineReason"] == ("insufficient funds", "String")
    assert "charged" not in found


def test_every_order_ends_completed_in_history(rest: LiveServer, deployed: None) -> None:
    seen = Seen()
    cards = ["ok", "flaky", "declined", "ok"]
    instance_ids = [start(rest, card) for card in cards]
    work_until(rest, seen, lambda: all(external_tasks_left(rest, i) == 0 for i in instance_ids))
    paths = [open_tasks(rest, i) for i in instance_ids]
    assert paths == [["ship"], ["ship"], ["callCustomer"], ["ship"]]
    for instance_id in instance_ids:
        finish_user_task(rest, instance_id)
    assert history_states(rest, instance_ids) == dict.fromkeys(instance_ids, "COMPLETED")
    charged, declined = (
        historic_variables(rest, instance_ids[1]),
        historic_variables(rest, instance_ids[2]),
    )
    assert charged["charged"] == (True, "Boolean") and charged["card"] == ("flaky", "String")
    assert declined["errorCode"] == ("CARD_DECLINED", "String")
    assert declined["declineReason"] == ("insufficient funds", "String")
    assert "charged" not in declined
    detail = rest.client.get(
        "/history/activity-instance", params={"processInstanceId": instance_ids[2]}
    )
    assert detail.status_code == 200, detail.text
    activities = {row["activityId"] for row in detail.json()}
    assert {"charge", "declined", "callCustomer", "notShipped"} <= activities
    assert "shipped" not in activities
