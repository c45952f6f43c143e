"""The task resource: `/task` lists and counts with Camunda's filters, one task, complete /
submit-form, claim / unclaim / assignee, task variables and identity links."""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC, datetime
from typing import Any

import pycamunda.task
import pytest

from tests.support import BPMN_DIR

from .server import LiveServer

# Camunda 7.15's TaskDto, every key present in every task.
TASK_DTO_KEYS = {
    "id",
    "name",
    "assignee",
    "owner",
    "created",
    "due",
    "followUp",
    "delegationState",
    "description",
    "executionId",
    "parentTaskId",
    "priority",
    "processDefinitionId",
    "processInstanceId",
    "caseExecutionId",
    "caseDefinitionId",
    "caseInstanceId",
    "taskDefinitionKey",
    "suspended",
    "formKey",
    "tenantId",
}
DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}$")
FILTER_KEY = "restTaskFilter"

# The filter data set: three instances of rest_task_filter.bpmn, each task differing in what
# the filters look at. (business key, start variables)
FILTER_INSTANCES: dict[str, dict[str, Any]] = {
    "A": {
        "title": "Alpha report",
        "notes": "Quarterly numbers",
        "assignee": "anna",
        "candidateUsers": "",
        "candidateGroups": "sales",
        "due": "2030-01-01T10:00:00Z",
        "followUp": "2030-01-05T00:00:00Z",
        "priority": 10,
        "form": "alpha",
        "region": "north",
        "amount": 100,
    },
    "B": {
        "title": "Beta review",
        "notes": None,
        "assignee": None,
        "candidateUsers": "bob",
        "candidateGroups": "",
        "due": None,
        "followUp": None,
        "priority": 50,
        "form": "beta",
        "region": "south",
        "amount": 250.5,
    },
    "C": {
        "title": "Gamma check",
        "notes": "Look closely",
        "assignee": None,
        "candidateUsers": "",
        "candidateGroups": "sales,support",
        "due": "2031-06-01T08:30:00Z",
        "followUp": None,
        "priority": 90,
        "form": "gamma",
        "region": "north",
        "amount": 7,
        "flag": True,
    },
}


@pytest.fixture(scope="module")
def filter_tasks(rest: LiveServer) -> dict[str, str]:
    """Business key letter -> task id of the filter data set."""
    rest.engine.deploy(BPMN_DIR / "rest_task_filter.bpmn")
    ids = {}
    for letter, variables in FILTER_INSTANCES.items():
        rest.engine.start_process_instance(FILTER_KEY, variables, business_key=f"filter-{letter}")
        found = rest.client.get(
            "/task", params={"processInstanceBusinessKey": f"filter-{letter}"}
        ).json()
        ids[letter] = found[0]["id"]
    return ids


@pytest.fixture(scope="module")
def steps(rest: LiveServer) -> None:
    rest.engine.deploy(BPMN_DIR / "rest_task_steps.bpmn")


def start_steps(rest: LiveServer, variables: dict[str, Any] | None = None) -> tuple[str, str]:
    """A fresh instance of rest_task_steps.bpmn: (process instance id, id of its first task)."""
    instance = rest.engine.start_process_instance("restTaskSteps", variables or {})
    task = rest.client.get("/task", params={"processInstanceId": instance.id}).json()[0]
    return instance.id, task["id"]


def letters(result: list[dict[str, Any]], ids: dict[str, str]) -> list[str]:
    by_id = {task_id: letter for letter, task_id in ids.items()}
    return [by_id[task["id"]] for task in result if task["id"] in by_id]


def assert_invalid(response: Any, *words: str, status: int = 400) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["type"] == "InvalidRequestException"
    for word in words:
        assert word in body["message"]


# -- lists --------------------------------------------------------------------------------------


def test_task_list_has_every_task_dto_key_with_the_task_values(
    rest: LiveServer, filter_tasks: dict[str, str]
) -> None:
    response = rest.client.get("/task", params={"processInstanceBusinessKey": "filter-A"})
    assert response.status_code == 200
    [task] = response.json()
    assert set(task) == TASK_DTO_KEYS
    assert task["id"] == filter_tasks["A"]
    assert task["name"] == "Alpha report"
    assert task["description"] == "Quarterly numbers"
    assert task["assignee"] == "anna"
    assert task["priority"] == 10
    assert task["due"] == "2030-01-01T10:00:00.000+0000"
    assert task["followUp"] == "2030-01-05T00:00:00.000+0000"
    assert DATE.match(task["created"])
    assert task["taskDefinitionKey"] == "work"
    assert task["processDefinitionId"].startswith(f"{FILTER_KEY}:")
    assert task["formKey"] == "app:alpha"  # an expression: the value evaluated at creation
    assert task["suspended"] is False
    assert task["owner"] is None and task["tenantId"] is None and task["caseInstanceId"] is None


