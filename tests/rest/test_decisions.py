"""The DMN resources: deploying decisions, `/decision-definition` (list, count, by id or key, XML,
diagram, evaluate), `/decision-requirements-definition`, and `/history/decision-instance` with
the inputs and outputs of each evaluated decision."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from flowledger import Engine
from flowledger.rest.auth import Users, hash_password
from tests.dmn.models import dinner, dish, table
from tests.support import bpmn, fresh_database, selected_kind

from .server import LiveServer, live_server

DECISION_KEYS = {
    "id",
    "key",
    "category",
    "name",
    "version",
    "resource",
    "deploymentId",
    "tenantId",
    "decisionRequirementsDefinitionId",
    "decisionRequirementsDefinitionKey",
    "historyTimeToLive",
    "versionTag",
}
REQUIREMENTS_KEYS = {
    "id",
    "key",
    "name",
    "category",
    "version",
    "resource",
    "deploymentId",
    "tenantId",
}
INSTANCE_KEYS = {
    "id",
    "decisionDefinitionId",
    "decisionDefinitionKey",
    "decisionDefinitionName",
    "evaluationTime",
    "removalTime",
    "processDefinitionId",
    "processDefinitionKey",
    "processInstanceId",
    "caseDefinitionId",
    "caseDefinitionKey",
    "caseInstanceId",
    "activityId",
    "activityInstanceId",
    "tenantId",
    "userId",
    "inputs",
    "outputs",
    "collectResultValue",
    "rootDecisionInstanceId",
    "rootProcessInstanceId",
    "decisionRequirementsDefinitionId",
    "decisionRequirementsDefinitionKey",
}
INPUT_KEYS = {
    "id",
    "decisionInstanceId",
    "clauseId",
    "clauseName",
    "errorMessage",
    "type",
    "value",
    "valueInfo",
    "createTime",
    "removalTime",
    "rootProcessInstanceId",
}
OUTPUT_KEYS = INPUT_KEYS | {"ruleId", "ruleOrder", "variableName"}
CAMUNDA_DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}$")


def unique_key(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def renamed(data: bytes, **ids: str) -> bytes:
    """A DMN resource whose decisions (and DRG) carry other ids: each test its own keys."""
    for old, new in ids.items():
        data = data.replace(f'id="{old}"'.encode(), f'id="{new}"'.encode())
        data = data.replace(f'href="#{old}"'.encode(), f'href="#{new}"'.encode())
    return data


def deploy(rest: LiveServer, *resources: tuple[str, bytes]) -> dict[str, Any]:
    files = [
        (f"resource-{i}", (name, data, "application/octet-stream"))
        for i, (name, data) in enumerate(resources)
    ]
    response = rest.client.post(
        "/deployment/create", data={"deployment-name": "decisions"}, files=files
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def deploy_dish(rest: LiveServer, key: str, **options: Any) -> dict[str, Any]:
    """Deploy the dish table as `key`; its decision definition DTO."""
    body = deploy(rest, ("dish.dmn", renamed(dish(**options), dish=key)))
    [definition] = body["deployedDecisionDefinitions"].values()
    assert isinstance(definition, dict)
    return definition


def deploy_dinner(rest: LiveServer, tag: str) -> dict[str, Any]:
    """Deploy the dinner DRG with keys ending in `tag`; the deployment DTO."""
    data = renamed(
        dinner(), dish=f"dish_{tag}", beverages=f"beverages_{tag}", dinner=f"dinner_{tag}"
    )
    return deploy(rest, ("dinner.dmn", data))


def get_json(rest: LiveServer, path: str, **params: str) -> Any:
    response = rest.client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def ids(rest: LiveServer, path: str, **params: str) -> list[str]:
    return [d["id"] for d in get_json(rest, path, **params)]


def evaluate(rest: LiveServer, path: str, variables: dict[str, Any]) -> list[dict[str, Any]]:
    response = rest.client.post(path, json={"variables": variables})
    assert response.status_code == 200, response.text
    result: list[dict[str, Any]] = response.json()
    return result


def typed(value: Any, kind: str) -> dict[str, Any]:
    return {"value": value, "type": kind}


def dinner_variables(season: str, guests: int, children: bool) -> dict[str, Any]:
    return {
        "season": typed(season, "String"),
        "guestCount": typed(guests, "Integer"),
        "guestsWithChildren": typed(children, "Boolean"),
    }


# -- deployment -----------------------------------------------------------------------------------


def test_deploying_a_decision_answers_its_definition(rest: LiveServer) -> None:
    key = unique_key("dish")
    body = deploy(rest, ("dish.dmn", renamed(dish(), dish=key)))

    [(definition_id, definition)] = body["deployedDecisionDefinitions"].items()
    assert set(definition) == DECISION_KEYS
    assert definition_id == definition["id"]
    assert definition["key"] == key
    assert definition["name"] == "Dish"
    assert definition["version"] == 1
    assert definition["resource"] == "dish.dmn"
    assert definition["deploymentId"] == body["id"]
    assert definition["versionTag"] == "v1"
    assert definition["historyTimeToLive"] == 30
    assert definition["tenantId"] is None
    assert definition["decisionRequirementsDefinitionId"] is None
    # One decision makes no DRG; and there is no process in the deployment.
    assert body["deployedDecisionRequirementsDefinitions"] is None
    assert body["deployedProcessDefinitions"] is None
    assert body["deployedCaseDefinitions"] is None


def test_deploying_a_drg_answers_its_decisions_and_requirements(rest: LiveServer) -> None:
    tag = uuid.uuid4().hex[:10]
    body = deploy_dinner(rest, tag)

    decisions = body["deployedDecisionDefinitions"]
    assert sorted(d["key"] for d in decisions.values()) == [f"beverages_{tag}", f"dish_{tag}"]
    [(requirements_id, requirements)] = body["deployedDecisionRequirementsDefinitions"].items()
    assert set(requirements) == REQUIREMENTS_KEYS
    assert requirements["id"] == requirements_id
    assert requirements["key"] == f"dinner_{tag}"
    assert requirements["name"] == "Dinner"
    assert requirements["resource"] == "dinner.dmn"
    assert requirements["deploymentId"] == body["id"]
    for decision in decisions.values():
        assert decision["decisionRequirementsDefinitionId"] == requirements_id
        assert decision["decisionRequirementsDefinitionKey"] == f"dinner_{tag}"


def test_a_process_and_a_decision_deploy_together(rest: LiveServer) -> None:
    key = unique_key("beside")
    body = deploy(
        rest,
        ("straight.bpmn", bpmn("rest_repo_straight.bpmn").read_bytes()),
        ("dish.dmn", renamed(dish(), dish=key)),
    )

    [process] = body["deployedProcessDefinitions"].values()
    [decision] = body["deployedDecisionDefinitions"].values()
    assert process["resource"] == "straight.bpmn"
    assert decision["key"] == key
    assert body["deployedDecisionRequirementsDefinitions"] is None


def test_a_filtered_duplicate_answers_no_definitions(rest: LiveServer) -> None:
    key = unique_key("duplicate")
    form = {"deployment-name": key, "enable-duplicate-filtering": "true"}
    files = [("data", ("dinner.dmn", renamed(dinner(), dinner=key), "text/xml"))]

    first = rest.client.post("/deployment/create", data=form, files=files).json()
    again = rest.client.post("/deployment/create", data=form, files=files).json()

    assert len(first["deployedDecisionDefinitions"]) == 2
    assert len(first["deployedDecisionRequirementsDefinitions"]) == 1
    assert again["id"] == first["id"]
    assert again["deployedDecisionDefinitions"] is None
    assert again["deployedDecisionRequirementsDefinitions"] is None


# -- GET /decision-definition, /count -------------------------------------------------------------


def test_list_filters_sorts_pages_and_counts(rest: LiveServer) -> None:
    key = unique_key("dishes")
    first = deploy_dish(rest, key)
    second = deploy_dish(rest, key)
    path = "/decision-definition"

    [found] = get_json(rest, path, decisionDefinitionId=first["id"])
    assert found == first
    assert ids(rest, path, key=key, sortBy="version", sortOrder="asc") == [
        first["id"],
        second["id"],
    ]
    assert ids(rest, path, key=key, sortBy="version", sortOrder="desc") == [
        second["id"],
        first["id"],
    ]
    assert ids(rest, path, key=key, latestVersion="true") == [second["id"]]
    assert ids(rest, path, key=key, version="1") == [first["id"]]
    assert ids(rest, path, keyLike=f"{key[:-3]}%", version="2") == [second["id"]]
    assert ids(rest, path, deploymentId=second["deploymentId"]) == [second["id"]]
    assert ids(rest, path, key=key, versionTag="v1", resourceName="dish.dmn", name="Dish") == [
        first["id"],
        second["id"],
    ]
    assert ids(rest, path, key=key, withoutDecisionRequirementsDefinition="true") == [
        first["id"],
        second["id"],
    ]
    assert ids(rest, path, key=key, decisionRequirementsDefinitionKey="nothing") == []
    assert ids(rest, path, key=key, deployedAfter="2999-01-01T00:00:00.000+0000") == []
    paged = {"key": key, "sortBy": "deployTime", "sortOrder": "asc"}
    assert ids(rest, path, **paged, firstResult="1", maxResults="5") == [second["id"]]
    assert ids(rest, path, **paged, maxResults="1") == [first["id"]]
    assert get_json(rest, f"{path}/count", key=key) == {"count": 2}
    assert get_json(rest, f"{path}/count", key=key, latestVersion="true") == {"count": 1}


@pytest.mark.parametrize(
    "sort_by",
    [
        "category",
        "decisionRequirementsDefinitionKey",
        "key",
        "id",
        "name",
        "version",
        "deploymentId",
        "deployTime",
        "versionTag",
        "tenantId",
    ],
)
def test_list_sorts_by_every_camunda_sort_key(rest: LiveServer, sort_by: str) -> None:
    response = rest.client.get(
        "/decision-definition", params={"sortBy": sort_by, "sortOrder": "desc", "maxResults": "3"}
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"sortBy": "color", "sortOrder": "asc"}, "sortBy"),
        ({"sortBy": "key"}, "sortOrder"),
        ({"version": "latest"}, "version"),
        ({"deployedAt": "yesterday"}, "deployedAt"),
    ],
)
def test_list_refuses_invalid_parameters(
    rest: LiveServer, params: dict[str, str], named: str
) -> None:
    response = rest.client.get("/decision-definition", params=params)

    assert response.status_code == 400
    assert response.json()["type"] == "InvalidRequestException"
    assert named in response.json()["message"]


# -- one decision definition ----------------------------------------------------------------------


def test_get_by_id_and_by_key_answers_the_latest_version(rest: LiveServer) -> None:
    key = unique_key("byKey")
    first = deploy_dish(rest, key)
    second = deploy_dish(rest, key)

    assert get_json(rest, f"/decision-definition/{first['id']}") == first
    assert get_json(rest, f"/decision-definition/key/{key}") == second


def test_xml_is_the_deployed_resource(rest: LiveServer) -> None:
    key = unique_key("xml")
    definition = deploy_dish(rest, key)

    by_id = get_json(rest, f"/decision-definition/{definition['id']}/xml")
    by_key = get_json(rest, f"/decision-definition/key/{key}/xml")

    assert by_id == by_key
    assert set(by_id) == {"id", "dmnXml"}
    assert by_id["id"] == definition["id"]
    assert by_id["dmnXml"] == renamed(dish(), dish=key).decode()


def test_a_definition_without_a_diagram_answers_204(rest: LiveServer) -> None:
    key = unique_key("diagram")
    definition = deploy_dish(rest, key)

    for path in (f"/decision-definition/{definition['id']}", f"/decision-definition/key/{key}"):
        response = rest.client.get(f"{path}/diagram")
        assert response.status_code == 204, response.text
        assert response.content == b""


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/decision-definition/nothing:1:x"),
        ("GET", "/decision-definition/key/nothing"),
        ("GET", "/decision-definition/nothing:1:x/xml"),
        ("GET", "/decision-definition/key/nothing/xml"),
        ("GET", "/decision-definition/nothing:1:x/diagram"),
        ("GET", "/decision-definition/key/nothing/diagram"),
        ("GET", "/decision-definition/key/nothing/tenant-id/acme"),
        ("POST", "/decision-definition/nothing:1:x/evaluate"),
        ("POST", "/decision-definition/key/nothing/evaluate"),
        ("POST", "/decision-definition/key/nothing/tenant-id/acme/evaluate"),
    ],
)
def test_unknown_decisions_are_404(rest: LiveServer, method: str, path: str) -> None:
    response = rest.client.request(method, path, json={} if method == "POST" else None)

    assert response.status_code == 404, response.text
    assert response.json()["type"] == "InvalidRequestException"
    assert "nothing" in response.json()["message"]


# -- evaluate -------------------------------------------------------------------------------------


def test_evaluate_by_key_and_by_id_answers_typed_results(rest: LiveServer) -> None:
    key = unique_key("discount")
    resource = table(
        [("amount", "integer"), ("vip", "boolean")],
        [("discount", "integer"), ("approved", "boolean"), ("label", "string")],
        [
            ("vip", [">= 100", "true"], ["10", "true", '"gold"']),
            ("small", ["< 100", "-"], ["0", "false", '"none"']),
            ("plain", [">= 100", "false"], ["5", "true", '"silver"']),
        ],
        decision_id=key,
    )
    [definition] = deploy(rest, ("discount.dmn", resource))["deployedDecisionDefinitions"].values()

    by_key = evaluate(
        rest,
        f"/decision-definition/key/{key}/evaluate",
        {"amount": typed(150, "Integer"), "vip": typed(True, "Boolean")},
    )
    by_id = evaluate(
        rest,
        f"/decision-definition/{definition['id']}/evaluate",
        {"amount": typed(150, "Integer"), "vip": typed(False, "Boolean")},
    )

    assert by_key == [
        {
            "discount": {"type": "Integer", "value": 10, "valueInfo": {}},
            "approved": {"type": "Boolean", "value": True, "valueInfo": {}},
            "label": {"type": "String", "value": "gold", "valueInfo": {}},
        }
    ]
    assert by_id[0]["discount"] == {"type": "Integer", "value": 5, "valueInfo": {}}
    assert by_id[0]["label"] == {"type": "String", "value": "silver", "valueInfo": {}}


def test_evaluate_with_string_and_integer_inputs(rest: LiveServer) -> None:
    key = unique_key("season")
    deploy_dish(rest, key)

    result = evaluate(
        rest,
        f"/decision-definition/key/{key}/evaluate",
        {"season": typed("Winter", "String"), "guestCount": typed(3, "Integer")},
    )
    untyped = evaluate(
        rest,
        f"/decision-definition/key/{key}/evaluate",
        {"season": {"value": "Spring"}, "guestCount": {"value": 12}},
    )

    assert result == [{"desiredDish": {"type": "String", "value": "Roastbeef", "valueInfo": {}}}]
    assert untyped == [{"desiredDish": {"type": "String", "value": "Stew", "valueInfo": {}}}]


def test_evaluate_a_collect_decision_with_a_required_one(rest: LiveServer) -> None:
    tag = uuid.uuid4().hex[:10]
    deploy_dinner(rest, tag)

    result = evaluate(
        rest,
        f"/decision-definition/key/beverages_{tag}/evaluate",
        dinner_variables("Fall", 4, True),
    )

    assert result == [
        {"beverages": {"type": "String", "value": "Aecht Schlenkerla Rauchbier", "valueInfo": {}}},
        {"beverages": {"type": "String", "value": "Apple Juice", "valueInfo": {}}},
    ]


def test_a_violated_unique_hit_policy_is_an_error_naming_the_decision(rest: LiveServer) -> None:
    key = unique_key("overlap")
    resource = table(
        [("amount", "integer")],
        [("size", "string")],
        [("small", ["< 10"], ['"small"']), ("any", ["-"], ['"any"'])],
        decision_id=key,
    )
    deploy(rest, ("overlap.dmn", resource))

    response = rest.client.post(
        f"/decision-definition/key/{key}/evaluate",
        json={"variables": {"amount": typed(5, "Integer")}},
    )

    assert response.status_code == 500
    body = response.json()
    assert body["type"] == "RestException"
    assert key in body["message"]
    assert "UNIQUE" in body["message"]
    assert "small" in body["message"] and "any" in body["message"]
    # A failed evaluation leaves no history.
    assert get_json(rest, "/history/decision-instance/count", decisionDefinitionKey=key) == {
        "count": 0
    }


def test_an_output_longer_than_a_string_can_hold_is_the_models_error(rest: LiveServer) -> None:
    """The caller's variables are short: the 4,001 characters are the decision's own output,
    a failed evaluation (500) naming the decision, the output and the limit, not a 400 blaming
    the request."""
    key = unique_key("longOutput")
    long_text = "x" * 4001
    resource = table(
        [("amount", "integer")],
        [("essay", "string")],
        [("any", ["-"], [f'"{long_text}"'])],
        decision_id=key,
    )
    deploy(rest, ("long.dmn", resource))

    response = rest.client.post(
        f"/decision-definition/key/{key}/evaluate",
        json={"variables": {"amount": typed(5, "Integer")}},
    )

    assert response.status_code == 500, response.text
    body = response.json()
    assert body["type"] == "RestException"
    assert f"decision '{key}'" in body["message"]
    assert "output 'essay'" in body["message"] and "4000" in body["message"]
    assert "Variable 'value'" not in body["message"]
    assert get_json(rest, "/history/decision-instance/count", decisionDefinitionKey=key) == {
        "count": 0
    }


def test_an_input_of_the_wrong_type_is_an_error_naming_the_decision(rest: LiveServer) -> None:
    key = unique_key("wrongType")
    deploy_dish(rest, key)

    response = rest.client.post(
        f"/decision-definition/key/{key}/evaluate",
        json={
            "variables": {"season": typed("Fall", "String"), "guestCount": typed("many", "String")}
        },
    )

    assert response.status_code == 500
    assert response.json()["type"] == "RestException"
    assert key in response.json()["message"]
    assert "integer" in response.json()["message"]


def test_evaluate_refuses_a_value_that_is_not_its_type(rest: LiveServer) -> None:
    key = unique_key("badValue")
    deploy_dish(rest, key)

    response = rest.client.post(
        f"/decision-definition/key/{key}/evaluate",
        json={"variables": {"guestCount": typed("four", "Integer")}},
    )

    assert response.status_code == 400, response.text
    assert response.json()["type"] == "InvalidRequestException"
    assert "guestCount" in response.json()["message"]


def test_dates_and_json_values_are_typed_in_results_and_history(rest: LiveServer) -> None:
    key = unique_key("dated")
    resource = table(
        [("when", "date"), ("document", "Any")],
        [("late", "boolean"), ("seen", "date")],
        [("always", ["-", "-"], ["true", 'date and time("2026-01-02T03:04:05")'])],
        decision_id=key,
    )
    deploy(rest, ("dated.dmn", resource))

    result = evaluate(
        rest,
        f"/decision-definition/key/{key}/evaluate",
        {
            "when": typed("2026-12-02T16:31:40.000+0000", "Date"),
            "document": typed({"pages": 3}, "Json"),
        },
    )

    assert result == [
        {
            "late": {"type": "Boolean", "value": True, "valueInfo": {}},
            "seen": {"type": "Date", "value": "2026-01-02T03:04:05.000+0000", "valueInfo": {}},
        }
    ]
    [instance] = get_json(
        rest,
        "/history/decision-instance",
        decisionDefinitionKey=key,
        includeInputs="true",
        includeOutputs="true",
    )
    assert [(i["type"], i["value"]) for i in instance["inputs"]] == [
        ("Date", "2026-12-02T16:31:40.000+0000"),
        ("Json", '{"pages":3}'),
    ]
    assert [(o["type"], o["value"]) for o in instance["outputs"]] == [
        ("Boolean", True),
        ("Date", "2026-01-02T03:04:05.000+0000"),
    ]


def test_a_date_variable_compares_with_a_local_date_and_time_in_an_entry(
    rest: LiveServer,
) -> None:
    key = unique_key("dated")
    resource = table(
        [("d", "date")],
        [("early", "boolean")],
        [
            ("before", ['< date and time("2030-01-01T00:00:00")'], ["true"]),
            ("after", ['>= date and time("2030-01-01T00:00:00")'], ["false"]),
        ],
        decision_id=key,
    )
    deploy(rest, ("dated.dmn", resource))

    def early(value: str) -> object:
        path = f"/decision-definition/key/{key}/evaluate"
        return evaluate(rest, path, {"d": typed(value, "Date")})

    assert early("2026-12-05T10:00:00.000+0000") == [
        {"early": {"type": "Boolean", "value": True, "valueInfo": {}}}
    ]
    assert early("2030-01-01T00:30:00.000+0100") == [
        {"early": {"type": "Boolean", "value": True, "valueInfo": {}}}
    ]
    assert early("2030-01-01T00:00:00.000+0000") == [
        {"early": {"type": "Boolean", "value": False, "valueInfo": {}}}
    ]


def test_a_nested_quantifier_pattern_evaluates_over_rest(rest: LiveServer) -> None:
    key = unique_key("pattern")
    resource = table(
        [("s", "string")],
        [("plain", "boolean")],
        [
            ("yes", ['matches(?, "^(a+)+$")'], ["true"]),
            ("no", ['not(matches(?, "^(a+)+$"))'], ["false"]),
        ],
        decision_id=key,
    )
    deploy(rest, ("pattern.dmn", resource))
    path = f"/decision-definition/key/{key}/evaluate"
    texts = {"a" * 3_999: True, "a" * 3_998 + "!": False}
    for text, expected in texts.items():
        assert evaluate(rest, path, {"s": typed(text, "String")}) == [
            {"plain": {"type": "Boolean", "value": expected, "valueInfo": {}}}
        ]


# -- /decision-requirements-definition ------------------------------------------------------------


def test_requirements_definitions_are_listed_counted_and_read(rest: LiveServer) -> None:
    tag = uuid.uuid4().hex[:10]
    first = deploy_dinner(rest, tag)
    second = deploy_dinner(rest, tag)
    [older] = first["deployedDecisionRequirementsDefinitions"].values()
    [newer] = second["deployedDecisionRequirementsDefinitions"].values()
    path = "/decision-requirements-definition"
    key = f"dinner_{tag}"

    assert get_json(rest, path, key=key, sortBy="version", sortOrder="asc") == [older, newer]
    assert ids(rest, path, key=key, sortBy="version", sortOrder="desc", maxResults="1") == [
        newer["id"]
    ]
    # Camunda's spelling of the category sort key
    assert len(ids(rest, path, key=key, sortBy="categery", sortOrder="desc")) == 2
    assert ids(rest, path, key=key, latestVersion="true") == [newer["id"]]
    assert ids(rest, path, decisionRequirementsDefinitionId=older["id"]) == [older["id"]]
    assert ids(rest, path, deploymentId=second["id"]) == [newer["id"]]
    assert ids(rest, path, keyLike=f"dinner_{tag[:4]}%", name="Dinner", version="1") == [
        older["id"]
    ]
    assert get_json(rest, f"{path}/count", key=key) == {"count": 2}
    assert get_json(rest, f"{path}/{older['id']}") == older
    assert get_json(rest, f"{path}/key/{key}") == newer
    xml = get_json(rest, f"{path}/key/{key}/xml")
    assert xml == get_json(rest, f"{path}/{newer['id']}/xml")
    assert xml["id"] == newer["id"]
    assert f'id="dinner_{tag}"' in xml["dmnXml"]
    assert rest.client.get(f"{path}/{older['id']}/diagram").status_code == 204
    assert rest.client.get(f"{path}/key/{key}/diagram").status_code == 204
    # The decisions of the DRG are found by it.
    found = get_json(rest, "/decision-definition", decisionRequirementsDefinitionId=newer["id"])
    assert sorted(d["key"] for d in found) == [f"beverages_{tag}", f"dish_{tag}"]


@pytest.mark.parametrize(
    "path",
    [
        "/decision-requirements-definition/nothing:1:x",
        "/decision-requirements-definition/key/nothing",
        "/decision-requirements-definition/nothing:1:x/xml",
        "/decision-requirements-definition/key/nothing/diagram",
    ],
)
def test_unknown_requirements_definitions_are_404(rest: LiveServer, path: str) -> None:
    response = rest.client.get(path)

    assert response.status_code == 404, response.text
    assert response.json()["type"] == "InvalidRequestException"


def test_requirements_list_refuses_an_unknown_sort(rest: LiveServer) -> None:
    response = rest.client.get(
        "/decision-requirements-definition", params={"sortBy": "color", "sortOrder": "asc"}
    )

    assert response.status_code == 400
    assert "sortBy" in response.json()["message"]


# -- /history/decision-instance -------------------------------------------------------------------


def _evaluated_dinner(rest: LiveServer) -> tuple[str, str]:
    """Deploy the dinner DRG and evaluate its beverages once; (tag, requirements key)."""
    tag = uuid.uuid4().hex[:10]
    deploy_dinner(rest, tag)
    evaluate(
        rest,
        f"/decision-definition/key/beverages_{tag}/evaluate",
        dinner_variables("Fall", 4, True),
    )
    return tag, f"dinner_{tag}"


def test_an_evaluation_is_in_history_with_its_inputs_and_outputs(rest: LiveServer) -> None:
    tag, requirements_key = _evaluated_dinner(rest)
    path = "/history/decision-instance"
    where = {"decisionRequirementsDefinitionKey": requirements_key}

    values = {"includeInputs": "true", "includeOutputs": "true"}
    [root] = get_json(rest, path, **where, **values, rootDecisionInstancesOnly="true")
    [required] = get_json(rest, path, **where, **values, decisionDefinitionKey=f"dish_{tag}")

    for instance in (root, required):
        assert set(instance) == INSTANCE_KEYS
        assert CAMUNDA_DATE.match(instance["evaluationTime"])
        assert instance["decisionRequirementsDefinitionKey"] == requirements_key
        assert instance["processInstanceId"] is None
        assert instance["tenantId"] is None
        assert instance["userId"] is None
    assert root["decisionDefinitionKey"] == f"beverages_{tag}"
    assert root["decisionDefinitionName"] == "Beverages"
    assert root["rootDecisionInstanceId"] is None
    assert required["rootDecisionInstanceId"] == root["id"]

    assert [(i["clauseId"], i["clauseName"], i["type"], i["value"]) for i in root["inputs"]] == [
        ("dishInput", "Dish", "String", "Spareribs"),
        ("children", "Guests with children", "Boolean", True),
    ]
    assert [(i["clauseId"], i["type"], i["value"]) for i in required["inputs"]] == [
        ("season", "String", "Fall"),
        ("guests", "Integer", 4),
    ]
    for entry in root["inputs"]:
        assert set(entry) == INPUT_KEYS
        assert entry["decisionInstanceId"] == root["id"]
        assert entry["errorMessage"] is None
        assert entry["valueInfo"] == {}
        assert CAMUNDA_DATE.match(entry["createTime"])
    assert [
        (o["clauseId"], o["ruleId"], o["ruleOrder"], o["variableName"], o["type"], o["value"])
        for o in root["outputs"]
    ] == [
        ("beverageOutput", "ribs", 1, "beverages", "String", "Aecht Schlenkerla Rauchbier"),
        ("beverageOutput", "children", 5, "beverages", "String", "Apple Juice"),
    ]
    assert all(set(o) == OUTPUT_KEYS for o in root["outputs"])
    [dish_output] = required["outputs"]
    assert (dish_output["ruleId"], dish_output["variableName"], dish_output["value"]) == (
        "fall-small",
        "desiredDish",
        "Spareribs",
    )


def test_history_lists_counts_sorts_and_reads_one(rest: LiveServer) -> None:
    tag, requirements_key = _evaluated_dinner(rest)
    path = "/history/decision-instance"
    where = {"decisionRequirementsDefinitionKey": requirements_key}

    listed = get_json(rest, path, **where, sortBy="evaluationTime", sortOrder="asc")
    assert len(listed) == 2
    assert all(i["inputs"] is None and i["outputs"] is None for i in listed)
    assert get_json(rest, f"{path}/count", **where) == {"count": 2}
    assert get_json(rest, f"{path}/count", **where, rootDecisionInstancesOnly="true") == {
        "count": 1
    }
    assert len(get_json(rest, path, **where, firstResult="1", maxResults="5")) == 1
    assert get_json(rest, path, **where, evaluatedAfter="2999-01-01T00:00:00.000+0000") == []
    [root] = get_json(rest, path, **where, rootDecisionInstancesOnly="true")
    [required] = get_json(rest, path, rootDecisionInstanceId=root["id"])
    assert required["decisionDefinitionKey"] == f"dish_{tag}"

    one = get_json(rest, f"{path}/{root['id']}")
    assert one == root
    with_values = get_json(rest, f"{path}/{root['id']}", includeInputs="true")
    assert len(with_values["inputs"]) == 2
    assert with_values["outputs"] is None


def test_an_unknown_historic_decision_instance_is_404(rest: LiveServer) -> None:
    response = rest.client.get("/history/decision-instance/nothing")

    assert response.status_code == 404
    assert response.json()["type"] == "InvalidRequestException"
    assert "nothing" in response.json()["message"]


def test_history_refuses_an_unknown_sort(rest: LiveServer) -> None:
    response = rest.client.get(
        "/history/decision-instance", params={"sortBy": "color", "sortOrder": "asc"}
    )

    assert response.status_code == 400
    assert "sortBy" in response.json()["message"]


# -- who evaluated --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    users = Users({"kermit": hash_password("frog")})
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("decisions")) as url,
        Engine(url, history_level="full") as engine,
        live_server(engine, users=users) as server,
    ):
        server.client.auth = ("kermit", "frog")
        yield server


def test_the_authenticated_user_is_who_evaluated(guarded: LiveServer) -> None:
    key = unique_key("who")
    deploy_dish(guarded, key)

    evaluate(
        guarded,
        f"/decision-definition/key/{key}/evaluate",
        {"season": typed("Summer", "String"), "guestCount": typed(2, "Integer")},
    )

    [instance] = get_json(guarded, "/history/decision-instance", decisionDefinitionKey=key)
    assert instance["userId"] == "kermit"
    [found] = get_json(
        guarded, "/history/decision-instance", decisionDefinitionKey=key, userId="kermit"
    )
    assert found["id"] == instance["id"]
