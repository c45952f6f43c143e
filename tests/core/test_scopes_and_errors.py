"""Behaviour of scopes: embedded subprocesses, terminate end events, BPMN errors and their catching.

Errors come from error end events, from delegates raising core.BpmnError, and from external workers.
"""

from __future__ import annotations

from typing import Any

from flowledger import BpmnError, Engine
from tests.support import bpmn, event_types, history_activities, open_task_names, task_named


def test_embedded_subprocess_is_a_scope_that_completes_when_its_last_token_ends(
    engine: Engine,
) -> None:
    engine.deploy(bpmn("embedded_subprocess.bpmn"))
    pi = engine.start_process_instance("embeddedSubprocess")

    assert open_task_names(engine, pi.id) == ["Check A", "Check B"]
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    [sub] = tree.child_activity_instances
    assert sub.activity_id == "sub"
    assert sorted(c.activity_id for c in sub.child_activity_instances) == ["checkA", "checkB"]
    executions = engine.runtime_service.executions(pi.id)
    scope = next(e for e in executions if e.parent_id == pi.id)
    assert scope.is_scope and not scope.is_concurrent
    assert sorted(e.activity_id or "" for e in executions if e.parent_id == scope.id) == [
        "checkA",
        "checkB",
    ]

    engine.complete_task(task_named(engine, pi.id, "Check A"))
    assert open_task_names(engine, pi.id) == ["Check B"]
    engine.complete_task(task_named(engine, pi.id, "Check B"))

    assert open_task_names(engine, pi.id) == ["After subprocess"]
    assert [e.id for e in engine.runtime_service.executions(pi.id)] == [pi.id]
    sub_history = [a for a in engine.historic_activity_instances(pi.id) if a.activity_id == "sub"]
    assert len(sub_history) == 1 and sub_history[0].end_time is not None
    inner = [a for a in engine.historic_activity_instances(pi.id) if a.activity_id == "checkA"]
    assert inner[0].parent_activity_instance_id == sub_history[0].id


def test_error_end_event_is_caught_by_the_boundary_with_its_code(engine: Engine) -> None:
    engine.deploy(bpmn("error_boundary_on_subprocess.bpmn"))
    pi = engine.start_process_instance("errorOnSubprocess", {"outcome": "stock"})
    assert open_task_names(engine, pi.id) == ["Pack items", "Pick items"]

    engine.complete_task(task_named(engine, pi.id, "Pick items"))

    # the whole subprocess is interrupted: the sibling task is gone, its history canceled
    assert open_task_names(engine, pi.id) == ["Reorder"]
    assert engine.runtime_service.get_variables(pi.id) == {
        "code": "OUT_OF_STOCK",
        "message": "no items left",
        "outcome": "stock",
    }
    history = {a.activity_id: a for a in engine.historic_activity_instances(pi.id)}
    assert history["pack"].canceled and history["sub"].canceled
    assert history["catchStock"].end_time is not None
    [pack] = [
        t for t in engine.history_service.historic_task_instances(pi.id) if t.name == "Pack items"
    ]
    assert (pack.delete_reason, pack.task_state) == ("deleted", "Deleted")
    thrown = [e for e in engine.events(pi.id) if e.type == "BpmnErrorThrown"]
    assert [(e.payload["error_code"], e.payload["caught_by"]) for e in thrown] == [
        ("OUT_OF_STOCK", "catchStock")
    ]
    assert [e.activity_id for e in engine.runtime_service.executions(pi.id)] == ["reorder"]


def test_an_error_without_a_matching_code_goes_to_the_catch_all_boundary(engine: Engine) -> None:
    engine.deploy(bpmn("error_boundary_on_subprocess.bpmn"))
    pi = engine.start_process_instance("errorOnSubprocess", {"outcome": "other"})
    engine.complete_task(task_named(engine, pi.id, "Pick items"))
    assert open_task_names(engine, pi.id) == ["Investigate"]
    assert engine.runtime_service.get_variable(pi.id, "anyCode") == "FRAUD"


class Charger:
    def __init__(self, fail_with: str | None) -> None:
        self.fail_with = fail_with

    def execute(self, execution: Any) -> None:
        if self.fail_with:
            raise BpmnError(self.fail_with, "card declined by issuer")
        execution.setVariable("charged", True)


def test_a_delegate_raising_bpmn_error_is_caught_by_the_task_boundary(engine: Engine) -> None:
    engine.register_delegate("charger", Charger("DECLINED"))
    engine.deploy(bpmn("error_boundary_on_service_task.bpmn"))
    pi = engine.start_process_instance("errorOnServiceTask")

    assert open_task_names(engine, pi.id) == ["Call customer"]
    assert engine.runtime_service.get_variables(pi.id) == {"why": "card declined by issuer"}
    charge = next(a for a in engine.historic_activity_instances(pi.id) if a.activity_id == "charge")
    assert charge.canceled
    assert [e.id for e in engine.runtime_service.executions(pi.id)] == [pi.id]


def test_a_task_with_a_boundary_event_runs_in_its_own_scope_execution(engine: Engine) -> None:
    engine.register_delegate("charger", Charger(None))
    engine.deploy(bpmn("error_boundary_on_service_task.bpmn"))
    pi = engine.start_process_instance("errorOnServiceTask")
    assert open_task_names(engine, pi.id) == ["Ship"]
    started = [e for e in engine.events(pi.id) if e.type == "ExecutionCreated"]
    assert len(started) == 1 and started[0].payload["is_scope"]
    assert [e.id for e in engine.runtime_service.executions(pi.id)] == [pi.id]


def test_an_uncaught_bpmn_error_ends_the_token_like_a_none_end_event(engine: Engine) -> None:
    engine.register_delegate("charger", Charger("UNKNOWN_CODE"))
    engine.deploy(bpmn("error_boundary_on_service_task.bpmn"))
    pi = engine.start_process_instance("errorOnServiceTask")
    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    thrown = [e for e in engine.events(pi.id) if e.type == "BpmnErrorThrown"]
    assert thrown[0].payload["caught_by"] is None


def test_terminate_end_event_ends_only_its_scope_then_the_whole_instance(engine: Engine) -> None:
    engine.deploy(bpmn("terminate_end_event.bpmn"))
    pi = engine.start_process_instance("terminateProcess")
    assert open_task_names(engine, pi.id) == ["Decide", "Inner work", "Long running"]

    engine.complete_task(task_named(engine, pi.id, "Decide"))

    # the subprocess terminated (its other token cancelled) and completed normally
    assert open_task_names(engine, pi.id) == ["Final", "Long running"]
    history = {a.activity_id: a for a in engine.historic_activity_instances(pi.id)}
    assert history["inner"].canceled
    assert history["sub"].end_time is not None and not history["sub"].canceled
    assert history["subTerminate"].complete_scope

    engine.complete_task(task_named(engine, pi.id, "Final"))

    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    historic = engine.history_service.historic_process_instance(pi.id)
    assert (historic.state, historic.end_activity_id) == ("COMPLETED", "killAll")
    long_running = next(
        t for t in engine.history_service.historic_task_instances(pi.id) if t.name == "Long running"
    )
    assert long_running.delete_reason == "terminate end event"
    assert ("longRunning", "userTask", True) in history_activities(engine, pi.id)
    assert engine.runtime_service.executions(pi.id) == []
    assert event_types(engine, pi.id)[-1] == "ProcessInstanceCompleted"
