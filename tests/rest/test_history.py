"""The history resources: historic process instances, activity instances, task instances,
variable instances and details, as lists (GET and POST), counts, single entries and binary values;
deleting a historic process instance.

One module-wide world on a clock the tests control, so that every time in it is known:
A (order-1) starts 10:00 and completes 12:00; B (order-2) starts 11:00 and keeps running;
C (order-3) starts 13:00 and is deleted at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, NamedTuple

import pytest

from flowledger import ControllableClock, Engine, typed
from tests.support import BPMN_DIR, fresh_database, selected_kind

from .server import LiveServer, live_server

ORDER = BPMN_DIR / "rest_hist_order.bpmn"
T0 = datetime(2026, 3, 1, 10, tzinfo=UTC)
SCAN = b"\x00\x01scanned order\xff"

# The response schemas: the 7.15 OpenAPI document's for process and activity instances,
# Camunda's DTOs for the others (that document does not describe them).
PROCESS_INSTANCE_KEYS = {
    "id",
    "rootProcessInstanceId",
    "superProcessInstanceId",
    "superCaseInstanceId",
    "caseInstanceId",
    "processDefinitionName",
    "processDefinitionKey",
    "processDefinitionVersion",
    "processDefinitionId",
    "businessKey",
    "startTime",
    "endTime",
    "removalTime",
    "durationInMillis",
    "startUserId",
    "startActivityId",
    "deleteReason",
    "tenantId",
    "state",
    "restartedProcessInstanceId",  # Camunda 7.22's
}
ACTIVITY_INSTANCE_KEYS = {
    "id",
    "parentActivityInstanceId",
    "activityId",
    "activityName",
    "activityType",
    "processDefinitionKey",
    "processDefinitionId",
    "processInstanceId",
    "executionId",
    "taskId",
    "assignee",
    "calledProcessInstanceId",
    "calledCaseInstanceId",
    "startTime",
    "endTime",
    "durationInMillis",
    "canceled",
    "completeScope",
    "tenantId",
    "removalTime",
    "rootProcessInstanceId",
}
TASK_KEYS = {
    "id",
    "processDefinitionKey",
    "processDefinitionId",
    "processInstanceId",
    "executionId",
    "caseDefinitionKey",
    "caseDefinitionId",
    "caseInstanceId",
    "caseExecutionId",
    "activityInstanceId",
    "name",
    "description",
    "deleteReason",
    "owner",
    "assignee",
    "startTime",
    "endTime",
    "duration",
    "taskDefinitionKey",
    "priority",
    "due",
    "parentTaskId",
    "followUp",
    "tenantId",
    "removalTime",
    "rootProcessInstanceId",
}
VARIABLE_KEYS = {
    "id",
    "name",
    "type",
    "value",
    "valueInfo",
    "processDefinitionKey",
    "processDefinitionId",
    "processInstanceId",
    "executionId",
    "activityInstanceId",
    "caseDefinitionKey",
    "caseDefinitionId",
    "caseInstanceId",
    "caseExecutionId",
    "taskId",
    "tenantId",
    "errorMessage",
    "state",
    "createTime",
    "removalTime",
    "rootProcessInstanceId",
}
DETAIL_KEYS = {
    "id",
    "type",
    "processDefinitionKey",
    "processDefinitionId",
    "processInstanceId",
    "activityInstanceId",
    "executionId",
    "caseDefinitionKey",
    "caseDefinitionId",
    "caseInstanceId",
    "caseExecutionId",
    "taskId",
    "tenantId",
    "userOperationId",
    "time",
    "removalTime",
    "rootProcessInstanceId",
    "variableName",
    "variableInstanceId",
    "variableType",
    "value",
    "valueInfo",
    "initial",
    "revision",
    "errorMessage",
}
# Every filter of HistoricProcessInstanceQueryDto (7.15), as camunda-client sends them: all
# present, null when unset.
PROCESS_INSTANCE_QUERY_KEYS = [
    "processInstanceId",
    "processInstanceIds",
    "processDefinitionId",
    "processDefinitionKey",
    "processDefinitionKeyIn",
    "processDefinitionName",
    "processDefinitionNameLike",
    "processDefinitionKeyNotIn",
    "processInstanceBusinessKey",
    "processInstanceBusinessKeyLike",
    "rootProcessInstances",
    "finished",
    "unfinished",
    "withIncidents",
    "withRootIncidents",
    "incidentType",
    "incidentStatus",
    "incidentMessage",
    "incidentMessageLike",
    "startedBefore",
    "startedAfter",
    "finishedBefore",
    "finishedAfter",
    "executedActivityAfter",
    "executedActivityBefore",
    "executedJobAfter",
    "executedJobBefore",
    "startedBy",
    "superProcessInstanceId",
    "subProcessInstanceId",
    "superCaseInstanceId",
    "subCaseInstanceId",
    "caseInstanceId",
    "tenantIdIn",
    "withoutTenantId",
    "executedActivityIdIn",
    "activeActivityIdIn",
    "active",
    "suspended",
    "completed",
    "externallyTerminated",
    "internallyTerminated",
    "variables",
    "variableNamesIgnoreCase",
    "variableValuesIgnoreCase",
    "orQueries",
    "sorting",
]
# Camunda's HistoricTaskInstanceQueryDto, every filter.
TASK_QUERY_KEYS = [
    "taskId",
    "taskParentTaskId",
    "processInstanceId",
    "processInstanceBusinessKey",
    "processInstanceBusinessKeyIn",
    "processInstanceBusinessKeyLike",
    "executionId",
    "activityInstanceIdIn",
    "processDefinitionId",
    "processDefinitionKey",
    "processDefinitionName",
    "taskName",
    "taskNameLike",
    "taskDescription",
    "taskDescriptionLike",
    "taskDefinitionKey",
    "taskDefinitionKeyIn",
    "taskDeleteReason",
    "taskDeleteReasonLike",
    "assigned",
    "unassigned",
    "taskAssignee",
    "taskAssigneeLike",
    "taskOwner",
    "taskOwnerLike",
    "taskPriority",
    "finished",
    "unfinished",
    "processFinished",
    "processUnfinished",
    "taskDueDate",
    "taskDueDateBefore",
    "taskDueDateAfter",
    "withoutTaskDueDate",
    "taskFollowUpDate",
    "taskFollowUpDateBefore",
    "taskFollowUpDateAfter",
    "tenantIdIn",
    "withoutTenantId",
    "startedBefore",
    "startedAfter",
    "finishedBefore",
    "finishedAfter",
    "caseDefinitionId",
    "caseDefinitionKey",
    "caseDefinitionName",
    "caseInstanceId",
    "caseExecutionId",
    "taskInvolvedUser",
    "taskInvolvedGroup",
    "taskHadCandidateUser",
    "taskHadCandidateGroup",
    "withCandidateGroups",
    "withoutCandidateGroups",
    "taskVariables",
    "processVariables",
    "variableNamesIgnoreCase",
    "variableValuesIgnoreCase",
    "orQueries",
    "sorting",
]


class World(NamedTuple):
    a: str
    b: str
    c: str
    task_a: str
    task_b: str
    task_c: str

    @property
    def instances(self) -> str:
        return f"{self.a},{self.b},{self.c}"


@pytest.fixture(scope="module")
def clock() -> ControllableClock:
    return ControllableClock(T0)


@pytest.fixture(scope="module")
def rest(
    tmp_path_factory: pytest.TempPathFactory, clock: ControllableClock
) -> Iterator[LiveServer]:
    """This module's server: an engine on the test clock."""
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("rest-history")) as url,
        Engine(url, clock=clock, history_level="full") as engine,  # /history/detail too
        live_server(engine) as server,
    ):
        yield server


