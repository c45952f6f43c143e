"""The process-instance resource: lists and counts with their filters, one instance, deleting
it, its variables and its activity instance tree."""

from __future__ import annotations

import base64
import uuid
from typing import Any

import pytest

from flowledger.core import TypedValue
from tests.support import BPMN_DIR

from .server import LiveServer

WAIT = BPMN_DIR / "rest_pi_wait.bpmn"
SUBPROCESS = BPMN_DIR / "embedded_subprocess.bpmn"
INSTANCE_FIELDS = {
    "links",
    "id",
    "definitionId",
    "businessKey",
    "caseInstanceId",
    "ended",
    "suspended",
    "tenantId",
}


@pytest.fixture(scope="module")
def models(rest: LiveServer) -> None:
    rest.engine.deploy(WAIT)
    rest.engine.deploy(SUBPROCESS)


def key() -> str:
    """A business key no other test uses: every test looks only at its own instances."""
    return f"bk-{uuid.uuid4().hex[:12]}"


def start(rest: LiveServer, business_key: str, variables: dict[str, Any] | None = None) -> str:
    instance = rest.engine.start_process_instance("restPiWait", variables or {}, business_key)
    return instance.id


def ids(response: Any) -> list[str]:
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()]


# -- list and count -------------------------------------------------------------------------------


@pytest.mark.usefixtures("models")
def test_list_answers_camunda_process_instance_dtos(rest: LiveServer) -> None:
    bk = key()
    instance_id = start(rest, bk)
    response = rest.client.get("/process-instance", params={"businessKey": bk})
    assert response.status_code == 200
    [dto] = response.json()
    assert set(dto) == INSTANCE_FIELDS
    definition = rest.engine.runtime_service.process_instance(instance_id)
    assert definition is not None
    assert dto == {
        "links": [],
        "id": instance_id,
        "definitionId": definition.definition_id,
        "businessKey": bk,
        "caseInstanceId": None,
        "ended": False,
        "suspended": False,
        "tenantId": None,
    }


@pytest.mark.usefixtures("models")
def test_list_filters_by_ids_keys_and_definition(rest: LiveServer) -> None:
    bk = key()
    first, second = start(rest, bk), start(rest, bk)
    other = rest.engine.start_process_instance("embeddedSubprocess", {}, bk).id
    get = rest.client.get
    assert set(ids(get("/process-instance", params={"businessKey": bk}))) == {first, second, other}
    assert ids(get("/process-instance", params={"processInstanceIds": f"{first},{other}"})) == (
        sorted([first, other])
    )
    by_key = get(
        "/process-instance", params={"businessKey": bk, "processDefinitionKey": "restPiWait"}
    )
    assert set(ids(by_key)) == {first, second}
    key_in = {"businessKey": bk, "processDefinitionKeyIn": "embeddedSubprocess,nothing"}
    assert ids(get("/process-instance", params=key_in)) == [other]
    not_in = {"businessKey": bk, "processDefinitionKeyNotIn": "embeddedSubprocess"}
    assert set(ids(get("/process-instance", params=not_in))) == {first, second}
    like = {"businessKeyLike": bk[:-2] + "%"}
    assert set(ids(get("/process-instance", params=like))) == {first, second, other}
    definition = rest.engine.runtime_service.process_instance(other)
    assert definition is not None
    by_definition = {"businessKey": bk, "processDefinitionId": definition.definition_id}
    assert ids(get("/process-instance", params=by_definition)) == [other]
    deployment_id = rest.engine.repository_service.process_definitions("embeddedSubprocess")[
        0
    ].deployment_id
    by_deployment = {"businessKey": bk, "deploymentId": deployment_id}
    assert ids(get("/process-instance", params=by_deployment)) == [other]


