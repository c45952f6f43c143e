"""The named pages a reader and the accessibility check look at, each with the data that makes
it worth looking at: the list docs/ui.md shows and test_accessibility.py checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .cockpit import DMN, MODELS, Cockpit


@dataclass(frozen=True)
class NamedPage:
    name: str  # the screenshot's file name, without .png
    title: str  # what docs/ui.md calls it
    path: Callable[[Cockpit], str]  # where it is, once `populate` ran
    ready: str  # a data-testid or CSS selector that is there once the page shows its data


def populate(cockpit: Cockpit) -> dict[str, str]:
    """Instances in every state the pages show: waiting, passed the review, failed, ended."""
    cockpit.deploy(MODELS / "invoice.bpmn", MODELS / "no_diagram.bpmn", DMN)
    waiting = cockpit.start_invoice("ACME Office", 120, key="INV-1001")
    cockpit.start_invoice("Globex", 80, key="INV-1002")
    reviewed = cockpit.start_invoice("Initech", 430, key="INV-1003")
    cockpit.complete(cockpit.task_of(reviewed)["id"], approved=True, note="checked")
    failed = cockpit.start_invoice("Umbrella", 999, key="INV-1004")
    cockpit.complete(cockpit.task_of(failed)["id"], approved=True)
    cockpit.fail_booking(failed)
    rejected = cockpit.start_invoice("Hooli", 15, key="INV-1005")
    cockpit.complete(cockpit.task_of(rejected)["id"], approved=False, note="duplicate")
    modified = cockpit.start_invoice("Soylent", 230, key="INV-1006")
    repaired = cockpit.rest.post(
        f"/process-instance/{modified}/modification",
        json={
            "annotation": "Approved by phone: book it",
            "instructions": [
                {"type": "startBeforeActivity", "activityId": "bookInvoice"},
                {"type": "cancel", "activityId": "reviewInvoice"},
            ],
        },
    )
    assert repaired.status_code == 204, repaired.text
    decision = cockpit.rest.get("/decision-definition", params={"key": "dish"}).json()
    assert len(decision) == 1, decision
    decision_id = decision[0]["id"]
    evaluated = cockpit.rest.post(
        f"/decision-definition/{decision_id}/evaluate",
        json={"variables": {"season": {"value": "Spring"}, "guestCount": {"value": 4}}},
    )
    assert evaluated.status_code == 200, evaluated.text
    positions = [
        e["position"] for e in cockpit.ext.get(f"/process-instance/{reviewed}/events").json()
    ]
    return {
        "past": str(positions[len(positions) // 3]),
        "latest": str(positions[-1]),
        "waiting": waiting,
        "reviewed": reviewed,
        "failed": failed,
        "decision": decision_id,
        "waiting_task": cockpit.task_of(waiting)["id"],
        "rejected": rejected,
        "modified": modified,
    }


def named_pages(ids: dict[str, str]) -> list[NamedPage]:
    def definition(c: Cockpit) -> str:
        return f"/cockpit/definitions/{c.definition_id('invoice')}"

    return [
        NamedPage("sign-in", "Sign-in", lambda c: "/login", "form"),
        NamedPage("dashboard", "Dashboard", lambda c: "/cockpit", "main table"),
        NamedPage("definition", "A definition's badges", definition, "[data-testid^=badge-]"),
        NamedPage(
            "instances",
            "Instance search",
            lambda c: "/cockpit/instances?definitionKey=invoice",
            "main table",
        ),
        NamedPage(
            "instance",
            "One instance with the time slider",
            lambda c: f"/cockpit/instances/{ids['reviewed']}",
            "[data-testid=time-slider]",
        ),
        NamedPage(
            "instance-past",
            "The same instance in its past, with what changed since",
            lambda c: (
                f"/cockpit/instances/{ids['reviewed']}?position={ids['past']}&diff={ids['latest']}"
            ),
            "[data-testid=diff-view]",
        ),
        NamedPage(
            "instance-incident",
            "An instance with an incident",
            lambda c: f"/cockpit/instances/{ids['failed']}?tab=incidents",
            "[data-testid^=incident-]",
        ),
        NamedPage(
            "instance-modify",
            "Modifying a running instance: the activity chosen on the diagram",
            lambda c: f"/cockpit/instances/{ids['waiting']}?activity=reviewInvoice",
            "[data-testid=activity-actions]",
        ),
        NamedPage(
            "instance-repaired",
            "The modification in the instance's timeline",
            lambda c: f"/cockpit/instances/{ids['modified']}?tab=timeline",
            "[data-testid^=repair-]",
        ),
        NamedPage(
            "instance-restart",
            "Restarting an ended instance",
            lambda c: f"/cockpit/instances/{ids['rejected']}?activity=reviewInvoice",
            "[data-testid=restart-panel]",
        ),
        NamedPage(
            "decision",
            "A decision and its evaluations",
            lambda c: f"/cockpit/decisions/{ids['decision']}",
            "[data-testid^=evaluation-]",
        ),
        NamedPage("audit", "Audit", lambda c: "/cockpit/audit", "main"),
        NamedPage(
            "tasklist",
            "Tasklist with a task's form",
            lambda c: f"/tasklist/tasks/{ids['waiting_task']}",
            "form",
        ),
    ]
