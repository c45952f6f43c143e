"""Escalation events through the public Engine API, ported from Camunda's EscalationEventTest and
EscalationEventSubprocessTest: the nearest catching scope wins; an interrupting catch cancels
the thrower's scope, a non-interrupting one lets it go on; nothing catching does nothing; an
escalation leaves a called instance through its call activity (the out mappings applied on the
way); a user task escalates through the task service; bad models are deploy problems naming the
element.
"""

from __future__ import annotations

from typing import Any

import pytest

from flowledger import Engine, ModelError
from flowledger.core.errors import ProcessEngineError

ESCALATIONS = (
    '<escalation id="escalation" name="escalation" escalationCode="escalationCode"/>'
    '<escalation id="other" escalationCode="otherCode"/>'
    '<escalation id="uncoded" name="no code"/>'
)


def definitions(*processes: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">'
        + ESCALATIONS
        + "".join(processes)
        + "</definitions>"
    )


def proc(process_id: str, body: str) -> str:
    return f'<process id="{process_id}" isExecutable="true">{body}</process>'


def flows(*pairs: tuple[str, str]) -> str:
    return "".join(
        f'<sequenceFlow id="{process_flow(a, b)}" sourceRef="{a}" targetRef="{b}"/>'
        for a, b in pairs
    )


def process_flow(a: str, b: str) -> str:
    return f"{a}_to_{b}"


def throw(event_id: str = "escalationThrowingEvent", ref: str = "escalation") -> str:
    return (
        f'<intermediateThrowEvent id="{event_id}">'
        f'<escalationEventDefinition escalationRef="{ref}"/></intermediateThrowEvent>'
    )


def end_throw(event_id: str = "escalationEndEvent", ref: str = "escalation") -> str:
    return (
        f'<endEvent id="{event_id}"><escalationEventDefinition escalationRef="{ref}"/></endEvent>'
    )


def boundary(
    attached: str,
    *,
    ref: str | None = "escalation",
    cancel: bool = True,
    variable: str | None = None,
    event_id: str = "escalationBoundaryEvent",
) -> str:
    refs = f' escalationRef="{ref}"' if ref else ""
    var = f' camunda:escalationCodeVariable="{variable}"' if variable else ""
    return (
        f'<boundaryEvent id="{event_id}" attachedToRef="{attached}" '
        f'cancelActivity="{"true" if cancel else "false"}">'
        f"<escalationEventDefinition{refs}{var}/></boundaryEvent>"
    )


def esp(
    *,
    ref: str | None = "escalation",
    interrupting: bool = True,
    variable: str | None = None,
    esp_id: str = "escalationEventSubprocess",
    task: str = "taskAfterCatchedEscalation",
) -> str:
    refs = f' escalationRef="{ref}"' if ref else ""
    var = f' camunda:escalationCodeVariable="{variable}"' if variable else ""
    return (
        f'<subProcess id="{esp_id}" triggeredByEvent="true">'
        f'<startEvent id="{esp_id}Start" isInterrupting="{"true" if interrupting else "false"}">'
        f"<escalationEventDefinition{refs}{var}/></startEvent>"
        f'<userTask id="{task}" name="task after catched escalation"/>'
        f'<endEvent id="{esp_id}End"/>'
        + flows((f"{esp_id}Start", task), (task, f"{esp_id}End"))
        + "</subProcess>"
    )


def keys(engine: Engine, instance_id: str | None = None) -> list[str]:
    tasks = engine.tasks(process_instance_id=instance_id) if instance_id else engine.tasks()
    return sorted(t.task_definition_key for t in tasks)


def history_types(engine: Engine, instance_id: str) -> dict[str, str]:
    return {a.activity_id: a.activity_type for a in engine.historic_activity_instances(instance_id)}


def finish(engine: Engine) -> None:
    while tasks := engine.tasks():
        engine.complete_task(tasks[0].id)


# A subprocess that throws the escalation, then waits in taskInSubprocess.
def throwing_subprocess(thrower: str) -> str:
    return (
        '<subProcess id="subProcess"><startEvent id="startSubProcess"/>'
        + thrower
        + '<userTask id="taskInSubprocess" name="task in subprocess"/>'
        '<endEvent id="endSubProcess"/>'
        + flows(
            ("startSubProcess", "escalationThrowingEvent"),
            ("escalationThrowingEvent", "taskInSubprocess"),
            ("taskInSubprocess", "endSubProcess"),
        )
    )


