"""Migrating running instances in the cockpit as an operator does (issue 37): from version 1's
page, generate the plan to version 2, see the renamed task flagged as unmapped with instances
running there, map it by hand, validate, run it as a batch and watch the batch on the Batches
page until it completes; the instances then run on version 2. A user task mapped to a service
task shows Camunda's failure beside the instruction; a refused "migrate now" says which
instance and why; a batch is suspended, activated and deleted from the Batches page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .cockpit import Cockpit
from .migration_world import (
    Shipments,
    batch_endpoints_missing,
    deploy_shipments,
    migration_endpoints_missing,
    run_batch,
    run_jobs_of,
    start_shipments,
)

pytestmark = pytest.mark.ui


@pytest.fixture(scope="module")
def shipments(cockpit: Cockpit) -> Shipments:
    reason = migration_endpoints_missing(cockpit)
    if reason is not None:
        pytest.skip(reason)
    return deploy_shipments(cockpit)


def needs_execute(cockpit: Cockpit) -> None:
    reason = migration_endpoints_missing(cockpit, ("/migration/execute",))
    if reason is not None:
        pytest.skip(reason)


def needs_batches(cockpit: Cockpit) -> None:
    reason = batch_endpoints_missing(cockpit) or migration_endpoints_missing(
        cockpit, ("/migration/executeAsync",)
    )
    if reason is not None:
        pytest.skip(reason)


def open_plan(page: Page, shipments: Shipments, target: str) -> None:
    """From version 1's page: Migrate, pick the target, generate the plan."""
    page.goto(f"/cockpit/definitions/{shipments.v1}")
    page.get_by_role("link", name="Migrate instances").click()
    expect(page).to_have_url(re.compile(r"/migrate$"))
    page.get_by_label("Target definition").select_option(target)
    expect(page).to_have_url(re.compile(r"target="))
    page.get_by_test_id("generate-plan").click()
    expect(page.get_by_test_id("migration-plan")).to_be_visible()
    drawn = page.get_by_test_id("migration-diagrams").locator("[data-imported=true]")
    expect(drawn).to_have_count(2)  # source and target


def map_by_hand(page: Page, source: str, target: str) -> None:
    page.get_by_label("Source activity").select_option(source)
    page.get_by_label("Target activity").select_option(target)
    page.get_by_test_id("add-instruction").click()
    expect(page.get_by_test_id(f"instruction-{source}")).to_be_visible()


def assert_accessible(page: Page) -> None:
    """axe-core finds no serious or critical violation (as test_accessibility.py checks)."""
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    severe = [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in violations
        if v.get("impact") in {"serious", "critical"}
    ]
    assert severe == [], "; ".join(severe)


def definition_of_instance(cockpit: Cockpit, instance_id: str) -> str:
    found: str = cockpit.rest.get(f"/process-instance/{instance_id}").json()["definitionId"]
    return found


