"""Migration plans over engine-rest: `POST /migration/generate` and `POST /migration/validate`
with Camunda's bodies and answers (MigrationRestServiceImpl), the engine's builder behind them,
and Camunda's error shapes: a missing definition is a 400 InvalidRequestException, a generated
plan that fails is a 400 MigrationPlanValidationException carrying its report."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from flowledger.core.errors import MigrationPlanInvalid, NotFound
from flowledger.rest.errors import RestError
from flowledger.rest.migration_plans import MigrationInstructionDto
from flowledger.rest.resources.migration import MigrationPlanDto, plan_from_dto, valid_plan

from .server import LiveServer

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">\n'
    '<message id="m" name="Message"/>\n'
)


def bpmn(key: str, body: str) -> str:
    return f'{HEAD}<process id="{key}" isExecutable="true">{body}</process></definitions>'


def one_task(key: str, task: str = '<userTask id="userTask"/>') -> str:
    return bpmn(
        key,
        '<startEvent id="start"/>'
        + task
        + '<endEvent id="end"/><sequenceFlow id="a" sourceRef="start" targetRef="userTask"/>'
        '<sequenceFlow id="b" sourceRef="userTask" targetRef="end"/>',
    )


WITH_CATCH = (
    '<startEvent id="start"/><intermediateCatchEvent id="catch"><messageEventDefinition '
    'messageRef="m"/></intermediateCatchEvent><userTask id="userTask"/><endEvent id="end"/>'
    '<sequenceFlow id="a" sourceRef="start" targetRef="catch"/>'
    '<sequenceFlow id="b" sourceRef="catch" targetRef="userTask"/>'
    '<sequenceFlow id="c" sourceRef="userTask" targetRef="end"/>'
)


def deploy(rest: LiveServer, text: str) -> str:
    deployment = rest.engine.deploy(text.encode(), "migration.bpmn")
    return deployment.process_definitions[0].id


def instruction(source: str, target: str, update: bool = False) -> dict[str, Any]:
    return {
        "sourceActivityIds": [source],
        "targetActivityIds": [target],
        "updateEventTrigger": update,
    }


@pytest.fixture(scope="module")
def tasks(rest: LiveServer) -> tuple[str, str]:
    """Two versions of a one-task process; the second's task is a service task."""
    first = deploy(rest, one_task("migrateTasks"))
    service = '<serviceTask id="userTask" camunda:class="foo.Bar"/>'
    return first, deploy(rest, one_task("migrateTasks", service))


def test_generate_maps_equal_activities(rest: LiveServer) -> None:
    source = deploy(rest, bpmn("migrateCatch", WITH_CATCH))
    target = deploy(rest, bpmn("migrateCatch", WITH_CATCH))
    body = {"sourceProcessDefinitionId": source, "targetProcessDefinitionId": target}
    answer = rest.client.post("/migration/generate", json=body)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "sourceProcessDefinitionId": source,
        "targetProcessDefinitionId": target,
        "instructions": [instruction("catch", "catch"), instruction("userTask", "userTask")],
        "variables": None,
    }
    body["updateEventTriggers"] = True
    body["variables"] = {"reason": {"value": "v2", "type": "String"}}
    updated = rest.client.post("/migration/generate", json=body).json()
    assert updated["instructions"][0] == instruction("catch", "catch", update=True)
    assert updated["variables"] == {"reason": {"value": "v2", "type": "String", "valueInfo": {}}}


def test_validate_answers_an_empty_report_for_a_valid_plan(rest: LiveServer) -> None:
    source = deploy(rest, one_task("migrateValid"))
    target = deploy(rest, one_task("migrateValid"))
    plan = {
        "sourceProcessDefinitionId": source,
        "targetProcessDefinitionId": target,
        "instructions": [instruction("userTask", "userTask")],
    }
    answer = rest.client.post("/migration/validate", json=plan)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"instructionReports": [], "variableReports": {}}


def test_validate_reports_each_failing_instruction_in_camunda_s_words(
    rest: LiveServer, tasks: tuple[str, str]
) -> None:
    source, target = tasks
    plan = {
        "sourceProcessDefinitionId": source,
        "targetProcessDefinitionId": target,
        "instructions": [
            instruction("userTask", "userTask"),
            instruction("nope", "userTask"),
            instruction("start", "start", update=True),
        ],
        "variables": {
            "blob": {
                "value": "rO0ABXQAA2Zvbw==",
                "type": "Object",
                "valueInfo": {
                    "objectTypeName": "java.lang.String",
                    "serializationDataFormat": "application/x-java-serialized-object",
                },
            }
        },
    }
    answer = rest.client.post("/migration/validate", json=plan)
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["instructionReports"] == [
        {
            "instruction": instruction("userTask", "userTask"),
            "failures": [
                "Activities have incompatible types (UserTaskActivityBehavior is not "
                "compatible with ClassDelegateActivityBehavior)"
            ],
        },
        {
            "instruction": instruction("nope", "userTask"),
            "failures": ["Source activity 'nope' does not exist"],
        },
        {
            "instruction": instruction("start", "start", update=True),
            "failures": [
                "Cannot update event trigger because the activity does not define a "
                "persistent event trigger"
            ],
        },
    ]
    assert report["variableReports"] == {
        "blob": {
            "value": "rO0ABXQAA2Zvbw==",
            "type": "Object",
            "valueInfo": {
                "objectTypeName": "java.lang.String",
                "serializationDataFormat": "application/x-java-serialized-object",
            },
            "failures": [
                "Cannot set variable with name blob. Java serialization format is prohibited"
            ],
        }
    }


