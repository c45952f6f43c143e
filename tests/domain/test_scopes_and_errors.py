"""Embedded subprocesses and BPMN errors in the domain alone: a scope entered and left, an error
caught by a boundary event on a service task or a subprocess. No database.
"""

from __future__ import annotations

from typing import Any

from flowledger.core import events as ev
from flowledger.core.commands import CompleteTask, DeleteProcessInstance, StartProcessInstance
from flowledger.core.errors import BpmnError, ProcessEngineError
from flowledger.core.variables import StoredValue
from tests.domain.harness import Scenario, bpmn, like

SUBPROCESS = bpmn(
    "checkOrder",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="sub"/>
    <subProcess id="sub" name="Check">
      <startEvent id="subStart"/>
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="check"/>
      <userTask id="check" name="Check"/>
      <sequenceFlow id="s2" sourceRef="check" targetRef="subEnd"/>
      <endEvent id="subEnd"/>
    </subProcess>
    <sequenceFlow id="f2" sourceRef="sub" targetRef="after"/>
    <userTask id="after"/>
    <sequenceFlow id="f3" sourceRef="after" targetRef="end"/>
    <endEvent id="end"/>
    """,
)


def test_entering_a_subprocess_runs_its_start_event(scenario: Scenario) -> None:
    scenario.given(SUBPROCESS).when(StartProcessInstance(key="checkOrder")).then_activities(
        started=["start", "sub", "subStart", "check"], completed=["start", "subStart"]
    )
    sub = scenario.activity_instance("sub")
    scenario.then(
        like(
            ev.ActivityStarted,
            activity_id="start",
            parent_activity_instance_id=scenario.instance_id,
        ),
        like(ev.ActivityStarted, activity_id="sub", activity_type="subProcess"),
        like(ev.ActivityStarted, activity_id="subStart", parent_activity_instance_id=sub),
        like(ev.ActivityStarted, activity_id="check", parent_activity_instance_id=sub),
    )


def test_the_subprocess_completes_with_its_last_token(scenario: Scenario) -> None:
    scenario.given(
        SUBPROCESS, *scenario.recorded(SUBPROCESS, StartProcessInstance(key="checkOrder"))
    )
    sub = scenario.activity_instance("sub")
    scenario.when(CompleteTask(task_id=scenario.task("check"))).then_activities(
        started=["subEnd", "after"], completed=["check", "subEnd", "sub"]
    ).then(
        like(ev.ActivityStarted, activity_id="subEnd", parent_activity_instance_id=sub),
        like(ev.ActivityStarted, activity_id="after", flow_id="f2"),
    ).then_no(ev.ProcessInstanceCompleted)
    scenario.when(CompleteTask(task_id=scenario.task("after"))).then(
        like(ev.ProcessInstanceCompleted, end_activity_id="end")
    )


def test_deleting_the_instance_cancels_the_subprocess_inside_out(scenario: Scenario) -> None:
    scenario.given(
        SUBPROCESS, *scenario.recorded(SUBPROCESS, StartProcessInstance(key="checkOrder"))
    )
    scenario.when(
        DeleteProcessInstance(process_instance_id=scenario.instance_id, reason="cancelled")
    ).then_activities(canceled=["check", "sub"]).then(
        like(ev.TaskDeleted, reason="cancelled"),
        like(ev.ProcessInstanceTerminated, externally=True),
    )


CHARGE = bpmn(
    "payment",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="charge"/>
    <serviceTask id="charge" camunda:delegateExpression="${charger}"/>
    <boundaryEvent id="onDeclined" attachedToRef="charge">
      <errorEventDefinition errorRef="declined" camunda:errorMessageVariable="why"/>
    </boundaryEvent>
    <sequenceFlow id="f2" sourceRef="charge" targetRef="ship"/>
    <sequenceFlow id="f3" sourceRef="onDeclined" targetRef="callCustomer"/>
    <userTask id="ship"/>
    <userTask id="callCustomer"/>
    """,
    errors={"declined": "DECLINED"},
)


