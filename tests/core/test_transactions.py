"""Transaction subprocesses through the public Engine API, Camunda 7's behaviour
(TransactionSubProcessTest): a cancel end event compensates everything completed inside the
transaction, newest first, then the transaction is cancelled and left by its cancel boundary
event; a transaction that ends normally completes as a subprocess.
"""

from __future__ import annotations

import pytest

from flowledger import Engine, ModelError
from tests.core.test_compensation import (
    compensable,
    complete,
    flows,
    state_of,
    task_keys,
    types_of,
)
from tests.core.test_jobs import process

TRANSACTION = (
    '<startEvent id="start"/>'
    '<transaction id="tx"><startEvent id="txStart"/>'
    + compensable("bookHotel", "undoHotel")
    + compensable("bookFlight", "undoFlight")
    + '<exclusiveGateway id="decide" default="ok"/>'
    '<endEvent id="txEnd"/>'
    '<endEvent id="cancelEnd"><cancelEventDefinition/></endEvent>'
    + flows(("txStart", "bookHotel"), ("bookHotel", "bookFlight"), ("bookFlight", "decide"))
    + '<sequenceFlow id="ok" sourceRef="decide" targetRef="txEnd"/>'
    '<sequenceFlow id="cancel" sourceRef="decide" targetRef="cancelEnd">'
    "<conditionExpression>${cancel}</conditionExpression></sequenceFlow>"
    "</transaction>"
    '<boundaryEvent id="cancelled" attachedToRef="tx"><cancelEventDefinition/></boundaryEvent>'
    '<userTask id="afterCancel"/><userTask id="afterSuccess"/>'
    '<endEvent id="end"/><endEvent id="endCancelled"/>'
    + flows(
        ("start", "tx"),
        ("tx", "afterSuccess"),
        ("afterSuccess", "end"),
        ("cancelled", "afterCancel"),
        ("afterCancel", "endCancelled"),
    )
)


def test_a_transaction_cancelled_from_inside_compensates_then_leaves_by_its_boundary(
    engine: Engine,
) -> None:
    engine.deploy(process(TRANSACTION))
    pi = engine.start_process_instance("p", {"cancel": True})
    complete(engine, pi.id, "bookHotel")
    complete(engine, pi.id, "bookFlight")
    # compensation first, newest first, while the transaction still runs
    handlers = sorted(engine.tasks(process_instance_id=pi.id), key=lambda t: t.id)
    assert [t.task_definition_key for t in handlers] == ["undoFlight", "undoHotel"]
    open_ids = {
        a.activity_id for a in engine.historic_activity_instances(pi.id) if a.end_time is None
    }
    assert {"tx", "cancelEnd"} <= open_ids
    complete(engine, pi.id, "undoFlight")
    assert task_keys(engine, pi.id) == ["undoHotel"]
    complete(engine, pi.id, "undoHotel")
    assert task_keys(engine, pi.id) == ["afterCancel"]
    history = {a.activity_id: a for a in engine.historic_activity_instances(pi.id)}
    assert history["tx"].activity_type == "transaction"
    assert history["tx"].canceled
    assert history["cancelEnd"].activity_type == "cancelEndEvent"
    assert history["cancelled"].activity_type == "cancelBoundaryCatch"
    assert engine.runtime_service.event_subscriptions(process_instance_id=pi.id) == []
    complete(engine, pi.id, "afterCancel")
    assert state_of(engine, pi.id) == "COMPLETED"
    assert engine.verify().problems == []


def test_a_transaction_that_ends_normally_completes_and_compensates_nothing(
    engine: Engine,
) -> None:
    engine.deploy(process(TRANSACTION))
    pi = engine.start_process_instance("p", {"cancel": False})
    complete(engine, pi.id, "bookHotel")
    complete(engine, pi.id, "bookFlight")
    assert task_keys(engine, pi.id) == ["afterSuccess"]
    history = {a.activity_id: a for a in engine.historic_activity_instances(pi.id)}
    assert not history["tx"].canceled
    assert "undoHotel" not in history and "cancelled" not in history
    complete(engine, pi.id, "afterSuccess")
    assert state_of(engine, pi.id) == "COMPLETED"


