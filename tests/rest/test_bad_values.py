"""Values the engine cannot hold, over REST: a 400 in Camunda's error shape, never a 500, and
nothing written. The same answer on SQLite, PostgreSQL and MariaDB (FLOWLEDGER_TEST_DB)."""

from __future__ import annotations

import uuid
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from flowledger.core.limits import MAX_JSON_NESTING, MAX_LIST_FILTER, MAX_VARIABLES_PER_COMMAND
from flowledger.projections.queries.runtime import ProcessInstanceQuery
from flowledger.rest.errors import RestError
from flowledger.rest.params import query_from_params
from flowledger.rest.variables import VariableValueDto, check_decoded_size
from tests.support import BPMN_DIR

from .server import LiveServer

WAIT = BPMN_DIR / "rest_pi_wait.bpmn"
START = "/process-definition/key/restPiWait/start"


EXTERNAL = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">'
    '<process id="badValuesExt" isExecutable="true"><startEvent id="s"/>'
    '<sequenceFlow id="f1" sourceRef="s" targetRef="w"/>'
    '<serviceTask id="w" camunda:type="external" camunda:topic="badValues"/>'
    '<sequenceFlow id="f2" sourceRef="w" targetRef="e"/><endEvent id="e"/></process></definitions>'
)


@pytest.fixture(scope="module")
def models(rest: LiveServer) -> None:
    rest.engine.deploy(WAIT)
    rest.engine.deploy({"bad_values_ext.bpmn": EXTERNAL})


def refused(rest: LiveServer, send: Any, *words: str, status: int = 400) -> dict[str, Any]:
    """Send a request that must be refused: Camunda's error body naming every word given,
    and the log (so every table projected from it) unchanged."""
    before = rest.engine.log_position()
    response: httpx.Response = send()
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"type", "message"}
    assert body["type"] == "InvalidRequestException"
    for word in words:
        assert word in body["message"]
    assert rest.engine.log_position() == before
    return body


def start(rest: LiveServer, body: dict[str, Any] | str) -> httpx.Response:
    if isinstance(body, str):
        headers = {"content-type": "application/json"}
        return rest.client.post(START, content=body, headers=headers)
    return rest.client.post(START, json=body)


# -- text a column cannot hold (item 1) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"businessKey": "k" * 300}, ("businessKey", "255")),
        ({"businessKey": "a\x00b"}, ("businessKey", "NUL")),
        ({"variables": {"n" * 300: {"value": 1}}}, ("Variable name", "255")),
        ({"variables": {"s": {"value": "x" * 4001}}}, ("'s'", "4000")),
        ({"variables": {"s": {"value": "x" * 4001, "type": "String"}}}, ("'s'", "4000")),
    ],
)
def test_a_start_with_text_the_columns_cannot_hold_is_refused(
    rest: LiveServer, models: None, body: dict[str, Any], words: tuple[str, ...]
) -> None:
    refused(rest, lambda: start(rest, body), *words)


def test_a_start_just_within_the_limits_is_accepted(rest: LiveServer, models: None) -> None:
    key = f"{uuid.uuid4().hex}".ljust(255, "k")
    body = {"businessKey": key, "variables": {"n" * 255: {"value": "x" * 4000}}}
    response = start(rest, body)
    assert response.status_code == 200, response.text
    assert response.json()["businessKey"] == key


def fetch(rest: LiveServer, worker: str, topic: str = "badValues") -> httpx.Response:
    topics = [{"topicName": topic, "lockDuration": 60_000}]
    return rest.client.post(
        "/external-task/fetchAndLock", json={"workerId": worker, "maxTasks": 5, "topics": topics}
    )


def test_external_task_input_the_columns_cannot_hold_is_refused(
    rest: LiveServer, models: None
) -> None:
    rest.engine.start_process_instance("badValuesExt")
    refused(rest, lambda: fetch(rest, "w" * 256), "workerId", "255")
    refused(rest, lambda: fetch(rest, "w1\x00"), "workerId", "NUL")
    refused(rest, lambda: fetch(rest, "w1", "bad\x00Values"), "NUL")
    [task] = fetch(rest, "w" * 255).json()
    failure = {"workerId": "w" * 255, "errorMessage": "boom\x00", "retries": 1}
    url = f"/external-task/{task['id']}"
    refused(rest, lambda: rest.client.post(f"{url}/failure", json=failure), "errorMessage")
    failure |= {"errorMessage": "e" * 1000, "retries": 2**31}
    refused(rest, lambda: rest.client.post(f"{url}/failure", json=failure), "retries")
    failure |= {"retries": 1}
    assert rest.client.post(f"{url}/failure", json=failure).status_code == 204
    assert rest.client.get(url).json()["errorMessage"] == "e" * 666  # Camunda cuts it there


def test_a_claim_by_a_user_id_the_column_cannot_hold_is_refused(
    rest: LiveServer, models: None
) -> None:
    instance = rest.engine.start_process_instance("restPiWait")
    execution = rest.engine.runtime_service.executions(instance.id)[-1].id
    rest.engine.runtime_service.trigger(execution)
    [task] = rest.engine.tasks(process_instance_id=instance.id)
    claim = f"/task/{task.id}/claim"
    refused(rest, lambda: rest.client.post(claim, json={"userId": "u" * 256}), "userId", "255")
    assert rest.client.post(claim, json={"userId": "u" * 255}).status_code == 204