def only_task(engine: Engine, process_instance_id: str) -> str:
    (task,) = engine.tasks(process_instance_id=process_instance_id)
    return task.id


@pytest.fixture(scope="module")
def world(rest: LiveServer, clock: ControllableClock) -> World:
    engine = rest.engine
    rest.deploy(ORDER)
    clock.set(T0)
    a = engine.start_process_instance(
        "restHistOrder",
        {
            "reviewer": "kermit",
            "priority": 70,
            "due": datetime(2026, 3, 5, 12, tzinfo=UTC),
            "amount": 150,
            "customer": "ACME",
        },
        "order-1",
    ).id
    task_a = only_task(engine, a)
    clock.set(T0.replace(hour=11))
    b = engine.start_process_instance(
        "restHistOrder",
        {
            "reviewer": None,
            "priority": 30,
            "due": None,
            "amount": 50,
            "customer": "Globex",
            "scan": SCAN,
            "profile": typed("Object", {"tier": "gold"}),
        },
        "order-2",
    ).id
    task_b = only_task(engine, b)
    engine.task_service.set_variables(task_b, {"flag": "urgent"}, local=True)
    clock.set(T0.replace(hour=12))
    engine.complete_task(task_a, {"approved": True})
    engine.runtime_service.set_variables(b, {"customer": "Globex Corp", "note": "temporary"})
    engine.runtime_service.remove_variables(b, ["note"])
    clock.set(T0.replace(hour=13))
    c = engine.start_process_instance(
        "restHistOrder", {"reviewer": "fozzie", "priority": 50, "due": None}, "order-3"
    ).id
    task_c = only_task(engine, c)
    engine.runtime_service.delete_process_instance(c, "cancelled by test")
    return World(a, b, c, task_a, task_b, task_c)


def listed(rest: LiveServer, path: str, **params: Any) -> list[dict[str, Any]]:
    response = rest.client.get(path, params=params)
    assert response.status_code == 200, response.text
    result: list[dict[str, Any]] = response.json()
    return result


def posted(rest: LiveServer, path: str, body: Any, **params: Any) -> list[dict[str, Any]]:
    response = rest.client.post(path, json=body, params=params)
    assert response.status_code == 200, response.text
    result: list[dict[str, Any]] = response.json()
    return result


def ids(items: list[dict[str, Any]]) -> list[str]:
    return [item["id"] for item in items]


def count(rest: LiveServer, path: str, **params: Any) -> int:
    response = rest.client.get(f"{path}/count", params=params)
    assert response.status_code == 200, response.text
    number: int = response.json()["count"]
    return number


def assert_invalid(response: Any, named: str) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == "InvalidRequestException"
    assert named in body["message"]


def at(hour: int) -> str:
    return f"2026-03-01T{hour:02d}:00:00.000+0000"


