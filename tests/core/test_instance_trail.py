"""What an instance passed (`core.instance_trail`) and why its tokens went where they did
(`core.why_conditions`), computed from the events a real run recorded and the deployed model.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from flowledger import Engine
from flowledger.core import events as ev
from flowledger.core.evolve import evolve
from flowledger.core.instance_trail import ActivityPass, trail
from flowledger.core.model import ProcessModel
from flowledger.core.parser import parse_bpmn
from flowledger.core.state import InstanceState
from flowledger.core.why_conditions import explained
from tests.support import bpmn

ASYNC_AFTER_GATEWAY = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="review" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="check"/>
    <bpmn:userTask id="check"/>
    <bpmn:sequenceFlow id="f2" sourceRef="check" targetRef="gw"/>
    <bpmn:exclusiveGateway id="gw" default="toAuto"/>
    <bpmn:sequenceFlow id="toBoss" sourceRef="gw" targetRef="boss">
      <bpmn:conditionExpression>${amount &gt; limit}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="toAuto" sourceRef="gw" targetRef="auto"/>
    <bpmn:userTask id="boss" camunda:asyncBefore="true"/>
    <bpmn:sequenceFlow id="f3" sourceRef="boss" targetRef="e"/>
    <bpmn:userTask id="auto"/>
    <bpmn:sequenceFlow id="f4" sourceRef="auto" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>"""

UNEXPLAINABLE = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"
    targetNamespace="t">
  <bpmn:process id="beans" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="gw"/>
    <bpmn:exclusiveGateway id="gw" default="other"/>
    <bpmn:sequenceFlow id="byBean" sourceRef="gw" targetRef="a">
      <bpmn:conditionExpression>${rules.approve(amount)}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="byExecution" sourceRef="gw" targetRef="a">
      <bpmn:conditionExpression>${execution.getVariable("amount") &gt; 1}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="other" sourceRef="gw" targetRef="b"/>
    <bpmn:userTask id="a"/>
    <bpmn:userTask id="b"/>
  </bpmn:process>
