"""Time travel on a long instance (engine/audit/inspection, folded_states): a state-at request
near one already answered folds only the events after the nearest kept state, and answers as a
fold from the first event does; background verifies (engine/audit/verify_tasks) run one at a
time, count their progress and report, and a failing one is logged."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator

import pytest

from flowledger import Engine
from flowledger.core import views
from flowledger.engine.audit.folded_states import CHECKPOINT_EVERY
from flowledger.engine.audit.verify_tasks import DONE, FAILED, RUNNING, VerifyTasks

LONG = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"
    targetNamespace="t">
  <bpmn:process id="long" isExecutable="true">
    <bpmn:startEvent id="s" /><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait" />
    <bpmn:userTask id="wait" /><bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>"""


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    with Engine(db_url) as engine:
        yield engine


def _long_instance(engine: Engine, commands: int) -> tuple[str, list[int]]:
    engine.deploy({"long.bpmn": LONG})
    instance = engine.start_process_instance("long", {"n": 0}).id
    for i in range(commands):
        engine.runtime_service.set_variables(instance, {"a": i, "b": -i})
    return instance, [e.position for e in engine.events(instance)]


def test_a_nearby_position_folds_from_the_nearest_kept_state(engine: Engine) -> None:
    instance, positions = _long_instance(engine, 600)  # 1,200 events and a few
    inspection = engine._parts.inspection
    middle = positions[900]

    first = engine.audit_service.state_at(instance, position=middle)
    assert inspection.last_folded == 901  # nothing kept yet: from the first event

    second = engine.audit_service.state_at(instance, position=positions[905])
    assert 0 < inspection.last_folded <= CHECKPOINT_EVERY + 2
    earlier = engine.audit_service.state_at(instance, position=positions[300])
    assert inspection.last_folded <= CHECKPOINT_EVERY + 2

    # the same answers as a fold of the whole stream up to each position
    for then in (first, second, earlier):
        assert then.state == engine.replay(instance, until_position=then.position)
    assert second.position == positions[905]


def test_an_ended_instance_keeps_its_variables_at_its_end_from_a_kept_state(
    engine: Engine,
) -> None:
    instance, _positions = _long_instance(engine, 300)
    [task] = engine.tasks(process_instance_id=instance)
    engine.complete_task(task.id)
    end = engine.events(instance)[-1].position
    engine.audit_service.state_at(instance, position=end)  # keeps states, past the end too

    then = engine.audit_service.state_at(instance, position=end)

    assert engine._parts.inspection.last_folded < CHECKPOINT_EVERY
    assert {v.name: v.value for v in then.view().variables} == {"a": 299, "b": -299, "n": 0}


def _report(commits: int) -> views.VerificationReport:
    return views.VerificationReport(
        commits_checked=commits, streams_checked=1, rows_compared=0, problems=[]
    )


def _wait(tasks: VerifyTasks, task_id: str) -> None:
    for _ in range(2000):
        task = tasks.get(task_id)
        assert task is not None
        if task.state != RUNNING:
            return
        threading.Event().wait(0.01)
    raise AssertionError("the verify did not end")


def test_one_background_verify_at_a_time_with_its_progress() -> None:
    release = threading.Event()
    halfway = threading.Event()

    def verify(progress: Callable[[int, int], None]) -> views.VerificationReport:
        progress(5, 10)
        halfway.set()
        release.wait(30)
        progress(10, 10)
        return _report(10)

    tasks = VerifyTasks(verify)
    task = tasks.start()
    assert halfway.wait(30)
    running = tasks.get(task.id)
    assert running is not None and (running.state, running.checked, running.total) == (
        RUNNING,
        5,
        10,
    )
    assert tasks.start().id == task.id  # a second start answers the running one
    release.set()
    _wait(tasks, task.id)
    done = tasks.get(task.id)
    assert done is not None and done.state == DONE and done.report == _report(10)
    assert (done.checked, done.total) == (10, 10) and done.finished is not None
    assert tasks.last_finished() == done
    assert tasks.start().id != task.id  # once it ended, a new one starts


def test_a_failing_or_problem_finding_verify_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    def broken(progress: Callable[[int, int], None]) -> views.VerificationReport:
        raise RuntimeError("the database went away")

    def damaged(progress: Callable[[int, int], None]) -> views.VerificationReport:
        return views.VerificationReport(
            commits_checked=3, streams_checked=1, rows_compared=0, problems=["hash: bad"]
        )

    with caplog.at_level(logging.WARNING, logger="flowledger.engine.verification"):
        failing = VerifyTasks(broken)
        task = failing.start()
        _wait(failing, task.id)
        found = VerifyTasks(damaged)
        other = found.start()
        _wait(found, other.id)
    ended = failing.get(task.id)
    assert ended is not None and ended.state == FAILED
    assert ended.error == "RuntimeError: the database went away" and ended.report is None
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("the database went away" in m for m in messages)
    assert any("1 problems" in m and "hash: bad" in m for m in messages)