# -- /history/process-instance ---------------------------------------------------------------


def test_process_instances_have_every_field_of_the_dto(rest: LiveServer, world: World) -> None:
    found = listed(rest, "/history/process-instance", processInstanceIds=world.instances)
    by_id = {item["id"]: item for item in found}
    assert set(by_id) == {world.a, world.b, world.c}
    for item in found:
        assert set(item) == PROCESS_INSTANCE_KEYS
    a, b, c = by_id[world.a], by_id[world.b], by_id[world.c]
    assert a["businessKey"] == "order-1"
    assert a["processDefinitionKey"] == "restHistOrder"
    assert a["processDefinitionName"] == "Order history"
    assert a["processDefinitionVersion"] == 1
    assert a["processDefinitionId"].startswith("restHistOrder:1:")
    assert (a["startTime"], a["endTime"]) == (at(10), at(12))
    assert a["durationInMillis"] == 2 * 3600 * 1000
    assert (a["state"], a["startActivityId"], a["rootProcessInstanceId"]) == (
        "COMPLETED",
        "received",
        world.a,
    )
    assert (b["state"], b["endTime"], b["durationInMillis"]) == ("ACTIVE", None, None)
    assert (c["state"], c["deleteReason"]) == ("EXTERNALLY_TERMINATED", "cancelled by test")


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"finished": "true"}, "ac"),
        ({"unfinished": "true"}, "b"),
        ({"finished": "false"}, "abc"),
        ({"completed": "true"}, "a"),
        ({"active": "true"}, "b"),
        ({"externallyTerminated": "true"}, "c"),
        ({"internallyTerminated": "true"}, ""),
        ({"processInstanceId": "{b}"}, "b"),
        ({"processInstanceBusinessKey": "order-3"}, "c"),
        ({"processInstanceBusinessKeyLike": "order-%"}, "abc"),
        ({"processInstanceBusinessKeyIn": "order-1,order-3"}, "ac"),
        ({"processDefinitionKey": "restHistOrder"}, "abc"),
        ({"processDefinitionKeyIn": "other,restHistOrder"}, "abc"),
        ({"processDefinitionKeyNotIn": "restHistOrder"}, ""),
        ({"processDefinitionName": "Order history"}, "abc"),
        ({"processDefinitionNameLike": "Order%"}, "abc"),
        ({"startedAfter": at(11)}, "bc"),
        ({"startedBefore": at(11)}, "ab"),
        ({"finishedAfter": "2026-03-01T12:30:00.000+0000"}, "c"),
        ({"finishedBefore": "2026-03-01T14:30:00+02:00"}, "a"),
        ({"executedActivityIdIn": "review"}, "ac"),
        ({"activeActivityIdIn": "review"}, "b"),
        ({"executedActivityAfter": at(13)}, "c"),
        ({"executedActivityBefore": "2026-03-01T10:30:00.000+0000"}, "a"),
        ({"rootProcessInstances": "true"}, "abc"),
        ({"superProcessInstanceId": "{a}"}, ""),
        ({"subProcessInstanceId": "{a}"}, ""),
        ({"withIncidents": "true"}, ""),
        ({"withIncidents": "false"}, "abc"),
        ({"incidentType": "failedJob"}, ""),
        ({"tenantIdIn": "tenant1"}, ""),
        ({"withoutTenantId": "true"}, "abc"),
        ({"variables": "customer_eq_ACME"}, "a"),
        ({"variables": "customer_like_Glob%"}, "b"),
        ({"variables": "customer_neq_ACME"}, "b"),
        ({"variables": "CUSTOMER_eq_acme", "variableNamesIgnoreCase": "true"}, ""),
        (
            {
                "variables": "CUSTOMER_eq_acme",
                "variableNamesIgnoreCase": "true",
                "variableValuesIgnoreCase": "true",
            },
            "a",
        ),
        ({"variables": "customer_eq_ACME,reviewer_eq_kermit"}, "a"),
    ],
)
def test_process_instance_filters(
    rest: LiveServer, world: World, params: dict[str, str], expected: str
) -> None:
    names = {"a": world.a, "b": world.b, "c": world.c}
    params = {k: v.format(**names) for k, v in params.items()}
    found = listed(rest, "/history/process-instance", processInstanceIds=world.instances, **params)
    assert sorted(ids(found)) == sorted(names[x] for x in expected)
    assert count(
        rest, "/history/process-instance", processInstanceIds=world.instances, **params
    ) == len(expected)


def test_process_instances_sort_and_page(rest: LiveServer, world: World) -> None:
    scope = {"processInstanceIds": world.instances}
    newest_first = listed(
        rest, "/history/process-instance", sortBy="startTime", sortOrder="desc", **scope
    )
    assert ids(newest_first) == [world.c, world.b, world.a]
    by_end = listed(rest, "/history/process-instance", sortBy="endTime", sortOrder="asc", **scope)
    assert ids(by_end) == [world.a, world.c, world.b]  # running (no end) last
    second = listed(
        rest,
        "/history/process-instance",
        sortBy="businessKey",
        sortOrder="asc",
        firstResult=1,
        maxResults=1,
        **scope,
    )
    assert ids(second) == [world.b]


