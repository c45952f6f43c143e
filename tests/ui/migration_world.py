"""The shipments a migration in the cockpit moves: version 1 waits at "Pack order", version 2
renames it "Pack parcel" (packParcel) and adds a boundary timer, and "Shipment by robot" packs in
an external service task. Shared by test_migration.py and the screenshots (screenshots.py)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from .cockpit import MODELS, Cockpit


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


def migration_endpoints_missing(cockpit: Cockpit) -> str | None:
    """Why the migration part cannot run on this server, or None."""
    for path in ("/migration/generate", "/migration/validate", "/migration/execute"):
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
