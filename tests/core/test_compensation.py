"""Compensation through the public Engine API, Camunda 7's behaviour (CompensateEventTest,
CompensateEventOrderTest): completed activities with a compensation handler are compensated by a
compensation throw, newest first; the throw waits for every handler; a subprocess's handlers
read its variables as they were when it completed; bad references are deploy problems.
"""

from __future__ import annotations

import pytest

from flowledger import Engine, ModelError
from tests.core.test_jobs import process
from tests.projections.test_rebuild import assert_same_tables, capture


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
    assert sub.event_name is None
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


def first_wins(handler_id: str) -> str:
    """A compensation handler that records itself in `first` unless another ran before."""
    return (
        f'<scriptTask id="{handler_id}" isForCompensation="true" scriptFormat="juel" '
        f"camunda:resultVariable=\"first\"><script>${{first == null ? '{handler_id}' : first}}"
        "</script></scriptTask>"
    )


def with_handler(task_id: str, handler: str, handler_id: str) -> str:
    return (
        f'<userTask id="{task_id}"/>'
        f'<boundaryEvent id="{task_id}Comp" attachedToRef="{task_id}">'
        "<compensateEventDefinition/></boundaryEvent>"
        + handler
        + f'<association id="{task_id}Assoc" sourceRef="{task_id}Comp" targetRef="{handler_id}"/>'
    )


PARALLEL_SCRIPTS = (
    '<startEvent id="start"/><parallelGateway id="fork"/>'
    + with_handler("bookA", first_wins("undoA"), "undoA")
    + with_handler("bookB", first_wins("undoB"), "undoB")
    + '<parallelGateway id="join"/>'
    + THROW
    + '<userTask id="after"/><endEvent id="end"/>'
    + flows(
        ("start", "fork"),
        ("fork", "bookA"),
        ("fork", "bookB"),
        ("bookA", "join"),
        ("bookB", "join"),
        ("join", "throw"),
        ("throw", "after"),
        ("after", "end"),
    )
)


@pytest.mark.parametrize(("completed", "runs_first"), [("BA", "undoA"), ("AB", "undoB")])
def test_after_a_parallel_fork_the_branch_that_finished_last_is_compensated_first(
    engine: Engine, completed: str, runs_first: str
) -> None:
    engine.deploy(process(PARALLEL_SCRIPTS))
    pi = engine.start_process_instance("p", {"first": None})
    for letter in completed:
        complete(engine, pi.id, f"book{letter}")
    assert task_keys(engine, pi.id) == ["after"]
    assert engine.runtime_service.get_variables(pi.id) == {"first": runs_first}
    ran = [a.activity_id for a in engine.historic_activity_instances(pi.id)]
    assert ran.count("undoA") == ran.count("undoB") == 1
    assert engine.verify().problems == []


PARALLEL_TASKS = PARALLEL_SCRIPTS.replace(
    first_wins("undoA"), '<userTask id="undoA" isForCompensation="true"/>'
).replace(first_wins("undoB"), '<userTask id="undoB" isForCompensation="true"/>')


def test_handlers_with_wait_states_run_side_by_side_and_the_throw_waits_for_all(
    engine: Engine,
) -> None:
    engine.deploy(process(PARALLEL_TASKS))
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "bookA")
    complete(engine, pi.id, "bookB")
    handlers = engine.tasks(process_instance_id=pi.id)
    # both started by the one throw, the last completed (bookB) first
    assert [t.task_definition_key for t in sorted(handlers, key=lambda t: t.id)] == [
        "undoB",
        "undoA",
    ]
    complete(engine, pi.id, "undoB")
    assert task_keys(engine, pi.id) == ["undoA"]
    complete(engine, pi.id, "undoA")
    assert task_keys(engine, pi.id) == ["after"]
    complete(engine, pi.id, "after")
    assert state_of(engine, pi.id) == "COMPLETED"
    assert engine.verify().problems == []