FILTER_CASES: list[tuple[dict[str, str], list[str]]] = [
    ({}, ["A", "B", "C"]),
    ({"processInstanceBusinessKey": "filter-B"}, ["B"]),
    ({"processInstanceBusinessKeyIn": "filter-A,filter-C"}, ["A", "C"]),
    ({"processInstanceBusinessKeyLike": "filter-%"}, ["A", "B", "C"]),
    ({"processInstanceBusinessKeyLike": "filter_A"}, ["A"]),  # `_` is any one character
    ({"processInstanceBusinessKeyLike": "filter\\_A"}, []),  # ... unless escaped
    ({"processDefinitionName": "Filter tasks"}, ["A", "B", "C"]),
    ({"processDefinitionNameLike": "Filter%"}, ["A", "B", "C"]),
    ({"processDefinitionKeyIn": f"{FILTER_KEY},other"}, ["A", "B", "C"]),
    ({"assignee": "anna"}, ["A"]),
    ({"assigneeIn": "anna,zed"}, ["A"]),
    ({"assigneeLike": "an%"}, ["A"]),
    ({"assigned": "true"}, ["A"]),
    ({"unassigned": "true"}, ["B", "C"]),
    ({"candidateUser": "bob"}, ["B"]),
    ({"candidateGroup": "sales"}, ["C"]),
    ({"candidateGroup": "sales", "includeAssignedTasks": "true"}, ["A", "C"]),
    ({"candidateGroups": "support,nobody"}, ["C"]),
    ({"involvedUser": "anna"}, ["A"]),
    ({"involvedUser": "bob"}, ["B"]),
    ({"withCandidateGroups": "true"}, ["C"]),
    ({"withoutCandidateGroups": "true"}, ["B"]),
    ({"withCandidateUsers": "true"}, ["B"]),
    ({"withoutCandidateUsers": "true"}, ["C"]),
    ({"taskDefinitionKey": "work"}, ["A", "B", "C"]),
    ({"taskDefinitionKeyIn": "work,other"}, ["A", "B", "C"]),
    ({"taskDefinitionKeyLike": "wo%"}, ["A", "B", "C"]),
    ({"taskDefinitionKey": "other"}, []),
    ({"name": "ALPHA REPORT"}, ["A"]),
    ({"nameNotEqual": "alpha report"}, ["B", "C"]),
    ({"nameLike": "%REVIEW"}, ["B"]),
    ({"nameNotLike": "gamma%"}, ["A", "B"]),
    ({"description": "quarterly numbers"}, ["A"]),
    ({"descriptionLike": "look%"}, ["C"]),
    ({"priority": "50"}, ["B"]),
    ({"minPriority": "50"}, ["B", "C"]),
    ({"maxPriority": "50"}, ["A", "B"]),
    ({"dueDate": "2030-01-01T10:00:00.000+0000"}, ["A"]),
    ({"dueBefore": "2030-06-01T00:00:00.000+0000"}, ["A"]),
    ({"dueAfter": "2030-06-01T00:00:00.000+0000"}, ["C"]),
    ({"withoutDueDate": "true"}, ["B"]),
    ({"followUpDate": "2030-01-05T00:00:00.000+0000"}, ["A"]),
    ({"followUpAfter": "2029-01-01T00:00:00.000+0000"}, ["A"]),
    ({"followUpBefore": "2031-01-01T00:00:00.000+0000"}, ["A"]),
    ({"followUpBeforeOrNotExistent": "2029-01-01T00:00:00.000+0000"}, ["B", "C"]),
    ({"createdAfter": "2000-01-01T00:00:00.000+0000"}, ["A", "B", "C"]),
    ({"createdBefore": "2000-01-01T00:00:00.000+0000"}, []),
    ({"active": "true"}, ["A", "B", "C"]),
    ({"suspended": "true"}, []),
    ({"withoutTenantId": "true"}, ["A", "B", "C"]),
    ({"tenantIdIn": "tenant1"}, []),
    ({"delegationState": "PENDING"}, []),
    ({"caseInstanceId": "case1"}, []),
    ({"processVariables": "region_eq_north"}, ["A", "C"]),
    ({"processVariables": "region_neq_north"}, ["B"]),
    ({"processVariables": "region_like_so%"}, ["B"]),
    ({"processVariables": "region_eq_north,title_eq_Gamma check"}, ["C"]),
]


