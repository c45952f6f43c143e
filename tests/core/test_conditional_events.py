"""Conditional events through the public Engine API, after Camunda's
IntermediateConditionalEventTest, BoundaryConditionalEventTest,
EventSubProcessStartConditionalEventTest,
ConditionalEventWithSpecificVariableEventTest and ConditionalStartEventTest: evaluated when
reached or when their scope starts, then on every variable change of their scope or a scope above
(never a sibling's, never a task's local variable), narrowed by camunda:variableName and
camunda:variableEvents; conditional start events only on a condition evaluation.
"""

from __future__ import annotations

from typing import Any

import pytest

from flowledger import Engine, ModelError
from flowledger.core.errors import ProcessEngineError, Rejected
from tests.core.test_jobs import process

CONDITION = "${variable == 1}"


def conditional(
    condition: str = CONDITION, variable_name: str | None = None, events: str | None = None
) -> str:
    attributes = ""
    if variable_name is not None:
        attributes += f' camunda:variableName="{variable_name}"'
    if events is not None:
        attributes += f' camunda:variableEvents="{events}"'
    return (
        f"<conditionalEventDefinition{attributes}>"
        f'<condition xsi:type="tFormalExpression">{condition}</condition>'
        "</conditionalEventDefinition>"
    )


def model(body: str) -> str:
    return process(body).replace(
        'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"',
        'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
    )


def task_keys(engine: Engine, instance_id: str) -> list[str]:
    return sorted(t.task_definition_key for t in engine.tasks(process_instance_id=instance_id))


def subscriptions(engine: Engine, instance_id: str) -> list[tuple[str, str, str | None]]:
    found = engine.runtime_service.event_subscriptions(process_instance_id=instance_id)
    return sorted((s.activity_id or "", s.event_type, s.event_name) for s in found)


def activity_types(engine: Engine, instance_id: str) -> list[tuple[str, str, bool]]:
    rows = engine.history_service.historic_activity_instances(instance_id)
    return sorted((a.activity_id, a.activity_type, a.canceled) for a in rows)


def ended(engine: Engine, instance_id: str) -> bool:
    return engine.history_service.historic_process_instance(instance_id).state == "COMPLETED"


# -- intermediate catch ---------------------------------------------------------------------

INTERMEDIATE = (
    '<startEvent id="start"/><userTask id="before"/>'
    f'<intermediateCatchEvent id="catch">{conditional()}</intermediateCatchEvent>'
    '<userTask id="after"/><endEvent id="end"/>'
    '<sequenceFlow id="f1" sourceRef="start" targetRef="before"/>'
    '<sequenceFlow id="f2" sourceRef="before" targetRef="catch"/>'
    '<sequenceFlow id="f3" sourceRef="catch" targetRef="after"/>'
    '<sequenceFlow id="f4" sourceRef="after" targetRef="end"/>'
)