@pytest.mark.parametrize("sequential", ["false", "true"])
def test_each_completed_instance_of_a_multi_instance_activity_is_compensated(
    engine: Engine, sequential: str
) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/>'
            f'<userTask id="book"><multiInstanceLoopCharacteristics isSequential="{sequential}">'
            "<loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>"
            '<boundaryEvent id="bookComp" attachedToRef="book"><compensateEventDefinition/>'
            '</boundaryEvent><userTask id="undoBook" isForCompensation="true"/>'
            '<association id="a1" sourceRef="bookComp" targetRef="undoBook"/>'
            '<intermediateThrowEvent id="throw"><compensateEventDefinition activityRef="book"/>'
            '</intermediateThrowEvent><userTask id="after"/><endEvent id="end"/>'
            + flows(("start", "book"), ("book", "throw"), ("throw", "after"), ("after", "end"))
        )
    )
    pi = engine.start_process_instance("p")
    for _ in range(3):
        engine.complete_task(engine.tasks(process_instance_id=pi.id)[0].id)
    assert task_keys(engine, pi.id) == ["undoBook"] * 3
    # the body is there again, around its handlers (Camunda's activity instance tree), with
    # no history row of its own (Camunda's event-scope execution writes none)
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    (body,) = [c for c in tree.child_activity_instances if c.activity_type == "multiInstanceBody"]
    assert [c.activity_id for c in body.child_activity_instances] == ["undoBook"] * 3
    history = engine.historic_activity_instances(pi.id)
    assert [a.activity_type for a in history].count("multiInstanceBody") == 1
    handlers = [a for a in history if a.activity_id == "undoBook"]
    assert {h.parent_activity_instance_id for h in handlers} == {body.id}
    for task in engine.tasks(process_instance_id=pi.id):
        engine.complete_task(task.id)
    assert task_keys(engine, pi.id) == ["after"]
    complete(engine, pi.id, "after")
    assert state_of(engine, pi.id) == "COMPLETED"
    assert engine.verify().problems == []


SNAPSHOT = (
    '<startEvent id="start"/>'
    '<subProcess id="sub"><extensionElements><camunda:inputOutput>'
    '<camunda:inputParameter name="amount">${10}</camunda:inputParameter>'
    "</camunda:inputOutput></extensionElements>"
    '<startEvent id="subStart"/>'
    + compensable("charge", "refund")
    + '<endEvent id="subEnd"/>'
    + flows(("subStart", "charge"), ("charge", "subEnd"))
    + "</subProcess>"
    + compensable("reserve", "release")
    + '<userTask id="wait"/>'
    + THROW
    + '<endEvent id="end"/>'
    + flows(("start", "sub"), ("sub", "reserve"), ("reserve", "wait"), ("wait", "throw"))
    + flows(("throw", "end"))
)


def test_a_subprocess_handler_reads_the_variables_as_they_were_when_it_completed(
    engine: Engine,
) -> None:
    engine.deploy(process(SNAPSHOT))
    pi = engine.start_process_instance("p", {"note": "early"})
    (charge,) = engine.tasks(process_instance_id=pi.id)
    # a task's own variable is not kept with its scope
    engine.task_service.set_variables(charge.id, {"ignored": 1}, local=True)
    engine.runtime_service.set_variables(charge.execution_id, {"amount": 25})  # the scope's
    engine.complete_task(charge.id)
    complete(engine, pi.id, "reserve")
    # after the subprocess: a process variable of the same name, and a changed one
    complete_with = engine.tasks(process_instance_id=pi.id)[0]
    engine.runtime_service.set_variables(pi.id, {"amount": 99, "note": "late"})
    engine.complete_task(complete_with.id)
    assert task_keys(engine, pi.id) == ["refund", "release"]
    (refund,) = engine.tasks(process_instance_id=pi.id, task_definition_key="refund")
    (release,) = engine.tasks(process_instance_id=pi.id, task_definition_key="release")
    # the subprocess's handler: its local variables as it completed, the process's live
    assert engine.task_service.get_variables(refund.id) == {"amount": 25, "note": "late"}
    # a plain task's handler: the variables as they are now
    assert engine.task_service.get_variables(release.id) == {"amount": 99, "note": "late"}
    complete(engine, pi.id, "refund")
    complete(engine, pi.id, "release")
    assert state_of(engine, pi.id) == "COMPLETED"
    types = [a.activity_type for a in engine.historic_activity_instances(pi.id)]
    assert types.count("subProcess") == 1  # reopened for compensation without a history row
    assert engine.verify().problems == []


