"""Behaviour of gateways and conditional flows: exclusive, parallel, inclusive fork and join.

Checks which tasks and executions exist after each step, and what history and the log recorded.
"""

from __future__ import annotations

import pytest

from flowledger import Engine, ProcessEngineError
from tests.support import bpmn, event_types, history_activities, open_task_names, task_named


@pytest.mark.parametrize(
    ("amount", "expected"), [(5000, "Large"), (500, "Medium"), (100, "Small"), (0, "Small")]
)
def test_exclusive_gateway_takes_the_first_true_flow_else_the_default(
    engine: Engine, amount: int, expected: str
) -> None:
    engine.deploy(bpmn("exclusive_gateway_default_flow.bpmn"))
    pi = engine.start_process_instance("exclusiveDefault", {"amount": amount})
    assert open_task_names(engine, pi.id) == [expected]
    started = [e for e in engine.events(pi.id) if e.type == "ActivityStarted"]
    chosen = {"Large": "toLarge", "Medium": "toMedium", "Small": "toSmall"}[expected]
    assert started[-1].payload["flow_id"] == chosen  # the gateway's choice is recorded


def test_exclusive_gateway_without_a_true_condition_fails_and_writes_nothing(
    engine: Engine,
) -> None:
    engine.deploy(bpmn("exclusive_gateway_no_match.bpmn"))
    with pytest.raises(ProcessEngineError, match="'gw'"):
        engine.start_process_instance("exclusiveNoMatch", {"approved": None})
    assert engine.history_service.historic_process_instances() == []
    assert engine.history_service.historic_variable_instances() == []
    assert engine.verify().problems == []


def test_parallel_gateway_forks_into_concurrent_executions_and_joins(engine: Engine) -> None:
    engine.deploy(bpmn("parallel_gateway_fork_join.bpmn"))
    pi = engine.start_process_instance("parallelForkJoin")

    assert open_task_names(engine, pi.id) == ["Bill", "Ship"]
    assert engine.runtime_service.get_variable(pi.id, "logged") is True
    executions = engine.runtime_service.executions(pi.id)
    root = next(e for e in executions if e.id == pi.id)
    children = [e for e in executions if e.parent_id == pi.id]
    assert (root.is_active, root.activity_id) == (False, None)
    assert len(children) == 3 and all(c.is_concurrent and not c.is_scope for c in children)
    waiting = [c for c in children if c.activity_id == "join"]
    assert len(waiting) == 1 and not waiting[0].is_active  # the "log" branch waits at the join
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    assert sorted(c.activity_id for c in tree.child_activity_instances) == ["bill", "join", "ship"]

    engine.complete_task(task_named(engine, pi.id, "Ship"))
    assert open_task_names(engine, pi.id) == ["Bill"]
    assert len(engine.runtime_service.executions(pi.id)) == 4

    engine.complete_task(task_named(engine, pi.id, "Bill"))
    assert open_task_names(engine, pi.id) == ["Archive"]
    # the tree is compacted again: one execution, the process instance itself
    assert [(e.id, e.activity_id) for e in engine.runtime_service.executions(pi.id)] == [
        (pi.id, "archive")
    ]
    joins = [a for a in history_activities(engine, pi.id) if a[0] == "join"]
    assert joins == [("join", "parallelGateway", True)] * 3

    engine.complete_task(task_named(engine, pi.id, "Archive"))
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert "TokenWaitingAtJoin" in event_types(engine, pi.id)


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"fragile": True, "value": 900}, ["Insure", "Pack fragile"]),
        ({"fragile": True, "value": 10}, ["Pack fragile"]),
        ({"fragile": False, "value": 10}, ["Standard packing"]),
    ],
)
def test_inclusive_gateway_forks_on_every_true_condition_and_joins_only_those(
    engine: Engine, variables: dict[str, object], expected: list[str]
) -> None:
    engine.deploy(bpmn("inclusive_gateway_fork_join.bpmn"))
    pi = engine.start_process_instance("inclusiveForkJoin", variables)
    assert open_task_names(engine, pi.id) == expected
    for name in expected[:-1]:
        engine.complete_task(task_named(engine, pi.id, name))
        assert "Send" not in open_task_names(engine, pi.id)
    engine.complete_task(task_named(engine, pi.id, expected[-1]))
    assert open_task_names(engine, pi.id) == ["Send"]
    assert [e.activity_id for e in engine.runtime_service.executions(pi.id)] == ["send"]