def test_an_uncaught_intermediate_escalation_does_nothing(engine: Engine) -> None:
    """EscalationEventTest.testThrowEscalationEventFromEmbeddedSubprocess' base: nothing
    catches, the throw goes on, no incident."""
    body = (
        '<startEvent id="start"/>'
        + throw()
        + '<userTask id="task"/><endEvent id="theEnd"/>'
        + flows(
            ("start", "escalationThrowingEvent"),
            ("escalationThrowingEvent", "task"),
            ("task", "theEnd"),
        )
    )
    engine.deploy(definitions(proc("throwEscalationProcess", body)))
    pi = engine.start_process_instance("throwEscalationProcess")
    assert keys(engine, pi.id) == ["task"]
    assert engine.runtime_service.incidents() == []
    assert history_types(engine, pi.id)["escalationThrowingEvent"] == (
        "intermediateEscalationThrowEvent"
    )
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_a_non_interrupting_event_subprocess_inside_the_subprocess_runs_beside(
    engine: Engine,
) -> None:
    """EscalationEventSubprocessTest.testCatchEscalationEventInsideSubprocess."""
    body = (
        '<startEvent id="start"/>'
        + throwing_subprocess(throw())
        + esp(interrupting=False)
        + '</subProcess><endEvent id="theEnd"/>'
        + flows(("start", "subProcess"), ("subProcess", "theEnd"))
    )
    engine.deploy(definitions(proc("escalationProcess", body)))
    pi = engine.start_process_instance("escalationProcess")
    assert keys(engine, pi.id) == ["taskAfterCatchedEscalation", "taskInSubprocess"]
    history = history_types(engine, pi.id)
    assert history["escalationEventSubprocessStart"] == "escalationStartEvent"
    assert history["escalationEventSubprocess"] == "subProcess"
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_an_interrupting_event_subprocess_takes_the_scope_over(engine: Engine) -> None:
    """EscalationEventSubprocessTest.testInterruptionEscalationEventSubprocess: the thrower
    does not go on."""
    body = (
        '<startEvent id="start"/>'
        + throwing_subprocess(throw())
        + esp(interrupting=True)
        + '</subProcess><endEvent id="theEnd"/>'
        + flows(("start", "subProcess"), ("subProcess", "theEnd"))
    )
    engine.deploy(definitions(proc("escalationProcess", body)))
    pi = engine.start_process_instance("escalationProcess")
    assert keys(engine, pi.id) == ["taskAfterCatchedEscalation"]
    assert "taskInSubprocess" not in history_types(engine, pi.id)
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"


def test_the_event_subprocess_wins_over_the_boundary_event_of_its_scope(engine: Engine) -> None:
    """EscalationEventSubprocessTest.testPreferEscalationEventSubprocessToBoundaryEvent."""
    body = (
        '<startEvent id="start"/>'
        + throwing_subprocess(throw())
        + esp(interrupting=False)
        + "</subProcess>"
        + boundary("subProcess", cancel=False)
        + '<userTask id="taskAfterBoundary"/><endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "subProcess"),
            ("subProcess", "theEnd"),
            ("escalationBoundaryEvent", "taskAfterBoundary"),
            ("taskAfterBoundary", "end2"),
        )
    )
    engine.deploy(definitions(proc("escalationProcess", body)))
    pi = engine.start_process_instance("escalationProcess")
    assert keys(engine, pi.id) == ["taskAfterCatchedEscalation", "taskInSubprocess"]


