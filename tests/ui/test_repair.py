"""Repairing an instance in the cockpit as an operator does: move its token by starting before
one activity and cancelling another, with an annotation; see the token move on the diagram and
the timeline's entry naming the operator; a refused modification explained; an ended instance
restarted and its new instance linked."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .cockpit import MODELS, USER, Cockpit

pytestmark = pytest.mark.ui


@pytest.fixture(scope="module", autouse=True)
def deployed(cockpit: Cockpit) -> None:
    cockpit.deploy(MODELS / "invoice.bpmn")


def choose(page: Page, activity_id: str) -> None:
    """Click the activity's shape on the instance diagram."""
    page.locator(f'[data-element-id="{activity_id}"]').click()
    expect(page).to_have_url(re.compile(rf"activity={activity_id}"))


def activities_running(cockpit: Cockpit, instance_id: str) -> list[str]:
    tree = cockpit.rest.get(f"/process-instance/{instance_id}/activity-instances").json()
    return sorted(child["activityId"] for child in tree["childActivityInstances"])


def test_start_before_one_activity_and_cancel_another_moves_the_token(
    signed_in: Page, cockpit: Cockpit
) -> None:
    instance = cockpit.start_invoice("repair")
    page = signed_in
    page.goto(f"/cockpit/instances/{instance}")
    expect(page.get_by_test_id("token-reviewInvoice")).to_be_visible()

    choose(page, "bookInvoice")
    actions = page.get_by_test_id("activity-actions")
    expect(actions.get_by_test_id("running-count")).to_contain_text("nothing runs here")
    expect(actions.get_by_role("button", name="Cancel", exact=True)).to_have_count(0)
    actions.get_by_role("button", name="Start before").click()
    choose(page, "reviewInvoice")
    expect(actions.get_by_test_id("running-count")).to_contain_text("1 running here")
    # two flows leave the gateway: "start after" is Camunda's only for a single one
    actions.get_by_role("button", name="Cancel", exact=True).click()
    queue = page.get_by_test_id("modification-queue").get_by_role("listitem")
    expect(queue).to_have_count(2)
    expect(queue.nth(0)).to_contain_text("Start before “Book invoice”")
    expect(queue.nth(1)).to_contain_text("Cancel every instance of “Review invoice”")
    # the diagram marks what the queue will do, before anything is applied
    expect(page.get_by_test_id("pending-bookInvoice")).to_have_text("+")
    expect(page.get_by_test_id("pending-reviewInvoice")).to_have_text("✕")
    expect(page.get_by_test_id("token-reviewInvoice")).to_be_visible()
    page.get_by_label("Annotation").fill("Approved by phone, book it")
    page.get_by_test_id("modify-submit").click()

    expect(page.get_by_role("status").filter(has_text="Instance modified")).to_be_visible()
    expect(page.get_by_test_id("token-bookInvoice")).to_be_visible()
    expect(page.get_by_test_id("token-reviewInvoice")).to_have_count(0)
    expect(page.get_by_test_id("modification-queue-empty")).to_be_visible()
    expect(page.locator("[data-testid^=pending-]")).to_have_count(0)
    assert activities_running(cockpit, instance) == ["bookInvoice"]

    page.get_by_role("link", name="Timeline").click()
    repair = page.locator("[data-testid^=repair-]").filter(has_text="instance modified")
    expect(repair).to_have_count(1)
    expect(repair).to_contain_text(f"by {USER}")
    expect(repair.get_by_role("listitem")).to_have_count(2)
    expect(repair.get_by_test_id("modification-annotation")).to_have_text(
        "Annotation: “Approved by phone, book it”"
    )
    row = page.locator("[data-testid^=timeline-]").filter(has=repair)
    expect(row).to_contain_text(USER)  # the actor column: the signed-in operator


def test_a_refused_modification_says_why_and_changes_nothing(
    signed_in: Page, cockpit: Cockpit
) -> None:
    instance = cockpit.start_invoice("refused")
    # a second token at the review, so that one of the two can be picked
    added = cockpit.rest.post(
        f"/process-instance/{instance}/modification",
        json={"instructions": [{"type": "startBeforeActivity", "activityId": "reviewInvoice"}]},
    )
    assert added.status_code == 204, added.text
    page = signed_in
    page.goto(f"/cockpit/instances/{instance}?activity=reviewInvoice")
    expect(page.get_by_test_id("running-count")).to_contain_text("2 running here")
    picked = page.get_by_label("Or cancel one of them").input_value()
    page.get_by_role("button", name="Cancel this one").click()
    expect(page.get_by_test_id("modification-queue")).to_contain_text(picked)
    # meanwhile someone else cancels that very activity instance
    gone = cockpit.rest.post(
        f"/process-instance/{instance}/modification",
        json={"instructions": [{"type": "cancel", "activityInstanceId": picked}]},
    )
    assert gone.status_code == 204, gone.text
    page.get_by_test_id("modify-submit").click()

    refusal = page.get_by_test_id("modify-error")
    expect(refusal).to_contain_text("The instance was not modified")
    expect(refusal).to_contain_text(picked)
    # the queue stays to be fixed, the one token left is untouched
    expect(page.get_by_test_id("modification-queue").get_by_role("listitem")).to_have_count(1)
    assert activities_running(cockpit, instance) == ["reviewInvoice"]


def test_restarting_an_ended_instance_links_the_new_one(signed_in: Page, cockpit: Cockpit) -> None:
    ended = cockpit.start_invoice("restart", amount=75)
    cockpit.complete(cockpit.task_of(ended)["id"], approved=False, note="wrong creditor")
    page = signed_in
    page.goto(f"/cockpit/instances/{ended}")
    expect(page.get_by_test_id("instance-state")).to_have_text("completed")
    start = page.get_by_label("Start before")
    expect(start).to_have_value("invoiceReceived")  # the process's start event by default
    choose(page, "reviewInvoice")
    expect(start).to_have_value("reviewInvoice")
    page.get_by_label("Without business key").check()
    page.get_by_test_id("restart-submit").click()

    link = page.get_by_test_id("restarted-instance")
    expect(link).to_be_visible()
    link.click()
    expect(page.get_by_test_id("token-reviewInvoice")).to_be_visible()
    restarted = page.url.split("/cockpit/instances/")[1].split("?")[0]
    assert restarted != ended
    expect(page.get_by_test_id("restarted-from")).to_have_attribute(
        "href", f"/cockpit/instances/{ended}"
    )
    assert activities_running(cockpit, restarted) == ["reviewInvoice"]
    historic = cockpit.rest.get(f"/history/process-instance/{restarted}").json()
    assert historic["businessKey"] is None
    variables = cockpit.rest.get(f"/process-instance/{restarted}/variables").json()
    # its last variables, as Camunda restarts by default: the review's decision included
    assert variables["creditor"]["value"] == "restart"
    assert variables["note"]["value"] == "wrong creditor"