def test_a_throw_inside_a_subprocess_compensates_only_that_subprocess(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/>'
            + compensable("outer", "undoOuter")
            + '<subProcess id="sub"><startEvent id="subStart"/>'
            + compensable("inner", "undoInner")
            + THROW
            + '<endEvent id="subEnd"/>'
            + flows(("subStart", "inner"), ("inner", "throw"), ("throw", "subEnd"))
            + '</subProcess><endEvent id="end"/>'
            + flows(("start", "outer"), ("outer", "sub"), ("sub", "end"))
        )
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "outer")
    complete(engine, pi.id, "inner")
    assert task_keys(engine, pi.id) == ["undoInner"]
    complete(engine, pi.id, "undoInner")
    assert state_of(engine, pi.id) == "COMPLETED"
    assert engine.verify().problems == []


def test_a_compensation_end_event_compensates_then_ends_its_path(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/>'
            + compensable("book", "undoBook")
            + '<endEvent id="end"><compensateEventDefinition/></endEvent>'
            + flows(("start", "book"), ("book", "end"))
        )
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "book")
    assert task_keys(engine, pi.id) == ["undoBook"]
    complete(engine, pi.id, "undoBook")
    assert state_of(engine, pi.id) == "COMPLETED"
    assert types_of(engine, pi.id)["end"] == "compensationEndEvent"
    assert engine.runtime_service.event_subscriptions(process_instance_id=pi.id) == []


def test_an_activity_ref_compensates_only_that_activity(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/>'
            + compensable("a", "undoA")
            + compensable("b", "undoB")
            + '<intermediateThrowEvent id="throw"><compensateEventDefinition activityRef="a"/>'
            '</intermediateThrowEvent><userTask id="after"/><endEvent id="end"/>'
            + flows(("start", "a"), ("a", "b"), ("b", "throw"), ("throw", "after"))
            + flows(("after", "end"))
        )
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "a")
    complete(engine, pi.id, "b")
    assert task_keys(engine, pi.id) == ["undoA"]
    complete(engine, pi.id, "undoA")
    assert task_keys(engine, pi.id) == ["after"]
    (left,) = engine.runtime_service.event_subscriptions(process_instance_id=pi.id)
    assert left.activity_id == "undoB"


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            '<startEvent id="s"/><intermediateThrowEvent id="throw">'
            '<compensateEventDefinition activityRef="nowhere"/></intermediateThrowEvent>'
            '<sequenceFlow id="f" sourceRef="s" targetRef="throw"/>',
            "element 'throw'.*activityRef 'nowhere': no activity with that id",
        ),
        (
            '<startEvent id="s"/><userTask id="plain"/><intermediateThrowEvent id="throw">'
            '<compensateEventDefinition activityRef="plain"/></intermediateThrowEvent>'
            '<sequenceFlow id="f" sourceRef="s" targetRef="plain"/>'
            '<sequenceFlow id="g" sourceRef="plain" targetRef="throw"/>',
            "activityRef 'plain', which is not compensable",
        ),
        (
            '<startEvent id="s"/><userTask id="t"/><sequenceFlow id="f" sourceRef="s" '
            'targetRef="t"/><boundaryEvent id="comp" attachedToRef="t">'
            "<compensateEventDefinition/></boundaryEvent>",
            "compensation boundary event 'comp' needs exactly one association",
        ),
        (
            '<startEvent id="s"/><userTask id="t"/><sequenceFlow id="f" sourceRef="s" '
            'targetRef="t"/><boundaryEvent id="comp" attachedToRef="t">'
            '<compensateEventDefinition/></boundaryEvent><userTask id="h"/>'
            '<association id="a" sourceRef="comp" targetRef="h"/>',
            "'h' is not one",
        ),
        (
            '<startEvent id="s"/><subProcess id="esp" triggeredByEvent="true">'
            '<startEvent id="es"><compensateEventDefinition/></startEvent></subProcess>',
            "only supported inside an embedded subprocess",
        ),
        (
            '<startEvent id="s"/><userTask id="h" isForCompensation="true"/>'
            '<sequenceFlow id="f" sourceRef="s" targetRef="h"/>',
            "compensation handler 'h' .* cannot have sequence flows",
        ),
    ],
)
def test_compensation_that_cannot_work_is_refused_at_deploy(
    engine: Engine, body: str, problem: str
) -> None:
    with pytest.raises(ModelError, match=problem):
        engine.deploy(process(body))


