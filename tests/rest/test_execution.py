"""The execution resource: lists and counts with their filters, one execution, signalling an
execution waiting in a receive task, and execution-local variables."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from flowledger.core import views
from tests.support import BPMN_DIR

from .server import LiveServer

WAIT = BPMN_DIR / "rest_pi_wait.bpmn"
SUBPROCESS = BPMN_DIR / "embedded_subprocess.bpmn"
EXECUTION_FIELDS = {"id", "processInstanceId", "ended", "tenantId"}


@pytest.fixture(scope="module")
def models(rest: LiveServer) -> None:
    rest.engine.deploy(WAIT)
    rest.engine.deploy(SUBPROCESS)


def key() -> str:
    return f"bk-{uuid.uuid4().hex[:12]}"


def nested(rest: LiveServer, variables: dict[str, Any] | None = None) -> views.ProcessInstance:
    """An instance with four executions: itself, the subprocess scope, two parallel tokens."""
    return rest.engine.start_process_instance("embeddedSubprocess", variables or {}, key())


def token_at(rest: LiveServer, instance_id: str, activity_id: str) -> str:
    return next(
        e.id
        for e in rest.engine.runtime_service.executions(instance_id)
        if e.activity_id == activity_id
    )


def ids(response: Any) -> list[str]:
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()]


# -- list and count -------------------------------------------------------------------------------


@pytest.mark.usefixtures("models")
def test_list_answers_the_executions_of_an_instance(rest: LiveServer) -> None:
    instance = nested(rest)
    response = rest.client.get("/execution", params={"processInstanceId": instance.id})
    assert response.status_code == 200
    found = response.json()
    assert all(set(dto) == EXECUTION_FIELDS for dto in found)
    assert sorted(d["id"] for d in found) == sorted(
        e.id for e in rest.engine.runtime_service.executions(instance.id)
    )
    assert len(found) == 4
    assert all(d["processInstanceId"] == instance.id for d in found)
    assert all(d["ended"] is False and d["tenantId"] is None for d in found)


@pytest.mark.usefixtures("models")
def test_list_filters(rest: LiveServer) -> None:
    instance = nested(rest)
    assert instance.business_key is not None
    get = rest.client.get
    at_a = token_at(rest, instance.id, "checkA")
    assert ids(
        get("/execution", params={"processInstanceId": instance.id, "activityId": "checkA"})
    ) == [at_a]
    by_key = ids(get("/execution", params={"businessKey": instance.business_key}))
    assert len(by_key) == 4
    definition = {
        "processDefinitionKey": "embeddedSubprocess",
        "processDefinitionId": instance.definition_id,
        "processInstanceId": instance.id,
        "active": "true",
    }
    assert len(ids(get("/execution", params=definition))) == 4
    for empty in (
        {"processDefinitionKey": "restPiWait"},
        {"suspended": "true"},
        {"messageEventSubscriptionName": "payment"},
        {"signalEventSubscriptionName": "alarm"},
        {"incidentId": "x"},
        {"tenantIdIn": "acme"},
    ):
        assert ids(get("/execution", params={"processInstanceId": instance.id, **empty})) == []


@pytest.mark.usefixtures("models")
def test_variable_filters_local_and_of_the_process(rest: LiveServer) -> None:
    instance = nested(rest, {"region": "north"})
    at_a = token_at(rest, instance.id, "checkA")
    rest.engine.runtime_service.set_variables(at_a, {"mine": 7}, local=True)
    get = rest.client.get
    base = {"processInstanceId": instance.id}
    # `variables` are the execution's own; the instance's are not the tokens' own.
    assert ids(get("/execution", params={**base, "variables": "region_eq_north"})) == [instance.id]
    assert len(ids(get("/execution", params={**base, "processVariables": "region_eq_north"}))) == 4
    assert ids(get("/execution", params={**base, "processVariables": "region_eq_south"})) == []
    body = {**base, "variables": [{"name": "mine", "operator": "gteq", "value": 7}]}
    assert ids(rest.client.post("/execution", json=body)) == [at_a]
    ignore_case = {**base, "processVariables": "REGION_eq_NORTH", "variableNamesIgnoreCase": "true"}
    assert ids(get("/execution", params={**ignore_case, "variableValuesIgnoreCase": "true"}))
    assert ids(get("/execution", params=ignore_case)) == []


@pytest.mark.usefixtures("models")
def test_sorting_paging_and_counting(rest: LiveServer) -> None:
    instance = nested(rest)
    base = {"processInstanceId": instance.id}
    every = sorted(e.id for e in rest.engine.runtime_service.executions(instance.id))
    page = rest.client.get(
        "/execution",
        params={
            **base,
            "sortBy": "instanceId",
            "sortOrder": "asc",
            "firstResult": 1,
            "maxResults": 2,
        },
    )
    assert ids(page) == every[1:3]
    body = {**base, "sorting": [{"sortBy": "definitionKey", "sortOrder": "desc"}]}
    assert ids(rest.client.post("/execution", json=body)) == every
    assert rest.client.get("/execution/count", params=base).json() == {"count": 4}
    counted = rest.client.post("/execution/count", json={**base, "activityId": "checkB"})
    assert counted.status_code == 200
    assert counted.json() == {"count": 1}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"sortBy": "businessKey", "sortOrder": "asc"}, "sortBy"),
        ({"sortBy": "instanceId", "sortOrder": "up"}, "sortOrder"),
        ({"maxResults": "-1"}, "maxResults"),
        ({"variables": "a_is_b"}, "Invalid variable comparator specified: is"),
        ({"processVariables": "a-eq-b"}, "KEY_OPERATOR_VALUE"),
    ],
)
def test_invalid_list_parameters_answer_400(
    rest: LiveServer, params: dict[str, str], message: str
) -> None:
    response = rest.client.get("/execution", params=params)
    assert response.status_code == 400, response.text
    assert response.json()["type"] == "InvalidRequestException"
    assert message in response.json()["message"]


def test_invalid_json_query_answers_400(rest: LiveServer) -> None:
    for body in (
        {"processVariables": [{"name": "a", "operator": "gt", "value": False}]},
        {"active": "maybe"},
        {"sorting": [{"sortBy": "id", "sortOrder": "asc"}]},
    ):
        response = rest.client.post("/execution", json=body)
        assert response.status_code == 400, (body, response.text)
    count = rest.client.post(
        "/execution/count", json={"variables": [{"name": "a", "operator": "like", "value": 1}]}
    )
    assert count.status_code == 400


# -- one execution --------------------------------------------------------------------------------


@pytest.mark.usefixtures("models")
def test_get_one_execution(rest: LiveServer) -> None:
    instance = nested(rest)
    at_b = token_at(rest, instance.id, "checkB")
    response = rest.client.get(f"/execution/{at_b}")
    assert response.status_code == 200
    assert response.json() == {
        "id": at_b,
        "processInstanceId": instance.id,
        "ended": False,
        "tenantId": None,
    }


def test_get_unknown_execution_is_404(rest: LiveServer) -> None:
    response = rest.client.get("/execution/no-such-execution")
    assert response.status_code == 404
    assert response.json()["type"] == "InvalidRequestException"
    assert "no-such-execution" in response.json()["message"]


# -- signal ---------------------------------------------------------------------------------------


@pytest.mark.usefixtures("models")
def test_signal_moves_a_receive_task_on_with_its_variables(rest: LiveServer) -> None:
    instance = rest.engine.start_process_instance("restPiWait", {}, key())
    waiting = token_at(rest, instance.id, "waitForSignal")
    response = rest.client.post(
        f"/execution/{waiting}/signal",
        json={"variables": {"approved": {"value": True, "type": "Boolean", "valueInfo": None}}},
    )
    assert response.status_code == 204
    assert response.content == b""
    [task] = rest.engine.tasks(process_instance_id=instance.id)
    assert task.task_definition_key == "review"
    assert rest.engine.runtime_service.get_variables(instance.id) == {"approved": True}


@pytest.mark.usefixtures("models")
def test_signal_without_a_body(rest: LiveServer) -> None:
    instance = rest.engine.start_process_instance("restPiWait", {}, key())
    assert rest.client.post(f"/execution/{instance.id}/signal").status_code == 204
    assert [t.task_definition_key for t in rest.engine.tasks(process_instance_id=instance.id)] == [
        "review"
    ]


@pytest.mark.usefixtures("models")
def test_signal_of_an_execution_not_in_a_receive_task_is_400(rest: LiveServer) -> None:
    instance = nested(rest)
    at_a = token_at(rest, instance.id, "checkA")
    response = rest.client.post(f"/execution/{at_a}/signal", json={"variables": {}})
    assert response.status_code == 400
    assert response.json()["type"] == "BadUserRequestException"
    assert "receive task" in response.json()["message"]
    assert token_at(rest, instance.id, "checkA") == at_a


def test_signal_of_unknown_execution_is_404(rest: LiveServer) -> None:
    response = rest.client.post("/execution/no-such-execution/signal", json={})
    assert response.status_code == 404
    assert "no-such-execution" in response.json()["message"]


@pytest.mark.usefixtures("models")
def test_signal_with_an_invalid_variable_is_400_and_does_not_move(rest: LiveServer) -> None:
    instance = rest.engine.start_process_instance("restPiWait", {}, key())
    response = rest.client.post(
        f"/execution/{instance.id}/signal",
        json={"variables": {"n": {"value": "many", "type": "Integer"}}},
    )
    assert response.status_code == 400
    assert token_at(rest, instance.id, "waitForSignal") == instance.id


# -- local variables ------------------------------------------------------------------------------


@pytest.mark.usefixtures("models")
def test_local_variables_of_an_execution(rest: LiveServer) -> None:
    instance = nested(rest, {"shared": "yes"})
    at_a = token_at(rest, instance.id, "checkA")
    base = f"/execution/{at_a}/localVariables"
    put = rest.client.put(f"{base}/score", json={"value": 3, "type": "Short"})
    assert put.status_code == 204
    listed = rest.client.get(base)
    assert listed.status_code == 200
    # Only the execution's own variables, not the instance's it can see.
    assert listed.json() == {"score": {"value": 3, "type": "Short", "valueInfo": {}}}
    assert rest.client.get(f"{base}/score").json() == {"value": 3, "type": "Short", "valueInfo": {}}
    assert rest.engine.runtime_service.get_variables(instance.id) == {"shared": "yes"}
    assert rest.client.delete(f"{base}/score").status_code == 204
    assert rest.client.get(base).json() == {}


@pytest.mark.usefixtures("models")
def test_post_local_modifications_and_deletions(rest: LiveServer) -> None:
    instance = nested(rest)
    at_b = token_at(rest, instance.id, "checkB")
    rest.engine.runtime_service.set_variables(at_b, {"old": 1}, local=True)
    body = {"modifications": {"note": {"value": "hi"}}, "deletions": ["old"]}
    response = rest.client.post(f"/execution/{at_b}/localVariables", json=body)
    assert response.status_code == 204
    assert rest.engine.runtime_service.get_variables(at_b, local=True) == {"note": "hi"}
    assert "note" not in rest.engine.runtime_service.get_variables(instance.id)


@pytest.mark.usefixtures("models")
def test_local_variable_errors(rest: LiveServer) -> None:
    instance = nested(rest)
    at_a = token_at(rest, instance.id, "checkA")
    base = f"/execution/{at_a}/localVariables"
    missing = rest.client.get(f"{base}/nothing")
    assert missing.status_code == 404
    assert missing.json()["message"] == "execution variable with name nothing does not exist"
    bad = rest.client.put(f"{base}/when", json={"value": "yesterday", "type": "Date"})
    assert bad.status_code == 400
    unknown = rest.client.get("/execution/nobody/localVariables")
    assert unknown.status_code == 404
    assert "nobody" in unknown.json()["message"]
    assert (
        rest.client.put("/execution/nobody/localVariables/x", json={"value": 1}).status_code == 404
    )
    assert rest.client.post("/execution/nobody/localVariables", json={}).status_code == 404


@pytest.mark.usefixtures("models")
def test_binary_data_of_a_local_variable(rest: LiveServer) -> None:
    instance = nested(rest)
    at_a = token_at(rest, instance.id, "checkA")
    rest.engine.runtime_service.set_variables(
        at_a, {"blob": b"\x00data\xff", "text": "t"}, local=True
    )
    response = rest.client.get(f"/execution/{at_a}/localVariables/blob/data")
    assert response.status_code == 200
    assert response.content == b"\x00data\xff"
    assert rest.client.get(f"/execution/{at_a}/localVariables/text/data").status_code == 400
    assert rest.client.get(f"/execution/{at_a}/localVariables/none/data").status_code == 404


@pytest.mark.usefixtures("models")
def test_nul_characters_are_refused_not_a_database_error(rest: LiveServer) -> None:
    instance = nested(rest)
    assert rest.client.get("/execution", params={"activityId": "\x00"}).status_code == 400
    assert rest.client.get("/execution/a%00b").status_code == 404
    assert rest.client.post("/execution/a%00b/signal").status_code == 404
    put = rest.client.put(
        f"/execution/{instance.id}/localVariables/x", json={"value": "a\x00", "type": "String"}
    )
    assert put.status_code == 400