@pytest.mark.parametrize(("params", "expected"), FILTER_CASES, ids=lambda v: str(v))
def test_get_task_list_filters_as_camunda_does(
    rest: LiveServer,
    filter_tasks: dict[str, str],
    params: dict[str, str],
    expected: list[str],
) -> None:
    query = {"processDefinitionKey": FILTER_KEY, **params}
    response = rest.client.get("/task", params=query)
    assert response.status_code == 200, response.text
    assert sorted(letters(response.json(), filter_tasks)) == expected
    count = rest.client.get("/task/count", params=query)
    assert count.json() == {"count": len(expected)}


def test_other_definitions_tasks_are_not_in_a_key_filtered_list(
    rest: LiveServer, filter_tasks: dict[str, str], steps: None
) -> None:
    start_steps(rest)
    listed = rest.client.get("/task", params={"processDefinitionKey": FILTER_KEY}).json()
    assert {t["processDefinitionId"].split(":")[0] for t in listed} == {FILTER_KEY}


JSON_CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({"processVariables": [{"name": "amount", "operator": "gt", "value": 50}]}, ["A", "B"]),
    ({"processVariables": [{"name": "amount", "operator": "lteq", "value": 100}]}, ["A", "C"]),
    ({"processVariables": [{"name": "flag", "operator": "eq", "value": True}]}, ["C"]),
    ({"processVariables": [{"name": "notes", "operator": "eq", "value": None}]}, ["B"]),
    (
        {
            "processVariables": [{"name": "REGION", "operator": "eq", "value": "NORTH"}],
            "variableNamesIgnoreCase": True,
            "variableValuesIgnoreCase": True,
        },
        ["A", "C"],
    ),
    ({"orQueries": [{"assignee": "anna", "candidateUser": "bob"}]}, ["A", "B"]),
    (
        {"priority": 90, "orQueries": [{"assignee": "anna", "candidateGroup": "support"}]},
        ["C"],
    ),
    ({"taskIdIn": []}, ["A", "B", "C"]),
    ({"assignee": None, "candidateUser": None, "dueBefore": None}, ["A", "B", "C"]),
]


@pytest.mark.parametrize(("body", "expected"), JSON_CASES, ids=lambda v: str(v))
def test_post_task_query_filters_typed_values_and_or_queries(
    rest: LiveServer, filter_tasks: dict[str, str], body: dict[str, Any], expected: list[str]
) -> None:
    query = {"processDefinitionKey": FILTER_KEY, **body}
    response = rest.client.post("/task", json=query)
    assert response.status_code == 200, response.text
    assert sorted(letters(response.json(), filter_tasks)) == expected
    assert rest.client.post("/task/count", json=query).json() == {"count": len(expected)}


def test_task_id_and_activity_instance_filters(
    rest: LiveServer, filter_tasks: dict[str, str]
) -> None:
    task_id = filter_tasks["B"]
    assert letters(rest.client.get("/task", params={"taskId": task_id}).json(), filter_tasks) == [
        "B"
    ]
    both = rest.client.get("/task", params={"taskIdIn": f"{filter_tasks['A']},{task_id}"})
    assert sorted(letters(both.json(), filter_tasks)) == ["A", "B"]
    task = rest.client.get(f"/task/{task_id}").json()
    tree = rest.engine.runtime_service.activity_instance_tree(task["processInstanceId"])
    [activity_instance] = [a.id for a in tree.child_activity_instances if a.activity_id == "work"]
    found = rest.client.get("/task", params={"activityInstanceIdIn": activity_instance}).json()
    assert [t["id"] for t in found] == [task_id]
    by_execution = rest.client.get("/task", params={"executionId": task["executionId"]}).json()
    assert [t["id"] for t in by_execution] == [task_id]