def test_an_error_event_subprocess_compensates_what_completed_in_its_scope(
    engine: Engine,
) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/>'
            + compensable("book", "undoBook")
            + '<endEvent id="fail"><errorEventDefinition errorRef="failed"/></endEvent>'
            + flows(("start", "book"), ("book", "fail"))
            + '<subProcess id="onError" triggeredByEvent="true">'
            '<startEvent id="caught"><errorEventDefinition/></startEvent>'
            '<intermediateThrowEvent id="undo"><compensateEventDefinition/>'
            '</intermediateThrowEvent><endEvent id="handled"/>'
            + flows(("caught", "undo"), ("undo", "handled"))
            + "</subProcess>"
        )
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "book")
    assert task_keys(engine, pi.id) == ["undoBook"]
    complete(engine, pi.id, "undoBook")
    assert state_of(engine, pi.id) == "COMPLETED"
    assert engine.verify().problems == []


def test_what_a_cancelled_subprocess_retained_is_no_longer_compensable(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/><subProcess id="outer"><startEvent id="outerStart"/>'
            '<subProcess id="inner"><startEvent id="innerStart"/>'
            + compensable("t", "undoT")
            + '<endEvent id="innerEnd"/>'
            + flows(("innerStart", "t"), ("t", "innerEnd"))
            + '</subProcess><userTask id="wait"/><endEvent id="outerEnd"/>'
            + flows(("outerStart", "inner"), ("inner", "wait"), ("wait", "outerEnd"))
            + "</subProcess>"
            '<boundaryEvent id="abort" attachedToRef="outer">'
            '<messageEventDefinition messageRef="Abort"/></boundaryEvent>'
            '<userTask id="aborted"/><endEvent id="end"/>'
            + flows(("start", "outer"), ("outer", "end"), ("abort", "aborted"))
        ).replace("</definitions>", '<message id="Abort" name="abort"/></definitions>')
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "t")
    types = sorted(
        s.event_type for s in engine.runtime_service.event_subscriptions(process_instance_id=pi.id)
    )
    assert types == ["compensate", "compensate", "message"]  # inner retained with what it kept
    engine.runtime_service.correlate_message("abort", process_instance_id=pi.id)
    assert task_keys(engine, pi.id) == ["aborted"]
    assert engine.runtime_service.event_subscriptions(process_instance_id=pi.id) == []
    assert engine.verify().problems == []


def test_a_subprocess_can_be_a_compensation_handler(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/><userTask id="book"/>'
            '<boundaryEvent id="bookComp" attachedToRef="book"><compensateEventDefinition/>'
            '</boundaryEvent><subProcess id="undoBook" isForCompensation="true">'
            '<startEvent id="undoStart"/><userTask id="callHotel"/><endEvent id="undoEnd"/>'
            + flows(("undoStart", "callHotel"), ("callHotel", "undoEnd"))
            + '</subProcess><association id="a" sourceRef="bookComp" targetRef="undoBook"/>'
            + THROW
            + '<userTask id="after"/><endEvent id="end"/>'
            + flows(("start", "book"), ("book", "throw"), ("throw", "after"), ("after", "end"))
        )
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "book")
    assert task_keys(engine, pi.id) == ["callHotel"]
    complete(engine, pi.id, "callHotel")
    assert task_keys(engine, pi.id) == ["after"]
    complete(engine, pi.id, "after")
    assert state_of(engine, pi.id) == "COMPLETED"
    assert engine.verify().problems == []


