"""`POST /migration/execute` as Camunda's MigrationRestServiceImpl answers it: instances named
by id and/or by processInstanceQuery move in one command (204); a plan that fails is a 400
MigrationPlanValidationException with its report, an instance that cannot move a 400
MigratingProcessInstanceValidationException with the instance's report, and nothing moved."""

from __future__ import annotations

from typing import Any

from .server import LiveServer
from .test_migration_plans_rest import bpmn, deploy, instruction, one_task

SERVICE = '<serviceTask id="userTask" camunda:class="foo.Bar"/>'


def execute(rest: LiveServer, body: dict[str, Any]) -> Any:
    return rest.client.post("/migration/execute", json=body)


def start(rest: LiveServer, definition_id: str) -> str:
    answer = rest.client.post(f"/process-definition/{definition_id}/start", json={})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["id"])


def test_execute_moves_instances_by_id_and_by_query(rest: LiveServer) -> None:
    v1 = deploy(rest, one_task("migrateExec"))
    first, second = start(rest, v1), start(rest, v1)
    renamed = (
        one_task("migrateExec", '<userTask id="approve"/>')
        .replace('targetRef="userTask"', 'targetRef="approve"')
        .replace('sourceRef="userTask"', 'sourceRef="approve"')
    )
    v2 = deploy(rest, renamed)
    plan = {
        "sourceProcessDefinitionId": v1,
        "targetProcessDefinitionId": v2,
        "instructions": [instruction("userTask", "approve")],
    }
    answer = execute(rest, {"migrationPlan": plan, "processInstanceIds": [first]})
    assert answer.status_code == 204, answer.text
    answer = execute(
        rest,
        {"migrationPlan": plan, "processInstanceQuery": {"processDefinitionId": v1}},
    )
    assert answer.status_code == 204, answer.text
    for pid in (first, second):
        instance = rest.client.get(f"/process-instance/{pid}").json()
        assert instance["definitionId"] == v2
        [task] = rest.client.get("/task", params={"processInstanceId": pid}).json()
        assert task["taskDefinitionKey"] == "approve"
    history = rest.client.get("/history/process-instance", params={"processInstanceId": first})
    assert history.json()[0]["processDefinitionId"] == v2


def test_an_instance_that_cannot_move_answers_with_its_report(rest: LiveServer) -> None:
    v1 = deploy(rest, one_task("migrateRefused"))
    pid = start(rest, v1)
    v2 = deploy(rest, one_task("migrateRefused"))
    plan = {"sourceProcessDefinitionId": v1, "targetProcessDefinitionId": v2, "instructions": []}
    answer = execute(rest, {"migrationPlan": plan, "processInstanceIds": [pid]})
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["type"] == "MigratingProcessInstanceValidationException"
    report = body["validationReport"]
    assert report["processInstanceId"] == pid
    [activity] = report["activityInstanceValidationReports"]
    assert activity["sourceScopeId"] == "userTask"
    assert activity["failures"] == [
        "There is no migration instruction for this instance's activity"
    ]
    assert report["transitionInstanceValidationReports"] == []
    assert rest.client.get(f"/process-instance/{pid}").json()["definitionId"] == v1


def test_a_plan_that_fails_is_refused_before_anything_moves(rest: LiveServer) -> None:
    v1 = deploy(rest, one_task("migrateBadPlan"))
    pid = start(rest, v1)
    v2 = deploy(rest, one_task("migrateBadPlan", SERVICE))
    plan = {
        "sourceProcessDefinitionId": v1,
        "targetProcessDefinitionId": v2,
        "instructions": [instruction("userTask", "userTask")],
    }
    answer = execute(rest, {"migrationPlan": plan, "processInstanceIds": [pid]})
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["type"] == "MigrationPlanValidationException"
    [report] = body["validationReport"]["instructionReports"]
    assert report["failures"] and "incompatible" in report["failures"][0]
    assert rest.client.get(f"/process-instance/{pid}").json()["definitionId"] == v1


def test_no_instances_no_plan_and_unknown_instances_are_400(rest: LiveServer) -> None:
    v1 = deploy(rest, bpmn("migrateEmpty", "<startEvent id='s'/>"))
    plan = {"sourceProcessDefinitionId": v1, "targetProcessDefinitionId": v1, "instructions": []}
    answer = execute(rest, {"migrationPlan": plan, "processInstanceIds": []})
    assert (answer.status_code, answer.json()["type"]) == (400, "BadUserRequestException")
    answer = execute(rest, {"processInstanceIds": ["x"]})
    assert answer.status_code == 400
    answer = execute(rest, {"migrationPlan": plan, "processInstanceIds": ["nope"]})
    assert (answer.status_code, answer.json()["type"]) == (400, "BadUserRequestException")


def test_execute_async_answers_with_the_batch_that_moves_them(rest: LiveServer) -> None:
    v1 = deploy(rest, one_task("migrateAsync"))
    ids = [start(rest, v1) for _ in range(3)]
    v2 = deploy(rest, one_task("migrateAsync"))
    generated = rest.client.post(
        "/migration/generate",
        json={"sourceProcessDefinitionId": v1, "targetProcessDefinitionId": v2},
    ).json()
    answer = rest.client.post(
        "/migration/executeAsync",
        json={"migrationPlan": generated, "processInstanceIds": ids},
    )
    assert answer.status_code == 200, answer.text
    batch = answer.json()
    assert (batch["type"], batch["totalJobs"]) == ("instance-migration", 3)
    stats = rest.client.get("/batch/statistics", params={"batchId": batch["id"]}).json()
    assert stats[0]["remainingJobs"] == 3
    rest.engine.run_due_jobs()
    for pid in ids:
        assert rest.client.get(f"/process-instance/{pid}").json()["definitionId"] == v2
    # every job done: the monitor completed the batch, history keeps it
    assert rest.client.get("/batch/statistics", params={"batchId": batch["id"]}).json() == []
    finished = rest.client.get(f"/history/batch/{batch['id']}").json()
    assert finished["endTime"] is not None
