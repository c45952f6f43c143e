"""Messages through the public Engine API: intermediate catch, receive task and boundary events
wait in ACT_RU_EVENT_SUBSCR; correlation by name, business key, process instance and correlation
keys reaches exactly one (or, asked for, every) waiting catch event; message throw and end events
work as service tasks.
"""

from __future__ import annotations

from typing import Any

import pytest

from flowledger import Engine, MismatchingMessageCorrelation, ModelError, Rejected
from tests.core.test_jobs import chain, process

MESSAGES = (
    '<message id="Payment" name="paymentReceived"/>'
    '<message id="Cancel" name="orderCanceled"/>'
    '<message id="Dynamic" name="order-${orderId}"/>'
    f'<message id="Long" name="{"m" * 256}"/>'
)


def model(body: str, process_id: str = "p") -> str:
    return process(body, process_id).replace("</definitions>", MESSAGES + "</definitions>")


CATCH = model(
    chain(
        '<intermediateCatchEvent id="wait"><messageEventDefinition messageRef="Payment"/>'
        "</intermediateCatchEvent>",
        '<userTask id="ship"/>',
    )
)


def task_keys(engine: Engine, instance_id: str) -> list[str]:
    return sorted(t.task_definition_key for t in engine.tasks(process_instance_id=instance_id))


def test_a_catch_event_waits_for_its_message_and_the_message_moves_it_on(engine: Engine) -> None:
    engine.deploy(CATCH)
    pi = engine.start_process_instance("p", business_key="order-1")
    (sub,) = engine.runtime_service.event_subscriptions(process_instance_id=pi.id)
    assert (sub.event_type, sub.event_name) == ("message", "paymentReceived")
    assert sub.activity_id == "wait"
    assert sub.execution_id == pi.id

    (result,) = engine.runtime_service.correlate_message(
        "paymentReceived", business_key="order-1", variables={"amount": 42}
    )
    assert (result.result_type, result.process_instance_id) == ("Execution", pi.id)
    assert result.variables["amount"] == 42
    assert task_keys(engine, pi.id) == ["ship"]
    assert engine.runtime_service.event_subscriptions() == []
    assert engine.runtime_service.get_variables(pi.id)["amount"] == 42
    events = [e.type for e in engine.events(pi.id)]
    assert events.index("EventSubscriptionCreated") < events.index("MessageCorrelated")
    assert engine.verify().problems == []


def test_no_match_and_more_than_one_match_are_refused_and_change_nothing(engine: Engine) -> None:
    engine.deploy(CATCH)
    first = engine.start_process_instance("p", business_key="a")
    second = engine.start_process_instance("p", business_key="b")
    with pytest.raises(MismatchingMessageCorrelation, match="No process definition or execution"):
        engine.runtime_service.correlate_message("paymentReceived", business_key="c")
    with pytest.raises(MismatchingMessageCorrelation, match="2 executions match"):
        engine.runtime_service.correlate_message("paymentReceived")
    with pytest.raises(MismatchingMessageCorrelation):
        engine.runtime_service.correlate_message("noSuchMessage")
    assert len(engine.runtime_service.event_subscriptions(event_name="paymentReceived")) == 2
    results = engine.runtime_service.correlate_message("paymentReceived", all=True)
    assert sorted(r.process_instance_id for r in results) == sorted([first.id, second.id])
    assert task_keys(engine, first.id) == task_keys(engine, second.id) == ["ship"]


def test_correlation_keys_match_process_variables_and_local_keys_the_waiting_execution(
    engine: Engine,
) -> None:
    engine.deploy(CATCH)
    a = engine.start_process_instance("p", variables={"customer": "ada", "tier": 1})
    b = engine.start_process_instance("p", variables={"customer": "bob", "tier": 1})
    (result,) = engine.runtime_service.correlate_message(
        "paymentReceived", correlation_keys={"customer": "bob", "tier": 1}
    )
    assert result.process_instance_id == b.id
    assert task_keys(engine, a.id) == []
    with pytest.raises(MismatchingMessageCorrelation):
        engine.runtime_service.correlate_message(
            "paymentReceived", correlation_keys={"customer": "carl"}
        )
    with pytest.raises(MismatchingMessageCorrelation):
        engine.runtime_service.correlate_message(
            "paymentReceived", local_correlation_keys={"customer": "carl"}
        )
    # the catch event waits on the instance's own execution: its variables are local there
    (local,) = engine.runtime_service.correlate_message(
        "paymentReceived", local_correlation_keys={"customer": "ada"}
    )
    assert local.process_instance_id == a.id
    assert task_keys(engine, a.id) == ["ship"]


