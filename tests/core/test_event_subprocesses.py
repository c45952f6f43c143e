"""Event subprocesses through the public Engine API: armed when their scope starts; a message,
signal, timer or error starts them; interrupting ones take the scope over, non-interrupting ones
run beside; inside an embedded subprocess they belong to that subprocess.
"""

from __future__ import annotations

from typing import Any

import pytest

from flowledger import BpmnError, ControllableClock, Engine, ModelError
from tests.core.test_jobs import process

DECLARED = (
    '<message id="Change" name="change"/><signal id="Halt" name="halt"/>'
    '<error id="Declined" errorCode="DECLINED"/>'
)


def model(body: str) -> str:
    return process(body).replace("</definitions>", DECLARED + "</definitions>")


def esp(start: str, esp_id: str = "handler", task: str = "handle") -> str:
    """An event subprocess with the given start event and one user task."""
    return (
        f'<subProcess id="{esp_id}" triggeredByEvent="true">{start}'
        f'<userTask id="{task}"/><endEvent id="{esp_id}End"/>'
        f'<sequenceFlow id="{esp_id}1" sourceRef="{esp_id}Start" targetRef="{task}"/>'
        f'<sequenceFlow id="{esp_id}2" sourceRef="{task}" targetRef="{esp_id}End"/>'
        "</subProcess>"
    )


MAIN = (
    '<startEvent id="start"/><userTask id="work"/><endEvent id="end"/>'
    '<sequenceFlow id="m1" sourceRef="start" targetRef="work"/>'
    '<sequenceFlow id="m2" sourceRef="work" targetRef="end"/>'
)


def task_keys(engine: Engine, instance_id: str) -> list[str]:
    return sorted(t.task_definition_key for t in engine.tasks(process_instance_id=instance_id))


def complete_all(engine: Engine, instance_id: str) -> None:
    for task in engine.tasks(process_instance_id=instance_id):
        engine.complete_task(task.id)


def test_a_non_interrupting_timer_cycle_runs_beside_until_the_scope_ends(
    engine: Engine, clock: ControllableClock
) -> None:
    timer = (
        '<startEvent id="handlerStart" isInterrupting="false"><timerEventDefinition>'
        "<timeCycle>R3/PT1H</timeCycle></timerEventDefinition></startEvent>"
    )
    engine.deploy(model(MAIN + esp(timer)))
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.handler_type == "timer-start-event-subprocess"
    for fired in (1, 2):
        clock.advance(hours=1)
        assert engine.run_due_jobs() == 1
        assert task_keys(engine, pi.id) == ["handle"] * fired + ["work"]
    (work,) = engine.tasks(process_instance_id=pi.id, task_definition_key="work")
    engine.complete_task(work.id)
    assert (
        engine.history_service.historic_process_instance(pi.id).state == "ACTIVE"
    )  # two handlers still run
    complete_all(engine, pi.id)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.management_service.jobs() == []
    assert engine.verify().problems == []


def test_an_interrupting_signal_takes_the_process_over(engine: Engine) -> None:
    signal = '<startEvent id="handlerStart"><signalEventDefinition signalRef="Halt"/></startEvent>'
    timer = (
        '<startEvent id="laterStart"><timerEventDefinition><timeDuration>PT1H</timeDuration>'
        "</timerEventDefinition></startEvent>"
    )
    engine.deploy(model(MAIN + esp(signal) + esp(timer, "later", "late")))
    pi = engine.start_process_instance("p")
    assert len(engine.management_service.jobs(process_instance_id=pi.id)) == 1
    engine.runtime_service.signal("halt")
    assert task_keys(engine, pi.id) == ["handle"]
    # the other event subprocess waits no more: this one took the scope over
    assert engine.management_service.jobs(process_instance_id=pi.id) == []
    assert engine.runtime_service.event_subscriptions() == []
    complete_all(engine, pi.id)
    historic = engine.history_service.historic_process_instance(pi.id)
    assert historic.state == "COMPLETED"
    states = {a.activity_id: a.canceled for a in engine.historic_activity_instances(pi.id)}
    assert states["work"] is True and states["handle"] is False
    assert engine.verify().problems == []