def test_post_query_with_numbers_sorting_and_paging(rest: LiveServer, world: World) -> None:
    body = {
        "processInstanceIds": [world.a, world.b, world.c],
        "variables": [{"name": "amount", "operator": "gteq", "value": 50}],
        "sorting": [{"sortBy": "businessKey", "sortOrder": "desc"}],
    }
    found = posted(rest, "/history/process-instance", body)
    assert ids(found) == [world.b, world.a]
    assert ids(posted(rest, "/history/process-instance", body, maxResults=1)) == [world.b]
    body["variables"] = [{"name": "amount", "operator": "gt", "value": 100}]
    assert ids(posted(rest, "/history/process-instance", body)) == [world.a]
    response = rest.client.post("/history/process-instance/count", json=body)
    assert response.json() == {"count": 1}


def test_post_query_with_every_key_null_filters_nothing(rest: LiveServer, world: World) -> None:
    body: dict[str, Any] = dict.fromkeys(PROCESS_INSTANCE_QUERY_KEYS)
    everything = posted(rest, "/history/process-instance", body)
    assert {world.a, world.b, world.c} <= set(ids(everything))
    total = rest.client.post("/history/process-instance/count", json=body).json()["count"]
    assert total == len(everything)
    body["processInstanceIds"] = [world.a, world.c]
    assert sorted(ids(posted(rest, "/history/process-instance", body))) == sorted(
        [world.a, world.c]
    )


def test_post_query_without_a_body_lists_everything(rest: LiveServer, world: World) -> None:
    response = rest.client.post("/history/process-instance")
    assert response.status_code == 200
    assert {world.a, world.b, world.c} <= set(ids(response.json()))


def test_process_instance_by_id(rest: LiveServer, world: World) -> None:
    response = rest.client.get(f"/history/process-instance/{world.a}")
    assert response.status_code == 200
    item = response.json()
    assert set(item) == PROCESS_INSTANCE_KEYS
    assert (item["id"], item["state"], item["endTime"]) == (world.a, "COMPLETED", at(12))


def test_unknown_process_instance_is_404(rest: LiveServer) -> None:
    response = rest.client.get("/history/process-instance/no-such-instance")
    assert response.status_code == 404
    assert response.json()["type"] == "InvalidRequestException"
    assert "no-such-instance" in response.json()["message"]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"sortBy": "bogus", "sortOrder": "asc"}, "sortBy"),
        ({"sortBy": "startTime"}, "sortOrder"),
        ({"sortBy": "startTime", "sortOrder": "up"}, "sortOrder"),
        ({"startedAfter": "yesterday"}, "startedAfter"),
        ({"firstResult": "-1"}, "firstResult"),
        ({"maxResults": "many"}, "maxResults"),
        ({"variables": "customer-is-ACME"}, "variables"),
        ({"variables": "customer_near_ACME"}, "variables"),
    ],
)
def test_process_instance_list_refuses_invalid_parameters(
    rest: LiveServer, world: World, params: dict[str, str], named: str
) -> None:
    assert_invalid(rest.client.get("/history/process-instance", params=params), named)
    if not {"firstResult", "maxResults", "sortBy"} & set(params):  # counts are not sorted, paged
        assert_invalid(rest.client.get("/history/process-instance/count", params=params), named)


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"variables": [{"name": "approved", "operator": "gt", "value": True}]}, "greater than"),
        ({"variables": [{"name": "amount", "operator": "near", "value": 5}]}, "near"),
        ({"variables": [{"operator": "eq", "value": 5}]}, "name"),
        ({"variables": [{"name": "a", "operator": "like", "value": 5}]}, "like"),
        ({"finished": 3}, "finished"),
        ({"startedAfter": "not a date"}, "startedAfter"),
        ({"processInstanceIds": "a,b"}, "processInstanceIds"),
        ({"sorting": [{"sortBy": "bogus", "sortOrder": "asc"}]}, "sortBy"),
        ({"orQueries": [{"processInstanceId": "x"}]}, "orQueries"),
    ],
)
def test_process_instance_query_refuses_invalid_bodies(
    rest: LiveServer, world: World, body: dict[str, Any], named: str
) -> None:
    assert_invalid(rest.client.post("/history/process-instance", json=body), named)


def test_delete_historic_process_instance(rest: LiveServer, world: World) -> None:
    engine = rest.engine
    instance = engine.start_process_instance(
        "restHistOrder", {"reviewer": "gonzo", "priority": 1, "due": None}, "scratch"
    ).id
    engine.runtime_service.delete_process_instance(instance, "done with it")
    assert rest.client.get(f"/history/process-instance/{instance}").status_code == 200

    response = rest.client.delete(f"/history/process-instance/{instance}")

    assert response.status_code == 204
    assert response.content == b""
    assert rest.client.get(f"/history/process-instance/{instance}").status_code == 404
    for resource in ("activity-instance", "task", "variable-instance", "detail"):
        assert listed(rest, f"/history/{resource}", processInstanceId=instance) == []


def test_delete_of_a_running_instance_is_refused(rest: LiveServer, world: World) -> None:
    response = rest.client.delete(f"/history/process-instance/{world.b}")
    assert response.status_code == 400
    assert response.json()["type"] == "BadUserRequestException"
    assert rest.client.get(f"/history/process-instance/{world.b}").status_code == 200