@pytest.mark.usefixtures("models")
def test_list_filters_by_state_hierarchy_and_tenant(rest: LiveServer) -> None:
    bk = key()
    instance_id = start(rest, bk)
    get = rest.client.get
    for matching in (
        {"active": "true"},
        {"rootProcessInstances": "true"},
        {"withoutTenantId": "true"},
    ):
        assert ids(get("/process-instance", params={"businessKey": bk, **matching})) == [
            instance_id
        ]
    # No suspension, incidents, tenants or call activities here: those filters match nothing.
    for empty in (
        {"suspended": "true"},
        {"withIncident": "true"},
        {"incidentType": "failedJob"},
        {"tenantIdIn": "acme"},
        {"superProcessInstance": instance_id},
        {"subProcessInstance": instance_id},
    ):
        assert ids(get("/process-instance", params={"businessKey": bk, **empty})) == [], empty
    leaf = {"businessKey": bk, "leafProcessInstances": "true"}
    assert ids(get("/process-instance", params=leaf)) == [instance_id]


@pytest.mark.usefixtures("models")
def test_activity_id_in_finds_instances_waiting_there(rest: LiveServer) -> None:
    bk = key()
    waiting = start(rest, bk)
    reviewing = start(rest, bk)
    rest.engine.runtime_service.trigger(reviewing)
    nested = rest.engine.start_process_instance("embeddedSubprocess", {}, bk).id
    get = rest.client.get
    assert ids(get("/process-instance", params={"businessKey": bk, "activityIdIn": "review"})) == [
        reviewing
    ]
    both = {"businessKey": bk, "activityIdIn": "waitForSignal,checkB"}
    assert set(ids(get("/process-instance", params=both))) == {waiting, nested}


@pytest.mark.usefixtures("models")
def test_variable_filters_in_the_query_string_compare_strings(rest: LiveServer) -> None:
    bk = key()
    hello = start(rest, bk, {"word": "Hello", "count": 5})
    other = start(rest, bk, {"word": "other", "count": 7})
    get = rest.client.get

    def found(variables: str, **extra: str) -> set[str]:
        return set(
            ids(
                get(
                    "/process-instance", params={"businessKey": bk, "variables": variables, **extra}
                )
            )
        )

    assert found("word_eq_Hello") == {hello}
    assert found("word_neq_Hello") == {other}
    assert found("word_like_H%") == {hello}
    assert found("word_notLike_H%") == {other}
    assert found("word_eq_hello") == set()
    assert found("word_eq_hello", variableValuesIgnoreCase="true") == {hello}
    assert found("WORD_eq_Hello", variableNamesIgnoreCase="true") == {hello}
    assert found("word_gt_Hello,word_lt_zzz") == {other}
    # As in Camunda, a query-string value is a String: it does not match an Integer variable.
    assert found("count_eq_5") == set()
    assert found("missing_neq_x") == set()


@pytest.mark.usefixtures("models")
def test_variable_filters_in_a_json_query_compare_by_type(rest: LiveServer) -> None:
    bk = key()
    small = start(
        rest,
        bk,
        {"amount": 5, "ratio": 0.5, "flag": True, "big": TypedValue("Long", 10**12), "n": None},
    )
    large = start(rest, bk, {"amount": 50, "ratio": 2.5, "flag": False, "big": 1, "n": "x"})

    def found(*conditions: dict[str, Any]) -> list[str]:
        body = {"businessKey": bk, "variables": list(conditions)}
        return ids(rest.client.post("/process-instance", json=body))

    assert found({"name": "amount", "operator": "gt", "value": 10}) == [large]
    assert found({"name": "amount", "operator": "lteq", "value": 5.0}) == [small]
    assert found({"name": "ratio", "operator": "lt", "value": 1}) == [small]
    assert found({"name": "ratio", "operator": "eq", "value": 2.5}) == [large]
    assert found({"name": "big", "operator": "gteq", "value": 10**12}) == [small]
    assert found({"name": "flag", "operator": "eq", "value": True}) == [small]
    assert found({"name": "flag", "operator": "neq", "value": True}) == [large]
    assert found({"name": "n", "operator": "eq", "value": None}) == [small]
    assert found({"name": "amount", "operator": "eq", "value": "5"}) == []
    both = found(
        {"name": "amount", "operator": "gteq", "value": 5},
        {"name": "ratio", "operator": "gt", "value": 1},
    )
    assert both == [large]