def test_a_message_name_expression_is_resolved_when_the_event_subscribes(engine: Engine) -> None:
    engine.deploy(
        model(
            chain(
                '<intermediateCatchEvent id="wait"><messageEventDefinition messageRef="Dynamic"/>'
                "</intermediateCatchEvent>",
                '<userTask id="ship"/>',
            )
        )
    )
    pi = engine.start_process_instance("p", variables={"orderId": 7})
    assert [s.event_name for s in engine.runtime_service.event_subscriptions()] == ["order-7"]
    engine.runtime_service.correlate_message("order-7")
    assert task_keys(engine, pi.id) == ["ship"]


def test_a_receive_task_with_a_message_waits_for_it(engine: Engine) -> None:
    engine.deploy(
        model(chain('<receiveTask id="receive" messageRef="Payment"/>', '<userTask id="ship"/>'))
    )
    pi = engine.start_process_instance("p")
    (sub,) = engine.runtime_service.event_subscriptions()
    assert sub.activity_id == "receive"
    engine.runtime_service.message_event_received(
        "paymentReceived", sub.execution_id, {"paid": True}
    )
    assert task_keys(engine, pi.id) == ["ship"]
    assert engine.runtime_service.get_variables(pi.id)["paid"] is True
    with pytest.raises(Rejected, match="does not have a subscription"):
        engine.runtime_service.message_event_received("paymentReceived", pi.id)


BOUNDARY = """
<startEvent id="start"/>
<userTask id="task"/>
<boundaryEvent id="onCancel" attachedToRef="task" cancelActivity="{cancel}">
  <messageEventDefinition messageRef="Cancel"/></boundaryEvent>
<userTask id="taskAfterMessage"/>
<userTask id="taskAfterTask"/>
<endEvent id="end1"/><endEvent id="end2"/>
<sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
<sequenceFlow id="f2" sourceRef="task" targetRef="taskAfterTask"/>
<sequenceFlow id="f3" sourceRef="onCancel" targetRef="taskAfterMessage"/>
<sequenceFlow id="f4" sourceRef="taskAfterTask" targetRef="end1"/>
<sequenceFlow id="f5" sourceRef="taskAfterMessage" targetRef="end2"/>
"""