def test_delete_of_an_unknown_instance(rest: LiveServer) -> None:
    response = rest.client.delete("/history/process-instance/no-such-instance")
    assert response.status_code == 404
    assert "no-such-instance" in response.json()["message"]
    relaxed = rest.client.delete(
        "/history/process-instance/no-such-instance", params={"failIfNotExists": "false"}
    )
    assert relaxed.status_code == 204


# -- /history/activity-instance --------------------------------------------------------------


def test_activity_instances_of_a_completed_instance(rest: LiveServer, world: World) -> None:
    found = listed(rest, "/history/activity-instance", processInstanceId=world.a)
    assert [(i["activityId"], i["activityType"]) for i in found] == [
        ("received", "startEvent"),
        ("review", "userTask"),
        ("done", "noneEndEvent"),
    ]
    for item in found:
        assert set(item) == ACTIVITY_INSTANCE_KEYS
    received, review, done = found
    assert (received["activityName"], received["startTime"]) == ("Order received", at(10))
    assert (review["assignee"], review["taskId"]) == ("kermit", world.task_a)
    assert (review["endTime"], review["durationInMillis"]) == (at(12), 2 * 3600 * 1000)
    assert (review["canceled"], review["completeScope"]) == (False, False)
    assert done["completeScope"] is True
    assert review["parentActivityInstanceId"] == world.a
    assert review["processDefinitionKey"] == "restHistOrder"


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"activityId": "review"}, ["a:review", "b:review", "c:review"]),
        ({"activityType": "noneEndEvent"}, ["a:done"]),
        ({"activityName": "Review order", "unfinished": "true"}, ["b:review"]),
        ({"canceled": "true"}, ["c:review"]),
        ({"completeScope": "true"}, ["a:done"]),
        ({"taskAssignee": "fozzie"}, ["c:review"]),
        ({"activityId": "review", "finished": "true"}, ["a:review", "c:review"]),
        ({"activityId": "review", "startedAfter": at(11)}, ["b:review", "c:review"]),
        ({"activityId": "review", "startedBefore": at(10)}, ["a:review"]),
        ({"activityId": "review", "finishedAfter": at(13)}, ["c:review"]),
        ({"activityId": "review", "finishedBefore": at(12)}, ["a:review"]),
        ({"activityId": "review", "tenantIdIn": "t1"}, []),
    ],
)
def test_activity_instance_filters(
    rest: LiveServer, world: World, params: dict[str, str], expected: list[str]
) -> None:
    names = {world.a: "a", world.b: "b", world.c: "c"}
    found = [
        f"{names[i['processInstanceId']]}:{i['activityId']}"
        for i in listed(rest, "/history/activity-instance", **params)
        if i["processInstanceId"] in names
    ]
    assert sorted(found) == expected


def test_activity_instances_sort_and_page(rest: LiveServer, world: World) -> None:
    latest_first = listed(
        rest,
        "/history/activity-instance",
        processInstanceId=world.a,
        sortBy="occurrence",
        sortOrder="desc",
    )
    assert [i["activityId"] for i in latest_first] == ["done", "review", "received"]
    page = listed(
        rest,
        "/history/activity-instance",
        processInstanceId=world.a,
        sortBy="activityId",
        sortOrder="asc",
        firstResult=1,
        maxResults=1,
    )
    assert [i["activityId"] for i in page] == ["received"]


def test_activity_instance_query_by_post_and_count(rest: LiveServer, world: World) -> None:
    body = {
        "processInstanceId": world.a,
        "activityType": None,
        "finished": True,
        "sorting": [{"sortBy": "activityName", "sortOrder": "asc"}],
    }
    found = posted(rest, "/history/activity-instance", body)
    assert [i["activityName"] for i in found] == ["Order done", "Order received", "Review order"]
    assert rest.client.post("/history/activity-instance/count", json=body).json() == {"count": 3}
    assert count(rest, "/history/activity-instance", processInstanceId=world.b) == 2


def test_activity_instance_by_id(rest: LiveServer, world: World) -> None:
    (review,) = listed(
        rest, "/history/activity-instance", processInstanceId=world.b, activityId="review"
    )
    response = rest.client.get(f"/history/activity-instance/{review['id']}")
    assert response.status_code == 200
    assert response.json() == review
    assert review["endTime"] is None
    missing = rest.client.get("/history/activity-instance/review:nothing")
    assert missing.status_code == 404
    assert "review:nothing" in missing.json()["message"]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"sortBy": "startTime", "sortOrder": "sideways"}, "sortOrder"),
        ({"sortBy": "businessKey", "sortOrder": "asc"}, "sortBy"),
        ({"finishedBefore": "12:00"}, "finishedBefore"),
    ],
)
def test_activity_instance_list_refuses_invalid_parameters(
    rest: LiveServer, params: dict[str, str], named: str
) -> None:
    assert_invalid(rest.client.get("/history/activity-instance", params=params), named)


# -- /history/task ---------------------------------------------------------------------------