@pytest.mark.parametrize("cancel", [True, False])
def test_a_boundary_event_on_the_subprocess_catches(engine: Engine, cancel: bool) -> None:
    """EscalationEventTest.testInterruptingEscalationBoundaryEvent and
    testNonInterruptingEscalationBoundaryEvent (implicit non-interrupting on a subprocess)."""
    body = (
        '<startEvent id="start"/>'
        + throwing_subprocess(throw())
        + "</subProcess>"
        + boundary("subProcess", cancel=cancel, variable="escalationCodeVar")
        + '<userTask id="taskAfterCatchedEscalation"/><endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "subProcess"),
            ("subProcess", "theEnd"),
            ("escalationBoundaryEvent", "taskAfterCatchedEscalation"),
            ("taskAfterCatchedEscalation", "end2"),
        )
    )
    engine.deploy(definitions(proc("escalationProcess", body)))
    pi = engine.start_process_instance("escalationProcess")
    expected = ["taskAfterCatchedEscalation"] + ([] if cancel else ["taskInSubprocess"])
    assert keys(engine, pi.id) == expected
    assert engine.runtime_service.get_variables(pi.id)["escalationCodeVar"] == "escalationCode"
    assert history_types(engine, pi.id)["escalationBoundaryEvent"] == "boundaryEscalation"
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_a_catch_without_a_code_catches_every_escalation(engine: Engine) -> None:
    """EscalationEventTest.testBoundaryEventWithoutEscalationCode /
    testRetrieveEscalationCodeVariableOnBoundaryEventWithoutEscalationCode."""
    body = (
        '<startEvent id="start"/>'
        + throwing_subprocess(throw(ref="other"))
        + "</subProcess>"
        + boundary("subProcess", ref=None, variable="code")
        + '<userTask id="taskAfterCatchedEscalation"/><endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "subProcess"),
            ("subProcess", "theEnd"),
            ("escalationBoundaryEvent", "taskAfterCatchedEscalation"),
            ("taskAfterCatchedEscalation", "end2"),
        )
    )
    engine.deploy(definitions(proc("escalationProcess", body)))
    pi = engine.start_process_instance("escalationProcess")
    assert keys(engine, pi.id) == ["taskAfterCatchedEscalation"]
    assert engine.runtime_service.get_variables(pi.id)["code"] == "otherCode"


def test_a_catch_for_another_code_lets_it_pass(engine: Engine) -> None:
    body = (
        '<startEvent id="start"/>'
        + throwing_subprocess(throw(ref="other"))
        + "</subProcess>"
        + boundary("subProcess")
        + '<userTask id="taskAfterCatchedEscalation"/><endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "subProcess"),
            ("subProcess", "theEnd"),
            ("escalationBoundaryEvent", "taskAfterCatchedEscalation"),
            ("taskAfterCatchedEscalation", "end2"),
        )
    )
    engine.deploy(definitions(proc("escalationProcess", body)))
    pi = engine.start_process_instance("escalationProcess")
    assert keys(engine, pi.id) == ["taskInSubprocess"]


def test_an_escalation_end_event_ends_its_path_unless_caught_interrupting(
    engine: Engine,
) -> None:
    """EscalationEventTest.testEscalationEndEvent: a non-interrupting boundary catches the end
    event's escalation; the subprocess completes too and both paths go on."""
    body = (
        '<startEvent id="start"/><subProcess id="subProcess"><startEvent id="startSubProcess"/>'
        + end_throw()
        + flows(("startSubProcess", "escalationEndEvent"))
        + "</subProcess>"
        + boundary("subProcess", cancel=False)
        + '<userTask id="taskAfterCatchedEscalation"/><userTask id="taskAfterSubprocess"/>'
        '<endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "subProcess"),
            ("subProcess", "taskAfterSubprocess"),
            ("taskAfterSubprocess", "theEnd"),
            ("escalationBoundaryEvent", "taskAfterCatchedEscalation"),
            ("taskAfterCatchedEscalation", "end2"),
        )
    )
    engine.deploy(definitions(proc("escalationProcess", body)))
    pi = engine.start_process_instance("escalationProcess")
    assert keys(engine, pi.id) == ["taskAfterCatchedEscalation", "taskAfterSubprocess"]
    assert history_types(engine, pi.id)["escalationEndEvent"] == "escalationEndEvent"
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_an_uncaught_escalation_end_event_just_ends_the_process(engine: Engine) -> None:
    body = '<startEvent id="start"/>' + end_throw() + flows(("start", "escalationEndEvent"))
    engine.deploy(definitions(proc("p", body)))
    pi = engine.start_process_instance("p")
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"


def test_an_event_subprocess_does_not_catch_its_own_rethrow(engine: Engine) -> None:
    """EscalationEventSubprocessTest.testReThrowEscalationEventToBoundaryEvent: the event
    subprocess throws the escalation again; the boundary of the enclosing subprocess catches."""
    rethrowing = (
        '<subProcess id="escalationEventSubprocess" triggeredByEvent="true">'
        '<startEvent id="escalationStartEvent">'
        '<escalationEventDefinition escalationRef="escalation"/></startEvent>'
        + end_throw("rethrow")
        + flows(("escalationStartEvent", "rethrow"))
        + "</subProcess>"
    )
    body = (
        '<startEvent id="start"/>'
        + throwing_subprocess(throw())
        + rethrowing
        + "</subProcess>"
        + boundary("subProcess")
        + '<userTask id="taskAfterCatchedEscalation"/><endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "subProcess"),
            ("subProcess", "theEnd"),
            ("escalationBoundaryEvent", "taskAfterCatchedEscalation"),
            ("taskAfterCatchedEscalation", "end2"),
        )
    )
    engine.deploy(definitions(proc("escalationProcess", body)))
    pi = engine.start_process_instance("escalationProcess")
    assert keys(engine, pi.id) == ["taskAfterCatchedEscalation"]
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"


