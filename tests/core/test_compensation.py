"""Compensation through the public Engine API, Camunda 7's behaviour (CompensateEventTest,
CompensateEventOrderTest): completed activities with a compensation handler are compensated by a
compensation throw, newest first; the throw waits for every handler; a subprocess's handlers
read its variables as they were when it completed; bad references are deploy problems.
"""

from __future__ import annotations

from flowledger import Engine
from tests.core.test_jobs import process


def compensable(task_id: str, handler_id: str, tag: str = "userTask", extra: str = "") -> str:
    """`task_id` (a `tag`) with a compensation boundary event associated with the user task
    `handler_id`."""
    return (
        f'<{tag} id="{task_id}" {extra}/>'
        f'<boundaryEvent id="{task_id}Comp" attachedToRef="{task_id}">'
        "<compensateEventDefinition/></boundaryEvent>"
        f'<userTask id="{handler_id}" isForCompensation="true"/>'
        f'<association id="{task_id}Assoc" sourceRef="{task_id}Comp" targetRef="{handler_id}"/>'
    )


def flows(*pairs: tuple[str, str]) -> str:
    return "".join(
        f'<sequenceFlow id="f{i}_{s}_{t}" sourceRef="{s}" targetRef="{t}"/>'
        for i, (s, t) in enumerate(pairs)
    )


THROW = '<intermediateThrowEvent id="throw"><compensateEventDefinition/></intermediateThrowEvent>'


def task_keys(engine: Engine, pid: str) -> list[str]:
    return sorted(t.task_definition_key for t in engine.tasks(process_instance_id=pid))


def complete(engine: Engine, pid: str, key: str) -> None:
    (task,) = engine.tasks(process_instance_id=pid, task_definition_key=key)
    engine.complete_task(task.id)


def state_of(engine: Engine, pid: str) -> str:
    return engine.history_service.historic_process_instance(pid).state


def types_of(engine: Engine, pid: str) -> dict[str, str]:
    return {a.activity_id: a.activity_type for a in engine.historic_activity_instances(pid)}


SEQUENCE = (
    '<startEvent id="start"/>'
    + compensable("book", "undoBook")
    + THROW
    + '<userTask id="after"/><endEvent id="end"/>'
    + flows(("start", "book"), ("book", "throw"), ("throw", "after"), ("after", "end"))
)


def test_a_throw_runs_the_handler_of_a_completed_activity_and_waits_for_it(engine: Engine) -> None:
    engine.deploy(process(SEQUENCE))
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "book")
    assert task_keys(engine, pi.id) == ["undoBook"]
    # the throw waits while the handler runs
    tree = {a.activity_id for a in engine.historic_activity_instances(pi.id) if a.end_time is None}
    assert {"throw", "undoBook"} <= tree
    complete(engine, pi.id, "undoBook")
    assert task_keys(engine, pi.id) == ["after"]
    complete(engine, pi.id, "after")
    assert state_of(engine, pi.id) == "COMPLETED"
    types = types_of(engine, pi.id)
    assert types["throw"] == "intermediateCompensationThrowEvent"
    assert types["undoBook"] == "userTask"
    assert "bookComp" not in types  # the boundary event never runs: it names the handler
    assert engine.verify().problems == []


def test_the_compensate_subscription_is_in_act_ru_event_subscr_until_compensated(
    engine: Engine,
) -> None:
    engine.deploy(process(SEQUENCE))
    pi = engine.start_process_instance("p")
    assert engine.runtime_service.event_subscriptions(process_instance_id=pi.id) == []
    complete_without_throw = process(
        '<startEvent id="start"/>'
        + compensable("book", "undoBook")
        + '<userTask id="wait"/>'
        + THROW
        + '<endEvent id="end"/>'
        + flows(("start", "book"), ("book", "wait"), ("wait", "throw"), ("throw", "end")),
        process_id="q",
    )
    engine.deploy(complete_without_throw)
    qi = engine.start_process_instance("q")
    complete(engine, qi.id, "book")
    (sub,) = engine.runtime_service.event_subscriptions(process_instance_id=qi.id)
    assert sub.event_type == "compensate"
    assert sub.activity_id == "undoBook"  # Camunda's: the handler
    complete(engine, qi.id, "wait")
    assert engine.runtime_service.event_subscriptions(process_instance_id=qi.id) == []
    complete(engine, qi.id, "undoBook")
    assert state_of(engine, qi.id) == "COMPLETED"


def test_nothing_completed_nothing_compensated(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/>'
            + THROW
            + compensable("book", "undoBook")
            + '<endEvent id="end"/>'
            + flows(("start", "throw"), ("throw", "book"), ("book", "end"))
        )
    )
    pi = engine.start_process_instance("p")
    assert task_keys(engine, pi.id) == ["book"]
    complete(engine, pi.id, "book")
    assert state_of(engine, pi.id) == "COMPLETED"
