"""Commands of one SQLite engine that wait for its writer commit together: each decides inside
the shared transaction (seeing the commands before it in the group), a rejected one leaves its
rejection record and nothing else, and the log stays gapless and verifiable. A decision that
turns out large steps out of the group, decides beside the writer and joins a group only to
append: a large command never holds the writer while it decides."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import Engine, NotFound

MODEL = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="gated" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="gate"/>
    <serviceTask id="gate" camunda:delegateExpression="${gate}"/>
    <sequenceFlow id="f2" sourceRef="gate" targetRef="review"/>
    <userTask id="review"/>
    <sequenceFlow id="f3" sourceRef="review" targetRef="end"/>
    <endEvent id="end"/>
  </process>
  <process id="heldAfterTask" isExecutable="true">
    <startEvent id="s2"/>
    <sequenceFlow id="g1" sourceRef="s2" targetRef="first"/>
    <userTask id="first"/>
    <sequenceFlow id="g2" sourceRef="first" targetRef="gate2"/>
    <serviceTask id="gate2" camunda:delegateExpression="${gate}"/>
    <sequenceFlow id="g3" sourceRef="gate2" targetRef="end2"/>
    <endEvent id="end2"/>
  </process>
</definitions>"""

WAITERS = 6


class Gate:
    """A delegate that holds the first command inside the write transaction until the other
    commands wait behind it, so that they form one group."""

    def __init__(self) -> None:
        self.hold = threading.Event()
        self.release = threading.Event()

    def __call__(self, execution: Any) -> None:
        if self.hold.is_set():
            self.hold.clear()
            assert self.release.wait(timeout=30)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[tuple[Engine, Gate]]:
    engine = Engine(f"sqlite:///{tmp_path / 'groups.db'}")
    gate = Gate()
    engine.register_delegate("gate", gate)
    engine.deploy({"gated.bpmn": MODEL})
    yield engine, gate
    engine.close()


def holding_the_writer(engine: Engine) -> Any:
    """A command that decides inside the write transaction and meets the gate there: the
    completion of a task whose next step is the gated delegate."""
    pi = engine.start_process_instance("heldAfterTask")
    (task,) = engine.tasks(process_instance_id=pi.id)
    return lambda: engine.complete_task(task.id)