def test_a_non_interrupting_event_subprocess_catches_each_throw(engine: Engine) -> None:
    """EscalationEventSubprocessTest.testNonInterruptingEscalationTriggeredTwice: two parallel
    throws, the process-level event subprocess runs twice."""
    body = (
        '<startEvent id="start"/><parallelGateway id="fork"/>'
        + throw("throw1")
        + throw("throw2")
        + '<userTask id="task1"/><userTask id="task2"/><endEvent id="e1"/><endEvent id="e2"/>'
        + esp(interrupting=False)
        + flows(
            ("start", "fork"),
            ("fork", "throw1"),
            ("fork", "throw2"),
            ("throw1", "task1"),
            ("throw2", "task2"),
            ("task1", "e1"),
            ("task2", "e2"),
        )
    )
    engine.deploy(definitions(proc("p", body)))
    pi = engine.start_process_instance("p")
    assert keys(engine, pi.id) == [
        "task1",
        "task2",
        "taskAfterCatchedEscalation",
        "taskAfterCatchedEscalation",
    ]
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


# -- call activities ---------------------------------------------------------------------------

CALLED = proc(
    "throwEscalationProcess",
    '<startEvent id="start"/>'
    + throw()
    + '<userTask id="task" name="task after thrown escalation"/><endEvent id="theEnd"/>'
    + flows(
        ("start", "escalationThrowingEvent"),
        ("escalationThrowingEvent", "task"),
        ("task", "theEnd"),
    ),
)


def caller(*, cancel: bool, outputs: str = "", variable: str | None = None) -> str:
    extension = f"<extensionElements>{outputs}</extensionElements>" if outputs else ""
    return proc(
        "catchEscalationProcess",
        '<startEvent id="start"/>'
        f'<callActivity id="callActivity" calledElement="throwEscalationProcess">{extension}'
        "</callActivity>"
        + boundary("callActivity", cancel=cancel, variable=variable)
        + '<userTask id="taskAfterCatchedEscalation"/><userTask id="taskAfterCall"/>'
        '<endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "callActivity"),
            ("callActivity", "taskAfterCall"),
            ("taskAfterCall", "theEnd"),
            ("escalationBoundaryEvent", "taskAfterCatchedEscalation"),
            ("taskAfterCatchedEscalation", "end2"),
        ),
    )


def test_a_non_interrupting_boundary_on_a_call_activity_lets_the_called_instance_go_on(
    engine: Engine,
) -> None:
    """EscalationEventTest.testNonInterruptingEscalationBoundaryEventOnCallActivity."""
    engine.deploy(definitions(caller(cancel=False, variable="code"), CALLED))
    pi = engine.start_process_instance("catchEscalationProcess")
    assert keys(engine) == ["task", "taskAfterCatchedEscalation"]
    assert engine.runtime_service.get_variables(pi.id)["code"] == "escalationCode"
    (called,) = [t for t in engine.tasks() if t.task_definition_key == "task"]
    engine.complete_task(called.id)
    assert keys(engine) == ["taskAfterCall", "taskAfterCatchedEscalation"]
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_an_interrupting_boundary_on_a_call_activity_cancels_the_called_instance(
    engine: Engine,
) -> None:
    """EscalationEventTest.testInterruptingEscalationBoundaryEventOnCallActivity: the called
    instance ends, its thrower never reaches `task`."""
    engine.deploy(definitions(caller(cancel=True), CALLED))
    pi = engine.start_process_instance("catchEscalationProcess")
    assert keys(engine) == ["taskAfterCatchedEscalation"]
    (called,) = [
        p
        for p in engine.history_service.historic_process_instances()
        if p.process_definition_key == "throwEscalationProcess"
    ]
    assert called.state != "ACTIVE"
    assert "task" not in history_types(engine, called.id)
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_the_out_mappings_apply_as_the_escalation_leaves_the_called_instance(
    engine: Engine,
) -> None:
    """EscalationEventTest.testPropagateOutputVariablesWhileCatchEscalationOnCallActivity and
    testPropagateOutputVariablesWithoutCatchEscalation."""
    outputs = '<camunda:out source="output" target="result"/>'
    called = proc(
        "throwEscalationProcess",
        '<startEvent id="start"/>'
        '<scriptTask id="set" scriptFormat="juel"><script>${execution.setVariable("output", 42)}'
        "</script></scriptTask>"
        + throw()
        + '<userTask id="task"/><endEvent id="theEnd"/>'
        + flows(
            ("start", "set"),
            ("set", "escalationThrowingEvent"),
            ("escalationThrowingEvent", "task"),
            ("task", "theEnd"),
        ),
    )
    engine.deploy(definitions(caller(cancel=False, outputs=outputs), called))
    pi = engine.start_process_instance("catchEscalationProcess")
    assert engine.runtime_service.get_variables(pi.id)["result"] == 42


