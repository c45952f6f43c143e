"""The instance as it was at a position of its log (`core.instance_view`), the difference of two
positions, and their rendering for the command line (`tools.render`).

Every state comes from running the engine and replaying its log up to a position.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from flowledger import ControllableClock, Engine
from flowledger.core.expressions import Long
from flowledger.core.instance_view import ROOT_SCOPE, Change, InstanceView, diff, instance_view
from flowledger.tools.render import diff_table, instance_panel

REVIEW = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
             targetNamespace="http://flowledger.test">
  <process id="orderReview" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="check"/>
    <userTask id="check" name="Check order" camunda:candidateGroups="accountancy">
      <extensionElements>
        <camunda:inputOutput>
          <camunda:inputParameter name="limit">${amount * 2}</camunda:inputParameter>
        </camunda:inputOutput>
      </extensionElements>
    </userTask>
    <boundaryEvent id="late" attachedToRef="check">
      <timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>
    </boundaryEvent>
    <sequenceFlow id="f2" sourceRef="late" targetRef="tooLate"/>
    <endEvent id="tooLate"/>
    <sequenceFlow id="f3" sourceRef="check" targetRef="approve"/>
    <userTask id="approve" name="Approve order" camunda:candidateUsers="fozzie"/>
    <sequenceFlow id="f4" sourceRef="approve" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>
"""

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Run:
    """One instance of the model driven through its life; the log position after each step."""

    def __init__(self, engine: Engine, clock: ControllableClock) -> None:
        self.engine = engine
        engine.deploy({"p.bpmn": REVIEW})
        pi = engine.start_process_instance(
            "orderReview",
            {
                "amount": 1200,
                "customer": "Miss Piggy",
                "items": {"sku": ["A-1", "B-2"]},
                "scan": b"\x00" * 12,
                "ordered": datetime(2026, 2, 28, tzinfo=UTC),
                "count": Long(5),
            },
            business_key="order-7",
        )
        self.id = pi.id
        self.started = self.last_position()
        self.check = engine.tasks(process_instance_id=pi.id)[0]
        clock.advance(minutes=5)
        engine.claim(self.check.id, "kermit")
        self.claimed = self.last_position()
        clock.advance(minutes=5)
        engine.complete_task(self.check.id, {"approved": True})
        self.reviewed = self.last_position()
        self.approve = engine.tasks(process_instance_id=pi.id)[0]
        engine.complete_task(self.approve.id)
        self.ended = self.last_position()

    def last_position(self) -> int:
        return self.engine.events(self.id)[-1].position

    def view(self, position: int) -> InstanceView:
        return self.engine.audit_service.state_at(self.id, position=position).view()


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Run]:
    clock = ControllableClock(START)
    with Engine("sqlite:///" + str(tmp_path / "x.db"), clock=clock) as engine:
        yield Run(engine, clock)


def by_section(changes: list[Change], section: str) -> list[tuple[str, str, Any, Any]]:
    return [(c.key, c.kind, c.before, c.after) for c in changes if c.section == section]


def test_the_view_after_start_shows_the_open_task_its_timer_and_the_start_variables(
    run: Run,
) -> None:
    view = run.view(run.started)

    assert (view.id, view.definition_key, view.business_key) == (run.id, "orderReview", "order-7")
    assert (view.status, view.suspended, view.end_time) == ("ACTIVE", False, None)
    assert view.events == len([e for e in run.engine.events(run.id) if e.position <= run.started])
    assert [(a.activity_id, a.activity_type) for a in view.activities] == [("check", "userTask")]
    [task] = view.tasks
    assert (task.id, task.name, task.assignee) == (run.check.id, "Check order", None)
    assert (task.candidate_groups, task.candidate_users) == (["accountancy"], [])
    [job] = view.jobs
    assert (job.job_type, job.activity_id, job.due_date) == (
        "timer",
        "late",
        START + timedelta(hours=1),
    )
    assert [(v.scope, v.name, v.type, v.value) for v in view.variables] == [
        # the input mapping's variable lives in the user task's own scope
        ("check", "limit", "Long", 2400),
        (ROOT_SCOPE, "amount", "Integer", 1200),
        (ROOT_SCOPE, "count", "Long", 5),
        (ROOT_SCOPE, "customer", "String", "Miss Piggy"),
        (ROOT_SCOPE, "items", "Json", {"sku": ["A-1", "B-2"]}),
        (ROOT_SCOPE, "ordered", "Date", "2026-02-28T00:00:00.000+00:00"),
        (ROOT_SCOPE, "scan", "Bytes", "<12 bytes>"),
    ]
    # plain values: a Long is shown as the int it is
    assert all(type(v.value) is int for v in view.variables if v.type == "Long")


