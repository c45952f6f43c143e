"""The tasklist as a person uses it: the group's tasks, claiming one, completing it through its
form after a validation error, starting an instance from a start form."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .cockpit import MODELS, USER, Cockpit

pytestmark = pytest.mark.ui


@pytest.fixture(scope="module", autouse=True)
def deployed(cockpit: Cockpit) -> None:
    cockpit.deploy(MODELS / "invoice.bpmn")


def test_complete_a_task_through_its_form_after_a_validation_error(
    signed_in: Page, cockpit: Cockpit
) -> None:
    instance = cockpit.start_invoice("form")
    task = cockpit.task_of(instance)
    page = signed_in
    page.goto("/tasklist?filter=groups")
    page.get_by_test_id(f"task-{task['id']}").get_by_role("link").click()
    page.wait_for_url(re.compile(rf"/tasklist/tasks/{task['id']}"))
    page.get_by_role("button", name="Claim").click()
    page.get_by_role("button", name="Unclaim").wait_for()
    page.get_by_label("Note").fill("ok")  # the note needs three characters at least
    page.get_by_role("button", name="Complete").click()
    error = page.get_by_test_id("form-error-note")
    expect(error).to_be_visible()
    expect(error).to_contain_text("3")
    assert cockpit.rest.get(f"/task/{task['id']}").status_code == 200  # nothing was sent
    page.get_by_label("Note").fill("paid twice")
    page.get_by_role("button", name="Complete").click()
    expect(page.get_by_role("heading", name="Task completed")).to_be_visible()
    assert cockpit.rest.get(f"/task/{task['id']}").status_code == 404
    history = cockpit.rest.get(
        "/history/variable-instance", params={"processInstanceId": instance, "variableName": "note"}
    ).json()
    assert [v["value"] for v in history] == ["paid twice"]
    completed = cockpit.rest.get("/history/task", params={"taskId": task["id"]}).json()
    assert completed[0]["assignee"] == USER


def test_start_an_instance_from_its_start_form(signed_in: Page, cockpit: Cockpit) -> None:
    page = signed_in
    page.goto(f"/tasklist/start/{cockpit.definition_id('invoice')}")
    page.get_by_label("Creditor").fill("Started from the tasklist")
    page.get_by_label("Amount").fill("0")
    page.get_by_role("button", name="Start").click()
    expect(page.get_by_test_id("form-error-amount")).to_be_visible()
    page.get_by_label("Amount").fill("250")
    page.get_by_role("button", name="Start").click()
    expect(page.get_by_test_id("started")).to_be_visible()
    started = cockpit.rest.get(
        "/process-instance", params={"processDefinitionKey": "invoice"}
    ).json()
    creditors = [
        cockpit.rest.get(f"/process-instance/{p['id']}/variables/creditor").json()["value"]
        for p in started
    ]
    assert "Started from the tasklist" in creditors