def _charger(outcome: Exception | None) -> Any:
    def charge(execution: Any) -> None:
        if outcome is not None:
            raise outcome

    return charge


def test_a_service_task_that_succeeds_leaves_by_its_flow(scenario: Scenario) -> None:
    scenario.delegates["charger"] = _charger(None)
    scenario.given(CHARGE).when(StartProcessInstance(key="payment")).then_activities(
        started=["start", "charge", "ship"], completed=["start", "charge"]
    ).then_no(ev.BpmnErrorThrown)


def test_a_bpmn_error_of_a_delegate_is_caught_by_the_boundary_event(scenario: Scenario) -> None:
    scenario.delegates["charger"] = _charger(BpmnError("DECLINED", "card expired"))
    scenario.given(CHARGE).when(StartProcessInstance(key="payment")).then(
        like(
            ev.BpmnErrorThrown,
            error_code="DECLINED",
            error_message="card expired",
            caught_by="onDeclined",
        )
    ).then(
        like(ev.VariableSet, name="why", value=StoredValue("string", "card expired"))
    ).then_activities(
        started=["start", "charge", "onDeclined", "callCustomer"],
        completed=["start", "onDeclined"],
        canceled=["charge"],
    ).then(like(ev.UserTaskCreated, task_definition_key="callCustomer"))


def test_any_other_delegate_failure_refuses_the_command(scenario: Scenario) -> None:
    scenario.delegates["charger"] = _charger(RuntimeError("gateway down"))
    scenario.given(CHARGE).when(StartProcessInstance(key="payment"))
    scenario.then_raises(
        ProcessEngineError, "serviceTask 'charge' failed: RuntimeError: gateway down"
    )


SUBPROCESS_ERROR = bpmn(
    "guardedCheck",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="sub"/>
    <subProcess id="sub">
      <startEvent id="subStart"/>
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="fork"/>
      <parallelGateway id="fork"/>
      <sequenceFlow id="s2" sourceRef="fork" targetRef="inspect"/>
      <sequenceFlow id="s3" sourceRef="fork" targetRef="verdict"/>
      <userTask id="inspect"/>
      <userTask id="verdict"/>
      <sequenceFlow id="s4" sourceRef="verdict" targetRef="gw"/>
      <exclusiveGateway id="gw" default="s6"/>
      <sequenceFlow id="s5" sourceRef="gw" targetRef="fail">
        <conditionExpression xsi:type="tFormalExpression">${broken}</conditionExpression>
      </sequenceFlow>
      <sequenceFlow id="s6" sourceRef="gw" targetRef="subEnd"/>
      <endEvent id="fail"><errorEventDefinition errorRef="broken"/></endEvent>
      <endEvent id="subEnd"/>
    </subProcess>
    <boundaryEvent id="onBroken" attachedToRef="sub">
      <errorEventDefinition errorRef="broken" camunda:errorCodeVariable="code"/>
    </boundaryEvent>
    <sequenceFlow id="f2" sourceRef="onBroken" targetRef="repair"/>
    <userTask id="repair"/>
    """,
    errors={"broken": "BROKEN"},
)


def test_an_error_end_event_interrupts_the_whole_subprocess(scenario: Scenario) -> None:
    started = StartProcessInstance(key="guardedCheck")
    scenario.given(SUBPROCESS_ERROR, *scenario.recorded(SUBPROCESS_ERROR, started))
    inspect = scenario.task("inspect")
    scenario.when(CompleteTask(task_id=scenario.task("verdict"), variables={"broken": True})).then(
        like(ev.BpmnErrorThrown, error_code="BROKEN", caught_by="onBroken")
    ).then(like(ev.TaskDeleted, task_id=inspect)).then(
        like(ev.VariableSet, name="broken"),
        like(ev.VariableSet, name="code", value=StoredValue("string", "BROKEN")),
    ).then_activities(
        started=["gw", "fail", "onBroken", "repair"],
        completed=["verdict", "gw", "onBroken"],
        canceled=["inspect", "fail", "sub"],  # the scope last
    )
    assert scenario.open_activities() == ["repair"]