def test_a_generated_plan_that_fails_is_camunda_s_validation_exception(
    rest: LiveServer, tasks: tuple[str, str]
) -> None:
    source, target = tasks
    java = {
        "value": "rO0AB",
        "type": "Object",
        "valueInfo": {"serializationDataFormat": "application/x-java-serialized-object"},
    }
    body = {
        "sourceProcessDefinitionId": source,
        "targetProcessDefinitionId": target,
        "variables": {"blob": java},
    }
    answer = rest.client.post("/migration/generate", json=body)
    assert answer.status_code == 400
    error = answer.json()
    assert error["type"] == "MigrationPlanValidationException"
    assert error["message"] == (
        f"Migration plan for process definition '{source}' to '{target}' is not valid:\n"
        "\t Migration variable blob is not valid:\n"
        "\t\tCannot set variable with name blob. Java serialization format is prohibited\n"
    )
    assert error["validationReport"]["instructionReports"] == []
    assert list(error["validationReport"]["variableReports"]) == ["blob"]


@pytest.mark.parametrize("path", ["/migration/generate", "/migration/validate"])
def test_unknown_or_missing_definitions_are_400s(
    rest: LiveServer, tasks: tuple[str, str], path: str
) -> None:
    source, _target = tasks
    body = {"sourceProcessDefinitionId": source, "targetProcessDefinitionId": "nope:1:x"}
    answer = rest.client.post(path, json=body)
    assert answer.status_code == 400
    assert answer.json() == {
        "type": "InvalidRequestException",
        "message": "Target process definition with id 'nope:1:x' does not exist",
    }
    missing = rest.client.post(path, json={"targetProcessDefinitionId": source})
    assert missing.status_code == 400
    assert missing.json()["message"] == "Source process definition id is null"


@pytest.mark.parametrize(
    "ids",
    [{"targetActivityIds": ["userTask"]}, {"sourceActivityIds": [], "targetActivityIds": ["a"]}],
)
def test_an_instruction_needs_one_source_and_one_target(
    rest: LiveServer, tasks: tuple[str, str], ids: dict[str, Any]
) -> None:
    source, target = tasks
    plan = {
        "sourceProcessDefinitionId": source,
        "targetProcessDefinitionId": target,
        "instructions": [ids],
    }
    answer = rest.client.post("/migration/validate", json=plan)
    assert answer.status_code == 400
    assert answer.json()["type"] == "InvalidRequestException"
    assert "sourceActivityIds" in answer.json()["message"]


def test_the_builder_of_the_runtime_service(rest: LiveServer, tasks: tuple[str, str]) -> None:
    source = deploy(rest, bpmn("migrateBuilder", WITH_CATCH))
    target = deploy(rest, bpmn("migrateBuilder", WITH_CATCH))
    runtime = rest.engine.runtime_service
    plan = (
        runtime.create_migration_plan(source, target)
        .map_equal_activities()
        .update_event_triggers()
        .set_variables({"reason": "v2"})
        .build()
    )
    assert [(i.source_activity_id, i.update_event_trigger) for i in plan.instructions] == [
        ("catch", True),
        ("userTask", False),
    ]
    assert plan.variables == {"reason": "v2"}
    explicit = (
        runtime.create_migration_plan(source, target)
        .map_activities("catch", "catch")
        .update_event_trigger()
        .build()
    )
    assert explicit.instructions[0].update_event_trigger
    with pytest.raises(MigrationPlanInvalid) as caught:
        runtime.create_migration_plan(*tasks).map_equal_activities().map_activities(
            "userTask", "userTask"
        ).build()
    assert (
        caught.value.report.instruction_reports[0]
        .failures[0]
        .startswith("Activities have incompatible types")
    )
    with pytest.raises(NotFound, match="Source process definition 'nope' not found"):
        runtime.create_migration_plan("nope", target).build()


def test_valid_plan_is_what_execute_reads(rest: LiveServer, tasks: tuple[str, str]) -> None:
    source, target = tasks
    dto = MigrationPlanDto(
        source_process_definition_id=source,
        target_process_definition_id=source,
        instructions=[MigrationInstructionDto(["userTask"], ["userTask"])],
    )
    plan = valid_plan(rest.engine, dto)
    assert plan.instructions[0].target_activity_id == "userTask"
    assert plan_from_dto(dto) == plan
    with pytest.raises(MigrationPlanInvalid):
        valid_plan(rest.engine, msgspec.structs.replace(dto, target_process_definition_id=target))
    with pytest.raises(RestError, match="Target process definition with id 'x' does not exist"):
        valid_plan(rest.engine, msgspec.structs.replace(dto, target_process_definition_id="x"))
