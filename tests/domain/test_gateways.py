"""Gateways in the domain alone: exclusive choice and its no-match error, parallel and inclusive
fork and join. No database: events in, a command decided, events out.
"""

from __future__ import annotations

import pytest

from flowledger.core import events as ev
from flowledger.core.commands import CompleteTask, StartProcessInstance
from flowledger.core.errors import ProcessEngineError
from tests.domain.harness import Scenario, bpmn, like


def _condition(flow_id: str, source: str, target: str, condition: str) -> str:
    return (
        f'<sequenceFlow id="{flow_id}" sourceRef="{source}" targetRef="{target}">'
        f'<conditionExpression xsi:type="tFormalExpression">{condition}</conditionExpression>'
        "</sequenceFlow>"
    )


# Both conditions hold for a big amount: the exclusive gateway takes the first in the model.
EXCLUSIVE = bpmn(
    "approval",
    f"""
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="gw"/>
    <exclusiveGateway id="gw"/>
    {_condition("toManual", "gw", "manual", "${amount > 1000}")}
    {_condition("toAuto", "gw", "auto", "${amount > 0}")}
    <userTask id="manual" name="Approve manually"/>
    <userTask id="auto" name="Confirm"/>
    """,
)


@pytest.mark.parametrize(
    ("amount", "chosen", "flow"),
    [(5000, "manual", "toManual"), (50, "auto", "toAuto")],
    ids=["first-true-flow-wins", "second-flow"],
)
def test_exclusive_gateway_takes_one_flow(
    scenario: Scenario, amount: int, chosen: str, flow: str
) -> None:
    scenario.given(EXCLUSIVE).when(
        StartProcessInstance(key="approval", variables={"amount": amount})
    ).then_activities(started=["start", "gw", chosen], completed=["start", "gw"]).then(
        like(ev.ActivityStarted, activity_id="start"),
        like(ev.ActivityStarted, activity_id="gw", flow_id="f1"),
        # the recorded choice: which flow the token arrived by
        like(ev.ActivityStarted, activity_id=chosen, flow_id=flow),
    ).then(like(ev.UserTaskCreated, task_definition_key=chosen))


def test_exclusive_gateway_without_a_true_condition_refuses_the_command(
    scenario: Scenario,
) -> None:
    scenario.given(EXCLUSIVE).when(StartProcessInstance(key="approval", variables={"amount": 0}))
    scenario.then_raises(
        ProcessEngineError, "No outgoing sequence flow for the element with id 'gw'"
    )


def test_a_condition_on_a_missing_variable_refuses_the_command(scenario: Scenario) -> None:
    scenario.given(EXCLUSIVE).when(StartProcessInstance(key="approval"))
    scenario.then_raises(ProcessEngineError, "Cannot evaluate the condition of 'toManual'")


PARALLEL = bpmn(
    "fulfilment",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork"/>
    <parallelGateway id="fork"/>
    <sequenceFlow id="f2" sourceRef="fork" targetRef="ship"/>
    <sequenceFlow id="f3" sourceRef="fork" targetRef="bill"/>
    <userTask id="ship"/>
    <userTask id="bill"/>
    <sequenceFlow id="f4" sourceRef="ship" targetRef="join"/>
    <sequenceFlow id="f5" sourceRef="bill" targetRef="join"/>
    <parallelGateway id="join"/>
    <sequenceFlow id="f6" sourceRef="join" targetRef="archive"/>
    <userTask id="archive"/>
    <sequenceFlow id="f7" sourceRef="archive" targetRef="end"/>
    <endEvent id="end"/>
    """,
)


def test_parallel_fork_creates_a_task_on_every_branch(scenario: Scenario) -> None:
    scenario.given(PARALLEL).when(StartProcessInstance(key="fulfilment")).then_activities(
        started=["start", "fork", "ship", "bill"], completed=["start", "fork"]
    ).then(
        like(ev.UserTaskCreated, task_definition_key="ship"),
        like(ev.UserTaskCreated, task_definition_key="bill"),
    )


def test_parallel_join_waits_for_every_branch(scenario: Scenario) -> None:
    scenario.given(PARALLEL, *scenario.recorded(PARALLEL, StartProcessInstance(key="fulfilment")))
    scenario.when(CompleteTask(task_id=scenario.task("bill"))).then_activities(
        started=["join"], completed=["bill"]
    ).then_no(ev.UserTaskCreated)
    assert scenario.open_activities() == ["join", "ship"]

    scenario.when(CompleteTask(task_id=scenario.task("ship"))).then_activities(
        started=["join", "archive"], completed=["ship", "join", "join"]
    ).then(like(ev.UserTaskCreated, task_definition_key="archive"))
    assert scenario.open_activities() == ["archive"]

    scenario.when(CompleteTask(task_id=scenario.task("archive"))).then(
        like(ev.ProcessInstanceCompleted, end_activity_id="end")
    )


INCLUSIVE = bpmn(
    "packing",
    f"""
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork"/>
    <inclusiveGateway id="fork" default="toStandard"/>
    {_condition("toFragile", "fork", "fragile", "${fragile}")}
    {_condition("toInsure", "fork", "insure", "${value > 500}")}
    <sequenceFlow id="toStandard" sourceRef="fork" targetRef="standard"/>
    <userTask id="fragile"/>
    <userTask id="insure"/>
    <userTask id="standard"/>
    <sequenceFlow id="f2" sourceRef="fragile" targetRef="join"/>
    <sequenceFlow id="f3" sourceRef="insure" targetRef="join"/>
    <sequenceFlow id="f4" sourceRef="standard" targetRef="join"/>
    <inclusiveGateway id="join"/>
    <sequenceFlow id="f5" sourceRef="join" targetRef="send"/>
    <userTask id="send"/>
    """,
)


@pytest.mark.parametrize(
    ("fragile", "value", "branches"),
    [
        (True, 1000, ["fragile", "insure"]),
        (True, 10, ["fragile"]),
        (False, 10, ["standard"]),
    ],
    ids=["two-true-conditions", "one-true-condition", "default-flow"],
)
def test_inclusive_fork_takes_every_true_flow_else_the_default(
    scenario: Scenario, fragile: bool, value: int, branches: list[str]
) -> None:
    scenario.given(INCLUSIVE).when(
        StartProcessInstance(key="packing", variables={"fragile": fragile, "value": value})
    ).then_activities(started=["start", "fork", *branches], completed=["start", "fork"]).then(
        *(like(ev.UserTaskCreated, task_definition_key=branch) for branch in branches)
    )


def test_inclusive_join_waits_only_for_the_branches_taken(scenario: Scenario) -> None:
    started = StartProcessInstance(key="packing", variables={"fragile": True, "value": 1000})
    scenario.given(INCLUSIVE, *scenario.recorded(INCLUSIVE, started))
    scenario.when(CompleteTask(task_id=scenario.task("insure"))).then_activities(
        started=["join"], completed=["insure"]
    ).then_no(ev.UserTaskCreated)
    scenario.when(CompleteTask(task_id=scenario.task("fragile"))).then_activities(
        started=["join", "send"], completed=["fragile", "join", "join"]
    ).then(like(ev.UserTaskCreated, task_definition_key="send"))


def test_inclusive_join_with_a_single_branch_passes_at_once(scenario: Scenario) -> None:
    started = StartProcessInstance(key="packing", variables={"fragile": False, "value": 10})
    scenario.given(INCLUSIVE, *scenario.recorded(INCLUSIVE, started))
    scenario.when(CompleteTask(task_id=scenario.task("standard"))).then_activities(
        started=["join", "send"], completed=["standard", "join"]
    )
