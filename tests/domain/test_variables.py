"""Variables in the domain alone: set and typed, updated in place, removed, scoped to a subprocess
or a task, and refused when the value or the target is not valid. No database.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flowledger.core import events as ev
from flowledger.core.commands import RemoveVariables, SetVariables, StartProcessInstance
from flowledger.core.errors import InvalidValue, NotFound
from flowledger.core.variables import StoredValue, typed
from tests.domain.harness import NOW, Scenario, bpmn, like

FORM = bpmn(
    "form",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="sub"/>
    <subProcess id="sub">
      <startEvent id="subStart"/>
      <sequenceFlow id="s1" sourceRef="subStart" targetRef="fill"/>
      <userTask id="fill"/>
    </subProcess>
    """,
)


@pytest.fixture
def filling(scenario: Scenario) -> Scenario:
    """An instance whose token waits in the user task inside the subprocess."""
    return scenario.given(FORM, *scenario.recorded(FORM, StartProcessInstance(key="form")))


def _last_variable(scenario: Scenario) -> ev.VariableSet:
    return [e for e in scenario.history if isinstance(e, ev.VariableSet)][-1]


def _task_execution(scenario: Scenario) -> str:
    """The execution of the subprocess scope, as the task's creation recorded it."""
    (created,) = [e for e in scenario.history if isinstance(e, ev.UserTaskCreated)]
    return created.execution_id


def test_values_are_recorded_with_their_camunda_type(filling: Scenario) -> None:
    instance = filling.instance_id
    filling.when(
        SetVariables(
            execution_id=instance,
            variables={
                "count": 3,
                "big": 2**40,
                "total": typed("Long", 5),
                "customer": {"name": "Ann"},
                "due": datetime(2026, 3, 2, tzinfo=UTC),
                "nothing": None,
            },
        )
    ).then(
        like(ev.VariableSet, name="count", value=StoredValue("integer", 3)),
        like(ev.VariableSet, name="big", value=StoredValue("long", 2**40)),
        like(ev.VariableSet, name="total", value=StoredValue("long", 5)),
        like(ev.VariableSet, name="customer", value=StoredValue("json", '{"name":"Ann"}')),
        like(ev.VariableSet, name="due", value=StoredValue("date", 1772409600000)),
        like(ev.VariableSet, name="nothing", value=StoredValue("null"), execution_id=instance),
    )


def test_setting_a_name_again_updates_the_same_variable(filling: Scenario) -> None:
    instance = filling.instance_id
    filling.when(SetVariables(execution_id=instance, variables={"count": 1}))
    first = _last_variable(filling)
    filling.advance(minutes=1).when(
        SetVariables(execution_id=instance, variables={"count": "many"})
    ).then(
        like(
            ev.VariableSet,
            variable_id=first.variable_id,
            execution_id=instance,
            value=StoredValue("string", "many"),
        )
    )
    assert _last_variable(filling).detail_id != first.detail_id


def test_removing_deletes_the_variables_that_exist(filling: Scenario) -> None:
    instance = filling.instance_id
    filling.when(SetVariables(execution_id=instance, variables={"count": 1, "keep": True}))
    count = next(e for e in filling.history if isinstance(e, ev.VariableSet) and e.name == "count")
    filling.when(RemoveVariables(execution_id=instance, names=["count", "neverSet"])).then_exactly(
        ev.VariableDeleted(variable_id=count.variable_id, time=NOW)
    )


def test_a_variable_set_inside_a_subprocess_goes_to_the_process_unless_local(
    filling: Scenario,
) -> None:
    scope = _task_execution(filling)
    filling.when(SetVariables(execution_id=scope, variables={"shared": 1})).then(
        like(ev.VariableSet, name="shared", execution_id=filling.instance_id)
    )
    filling.when(SetVariables(execution_id=scope, variables={"mine": 1}, local=True)).then(
        like(ev.VariableSet, name="mine", execution_id=scope)
    )
    local = _last_variable(filling)
    # a scope that has the name already is the innermost one holding it: it is updated there
    filling.when(SetVariables(execution_id=scope, variables={"mine": 2})).then(
        like(ev.VariableSet, variable_id=local.variable_id, execution_id=scope)
    )


def test_a_task_local_variable_belongs_to_the_task(filling: Scenario) -> None:
    task = filling.task("fill")
    filling.when(SetVariables(task_id=task, variables={"draft": "x"}, local=True)).then(
        like(ev.VariableSet, name="draft", task_id=task, execution_id=_task_execution(filling))
    )
    draft = _last_variable(filling)
    filling.when(SetVariables(task_id=task, variables={"final": "y"})).then(
        like(ev.VariableSet, name="final", task_id=None, execution_id=filling.instance_id)
    )
    filling.when(RemoveVariables(task_id=task, names=["draft", "final"], local=True)).then_exactly(
        ev.VariableDeleted(variable_id=draft.variable_id, time=NOW)
    )


def test_a_value_the_engine_cannot_hold_is_refused(filling: Scenario) -> None:
    filling.when(SetVariables(execution_id=filling.instance_id, variables={"bad": object()}))
    filling.then_raises(InvalidValue, "cannot store a value of Python type object")


@pytest.mark.parametrize(
    "command",
    [
        SetVariables(execution_id="gone", variables={"x": 1}),
        RemoveVariables(execution_id="gone", names=["x"]),
    ],
    ids=["set", "remove"],
)
def test_variables_of_an_unknown_execution_are_refused(
    filling: Scenario, command: SetVariables | RemoveVariables
) -> None:
    filling.when(command).then_raises(NotFound, "Execution 'gone'")
