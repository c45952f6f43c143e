"""Process instance modification over engine-rest: `POST /process-instance/{id}/modification` and
`POST /modification/execute` with Camunda's bodies; Camunda's 400s for malformed instructions,
naming the field; the operator (the authenticated caller) and the annotation in the log."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import BPMN_DIR

from .server import LiveServer

SUBPROCESS = BPMN_DIR / "embedded_subprocess.bpmn"  # start -> sub(checkA || checkB) -> after


@pytest.fixture(scope="module")
def models(rest: LiveServer) -> None:
    rest.engine.deploy(SUBPROCESS)


def start(rest: LiveServer) -> str:
    return rest.engine.start_process_instance("embeddedSubprocess").id


def activity_ids(rest: LiveServer, instance: str) -> list[str]:
    tree = rest.client.get(f"/process-instance/{instance}/activity-instances").json()
    found: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        for child in node["childActivityInstances"]:
            found.append(child["activityId"])
            walk(child)

    walk(tree)
    return sorted(found)


def instance_of(rest: LiveServer, instance: str, activity_id: str) -> str:
    tree = rest.client.get(f"/process-instance/{instance}/activity-instances").json()
    stack = [tree]
    while stack:
        node = stack.pop()
        if node["activityId"] == activity_id:
            return str(node["id"])
        stack.extend(node["childActivityInstances"])
    raise AssertionError(f"no instance of {activity_id}")


@pytest.mark.usefixtures("models")
def test_cancel_and_start_in_one_request(rest: LiveServer) -> None:
    instance = start(rest)
    check_a = instance_of(rest, instance, "checkA")
    body = {
        "skipCustomListeners": False,
        "skipIoMappings": False,
        "annotation": "skip the broken check",
        "instructions": [
            {"type": "cancel", "activityInstanceId": check_a},
            {
                "type": "startBeforeActivity",
                "activityId": "after",
                "variables": {
                    "approved": {"value": True, "type": "Boolean"},
                    "note": {"value": "by hand", "local": True},
                },
            },
        ],
    }
    response = rest.client.post(f"/process-instance/{instance}/modification", json=body)
    assert response.status_code == 204, response.text
    assert activity_ids(rest, instance) == ["after", "checkB", "sub"]
    assert rest.engine.runtime_service.get_variable(instance, "approved") is True
    assert "note" not in rest.engine.runtime_service.get_variables(instance, local=True)
    records = [e for e in rest.engine.events(instance) if e.type == "ProcessInstanceModified"]
    assert [r.payload["annotation"] for r in records] == ["skip the broken check"]


@pytest.mark.usefixtures("models")
def test_cancel_all_and_start_transition(rest: LiveServer) -> None:
    instance = start(rest)
    body = {
        "instructions": [
            {"type": "cancel", "activityId": "sub"},
            {"type": "startTransition", "transitionId": "f2"},
        ]
    }
    response = rest.client.post(f"/process-instance/{instance}/modification", json=body)
    assert response.status_code == 204, response.text
    assert activity_ids(rest, instance) == ["after"]


@pytest.mark.usefixtures("models")
@pytest.mark.parametrize(
    ("instruction", "message"),
    [
        ({"type": "cancel"}, "For instruction type 'cancel': exactly one, 'activityId'"),
        (
            {"type": "cancel", "activityId": "a", "activityInstanceId": "b"},
            "exactly one, 'activityId', 'activityInstanceId', or 'transitionInstanceId'",
        ),
        ({"type": "startBeforeActivity"}, "For instruction type 'startBeforeActivity': "),
        ({"type": "startTransition"}, "'transitionId' must be set"),
        ({"type": "jump", "activityId": "after"}, "Instruction type 'jump' is not one of"),
        (
            {"type": "startBeforeActivity", "activityId": "nowhere"},
            "Element 'nowhere' does not exist in process 'embeddedSubprocess'",
        ),
    ],
)
def test_malformed_instructions_are_400s_that_change_nothing(
    rest: LiveServer, instruction: dict[str, Any], message: str
) -> None:
    instance = start(rest)
    before = len(rest.engine.events(instance))
    response = rest.client.post(
        f"/process-instance/{instance}/modification", json={"instructions": [instruction]}
    )
    assert response.status_code == 400, response.text
    assert message in response.json()["message"]
    assert len(rest.engine.events(instance)) == before


@pytest.mark.usefixtures("models")
def test_an_unknown_instance_is_a_400_naming_it(rest: LiveServer) -> None:
    response = rest.client.post(
        "/process-instance/no-such-instance/modification",
        json={"instructions": [{"type": "startBeforeActivity", "activityId": "after"}]},
    )
    assert response.status_code == 400
    assert "no-such-instance" in response.json()["message"]


@pytest.mark.usefixtures("models")
def test_no_instructions_is_nothing_to_do(rest: LiveServer) -> None:
    instance = start(rest)
    before = len(rest.engine.events(instance))
    response = rest.client.post(f"/process-instance/{instance}/modification", json={})
    assert response.status_code == 204
    assert len(rest.engine.events(instance)) == before


@pytest.mark.usefixtures("models")
def test_modification_execute_moves_many_instances(rest: LiveServer) -> None:
    instances = [start(rest) for _ in range(2)]
    definition = rest.engine.runtime_service.process_instance(instances[0])
    assert definition is not None
    body = {
        "processDefinitionId": definition.definition_id,
        "processInstanceIds": instances,
        "instructions": [
            {"type": "cancel", "activityId": "sub"},
            {"type": "startBeforeActivity", "activityId": "after"},
        ],
        "annotation": "release",
    }
    response = rest.client.post("/modification/execute", json=body)
    assert response.status_code == 204, response.text
    for instance in instances:
        assert activity_ids(rest, instance) == ["after"]


@pytest.mark.usefixtures("models")
def test_modification_execute_refuses_instance_ids_in_cancellations(rest: LiveServer) -> None:
    instance = start(rest)
    definition = rest.engine.runtime_service.process_instance(instance)
    assert definition is not None
    body = {
        "processDefinitionId": definition.definition_id,
        "processInstanceIds": [instance],
        "instructions": [{"type": "cancel", "activityInstanceId": "x"}],
    }
    response = rest.client.post("/modification/execute", json=body)
    assert response.status_code == 400
    assert "cancels by activity id" in response.json()["message"]