def test_a_cancel_with_nothing_completed_leaves_at_once(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/><transaction id="tx"><startEvent id="txStart"/>'
            '<endEvent id="cancelEnd"><cancelEventDefinition/></endEvent>'
            + flows(("txStart", "cancelEnd"))
            + "</transaction>"
            '<boundaryEvent id="cancelled" attachedToRef="tx"><cancelEventDefinition/>'
            '</boundaryEvent><userTask id="afterCancel"/><endEvent id="end"/>'
            + flows(("start", "tx"), ("tx", "end"), ("cancelled", "afterCancel"))
        )
    )
    pi = engine.start_process_instance("p")
    assert task_keys(engine, pi.id) == ["afterCancel"]
    assert types_of(engine, pi.id)["tx"] == "transaction"


def test_a_cancel_cancels_what_still_runs_in_the_transaction_after_compensating(
    engine: Engine,
) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/><transaction id="tx"><startEvent id="txStart"/>'
            '<parallelGateway id="fork"/>'
            + compensable("book", "undoBook")
            + '<userTask id="slow"/><endEvent id="slowEnd"/>'
            '<endEvent id="cancelEnd"><cancelEventDefinition/></endEvent>'
            + flows(
                ("txStart", "fork"),
                ("fork", "book"),
                ("fork", "slow"),
                ("book", "cancelEnd"),
                ("slow", "slowEnd"),
            )
            + "</transaction>"
            '<boundaryEvent id="cancelled" attachedToRef="tx"><cancelEventDefinition/>'
            '</boundaryEvent><endEvent id="end"/><endEvent id="endCancelled"/>'
            + flows(("start", "tx"), ("tx", "end"), ("cancelled", "endCancelled"))
        )
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "book")
    assert task_keys(engine, pi.id) == ["slow", "undoBook"]
    complete(engine, pi.id, "undoBook")
    assert state_of(engine, pi.id) == "COMPLETED"
    slow = [a for a in engine.historic_activity_instances(pi.id) if a.activity_id == "slow"]
    assert slow[0].canceled
    assert engine.verify().problems == []


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            '<startEvent id="s"/><endEvent id="e"><cancelEventDefinition/></endEvent>'
            '<sequenceFlow id="f" sourceRef="s" targetRef="e"/>',
            "element 'e'.*cancelEventDefinition is only supported inside a transaction",
        ),
        (
            '<startEvent id="s"/><subProcess id="sub"><startEvent id="ss"/><endEvent id="se"/>'
            '<sequenceFlow id="g" sourceRef="ss" targetRef="se"/></subProcess>'
            '<boundaryEvent id="b" attachedToRef="sub"><cancelEventDefinition/></boundaryEvent>'
            '<sequenceFlow id="f" sourceRef="s" targetRef="sub"/>',
            "element 'b'.*only supported on a transaction subprocess",
        ),
        (
            '<startEvent id="s"/><transaction id="tx"><startEvent id="ts"/>'
            '<endEvent id="te"><cancelEventDefinition/></endEvent>'
            '<sequenceFlow id="g" sourceRef="ts" targetRef="te"/></transaction>'
            '<sequenceFlow id="f" sourceRef="s" targetRef="tx"/>',
            "cancel end event 'te' is in transaction 'tx', which has no cancel boundary event",
        ),
    ],
)
def test_cancels_that_cannot_work_are_refused_at_deploy(
    engine: Engine, body: str, problem: str
) -> None:
    with pytest.raises(ModelError, match=problem):
        engine.deploy(process(body))


def counting(handler_id: str) -> str:
    """A compensation handler that counts its runs in the variable named like it."""
    return (
        f'<serviceTask id="{handler_id}" isForCompensation="true" camunda:expression="'
        f"${{execution.setVariable('{handler_id}', execution.getVariable('{handler_id}') == null"
        f" ? 1 : execution.getVariable('{handler_id}') + 1)}}\"/>"
    )


def counted(task_id: str, handler_id: str, loop: str = "") -> str:
    return (
        f'<serviceTask id="{task_id}" camunda:expression="${{true}}">{loop}</serviceTask>'
        f'<boundaryEvent id="{task_id}Comp" attachedToRef="{task_id}">'
        "<compensateEventDefinition/></boundaryEvent>"
        + counting(handler_id)
        + f'<association id="{task_id}A" sourceRef="{task_id}Comp" targetRef="{handler_id}"/>'
    )


FIVE_TIMES = (
    '<multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>5</loopCardinality>'
    "</multiInstanceLoopCharacteristics>"
)


