"""Multi-instance activities through the public Engine API: parallel and sequential, by
cardinality or collection with an element variable, the completion condition, Camunda's
counters, a boundary event on the body, and what cannot run refused with the element named.
"""

from __future__ import annotations

import pytest

from flowledger import ControllableClock, Engine, ModelError, ProcessEngineError
from tests.core.test_jobs import chain, process


def mi_task(loop: str, task: str = '<userTask id="review" camunda:assignee="${reviewer}">') -> str:
    return f"{task}<multiInstanceLoopCharacteristics {loop}</multiInstanceLoopCharacteristics>" + (
        "</userTask>"
    )


SEQUENTIAL = mi_task(
    'isSequential="true" camunda:collection="${reviewers}" camunda:elementVariable="reviewer">'
)


def test_a_sequential_collection_runs_one_item_after_the_other(engine: Engine) -> None:
    engine.deploy(process(chain(SEQUENTIAL, '<userTask id="after"/>')))
    pi = engine.start_process_instance("p", {"reviewers": ["ada", "bob", "cy"]})
    seen = []
    for _ in range(3):
        (task,) = engine.tasks(process_instance_id=pi.id, task_definition_key="review")
        seen.append(task.assignee)
        locals_ = engine.runtime_service.get_variables(task.execution_id, local=True)
        assert locals_["nrOfInstances"] == 3 and locals_["loopCounter"] == len(seen) - 1
        engine.complete_task(task.id)
    assert seen == ["ada", "bob", "cy"]
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["after"]
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    assert [c.activity_id for c in tree.child_activity_instances] == ["after"]
    assert engine.verify().problems == []


def test_an_empty_collection_runs_no_instance(engine: Engine) -> None:
    engine.deploy(process(chain(SEQUENTIAL, '<userTask id="after"/>')))
    pi = engine.start_process_instance("p", {"reviewers": []})
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["after"]


def test_a_boundary_timer_on_the_body_cancels_every_instance(
    engine: Engine, clock: ControllableClock
) -> None:
    parallel = mi_task('camunda:collection="reviewers" camunda:elementVariable="reviewer">')
    engine.deploy(
        process(
            chain(parallel, '<userTask id="after"/>')
            + '<boundaryEvent id="late" attachedToRef="review"><timerEventDefinition>'
            "<timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>"
            '<userTask id="escalate"/><sequenceFlow id="x" sourceRef="late" targetRef="escalate"/>'
        )
    )
    pi = engine.start_process_instance("p", {"reviewers": ["ada", "bob", "cy", "dan"]})
    assert len(engine.tasks(process_instance_id=pi.id)) == 4
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.activity_id == "late"
    clock.advance(hours=1)
    assert engine.run_due_jobs() == 1
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["escalate"]
    assert engine.verify().problems == []


def test_many_parallel_instances_start_and_end(engine: Engine) -> None:
    many = mi_task(
        'camunda:collection="items" camunda:elementVariable="item">', '<task id="review">'
    )
    many = many.replace("</userTask>", "</task>")
    engine.deploy(process(chain(many, '<userTask id="after"/>')))
    pi = engine.start_process_instance("p", {"items": list(range(300))})
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["after"]
    history = engine.historic_activity_instances(pi.id)
    assert sum(1 for a in history if a.activity_id == "review") == 300


def test_a_collection_that_is_not_a_list_is_refused_naming_the_activity(engine: Engine) -> None:
    engine.deploy(process(chain(SEQUENTIAL)))
    with pytest.raises(ProcessEngineError, match="camunda:collection of multi-instance activity"):
        engine.start_process_instance("p", {"reviewers": "ada"})
    assert engine.history_service.historic_process_instances() == []


def test_a_multi_instance_activity_needs_a_cardinality_or_a_collection(engine: Engine) -> None:
    with pytest.raises(ModelError, match="needs a loopCardinality or a camunda:collection"):
        engine.deploy(process(chain(mi_task('isSequential="true">'))))


def test_the_activity_tree_shows_the_body_and_its_instances(engine: Engine) -> None:
    parallel = mi_task('camunda:collection="reviewers" camunda:elementVariable="reviewer">')
    engine.deploy(process(chain(parallel)))
    pi = engine.start_process_instance("p", {"reviewers": ["ada", "bob"]})
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    (body,) = tree.child_activity_instances
    assert (body.activity_id, body.activity_type) == (
        "review#multiInstanceBody",
        "multiInstanceBody",
    )
    assert [c.activity_id for c in body.child_activity_instances] == ["review", "review"]
