"""Execution and task listeners through the public Engine API: expressions, delegate
expressions, registered delegates and scripts run at start, end and take, and at a user task's
create, assignment, complete and delete; what they do is recorded like any other change.
"""

from __future__ import annotations

from typing import Any

import pytest

from flowledger import Engine, ModelError, ProcessEngineError
from tests.core.test_jobs import chain, process


class Recorder:
    """A listener delegate (Camunda's ExecutionListener/TaskListener: `notify`)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str | None, str | None]] = []

    def notify(self, execution: Any) -> None:
        self.calls.append((execution.activityId, execution.eventName))


def listener(event: str, body: str, tag: str = "executionListener") -> str:
    return f'<camunda:{tag} event="{event}" {body}/>'


def test_execution_listeners_run_at_start_end_and_take(engine: Engine) -> None:
    recorder = Recorder()
    engine.register_delegate("recorder", recorder)
    engine.deploy(
        process(
            '<extensionElements><camunda:executionListener event="start" class="recorder"/>'
            '<camunda:executionListener event="end" delegateExpression="${recorder}"/>'
            "</extensionElements>"
            '<startEvent id="s"/><task id="work"><extensionElements>'
            + listener("start", "expression=\"${execution.setVariable('started', true)}\"")
            + listener("end", 'class="recorder"')
            + '</extensionElements></task><endEvent id="e"/>'
            '<sequenceFlow id="a" sourceRef="s" targetRef="work"><extensionElements>'
            '<camunda:executionListener class="recorder"/></extensionElements></sequenceFlow>'
            '<sequenceFlow id="b" sourceRef="work" targetRef="e"/>'
        )
    )
    pi = engine.start_process_instance("p")
    assert recorder.calls == [("s", "start"), ("s", "take"), ("work", "end"), ("e", "end")]
    variables = {v.name: v.value for v in engine.history_service.historic_variable_instances(pi.id)}
    assert variables == {"started": True}
    assert engine.verify().problems == []


def test_task_listeners_run_at_create_assignment_complete_and_delete(engine: Engine) -> None:
    seen: list[tuple[str, str | None, str | None]] = []

    def record(task: Any) -> None:
        seen.append((task.eventName, task.taskDefinitionKey, task.assignee))

    engine.register_delegate("record", record)
    listeners = "".join(
        listener(event, 'class="record"', "taskListener")
        for event in ("create", "assignment", "complete", "delete")
    )
    engine.deploy(
        process(
            chain(
                f'<userTask id="review" camunda:assignee="ada"><extensionElements>{listeners}'
                "</extensionElements></userTask>",
                '<userTask id="sign"><extensionElements>'
                + listener(
                    "create", "expression=\"${task.setVariableLocal('stamp', 1)}\"", "taskListener"
                )
                + "</extensionElements></userTask>",
            )
        )
    )
    pi = engine.start_process_instance("p")
    (review,) = engine.tasks(process_instance_id=pi.id)
    engine.task_service.set_assignee(review.id, "bob")
    engine.complete_task(review.id)
    assert seen == [
        ("create", "review", "ada"),
        ("assignment", "review", "ada"),
        ("assignment", "review", "bob"),
        ("complete", "review", "bob"),
    ]
    (sign,) = engine.tasks(process_instance_id=pi.id)
    assert engine.task_service.get_variables(sign.id, local=True) == {"stamp": 1}
    engine.start_process_instance("p")
    seen.clear()
    other = engine.start_process_instance("p")
    engine.runtime_service.delete_process_instance(other.id)
    assert [event for event, _key, _who in seen] == ["create", "assignment", "delete"]


def test_an_end_listener_runs_when_its_activity_is_cancelled(engine: Engine) -> None:
    recorder = Recorder()
    engine.register_delegate("recorder", recorder)
    engine.deploy(
        process(
            chain(
                '<userTask id="wait"><extensionElements>'
                + listener("end", 'class="recorder"')
                + "</extensionElements></userTask>"
            )
        )
    )
    pi = engine.start_process_instance("p")
    engine.runtime_service.delete_process_instance(pi.id)
    assert recorder.calls == [("wait", "end")]


def test_a_failing_listener_fails_the_command_naming_it(engine: Engine) -> None:
    def broken(execution: Any) -> None:
        raise ValueError("the audit service is down")

    engine.register_delegate("broken", broken)
    engine.deploy(
        process(
            chain(
                '<task id="work"><extensionElements>'
                + listener("start", 'class="broken"')
                + "</extensionElements></task>"
            )
        )
    )
    with pytest.raises(ProcessEngineError, match="the start listener of 'work' failed: ValueError"):
        engine.start_process_instance("p")
    assert engine.history_service.historic_process_instances() == []


@pytest.mark.parametrize(
    ("extension", "problem"),
    [
        (listener("finish", 'class="x"'), "listens to one of start, end, not 'finish'"),
        (
            '<camunda:executionListener event="start" class="x"><camunda:field name="f" '
            'stringValue="v"/></camunda:executionListener>',
            "field injection",
        ),
        (
            '<camunda:executionListener event="start"><camunda:script scriptFormat="javascript">'
            "x</camunda:script></camunda:executionListener>",
            "a script in 'javascript'",
        ),
        (listener("start", 'class="x" expression="${y}"'), "needs exactly one of expression"),
        (listener("create", 'class="x"', "taskListener"), "belongs on a user task"),
    ],
)
def test_listeners_that_cannot_run_are_refused_at_deploy(
    engine: Engine, extension: str, problem: str
) -> None:
    with pytest.raises(ModelError, match=problem):
        engine.deploy(
            process(
                chain(f'<task id="work"><extensionElements>{extension}</extensionElements></task>')
            )
        )