def test_an_intermediate_event_whose_condition_holds_on_arrival_passes_through(
    engine: Engine,
) -> None:
    engine.deploy(model(INTERMEDIATE))
    pi = engine.start_process_instance("p", variables={"variable": 1})
    (before,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(before.id)
    assert task_keys(engine, pi.id) == ["after"]
    assert subscriptions(engine, pi.id) == []
    assert ("catch", "intermediateConditional", False) in activity_types(engine, pi.id)


def test_an_intermediate_event_waits_until_a_variable_change_makes_it_true(
    engine: Engine,
) -> None:
    engine.deploy(model(INTERMEDIATE))
    pi = engine.start_process_instance("p")
    (before,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(before.id)
    assert task_keys(engine, pi.id) == []
    assert subscriptions(engine, pi.id) == [("catch", "conditional", None)]
    engine.runtime_service.set_variables(pi.id, {"variable": 2})
    assert subscriptions(engine, pi.id) == [("catch", "conditional", None)]
    engine.runtime_service.set_variables(pi.id, {"variable": 1})
    assert task_keys(engine, pi.id) == ["after"]
    assert subscriptions(engine, pi.id) == []
    assert engine.verify().problems == []


def test_a_condition_naming_a_missing_variable_is_false_not_an_error(engine: Engine) -> None:
    engine.deploy(model(INTERMEDIATE))
    pi = engine.start_process_instance("p")
    (before,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(before.id)  # `variable` does not exist: the event waits
    assert subscriptions(engine, pi.id) == [("catch", "conditional", None)]


def test_a_condition_that_is_no_boolean_is_an_error_naming_the_event(engine: Engine) -> None:
    engine.deploy(model(INTERMEDIATE.replace(CONDITION, "${variable}")))
    pi = engine.start_process_instance("p", variables={"variable": 3})
    (before,) = engine.tasks(process_instance_id=pi.id)
    with pytest.raises(ProcessEngineError, match="'catch'"):
        engine.complete_task(before.id)
    assert task_keys(engine, pi.id) == ["before"]  # nothing of the command was kept


def test_an_intermediate_event_after_an_event_based_gateway(engine: Engine) -> None:
    body = (
        '<startEvent id="start"/><eventBasedGateway id="gw"/>'
        f'<intermediateCatchEvent id="catch">{conditional()}</intermediateCatchEvent>'
        '<intermediateCatchEvent id="tick"><timerEventDefinition><timeDuration>PT1H'
        "</timeDuration></timerEventDefinition></intermediateCatchEvent>"
        '<userTask id="after"/><userTask id="late"/>'
        '<sequenceFlow id="f1" sourceRef="start" targetRef="gw"/>'
        '<sequenceFlow id="f2" sourceRef="gw" targetRef="catch"/>'
        '<sequenceFlow id="f3" sourceRef="gw" targetRef="tick"/>'
        '<sequenceFlow id="f4" sourceRef="catch" targetRef="after"/>'
        '<sequenceFlow id="f5" sourceRef="tick" targetRef="late"/>'
    )
    engine.deploy(model(body))
    at_once = engine.start_process_instance("p", variables={"variable": 1})
    assert task_keys(engine, at_once.id) == ["after"]
    assert engine.management_service.jobs(process_instance_id=at_once.id) == []
    waiting = engine.start_process_instance("p")
    assert subscriptions(engine, waiting.id) == [("catch", "conditional", None)]
    engine.runtime_service.set_variables(waiting.id, {"variable": 1})
    assert task_keys(engine, waiting.id) == ["after"]
    assert subscriptions(engine, waiting.id) == []
    assert engine.management_service.jobs(process_instance_id=waiting.id) == []


# -- boundary events ------------------------------------------------------------------------


def boundary_model(interrupting: bool = True, definition: str | None = None) -> str:
    cancel = "" if interrupting else ' cancelActivity="false"'
    return model(
        '<startEvent id="start"/><userTask id="work"/><endEvent id="end"/>'
        f'<boundaryEvent id="changed" attachedToRef="work"{cancel}>'
        f"{definition or conditional()}</boundaryEvent>"
        '<userTask id="after"/><endEvent id="afterEnd"/>'
        '<sequenceFlow id="f1" sourceRef="start" targetRef="work"/>'
        '<sequenceFlow id="f2" sourceRef="work" targetRef="end"/>'
        '<sequenceFlow id="f3" sourceRef="changed" targetRef="after"/>'
        '<sequenceFlow id="f4" sourceRef="after" targetRef="afterEnd"/>'
    )


def test_an_interrupting_boundary_event_cancels_its_activity(engine: Engine) -> None:
    engine.deploy(boundary_model())
    pi = engine.start_process_instance("p")
    assert subscriptions(engine, pi.id) == [("changed", "conditional", None)]
    engine.runtime_service.set_variables(pi.id, {"variable": 1})
    assert task_keys(engine, pi.id) == ["after"]
    assert subscriptions(engine, pi.id) == []
    types = activity_types(engine, pi.id)
    assert ("work", "userTask", True) in types
    assert ("changed", "boundaryConditional", False) in types
    assert engine.verify().problems == []


def test_a_boundary_event_true_when_its_activity_starts_occurs_at_once(engine: Engine) -> None:
    engine.deploy(boundary_model())
    pi = engine.start_process_instance("p", variables={"variable": 1})
    assert task_keys(engine, pi.id) == ["after"]
    assert subscriptions(engine, pi.id) == []


def test_a_non_interrupting_boundary_event_fires_on_each_true_change_and_the_task_stays(
    engine: Engine,
) -> None:
    engine.deploy(boundary_model(interrupting=False))
    pi = engine.start_process_instance("p")
    engine.runtime_service.set_variables(pi.id, {"variable": 1})
    assert task_keys(engine, pi.id) == ["after", "work"]
    engine.runtime_service.set_variables(pi.id, {"variable": 1})  # true again: fires again
    assert task_keys(engine, pi.id) == ["after", "after", "work"]
    engine.runtime_service.set_variables(pi.id, {"variable": 2})  # false: nothing
    assert task_keys(engine, pi.id) == ["after", "after", "work"]
    assert subscriptions(engine, pi.id) == [("changed", "conditional", None)]
    for task in engine.tasks(process_instance_id=pi.id):
        engine.complete_task(task.id)
    assert ended(engine, pi.id)
    assert engine.verify().problems == []


def test_setting_a_variable_on_completing_the_task_triggers_its_boundary_event(
    engine: Engine,
) -> None:
    engine.deploy(boundary_model())
    pi = engine.start_process_instance("p")
    (work,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(work.id, variables={"variable": 1})
    # Camunda dispatches the change before the task is left: the boundary event takes over.
    assert task_keys(engine, pi.id) == ["after"]


SUBPROCESS_BOUNDARY = (
    '<startEvent id="start"/>'
    '<subProcess id="sub"><startEvent id="subStart"/><userTask id="inner"/>'
    '<endEvent id="subEnd"/>'
    '<sequenceFlow id="s1" sourceRef="subStart" targetRef="inner"/>'
    '<sequenceFlow id="s2" sourceRef="inner" targetRef="subEnd"/></subProcess>'
    '<boundaryEvent id="changed" attachedToRef="sub">DEFINITION</boundaryEvent>'
    '<userTask id="after"/><endEvent id="end"/>'
    '<sequenceFlow id="f1" sourceRef="start" targetRef="sub"/>'
    '<sequenceFlow id="f2" sourceRef="sub" targetRef="end"/>'
    '<sequenceFlow id="f3" sourceRef="changed" targetRef="after"/>'
)


def test_a_variable_changed_inside_a_subprocess_triggers_its_boundary_event(
    engine: Engine,
) -> None:
    engine.deploy(model(SUBPROCESS_BOUNDARY.replace("DEFINITION", conditional())))
    pi = engine.start_process_instance("p")
    (inner,) = engine.tasks(process_instance_id=pi.id)
    # local to the subprocess's scope execution (the inner task runs on it), not the process's
    assert inner.execution_id != pi.id
    engine.runtime_service.set_variables(inner.execution_id, {"variable": 1}, local=True)
    assert engine.runtime_service.get_variables(pi.id, local=True) == {}
    assert task_keys(engine, pi.id) == ["after"]
    assert ("inner", "userTask", True) in activity_types(engine, pi.id)


def test_a_task_variable_set_through_its_task_triggers_the_boundary_but_a_task_local_one_not(
    engine: Engine,
) -> None:
    engine.deploy(model(SUBPROCESS_BOUNDARY.replace("DEFINITION", conditional())))
    pi = engine.start_process_instance("p")
    (inner,) = engine.tasks(process_instance_id=pi.id)
    engine.task_service.set_variables(inner.id, {"variable": 1}, local=True)
    assert task_keys(engine, pi.id) == ["inner"]  # a task-local variable triggers nothing
    engine.task_service.set_variables(inner.id, {"variable": 1})
    assert task_keys(engine, pi.id) == ["after"]


PARALLEL_SCOPES = (
    '<startEvent id="start"/><parallelGateway id="fork"/>'
    '<userTask id="left"/><userTask id="right"/>'
    '<boundaryEvent id="leftChanged" attachedToRef="left">DEFINITION</boundaryEvent>'
    '<userTask id="afterLeft"/>'
    '<sequenceFlow id="f1" sourceRef="start" targetRef="fork"/>'
    '<sequenceFlow id="f2" sourceRef="fork" targetRef="left"/>'
    '<sequenceFlow id="f3" sourceRef="fork" targetRef="right"/>'
    '<sequenceFlow id="f4" sourceRef="leftChanged" targetRef="afterLeft"/>'
)


def test_a_sibling_scopes_local_variable_does_not_trigger(engine: Engine) -> None:
    engine.deploy(model(PARALLEL_SCOPES.replace("DEFINITION", conditional())))
    pi = engine.start_process_instance("p")
    (right,) = engine.tasks(process_instance_id=pi.id, task_definition_key="right")
    # local to the other branch's execution: not the boundary event's scope, nor above it
    engine.runtime_service.set_variables(right.execution_id, {"variable": 1}, local=True)
    assert task_keys(engine, pi.id) == ["left", "right"]
    # the same on the process instance (above the boundary event's scope) triggers it
    engine.runtime_service.set_variables(pi.id, {"variable": 1}, local=True)
    assert task_keys(engine, pi.id) == ["afterLeft", "right"]
    assert engine.verify().problems == []


# -- variableName and variableEvents ---------------------------------------------------------


def test_variable_name_narrows_the_changes_that_evaluate(engine: Engine) -> None:
    definition = conditional("${true}", variable_name="variable")
    engine.deploy(boundary_model(interrupting=False, definition=definition))
    pi = engine.start_process_instance("p")
    # `${true}` held when the task started: it fired once on entry
    assert task_keys(engine, pi.id) == ["after", "work"]
    engine.runtime_service.set_variables(pi.id, {"other": 1})
    assert task_keys(engine, pi.id) == ["after", "work"]
    engine.runtime_service.set_variables(pi.id, {"variable": 1})
    assert task_keys(engine, pi.id) == ["after", "after", "work"]


def test_variable_events_narrow_the_kinds_of_change(engine: Engine) -> None:
    definition = conditional("${true}", variable_name="variable", events="update, delete")
    engine.deploy(boundary_model(interrupting=False, definition=definition))
    pi = engine.start_process_instance("p")
    assert task_keys(engine, pi.id) == ["after", "work"]  # on entry: no filter
    engine.runtime_service.set_variables(pi.id, {"variable": 1})  # create: not listened to
    assert task_keys(engine, pi.id) == ["after", "work"]
    engine.runtime_service.set_variables(pi.id, {"variable": 2})  # update
    assert task_keys(engine, pi.id) == ["after", "after", "work"]
    engine.runtime_service.remove_variables(pi.id, ["variable"])  # delete
    assert task_keys(engine, pi.id) == ["after", "after", "after", "work"]


def test_a_create_only_event_ignores_updates(engine: Engine) -> None:
    definition = conditional("${variable > 0}", events="create")
    engine.deploy(boundary_model(interrupting=False, definition=definition))
    pi = engine.start_process_instance("p", variables={"variable": 0})
    engine.runtime_service.set_variables(pi.id, {"variable": 5})  # an update
    assert task_keys(engine, pi.id) == ["work"]
    engine.runtime_service.set_variables(pi.id, {"other": 1})  # a create, condition true
    assert task_keys(engine, pi.id) == ["after", "work"]


# -- event subprocesses ----------------------------------------------------------------------


def esp_model(interrupting: bool = True, definition: str | None = None, main: str = "") -> str:
    flag = "" if interrupting else ' isInterrupting="false"'
    return model(
        (
            main
            or '<startEvent id="start"/><userTask id="work"/><endEvent id="end"/>'
            '<sequenceFlow id="f1" sourceRef="start" targetRef="work"/>'
            '<sequenceFlow id="f2" sourceRef="work" targetRef="end"/>'
        )
        + '<subProcess id="handler" triggeredByEvent="true">'
        f'<startEvent id="handlerStart"{flag}>{definition or conditional()}</startEvent>'
        '<userTask id="handle"/><endEvent id="handlerEnd"/>'
        '<sequenceFlow id="h1" sourceRef="handlerStart" targetRef="handle"/>'
        '<sequenceFlow id="h2" sourceRef="handle" targetRef="handlerEnd"/></subProcess>'
    )


def test_an_interrupting_event_subprocess_takes_the_process_over(engine: Engine) -> None:
    engine.deploy(esp_model())
    pi = engine.start_process_instance("p")
    assert subscriptions(engine, pi.id) == [("handlerStart", "conditional", None)]
    engine.runtime_service.set_variables(pi.id, {"variable": 1})
    assert task_keys(engine, pi.id) == ["handle"]
    assert subscriptions(engine, pi.id) == []
    types = activity_types(engine, pi.id)
    assert ("handlerStart", "conditionalStartEvent", False) in types
    assert ("work", "userTask", True) in types
    (handle,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(handle.id)
    assert ended(engine, pi.id)
    assert engine.verify().problems == []


def test_a_true_event_subprocess_start_occurs_as_its_scope_starts(engine: Engine) -> None:
    engine.deploy(esp_model(definition=conditional("${true}")))
    pi = engine.start_process_instance("p")
    assert task_keys(engine, pi.id) == ["handle"]


def test_a_non_interrupting_event_subprocess_fires_once_per_variable_set(engine: Engine) -> None:
    # Camunda's testNonInterruptingSetMultipleVariables: two variables set, two handlers
    engine.deploy(esp_model(interrupting=False, definition=conditional("${variable == 1}")))
    pi = engine.start_process_instance("p")
    engine.runtime_service.set_variables(pi.id, {"variable": 1, "variable1": 1})
    assert task_keys(engine, pi.id) == ["handle", "handle", "work"]
    assert subscriptions(engine, pi.id) == [("handlerStart", "conditional", None)]
    for task in engine.tasks(process_instance_id=pi.id):
        engine.complete_task(task.id)
    assert ended(engine, pi.id)
    assert engine.verify().problems == []


def test_an_event_subprocess_in_a_subprocess_belongs_to_it(engine: Engine) -> None:
    inner = (
        '<subProcess id="sub"><startEvent id="subStart"/><userTask id="inner"/>'
        '<endEvent id="subEnd"/>'
        '<sequenceFlow id="s1" sourceRef="subStart" targetRef="inner"/>'
        '<sequenceFlow id="s2" sourceRef="inner" targetRef="subEnd"/>'
        '<subProcess id="handler" triggeredByEvent="true">'
        f'<startEvent id="handlerStart">{conditional()}</startEvent>'
        '<userTask id="handle"/><endEvent id="handlerEnd"/>'
        '<sequenceFlow id="h1" sourceRef="handlerStart" targetRef="handle"/>'
        '<sequenceFlow id="h2" sourceRef="handle" targetRef="handlerEnd"/></subProcess>'
        "</subProcess>"
    )
    body = (
        '<startEvent id="start"/>' + inner + '<userTask id="next"/>'
        '<sequenceFlow id="f1" sourceRef="start" targetRef="sub"/>'
        '<sequenceFlow id="f2" sourceRef="sub" targetRef="next"/>'
    )
    engine.deploy(model(body))
    pi = engine.start_process_instance("p")
    engine.runtime_service.set_variables(pi.id, {"variable": 1})
    assert task_keys(engine, pi.id) == ["handle"]
    (handle,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(handle.id)
    assert task_keys(engine, pi.id) == ["next"]  # the subprocess completed by its handler
    assert subscriptions(engine, pi.id) == []


def test_a_variable_set_by_a_service_task_fires_before_the_task_is_left(engine: Engine) -> None:
    """Camunda dispatches the variable changes of an activity as it is left: an interrupting
    event subprocess takes over before the token reaches the next task."""
    main = (
        '<startEvent id="start"/>'
        '<serviceTask id="set" camunda:expression="${execution.setVariable(\'variable\', 1)}"/>'
        '<userTask id="work"/><endEvent id="end"/>'
        '<sequenceFlow id="f1" sourceRef="start" targetRef="set"/>'
        '<sequenceFlow id="f2" sourceRef="set" targetRef="work"/>'
        '<sequenceFlow id="f3" sourceRef="work" targetRef="end"/>'
    )
    engine.deploy(esp_model(main=main))
    pi = engine.start_process_instance("p")
    assert task_keys(engine, pi.id) == ["handle"]
    assert "work" not in [a[0] for a in activity_types(engine, pi.id)]  # never reached
    assert ("set", "serviceTask", True) in activity_types(engine, pi.id)


def test_a_non_interrupting_event_subprocess_that_keeps_its_condition_true_loops(
    engine: Engine,
) -> None:
    """Camunda's testLoop: the handler sets the variable its start waits for again, so the
    event subprocess starts again, until the delegate sets another value (here the third
    time); the main path goes on meanwhile."""
    count = {"n": 0}

    def loop(execution: Any) -> None:
        count["n"] += 1
        execution.setVariable("variable", 1 if count["n"] < 3 else count["n"])

    engine.register_delegate("loop", loop)
    main = (
        '<startEvent id="start"/><userTask id="first"/>'
        '<serviceTask id="kick" camunda:delegateExpression="${loop}"/>'
        '<userTask id="second"/><endEvent id="end"/>'
        '<sequenceFlow id="f1" sourceRef="start" targetRef="first"/>'
        '<sequenceFlow id="f2" sourceRef="first" targetRef="kick"/>'
        '<sequenceFlow id="f3" sourceRef="kick" targetRef="second"/>'
        '<sequenceFlow id="f4" sourceRef="second" targetRef="end"/>'
        '<subProcess id="again" triggeredByEvent="true">'
        f'<startEvent id="againStart" isInterrupting="false">{conditional()}</startEvent>'
        '<serviceTask id="reloop" camunda:delegateExpression="${loop}"/>'
        '<endEvent id="againEnd"/>'
        '<sequenceFlow id="a1" sourceRef="againStart" targetRef="reloop"/>'
        '<sequenceFlow id="a2" sourceRef="reloop" targetRef="againEnd"/></subProcess>'
    )
    engine.deploy(model(main))
    pi = engine.start_process_instance("p")
    (first,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(first.id)
    assert task_keys(engine, pi.id) == ["second"]
    assert engine.runtime_service.get_variable(pi.id, "variable") == 3
    assert engine.verify().problems == []


@pytest.mark.parametrize("interrupting", [True, False])
def test_a_start_listener_setting_the_variable_fires_each_event_once(
    engine: Engine, interrupting: bool
) -> None:
    """Camunda's ConditionalEventTriggeredByExecutionListenerTest (mixed process): the task's
    start listener sets the variable; its boundary event and the event subprocess each fire
    once (interrupting: the event subprocess takes the process over)."""
    cancel = "" if interrupting else ' cancelActivity="false"'
    flag = "" if interrupting else ' isInterrupting="false"'
    listener = (
        '<extensionElements><camunda:executionListener event="start" '
        "expression=\"${execution.setVariable('variable', 1)}\"/></extensionElements>"
    )
    body = (
        '<startEvent id="start"/><userTask id="before"/>'
        f'<userTask id="withCondition">{listener}</userTask><endEvent id="end"/>'
        '<sequenceFlow id="f1" sourceRef="start" targetRef="before"/>'
        '<sequenceFlow id="f2" sourceRef="before" targetRef="withCondition"/>'
        '<sequenceFlow id="f3" sourceRef="withCondition" targetRef="end"/>'
        f'<boundaryEvent id="b" attachedToRef="withCondition"{cancel}>{conditional()}'
        '</boundaryEvent><userTask id="afterBoundary"/>'
        '<sequenceFlow id="f4" sourceRef="b" targetRef="afterBoundary"/>'
        '<subProcess id="handler" triggeredByEvent="true">'
        f'<startEvent id="handlerStart"{flag}>{conditional()}</startEvent>'
        '<userTask id="afterStart"/>'
        '<sequenceFlow id="h1" sourceRef="handlerStart" targetRef="afterStart"/></subProcess>'
    )
    engine.deploy(model(body))
    pi = engine.start_process_instance("p")
    (before,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(before.id)
    if interrupting:
        assert task_keys(engine, pi.id) == ["afterStart"]
    else:
        assert task_keys(engine, pi.id) == ["afterBoundary", "afterStart", "withCondition"]
        assert len(subscriptions(engine, pi.id)) == 2
    assert engine.verify().problems == []


def test_the_log_records_which_change_made_the_condition_hold(engine: Engine) -> None:
    """An audit event names the subscription and the variable change; replay only reads it."""
    engine.deploy(boundary_model(interrupting=False))
    pi = engine.start_process_instance("p", variables={"variable": 0})
    engine.runtime_service.set_variables(pi.id, {"variable": 1})
    occurred = [e for e in engine.events(pi.id) if e.type == "ConditionalEventOccurred"]
    assert [(e.payload["activity_id"], e.payload["variable_name"]) for e in occurred] == [
        ("changed", "variable")
    ]
    assert occurred[0].payload["variable_event"] == "update"


def mixed_model(mapping: str, interrupting: bool, after: str = "") -> str:
    """MixedConditionalEventTest's process: a task with an input or output mapping of
    `variable`, a conditional boundary event on it and a process-level conditional event
    subprocess (both `${variable == 1}`)."""
    cancel = "" if interrupting else ' cancelActivity="false"'
    flag = "" if interrupting else ' isInterrupting="false"'
    next_ = after or "end"
    return model(
        '<startEvent id="start"/><userTask id="before"/>'
        f'<userTask id="withCondition"><extensionElements><camunda:inputOutput>{mapping}'
        "</camunda:inputOutput></extensionElements></userTask>"
        + (f'<userTask id="{after}"/>' if after else "")
        + '<endEvent id="end"/>'
        '<sequenceFlow id="f1" sourceRef="start" targetRef="before"/>'
        '<sequenceFlow id="f2" sourceRef="before" targetRef="withCondition"/>'
        f'<sequenceFlow id="f3" sourceRef="withCondition" targetRef="{next_}"/>'
        + (f'<sequenceFlow id="f5" sourceRef="{after}" targetRef="end"/>' if after else "")
        + f'<boundaryEvent id="b" attachedToRef="withCondition"{cancel}>{conditional()}'
        '</boundaryEvent><userTask id="afterBoundary"/>'
        '<sequenceFlow id="f4" sourceRef="b" targetRef="afterBoundary"/>'
        '<subProcess id="handler" triggeredByEvent="true">'
        f'<startEvent id="handlerStart"{flag}>{conditional()}</startEvent>'
        '<userTask id="afterStart"/>'
        '<sequenceFlow id="h1" sourceRef="handlerStart" targetRef="afterStart"/></subProcess>'
    )


INPUT = '<camunda:inputParameter name="variable">${1}</camunda:inputParameter>'
OUTPUT = '<camunda:outputParameter name="variable">${1}</camunda:outputParameter>'


def test_an_input_mapping_makes_the_boundary_event_true_as_the_task_starts(
    engine: Engine,
) -> None:
    """MixedConditionalEventTest.testSetVariableOnInputMapping: the mapped variable is local to
    the task; its boundary event, evaluated as the task starts, sees it."""
    engine.deploy(mixed_model(INPUT, interrupting=True))
    pi = engine.start_process_instance("p")
    (before,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(before.id)
    assert task_keys(engine, pi.id) == ["afterBoundary"]


def test_an_output_mapping_fires_the_event_subprocess_not_the_left_tasks_boundary(
    engine: Engine,
) -> None:
    """MixedConditionalEventTest.testSetVariableOnOutputMapping: the output reaches the
    process after the task's boundary event stopped waiting."""
    engine.deploy(mixed_model(OUTPUT, interrupting=True))
    pi = engine.start_process_instance("p")
    engine.complete_task(engine.tasks(process_instance_id=pi.id)[0].id)
    (task,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(task.id)
    assert task_keys(engine, pi.id) == ["afterStart"]


def test_a_non_interrupting_event_subprocess_fires_beside_the_next_task(engine: Engine) -> None:
    """MixedConditionalEventTest.testNonInterruptingSetVariableOnOutputMapping: the event
    subprocess starts beside the task the token goes on to."""
    engine.deploy(mixed_model(OUTPUT, interrupting=False, after="afterMapping"))
    pi = engine.start_process_instance("p")
    engine.complete_task(engine.tasks(process_instance_id=pi.id)[0].id)
    (task,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(task.id)
    assert task_keys(engine, pi.id) == ["afterMapping", "afterStart"]
    for open_task in engine.tasks(process_instance_id=pi.id):
        engine.complete_task(open_task.id)
    assert ended(engine, pi.id)
    assert engine.verify().problems == []


# -- replay ----------------------------------------------------------------------------------


def test_replay_never_evaluates_a_condition(engine: Engine) -> None:
    """The firing is in the log: the rebuilt tables equal the live ones."""
    engine.deploy(boundary_model(interrupting=False))
    pi = engine.start_process_instance("p")
    engine.runtime_service.set_variables(pi.id, {"variable": 1})
    engine.runtime_service.set_variables(pi.id, {"variable": 1})
    assert engine.verify().problems == []


# -- bad models ------------------------------------------------------------------------------


def test_a_conditional_event_without_a_condition_is_a_deploy_problem(engine: Engine) -> None:
    bad = boundary_model(definition="<conditionalEventDefinition/>")
    with pytest.raises(ModelError, match="changed") as raised:
        engine.deploy(bad)
    assert "condition" in str(raised.value)


def test_an_unknown_variable_event_is_a_deploy_problem(engine: Engine) -> None:
    bad = boundary_model(definition=conditional(events="create, change"))
    with pytest.raises(ModelError, match="'change'") as raised:
        engine.deploy(bad)
    assert "changed" in str(raised.value)


def test_a_broken_condition_is_a_deploy_problem(engine: Engine) -> None:
    with pytest.raises(ModelError, match="changed"):
        engine.deploy(boundary_model(definition=conditional("${variable ==}")))


# -- conditional start events ----------------------------------------------------------------

START = (
    f'<startEvent id="start">{conditional("${temperature > 100}")}</startEvent>'
    '<userTask id="cool"/>'
    '<sequenceFlow id="f1" sourceRef="start" targetRef="cool"/>'
)


def test_a_condition_evaluation_starts_the_processes_whose_condition_holds(
    engine: Engine,
) -> None:
    engine.deploy(model(START))
    engine.deploy(
        model(START.replace("temperature > 100", "temperature &lt; 0")).replace('id="p"', 'id="q"')
    )
    assert engine.runtime_service.evaluate_conditions({"temperature": 50}) == []
    started = engine.runtime_service.evaluate_conditions(
        {"temperature": 120}, business_key="boiler-1"
    )
    assert [(s.definition_key, s.business_key) for s in started] == [("p", "boiler-1")]
    (pi,) = started
    assert task_keys(engine, pi.id) == ["cool"]
    assert engine.runtime_service.get_variables(pi.id) == {"temperature": 120}
    assert ("start", "conditionalStartEvent", False) in activity_types(engine, pi.id)
    assert engine.verify().problems == []


def test_a_condition_evaluation_with_nothing_to_evaluate_is_refused(engine: Engine) -> None:
    engine.deploy(boundary_model())
    with pytest.raises(ProcessEngineError, match="No subscriptions were found"):
        engine.runtime_service.evaluate_conditions({"temperature": 120})


def test_a_condition_evaluation_for_one_definition(engine: Engine) -> None:
    engine.deploy(model(START))
    (definition,) = engine.repository_service.process_definitions()
    started = engine.runtime_service.evaluate_conditions(
        {"temperature": 120}, process_definition_id=definition.id
    )
    assert len(started) == 1
    engine.deploy(boundary_model().replace('id="p"', 'id="plain"'))
    plain = next(d for d in engine.repository_service.process_definitions() if d.key == "plain")
    with pytest.raises(ProcessEngineError, match="does not declare conditional start event"):
        engine.runtime_service.evaluate_conditions(
            {"temperature": 120}, process_definition_id=plain.id
        )


def test_only_the_latest_version_is_evaluated(engine: Engine) -> None:
    engine.deploy(model(START))
    engine.deploy(model(START))
    started = engine.runtime_service.evaluate_conditions({"temperature": 120})
    assert len(started) == 1
    latest = max(engine.repository_service.process_definitions(), key=lambda d: d.version)
    assert started[0].definition_id == latest.id


def test_tenant_id_and_without_tenant_id_together_are_refused(engine: Engine) -> None:
    engine.deploy(model(START))
    with pytest.raises(Rejected, match="withoutTenantId"):
        engine.runtime_service.evaluate_conditions(
            {"temperature": 120}, tenant_id="t1", without_tenant_id=True
        )


def test_a_start_variable_name_must_be_among_the_variables(engine: Engine) -> None:
    named = START.replace(
        "<conditionalEventDefinition>",
        '<conditionalEventDefinition camunda:variableName="temperature">',
    ).replace("temperature > 100", "true")
    engine.deploy(model(named))
    assert engine.runtime_service.evaluate_conditions({"pressure": 1}) == []
    assert len(engine.runtime_service.evaluate_conditions({"temperature": 1})) == 1


def test_two_conditional_start_events_with_one_condition_are_a_deploy_problem(
    engine: Engine,
) -> None:
    body = (
        f'<startEvent id="a">{conditional()}</startEvent>'
        f'<startEvent id="b">{conditional()}</startEvent><userTask id="t"/>'
        '<sequenceFlow id="f1" sourceRef="a" targetRef="t"/>'
        '<sequenceFlow id="f2" sourceRef="b" targetRef="t"/>'
    )
    with pytest.raises(ModelError, match="same condition"):
        engine.deploy(model(body))