@pytest.mark.usefixtures("models")
def test_sorting_and_paging(rest: LiveServer) -> None:
    bk = key()
    started = [
        rest.engine.start_process_instance("restPiWait", {}, f"{bk}-{n}").id for n in range(3)
    ]
    params = {"businessKeyLike": f"{bk}-%", "sortBy": "businessKey", "sortOrder": "desc"}
    assert ids(rest.client.get("/process-instance", params=params)) == started[::-1]
    page = ids(
        rest.client.get("/process-instance", params={**params, "firstResult": 1, "maxResults": 1})
    )
    assert page == [started[1]]
    body = {
        "businessKeyLike": f"{bk}-%",
        "sorting": [
            {"sortBy": "definitionKey", "sortOrder": "asc"},
            {"sortBy": "instanceId", "sortOrder": "desc"},
        ],
    }
    assert ids(rest.client.post("/process-instance", json=body)) == sorted(started, reverse=True)


@pytest.mark.usefixtures("models")
def test_count_answers_the_number_of_matches(rest: LiveServer) -> None:
    bk = key()
    start(rest, bk, {"word": "a"})
    start(rest, bk, {"word": "b"})
    response = rest.client.get("/process-instance/count", params={"businessKey": bk})
    assert response.status_code == 200
    assert response.json() == {"count": 2}
    body = {"businessKey": bk, "variables": [{"name": "word", "operator": "eq", "value": "a"}]}
    assert rest.client.post("/process-instance/count", json=body).json() == {"count": 1}
    assert rest.client.post("/process-instance/count").json()["count"] >= 2


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"sortBy": "nonsense", "sortOrder": "asc"}, "sortBy"),
        ({"sortBy": "businessKey"}, "sortOrder"),
        ({"firstResult": "abc"}, "firstResult"),
        ({"maxResults": "99999999999999999999999"}, "maxResults"),
        ({"variables": "word_XXX_1"}, "Invalid variable comparator specified: XXX"),
        ({"variables": "word_eq"}, "KEY_OPERATOR_VALUE"),
        ({"variables": "word_gt_1,a_b_c_d"}, "KEY_OPERATOR_VALUE"),
    ],
)
def test_invalid_list_parameters_answer_400(
    rest: LiveServer, params: dict[str, str], message: str
) -> None:
    for path in ("/process-instance", "/process-instance/count"):
        if path.endswith("count") and "variables" not in params:
            continue  # counts ignore sorting and paging, as Camunda's do
        response = rest.client.get(path, params=params)
        assert response.status_code == 400, response.text
        assert response.json()["type"] == "InvalidRequestException"
        assert message in response.json()["message"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"variables": [{"name": "a", "operator": "gt", "value": None}]}, "null"),
        ({"variables": [{"name": "a", "operator": "lt", "value": True}]}, "Booleans"),
        ({"variables": [{"name": "a", "operator": "like", "value": 5}]}, "Only string values"),
        ({"variables": [{"name": "a", "operator": "between", "value": 5}]}, "comparator"),
        ({"sorting": [{"sortBy": "nonsense", "sortOrder": "asc"}]}, "sortBy"),
        ({"orQueries": [{"businessKey": "x"}]}, "orQueries"),
        ({"processInstanceIds": "not-a-list"}, "processInstanceIds"),
    ],
)
def test_invalid_json_queries_answer_400(
    rest: LiveServer, body: dict[str, Any], message: str
) -> None:
    response = rest.client.post("/process-instance", json=body)
    assert response.status_code == 400, response.text
    assert message in response.json()["message"]


# -- one instance ---------------------------------------------------------------------------------


@pytest.mark.usefixtures("models")
def test_get_one_instance(rest: LiveServer) -> None:
    bk = key()
    instance_id = start(rest, bk)
    response = rest.client.get(f"/process-instance/{instance_id}")
    assert response.status_code == 200
    assert set(response.json()) == INSTANCE_FIELDS
    assert response.json()["id"] == instance_id
    assert response.json()["businessKey"] == bk