def run_grouped(engine: Engine, gate: Gate, calls: list[Any]) -> tuple[list[Any], list[Any]]:
    """Hold the writer with one command, queue `calls` behind it, then let it go."""
    groups = engine._bus.groups
    assert groups is not None
    results: list[Any] = [None] * len(calls)
    errors: list[Any] = [None] * len(calls)

    def call(i: int) -> None:
        try:
            results[i] = calls[i]()
        except Exception as exc:
            errors[i] = exc

    hold = holding_the_writer(engine)
    gate.hold.set()
    leader = threading.Thread(target=hold)
    leader.start()
    while gate.hold.is_set():
        threading.Event().wait(0.001)
    threads = [threading.Thread(target=call, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    while len(groups._queue) < len(calls):
        threading.Event().wait(0.001)
    gate.release.set()
    for t in [leader, *threads]:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in [leader, *threads])
    return results, errors


def command_rows(engine: Engine) -> list[tuple[str, str]]:
    with sa.create_engine(engine.url).connect() as conn:
        rows = conn.execute(sa.text("SELECT command_type, status FROM command_log"))
        return [(r[0], r[1]) for r in rows]


def test_waiting_commands_commit_in_one_group_and_see_each_other(
    engine: tuple[Engine, Gate],
) -> None:
    fl, gate = engine
    first = fl.start_process_instance("gated")
    (task,) = fl.tasks(process_instance_id=first.id)
    groups = fl._bus.groups
    assert groups is not None
    before = groups.groups
    # The completion and a second completion of the same task wait in one group: the second
    # decides after the first in the same transaction, and finds the task gone.
    calls: list[Any] = [lambda: fl.start_process_instance("gated") for _ in range(WAITERS)]
    calls += [lambda: fl.complete_task(task.id), lambda: fl.complete_task(task.id)]
    results, errors = run_grouped(fl, gate, calls)

    # the holder's own start, the holder's group, then one group of every waiter
    assert groups.groups - before == 3
    assert all(e is None for e in errors[:WAITERS])
    completions = errors[WAITERS:]
    assert completions.count(None) == 1
    (refused,) = [e for e in completions if e is not None]
    assert isinstance(refused, NotFound)
    finished = fl.history_service.historic_process_instances(process_instance_id=first.id)
    assert [h.end_time is not None for h in finished] == [True]
    started = {r.id for r in results[:WAITERS]}
    assert len(started) == WAITERS
    for pi in started:
        assert [t.task_definition_key for t in fl.tasks(process_instance_id=pi)] == ["review"]
    # Every committed command recorded once; the refused completion as rejected, with no events.
    rows = command_rows(fl)
    assert rows.count(("CompleteTask", "accepted")) == 1 + 1  # + the holder's
    assert rows.count(("CompleteTask", "rejected")) == 1
    assert rows.count(("StartProcessInstance", "accepted")) == WAITERS + 2  # + the holder's
    assert fl.verify().problems == []


def test_a_command_failing_in_a_group_leaves_the_others_committed(
    engine: tuple[Engine, Gate],
) -> None:
    fl, gate = engine
    calls: list[Any] = [lambda: fl.start_process_instance("gated") for _ in range(3)]
    calls.insert(1, lambda: fl.complete_task("no-such-task"))
    _, errors = run_grouped(fl, gate, calls)
    assert isinstance(errors[1], NotFound) and "no-such-task" in str(errors[1])
    assert [e for i, e in enumerate(errors) if i != 1] == [None, None, None]
    assert len(fl.history_service.historic_process_instances()) == 4  # three started, the holder's
    assert fl.verify().problems == []


def test_a_command_run_from_inside_a_command_is_refused_not_deadlocked(tmp_path: Path) -> None:
    fl = Engine(f"sqlite:///{tmp_path / 'nested.db'}")
    fl.deploy({"gated.bpmn": MODEL})
    fl.register_delegate("gate", lambda execution: fl.start_process_instance("gated"))
    with pytest.raises(Exception, match="inside another command"):
        fl.start_process_instance("gated")
    assert fl.history_service.historic_process_instances() == []
    fl.close()


def test_reading_an_activity_tree_does_not_wait_for_a_command_in_flight(
    engine: tuple[Engine, Gate],
) -> None:
    fl, gate = engine
    waiting = fl.start_process_instance("gated")
    hold = holding_the_writer(fl)
    gate.hold.set()
    held = threading.Thread(target=hold)
    held.start()
    try:
        while gate.hold.is_set():  # the completion holds the writer, inside its transaction
            threading.Event().wait(0.001)
        read: list[Any] = []
        reader = threading.Thread(
            target=lambda: read.append(fl.runtime_service.activity_instance_tree(waiting.id))
        )
        reader.start()
        reader.join(timeout=10)  # a bound only: the read must not wait for the command
        assert not reader.is_alive(), "the activity tree waited for a command in flight"
        assert [child.activity_id for child in read[0].child_activity_instances] == ["review"]
    finally:
        gate.release.set()
        held.join(timeout=30)
    # The tree's state went back to the cache: the next command on the instance decides on it.
    (task,) = fl.tasks(process_instance_id=waiting.id)
    fl.complete_task(task.id)
    assert fl.verify().problems == []


def test_a_large_decision_steps_out_of_the_write_transaction(
    engine: tuple[Engine, Gate],
) -> None:
    """A start with 2,500 variables emits more events than a decision inside the writer may:
    it is undone there and decided again beside the writer. While it decides (here: waits in
    its delegate), another command commits; the large one then writes what it prepared."""
    fl, gate = engine
    gate.hold.set()
    started: list[Any] = []
    many = {f"v{i}": i for i in range(2_500)}
    deciding = threading.Thread(
        target=lambda: started.append(fl.start_process_instance("gated", many))
    )
    deciding.start()
    try:
        while gate.hold.is_set():
            threading.Event().wait(0.001)
        other = fl.start_process_instance("heldAfterTask")  # would wait for a held writer
        assert [t.task_definition_key for t in fl.tasks(process_instance_id=other.id)] == ["first"]
        assert not started
    finally:
        gate.release.set()
        deciding.join(timeout=30)
    (large,) = started
    assert len(fl.runtime_service.get_variables(large.id)) == 2_500
    assert [t.task_definition_key for t in fl.tasks(process_instance_id=large.id)] == ["review"]
    assert fl.verify().problems == []