def test_an_interrupting_message_boundary_event_cancels_its_activity(engine: Engine) -> None:
    engine.deploy(model(BOUNDARY.format(cancel="true")))
    pi = engine.start_process_instance("p")
    (sub,) = engine.runtime_service.event_subscriptions(process_instance_id=pi.id)
    assert sub.activity_id == "onCancel"
    engine.runtime_service.correlate_message("orderCanceled")
    assert task_keys(engine, pi.id) == ["taskAfterMessage"]
    assert engine.runtime_service.event_subscriptions() == []
    (task,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(task.id)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_completing_the_activity_removes_its_boundary_subscription(engine: Engine) -> None:
    engine.deploy(model(BOUNDARY.format(cancel="true")))
    pi = engine.start_process_instance("p")
    (task,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(task.id)
    assert task_keys(engine, pi.id) == ["taskAfterTask"]
    assert engine.runtime_service.event_subscriptions() == []
    with pytest.raises(MismatchingMessageCorrelation):
        engine.runtime_service.correlate_message("orderCanceled")


def test_a_non_interrupting_message_boundary_event_fires_beside_its_activity(
    engine: Engine,
) -> None:
    engine.deploy(model(BOUNDARY.format(cancel="false")))
    pi = engine.start_process_instance("p")
    engine.runtime_service.correlate_message("orderCanceled")
    engine.runtime_service.correlate_message("orderCanceled")  # still subscribed: fires again
    assert task_keys(engine, pi.id) == ["task", "taskAfterMessage", "taskAfterMessage"]
    (task,) = engine.tasks(process_instance_id=pi.id, task_definition_key="task")
    engine.complete_task(task.id)
    assert engine.runtime_service.event_subscriptions() == []
    for task in engine.tasks(process_instance_id=pi.id):
        engine.complete_task(task.id)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_deleting_the_instance_removes_its_subscriptions(engine: Engine) -> None:
    engine.deploy(CATCH)
    pi = engine.start_process_instance("p")
    engine.runtime_service.delete_process_instance(pi.id)
    assert engine.runtime_service.event_subscriptions() == []


def test_message_throw_and_end_events_work_as_service_tasks(engine: Engine) -> None:
    sent: list[Any] = []
    engine.register_delegate("send", lambda execution: sent.append(execution.get_variable("n")))
    engine.deploy(
        model(
            '<startEvent id="start"/>'
            '<intermediateThrowEvent id="notify"><messageEventDefinition messageRef="Payment" '
            'camunda:class="send"/></intermediateThrowEvent>'
            '<intermediateThrowEvent id="quiet"><messageEventDefinition messageRef="Payment"/>'
            "</intermediateThrowEvent>"
            '<endEvent id="done"><messageEventDefinition messageRef="Payment" '
            'camunda:type="external" camunda:topic="mail"/></endEvent>'
            '<sequenceFlow id="a" sourceRef="start" targetRef="notify"/>'
            '<sequenceFlow id="b" sourceRef="notify" targetRef="quiet"/>'
            '<sequenceFlow id="c" sourceRef="quiet" targetRef="done"/>'
        )
    )
    pi = engine.start_process_instance("p", variables={"n": 3})
    assert sent == [3]
    (locked,) = engine.external_task_service.fetch_and_lock("worker", {"mail": 1000})
    assert locked.activity_id == "done"
    engine.external_task_service.complete(locked.id, "worker")
    historic = engine.history_service.historic_process_instance(pi.id)
    assert (historic.state, historic.end_activity_id) == ("COMPLETED", "done")
    types = {a.activity_id: a.activity_type for a in engine.historic_activity_instances(pi.id)}
    assert types["notify"] == "intermediateMessageThrowEvent"
    assert types["done"] == "messageEndEvent"


@pytest.mark.parametrize(
    ("definition", "problem"),
    [
        ('<messageEventDefinition messageRef="Nope"/>', "messageRef 'Nope' names no <message>"),
        ("<messageEventDefinition/>", "needs a messageRef"),
        ('<messageEventDefinition messageRef="Long"/>', "has 256 characters; at most 255"),
    ],
)
def test_a_message_that_is_not_declared_is_refused_at_deploy(
    engine: Engine, definition: str, problem: str
) -> None:
    with pytest.raises(ModelError, match=problem) as refused:
        engine.deploy(
            model(chain(f'<intermediateCatchEvent id="wait">{definition}</intermediateCatchEvent>'))
        )
    assert refused.value.problems[0].element_id == "wait"
    assert engine.repository_service.process_definitions() == []


STARTS = model(
    '<startEvent id="byPayment"><messageEventDefinition messageRef="Payment"/></startEvent>'
    '<startEvent id="byCancel"><messageEventDefinition messageRef="Cancel"/></startEvent>'
    '<userTask id="handle"/><endEvent id="end"/>'
    '<sequenceFlow id="a" sourceRef="byPayment" targetRef="handle"/>'
    '<sequenceFlow id="b" sourceRef="byCancel" targetRef="handle"/>'
    '<sequenceFlow id="c" sourceRef="handle" targetRef="end"/>',
    "orders",
)


def test_a_message_start_event_starts_an_instance_with_the_messages_key_and_variables(
    engine: Engine,
) -> None:
    deployment = engine.deploy(STARTS)
    definition_id = deployment.process_definitions[0].id
    starts = engine.runtime_service.event_subscriptions(event_type="message")
    assert sorted((s.event_name, s.activity_id) for s in starts) == [
        ("orderCanceled", "byCancel"),
        ("paymentReceived", "byPayment"),
    ]
    assert {(s.execution_id, s.process_instance_id) for s in starts} == {(None, None)}
    (result,) = engine.runtime_service.correlate_message(
        "orderCanceled", business_key="order-7", variables={"reason": "late"}
    )
    assert (result.result_type, result.execution_id) == ("ProcessDefinition", None)
    assert result.definition_id == definition_id
    started = engine.history_service.historic_process_instance(result.process_instance_id)
    assert (started.business_key, started.start_activity_id) == ("order-7", "byCancel")
    assert engine.runtime_service.get_variables(result.process_instance_id) == {"reason": "late"}
    assert task_keys(engine, result.process_instance_id) == ["handle"]
    with pytest.raises(Rejected, match="no none start event: it starts by one of its messages"):
        engine.start_process_instance("orders")
    # correlation keys name variables a new instance does not have: no start
    with pytest.raises(MismatchingMessageCorrelation):
        engine.runtime_service.correlate_message(
            "orderCanceled", correlation_keys={"reason": "late"}
        )
    assert engine.verify().problems == []


def test_a_message_reaching_a_start_and_a_waiting_catch_is_ambiguous_unless_all(
    engine: Engine,
) -> None:
    engine.deploy(STARTS)
    engine.deploy(CATCH)
    waiting = engine.start_process_instance("p")
    with pytest.raises(MismatchingMessageCorrelation, match="2 executions match"):
        engine.runtime_service.correlate_message("paymentReceived")
    results = engine.runtime_service.correlate_message("paymentReceived", all=True)
    assert sorted(r.result_type for r in results) == ["Execution", "ProcessDefinition"]
    assert task_keys(engine, waiting.id) == ["ship"]


def test_a_new_version_takes_over_the_message_and_deleting_it_gives_it_back(
    engine: Engine,
) -> None:
    first = engine.deploy(STARTS)
    second = engine.deploy(STARTS.replace('id="handle"', 'id="handle" name="v2"'))
    starts = engine.runtime_service.event_subscriptions(event_name="paymentReceived")
    assert len(starts) == 1
    (result,) = engine.runtime_service.correlate_message("paymentReceived")
    assert result.definition_id == second.process_definitions[0].id
    engine.repository_service.delete_deployment(second.id, cascade=True)
    # Camunda: the version before the deleted latest one starts on its messages again
    (back,) = engine.runtime_service.event_subscriptions(event_name="paymentReceived")
    (result,) = engine.runtime_service.correlate_message("paymentReceived")
    assert result.definition_id == first.process_definitions[0].id
    engine.repository_service.delete_deployment(first.id, cascade=True)
    assert engine.runtime_service.event_subscriptions(event_name="paymentReceived") == []
    assert back.id not in {s.id for s in engine.runtime_service.event_subscriptions()}
    assert engine.verify().problems == []


def test_a_single_message_start_is_the_initial_start_of_its_process(engine: Engine) -> None:
    engine.deploy(
        model(
            '<startEvent id="s"><messageEventDefinition messageRef="Payment"/></startEvent>'
            '<userTask id="t"/><sequenceFlow id="a" sourceRef="s" targetRef="t"/>',
            "single",
        )
    )
    pi = engine.start_process_instance("single")
    assert engine.history_service.historic_process_instance(pi.id).start_activity_id == "s"


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            '<startEvent id="a"><messageEventDefinition messageRef="Payment"/></startEvent>'
            '<startEvent id="b"><messageEventDefinition messageRef="Payment"/></startEvent>',
            "wait for the same message 'paymentReceived'",
        ),
        (
            '<startEvent id="a"><messageEventDefinition messageRef="Dynamic"/></startEvent>',
            "must have a literal name",
        ),
        (
            '<startEvent id="s"/><subProcess id="sub"><startEvent id="inner">'
            '<messageEventDefinition messageRef="Payment"/></startEvent></subProcess>'
            '<sequenceFlow id="a" sourceRef="s" targetRef="sub"/>',
            "in an embedded subprocess is not allowed",
        ),
    ],
)
def test_message_starts_that_cannot_work_are_refused_at_deploy(
    engine: Engine, body: str, problem: str
) -> None:
    with pytest.raises(ModelError, match=problem):
        engine.deploy(model(body))
    assert engine.repository_service.process_definitions() == []


def test_two_processes_cannot_start_on_the_same_message(engine: Engine) -> None:
    engine.deploy(STARTS)
    with pytest.raises(Rejected, match="already is a message event subscription"):
        engine.deploy(STARTS.replace('id="orders"', 'id="otherOrders"'))
    assert [d.key for d in engine.repository_service.process_definitions()] == ["orders"]