@pytest.mark.usefixtures("models")
def test_get_unknown_or_ended_instance_is_404(rest: LiveServer) -> None:
    response = rest.client.get("/process-instance/no-such-instance")
    assert response.status_code == 404
    assert response.json()["type"] == "InvalidRequestException"
    assert "no-such-instance" in response.json()["message"]
    instance_id = start(rest, key())
    rest.engine.runtime_service.delete_process_instance(instance_id)
    assert rest.client.get(f"/process-instance/{instance_id}").status_code == 404


@pytest.mark.usefixtures("models")
def test_delete_ends_the_instance(rest: LiveServer) -> None:
    bk = key()
    instance_id = start(rest, bk)
    response = rest.client.delete(
        f"/process-instance/{instance_id}",
        params={"skipCustomListeners": "true", "skipIoMappings": "true"},
    )
    assert response.status_code == 204
    assert response.content == b""
    assert rest.client.get(f"/process-instance/{instance_id}").status_code == 404
    assert rest.engine.runtime_service.executions(instance_id) == []
    assert rest.client.get("/process-instance/count", params={"businessKey": bk}).json() == {
        "count": 0
    }


def test_delete_unknown_instance_is_404_unless_told_not_to_fail(rest: LiveServer) -> None:
    response = rest.client.delete("/process-instance/no-such-instance")
    assert response.status_code == 404
    assert "no-such-instance" in response.json()["message"]
    lenient = rest.client.delete(
        "/process-instance/no-such-instance", params={"failIfNotExists": "false"}
    )
    assert lenient.status_code == 204


# -- activity instances ---------------------------------------------------------------------------

TREE_FIELDS = {
    "id",
    "parentActivityInstanceId",
    "activityId",
    "activityName",
    "activityType",
    "processInstanceId",
    "processDefinitionId",
    "childActivityInstances",
    "childTransitionInstances",
    "executionIds",
    "incidentIds",
    "incidents",
}


@pytest.mark.usefixtures("models")
def test_activity_instance_tree(rest: LiveServer) -> None:
    instance = rest.engine.start_process_instance("embeddedSubprocess", {}, key())
    response = rest.client.get(f"/process-instance/{instance.id}/activity-instances")
    assert response.status_code == 200
    root = response.json()
    assert set(root) == TREE_FIELDS
    assert root["id"] == instance.id
    assert root["parentActivityInstanceId"] is None
    assert root["activityType"] == "processDefinition"
    assert root["activityId"] == instance.definition_id
    assert root["processDefinitionId"] == instance.definition_id
    assert root["executionIds"] == [instance.id]
    [sub] = root["childActivityInstances"]
    assert set(sub) == TREE_FIELDS
    assert (sub["activityId"], sub["activityType"], sub["activityName"]) == (
        "sub",
        "subProcess",
        "Check",
    )
    assert sub["parentActivityInstanceId"] == instance.id
    assert sub["processInstanceId"] == instance.id
    children = sorted(sub["childActivityInstances"], key=lambda c: c["activityId"])
    assert [c["activityId"] for c in children] == ["checkA", "checkB"]
    assert all(c["parentActivityInstanceId"] == sub["id"] for c in children)
    tasks = {
        t.task_definition_key: t.execution_id
        for t in rest.engine.tasks(process_instance_id=instance.id)
    }
    assert [c["executionIds"] for c in children] == [[tasks["checkA"]], [tasks["checkB"]]]
    assert all(c["incidents"] == [] and c["childTransitionInstances"] == [] for c in children)