def test_a_generated_plan_mapped_by_hand_runs_as_a_batch(
    signed_in: Page, cockpit: Cockpit, shipments: Shipments
) -> None:
    needs_batches(cockpit)
    instances = start_shipments(cockpit, shipments.v1, "order-1", "order-2", "order-3")
    page = signed_in
    page.goto(f"/cockpit/definitions/{shipments.v1}")
    expect(page.get_by_test_id("badge-running-packOrder")).to_have_text("3")

    open_plan(page, shipments, shipments.v2)
    # Camunda's generator maps what has the same id and type: not the renamed task
    expect(page.get_by_test_id("instruction-approveShipment")).to_be_visible()
    expect(page.get_by_label("Target of Approve shipment")).to_have_value("approveShipment")
    expect(page.get_by_test_id("instruction-packOrder")).to_have_count(0)
    expect(page.get_by_test_id("unmapped-packOrder")).to_contain_text("3 running")
    expect(page.get_by_test_id("warning-at-packOrder")).to_be_visible()

    map_by_hand(page, "packOrder", "packParcel")
    expect(page.get_by_test_id("unmapped-warning")).to_have_count(0)
    expect(page.get_by_test_id("warning-at-packOrder")).to_have_count(0)
    expect(page.get_by_test_id("label-at-packOrder")).to_have_text("→ packParcel")
    page.get_by_test_id("validate-plan").click()
    expect(page.get_by_test_id("validation-ok")).to_be_visible()
    expect(page.get_by_test_id("failures-packOrder")).to_have_text("valid")

    expect(page.get_by_label(re.compile("All running instances"))).to_be_checked()
    page.get_by_test_id("migrate-batch").click()
    expect(page).to_have_url(re.compile(r"/cockpit/batches\?batch="))
    batch_id = page.url.split("batch=")[1]
    focus = page.get_by_test_id("batch-focus")
    expect(focus).to_be_visible()
    batch = cockpit.rest.get(f"/batch/{batch_id}").json()
    assert batch["type"] == "instance-migration", batch
    row = page.get_by_test_id(f"batch-{batch_id}")
    expect(row).to_be_visible()
    expect(row.get_by_test_id(f"batch-jobs-{batch_id}")).to_contain_text(
        f"0 of {batch['totalJobs']} jobs done"
    )

    # suspended, the batch stands still and the page stops polling; activated, it moves again
    row.get_by_role("button", name="Suspend").click()
    expect(row.get_by_test_id(f"batch-state-{batch_id}")).to_have_text("suspended")
    expect(page.get_by_test_id("batch-polling")).to_have_text("Nothing running")
    assert cockpit.rest.get(f"/batch/{batch_id}").json()["suspended"] is True
    row.get_by_role("button", name="Activate").click()
    expect(row.get_by_test_id(f"batch-state-{batch_id}")).not_to_have_text("suspended")
    expect(page.get_by_test_id("batch-polling")).to_contain_text("every 2 s")
    assert_accessible(page)

    run_batch(cockpit, batch)
    # the page notices by itself (it polls every 2 s while the batch runs)
    expect(page.get_by_test_id("batch-completed")).to_be_visible(timeout=10_000)
    expect(page.get_by_test_id(f"batch-{batch_id}")).to_have_count(0)
    expect(page.get_by_test_id(f"finished-batch-{batch_id}")).to_be_visible()

    assert {definition_of_instance(cockpit, i) for i in instances} == {shipments.v2}
    tasks = cockpit.rest.get("/task", params={"processDefinitionId": shipments.v2}).json()
    assert (
        sorted(t["taskDefinitionKey"] for t in tasks if t["processInstanceId"] in instances)
        == ["packParcel"] * 3
    )
    page.goto("/cockpit/instances?definitionKey=shipment&state=running")
    for instance in instances:
        expect(page.get_by_test_id(f"instance-{instance}")).to_contain_text("shipment v2")

    # the instance's own page: on version 2 now, on version 1 before the move (time travel)
    moved = instances[0]
    page.goto(f"/cockpit/instances/{moved}")
    expect(page.get_by_test_id("token-packParcel")).to_be_visible()
    timeline = cockpit.ext.get(f"/process-instance/{moved}/timeline").json()
    at = next(i for i, e in enumerate(timeline) if e["what"].startswith("instance migrated"))
    page.goto(f"/cockpit/instances/{moved}?position={timeline[at - 1]['position']}")
    expect(page.get_by_test_id("past-banner")).to_be_visible()
    expect(page.get_by_test_id("token-packOrder")).to_be_visible()
    page.goto(f"/cockpit/instances/{moved}?tab=timeline")
    entry = page.locator("[data-testid^=repair-]").filter(has_text="instance migrated")
    expect(entry).to_contain_text(shipments.v2)


def test_a_user_task_mapped_to_a_service_task_shows_camundas_failure(
    signed_in: Page, shipments: Shipments
) -> None:
    page = signed_in
    open_plan(page, shipments, shipments.robot)
    # another definition: only the approval matches by id and type
    expect(page.get_by_test_id("instruction-approveShipment")).to_be_visible()
    map_by_hand(page, "packOrder", "packByRobot")
    page.get_by_test_id("validate-plan").click()

    expect(page.get_by_test_id("validation-failed")).to_contain_text("1 instruction fails")
    failures = page.get_by_test_id("failures-packOrder")
    expect(failures).to_contain_text("Activities have incompatible types")
    expect(failures).to_contain_text("UserTaskActivityBehavior is not compatible with")
    expect(page.get_by_test_id("failures-approveShipment")).to_have_text("valid")
    assert_accessible(page)
    # changing the plan drops the report, which was about the plan as it was
    page.get_by_label("Target of Pack order").select_option("approveShipment")
    expect(page.get_by_test_id("validation-failed")).to_have_count(0)
    expect(page.get_by_test_id("failures-packOrder")).to_have_text("not validated")


def test_a_refused_migration_names_the_instance_and_why(
    signed_in: Page, cockpit: Cockpit, shipments: Shipments
) -> None:
    needs_execute(cockpit)
    (instance,) = start_shipments(cockpit, shipments.v1, "order-refused")
    page = signed_in
    open_plan(page, shipments, shipments.v2)
    page.get_by_label("Only the instances I pick below").check()
    page.get_by_label("Pick instance order-refused").check()
    page.get_by_test_id("migrate-now").click()

    refusal = page.get_by_test_id("migration-error")
    expect(refusal).to_contain_text("cannot be migrated; nothing was migrated")
    expect(refusal.get_by_role("link", name=instance[:8], exact=False)).to_have_attribute(
        "href", f"/cockpit/instances/{instance}"
    )
    expect(refusal.get_by_test_id("refused-packOrder")).to_contain_text("Pack order (packOrder)")
    expect(refusal.get_by_test_id("refused-packOrder")).to_contain_text(
        "There is no migration instruction for this instance's activity"
    )
    assert definition_of_instance(cockpit, instance) == shipments.v1

    map_by_hand(page, "packOrder", "packParcel")
    page.get_by_test_id("migrate-now").click()
    expect(page.get_by_test_id("migrated")).to_contain_text("Migrated 1 instance to Shipment v2")
    assert definition_of_instance(cockpit, instance) == shipments.v2