# -- typed values (items 3 and 11) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ({"value": 100_000_000, "type": "Bytes"}, ("Bytes", "base64")),
        ({"value": {}, "type": "Bytes"}, ("Bytes", "object")),
        ({"value": 1.5, "type": "Bytes"}, ("Bytes",)),
        ({"value": -3, "type": "Bytes"}, ("Bytes",)),
        ({"value": [1, 2], "type": "Bytes"}, ("Bytes", "list")),
        ({"value": 1.5, "type": "Integer"}, ("1.5", "Integer")),
        ({"value": "12abc", "type": "Long"}, ("Long",)),
        ({"value": {}, "type": "String"}, ("String", "object")),
        ({"value": "maybe", "type": "Boolean"}, ("Boolean",)),
        ({"value": "abc", "type": "Double"}, ("Double",)),
        ({"value": "tomorrow", "type": "Date"}, ("Date",)),
        ({"value": "{oops", "type": "Json"}, ("JSON",)),
    ],
)
def test_a_typed_value_not_of_its_type_is_refused(
    rest: LiveServer, models: None, value: dict[str, Any], words: tuple[str, ...]
) -> None:
    refused(rest, lambda: start(rest, {"variables": {"v": value}}), "'v'", *words)


def test_typed_values_of_their_type_are_stored_as_given(rest: LiveServer, models: None) -> None:
    variables = {
        "i": {"value": "12", "type": "Integer"},
        "b": {"value": "AAE=", "type": "Bytes"},
        "t": {"value": "true", "type": "Boolean"},
        "d": {"value": "2026-12-02T16:31:40.000+0000", "type": "Date"},
    }
    response = start(rest, {"variables": variables})
    assert response.status_code == 200, response.text
    stored = rest.client.get(f"/process-instance/{response.json()['id']}/variables").json()
    assert {n: (v["value"], v["type"]) for n, v in stored.items()} == {
        "i": (12, "Integer"),
        "b": ("AAE=", "Bytes"),
        "t": (True, "Boolean"),
        "d": ("2026-12-02T16:31:40.000+0000", "Date"),
    }


# -- nesting (item 10) ----------------------------------------------------------------------------


def _nested_json(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [MAX_JSON_NESTING + 1, 500, 1000, 5000])
def test_json_nested_deeper_than_the_limit_is_refused(
    rest: LiveServer, models: None, depth: int
) -> None:
    body = '{"variables": {"deep": {"value": ' + _nested_json(depth) + "}}}"
    refused(rest, lambda: start(rest, body), str(MAX_JSON_NESTING))


def test_json_nested_up_to_the_limit_is_kept(rest: LiveServer, models: None) -> None:
    body = '{"variables": {"deep": {"value": ' + _nested_json(MAX_JSON_NESTING) + "}}}"
    response = start(rest, body)
    assert response.status_code == 200, response.text


# -- list filters (item 10) -----------------------------------------------------------------------


def test_a_task_query_with_more_ids_than_the_limit_is_refused_naming_it(
    rest: LiveServer, models: None
) -> None:
    for count in (MAX_LIST_FILTER + 1, 200_000):
        ids = [str(uuid.UUID(int=i)) for i in range(count)]
        body = {"processInstanceIdIn": ids}
        refused(rest, lambda b=body: rest.client.post("/task", json=b), "processInstanceIdIn")
        refused(rest, lambda b=body: rest.client.post("/task/count", json=b), str(MAX_LIST_FILTER))


def test_a_task_query_with_ids_up_to_the_limit_runs(rest: LiveServer, models: None) -> None:
    ids = [str(uuid.UUID(int=i)) for i in range(MAX_LIST_FILTER)]
    response = rest.client.post("/task/count", json={"processInstanceIdIn": ids})
    assert response.status_code == 200, response.text
    assert response.json() == {"count": 0}


def test_a_list_filter_of_a_get_query_is_limited_too() -> None:
    # (over HTTP, 10,001 values make a URL longer than the server reads)
    ids = ",".join("x" for _ in range(MAX_LIST_FILTER + 1))
    with pytest.raises(RestError) as caught:
        query_from_params({"processInstanceIds": ids}, ProcessInstanceQuery)
    assert caught.value.status == 400
    assert "processInstanceIds" in caught.value.message
    query_from_params({"processInstanceIds": ids[2:]}, ProcessInstanceQuery)


def test_an_integer_filter_beyond_64_bits_is_refused_naming_it(rest: LiveServer) -> None:
    huge = 2**64
    send = lambda: rest.client.post("/history/task/count", json={"taskPriority": huge})  # noqa: E731
    refused(rest, send, "taskPriority", "64-bit")
    send = lambda: rest.client.get("/process-definition", params={"version": str(huge)})  # noqa: E731
    refused(rest, send, "version", "64-bit")


# -- variables per command (item 4's limit) -------------------------------------------------------


def test_more_variables_than_the_limit_are_refused(rest: LiveServer, models: None) -> None:
    many = {f"v{i}": {"value": i} for i in range(MAX_VARIABLES_PER_COMMAND + 1)}
    refused(rest, lambda: start(rest, {"variables": many}), str(MAX_VARIABLES_PER_COMMAND))


# -- the body limit after decoding (item 3) -------------------------------------------------------


def test_decoded_variables_larger_than_the_body_limit_are_refused() -> None:
    request: Any = SimpleNamespace(app=SimpleNamespace(request_max_body_size=100))
    check_decoded_size(request, {"b": VariableValueDto(value="A" * 90, type="Bytes")})
    with pytest.raises(RestError) as caught:
        check_decoded_size(request, {"b": VariableValueDto(value="A" * 120, type="Bytes")})
    assert caught.value.status == 413
    assert "100 bytes" in caught.value.message and "--max-body-mb" in caught.value.message