def test_a_waiting_continuation_is_a_transition_instance_with_its_incident(
    rest: LiveServer,
) -> None:
    rest.engine.deploy(
        """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="asyncTree" isExecutable="true">
    <startEvent id="s"/>
    <scriptTask id="divide" name="Divide" scriptFormat="juel" camunda:asyncBefore="true">
      <script>${1 / missing}</script>
    </scriptTask>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="divide"/>
    <sequenceFlow id="f2" sourceRef="divide" targetRef="e"/>
  </process>
</definitions>"""
    )
    instance = rest.engine.start_process_instance("asyncTree")
    (job,) = rest.engine.management_service.jobs(process_instance_id=instance.id)
    rest.engine.management_service.set_job_retries(job.id, 0)
    (incident,) = rest.engine.runtime_service.incidents(process_instance_id=instance.id)
    root = rest.client.get(f"/process-instance/{instance.id}/activity-instances").json()
    assert root["childActivityInstances"] == []
    (transition,) = root["childTransitionInstances"]
    assert transition == {
        "id": job.execution_id,
        "parentActivityInstanceId": instance.id,
        "activityId": "divide",
        "activityName": "Divide",
        "activityType": "scriptTask",
        "processInstanceId": instance.id,
        "processDefinitionId": instance.definition_id,
        "executionId": job.execution_id,
        "incidentIds": [incident.id],
        "incidents": [{"id": incident.id, "parentActivityInstanceId": job.execution_id}],
    }


def test_activity_instances_of_unknown_instance_is_404(rest: LiveServer) -> None:
    response = rest.client.get("/process-instance/no-such-instance/activity-instances")
    assert response.status_code == 404
    assert "no-such-instance" in response.json()["message"]


# -- variables ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("models")
def test_get_variables_as_typed_values(rest: LiveServer) -> None:
    instance_id = start(
        rest,
        key(),
        {
            "word": "Hello",
            "count": 5,
            "ok": True,
            "order": TypedValue("Object", {"id": 1}, {"objectTypeName": "Order"}),
        },
    )
    response = rest.client.get(f"/process-instance/{instance_id}/variables")
    assert response.status_code == 200
    found = response.json()
    assert found["word"] == {"value": "Hello", "type": "String", "valueInfo": {}}
    assert found["count"] == {"value": 5, "type": "Integer", "valueInfo": {}}
    assert found["ok"] == {"value": True, "type": "Boolean", "valueInfo": {}}
    assert found["order"]["value"] == {"id": 1}
    assert found["order"]["valueInfo"]["objectTypeName"] == "Order"
    serialized = rest.client.get(
        f"/process-instance/{instance_id}/variables", params={"deserializeValues": "false"}
    ).json()
    assert serialized["order"]["value"] == '{"id":1}'
    one = rest.client.get(f"/process-instance/{instance_id}/variables/count")
    assert one.status_code == 200
    assert one.json() == {"value": 5, "type": "Integer", "valueInfo": {}}
    raw = rest.client.get(
        f"/process-instance/{instance_id}/variables/order", params={"deserializeValue": "false"}
    )
    assert raw.json()["value"] == '{"id":1}'


@pytest.mark.usefixtures("models")
def test_missing_variable_and_unknown_instance_are_404(rest: LiveServer) -> None:
    instance_id = start(rest, key())
    response = rest.client.get(f"/process-instance/{instance_id}/variables/nothing")
    assert response.status_code == 404
    assert response.json() == {
        "type": "InvalidRequestException",
        "message": "process instance variable with name nothing does not exist",
    }
    for method, path in (
        ("GET", "/variables"),
        ("GET", "/variables/x"),
        ("PUT", "/variables/x"),
        ("DELETE", "/variables/x"),
        ("POST", "/variables"),
        ("GET", "/variables/x/data"),
    ):
        body = {"value": 1} if method in ("PUT", "POST") else None
        answer = rest.client.request(method, f"/process-instance/nobody{path}", json=body)
        assert answer.status_code == 404, (method, path, answer.text)
        assert "nobody" in answer.json()["message"]


@pytest.mark.usefixtures("models")
def test_put_and_delete_one_variable(rest: LiveServer) -> None:
    instance_id = start(rest, key())
    path = f"/process-instance/{instance_id}/variables/amount"
    response = rest.client.put(path, json={"value": "42", "type": "Long", "valueInfo": None})
    assert response.status_code == 204
    assert rest.engine.runtime_service.get_variables_typed(instance_id)["amount"] == (42, "Long")
    untyped = rest.client.put(path, json={"value": 2.5})
    assert untyped.status_code == 204
    assert rest.engine.runtime_service.get_variables_typed(instance_id)["amount"] == (2.5, "Double")
    assert rest.client.delete(path).status_code == 204
    assert "amount" not in rest.engine.runtime_service.get_variables(instance_id)
    # Deleting what is not there is no error, as in Camunda.
    assert rest.client.delete(path).status_code == 204