def test_an_uncaught_escalation_from_a_called_instance_lets_it_go_on(engine: Engine) -> None:
    engine.deploy(
        definitions(
            proc(
                "catchEscalationProcess",
                '<startEvent id="start"/>'
                '<callActivity id="callActivity" calledElement="throwEscalationProcess"/>'
                '<endEvent id="theEnd"/>'
                + flows(("start", "callActivity"), ("callActivity", "theEnd")),
            ),
            CALLED,
        )
    )
    pi = engine.start_process_instance("catchEscalationProcess")
    assert keys(engine) == ["task"]
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_an_event_subprocess_of_the_caller_catches_from_the_called_instance(
    engine: Engine,
) -> None:
    """EscalationEventSubprocessTest.testCatchEscalationEventFromCallActivity."""
    engine.deploy(
        definitions(
            proc(
                "catchEscalationProcess",
                '<startEvent id="start"/>'
                '<callActivity id="callActivity" calledElement="throwEscalationProcess"/>'
                '<endEvent id="theEnd"/>'
                + esp(interrupting=False, variable="code")
                + flows(("start", "callActivity"), ("callActivity", "theEnd")),
            ),
            CALLED,
        )
    )
    pi = engine.start_process_instance("catchEscalationProcess")
    assert keys(engine) == ["task", "taskAfterCatchedEscalation"]
    assert engine.runtime_service.get_variables(pi.id)["code"] == "escalationCode"
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"


def test_an_escalation_travels_up_two_levels_of_calls(engine: Engine) -> None:
    middle = proc(
        "middle",
        '<startEvent id="start"/>'
        '<callActivity id="callInner" calledElement="throwEscalationProcess"/>'
        '<endEvent id="theEnd"/>' + flows(("start", "callInner"), ("callInner", "theEnd")),
    )
    top = proc(
        "top",
        '<startEvent id="start"/><callActivity id="callActivity" calledElement="middle"/>'
        + boundary("callActivity")
        + '<userTask id="handled"/><endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "callActivity"),
            ("callActivity", "theEnd"),
            ("escalationBoundaryEvent", "handled"),
            ("handled", "end2"),
        ),
    )
    engine.deploy(definitions(top, middle, CALLED))
    pi = engine.start_process_instance("top")
    assert keys(engine) == ["handled"]
    called = [p for p in engine.history_service.historic_process_instances() if p.id != pi.id]
    assert len(called) == 2
    assert all(p.state != "ACTIVE" for p in called)
    finish(engine)
    assert engine.verify().problems == []


# -- the task service ---------------------------------------------------------------------------


def task_model(extra: str) -> str:
    return proc(
        "p",
        '<startEvent id="start"/><userTask id="work"/>'
        + extra
        + '<userTask id="afterEscalation"/><endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(("start", "work"), ("work", "theEnd"), ("afterEscalation", "end2")),
    )


def test_a_user_task_escalates_to_its_boundary_event(engine: Engine) -> None:
    extra = boundary("work", cancel=False, variable="code") + flows(
        ("escalationBoundaryEvent", "afterEscalation")
    )
    engine.deploy(definitions(task_model(extra)))
    pi = engine.start_process_instance("p")
    (task,) = engine.tasks()
    engine.task_service.handle_escalation(task.id, "escalationCode", {"why": "late"})
    assert keys(engine, pi.id) == ["afterEscalation", "work"]
    variables: dict[str, Any] = engine.runtime_service.get_variables(pi.id)
    assert variables["code"] == "escalationCode"
    assert variables["why"] == "late"
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_an_interrupting_escalation_of_a_user_task_ends_the_task(engine: Engine) -> None:
    extra = boundary("work", cancel=True) + flows(("escalationBoundaryEvent", "afterEscalation"))
    engine.deploy(definitions(task_model(extra)))
    pi = engine.start_process_instance("p")
    (task,) = engine.tasks()
    engine.task_service.handle_escalation(task.id, "escalationCode")
    assert keys(engine, pi.id) == ["afterEscalation"]