def test_an_error_event_subprocess_catches_an_error_of_its_scope(engine: Engine) -> None:
    def decline(execution: Any) -> None:
        raise BpmnError("DECLINED", "card declined")

    engine.register_delegate("decline", decline)
    error = (
        '<startEvent id="handlerStart"><errorEventDefinition errorRef="Declined" '
        'camunda:errorCodeVariable="code" camunda:errorMessageVariable="why"/></startEvent>'
    )
    body = (
        '<startEvent id="start"/><serviceTask id="charge" camunda:delegateExpression="${decline}"/>'
        '<endEvent id="end"/><sequenceFlow id="m1" sourceRef="start" targetRef="charge"/>'
        '<sequenceFlow id="m2" sourceRef="charge" targetRef="end"/>'
    )
    engine.deploy(model(body + esp(error)))
    pi = engine.start_process_instance("p")
    assert task_keys(engine, pi.id) == ["handle"]
    assert engine.runtime_service.get_variables(pi.id) == {
        "code": "DECLINED",
        "why": "card declined",
    }
    complete_all(engine, pi.id)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_an_event_subprocess_inside_a_subprocess_belongs_to_it(engine: Engine) -> None:
    message = (
        '<startEvent id="handlerStart" isInterrupting="false">'
        '<messageEventDefinition messageRef="Change"/></startEvent>'
    )
    body = (
        '<startEvent id="start"/><subProcess id="sub"><startEvent id="subStart"/>'
        '<userTask id="inner"/><endEvent id="subEnd"/>'
        '<sequenceFlow id="s1" sourceRef="subStart" targetRef="inner"/>'
        '<sequenceFlow id="s2" sourceRef="inner" targetRef="subEnd"/>'
        + esp(message)
        + '</subProcess><userTask id="after"/><endEvent id="end"/>'
        '<sequenceFlow id="m1" sourceRef="start" targetRef="sub"/>'
        '<sequenceFlow id="m2" sourceRef="sub" targetRef="after"/>'
        '<sequenceFlow id="m3" sourceRef="after" targetRef="end"/>'
    )
    engine.deploy(model(body))
    pi = engine.start_process_instance("p")
    engine.runtime_service.correlate_message("change")
    assert task_keys(engine, pi.id) == ["handle", "inner"]
    (inner,) = engine.tasks(process_instance_id=pi.id, task_definition_key="inner")
    engine.complete_task(inner.id)
    assert task_keys(engine, pi.id) == ["handle"]  # the subprocess waits for its handler
    (handle,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(handle.id)
    assert task_keys(engine, pi.id) == ["after"]
    assert engine.runtime_service.event_subscriptions() == []  # ended with the subprocess
    assert engine.verify().problems == []


def test_a_non_interrupting_event_subprocess_fires_while_a_join_waits(engine: Engine) -> None:
    message = (
        '<startEvent id="handlerStart" isInterrupting="false">'
        '<messageEventDefinition messageRef="Change"/></startEvent>'
    )
    body = (
        '<startEvent id="start"/><parallelGateway id="fork"/><parallelGateway id="join"/>'
        '<userTask id="a"/><userTask id="b"/><endEvent id="end"/>'
        '<sequenceFlow id="m1" sourceRef="start" targetRef="fork"/>'
        '<sequenceFlow id="m2" sourceRef="fork" targetRef="a"/>'
        '<sequenceFlow id="m3" sourceRef="fork" targetRef="b"/>'
        '<sequenceFlow id="m4" sourceRef="a" targetRef="join"/>'
        '<sequenceFlow id="m5" sourceRef="b" targetRef="join"/>'
        '<sequenceFlow id="m6" sourceRef="join" targetRef="end"/>'
    )
    engine.deploy(model(body + esp(message)))
    pi = engine.start_process_instance("p")
    (a,) = engine.tasks(process_instance_id=pi.id, task_definition_key="a")
    engine.complete_task(a.id)  # a token waits at the join
    engine.runtime_service.correlate_message("change")
    assert task_keys(engine, pi.id) == ["b", "handle"]
    (b,) = engine.tasks(process_instance_id=pi.id, task_definition_key="b")
    engine.complete_task(b.id)
    assert task_keys(engine, pi.id) == ["handle"]
    complete_all(engine, pi.id)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            '<subProcess id="handler" triggeredByEvent="true"><startEvent id="handlerStart"/>'
            "</subProcess>",
            "needs exactly one start event, with a message, signal, timer or error",
        ),
        (
            '<subProcess id="handler" triggeredByEvent="true"><startEvent id="handlerStart" '
            'isInterrupting="false"><errorEventDefinition/></startEvent></subProcess>',
            "an error event subprocess always interrupts",
        ),
        (
            '<startEvent id="other"><errorEventDefinition/></startEvent>',
            "an error start event is only allowed in an event subprocess",
        ),
    ],
)
def test_event_subprocesses_that_cannot_work_are_refused_at_deploy(
    engine: Engine, body: str, problem: str
) -> None:
    with pytest.raises(ModelError, match=problem):
        engine.deploy(model(MAIN + body))
    assert engine.repository_service.process_definitions() == []


def test_a_message_to_all_skips_what_an_earlier_arrival_ended(engine: Engine) -> None:
    # Found by the state machine: the message reaches both the event subprocess's start and a
    # catch event of the same instance; the interrupting start ends the catch event first.
    message = (
        '<startEvent id="handlerStart"><messageEventDefinition messageRef="Change"/></startEvent>'
    )
    body = (
        '<startEvent id="start"/><intermediateCatchEvent id="wait">'
        '<messageEventDefinition messageRef="Change"/></intermediateCatchEvent><endEvent id="end"/>'
        '<sequenceFlow id="m1" sourceRef="start" targetRef="wait"/>'
        '<sequenceFlow id="m2" sourceRef="wait" targetRef="end"/>'
    )
    engine.deploy(model(body + esp(message)))
    pi = engine.start_process_instance("p")
    assert len(engine.runtime_service.event_subscriptions(process_instance_id=pi.id)) == 2
    results = engine.runtime_service.correlate_message("change", all=True)
    assert len(results) == 1
    assert task_keys(engine, pi.id) == ["handle"]
    assert engine.verify().problems == []
