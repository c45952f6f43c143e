"""Call activities through the public Engine API: the called instance is a stream of its own
that records its caller; variables go in and out by `camunda:in` / `camunda:out`; an error the
called process does not catch is caught by the caller; cancelling the caller ends the called
instance; the called definition is found by key and binding.
"""

from __future__ import annotations

import pytest

from flowledger import Engine, ProcessEngineError
from tests.core.test_jobs import chain, process

CALLED = process(chain('<userTask id="inner"/>'), "called")
INSTANT = process(
    chain(
        '<scriptTask id="calc" scriptFormat="juel" camunda:resultVariable="doubled">'
        "<script>${n * 2}</script></scriptTask>"
    ),
    "instant",
)


def call(attributes: str = "", mappings: str = "", called: str = "called") -> str:
    extension = f"<extensionElements>{mappings}</extensionElements>" if mappings else ""
    return process(
        chain(
            f'<callActivity id="call" calledElement="{called}" {attributes}>{extension}'
            "</callActivity>",
            '<userTask id="after"/>',
        ),
        "caller",
    )


def called_instance(engine: Engine, caller_id: str) -> str:
    (called,) = [
        i.id for i in engine.history_service.historic_process_instances() if i.id != caller_id
    ]
    return called


def task_keys(engine: Engine, instance_id: str) -> list[str]:
    return sorted(t.task_definition_key for t in engine.tasks(process_instance_id=instance_id))


def test_variables_and_business_key_go_in_and_out(engine: Engine) -> None:
    engine.deploy(CALLED)
    engine.deploy(
        call(
            mappings='<camunda:in variables="all"/><camunda:in businessKey="${orderId}"/>'
            '<camunda:out source="verdict" target="result"/>'
        )
    )
    pi = engine.start_process_instance("caller", {"orderId": "o-1", "amount": 3})
    callee = called_instance(engine, pi.id)
    assert engine.runtime_service.get_variables(callee) == {"orderId": "o-1", "amount": 3}
    assert engine.history_service.historic_process_instance(callee).business_key == "o-1"
    (inner,) = engine.tasks(process_instance_id=callee)
    engine.complete_task(inner.id, {"verdict": "ok"})
    assert task_keys(engine, pi.id) == ["after"]
    assert engine.runtime_service.get_variables(pi.id) == {
        "orderId": "o-1",
        "amount": 3,
        "result": "ok",
    }
    history = {a.activity_id: a for a in engine.historic_activity_instances(pi.id)}
    assert history["call"].called_process_instance_id == callee
    assert engine.verify().problems == []


def test_a_called_process_without_wait_states_returns_at_once(engine: Engine) -> None:
    engine.deploy(INSTANT)
    engine.deploy(
        call(
            mappings='<camunda:in source="n" target="n"/><camunda:out variables="all"/>',
            called="instant",
        )
    )
    pi = engine.start_process_instance("caller", {"n": 21})
    assert task_keys(engine, pi.id) == ["after"]
    assert engine.runtime_service.get_variables(pi.id) == {"n": 21, "doubled": 42}
    assert engine.verify().problems == []


def test_an_error_the_called_process_does_not_catch_is_caught_by_the_caller(
    engine: Engine,
) -> None:
    engine.deploy(
        process(
            '<startEvent id="s"/><endEvent id="fail"><errorEventDefinition errorRef="E1"/>'
            '</endEvent><sequenceFlow id="a" sourceRef="s" targetRef="fail"/>',
            "failing",
        ).replace("</definitions>", '<error id="E1" errorCode="NO_STOCK"/></definitions>')
    )
    engine.deploy(
        call(called="failing").replace(
            '<userTask id="after"/>',
            '<userTask id="after"/><boundaryEvent id="caught" attachedToRef="call">'
            '<errorEventDefinition/></boundaryEvent><userTask id="handle"/>'
            '<sequenceFlow id="h" sourceRef="caught" targetRef="handle"/>',
        )
    )
    pi = engine.start_process_instance("caller")
    assert task_keys(engine, pi.id) == ["handle"]
    callee = called_instance(engine, pi.id)
    assert engine.history_service.historic_process_instance(callee).state == "INTERNALLY_TERMINATED"
    assert engine.verify().problems == []


def test_cancelling_the_caller_ends_the_called_instance(engine: Engine) -> None:
    engine.deploy(CALLED)
    engine.deploy(call())
    pi = engine.start_process_instance("caller")
    callee = called_instance(engine, pi.id)
    engine.runtime_service.delete_process_instance(pi.id)
    assert engine.history_service.historic_process_instance(callee).state == "EXTERNALLY_TERMINATED"
    assert engine.tasks() == []
    assert engine.verify().problems == []


def test_the_binding_chooses_the_called_version(engine: Engine) -> None:
    engine.deploy(CALLED)
    engine.deploy(CALLED.replace('<userTask id="inner"/>', '<userTask id="inner" name="v2"/>'))
    engine.deploy(call('camunda:calledElementBinding="version" camunda:calledElementVersion="1"'))
    pi = engine.start_process_instance("caller")
    (inner,) = engine.tasks(process_instance_id=called_instance(engine, pi.id))
    assert inner.name is None  # version 1's task, not the latest's


def test_a_missing_called_process_is_a_clear_error_or_an_incident_when_async(
    engine: Engine,
) -> None:
    engine.deploy(call(called="nowhere"))
    with pytest.raises(ProcessEngineError, match="calls the process 'nowhere', but no process"):
        engine.start_process_instance("caller")
    assert engine.history_service.historic_process_instances() == []
    engine.deploy(call('camunda:asyncBefore="true"', called="nowhere"))
    pi = engine.start_process_instance("caller")
    for _ in range(3):
        engine.run_due_jobs()
    (incident,) = engine.runtime_service.incidents(process_instance_id=pi.id)
    assert "nowhere" in (incident.incident_message or "")


def test_a_multi_instance_call_activity_calls_once_per_item(engine: Engine) -> None:
    engine.deploy(INSTANT)
    engine.deploy(
        call(
            mappings='<camunda:in source="item" target="n"/>'
            '<camunda:out source="doubled" target="last"/>',
            called="instant",
        ).replace(
            "</callActivity>",
            '<multiInstanceLoopCharacteristics camunda:collection="items" '
            'camunda:elementVariable="item"/></callActivity>',
        )
    )
    pi = engine.start_process_instance("caller", {"items": [1, 2, 3]})
    assert task_keys(engine, pi.id) == ["after"]
    called = [i for i in engine.history_service.historic_process_instances() if i.id != pi.id]
    assert len(called) == 3 and {i.state for i in called} == {"COMPLETED"}
    assert engine.runtime_service.get_variables(pi.id)["last"] in (2, 4, 6)
    assert engine.verify().problems == []