def test_a_task_escalation_nothing_catches_is_refused(engine: Engine) -> None:
    engine.deploy(definitions(task_model("")))
    pi = engine.start_process_instance("p")
    (task,) = engine.tasks()
    with pytest.raises(ProcessEngineError, match="no escalation handler was defined"):
        engine.task_service.handle_escalation(task.id, "escalationCode", {"x": 1})
    assert keys(engine, pi.id) == ["work"]
    assert "x" not in engine.runtime_service.get_variables(pi.id)


def test_a_task_escalation_may_be_caught_by_a_calling_instance(engine: Engine) -> None:
    called = proc(
        "throwEscalationProcess",
        '<startEvent id="start"/><userTask id="task"/><endEvent id="theEnd"/>'
        + flows(("start", "task"), ("task", "theEnd")),
    )
    engine.deploy(definitions(caller(cancel=False), called))
    engine.start_process_instance("catchEscalationProcess")
    (task,) = engine.tasks()
    engine.task_service.handle_escalation(task.id, "escalationCode")
    assert keys(engine) == ["task", "taskAfterCatchedEscalation"]


def test_a_task_escalation_uncaught_above_the_called_instance_is_refused(engine: Engine) -> None:
    called = proc(
        "throwEscalationProcess",
        '<startEvent id="start"/><userTask id="task"/><endEvent id="theEnd"/>'
        + flows(("start", "task"), ("task", "theEnd")),
    )
    engine.deploy(definitions(caller(cancel=False), called))
    engine.start_process_instance("catchEscalationProcess")
    (task,) = engine.tasks()
    with pytest.raises(ProcessEngineError, match="no escalation handler"):
        engine.task_service.handle_escalation(task.id, "otherCode")
    assert keys(engine) == ["task"]


def test_a_user_task_throws_a_bpmn_error_to_its_boundary_event(engine: Engine) -> None:
    extra = (
        '<boundaryEvent id="errorBoundary" attachedToRef="work">'
        '<errorEventDefinition camunda:errorCodeVariable="code" '
        'camunda:errorMessageVariable="message"/></boundaryEvent>'
        + flows(("errorBoundary", "afterEscalation"))
    )
    engine.deploy(definitions(task_model(extra)))
    pi = engine.start_process_instance("p")
    (task,) = engine.tasks()
    engine.task_service.handle_bpmn_error(task.id, "E1", "it broke", {"detail": "x"})
    assert keys(engine, pi.id) == ["afterEscalation"]
    variables = engine.runtime_service.get_variables(pi.id)
    assert (variables["code"], variables["message"], variables["detail"]) == ("E1", "it broke", "x")
    finish(engine)
    assert engine.verify().problems == []


def test_an_uncaught_bpmn_error_of_a_user_task_ends_its_path(engine: Engine) -> None:
    engine.deploy(definitions(task_model("")))
    pi = engine.start_process_instance("p")
    (task,) = engine.tasks()
    engine.task_service.handle_bpmn_error(task.id, "E1")
    assert engine.tasks() == []
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


# -- bad models ---------------------------------------------------------------------------------


def problems(engine: Engine, *processes: str) -> list[tuple[str | None, str]]:
    with pytest.raises(ModelError) as refused:
        engine.deploy(definitions(*processes))
    return [(p.element_id, p.message) for p in refused.value.problems]


def simple(body: str) -> str:
    return proc("p", '<startEvent id="start"/>' + body)


