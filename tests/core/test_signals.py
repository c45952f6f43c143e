"""Signals through the public Engine API: catch and boundary events wait for a signal; a signal
thrown by an event or by `Engine.signal` reaches every waiting subscription (its own instance's
too) and starts an instance at every signal start event of its name.
"""

from __future__ import annotations

import pytest

from flowledger import Engine, ModelError, ProcessEngineError, Rejected
from tests.core.test_jobs import chain, process

SIGNALS = '<signal id="Alert" name="alert"/><signal id="Region" name="alert-${region}"/>'


def model(body: str, process_id: str = "p") -> str:
    return process(body, process_id).replace("</definitions>", SIGNALS + "</definitions>")


CATCH = model(
    chain(
        '<intermediateCatchEvent id="wait"><signalEventDefinition signalRef="Alert"/>'
        "</intermediateCatchEvent>",
        '<userTask id="after"/>',
    ),
    "catcher",
)
THROW = model(
    chain(
        '<intermediateThrowEvent id="raise"><signalEventDefinition signalRef="Alert"/>'
        "</intermediateThrowEvent>",
        '<userTask id="raised"/>',
    ),
    "thrower",
)


def task_keys(engine: Engine, instance_id: str) -> list[str]:
    return sorted(t.task_definition_key for t in engine.tasks(process_instance_id=instance_id))


def test_a_thrown_signal_reaches_every_waiting_instance(engine: Engine) -> None:
    engine.deploy(CATCH)
    engine.deploy(THROW)
    catchers = [engine.start_process_instance("catcher").id for _ in range(3)]
    subscriptions = engine.runtime_service.event_subscriptions(event_type="signal")
    assert sorted(s.process_instance_id for s in subscriptions) == sorted(catchers)
    thrower = engine.start_process_instance("thrower")
    assert task_keys(engine, thrower.id) == ["raised"]
    for catcher in catchers:
        assert task_keys(engine, catcher) == ["after"]
        received = [e.type for e in engine.events(catcher)]
        assert "SignalReceived" in received
    assert "SignalThrown" in [e.type for e in engine.events(thrower.id)]
    assert engine.runtime_service.event_subscriptions() == []
    assert engine.verify().problems == []


def test_engine_signal_broadcasts_with_variables_and_no_receiver_is_no_error(
    engine: Engine,
) -> None:
    engine.runtime_service.signal("alert")  # nobody waits: nothing happens
    engine.deploy(CATCH)
    pi = engine.start_process_instance("catcher")
    engine.runtime_service.signal("alert", {"level": 3})
    assert task_keys(engine, pi.id) == ["after"]
    assert engine.runtime_service.get_variables(pi.id) == {"level": 3}


def test_a_signal_to_one_execution_reaches_only_its_subscription(engine: Engine) -> None:
    engine.deploy(CATCH)
    first = engine.start_process_instance("catcher")
    second = engine.start_process_instance("catcher")
    (sub,) = engine.runtime_service.event_subscriptions(process_instance_id=first.id)
    engine.runtime_service.signal("alert", execution_id=sub.execution_id)
    assert task_keys(engine, first.id) == ["after"]
    assert task_keys(engine, second.id) == []
    with pytest.raises(Rejected, match="does not have a subscription to a signal event"):
        engine.runtime_service.signal("other", execution_id=second.id)


def test_signal_boundary_events_interrupt_or_fire_beside(engine: Engine) -> None:
    body = (
        '<startEvent id="s"/><userTask id="work"/>'
        '<boundaryEvent id="stop" attachedToRef="work" cancelActivity="{cancel}">'
        '<signalEventDefinition signalRef="Alert"/></boundaryEvent>'
        '<userTask id="handle"/><endEvent id="e1"/><endEvent id="e2"/>'
        '<sequenceFlow id="a" sourceRef="s" targetRef="work"/>'
        '<sequenceFlow id="b" sourceRef="work" targetRef="e1"/>'
        '<sequenceFlow id="c" sourceRef="stop" targetRef="handle"/>'
        '<sequenceFlow id="d" sourceRef="handle" targetRef="e2"/>'
    )
    engine.deploy(model(body.format(cancel="true"), "interrupted"))
    engine.deploy(model(body.format(cancel="false"), "beside"))
    interrupted = engine.start_process_instance("interrupted")
    beside = engine.start_process_instance("beside")
    engine.runtime_service.signal("alert")
    assert task_keys(engine, interrupted.id) == ["handle"]
    assert task_keys(engine, beside.id) == ["handle", "work"]
    engine.runtime_service.signal("alert")  # the non-interrupting one still waits
    assert task_keys(engine, beside.id) == ["handle", "handle", "work"]
    assert engine.verify().problems == []


def test_a_signal_start_event_starts_an_instance_of_every_definition_waiting(
    engine: Engine,
) -> None:
    for key in ("first", "second"):
        engine.deploy(
            model(
                '<startEvent id="onAlert"><signalEventDefinition signalRef="Alert"/></startEvent>'
                '<userTask id="respond"/><sequenceFlow id="a" sourceRef="onAlert" '
                'targetRef="respond"/>',
                key,
            )
        )
    engine.deploy(THROW)
    thrower = engine.start_process_instance("thrower")
    started = [i for i in engine.history_service.historic_process_instances() if i.id != thrower.id]
    assert sorted(i.process_definition_key for i in started) == ["first", "second"]
    assert {i.start_activity_id for i in started} == {"onAlert"}
    assert engine.verify().problems == []


def test_a_signal_end_event_and_an_expression_name(engine: Engine) -> None:
    engine.deploy(
        model(
            chain(
                '<intermediateCatchEvent id="wait"><signalEventDefinition signalRef="Region"/>'
                "</intermediateCatchEvent>",
                '<userTask id="after"/>',
            ),
            "regional",
        )
    )
    engine.deploy(
        model(
            '<startEvent id="s"/><endEvent id="done"><signalEventDefinition signalRef="Region"/>'
            '</endEvent><sequenceFlow id="a" sourceRef="s" targetRef="done"/>',
            "announcer",
        )
    )
    north = engine.start_process_instance("regional", {"region": "north"})
    south = engine.start_process_instance("regional", {"region": "south"})
    announcer = engine.start_process_instance("announcer", {"region": "north"})
    assert engine.history_service.historic_process_instance(announcer.id).end_activity_id == "done"
    assert task_keys(engine, north.id) == ["after"]
    assert task_keys(engine, south.id) == []


def test_signals_that_throw_each_other_forever_are_stopped(engine: Engine) -> None:
    engine.deploy(
        model(
            '<startEvent id="onAlert"><signalEventDefinition signalRef="Alert"/></startEvent>'
            '<endEvent id="again"><signalEventDefinition signalRef="Alert"/></endEvent>'
            '<sequenceFlow id="a" sourceRef="onAlert" targetRef="again"/>',
            "echo",
        )
    )
    with pytest.raises(ProcessEngineError, match="form a loop"):
        engine.runtime_service.signal("alert")
    assert engine.history_service.historic_process_instances() == []


def test_a_signal_that_is_not_declared_is_refused_at_deploy(engine: Engine) -> None:
    with pytest.raises(ModelError, match="signalRef 'Nope' names no <signal>"):
        engine.deploy(
            model(
                chain(
                    '<intermediateCatchEvent id="wait"><signalEventDefinition signalRef="Nope"/>'
                    "</intermediateCatchEvent>"
                )
            )
        )
