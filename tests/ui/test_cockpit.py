"""The cockpit as a person uses it: sign in, a definition's badges, an instance's tokens, the
time slider and its shared URL, a diff of two positions, retrying an incident, a model drawn
without diagram interchange."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .cockpit import MODELS, PASSWORD, USER, Cockpit

pytestmark = pytest.mark.ui


@pytest.fixture(scope="module", autouse=True)
def deployed(cockpit: Cockpit) -> None:
    cockpit.deploy(MODELS / "invoice.bpmn", MODELS / "no_diagram.bpmn")


def test_sign_in_is_asked_first_and_opens_the_dashboard(page: Page, cockpit: Cockpit) -> None:
    page.goto("/cockpit")
    page.wait_for_url(re.compile(r"/login"))
    page.get_by_label("Username").fill(USER)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_be_visible()
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/cockpit/?$"))
    expect(page.get_by_role("link", name="Invoice approval").first).to_be_visible()
    cookie = next(c for c in page.context.cookies() if c["name"] == "flowledger_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"


def test_definition_badges_count_running_instances_and_incidents(
    signed_in: Page, cockpit: Cockpit
) -> None:
    waiting = [cockpit.start_invoice(f"badge-{n}") for n in range(3)]
    failing = cockpit.start_invoice("badge-failing")
    cockpit.complete(cockpit.task_of(failing)["id"], approved=True)
    cockpit.fail_booking(failing)
    page = signed_in
    page.goto(f"/cockpit/definitions/{cockpit.definition_id('invoice')}")
    review = page.get_by_test_id("badge-running-reviewInvoice")
    booking = page.get_by_test_id("badge-incident-bookInvoice")
    at_review = {"processDefinitionKey": "invoice", "taskDefinitionKey": "reviewInvoice"}
    expected_waiting = cockpit.rest.get("/task/count", params=at_review).json()["count"]
    assert expected_waiting >= len(waiting)
    assert review.inner_text().strip() == str(expected_waiting)
    assert booking.inner_text().strip() == "1"
    assert page.get_by_test_id("badge-running-bookInvoice").inner_text().strip() == "1"


def test_token_sits_on_the_waiting_task(signed_in: Page, cockpit: Cockpit) -> None:
    instance = cockpit.start_invoice("token")
    signed_in.goto(f"/cockpit/instances/{instance}")
    expect(signed_in.get_by_test_id("token-reviewInvoice")).to_be_visible()
    expect(signed_in.get_by_test_id("token-bookInvoice")).to_have_count(0)


def test_slider_goes_back_in_time_and_its_url_shows_the_same_moment(
    signed_in: Page, cockpit: Cockpit
) -> None:
    instance = cockpit.start_invoice("slider")
    cockpit.complete(cockpit.task_of(instance)["id"], approved=True, note="looks fine")
    page = signed_in
    page.goto(f"/cockpit/instances/{instance}")
    expect(page.get_by_test_id("token-bookInvoice")).to_be_visible()
    expect(page.get_by_test_id("variable-note")).to_be_visible()
    slider = page.get_by_test_id("time-slider")
    slider.focus()
    note = page.get_by_test_id("variable-note")
    # back, one position at a time (the arrow key on the focused range), to before the review
    # set its note
    for _ in range(int(slider.get_attribute("max") or "0")):
        try:
            expect(note).to_have_count(0, timeout=1_000)
            break
        except AssertionError:
            page.keyboard.press("ArrowLeft")
    expect(note).to_have_count(0)
    expect(page).to_have_url(re.compile(r"position=\d+"))
    expect(page.get_by_test_id("token-reviewInvoice")).to_be_visible()
    expect(page.get_by_test_id("token-bookInvoice")).to_have_count(0)
    expect(page.get_by_test_id("passed-invoiceReceived")).to_have_count(1)
    expect(page.get_by_test_id("variable-creditor")).to_be_visible()
    shared = page.url
    assert "position=" in shared

    other = page.context.new_page()
    other.goto(shared)
    expect(other.get_by_test_id("token-reviewInvoice")).to_be_visible()
    expect(other.get_by_test_id("variable-note")).to_have_count(0)
    assert other.get_by_test_id("time-slider").input_value() == slider.input_value()


def test_diff_between_two_positions_names_what_changed(signed_in: Page, cockpit: Cockpit) -> None:
    instance = cockpit.start_invoice("diff")
    events = cockpit.ext.get(f"/process-instance/{instance}/events").json()
    before = events[-1]["position"]
    cockpit.complete(cockpit.task_of(instance)["id"], approved=False, note="duplicate")
    after = cockpit.ext.get(f"/process-instance/{instance}/events").json()[-1]["position"]
    page = signed_in
    page.goto(f"/cockpit/instances/{instance}?position={after}&diff={before}")
    diff = page.get_by_test_id("diff-view")
    expect(diff).to_contain_text("duplicate")  # the note the review set
    expect(diff).to_contain_text("note")
    expect(diff).to_contain_text("approved")
    expect(diff).to_contain_text("Review invoice")  # the task went away


def test_retrying_an_incident_removes_it(signed_in: Page, cockpit: Cockpit) -> None:
    instance = cockpit.start_invoice("retry")
    cockpit.complete(cockpit.task_of(instance)["id"], approved=True)
    incident = cockpit.fail_booking(instance)
    page = signed_in
    page.goto(f"/cockpit/instances/{instance}?tab=incidents")
    row = page.get_by_test_id(f"incident-{incident}")
    expect(row).to_be_visible()
    row.get_by_role("button", name=re.compile("Retry")).click()
    row.wait_for(state="detached")
    assert cockpit.rest.get("/incident", params={"processInstanceId": instance}).json() == []


def test_a_model_without_diagram_interchange_is_laid_out(signed_in: Page, cockpit: Cockpit) -> None:
    signed_in.goto(f"/cockpit/definitions/{cockpit.definition_id('noDiagram')}")
    shape = signed_in.locator('[data-element-id="waitHere"]')
    shape.wait_for()
    box = shape.bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0