@pytest.mark.parametrize(
    ("body", "element", "words"),
    [
        (
            '<intermediateThrowEvent id="t"><escalationEventDefinition/></intermediateThrowEvent>'
            + flows(("start", "t")),
            "t",
            "needs an escalationRef",
        ),
        (
            '<endEvent id="t"><escalationEventDefinition escalationRef="nope"/></endEvent>'
            + flows(("start", "t")),
            "t",
            "could not find the escalation with id 'nope'",
        ),
        (
            '<endEvent id="t"><escalationEventDefinition escalationRef="uncoded"/></endEvent>'
            + flows(("start", "t")),
            "t",
            "has no escalationCode",
        ),
        (
            '<userTask id="work"/>'
            + boundary("work", ref="invalid-escalation")
            + '<endEvent id="e"/>'
            + flows(("start", "work"), ("work", "e"), ("escalationBoundaryEvent", "e")),
            "escalationBoundaryEvent",
            "could not find the escalation with id 'invalid-escalation'",
        ),
        (
            '<userTask id="work"/><endEvent id="e"/>'
            + esp(esp_id="one", task="t1", ref="invalid-escalation")
            + flows(("start", "work"), ("work", "e")),
            "oneStart",
            "could not find the escalation with id 'invalid-escalation'",
        ),
        (
            '<userTask id="work"/><endEvent id="e"/>'
            + esp(esp_id="one", task="t1")
            + esp(esp_id="two", task="t2", interrupting=False)
            + flows(("start", "work"), ("work", "e")),
            "twoStart",
            "both catch the escalation code 'escalationCode'",
        ),
        (
            '<userTask id="t" camunda:escalationCodeVariable="v"/>' + flows(("start", "t")),
            "t",
            "camunda:escalationCodeVariable belongs on",
        ),
        (
            '<endEvent id="t"><escalationEventDefinition escalationRef="escalation" '
            'camunda:escalationCodeVariable="v"/></endEvent>' + flows(("start", "t")),
            "t",
            "not on one that throws them",
        ),
        (
            '<serviceTask id="work" camunda:expression="${1}"/>'
            + boundary("work")
            + '<endEvent id="e"/>'
            + flows(("start", "work"), ("work", "e"), ("escalationBoundaryEvent", "e")),
            "escalationBoundaryEvent",
            "can only be attached to a subprocess, a call activity or a user task",
        ),
        (
            '<userTask id="work"/>'
            + boundary("work", event_id="b1")
            + boundary("work", event_id="b2")
            + '<endEvent id="e"/>'
            + flows(("start", "work"), ("work", "e"), ("b1", "e"), ("b2", "e")),
            "b2",
            "both catch the escalation code 'escalationCode'",
        ),
        (
            '<userTask id="work"/>'
            + boundary("work", event_id="b1", ref=None)
            + boundary("work", event_id="b2")
            + '<endEvent id="e"/>'
            + flows(("start", "work"), ("work", "e"), ("b1", "e"), ("b2", "e")),
            "b2",
            "catches every escalation",
        ),
        (
            '<userTask id="work"/><endEvent id="e"/>'
            + esp(esp_id="one", task="t1", ref=None)
            + esp(esp_id="two", task="t2", ref=None)
            + flows(("start", "work"), ("work", "e")),
            "twoStart",
            "both catch every escalation",
        ),
    ],
)
def test_bad_escalation_models_are_refused_naming_the_element(
    engine: Engine, body: str, element: str, words: str
) -> None:
    found = problems(engine, simple(body))
    assert any(e == element and words in m for e, m in found), found
    assert engine.repository_service.process_definitions() == []


def test_an_escalation_without_an_id_is_refused(engine: Engine) -> None:
    xml = definitions(simple('<endEvent id="e"/>' + flows(("start", "e")))).replace(
        '<escalation id="other"', "<escalation"
    )
    with pytest.raises(ModelError, match="an escalation must have an id"):
        engine.deploy(xml)


def test_the_audit_timeline_says_what_caught_the_escalation(engine: Engine) -> None:
    body = (
        '<startEvent id="start"/>'
        + throwing_subprocess(throw())
        + "</subProcess>"
        + boundary("subProcess", cancel=False)
        + '<userTask id="taskAfterCatchedEscalation"/><endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "subProcess"),
            ("subProcess", "theEnd"),
            ("escalationBoundaryEvent", "taskAfterCatchedEscalation"),
            ("taskAfterCatchedEscalation", "end2"),
        )
    )
    engine.deploy(definitions(proc("p", body)))
    pi = engine.start_process_instance("p")
    lines = [(e.activity_id, e.what) for e in engine.audit_service.timeline(pi.id)]
    assert (
        "escalationThrowingEvent",
        "escalation escalationCode raised, caught by escalationBoundaryEvent",
    ) in lines


def test_an_escalation_start_event_outside_an_event_subprocess_is_refused(engine: Engine) -> None:
    body = (
        '<startEvent id="start"/><subProcess id="sub"><startEvent id="s">'
        '<escalationEventDefinition escalationRef="escalation"/></startEvent>'
        '<endEvent id="se"/>'
        + flows(("s", "se"))
        + '</subProcess><endEvent id="e"/>'
        + flows(("start", "sub"), ("sub", "e"))
    )
    found = problems(engine, proc("p", body))
    assert any(e == "s" and "only allowed in an event subprocess" in m for e, m in found), found