@pytest.mark.parametrize(
    ("sort_by", "order", "expected"),
    [
        ("priority", "desc", ["C", "B", "A"]),
        ("priority", "asc", ["A", "B", "C"]),
        ("dueDate", "asc", ["A", "C", "B"]),
        ("dueDate", "desc", ["B", "C", "A"]),
        ("nameCaseInsensitive", "asc", ["A", "B", "C"]),
        ("assignee", "desc", ["B", "C", "A"]),
    ],
)
def test_task_list_sorts_with_nulls_last_ascending(
    rest: LiveServer, filter_tasks: dict[str, str], sort_by: str, order: str, expected: list[str]
) -> None:
    params = {"processDefinitionKey": FILTER_KEY, "sortBy": sort_by, "sortOrder": order}
    result = letters(rest.client.get("/task", params=params).json(), filter_tasks)
    if sort_by == "assignee":  # B and C are both unassigned: only the first place is fixed
        assert result[0] in "BC" and result[2] == "A"
    else:
        assert result == expected


def test_task_list_pages_and_post_accepts_sorting_as_list_or_object(
    rest: LiveServer, filter_tasks: dict[str, str]
) -> None:
    params = {
        "processDefinitionKey": FILTER_KEY,
        "sortBy": "priority",
        "sortOrder": "asc",
        "firstResult": "1",
        "maxResults": "1",
    }
    assert letters(rest.client.get("/task", params=params).json(), filter_tasks) == ["B"]
    body: dict[str, Any] = {
        "processDefinitionKey": FILTER_KEY,
        "sorting": [{"sortBy": "priority", "sortOrder": "desc"}],
    }
    paged = rest.client.post("/task", params={"maxResults": "2"}, json=body)
    assert letters(paged.json(), filter_tasks) == ["C", "B"]
    body["sorting"] = {"sortBy": "priority", "sortOrder": "asc"}  # camunda-client's shape
    assert letters(rest.client.post("/task", json=body).json(), filter_tasks) == ["A", "B", "C"]


def test_task_variables_filter_matches_task_local_variables(
    rest: LiveServer, filter_tasks: dict[str, str]
) -> None:
    task_id = filter_tasks["C"]
    put = rest.client.put(
        f"/task/{task_id}/localVariables/checkedBy", json={"value": "ines", "type": "String"}
    )
    assert put.status_code == 204
    query = {"processDefinitionKey": FILTER_KEY, "taskVariables": "checkedBy_eq_ines"}
    assert letters(rest.client.get("/task", params=query).json(), filter_tasks) == ["C"]
    # A task-local variable is not a process variable.
    query = {"processDefinitionKey": FILTER_KEY, "processVariables": "checkedBy_eq_ines"}
    assert rest.client.get("/task", params=query).json() == []


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"sortBy": "bogus", "sortOrder": "asc"}, "sortBy"),
        ({"sortBy": "processVariable", "sortOrder": "asc"}, "processVariable"),
        ({"sortBy": "created"}, "sortOrder"),
        ({"sortBy": "created", "sortOrder": "up"}, "sortOrder"),
        ({"priority": "high"}, "priority"),
        ({"dueBefore": "tomorrow"}, "dueBefore"),
        ({"createdOn": "2026-13-45"}, "createdOn"),
        ({"dueDate": "9999-12-31T23:59:59.999-0100"}, "dueDate"),
        ({"createdAfter": "0001-01-01T00:00:00.000+0100"}, "createdAfter"),
        ({"processVariables": "region=north"}, "processVariables"),
        ({"processVariables": "region_between_north"}, "between"),
        ({"taskVariables": "flag_gt"}, "taskVariables"),
        ({"assigneeExpression": "${currentUser()}"}, "assigneeExpression"),
        ({"candidateUser": "bob", "candidateGroup": "sales"}, "candidateUser"),
        ({"delegationState": "DONE"}, "delegationState"),
        ({"firstResult": "-1"}, "firstResult"),
        ({"maxResults": "ten"}, "maxResults"),
        ({"priority": "99999999999"}, "priority"),
        ({"assignee": "anna\x00"}, "assignee"),
    ],
)
def test_invalid_task_list_parameters_are_a_400_naming_them(
    rest: LiveServer, params: dict[str, str], named: str
) -> None:
    assert_invalid(rest.client.get("/task", params=params), named)


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"orQueries": [{"orQueries": [{"assignee": "x"}]}]}, "orQueries"),
        ({"orQueries": [{"withCandidateUsers": True}]}, "withCandidateUsers"),
        ({"processVariables": [{"name": "x", "operator": "like", "value": 5}]}, "like"),
        ({"processVariables": [{"operator": "eq", "value": 5}]}, "processVariables"),
        ({"processVariables": [{"name": "x", "operator": "eq", "value": [1]}]}, "x"),
        ({"sorting": [{"sortBy": "taskVariable", "sortOrder": "asc"}]}, "taskVariable"),
        ({"priority": "high"}, "priority"),
        ({"dueAfter": "soon"}, "dueAfter"),
        ({"processVariables": [{"name": "x", "operator": "eq", "value": 2**70}]}, "range"),
        ({"candidateGroups": ["sales\x00"]}, "candidateGroups"),
    ],
)
def test_invalid_json_task_queries_are_a_400_naming_the_problem(
    rest: LiveServer, body: dict[str, Any], named: str
) -> None:
    assert_invalid(rest.client.post("/task", json=body), named)
    if "sorting" not in body:  # a count has no order
        assert_invalid(rest.client.post("/task/count", json=body), named)


