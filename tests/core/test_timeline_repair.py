"""The timeline shows an operator's repair as its own line: who modified the instance, why (the
annotation) and what they asked for; a restarted instance's start names the one it restarts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from flowledger import Engine
from flowledger.core import commands as cmd
from flowledger.core import events as ev
from flowledger.core.audit_trail import Commit, timeline

INVOICE = Path(__file__).resolve().parents[2] / "tools" / "examples" / "invoice.bpmn"

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
T1 = datetime(2026, 12, 7, 9, 5, tzinfo=UTC)


def started(restarted_from: str | None = None) -> ev.ProcessInstanceStarted:
    return ev.ProcessInstanceStarted(
        process_instance_id="pi-2" if restarted_from else "pi-1",
        definition_id="invoice:1:d",
        definition_key="invoice",
        definition_version=1,
        deployment_id="d",
        business_key="INV-1",
        start_activity_id="invoiceReceived",
        time=T0,
        restarted_from=restarted_from,
    )


def activity(ai: str, activity_id: str, name: str) -> ev.ActivityStarted:
    return ev.ActivityStarted(
        activity_instance_id=ai,
        activity_id=activity_id,
        activity_type="userTask",
        activity_name=name,
        execution_id=f"x-{ai}",
        parent_activity_instance_id="pi-1",
        time=T0,
    )


def commit(position: int, command: str, actor: str, *events: ev.Event) -> Commit:
    return Commit(
        first_position=position,
        recorded_at=T0,
        command_id=f"c{position}",
        command_type=command,
        actor=actor,
        via="rest",
        events=list(events),
    )


def test_a_modification_is_one_line_with_its_operator_annotation_and_instructions() -> None:
    modified = ev.ProcessInstanceModified(
        instructions=["Start before activity 'approve'", "Cancel all instances of 'review'"],
        time=T1,
        annotation="stuck since Friday",
        skip_io_mappings=True,
    )
    entries = timeline(
        [
            commit(1, "StartProcessInstance", "demo", started(), activity("a1", "review", "R")),
            commit(
                3,
                "ModifyProcessInstance",
                "mary",
                modified,
                activity("a2", "approve", "Approve"),
                ev.ActivityCanceled(activity_instance_id="a1", time=T1),
            ),
        ]
    )

    line = next(e for e in entries if e.position == 3)
    assert line.actor == "mary"
    assert line.time == T1
    assert line.annotation == "stuck since Friday"
    assert line.instructions == [
        "Start before activity 'approve'",
        "Cancel all instances of 'review'",
    ]
    assert line.what == (
        "instance modified (skipping IO mappings): Start before activity 'approve'; "
        "Cancel all instances of 'review'"
    )
    # its effects follow on their own lines, by the same operator
    effects = [(e.activity_id, e.what, e.actor) for e in entries if e.position > 3]
    assert effects == [("approve", "userTask started", "mary"), ("review", "canceled", "mary")]
    # other lines carry no annotation nor instructions
    assert all(e.annotation is None and e.instructions == [] for e in entries if e.position != 3)


def test_a_restarted_instance_says_which_instance_it_restarts() -> None:
    (line,) = timeline([commit(1, "RestartProcessInstances", "demo", started("pi-1"))])
    assert line.what == "instance started (business key INV-1) as a restart of pi-1"


def test_the_engine_s_timeline_carries_a_modification_made_through_the_runtime_service(
    engine: Engine,
) -> None:
    engine.deploy(INVOICE)
    instance = engine.start_process_instance("invoice", {"amount": 5000, "invoiceNumber": "INV-2"})
    task = "approve"  # where the instance waits: the invoice's user task

    engine.runtime_service.modify_process_instance(
        instance.id,
        [cmd.CancelAllForActivity(activity_id=task)],
        annotation="entered twice",
        actor="mary",
    )

    (line,) = [e for e in engine.audit_service.timeline(instance.id) if e.instructions]
    assert (line.actor, line.annotation) == ("mary", "entered twice")
    assert line.instructions == [f"Cancel all instances of activity '{task}'"]
    assert line.what == f"instance modified: Cancel all instances of activity '{task}'"