@pytest.mark.parametrize("cancel", [True, False])
def test_a_boundary_on_a_multi_instance_subprocess_catches_from_its_instances(
    engine: Engine, cancel: bool
) -> None:
    """EscalationEventTest.testInterruptingEscalationBoundaryEventOnMultiInstanceSubprocess and
    testNonInterruptingEscalationBoundaryEventOnMultiInstanceSubprocess: five instances throw;
    interrupting, the first ends them all; non-interrupting, each throw is caught."""
    loop = (
        "<multiInstanceLoopCharacteristics><loopCardinality>5</loopCardinality>"
        "</multiInstanceLoopCharacteristics>"
    )
    body = (
        '<startEvent id="start"/>'
        + throwing_subprocess(throw()).replace(
            '<subProcess id="subProcess">', f'<subProcess id="subProcess">{loop}'
        )
        + "</subProcess>"
        + boundary("subProcess", cancel=cancel)
        + '<userTask id="taskAfterCatchedEscalation"/><endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "subProcess"),
            ("subProcess", "theEnd"),
            ("escalationBoundaryEvent", "taskAfterCatchedEscalation"),
            ("taskAfterCatchedEscalation", "end2"),
        )
    )
    engine.deploy(definitions(proc("escalationProcess", body)))
    pi = engine.start_process_instance("escalationProcess")
    expected = (
        ["taskAfterCatchedEscalation"]
        if cancel
        else ["taskAfterCatchedEscalation"] * 5 + ["taskInSubprocess"] * 5
    )
    assert keys(engine, pi.id) == expected
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_an_interrupting_event_subprocess_of_the_caller_ends_the_called_instance(
    engine: Engine,
) -> None:
    """EscalationEventSubprocessTest.testInterruptingEscalationEventSubprocessWithCallActivity."""
    engine.deploy(
        definitions(
            proc(
                "catchEscalationProcess",
                '<startEvent id="start"/>'
                '<callActivity id="callActivity" calledElement="throwEscalationProcess"/>'
                '<endEvent id="theEnd"/>'
                + esp(interrupting=True)
                + flows(("start", "callActivity"), ("callActivity", "theEnd")),
            ),
            CALLED,
        )
    )
    pi = engine.start_process_instance("catchEscalationProcess")
    assert keys(engine) == ["taskAfterCatchedEscalation"]
    assert [
        p.id for p in engine.history_service.historic_process_instances() if p.state == "ACTIVE"
    ] == [pi.id]
    finish(engine)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_an_escalation_thrown_from_an_event_subprocess_reaches_the_outer_boundary(
    engine: Engine,
) -> None:
    """EscalationEventSubprocessTest.testThrowEscalationEventFromEventSubprocess: a message
    starts the event subprocess, which escalates to the subprocess's boundary event."""
    message_esp = (
        '<subProcess id="eventSubProcess" triggeredByEvent="true">'
        '<startEvent id="messageStart"><messageEventDefinition messageRef="m"/></startEvent>'
        + throw("escalationThrowingEvent")
        + '<endEvent id="espEnd"/>'
        + flows(("messageStart", "escalationThrowingEvent"), ("escalationThrowingEvent", "espEnd"))
        + "</subProcess>"
    )
    body = (
        '<startEvent id="start"/><subProcess id="subProcess"><startEvent id="subStart"/>'
        '<userTask id="taskInSubprocess"/><endEvent id="subEnd"/>'
        + flows(("subStart", "taskInSubprocess"), ("taskInSubprocess", "subEnd"))
        + message_esp
        + "</subProcess>"
        + boundary("subProcess")
        + '<userTask id="taskAfterCatchedEscalation"/><endEvent id="theEnd"/><endEvent id="end2"/>'
        + flows(
            ("start", "subProcess"),
            ("subProcess", "theEnd"),
            ("escalationBoundaryEvent", "taskAfterCatchedEscalation"),
            ("taskAfterCatchedEscalation", "end2"),
        )
    )
    engine.deploy(
        definitions(proc("p", body)).replace(
            "</definitions>", '<message id="m" name="go"/></definitions>'
        )
    )
    pi = engine.start_process_instance("p")
    engine.runtime_service.correlate_message("go")
    assert keys(engine, pi.id) == ["taskAfterCatchedEscalation"]
    assert engine.verify().problems == []