@pytest.mark.parametrize("rethrows", [True, False])
def test_a_compensation_event_subprocess_rethrows_or_consumes_the_compensation(
    engine: Engine, rethrows: bool
) -> None:
    inside = (
        '<userTask id="note"/>'
        + (THROW.replace('id="throw"', 'id="again"') if rethrows else "")
        + '<endEvent id="noted"/>'
        + (
            flows(("undoing", "note"), ("note", "again"), ("again", "noted"))
            if rethrows
            else flows(("undoing", "note"), ("note", "noted"))
        )
    )
    engine.deploy(
        process(
            '<startEvent id="start"/><subProcess id="sub"><startEvent id="subStart"/>'
            + compensable("book", "undoBook")
            + '<endEvent id="subEnd"/>'
            + flows(("subStart", "book"), ("book", "subEnd"))
            + '<subProcess id="onCompensation" triggeredByEvent="true">'
            '<startEvent id="undoing"><compensateEventDefinition/></startEvent>'
            + inside
            + "</subProcess></subProcess>"
            + '<endEvent id="end"><compensateEventDefinition/></endEvent>'
            + flows(("start", "sub"), ("sub", "end"))
        )
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "book")
    assert task_keys(engine, pi.id) == ["note"]
    complete(engine, pi.id, "note")
    if rethrows:  # the event subprocess compensates what completed in its subprocess
        assert task_keys(engine, pi.id) == ["undoBook"]
        complete(engine, pi.id, "undoBook")
    assert state_of(engine, pi.id) == "COMPLETED"
    ran = [a.activity_id for a in engine.historic_activity_instances(pi.id)]
    assert ran.count("undoBook") == (1 if rethrows else 0)
    assert engine.verify().problems == []


def test_a_receive_task_handler_waits_for_its_message(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/><userTask id="book"/>'
            '<boundaryEvent id="bookComp" attachedToRef="book"><compensateEventDefinition/>'
            '</boundaryEvent><receiveTask id="undoBook" isForCompensation="true" '
            'messageRef="Undone"/><association id="a" sourceRef="bookComp" targetRef="undoBook"/>'
            + THROW
            + '<userTask id="after"/><endEvent id="end"/>'
            + flows(("start", "book"), ("book", "throw"), ("throw", "after"), ("after", "end"))
        ).replace("</definitions>", '<message id="Undone" name="undone"/></definitions>')
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "book")
    (sub,) = engine.runtime_service.event_subscriptions(process_instance_id=pi.id)
    assert (sub.event_type, sub.event_name) == ("message", "undone")
    engine.runtime_service.correlate_message("undone", process_instance_id=pi.id)
    assert task_keys(engine, pi.id) == ["after"]
    assert engine.verify().problems == []


def test_deleting_an_instance_while_handlers_run_ends_everything(engine: Engine) -> None:
    engine.deploy(process(PARALLEL_TASKS))
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "bookA")
    complete(engine, pi.id, "bookB")
    assert task_keys(engine, pi.id) == ["undoA", "undoB"]
    engine.runtime_service.delete_process_instance(pi.id, "no longer needed")
    assert engine.tasks(process_instance_id=pi.id) == []
    assert engine.runtime_service.event_subscriptions(process_instance_id=pi.id) == []
    handlers = [
        a for a in engine.historic_activity_instances(pi.id) if a.activity_id.startswith("undo")
    ]
    assert len(handlers) == 2 and all(h.canceled for h in handlers)
    assert engine.verify().problems == []


def test_projections_rebuilt_from_the_log_are_the_live_tables(full_engine: Engine) -> None:
    engine = full_engine
    engine.deploy(process(SNAPSHOT))
    engine.deploy(process(PARALLEL_TASKS, process_id="q"))
    done = engine.start_process_instance("p", {"note": "early"})
    for key in ("charge", "reserve", "wait", "refund", "release"):
        complete(engine, done.id, key)
    running = engine.start_process_instance("q")
    complete(engine, running.id, "bookA")
    complete(engine, running.id, "bookB")
    complete(engine, running.id, "undoB")  # undoA still runs: a throw waits mid-compensation
    before = capture(engine)
    engine.rebuild_projections()
    assert_same_tables(before, capture(engine))
    assert engine.verify().problems == []


