"""The shipments a migration in the cockpit moves: version 1 waits at "Pack order", version 2
renames it "Pack parcel" (packParcel) and adds a boundary timer, and "Shipment by robot" packs in
an external service task. Shared by test_migration.py and the screenshots (screenshots.py)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cockpit import MODELS, Cockpit

if TYPE_CHECKING:
    from playwright.sync_api import Page


@dataclass(frozen=True)
class Shipments:
    v1: str
    v2: str
    robot: str


def definition_of(cockpit: Cockpit, key: str, version: int) -> str:
    found = cockpit.rest.get("/process-definition", params={"key": key, "version": version}).json()
    assert len(found) == 1, found
    definition_id: str = found[0]["id"]
    return definition_id


def deploy_shipments(cockpit: Cockpit) -> Shipments:
    """Version 1 of `shipment`, then version 2 and the robot's; their definition ids."""
    cockpit.deploy(MODELS / "shipment_v1.bpmn")
    v1 = definition_of(cockpit, "shipment", 1)
    cockpit.deploy(MODELS / "shipment_v2.bpmn")
    cockpit.deploy(MODELS / "robot_shipment.bpmn")
    v2 = definition_of(cockpit, "shipment", 2)
    return Shipments(v1, v2, definition_of(cockpit, "robotShipment", 1))


def start_shipments(cockpit: Cockpit, definition_id: str, *keys: str) -> list[str]:
    """Instances of `definition_id` (each waits at its first user task); their ids."""
    ids = []
    for key in keys:
        answer = cockpit.rest.post(
            f"/process-definition/{definition_id}/start", json={"businessKey": key}
        )
        assert answer.status_code == 200, answer.text
        ids.append(answer.json()["id"])
    return ids


def migration_endpoints_missing(
    cockpit: Cockpit, paths: tuple[str, ...] = ("/migration/generate", "/migration/validate")
) -> str | None:
    """Why the migration part cannot run on this server, or None."""
    for path in paths:
        answer = cockpit.rest.post(path, json={})
        if answer.status_code in (404, 405):
            return f"the server has no POST /engine-rest{path} yet (issue 37's migration endpoints)"
    return None


def batch_endpoints_missing(cockpit: Cockpit) -> str | None:
    """Why the batch part cannot run on this server, or None."""
    for path in ("/batch/statistics", "/history/batch"):
        answer = cockpit.rest.get(path)
        if answer.status_code in (404, 405):
            return f"the server has no GET /engine-rest{path} yet (issue 37's batch endpoints)"
    return None


def run_jobs_of(cockpit: Cockpit, job_definition_id: str | None, at_most: int = 100) -> int:
    """Execute the jobs of one job definition now (a batch's seed, batch or monitor jobs)."""
    if not job_definition_id:
        return 0
    jobs = cockpit.rest.get(
        "/job", params={"jobDefinitionId": job_definition_id, "maxResults": at_most}
    ).json()
    for job in jobs:
        cockpit.rest.post(f"/job/{job['id']}/execute")
    return len(jobs)


def run_batch(cockpit: Cockpit, batch: dict[str, Any], seconds: float = 30) -> None:
    """Run a batch's jobs until it is done (gone from /batch, ended in history): the due jobs,
    and the monitor job, which otherwise waits its poll interval between looks."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        cockpit.engine.run_due_jobs()
        if cockpit.rest.get(f"/batch/{batch['id']}").status_code == 404:
            return
        run_jobs_of(cockpit, batch.get("seedJobDefinitionId"))
        run_jobs_of(cockpit, batch.get("batchJobDefinitionId"))
        run_jobs_of(cockpit, batch.get("monitorJobDefinitionId"))
        time.sleep(0.1)
    raise AssertionError(f"batch {batch['id']} did not finish in {seconds} s")


def migration_screenshots(page: Page, cockpit: Cockpit, out: Path) -> list[str]:
    """docs/ui's migration pictures, on a signed-in page: the plan beside both diagrams, a
    failing instruction, a batch under way (one job of three done) above a finished one."""
    from playwright.sync_api import expect

    shipments = deploy_shipments(cockpit)
    start_shipments(cockpit, shipments.v1, "order-1", "order-2", "order-3")
    taken = []

    def shot(name: str) -> None:
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(out / f"{name}.png"), full_page=True)
        taken.append(name)

    def plan_to(target: str) -> None:
        page.goto(f"/cockpit/definitions/{shipments.v1}/migrate?target={target}")
        page.get_by_test_id("generate-plan").click()
        expect(page.get_by_test_id("migration-plan")).to_be_visible()
        drawn = page.locator("[data-testid=bpmn-diagram][data-imported=true]")
        expect(drawn).to_have_count(2)

    def map_and_validate(source: str, target: str) -> None:
        page.get_by_label("Source activity").select_option(source)
        page.get_by_label("Target activity").select_option(target)
        page.get_by_test_id("add-instruction").click()
        page.get_by_test_id("validate-plan").click()
        expect(page.locator("[data-testid^=validation-]")).to_have_count(1)

    plan_to(shipments.robot)
    map_and_validate("packOrder", "packByRobot")
    expect(page.get_by_test_id("validation-failed")).to_be_visible()
    shot("migration-validation")

    plan_to(shipments.v2)
    map_and_validate("packOrder", "packParcel")
    expect(page.get_by_test_id("validation-ok")).to_be_visible()
    shot("migration-plan")

    if batch_endpoints_missing(cockpit) is None:
        # one batch already done, for the finished list
        (early,) = start_shipments(cockpit, shipments.v1, "order-0")
        plan = cockpit.rest.post(
            "/migration/generate",
            json={
                "sourceProcessDefinitionId": shipments.v1,
                "targetProcessDefinitionId": shipments.v2,
            },
        ).json()
        plan["instructions"].append(
            {"sourceActivityIds": ["packOrder"], "targetActivityIds": ["packParcel"]}
        )
        done = cockpit.rest.post(
            "/migration/executeAsync", json={"migrationPlan": plan, "processInstanceIds": [early]}
        ).json()
        run_batch(cockpit, done)
        page.get_by_label("Only the instances I pick below").check()
        page.get_by_label("Pick every listed instance").check()
        page.get_by_test_id("migrate-batch").click()
        expect(page.get_by_test_id("batch-focus")).to_be_visible()
        batch = cockpit.rest.get(f"/batch/{page.url.split('batch=')[1]}").json()
        run_jobs_of(cockpit, batch.get("seedJobDefinitionId"))
        run_jobs_of(cockpit, batch.get("batchJobDefinitionId"), at_most=1)
        expect(page.get_by_test_id(f"focus-jobs-{batch['id']}")).to_contain_text("1 of 3")
        shot("batch-progress")
    return taken
