"""Behaviour of the task family: pass-through, user, service (delegates), script and receive tasks.

Each test runs one of the project's own models in tests/bpmn/ and checks tasks, history and events.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from flowledger import ControllableClock, Engine, ModelError, ProcessEngineError
from flowledger.core.expressions import Long
from tests.support import bpmn, event_types, history_activities, open_task_names


def test_pass_through_activities_complete_at_once_and_the_user_task_waits(engine: Engine) -> None:
    engine.deploy(bpmn("pass_through_activities.bpmn"))
    pi = engine.start_process_instance("passThrough", business_key="order-7")

    assert not pi.ended
    assert open_task_names(engine, pi.id) == ["Wait here"]
    assert history_activities(engine, pi.id) == [
        ("start", "startEvent", True),
        ("plainTask", "task", True),
        ("manual", "manualTask", True),
        ("throw", "intermediateNoneThrowEvent", True),
        ("wait", "userTask", False),
    ]
    executions = engine.runtime_service.executions(pi.id)
    assert [(e.id, e.activity_id, e.is_active) for e in executions] == [(pi.id, "wait", True)]

    engine.complete_task(engine.tasks(process_instance_id=pi.id)[0].id)

    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert engine.runtime_service.executions(pi.id) == []
    historic = engine.history_service.historic_process_instance(pi.id)
    assert (historic.state, historic.end_activity_id, historic.business_key) == (
        "COMPLETED",
        "end",
        "order-7",
    )
    assert event_types(engine, pi.id) == [
        "ProcessInstanceStarted",
        *["ActivityStarted", "ActivityCompleted"] * 4,
        "ActivityStarted",
        "UserTaskCreated",
        "TaskCompleted",
        "ActivityCompleted",
        "ActivityStarted",
        "ActivityCompleted",
        "ProcessInstanceCompleted",
    ]
    end = engine.historic_activity_instances(pi.id)[-1]
    assert (end.activity_id, end.complete_scope, end.canceled) == ("end", True, False)


def test_user_task_takes_assignment_dates_priority_and_form_from_the_model(
    engine: Engine, clock: ControllableClock
) -> None:
    engine.deploy(bpmn("user_task_assignment.bpmn"))
    due = datetime(2026, 3, 5, 17, 0, tzinfo=UTC)
    pi = engine.start_process_instance(
        "userTaskAssignment",
        {
            "orderId": "A-17",
            "initiator": "fozzie",
            "extraUser": "gonzo",
            "due": due,
            "priority": 80,
        },
    )

    [task] = engine.tasks(process_instance_id=pi.id)
    assert task.name == "Review order A-17"
    assert task.description == "Check order A-17 carefully"
    assert task.assignee == "fozzie"
    assert task.candidate_users == ["kermit", "gonzo"]
    assert task.candidate_groups == ["management", "accountancy"]
    assert task.priority == 80
    assert task.due == due
    assert task.follow_up == clock.now() + timedelta(days=2)
    assert task.task_definition_key == "review"

    # candidate queries only see unassigned tasks, as in Camunda
    assert engine.tasks(candidate_group="management") == []
    engine.task_service.set_assignee(task.id, None)
    assert [t.id for t in engine.tasks(candidate_group="management")] == [task.id]
    assert [t.id for t in engine.tasks(candidate_user="gonzo")] == [task.id]
    assert engine.tasks(candidate_user="piggy") == []
    engine.claim(task.id, "kermit")
    assert engine.tasks(candidate_group="accountancy") == []
    assert [t.id for t in engine.tasks(assignee="kermit")] == [task.id]

    clock.advance(minutes=30)
    engine.complete_task(task.id, {"verdict": "fine"})
    [approve] = engine.tasks(process_instance_id=pi.id)
    assert approve.name == "Approve" and approve.assignee is None

    [review] = engine.history_service.historic_task_instances(pi.id)[:1]
    assert (review.assignee, review.delete_reason, review.task_state, review.duration) == (
        "kermit",
        "completed",
        "Completed",
        30 * 60 * 1000,
    )
    types = event_types(engine, pi.id)
    assert types.count("TaskAssigned") == 1 and types.count("TaskClaimed") == 1


def test_an_expression_that_cannot_be_evaluated_rejects_the_command(engine: Engine) -> None:
    engine.deploy(bpmn("user_task_assignment.bpmn"))
    with pytest.raises(ProcessEngineError, match=r"'review'.*Cannot resolve identifier"):
        engine.start_process_instance("userTaskAssignment", {"initiator": "x"})
    assert engine.history_service.historic_process_instances() == []


class Pricing:
    def total(self, execution: Any) -> float:
        return float(execution.getVariable("quantity")) * 2.5


def test_service_tasks_call_registered_delegates_and_record_their_results(engine: Engine) -> None:
    calls: list[str] = []

    def charge_card(execution: Any) -> None:
        calls.append(f"charge {execution.processInstanceId}")
        execution.setVariable("charged", True)

    class Notify:
        def execute(self, execution: Any) -> None:
            calls.append(f"notify total={execution.getVariable('total')}")

    engine.register_delegate("chargeCard", charge_card)
    engine.register_delegate("pricing", Pricing())
    engine.register_delegate("com.example.Notify", Notify())
    engine.deploy(bpmn("service_task_delegates.bpmn"))

    pi = engine.start_process_instance("serviceDelegates", {"quantity": 4})

    assert calls == [f"charge {pi.id}", "notify total=10.0"]
    assert engine.runtime_service.get_variables_typed(pi.id) == {
        "charged": (True, "Boolean"),
        "quantity": (4, "Integer"),
        "total": (10.0, "Double"),
    }
    assert open_task_names(engine, pi.id) == ["Done"]
    assert [a[1] for a in history_activities(engine, pi.id)][:4] == [
        "startEvent",
        "serviceTask",
        "serviceTask",
        "sendTask",
    ]
    # replay never calls delegates: the recorded events alone give the same state
    assert engine.replay(pi.id) == engine._repository.cache[pi.id].state
    assert len(calls) == 2


def test_a_failing_delegate_rejects_the_whole_command_and_writes_only_the_audit_row(
    engine: Engine,
) -> None:
    def charge_card(execution: Any) -> None:
        raise ConnectionError("payment provider down")

    engine.register_delegate("chargeCard", charge_card)
    engine.register_delegate("pricing", Pricing())
    engine.deploy(bpmn("service_task_delegates.bpmn"))

    with pytest.raises(ProcessEngineError, match="payment provider down"):
        engine.start_process_instance("serviceDelegates", {"quantity": 1})

    assert engine.history_service.historic_process_instances() == []
    assert engine.tasks() == []
    assert engine.verify().problems == []


def test_a_missing_class_delegate_names_the_class_and_the_element(engine: Engine) -> None:
    engine.register_delegate("chargeCard", lambda execution: None)
    engine.register_delegate("pricing", Pricing())
    engine.deploy(bpmn("service_task_delegates.bpmn"))
    with pytest.raises(ProcessEngineError, match=r"com\.example\.Notify.*'notify'"):
        engine.start_process_instance("serviceDelegates", {"quantity": 1})


def test_juel_script_result_lands_in_a_long_variable_and_receive_task_waits(
    engine: Engine,
) -> None:
    engine.deploy(bpmn("script_task_juel.bpmn"))
    pi = engine.start_process_instance("juelScripts", {"amount": 21})

    assert engine.runtime_service.get_variables_typed(pi.id)["doubled"] == (42, "Long")
    assert isinstance(engine.runtime_service.get_variable(pi.id, "doubled"), Long)
    [execution] = engine.runtime_service.executions(pi.id)
    assert execution.activity_id == "wait"
    assert engine.tasks(process_instance_id=pi.id) == []

    engine.runtime_service.trigger(execution.id, {"confirmed": "yes"})

    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert ("wait", "receiveTask", True) in history_activities(engine, pi.id)


def test_triggering_an_execution_that_is_not_in_a_receive_task_is_refused(
    engine: Engine,
) -> None:
    engine.deploy(bpmn("pass_through_activities.bpmn"))
    pi = engine.start_process_instance("passThrough")
    from flowledger.core import Rejected

    with pytest.raises(Rejected, match="receive task"):
        engine.runtime_service.trigger(pi.id)


def test_python_scripts_are_refused_at_deploy_unless_the_engine_allows_them(
    engine: Engine, db_url: str, clock: ControllableClock
) -> None:
    with pytest.raises(ModelError, match=r"'compute'.*allow_scripts=True"):
        engine.deploy(bpmn("script_task_python.bpmn"))
    assert engine.repository_service.process_definitions() == []

    with Engine(db_url, clock=clock, allow_scripts=True) as scripting:
        scripting.deploy(bpmn("script_task_python.bpmn"))
        pi = scripting.start_process_instance("pythonScript", {"prices": [1, 2, 3.5]})
        assert scripting.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
        values = {
            v.name: v.value for v in scripting.history_service.historic_variable_instances(pi.id)
        }
        assert values == {"prices": [1, 2, 3.5], "count": 3, "total": 13.0}


def test_groovy_scripts_are_refused_with_the_element_named(engine: Engine) -> None:
    xml = (
        bpmn("script_task_juel.bpmn")
        .read_text()
        .replace('scriptFormat="juel"', 'scriptFormat="groovy"')
    )
    with pytest.raises(ModelError, match=r"element 'double'.*groovy"):
        engine.deploy(xml)


def test_a_thousand_iteration_loop_runs_in_one_command(engine: Engine) -> None:
    engine.deploy(bpmn("loop_many_iterations.bpmn"))
    pi = engine.start_process_instance("loop", {"n": 1000})

    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    [i] = [v for v in engine.history_service.historic_variable_instances(pi.id) if v.name == "i"]
    assert (i.value, i.type) == (1000, "Long")
    assert (
        sum(1 for a in engine.historic_activity_instances(pi.id) if a.activity_id == "inc") == 1000
    )


FORM_STEPS = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="formSteps" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="first"/>
    <userTask id="first" camunda:formKey="app:first"/>
    <sequenceFlow id="f2" sourceRef="first" targetRef="second"/>
    <userTask id="second" camunda:formKey="app:${'sec'}ond"/>
    <sequenceFlow id="f3" sourceRef="second" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>"""


def test_form_keys_of_tasks_another_engine_created(db_url: str, engine: Engine) -> None:
    """The task list's form keys come from the cached state when it holds the task, and from
    the log when another engine created the task after this one cached the instance."""
    engine.deploy({"form_steps.bpmn": FORM_STEPS})
    pi = engine.start_process_instance("formSteps")
    (first,) = engine.tasks(process_instance_id=pi.id)
    assert engine.task_service.form_keys({first.id: pi.id}) == {first.id: "app:first"}
    with Engine(db_url) as other:
        other.complete_task(first.id)
    (second,) = engine.tasks(process_instance_id=pi.id)
    assert engine.task_service.form_keys({second.id: pi.id}) == {second.id: "app:second"}
    assert engine.task_service.form_keys({"no-such-task": pi.id}) == {"no-such-task": None}