def test_conditional_sequence_flows_leave_an_activity_on_every_true_condition(
    engine: Engine,
) -> None:
    engine.deploy(bpmn("conditional_sequence_flows.bpmn"))
    both = engine.start_process_instance("conditionalFlows", {"color": "red", "size": 12})
    neither = engine.start_process_instance("conditionalFlows", {"color": "blue", "size": 1})

    assert open_task_names(engine, both.id) == ["Big", "Red"]
    assert open_task_names(engine, neither.id) == ["Other"]

    engine.complete_task(task_named(engine, both.id, "Red"))
    assert not engine.runtime_service.process_instance(both.id).ended  # type: ignore[union-attr]
    engine.complete_task(task_named(engine, both.id, "Big"))
    historic = engine.history_service.historic_process_instance(both.id)
    assert (historic.state, historic.end_activity_id) == ("COMPLETED", "endBig")


def test_joining_tokens_leave_their_local_variables_behind(engine: Engine) -> None:
    """Camunda: at a join, the local variables of every joined token are removed, the one
    that goes on included; the scope's own variable of the same name keeps its value."""
    engine.deploy(bpmn("parallel_gateway_fork_join.bpmn"))
    pi = engine.start_process_instance("parallelForkJoin", {"shared": 1}).id
    tasks = engine.tasks(process_instance_id=pi)
    assert len(tasks) == 2
    for number, task in enumerate(tasks, start=2):
        engine.runtime_service.set_variables(task.execution_id, {"shared": number}, local=True)
    for task in tasks:
        engine.complete_task(task.id)  # the second used to fail on ACT_RU_VARIABLE's unique key
    assert open_task_names(engine, pi) == ["Archive"]
    assert engine.runtime_service.get_variables(pi) == {"logged": True, "shared": 1}
    states = sorted(
        (v.name, v.state)
        for v in engine.history_service.historic_variable_instances(pi)
        if v.name == "shared"
    )
    assert states == [("shared", "CREATED"), ("shared", "DELETED"), ("shared", "DELETED")]
    assert engine.verify().problems == []


FORK_WITHOUT_JOIN = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             targetNamespace="http://flowledger.test">
  <process id="forkWithoutJoin" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork"/>
    <parallelGateway id="fork"/>
    <sequenceFlow id="f2" sourceRef="fork" targetRef="a"/>
    <sequenceFlow id="f3" sourceRef="fork" targetRef="b"/>
    <userTask id="a" name="A"/>
    <userTask id="b" name="B"/>
    <sequenceFlow id="f4" sourceRef="a" targetRef="endA"/>
    <sequenceFlow id="f5" sourceRef="b" targetRef="endB"/>
    <endEvent id="endA"/>
    <endEvent id="endB"/>
  </process>
</definitions>
"""


def test_a_token_folded_into_its_scope_hands_over_a_variable_of_the_same_name(
    engine: Engine,
) -> None:
    """Camunda's compaction (ExecutionEntity.moveVariableTo): the last concurrent token's
    variable sets the scope's variable of the same name, and is removed itself."""
    engine.deploy(FORK_WITHOUT_JOIN)
    pi = engine.start_process_instance("forkWithoutJoin", {"shared": 1}).id
    a = task_named(engine, pi, "A")
    b = engine.task_service.task(task_named(engine, pi, "B"))
    engine.runtime_service.set_variables(b.execution_id, {"shared": 2, "own": "b"}, local=True)
    engine.complete_task(a)  # B's token is the last one: it is folded into the instance
    assert open_task_names(engine, pi) == ["B"]
    assert engine.runtime_service.get_variables(pi, local=True) == {"shared": 2, "own": "b"}
    assert [e.id for e in engine.runtime_service.executions(pi)] == [pi]
    assert engine.verify().problems == []