# -- one task -----------------------------------------------------------------------------------


def test_get_task_by_id(rest: LiveServer, steps: None) -> None:
    instance_id, task_id = start_steps(rest)
    response = rest.client.get(f"/task/{task_id}")
    assert response.status_code == 200
    task = response.json()
    assert set(task) == TASK_DTO_KEYS
    assert task["id"] == task_id
    assert task["processInstanceId"] == instance_id
    assert task["name"] == "Prepare"
    assert task["formKey"] == "embedded:app:forms/prepare.html"
    assert task["priority"] == 50


def test_nul_characters_are_refused_before_reaching_the_database(
    rest: LiveServer, steps: None
) -> None:
    # PostgreSQL cannot store or even compare text holding NUL.
    assert_invalid(rest.client.get("/task/a%00b"), "No matching task", status=404)
    _instance_id, task_id = start_steps(rest)
    put = rest.client.put(f"/task/{task_id}/variables/note", json={"value": "a\u0000b"})
    assert_invalid(put, "value")
    assert_invalid(rest.client.post(f"/task/{task_id}/claim", json={"userId": "a\u0000"}), "userId")
    assert_invalid(rest.client.get(f"/task/{task_id}/variables/a%00b"), "varName")
    assert rest.client.get(f"/task/{task_id}").json()["assignee"] is None


def test_get_unknown_task_is_a_404(rest: LiveServer) -> None:
    assert_invalid(
        rest.client.get("/task/no-such-task"), "No matching task with id no-such-task", status=404
    )


def test_complete_moves_the_instance_on_and_stores_the_variables(
    rest: LiveServer, steps: None
) -> None:
    instance_id, task_id = start_steps(rest)
    body = {"variables": {"dish": {"value": "soup"}}, "withVariablesInReturn": False}
    response = rest.client.post(f"/task/{task_id}/complete", json=body)
    assert response.status_code == 204
    assert response.content == b""
    assert rest.client.get(f"/task/{task_id}").status_code == 404
    [following] = rest.client.get("/task", params={"processInstanceId": instance_id}).json()
    assert following["taskDefinitionKey"] == "serve"
    assert rest.engine.runtime_service.get_variables(instance_id)["dish"] == "soup"


def test_complete_with_variables_in_return_answers_the_instance_variables(
    rest: LiveServer, steps: None
) -> None:
    instance_id, task_id = start_steps(rest, {"table": 4})
    body = {
        "variables": {"dish": {"value": "soup", "type": "String"}},
        "withVariablesInReturn": True,
    }
    response = rest.client.post(f"/task/{task_id}/complete", json=body)
    assert response.status_code == 200
    assert response.json() == {
        "dish": {"value": "soup", "type": "String", "valueInfo": {}},
        "table": {"value": 4, "type": "Integer", "valueInfo": {}},
    }
    # Completing the last task ends the instance: the values it ended with come back.
    [serve] = rest.client.get("/task", params={"processInstanceId": instance_id}).json()
    body = {"variables": {"tip": {"value": 2.5}}, "withVariablesInReturn": True}
    response = rest.client.post(f"/task/{serve['id']}/complete", json=body)
    assert response.status_code == 200
    variables = response.json()
    assert variables["tip"] == {"value": 2.5, "type": "Double", "valueInfo": {}}
    assert variables["dish"]["value"] == "soup"
    assert variables["table"]["value"] == 4
    assert rest.engine.runtime_service.process_instance(instance_id).ended  # type: ignore[union-attr]


def test_complete_unknown_task_is_a_404(rest: LiveServer) -> None:
    response = rest.client.post("/task/no-such-task/complete", json={})
    assert response.status_code == 404
    assert "no-such-task" in response.json()["message"]


