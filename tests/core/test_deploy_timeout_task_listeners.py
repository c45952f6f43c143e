"""Deploy what Camunda deploys (6): `camunda:taskListener event="timeout"` with its own
timerEventDefinition (duration, date or cycle): one timer job per listener while the task is
open (handler type `timer-task-listener`), removed when the task ends; a firing calls that
listener only, the task stays open, and a cycle fires again (Camunda's TaskListenerTest
timeout scenarios).
"""

from __future__ import annotations

from typing import Any

import pytest

from flowledger import ControllableClock, Engine, ModelError, ProcessEngineError
from tests.core.test_jobs import chain, process


def _task(*listeners: tuple[str, str]) -> str:
    """A user task `task` with a timeout listener per (id, timer element)."""
    body = "".join(
        f'<camunda:taskListener event="timeout" id="{listener_id}" class="recorder">'
        f"<timerEventDefinition>{timer}</timerEventDefinition></camunda:taskListener>"
        for listener_id, timer in listeners
    )
    return f'<userTask id="task"><extensionElements>{body}</extensionElements></userTask>'


@pytest.fixture
def fired(engine: Engine) -> list[tuple[str, str, str]]:
    """(task id, event, listener's task name) of each call of the `recorder` listener."""
    calls: list[tuple[str, str, str]] = []

    def recorder(task: Any) -> None:
        calls.append((task.id, task.event_name, task.task_definition_key))

    engine.register_delegate("recorder", recorder)
    return calls


def test_a_timeout_listener_on_a_cycle_fires_each_time_and_the_task_stays_open(
    engine: Engine, clock: ControllableClock, fired: list[tuple[str, str, str]]
) -> None:
    engine.deploy(process(chain(_task(("reminder", "<timeCycle>R2/PT1H</timeCycle>")))))
    pi = engine.start_process_instance("p")
    (task,) = engine.tasks(process_instance_id=pi.id)
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert (job.job_type, job.handler_type, job.handler_configuration) == (
        "timer",
        "timer-task-listener",
        "task$taskListener~reminder",
    )
    (definition,) = engine.management_service.job_definitions(process_definition_key="p")
    assert (definition.job_type, definition.job_configuration) == (
        "timer-task-listener",
        "CYCLE: R2/PT1H",
    )
    assert job.job_definition_id == definition.id
    clock.advance(hours=1)
    assert engine.run_due_jobs() == 1
    assert fired == [(task.id, "timeout", "task")]
    assert [t.id for t in engine.tasks(process_instance_id=pi.id)] == [task.id]  # still open
    clock.advance(hours=1)
    assert engine.run_due_jobs() == 1
    assert len(fired) == 2
    # R2: the cycle is over, the task still waits
    assert engine.management_service.jobs(process_instance_id=pi.id) == []
    engine.complete_task(task.id)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_completing_the_task_removes_its_timeout_timers(
    engine: Engine, clock: ControllableClock, fired: list[tuple[str, str, str]]
) -> None:
    engine.deploy(
        process(
            chain(
                _task(
                    ("soon", "<timeDuration>PT10M</timeDuration>"),
                    ("on-date", "<timeDate>2026-03-02T09:00:00Z</timeDate>"),
                )
            )
        )
    )
    pi = engine.start_process_instance("p")
    jobs = engine.management_service.jobs(process_instance_id=pi.id)
    assert sorted(j.handler_configuration for j in jobs) == [
        "task$taskListener~on-date",
        "task$taskListener~soon",
    ]
    clock.advance(minutes=10)
    assert engine.run_due_jobs() == 1  # only the duration's listener
    assert len(fired) == 1
    (left,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert left.handler_configuration == "task$taskListener~on-date"
    (task,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(task.id)
    assert engine.management_service.jobs(process_instance_id=pi.id) == []
    clock.advance(days=1)
    assert engine.run_due_jobs() == 0
    assert len(fired) == 1


@pytest.mark.parametrize(
    ("listener", "problem"),
    [
        (
            '<camunda:taskListener event="timeout" class="recorder">'
            "<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>"
            "</camunda:taskListener>",
            "a timeout camunda:taskListener needs an id",
        ),
        (
            '<camunda:taskListener event="timeout" id="t1" class="recorder"/>',
            "needs one timerEventDefinition (found 0)",
        ),
    ],
)
def test_a_timeout_listener_without_id_or_timer_is_refused(
    engine: Engine, listener: str, problem: str
) -> None:
    task = f'<userTask id="task"><extensionElements>{listener}</extensionElements></userTask>'
    with pytest.raises(ModelError) as refused:
        engine.deploy(process(chain(task)))
    (found,) = refused.value.problems
    assert problem in found.message
    assert found.element_id == "task"


def test_a_bad_timer_literal_of_a_timeout_listener_is_warned_of_naming_the_task(
    engine: Engine,
) -> None:
    deployment = engine.deploy(
        process(chain(_task(("reminder", "<timeDuration>soon</timeDuration>"))))
    )
    (warning,) = deployment.warnings
    assert warning.element_id == "task"
    assert "timeDuration 'soon' is not an ISO 8601 duration" in warning.message
    assert "(timeout listener 'reminder')" in warning.message
    with pytest.raises(ProcessEngineError, match="timer of 'task'"):
        engine.start_process_instance("p")