def test_completed_task_in_history(rest: LiveServer, world: World) -> None:
    (task,) = listed(rest, "/history/task", processInstanceId=world.a)
    assert set(task) == TASK_KEYS
    assert task["id"] == world.task_a
    assert (task["name"], task["description"]) == ("Review order", "Check the order")
    assert (task["taskDefinitionKey"], task["assignee"], task["priority"]) == (
        "review",
        "kermit",
        70,
    )
    assert (task["startTime"], task["endTime"], task["duration"]) == (
        at(10),
        at(12),
        2 * 3600 * 1000,
    )
    assert task["deleteReason"] == "completed"
    assert task["due"] == "2026-03-05T12:00:00.000+0000"
    assert task["processDefinitionKey"] == "restHistOrder"
    assert task["activityInstanceId"].startswith("review:")


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"finished": "true"}, "ac"),
        ({"unfinished": "true"}, "b"),
        ({"processFinished": "true"}, "ac"),
        ({"processUnfinished": "true"}, "b"),
        ({"assigned": "true"}, "ac"),
        ({"unassigned": "true"}, "b"),
        ({"taskAssignee": "fozzie"}, "c"),
        ({"taskAssigneeLike": "%erm%"}, "a"),
        ({"taskPriority": "30"}, "b"),
        ({"taskDeleteReason": "completed"}, "a"),
        ({"taskDeleteReasonLike": "cancelled%"}, "c"),
        ({"taskName": "Review order"}, "abc"),
        ({"taskNameLike": "Review%"}, "abc"),
        ({"taskDescription": "Check the order"}, "abc"),
        ({"taskDefinitionKeyIn": "other,review"}, "abc"),
        ({"processInstanceBusinessKey": "order-2"}, "b"),
        ({"processInstanceBusinessKeyIn": "order-1,order-2"}, "ab"),
        ({"processInstanceBusinessKeyLike": "order-%"}, "abc"),
        ({"processDefinitionName": "Order history"}, "abc"),
        ({"processDefinitionKey": "nope"}, ""),
        ({"taskDueDate": "2026-03-05T12:00:00.000+0000"}, "a"),
        ({"taskDueDateAfter": "2026-03-04T00:00:00.000+0000"}, "a"),
        ({"taskDueDateBefore": "2026-03-04T00:00:00.000+0000"}, ""),
        ({"withoutTaskDueDate": "true"}, "bc"),
        ({"startedAfter": at(11)}, "bc"),
        ({"finishedBefore": at(12)}, "a"),
        # Candidates are known while a task is open (there is no ACT_HI_IDENTITYLINK).
        ({"taskHadCandidateGroup": "sales"}, "b"),
        ({"taskInvolvedUser": "kermit"}, "a"),
        ({"withCandidateGroups": "true"}, "b"),
        ({"taskVariables": "flag_eq_urgent"}, "b"),
        ({"processVariables": "customer_eq_ACME"}, "a"),
        ({"processVariables": "customer_like_%Corp"}, "b"),
    ],
)
def test_task_filters(
    rest: LiveServer, world: World, params: dict[str, str], expected: str
) -> None:
    tasks = {"a": world.task_a, "b": world.task_b, "c": world.task_c}
    scope = {"processInstanceBusinessKeyIn": "order-1,order-2,order-3"}
    if "processInstanceBusinessKeyIn" in params:
        scope = {}
    found = listed(rest, "/history/task", **scope, **params)
    assert sorted(ids(found)) == sorted(tasks[x] for x in expected)
    assert count(rest, "/history/task", **scope, **params) == len(expected)


def test_task_query_with_every_key_null_filters_nothing(rest: LiveServer, world: World) -> None:
    body: dict[str, Any] = dict.fromkeys(TASK_QUERY_KEYS)
    everything = posted(rest, "/history/task", body)
    assert {world.task_a, world.task_b, world.task_c} <= set(ids(everything))
    body.update(
        processInstanceBusinessKeyIn=["order-1", "order-2", "order-3"],
        sorting=[{"sortBy": "priority", "sortOrder": "desc"}],
    )
    assert ids(posted(rest, "/history/task", body)) == [world.task_a, world.task_c, world.task_b]
    assert rest.client.post("/history/task/count", json=body).json() == {"count": 3}


def test_task_sorting_puts_missing_values_last(rest: LiveServer, world: World) -> None:
    by_end = listed(
        rest,
        "/history/task",
        processInstanceBusinessKeyLike="order-%",
        sortBy="endTime",
        sortOrder="asc",
    )
    assert ids(by_end) == [world.task_a, world.task_c, world.task_b]


def test_task_of_a_deleted_instance_and_an_unknown_task(rest: LiveServer, world: World) -> None:
    # Camunda has no GET /history/task/{id}: a task is found with the taskId filter.
    (task,) = listed(rest, "/history/task", taskId=world.task_c)
    assert (task["deleteReason"], task["endTime"], task["assignee"]) == (
        "cancelled by test",
        at(13),
        "fozzie",
    )
    assert listed(rest, "/history/task", taskId="no-such-task") == []
    assert rest.client.get("/history/task/no-such-task").status_code == 404


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"taskPriority": "high"}, "taskPriority"),
        ({"taskVariables": "flag_neq_urgent"}, "neq"),
        ({"taskDueDateBefore": "soon"}, "taskDueDateBefore"),
        ({"sortBy": "created", "sortOrder": "asc"}, "sortBy"),
    ],
)
def test_task_list_refuses_invalid_parameters(
    rest: LiveServer, params: dict[str, str], named: str
) -> None:
    assert_invalid(rest.client.get("/history/task", params=params), named)


