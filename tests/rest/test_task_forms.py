"""Generated forms (`camunda:formData`) over REST as a tasklist uses them: the start form's key,
fields and defaults, starting an instance by submitting it, the task form's key and variables,
a submission refused naming the field and constraint (Camunda's 500 RestException), and the
fields extension under `/flowledger/v1`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from flowledger.rest.paths import BASE_PATH, EXTENSIONS_PATH
from tests.support import BPMN_DIR

from .server import LiveServer

MODEL = BPMN_DIR / "task_form_fields.bpmn"


@pytest.fixture(scope="module")
def definition(rest: LiveServer) -> dict[str, Any]:
    deployment = rest.deploy(MODEL, name="forms")
    (found,) = deployment["deployedProcessDefinitions"].values()
    return dict(found)


@pytest.fixture(scope="module")
def ext(rest: LiveServer) -> Iterator[httpx.Client]:
    base = rest.url.removesuffix(BASE_PATH) + EXTENSIONS_PATH
    with httpx.Client(base_url=base, timeout=60) as client:
        yield client


def _start(rest: LiveServer, definition: dict[str, Any], requester: str = "ann") -> str:
    response = rest.client.post(
        f"/process-definition/{definition['id']}/submit-form",
        json={
            "variables": {"requester": {"value": requester, "type": "String"}},
            "businessKey": f"form-{requester}",
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["businessKey"] == f"form-{requester}"
    assert body["links"][0]["href"].endswith(f"/process-instance/{body['id']}")
    return str(body["id"])


def _task(rest: LiveServer, instance_id: str) -> str:
    (task,) = rest.client.get("/task", params={"processInstanceId": instance_id}).json()
    return str(task["id"])


def test_the_start_form_has_its_key_and_its_defaults(
    rest: LiveServer, definition: dict[str, Any]
) -> None:
    form = rest.client.get(f"/process-definition/{definition['id']}/startForm").json()
    assert form == {"key": "embedded:app:forms/start.html", "contextPath": None}
    by_key = rest.client.get("/process-definition/key/formRequest/startForm").json()
    assert by_key == form
    variables = rest.client.get(f"/process-definition/{definition['id']}/form-variables").json()
    assert variables["amount"] == {"type": "Long", "value": 100, "valueInfo": {}}
    assert variables["requester"] == {"type": "String", "value": None, "valueInfo": {}}
    only = rest.client.get(
        "/process-definition/key/formRequest/form-variables", params={"variableNames": "amount"}
    ).json()
    assert set(only) == {"amount"}


def test_submitting_the_start_form_starts_an_instance_with_its_defaults(
    rest: LiveServer, definition: dict[str, Any]
) -> None:
    instance_id = _start(rest, definition, "bea")
    amount = rest.client.get(f"/process-instance/{instance_id}/variables/amount").json()
    assert amount["type"] == "Long" and amount["value"] == 100


def test_a_start_form_missing_a_required_field_starts_nothing(
    rest: LiveServer, definition: dict[str, Any]
) -> None:
    before = rest.client.get("/process-instance/count").json()["count"]
    response = rest.client.post(
        "/process-definition/key/formRequest/submit-form",
        json={"variables": {"amount": {"value": 5, "type": "Long"}}},
    )
    assert response.status_code == 500
    assert response.json() == {
        "type": "RestException",
        "message": f"Cannot instantiate process definition {definition['id']}: Invalid value "
        "submitted for form field 'requester': validation of required failed.",
    }
    assert rest.client.get("/process-instance/count").json()["count"] == before


def test_the_task_form_is_generated_and_its_variables_show_values_and_defaults(
    rest: LiveServer, definition: dict[str, Any]
) -> None:
    task_id = _task(rest, _start(rest, definition, "cid"))
    form = rest.client.get(f"/task/{task_id}/form").json()
    assert form == {
        "key": f"embedded:engine://engine/:engine/task/{task_id}/rendered-form",
        "contextPath": None,
    }
    variables = rest.client.get(f"/task/{task_id}/form-variables").json()
    assert variables["amount"]["value"] == 100  # the variable's value, not the field's default
    assert variables["decidedOn"] == {"type": "String", "value": "01/02/2030", "valueInfo": {}}
    assert variables["priority"]["value"] == "normal"
    assert variables["reviewer"]["value"] == "cid-boss"  # an expression over the variables
    assert variables["requester"]["value"] == "cid"  # every variable the task sees comes too
    only = rest.client.get(
        f"/task/{task_id}/form-variables", params={"variableNames": "approved,requester"}
    ).json()
    assert set(only) == {"approved", "requester"}


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({}, "Invalid value submitted for form field 'reason': validation of required failed."),
        (
            {"reason": {"value": "no"}},
            "Invalid value submitted for form field 'reason': validation of minlength(3) failed.",
        ),
        (
            {"reason": {"value": "fine"}, "amount": {"value": 501, "type": "Long"}},
            "Invalid value submitted for form field 'amount': validation of max(500) failed.",
        ),
        (
            {"reason": {"value": "fine"}, "reviewer": {"value": "me"}},
            "Invalid value submitted for form field 'reviewer': validation of readonly failed.",
        ),
    ],
    ids=["required", "minlength", "max", "readonly"],
)
def test_a_submission_breaking_a_constraint_is_refused_naming_field_and_constraint(
    rest: LiveServer, definition: dict[str, Any], variables: dict[str, Any], message: str
) -> None:
    task_id = _task(rest, _start(rest, definition))
    response = rest.client.post(f"/task/{task_id}/submit-form", json={"variables": variables})
    assert response.status_code == 500
    assert response.json() == {
        "type": "RestException",
        "message": f"Cannot submit task form {task_id}: {message}",
    }
    assert rest.client.get(f"/task/{task_id}").status_code == 200  # still open


def test_a_valid_submission_completes_the_task_with_typed_values(
    rest: LiveServer, definition: dict[str, Any]
) -> None:
    instance_id = _start(rest, definition, "dan")
    task_id = _task(rest, instance_id)
    response = rest.client.post(
        f"/task/{task_id}/submit-form",
        json={
            "variables": {
                "reason": {"value": "budget ok"},
                "decidedOn": {"value": "03/04/2031", "type": "String"},
                "approved": {"value": "false", "type": "String"},
                "note": {"value": 7, "type": "Integer"},
            }
        },
    )
    assert response.status_code == 204, response.text
    history = rest.client.get(
        "/history/variable-instance", params={"processInstanceId": instance_id}
    ).json()
    values = {v["name"]: (v["type"], v["value"]) for v in history}
    assert values["decidedOn"] == ("Date", "2031-04-03T00:00:00.000+0000")
    assert values["approved"] == ("Boolean", False)
    assert values["priority"] == ("String", "normal")  # not submitted: its default
    assert values["note"] == ("Integer", 7)  # no field: set as it came


def test_unknown_tasks_and_definitions_are_named(rest: LiveServer) -> None:
    for path in ("/task/nope/form", "/task/nope/form-variables"):
        response = rest.client.get(path)
        assert response.status_code == 404
        assert response.json()["message"] == "No matching task with id nope"
    response = rest.client.get("/process-definition/nope/startForm")
    assert response.status_code == 400
    assert "process definition nope" in response.json()["message"]
    assert rest.client.post("/task/nope/submit-form", json={}).status_code == 404


def test_the_form_fields_extension_describes_each_field(
    rest: LiveServer, definition: dict[str, Any], ext: httpx.Client
) -> None:
    task_id = _task(rest, _start(rest, definition, "eve"))
    fields = {f["id"]: f for f in ext.get(f"/task/{task_id}/form-fields").json()}
    assert list(fields) == ["reason", "amount", "approved", "decidedOn", "priority", "reviewer"]
    assert fields["reason"] == {
        "id": "reason",
        "label": "Reason for eve",
        "type": "string",
        "defaultValue": None,
        "values": [],
        "constraints": [
            {"name": "required", "config": None},
            {"name": "minlength", "config": "3"},
        ],
        "datePattern": None,
    }
    assert fields["priority"]["values"][0] == {"id": "low", "name": "Low"}
    assert fields["decidedOn"]["defaultValue"] == "01/02/2030"
    assert fields["approved"]["defaultValue"] is True
    start = ext.get(f"/process-definition/{definition['id']}/form-fields").json()
    assert [f["id"] for f in start] == ["requester", "amount"]
    assert start[1]["defaultValue"] == 100
    missing = ext.get("/task/nope/form-fields")
    assert missing.status_code == 404