def test_complete_with_an_invalid_variable_is_a_400_and_keeps_the_task(
    rest: LiveServer, steps: None
) -> None:
    _instance_id, task_id = start_steps(rest)
    body = {"variables": {"count": {"value": "many", "type": "Integer"}}}
    response = rest.client.post(f"/task/{task_id}/complete", json=body)
    assert response.status_code == 400
    assert "count" in response.json()["message"]
    assert rest.client.get(f"/task/{task_id}").status_code == 200
    assert rest.client.post(f"/task/{task_id}/complete", content=b"not json").status_code == 400


def test_submit_form_completes_the_task(rest: LiveServer, steps: None) -> None:
    instance_id, task_id = start_steps(rest)
    body = {"variables": {"approved": {"value": True}}}
    response = rest.client.post(f"/task/{task_id}/submit-form", json=body)
    assert response.status_code == 204
    assert rest.client.get(f"/task/{task_id}").status_code == 404
    assert rest.engine.runtime_service.get_variables(instance_id)["approved"] is True
    assert rest.client.post("/task/no-such-task/submit-form", json={}).status_code == 404
    assert_invalid(
        rest.client.post(f"/task/{task_id}/submit-form", json={"variables": {"x": 5}}), "x"
    )


def test_claim_unclaim_and_assignee(rest: LiveServer, steps: None) -> None:
    _instance_id, task_id = start_steps(rest)
    assert rest.client.post(f"/task/{task_id}/claim", json={"userId": "kermit"}).status_code == 204
    assert rest.client.get(f"/task/{task_id}").json()["assignee"] == "kermit"
    # Claiming again as the same user is fine; as someone else it is Camunda's 500.
    assert rest.client.post(f"/task/{task_id}/claim", json={"userId": "kermit"}).status_code == 204
    taken = rest.client.post(f"/task/{task_id}/claim", json={"userId": "piggy"})
    assert taken.status_code == 500
    assert taken.json()["type"] == "TaskAlreadyClaimedException"
    assert rest.client.post(f"/task/{task_id}/unclaim").status_code == 204
    assert rest.client.get(f"/task/{task_id}").json()["assignee"] is None
    assert (
        rest.client.post(f"/task/{task_id}/assignee", json={"userId": "gonzo"}).status_code == 204
    )
    assert rest.client.get(f"/task/{task_id}").json()["assignee"] == "gonzo"
    # The assignee is set regardless of a previous one, and null clears it.
    assert (
        rest.client.post(f"/task/{task_id}/assignee", json={"userId": "fozzie"}).status_code == 204
    )
    assert rest.client.get(f"/task/{task_id}").json()["assignee"] == "fozzie"
    assert rest.client.post(f"/task/{task_id}/assignee", json={"userId": None}).status_code == 204
    assert rest.client.get(f"/task/{task_id}").json()["assignee"] is None


@pytest.mark.parametrize("action", ["claim", "unclaim", "assignee"])
def test_claim_unclaim_and_assignee_of_unknown_task_are_404(rest: LiveServer, action: str) -> None:
    response = rest.client.post(f"/task/no-such-task/{action}", json={"userId": "kermit"})
    assert response.status_code == 404
    assert "no-such-task" in response.json()["message"]


@pytest.mark.parametrize("action", ["claim", "assignee"])
def test_claim_and_assignee_need_a_string_user_id(
    rest: LiveServer, steps: None, action: str
) -> None:
    _instance_id, task_id = start_steps(rest)
    assert_invalid(rest.client.post(f"/task/{task_id}/{action}", json={"userId": 7}), "userId")
    assert rest.client.get(f"/task/{task_id}").json()["assignee"] is None


def test_pycamunda_lists_claims_and_completes_a_task(rest: LiveServer, steps: None) -> None:
    instance_id, task_id = start_steps(rest)
    found = pycamunda.task.GetList(
        rest.url,
        process_instance_id=instance_id,
        candidate_user="kermit",
        created_after=datetime(2000, 1, 1, tzinfo=UTC),
        sort_by="created",
    )()
    assert [task.id_ for task in found] == [task_id]
    assert found[0].form_key == "embedded:app:forms/prepare.html"
    pycamunda.task.Claim(rest.url, id_=task_id, user_id="kermit")()
    assert pycamunda.task.Get(rest.url, id_=task_id)().assignee == "kermit"
    complete = pycamunda.task.Complete(rest.url, id_=task_id, with_variables_in_return=True)
    complete.add_variable("dish", "soup")
    variables = complete()
    assert variables["dish"].value == "soup"
    assert rest.engine.runtime_service.get_variables(instance_id) == {"dish": "soup"}