def test_cancelling_an_inner_transaction_compensates_only_inside_it(engine: Engine) -> None:
    inner = (
        '<transaction id="inner"><startEvent id="innerStart"/>'
        + counted("reserveRoom", "releaseRoom", FIVE_TIMES)
        + '<userTask id="confirm"/><exclusiveGateway id="ok" default="yes"/>'
        '<endEvent id="innerDone"/><endEvent id="innerCancel"><cancelEventDefinition/></endEvent>'
        + flows(("innerStart", "reserveRoom"), ("reserveRoom", "confirm"), ("confirm", "ok"))
        + '<sequenceFlow id="yes" sourceRef="ok" targetRef="innerDone"/>'
        '<sequenceFlow id="no" sourceRef="ok" targetRef="innerCancel">'
        "<conditionExpression>${not confirmed}</conditionExpression></sequenceFlow>"
        "</transaction>"
        '<boundaryEvent id="innerCancelled" attachedToRef="inner"><cancelEventDefinition/>'
        '</boundaryEvent><userTask id="afterInner"/><endEvent id="innerPathEnd"/>'
    )
    engine.deploy(
        process(
            '<startEvent id="start"/><transaction id="outer"><startEvent id="outerStart"/>'
            '<parallelGateway id="fork"/>'
            + counted("payDeposit", "refundDeposit")
            + inner
            + '<userTask id="pay"/><endEvent id="outerDone"/>'
            + flows(
                ("outerStart", "fork"),
                ("fork", "payDeposit"),
                ("payDeposit", "pay"),
                ("pay", "outerDone"),
                ("fork", "inner"),
                ("inner", "innerPathEnd"),
                ("innerCancelled", "afterInner"),
                ("afterInner", "innerPathEnd"),
            )
            + "</transaction>"
            '<boundaryEvent id="outerCancelled" attachedToRef="outer"><cancelEventDefinition/>'
            '</boundaryEvent><endEvent id="end"/><endEvent id="cancelledEnd"/>'
            + flows(("start", "outer"), ("outer", "end"), ("outerCancelled", "cancelledEnd"))
        )
    )
    pi = engine.start_process_instance("p")
    compensate = [
        s.activity_id
        for s in engine.runtime_service.event_subscriptions(process_instance_id=pi.id)
        if s.event_type == "compensate"
    ]
    assert compensate.count("releaseRoom") == 5 and compensate.count("refundDeposit") == 1
    (confirm,) = engine.tasks(process_instance_id=pi.id, task_definition_key="confirm")
    engine.complete_task(confirm.id, {"confirmed": False})
    assert engine.runtime_service.get_variables(pi.id) == {"confirmed": False, "releaseRoom": 5}
    assert task_keys(engine, pi.id) == ["afterInner", "pay"]
    complete(engine, pi.id, "afterInner")
    complete(engine, pi.id, "pay")
    assert state_of(engine, pi.id) == "COMPLETED"
    assert engine.verify().problems == []


def test_a_cancel_in_one_instance_of_a_multi_instance_transaction_cancels_them_all(
    engine: Engine,
) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/><transaction id="tx"><multiInstanceLoopCharacteristics>'
            "<loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics>"
            '<startEvent id="txStart"/>'
            + counted("book", "undoBook")
            + '<userTask id="decide"/><exclusiveGateway id="ok" default="yes"/>'
            '<endEvent id="txDone"/><endEvent id="txCancel"><cancelEventDefinition/></endEvent>'
            + flows(("txStart", "book"), ("book", "decide"), ("decide", "ok"))
            + '<sequenceFlow id="yes" sourceRef="ok" targetRef="txDone"/>'
            '<sequenceFlow id="no" sourceRef="ok" targetRef="txCancel">'
            "<conditionExpression>${not confirmed}</conditionExpression></sequenceFlow>"
            "</transaction>"
            '<boundaryEvent id="cancelled" attachedToRef="tx"><cancelEventDefinition/>'
            '</boundaryEvent><userTask id="afterCancel"/><endEvent id="end"/>'
            + flows(("start", "tx"), ("tx", "end"), ("cancelled", "afterCancel"))
        )
    )
    pi = engine.start_process_instance("p")
    decisions = engine.tasks(process_instance_id=pi.id)
    assert len(decisions) == 3
    engine.complete_task(decisions[0].id, {"confirmed": False})
    # only the cancelling instance's own completed work is compensated
    assert engine.runtime_service.get_variables(pi.id) == {"confirmed": False, "undoBook": 1}
    assert task_keys(engine, pi.id) == ["afterCancel"]
    assert engine.runtime_service.event_subscriptions(process_instance_id=pi.id) == []
    complete(engine, pi.id, "afterCancel")
    assert state_of(engine, pi.id) == "COMPLETED"
    assert engine.verify().problems == []