# -- /history/variable-instance --------------------------------------------------------------


def variables_by_name(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["name"]: item for item in items}


def test_variable_instances_of_an_instance(rest: LiveServer, world: World) -> None:
    found = variables_by_name(listed(rest, "/history/variable-instance", processInstanceId=world.b))
    assert set(found) == {
        "reviewer",
        "priority",
        "due",
        "amount",
        "customer",
        "scan",
        "profile",
        "flag",
    }
    for item in found.values():
        assert set(item) == VARIABLE_KEYS
        assert item["state"] == "CREATED"
    customer = found["customer"]
    assert (customer["type"], customer["value"], customer["valueInfo"]) == (
        "String",
        "Globex Corp",
        {},
    )
    assert customer["createTime"] == at(11)
    assert customer["processInstanceId"] == world.b
    assert (found["amount"]["type"], found["amount"]["value"]) == ("Integer", 50)
    assert (found["reviewer"]["type"], found["reviewer"]["value"]) == ("Null", None)
    # Bytes come without their bytes in lists: `/data` serves them.
    assert (found["scan"]["type"], found["scan"]["value"]) == ("Bytes", None)
    assert found["profile"]["type"] == "Object"
    assert found["profile"]["value"] == {"tier": "gold"}
    assert found["profile"]["valueInfo"]["serializationDataFormat"] == "application/json"
    assert found["flag"]["taskId"] == world.task_b


def test_deleted_variables_only_on_request(rest: LiveServer, world: World) -> None:
    assert (
        listed(rest, "/history/variable-instance", processInstanceId=world.b, variableName="note")
        == []
    )
    (note,) = listed(
        rest,
        "/history/variable-instance",
        processInstanceId=world.b,
        variableName="note",
        includeDeleted="true",
    )
    assert (note["state"], note["value"]) == ("DELETED", "temporary")


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"variableName": "customer", "variableValue": "ACME"}, ["a:customer"]),
        (
            {
                "variableName": "CUSTOMER",
                "variableValue": "acme",
                "variableNamesIgnoreCase": "true",
                "variableValuesIgnoreCase": "true",
            },
            ["a:customer"],
        ),
        (
            {"variableNameLike": "rev%", "processInstanceIdIn": "{a},{c}"},
            ["a:reviewer", "c:reviewer"],
        ),
        ({"variableTypeIn": "Bytes,object"}, ["b:profile", "b:scan"]),
        ({"variableTypeIn": "boolean"}, ["a:approved"]),
        ({"taskIdIn": "{task_b}"}, ["b:flag"]),
        ({"variableName": "amount", "processInstanceIdIn": "{a},{b}"}, ["a:amount", "b:amount"]),
        ({"variableName": "amount", "executionIdIn": "{a}"}, ["a:amount"]),
        ({"variableName": "amount", "activityInstanceIdIn": "{b}"}, ["b:amount"]),
        ({"variableName": "amount", "tenantIdIn": "t1"}, []),
        ({"variableName": "amount", "caseInstanceId": "case"}, []),
    ],
)
def test_variable_instance_filters(
    rest: LiveServer, world: World, params: dict[str, str], expected: list[str]
) -> None:
    names = {"a": world.a, "b": world.b, "c": world.c, "task_b": world.task_b}
    params = {k: v.format(**names) for k, v in params.items()}
    short = {world.a: "a", world.b: "b", world.c: "c"}
    found = sorted(
        f"{short[i['processInstanceId']]}:{i['name']}"
        for i in listed(rest, "/history/variable-instance", **params)
        if i["processInstanceId"] in short
    )
    assert found == expected


def test_variable_instances_by_post_sorted_by_name(rest: LiveServer, world: World) -> None:
    body = {
        "processInstanceIdIn": [world.a],
        "variableName": None,
        "sorting": [{"sortBy": "variableName", "sortOrder": "asc"}],
    }
    found = posted(rest, "/history/variable-instance", body)
    assert [i["name"] for i in found] == [
        "amount",
        "approved",
        "customer",
        "due",
        "priority",
        "reviewer",
    ]
    assert rest.client.post("/history/variable-instance/count", json=body).json() == {"count": 6}
    assert count(rest, "/history/variable-instance", processInstanceId=world.a) == 6


def test_serialized_object_values_on_request(rest: LiveServer, world: World) -> None:
    (profile,) = listed(
        rest,
        "/history/variable-instance",
        processInstanceId=world.b,
        variableName="profile",
        deserializeValues="false",
    )
    assert profile["value"] == '{"tier":"gold"}'
    single = rest.client.get(
        f"/history/variable-instance/{profile['id']}", params={"deserializeValue": "false"}
    )
    assert single.json()["value"] == '{"tier":"gold"}'


def test_variable_instance_by_id_and_its_data(rest: LiveServer, world: World) -> None:
    found = variables_by_name(listed(rest, "/history/variable-instance", processInstanceId=world.b))
    scan, customer = found["scan"], found["customer"]
    response = rest.client.get(f"/history/variable-instance/{scan['id']}")
    assert response.status_code == 200
    assert response.json() == scan
    data = rest.client.get(f"/history/variable-instance/{scan['id']}/data")
    assert data.status_code == 200
    assert data.headers["content-type"] == "application/octet-stream"
    assert data.content == SCAN
    not_binary = rest.client.get(f"/history/variable-instance/{customer['id']}/data")
    assert_invalid(not_binary, customer["id"])