# -- identity links -----------------------------------------------------------------------------


def test_identity_links_list_candidates_and_the_assignee(rest: LiveServer, steps: None) -> None:
    _instance_id, task_id = start_steps(rest)
    rest.client.post(f"/task/{task_id}/assignee", json={"userId": "gonzo"})
    response = rest.client.get(f"/task/{task_id}/identity-links")
    assert response.status_code == 200
    assert response.json() == [
        {"userId": "kermit", "groupId": None, "type": "candidate"},
        {"userId": None, "groupId": "kitchen", "type": "candidate"},
        {"userId": "gonzo", "groupId": None, "type": "assignee"},
    ]
    only = rest.client.get(f"/task/{task_id}/identity-links", params={"type": "assignee"})
    assert only.json() == [{"userId": "gonzo", "groupId": None, "type": "assignee"}]


def test_identity_links_of_unknown_task_are_a_404(rest: LiveServer) -> None:
    assert_invalid(rest.client.get("/task/no-such-task/identity-links"), "no-such-task", status=404)


@pytest.mark.parametrize("path", ["identity-links", "identity-links/delete"])
def test_changing_identity_links_is_refused_as_not_supported(
    rest: LiveServer, steps: None, path: str
) -> None:
    _instance_id, task_id = start_steps(rest)
    body = {"groupId": "waiters", "type": "candidate"}
    assert_invalid(rest.client.post(f"/task/{task_id}/{path}", json=body), "not supported yet")
    assert len(rest.client.get(f"/task/{task_id}/identity-links").json()) == 2
    assert rest.client.post(f"/task/no-such-task/{path}", json=body).status_code == 404


# -- variables ----------------------------------------------------------------------------------


def test_task_variables_see_the_instance_and_local_variables_only_the_task(
    rest: LiveServer, steps: None
) -> None:
    instance_id, task_id = start_steps(rest, {"table": 4})
    put = rest.client.put(f"/task/{task_id}/variables/dish", json={"value": "soup"})
    assert put.status_code == 204
    put = rest.client.put(
        f"/task/{task_id}/localVariables/note", json={"value": "no salt", "type": "String"}
    )
    assert put.status_code == 204
    everything = rest.client.get(f"/task/{task_id}/variables").json()
    assert {name: v["value"] for name, v in everything.items()} == {
        "dish": "soup",
        "note": "no salt",
        "table": 4,
    }
    local = rest.client.get(f"/task/{task_id}/localVariables").json()
    assert local == {"note": {"value": "no salt", "type": "String", "valueInfo": {}}}
    # A non-local write lands on the instance; a local one stays on the task.
    assert rest.engine.runtime_service.get_variables(instance_id) == {"dish": "soup", "table": 4}


def test_one_task_variable_get_and_delete(rest: LiveServer, steps: None) -> None:
    instance_id, task_id = start_steps(rest, {"table": 4})
    one = rest.client.get(f"/task/{task_id}/variables/table")
    assert one.status_code == 200
    assert one.json() == {"value": 4, "type": "Integer", "valueInfo": {}}
    assert_invalid(rest.client.get(f"/task/{task_id}/localVariables/table"), "table", status=404)
    assert rest.client.delete(f"/task/{task_id}/variables/table").status_code == 204
    assert "table" not in rest.engine.runtime_service.get_variables(instance_id)
    assert_invalid(rest.client.get(f"/task/{task_id}/variables/table"), "table", status=404)


def test_local_variable_delete_leaves_instance_variables(rest: LiveServer, steps: None) -> None:
    instance_id, task_id = start_steps(rest, {"table": 4})
    rest.client.put(f"/task/{task_id}/localVariables/table", json={"value": 9})
    assert rest.client.get(f"/task/{task_id}/variables/table").json()["value"] == 9
    assert rest.client.delete(f"/task/{task_id}/localVariables/table").status_code == 204
    assert rest.client.get(f"/task/{task_id}/variables/table").json()["value"] == 4
    assert rest.engine.runtime_service.get_variables(instance_id) == {"table": 4}


