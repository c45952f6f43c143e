"""The variable-instance resource: runtime variables of every scope, filtered, sorted, paged,
one by id, and the binary data of a Bytes variable."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from flowledger.core import TypedValue, views
from tests.support import BPMN_DIR

from .server import LiveServer

WAIT = BPMN_DIR / "rest_pi_wait.bpmn"
SUBPROCESS = BPMN_DIR / "embedded_subprocess.bpmn"
VARIABLE_FIELDS = {
    "id",
    "name",
    "type",
    "value",
    "valueInfo",
    "processDefinitionId",
    "processInstanceId",
    "executionId",
    "caseInstanceId",
    "caseExecutionId",
    "taskId",
    "batchId",
    "activityInstanceId",
    "tenantId",
    "errorMessage",
}


@pytest.fixture(scope="module")
def models(rest: LiveServer) -> None:
    rest.engine.deploy(WAIT)
    rest.engine.deploy(SUBPROCESS)


def start(rest: LiveServer, variables: dict[str, Any]) -> views.ProcessInstance:
    business_key = f"bk-{uuid.uuid4().hex[:12]}"
    return rest.engine.start_process_instance("restPiWait", variables, business_key)


def listed(rest: LiveServer, instance_id: str, **params: Any) -> list[dict[str, Any]]:
    response = rest.client.get(
        "/variable-instance", params={"processInstanceIdIn": instance_id, **params}
    )
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()
    return found


def names(found: list[dict[str, Any]]) -> list[str]:
    return [v["name"] for v in found]


# -- list -----------------------------------------------------------------------------------------


@pytest.mark.usefixtures("models")
def test_list_answers_camunda_variable_instance_dtos(rest: LiveServer) -> None:
    instance = start(rest, {"word": "Hello"})
    [dto] = listed(rest, instance.id)
    assert set(dto) == VARIABLE_FIELDS
    assert dto["id"]
    assert dto == {
        "id": dto["id"],
        "name": "word",
        "type": "String",
        "value": "Hello",
        "valueInfo": {},
        "processDefinitionId": instance.definition_id,
        "processInstanceId": instance.id,
        "executionId": instance.id,
        "caseInstanceId": None,
        "caseExecutionId": None,
        "taskId": None,
        "batchId": None,
        # A process instance's variable belongs to the instance's own activity instance.
        "activityInstanceId": instance.id,
        "tenantId": None,
        "errorMessage": None,
    }


@pytest.mark.usefixtures("models")
def test_values_of_every_type(rest: LiveServer) -> None:
    moment = datetime(2026, 12, 2, 16, 31, 40, tzinfo=UTC)
    instance = start(
        rest,
        {
            "b": True,
            "d": 2.5,
            "i": 7,
            "l": TypedValue("Long", 2**40),
            "n": None,
            "j": {"a": [1, 2]},
            "o": TypedValue("Object", {"x": 1}, {"objectTypeName": "com.example.X"}),
            "t": moment,
            "bytes": b"\x01\x02",
        },
    )
    found = {v["name"]: v for v in listed(rest, instance.id)}
    typed = {name: (v["type"], v["value"]) for name, v in found.items()}
    assert typed == {
        "b": ("Boolean", True),
        "d": ("Double", 2.5),
        "i": ("Integer", 7),
        "l": ("Long", 2**40),
        "n": ("Null", None),
        "j": ("Json", '{"a":[1,2]}'),
        "o": ("Object", {"x": 1}),
        "t": ("Date", "2026-12-02T16:31:40.000+0000"),
        # As in Camunda, Bytes values are not fetched for lists: `/data` serves them.
        "bytes": ("Bytes", None),
    }
    assert found["o"]["valueInfo"] == {
        "objectTypeName": "com.example.X",
        "serializationDataFormat": "application/json",
    }
    raw = {v["name"]: v for v in listed(rest, instance.id, deserializeValues="false")}
    assert raw["o"]["value"] == '{"x":1}'


@pytest.mark.usefixtures("models")
def test_filters_by_name_scope_and_activity_instance(rest: LiveServer) -> None:
    instance = rest.engine.start_process_instance("embeddedSubprocess", {"top": 1}, "vi-scopes")
    tokens = {e.activity_id: e for e in rest.engine.runtime_service.executions(instance.id)}
    at_a = tokens["checkA"]
    rest.engine.runtime_service.set_variables(at_a.id, {"tokenVar": "a"}, local=True)
    [task] = [
        t
        for t in rest.engine.tasks(process_instance_id=instance.id)
        if t.task_definition_key == "checkB"
    ]
    rest.engine.task_service.set_variables(task.id, {"taskVar": "b"}, local=True)
    everything = listed(rest, instance.id, sortBy="variableName", sortOrder="asc")
    assert names(everything) == ["taskVar", "tokenVar", "top"]
    by_name = {v["name"]: v for v in everything}
    assert by_name["tokenVar"]["executionId"] == at_a.id
    assert by_name["tokenVar"]["activityInstanceId"] == at_a.activity_instance_id
    assert by_name["taskVar"]["taskId"] == task.id
    assert by_name["taskVar"]["executionId"] == task.execution_id
    assert names(listed(rest, instance.id, variableName="top")) == ["top"]
    assert names(listed(rest, instance.id, variableName="TOP")) == []
    assert names(listed(rest, instance.id, variableName="TOP", variableNamesIgnoreCase="true")) == [
        "top"
    ]
    assert sorted(names(listed(rest, instance.id, variableNameLike="t%Var"))) == [
        "taskVar",
        "tokenVar",
    ]
    assert names(listed(rest, instance.id, executionIdIn=at_a.id)) == ["tokenVar"]
    assert names(listed(rest, instance.id, taskIdIn=task.id)) == ["taskVar"]
    assert names(listed(rest, instance.id, activityInstanceIdIn=instance.id)) == ["top"]
    assert names(listed(rest, instance.id, tenantIdIn="acme")) == []
    assert names(listed(rest, instance.id, caseInstanceIdIn="case")) == []


@pytest.mark.usefixtures("models")
def test_variable_value_filters(rest: LiveServer) -> None:
    instance = start(rest, {"word": "Hello", "amount": 5, "ratio": 1.5, "flag": False})
    assert names(listed(rest, instance.id, variableValues="word_eq_Hello")) == ["word"]
    assert names(listed(rest, instance.id, variableValues="word_like_%ell%")) == ["word"]
    assert names(
        listed(rest, instance.id, variableValues="word_eq_HELLO", variableValuesIgnoreCase="true")
    ) == ["word"]
    # Every condition applies to the variable itself: two names match no single variable.
    assert listed(rest, instance.id, variableValues="word_eq_Hello,amount_eq_5") == []

    def posted(*conditions: dict[str, Any]) -> list[str]:
        body = {"processInstanceIdIn": [instance.id], "variableValues": list(conditions)}
        response = rest.client.post("/variable-instance", json=body)
        assert response.status_code == 200, response.text
        return names(response.json())

    assert posted({"name": "amount", "operator": "gt", "value": 4}) == ["amount"]
    assert posted({"name": "amount", "operator": "lt", "value": 4}) == []
    assert posted({"name": "ratio", "operator": "gteq", "value": 1.5}) == ["ratio"]
    assert posted({"name": "flag", "operator": "eq", "value": False}) == ["flag"]
    assert posted({"name": "word", "operator": "neq", "value": "Bye"}) == ["word"]


@pytest.mark.usefixtures("models")
def test_sorting_paging_and_counting(rest: LiveServer) -> None:
    instance = start(rest, {"c": 1, "a": "x", "b": True})
    desc = listed(rest, instance.id, sortBy="variableName", sortOrder="desc")
    assert names(desc) == ["c", "b", "a"]
    page = listed(
        rest, instance.id, sortBy="variableName", sortOrder="asc", firstResult=1, maxResults=1
    )
    assert names(page) == ["b"]
    by_type = listed(rest, instance.id, sortBy="variableType", sortOrder="asc")
    assert [v["type"] for v in by_type] == ["Boolean", "Integer", "String"]
    body = {
        "processInstanceIdIn": [instance.id],
        "sorting": [{"sortBy": "variableName", "sortOrder": "asc"}],
    }
    assert names(rest.client.post("/variable-instance", json=body).json()) == ["a", "b", "c"]
    count = rest.client.get("/variable-instance/count", params={"processInstanceIdIn": instance.id})
    assert count.status_code == 200
    assert count.json() == {"count": 3}
    posted = rest.client.post(
        "/variable-instance/count",
        json={"processInstanceIdIn": [instance.id], "variableName": "a"},
    )
    assert posted.json() == {"count": 1}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"sortBy": "name", "sortOrder": "asc"}, "sortBy"),
        ({"sortOrder": "asc"}, "sortBy"),
        ({"firstResult": "-3"}, "firstResult"),
        ({"variableValues": "a_similar_b"}, "Invalid variable comparator specified: similar"),
        ({"variableValues": "a_b"}, "KEY_OPERATOR_VALUE"),
    ],
)
def test_invalid_list_parameters_answer_400(
    rest: LiveServer, params: dict[str, str], message: str
) -> None:
    response = rest.client.get("/variable-instance", params=params)
    assert response.status_code == 400, response.text
    assert response.json()["type"] == "InvalidRequestException"
    assert message in response.json()["message"]


def test_invalid_json_query_answers_400(rest: LiveServer) -> None:
    for path in ("/variable-instance", "/variable-instance/count"):
        response = rest.client.post(
            path, json={"variableValues": [{"name": "a", "operator": "gt", "value": None}]}
        )
        assert response.status_code == 400, response.text
        assert "null" in response.json()["message"]
    wrong_type = rest.client.post("/variable-instance", json={"taskIdIn": 5})
    assert wrong_type.status_code == 400


# -- one variable ---------------------------------------------------------------------------------


@pytest.mark.usefixtures("models")
def test_get_one_variable_instance(rest: LiveServer) -> None:
    instance = start(rest, {"o": TypedValue("Object", {"k": "v"}, {"objectTypeName": "K"})})
    [item] = listed(rest, instance.id)
    response = rest.client.get(f"/variable-instance/{item['id']}")
    assert response.status_code == 200
    assert response.json() == item
    raw = rest.client.get(f"/variable-instance/{item['id']}", params={"deserializeValue": "false"})
    assert raw.json()["value"] == '{"k":"v"}'


def test_get_unknown_variable_instance_is_404(rest: LiveServer) -> None:
    response = rest.client.get("/variable-instance/no-such-variable")
    assert response.status_code == 404
    assert response.json()["type"] == "InvalidRequestException"
    assert "no-such-variable" in response.json()["message"]
    assert rest.client.get("/variable-instance/no-such-variable/data").status_code == 404


@pytest.mark.usefixtures("models")
def test_binary_data(rest: LiveServer) -> None:
    payload = b"\x89PNG\r\n\x1a\n" + bytes(100)
    instance = start(rest, {"image": payload, "caption": "a picture"})
    found = {v["name"]: v["id"] for v in listed(rest, instance.id)}
    response = rest.client.get(f"/variable-instance/{found['image']}/data")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/octet-stream")
    assert response.content == payload
    not_binary = rest.client.get(f"/variable-instance/{found['caption']}/data")
    assert not_binary.status_code == 400
    assert found["caption"] in not_binary.json()["message"]


@pytest.mark.usefixtures("models")
def test_removed_variables_disappear(rest: LiveServer) -> None:
    instance = start(rest, {"gone": 1, "stays": 2})
    gone_id = next(v["id"] for v in listed(rest, instance.id) if v["name"] == "gone")
    rest.engine.runtime_service.remove_variables(instance.id, ["gone"])
    assert names(listed(rest, instance.id)) == ["stays"]
    assert rest.client.get(f"/variable-instance/{gone_id}").status_code == 404


def test_nul_characters_are_refused_not_a_database_error(rest: LiveServer) -> None:
    response = rest.client.get("/variable-instance", params={"variableName": "\x00"})
    assert response.status_code == 400
    assert "NUL" in response.json()["message"]
    assert rest.client.get("/variable-instance/a%00b").status_code == 404
    assert rest.client.get("/variable-instance/a%00b/data").status_code == 404