def test_unknown_variable_instance_is_404(rest: LiveServer) -> None:
    for path in ("/history/variable-instance/nothing", "/history/variable-instance/nothing/data"):
        response = rest.client.get(path)
        assert response.status_code == 404
        assert "nothing" in response.json()["message"]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"variableValue": "ACME"}, "variable name and value"),
        ({"sortBy": "createTime", "sortOrder": "asc"}, "sortBy"),
        ({"maxResults": "-5"}, "maxResults"),
    ],
)
def test_variable_instance_list_refuses_invalid_parameters(
    rest: LiveServer, params: dict[str, str], named: str
) -> None:
    assert_invalid(rest.client.get("/history/variable-instance", params=params), named)


# -- /history/detail -------------------------------------------------------------------------


def test_variable_updates_of_an_instance(rest: LiveServer, world: World) -> None:
    found = listed(
        rest,
        "/history/detail",
        processInstanceId=world.b,
        variableUpdates="true",
        sortBy="time",
        sortOrder="asc",
    )
    for item in found:
        assert set(item) == DETAIL_KEYS
        assert item["type"] == "variableUpdate"
    customer = [i for i in found if i["variableName"] == "customer"]
    assert [(i["value"], i["revision"], i["initial"], i["time"]) for i in customer] == [
        ("Globex", 0, True, at(11)),
        ("Globex Corp", 1, False, at(12)),
    ]
    assert customer[0]["variableType"] == "String"
    assert customer[0]["variableInstanceId"] == customer[1]["variableInstanceId"]
    (flag,) = [i for i in found if i["variableName"] == "flag"]
    assert flag["taskId"] == world.task_b


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (
            {"initial": "true", "variableTypeIn": "String"},
            ["customer:Globex", "flag:urgent", "note:temporary"],
        ),
        ({"occurredAfter": at(12)}, ["customer:Globex Corp", "note:temporary"]),
        ({"occurredBefore": at(11), "variableTypeIn": "Integer"}, ["amount:50", "priority:30"]),
        (
            {"excludeTaskDetails": "true", "variableTypeIn": "String"},
            ["customer:Globex", "customer:Globex Corp", "note:temporary"],
        ),
        ({"taskId": "{task_b}"}, ["flag:urgent"]),
        ({"formFields": "true"}, []),
        ({"tenantIdIn": "t1"}, []),
    ],
)
def test_detail_filters(
    rest: LiveServer, world: World, params: dict[str, str], expected: list[str]
) -> None:
    params = {k: v.format(task_b=world.task_b) for k, v in params.items()}
    found = listed(rest, "/history/detail", processInstanceId=world.b, **params)
    assert sorted(f"{i['variableName']}:{i['value']}" for i in found) == expected
    assert count(rest, "/history/detail", processInstanceId=world.b, **params) == len(expected)


def test_details_by_variable_instance_by_post(rest: LiveServer, world: World) -> None:
    (customer,) = listed(
        rest, "/history/variable-instance", processInstanceId=world.b, variableName="customer"
    )
    body = {
        "variableInstanceId": customer["id"],
        "processInstanceIdIn": [world.a, world.b],
        "sorting": [{"sortBy": "variableRevision", "sortOrder": "desc"}],
    }
    found = posted(rest, "/history/detail", body)
    assert [i["revision"] for i in found] == [1, 0]
    assert count(rest, "/history/detail", variableInstanceId=customer["id"]) == 2


def test_detail_by_id_and_its_data(rest: LiveServer, world: World) -> None:
    found = listed(rest, "/history/detail", processInstanceId=world.b)
    (scan,) = [i for i in found if i["variableName"] == "scan"]
    assert (scan["variableType"], scan["value"]) == ("Bytes", None)
    response = rest.client.get(f"/history/detail/{scan['id']}")
    assert response.status_code == 200
    assert response.json() == scan
    data = rest.client.get(f"/history/detail/{scan['id']}/data")
    assert (data.status_code, data.content) == (200, SCAN)
    (amount,) = [i for i in found if i["variableName"] == "amount"]
    assert_invalid(rest.client.get(f"/history/detail/{amount['id']}/data"), amount["id"])


def test_unknown_detail_is_404(rest: LiveServer) -> None:
    for path in ("/history/detail/nothing", "/history/detail/nothing/data"):
        response = rest.client.get(path)
        assert response.status_code == 404
        assert "nothing" in response.json()["message"]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"occurredAfter": "noon"}, "occurredAfter"),
        ({"sortBy": "value", "sortOrder": "asc"}, "sortBy"),
        ({"sortOrder": "asc"}, "sortBy"),
    ],
)
def test_detail_list_refuses_invalid_parameters(
    rest: LiveServer, params: dict[str, str], named: str
) -> None:
    assert_invalid(rest.client.get("/history/detail", params=params), named)


def test_detail_query_refuses_an_invalid_body(rest: LiveServer) -> None:
    response = rest.client.post("/history/detail", json={"occurredAfter": "noon"})
    assert_invalid(response, "occurredAfter")