def test_the_bench_saga_runs_every_undo_last_step_first(engine: Engine) -> None:
    """The benchmark's saga workload (tools/bench): five service steps undone by a compensation
    end event, all in the one command that starts the instance."""
    from flowledger.tools.bench import workloads
    from flowledger.tools.bench.flowledger_runner import DELEGATE_NAME, count_delegate

    saga = workloads.workload("saga")
    engine.register_delegate(DELEGATE_NAME, count_delegate)
    engine.deploy(saga.bpmn("camunda"))
    pi = engine.start_process_instance(saga.process_id, saga.start_variables(0))
    assert state_of(engine, pi.id) == "COMPLETED"
    undone = [
        a.activity_id
        for a in engine.historic_activity_instances(pi.id)
        if a.activity_id.startswith("undo") and a.activity_id != "undo_all"
    ]
    steps = workloads.SAGA_STEPS
    assert undone == [f"undo{i}" for i in range(steps, 0, -1)]
    assert engine.verify().problems == []


def test_camundas_compensation_warnings_name_the_event(engine: Engine) -> None:
    deployment = engine.deploy(
        process(
            SEQUENCE.replace(
                THROW,
                '<intermediateThrowEvent id="throw">'
                '<compensateEventDefinition waitForCompletion="false"/></intermediateThrowEvent>',
            ).replace(
                "<compensateEventDefinition/></boundaryEvent>",
                '<compensateEventDefinition activityRef="book"/></boundaryEvent>',
            )
        )
    )
    warnings = sorted((w.element_id or "", w.message) for w in deployment.warnings)
    assert [element for element, _ in warnings] == ["bookComp", "throw"]
    assert "'activityRef' is not supported on a catching compensation event" in warnings[0][1]
    assert 'waitForCompletion="false" is not supported' in warnings[1][1]
    # and it waits all the same
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "book")
    assert task_keys(engine, pi.id) == ["undoBook"]
    complete(engine, pi.id, "undoBook")
    assert task_keys(engine, pi.id) == ["after"]


def _with_handler(handler: str) -> str:
    return process(
        '<startEvent id="start"/><userTask id="book"/>'
        '<boundaryEvent id="bookComp" attachedToRef="book"><compensateEventDefinition/>'
        f'</boundaryEvent>{handler}<association id="a" sourceRef="bookComp" targetRef="undo"/>'
        + THROW
        + '<userTask id="after"/><endEvent id="end"/>'
        + flows(("start", "book"), ("book", "throw"), ("throw", "after"), ("after", "end"))
    )


def test_a_call_activity_can_be_a_compensation_handler(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="s"/><userTask id="refundDesk"/><endEvent id="e"/>'
            + flows(("s", "refundDesk"), ("refundDesk", "e")),
            process_id="refund",
        )
    )
    engine.deploy(
        _with_handler('<callActivity id="undo" isForCompensation="true" calledElement="refund"/>')
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "book")
    (desk,) = engine.tasks(task_definition_key="refundDesk")
    assert desk.process_instance_id != pi.id  # in the called instance
    engine.complete_task(desk.id)
    assert task_keys(engine, pi.id) == ["after"]
    assert engine.verify().problems == []


def test_an_asynchronous_handler_runs_as_a_job_and_the_throw_waits_for_it(engine: Engine) -> None:
    engine.deploy(
        _with_handler(
            '<serviceTask id="undo" isForCompensation="true" camunda:asyncBefore="true" '
            "camunda:expression=\"${execution.setVariable('undone', true)}\"/>"
        )
    )
    pi = engine.start_process_instance("p")
    complete(engine, pi.id, "book")
    assert task_keys(engine, pi.id) == []
    assert len(engine.management_service.jobs(process_instance_id=pi.id)) == 1
    assert engine.run_due_jobs() == 1
    assert task_keys(engine, pi.id) == ["after"]
    assert engine.runtime_service.get_variables(pi.id) == {"undone": True}
    assert engine.verify().problems == []
