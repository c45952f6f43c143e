"""Deploy what Camunda deploys (4): a message throw or end event needs no `messageRef`, and one
naming no declared <message> deploys too (Camunda's BpmnParse reads none on a throwing event).
With a camunda:class, expression, delegateExpression, external type or connector it works as a
service task; without one it passes through (a throw event then is Camunda's
`intermediateNoneThrowEvent`, in the history as well).
"""

from __future__ import annotations

from typing import Any

import pytest

from flowledger import Engine
from tests.core.test_jobs import chain, process

REFS = ["", ' messageRef="Undeclared"']


@pytest.mark.parametrize("ref", REFS)
def test_a_throw_event_with_a_delegate_sends_as_a_service_task(engine: Engine, ref: str) -> None:
    sent: list[Any] = []
    engine.register_delegate("send", lambda execution: sent.append(execution.get_variable("n")))
    engine.deploy(
        process(
            chain(
                f'<intermediateThrowEvent id="notify"><messageEventDefinition{ref} '
                'camunda:delegateExpression="${send}"/></intermediateThrowEvent>',
                '<userTask id="after"/>',
            )
        )
    )
    pi = engine.start_process_instance("p", variables={"n": 7})
    assert sent == [7]
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["after"]
    types = {a.activity_id: a.activity_type for a in engine.historic_activity_instances(pi.id)}
    assert types["notify"] == "intermediateMessageThrowEvent"


@pytest.mark.parametrize("ref", REFS)
def test_an_end_event_with_an_external_topic_waits_for_its_worker(engine: Engine, ref: str) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/><sequenceFlow id="f" sourceRef="start" targetRef="done"/>'
            f'<endEvent id="done"><messageEventDefinition{ref} camunda:type="external" '
            'camunda:topic="mail"/></endEvent>'
        )
    )
    pi = engine.start_process_instance("p")
    (locked,) = engine.external_task_service.fetch_and_lock("worker", {"mail": 1000})
    assert locked.activity_id == "done"
    engine.external_task_service.complete(locked.id, "worker")
    historic = engine.history_service.historic_process_instance(pi.id)
    assert (historic.state, historic.end_activity_id) == ("COMPLETED", "done")
    types = {a.activity_id: a.activity_type for a in engine.historic_activity_instances(pi.id)}
    assert types["done"] == "messageEndEvent"


@pytest.mark.parametrize("ref", REFS)
def test_without_an_implementation_they_pass_through(engine: Engine, ref: str) -> None:
    engine.deploy(
        process(
            chain(
                f'<intermediateThrowEvent id="quiet"><messageEventDefinition{ref}/>'
                "</intermediateThrowEvent>",
            ).replace(
                '<endEvent id="end"/>',
                f'<endEvent id="end"><messageEventDefinition{ref}/></endEvent>',
            )
        )
    )
    pi = engine.start_process_instance("p")
    historic = engine.history_service.historic_process_instance(pi.id)
    assert (historic.state, historic.end_activity_id) == ("COMPLETED", "end")
    types = {a.activity_id: a.activity_type for a in engine.historic_activity_instances(pi.id)}
    assert types["quiet"] == "intermediateNoneThrowEvent"
    assert engine.runtime_service.event_subscriptions() == []