</bpmn:definitions>"""


class Recorded:
    """An instance run on the engine: its events in order and its model as parsed."""

    def __init__(self, engine: Engine, source: bytes, instance_id: str) -> None:
        [self.model] = parse_bpmn(source, "model.bpmn").processes
        with engine.reading() as conn:
            stream = engine._parts.streams.stream(conn, instance_id)
        self.positions: list[int] = []
        self.events: list[ev.Event] = []
        for commit, events in stream:
            self.positions += range(commit.first_position, commit.last_position + 1)
            self.events += events

    def up_to(self, event_type: type[ev.Event], nth: int = 0) -> tuple[list[ev.Event], int]:
        """The events up to the `nth` event of `event_type`, and its position."""
        indexes = [i for i, e in enumerate(self.events) if isinstance(e, event_type)]
        end = indexes[nth] + 1
        return self.events[:end], self.positions[end - 1]


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    with Engine(db_url) as engine:
        yield engine


def _run_review(engine: Engine, amount: int) -> Recorded:
    engine.deploy({"review.bpmn": ASYNC_AFTER_GATEWAY})
    pi = engine.start_process_instance("review", {"amount": 10, "limit": 500})
    [task] = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(task.id, {"amount": amount})
    return Recorded(engine, ASYNC_AFTER_GATEWAY, pi.id)


def _checks(run: Recorded, model: ProcessModel) -> list[dict[str, object]]:
    """Every condition explained over the whole run, as plain dicts."""
    state: InstanceState | None = None
    found: list[dict[str, object]] = []
    for i, event in enumerate(run.events):
        if state is not None:
            found += [
                {
                    "gateway": c.gateway_id,
                    "flow": c.flow_id,
                    "result": c.result,
                    "variables": c.variables,
                }
                for c in explained(run.events, i, model, state)
            ]
        state = evolve(state, event)
    return found


def test_the_trail_marks_the_flows_taken_and_the_activity_waited_in(engine: Engine) -> None:
    run = _run_review(engine, amount=100)
    events, position = run.up_to(ev.UserTaskCreated, nth=1)

    found = trail(events, run.model, position)

    assert found.position == position
    assert found.sequence_flows == ["f1", "f2", "toAuto"]
    assert found.activities == [
        ActivityPass("s", 1, False),
        ActivityPass("check", 1, False),
        ActivityPass("gw", 1, False),
        ActivityPass("auto", 1, True),
    ]


def test_an_earlier_position_shows_less(engine: Engine) -> None:
    run = _run_review(engine, amount=100)
    events, position = run.up_to(ev.UserTaskCreated, nth=0)

    found = trail(events, run.model, position)

    assert found.sequence_flows == ["f1"]
    assert found.activities[-1] == ActivityPass("check", 1, True)


def test_the_flow_into_an_async_before_activity_is_derived_from_the_model(
    engine: Engine,
) -> None:
    run = _run_review(engine, amount=900)  # to the boss, who waits behind an asyncBefore job

    found = trail(run.events, run.model, run.positions[-1])

    assert found.sequence_flows == ["f1", "f2", "toBoss"]
    # the token waits before `boss`: active, not entered yet
    assert found.activities[-1] == ActivityPass("boss", 0, True)
    # without the model nothing is guessed: only what the events record
    assert trail(run.events, None, run.positions[-1]).sequence_flows == ["f1", "f2"]


def test_parallel_paths_and_a_join_count_every_arrival(engine: Engine) -> None:
    source = bpmn("inclusive_gateway_fork_join.bpmn").read_bytes()
    engine.deploy({"p.bpmn": source})
    pi = engine.start_process_instance("inclusiveForkJoin", {"fragile": True, "value": 900})
    for task in engine.tasks(process_instance_id=pi.id):
        engine.complete_task(task.id)
    run = Recorded(engine, source, pi.id)

    found = trail(run.events, run.model, run.positions[-1])

    assert set(found.sequence_flows) == {"f1", "toFragile", "toInsure", "f2", "f3", "f5"}
    passes = {p.activity_id: p for p in found.activities}
    assert "standard" not in passes  # the default flow was not taken
    assert passes["join"] == ActivityPass("join", 2, False)  # two tokens arrived
    assert passes["send"] == ActivityPass("send", 1, True)


def test_an_ended_instance_has_nothing_active(engine: Engine) -> None:
    run = _run_review(engine, amount=100)
    engine.complete_task(engine.tasks(process_instance_id=_instance(run))[0].id)
    run = Recorded(engine, ASYNC_AFTER_GATEWAY, _instance(run))

    found = trail(run.events, run.model, run.positions[-1])

    assert found.sequence_flows == ["f1", "f2", "toAuto", "f4"]
    assert not [p for p in found.activities if p.active]


def _instance(run: Recorded) -> str:
    first = run.events[0]
    assert isinstance(first, ev.ProcessInstanceStarted)
    return first.process_instance_id


def test_the_condition_that_chose_with_the_values_it_read_then(engine: Engine) -> None:
    run = _run_review(engine, amount=900)

    assert _checks(run, run.model) == [
        # amount was 10 at the start: the value the completion set is the one the gateway read
        {
            "gateway": "gw",
            "flow": "toBoss",
            "result": True,
            "variables": {"amount": 900, "limit": 500},
        }
    ]


def test_a_false_condition_is_explained_too(engine: Engine) -> None:
    run = _run_review(engine, amount=100)

    [check] = _checks(run, run.model)

    assert (check["flow"], check["result"]) == ("toBoss", False)


def test_an_inclusive_gateway_evaluates_every_condition_and_its_join_none(engine: Engine) -> None:
    source = bpmn("inclusive_gateway_fork_join.bpmn").read_bytes()
    engine.deploy({"p.bpmn": source})
    pi = engine.start_process_instance("inclusiveForkJoin", {"fragile": False, "value": 900})
    for task in engine.tasks(process_instance_id=pi.id):
        engine.complete_task(task.id)
    run = Recorded(engine, source, pi.id)

    assert [(c["gateway"], c["flow"], c["result"]) for c in _checks(run, run.model)] == [
        ("fork", "toFragile", False),
        ("fork", "toInsure", True),
    ]


def test_a_bean_or_the_execution_is_not_called_to_explain(engine: Engine) -> None:
    calls: list[object] = []

    class Rules:
        def approve(self, amount: object) -> bool:
            calls.append(amount)
            return False

    engine.register_delegate("rules", Rules())
    engine.deploy({"beans.bpmn": UNEXPLAINABLE})
    pi = engine.start_process_instance("beans", {"amount": 5})
    run = Recorded(engine, UNEXPLAINABLE, pi.id)
    calls.clear()  # the run called the bean; explaining must not

    checks = _checks(run, run.model)

    assert calls == []
    assert [c["flow"] for c in checks] == ["byBean", "byExecution"]
    assert str(checks[0]["result"]).startswith("not evaluated: 'rules' was no variable")
    assert str(checks[1]["result"]).startswith("not evaluated: it reads 'execution'")