def test_claiming_changes_the_assignee_and_nothing_else(run: Run) -> None:
    before, after = run.view(run.started), run.view(run.claimed)

    assert after.tasks[0].assignee == "kermit"
    assert diff(before, after) == [
        Change("tasks", run.check.id, "changed", {"assignee": None}, {"assignee": "kermit"})
    ]


def test_completing_a_task_removes_it_and_adds_the_next_task_and_the_new_variable(
    run: Run,
) -> None:
    changes = diff(run.view(run.claimed), run.view(run.reviewed))

    assert by_section(changes, "instance") == []
    [(removed, _, before, after)] = [c for c in by_section(changes, "tasks") if c[1] == "removed"]
    assert (removed, after) == (run.check.id, None)
    assert isinstance(before, dict) and before["assignee"] == "kermit"
    [(added, _, _, task)] = [c for c in by_section(changes, "tasks") if c[1] == "added"]
    assert added == run.approve.id
    assert isinstance(task, dict)
    assert (task["name"], task["candidate_users"]) == ("Approve order", ["fozzie"])
    # the task's input mapping ends with it; the completion's variable lands in the instance
    assert [(key, kind) for key, kind, *_ in by_section(changes, "variables")] == [
        ("check/limit", "removed"),
        ("process instance/approved", "added"),
    ]
    assert _variable(changes, "process instance/approved")["value"] is True
    assert [(kind, job["activity_id"]) for _, kind, job, _ in by_section(changes, "jobs")] == [
        ("removed", "late")
    ]
    assert [(key.split(":")[0], kind) for key, kind, *_ in by_section(changes, "activities")] == [
        ("check", "removed"),
        ("approve", "added"),
    ]


def _variable(changes: list[Change], key: str) -> dict[str, object]:
    [change] = [c for c in changes if c.section == "variables" and c.key == key]
    item = change.after if change.kind == "added" else change.before
    assert isinstance(item, dict)
    return item


def test_completing_the_last_task_completes_the_instance(run: Run) -> None:
    before, after = run.view(run.reviewed), run.view(run.ended)
    changes = diff(before, after)

    assert changes[0].section == "instance"
    assert changes[0].before == {"status": "ACTIVE", "end_time": None, "end_activity_id": None}
    assert changes[0].after == {
        "status": "COMPLETED",
        "end_time": after.end_time,
        "end_activity_id": "end",
    }
    # an ended instance keeps no runtime state: its tasks and activities are gone
    assert (after.tasks, after.activities) == ([], [])
    assert ("approve", "removed") in [(c.key.split(":")[0], c.kind) for c in changes]
    # ... but its variables are what they were at its end, not removed
    assert [c for c in changes if c.section == "variables"] == []
    assert {v.name: v.value for v in after.variables}["approved"] is True


def test_a_variable_of_an_ended_instance_keeps_its_last_value(run: Run) -> None:
    changes = diff(run.view(run.started), run.view(run.ended))

    # the task's local input went with its scope; the instance's own variables stay
    assert [(key, kind) for key, kind, _b, _a in by_section(changes, "variables")] == [
        ("check/limit", "removed"),
        ("process instance/approved", "added"),
    ]
    # the bare state an ended instance's replay gives holds none: the view's are its last ones
    assert instance_view(run.engine.replay(run.id)).variables == []
    assert run.view(run.ended).variables == run.view(run.reviewed).variables


def test_a_view_has_no_differences_with_itself_and_is_deterministic(run: Run) -> None:
    view = run.view(run.claimed)

    assert diff(view, view) == []
    assert run.view(run.claimed) == view


def test_rendering_shows_the_task_its_assignee_the_variables_and_the_changes(run: Run) -> None:
    console = Console(record=True, width=120, force_terminal=False)
    claimed_at = {e.position: e.recorded_at for e in run.engine.events(run.id)}[run.claimed]

    console.print(
        instance_panel(run.view(run.claimed), position=run.claimed, recorded_at=claimed_at)
    )
    console.print(
        diff_table(diff(run.view(run.started), run.view(run.claimed)), a=run.started, b=run.claimed)
    )
    console.print(diff_table([], a=3, b=4))
    console.print(instance_panel(run.view(run.ended), position=None, recorded_at=None))
    text = console.export_text()

    assert run.check.id in text
    assert "kermit" in text
    assert '"Miss Piggy"' in text
    assert "groups accountancy" in text
    assert f"as of position {run.claimed} (2026-03-01 09:05:00.000)" in text
    assert "2026-03-01 10:00:00.000" in text  # the timer's due date, as a readable time
    assert f"Changes from position {run.started} to {run.claimed}" in text
    assert "assignee" in text
    assert "no differences between position 3 and 4" in text
    assert "COMPLETED" in text
    assert "no active activities" in text