@pytest.mark.usefixtures("models")
def test_put_invalid_value_is_400_and_changes_nothing(rest: LiveServer) -> None:
    instance_id = start(rest, key(), {"amount": 1})
    path = f"/process-instance/{instance_id}/variables/amount"
    response = rest.client.put(path, json={"value": "abc", "type": "Integer"})
    assert response.status_code == 400
    assert "amount" in response.json()["message"]
    assert rest.client.put(path, json={"value": 1, "type": "NoSuchType"}).status_code == 400
    assert rest.client.put(path, json={"value": [1]}).status_code == 204  # a list is Json
    assert rest.client.put(path, json="not an object").status_code == 400
    assert rest.engine.runtime_service.get_variables_typed(instance_id)["amount"] == ([1], "Json")


@pytest.mark.usefixtures("models")
def test_post_modifications_and_deletions(rest: LiveServer) -> None:
    instance_id = start(rest, key(), {"old": "x", "keep": 1})
    body = {
        "modifications": {"new": {"value": True, "type": "Boolean"}, "keep": {"value": 2}},
        "deletions": ["old"],
    }
    response = rest.client.post(f"/process-instance/{instance_id}/variables", json=body)
    assert response.status_code == 204
    assert rest.engine.runtime_service.get_variables(instance_id) == {"keep": 2, "new": True}


@pytest.mark.usefixtures("models")
def test_post_with_an_invalid_modification_writes_nothing(rest: LiveServer) -> None:
    instance_id = start(rest, key(), {"old": "x"})
    body = {
        "modifications": {"bad": {"value": "x", "type": "Xml"}},
        "deletions": ["old"],
    }
    response = rest.client.post(f"/process-instance/{instance_id}/variables", json=body)
    assert response.status_code == 400
    assert rest.engine.runtime_service.get_variables(instance_id) == {"old": "x"}


@pytest.mark.usefixtures("models")
def test_binary_data_of_a_bytes_variable(rest: LiveServer) -> None:
    payload = bytes(range(256))
    instance_id = start(rest, key(), {"blob": payload, "word": "text"})
    response = rest.client.get(f"/process-instance/{instance_id}/variables/blob/data")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/octet-stream")
    assert response.content == payload
    listed = rest.client.get(f"/process-instance/{instance_id}/variables").json()
    assert base64.b64decode(listed["blob"]["value"]) == payload
    not_binary = rest.client.get(f"/process-instance/{instance_id}/variables/word/data")
    assert not_binary.status_code == 400
    assert "word" in not_binary.json()["message"]
    missing = rest.client.get(f"/process-instance/{instance_id}/variables/nothing/data")
    assert missing.status_code == 404


@pytest.mark.usefixtures("models")
def test_nul_characters_are_refused_not_a_database_error(rest: LiveServer) -> None:
    # PostgreSQL cannot store or even compare text holding a NUL character.
    instance_id = start(rest, key())
    for params in ({"businessKey": "a\x00b"}, {"variables": "word_eq_a\x00"}):
        response = rest.client.get("/process-instance", params=params)
        assert response.status_code == 400, response.text
        assert "NUL" in response.json()["message"]
    body = {"variables": [{"name": "word", "operator": "eq", "value": "\x00"}]}
    assert rest.client.post("/process-instance/count", json=body).status_code == 400
    put = rest.client.put(f"/process-instance/{instance_id}/variables/word", json={"value": "\x00"})
    assert put.status_code == 400
    assert "word" not in rest.engine.runtime_service.get_variables(instance_id)
    assert rest.client.get("/process-instance/a%00b").status_code == 404
    assert rest.client.get("/process-instance/a%00b/variables").status_code == 404
    assert rest.client.delete("/process-instance/a%00b").status_code == 404