def test_a_batch_is_deleted_with_its_jobs(
    signed_in: Page, cockpit: Cockpit, shipments: Shipments
) -> None:
    """Any batch is on the page: here a deletion batch, deleted before it ran."""
    reason = batch_endpoints_missing(cockpit)
    if reason is not None:
        pytest.skip(reason)
    (instance,) = start_shipments(cockpit, shipments.v1, "order-kept")
    answer = cockpit.rest.post(
        "/process-instance/delete",
        json={"processInstanceIds": [instance], "deleteReason": "by mistake"},
    )
    assert answer.status_code == 200, answer.text
    batch_id = answer.json()["id"]
    page = signed_in
    page.get_by_test_id("signed-in-user").wait_for()
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Batches").click()
    row = page.get_by_test_id(f"batch-{batch_id}")
    expect(row).to_contain_text("Deletion")
    expect(row.get_by_test_id(f"batch-jobs-{batch_id}")).to_contain_text("0 of 1 jobs done")
    row.get_by_role("button", name="Delete").click()
    row.get_by_role("button", name="Delete it and its jobs").click()
    expect(page.get_by_role("status").filter(has_text="deleted with its jobs")).to_be_visible()
    expect(page.get_by_test_id(f"batch-{batch_id}")).to_have_count(0)
    expect(page.get_by_test_id("no-running-batches")).to_be_visible()
    assert cockpit.rest.get(f"/batch/{batch_id}").status_code == 404
    cockpit.engine.run_due_jobs()
    assert definition_of_instance(cockpit, instance) == shipments.v1  # still there, untouched


def test_a_batch_whose_jobs_fail_says_why_and_retries_them(
    signed_in: Page, cockpit: Cockpit, shipments: Shipments
) -> None:
    needs_batches(cockpit)
    (instance,) = start_shipments(cockpit, shipments.v1, "order-unmapped")
    plan = cockpit.rest.post(
        "/migration/generate",
        json={"sourceProcessDefinitionId": shipments.v1, "targetProcessDefinitionId": shipments.v2},
    ).json()  # packOrder stays unmapped: the batch is made, its job fails
    answer = cockpit.rest.post(
        "/migration/executeAsync", json={"migrationPlan": plan, "processInstanceIds": [instance]}
    )
    assert answer.status_code == 200, answer.text
    batch = answer.json()
    for _ in range(5):  # the seed job, then the batch job until it has no retries left
        cockpit.engine.run_due_jobs()
        run_jobs_of(cockpit, batch["batchJobDefinitionId"])
    page = signed_in
    page.goto(f"/cockpit/batches?batch={batch['id']}")
    expect(page.get_by_test_id(f"batch-state-{batch['id']}")).to_have_text("stuck")
    failed = page.get_by_test_id("failed-batch-jobs")
    expect(failed).to_contain_text("There is no migration instruction for this instance's activity")
    expect(page.get_by_test_id("batch-polling")).to_have_text("Nothing running")

    page.get_by_test_id("retry-batch-jobs").click()
    retried = page.get_by_role("status").filter(has_text="1 failed job will run again")
    expect(retried).to_be_visible()
    expect(page.get_by_test_id(f"batch-state-{batch['id']}")).to_have_text("running")
    jobs = cockpit.rest.get("/job", params={"jobDefinitionId": batch["batchJobDefinitionId"]})
    assert [job["retries"] for job in jobs.json()] == [1]
    deleted = cockpit.rest.delete(f"/batch/{batch['id']}", params={"cascade": "true"})
    assert deleted.status_code == 204, deleted.text


def test_migrated_instances_are_counted_on_the_target_diagram(
    signed_in: Page, cockpit: Cockpit, shipments: Shipments
) -> None:
    needs_execute(cockpit)
    (instance,) = start_shipments(cockpit, shipments.v1, "order-counted")
    plan = cockpit.rest.post(
        "/migration/generate",
        json={"sourceProcessDefinitionId": shipments.v1, "targetProcessDefinitionId": shipments.v2},
    ).json()
    plan["instructions"].append(
        {"sourceActivityIds": ["packOrder"], "targetActivityIds": ["packParcel"]}
    )
    answer = cockpit.rest.post(
        "/migration/execute", json={"migrationPlan": plan, "processInstanceIds": [instance]}
    )
    assert answer.status_code == 204, answer.text
    counted = cockpit.rest.get(f"/process-definition/{shipments.v2}/statistics").json()
    running = sum(row["instances"] for row in counted if row["id"] == "packParcel")
    assert running >= 1
    page = signed_in
    page.goto(f"/cockpit/definitions/{shipments.v2}")
    expect(page.get_by_test_id("badge-running-packParcel")).to_have_text(str(running))