def test_post_variables_applies_modifications_then_deletions(rest: LiveServer, steps: None) -> None:
    instance_id, task_id = start_steps(rest, {"table": 4, "old": "x"})
    body = {
        "modifications": {"dish": {"value": "soup"}, "guests": {"value": 3}},
        "deletions": ["old"],
    }
    assert rest.client.post(f"/task/{task_id}/variables", json=body).status_code == 204
    assert rest.engine.runtime_service.get_variables(instance_id) == {
        "dish": "soup",
        "guests": 3,
        "table": 4,
    }
    local = {"modifications": {"note": {"value": "window seat"}}}
    assert rest.client.post(f"/task/{task_id}/localVariables", json=local).status_code == 204
    assert set(rest.client.get(f"/task/{task_id}/localVariables").json()) == {"note"}
    gone = {"deletions": ["note"]}
    assert rest.client.post(f"/task/{task_id}/localVariables", json=gone).status_code == 204
    assert rest.client.get(f"/task/{task_id}/localVariables").json() == {}


def test_object_variables_can_stay_serialized(rest: LiveServer, steps: None) -> None:
    _instance_id, task_id = start_steps(rest)
    value = {
        "value": '{"size": 2}',
        "type": "Object",
        "valueInfo": {"objectTypeName": "app.Order", "serializationDataFormat": "application/json"},
    }
    assert rest.client.put(f"/task/{task_id}/variables/order", json=value).status_code == 204
    parsed = rest.client.get(f"/task/{task_id}/variables/order").json()
    assert parsed["value"] == {"size": 2}
    assert parsed["valueInfo"]["objectTypeName"] == "app.Order"
    raw = rest.client.get(f"/task/{task_id}/variables/order", params={"deserializeValue": "false"})
    assert json.loads(raw.json()["value"]) == {"size": 2}
    listed = rest.client.get(f"/task/{task_id}/variables", params={"deserializeValues": "false"})
    assert isinstance(listed.json()["order"]["value"], str)


def test_bytes_variable_data(rest: LiveServer, steps: None) -> None:
    _instance_id, task_id = start_steps(rest, {"table": 4})
    payload = bytes(range(256))
    encoded = base64.b64encode(payload).decode()
    put = rest.client.put(
        f"/task/{task_id}/localVariables/scan", json={"value": encoded, "type": "Bytes"}
    )
    assert put.status_code == 204
    for segment in ("variables", "localVariables"):
        data = rest.client.get(f"/task/{task_id}/{segment}/scan/data")
        assert data.status_code == 200
        assert data.headers["content-type"] == "application/octet-stream"
        assert data.content == payload
    assert_invalid(rest.client.get(f"/task/{task_id}/variables/table/data"), "not a binary value")
    assert_invalid(rest.client.get(f"/task/{task_id}/variables/none/data"), "none", status=404)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "variables"),
        ("GET", "localVariables"),
        ("GET", "variables/x"),
        ("GET", "localVariables/x/data"),
        ("PUT", "variables/x"),
        ("PUT", "localVariables/x"),
        ("DELETE", "variables/x"),
        ("DELETE", "localVariables/x"),
        ("POST", "variables"),
        ("POST", "localVariables"),
    ],
)
def test_variables_of_unknown_task_are_a_404(rest: LiveServer, method: str, path: str) -> None:
    body = {"value": 1} if method == "PUT" else ({"deletions": ["x"]} if method == "POST" else None)
    response = rest.client.request(method, f"/task/no-such-task/{path}", json=body)
    assert response.status_code == 404, response.text
    assert "no-such-task" in response.json()["message"]


@pytest.mark.parametrize(
    ("method", "path", "body", "named"),
    [
        ("PUT", "variables/n", {"value": "abc", "type": "Integer"}, "n"),
        ("PUT", "localVariables/n", {"value": 1, "type": "Xml"}, "Xml"),
        ("PUT", "variables/n", {"value": 1, "type": 5}, "type"),
        ("POST", "variables", {"modifications": {"n": {"value": "x", "type": "Date"}}}, "n"),
        ("POST", "localVariables", {"deletions": "n"}, "deletions"),
    ],
)
def test_invalid_variable_writes_are_a_400_and_change_nothing(
    rest: LiveServer, steps: None, method: str, path: str, body: dict[str, Any], named: str
) -> None:
    _instance_id, task_id = start_steps(rest, {"table": 4})
    response = rest.client.request(method, f"/task/{task_id}/{path}", json=body)
    assert response.status_code == 400, response.text
    assert named in response.json()["message"]
    variables = rest.client.get(f"/task/{task_id}/variables").json()
    assert set(variables) == {"table"}
