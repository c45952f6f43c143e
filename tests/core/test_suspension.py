"""Suspension through the public Engine API: a suspended instance refuses work on its tasks,
external tasks and jobs, and messages and signals pass it by, until it is activated; a
suspended definition starts no instance, and suspends its running ones when asked to.
"""

from __future__ import annotations

import pytest

from flowledger import Engine, MismatchingMessageCorrelation, Rejected
from tests.core.test_jobs import chain, process

MODEL = process(
    chain(
        '<userTask id="review"/>',
        '<serviceTask id="mail" camunda:type="external" camunda:topic="mail"/>',
        '<intermediateCatchEvent id="paid"><messageEventDefinition messageRef="Paid"/>'
        "</intermediateCatchEvent>",
    )
).replace("</definitions>", '<message id="Paid" name="paid"/></definitions>')


def test_a_suspended_instance_refuses_work_until_activated(engine: Engine) -> None:
    engine.deploy(MODEL)
    pi = engine.start_process_instance("p")
    engine.runtime_service.suspend_process_instance(pi.id)
    instance = engine.runtime_service.process_instance(pi.id)
    assert instance is not None and instance.suspended
    (task,) = engine.tasks(process_instance_id=pi.id)
    with pytest.raises(Rejected, match=f"Task with id '{task.id}' is suspended"):
        engine.complete_task(task.id)
    with pytest.raises(Rejected, match="is suspended"):
        engine.claim(task.id, "ada")
    assert engine.history_service.historic_process_instance(pi.id).state == "SUSPENDED"

    engine.runtime_service.activate_process_instance(pi.id)
    engine.complete_task(task.id)
    engine.runtime_service.suspend_process_instance(pi.id)
    assert engine.external_task_service.fetch_and_lock("worker", {"mail": 1000}) == []
    engine.runtime_service.activate_process_instance(pi.id)
    (locked,) = engine.external_task_service.fetch_and_lock("worker", {"mail": 1000})
    engine.runtime_service.suspend_process_instance(pi.id)
    with pytest.raises(Rejected, match="is suspended"):
        engine.external_task_service.complete(locked.id, "worker")
    engine.runtime_service.activate_process_instance(pi.id)
    engine.external_task_service.complete(locked.id, "worker")

    engine.runtime_service.suspend_process_instance(pi.id)
    with pytest.raises(MismatchingMessageCorrelation):
        engine.runtime_service.correlate_message("paid")
    engine.runtime_service.activate_process_instance(pi.id)
    engine.runtime_service.correlate_message("paid")
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_a_suspended_instance_s_jobs_do_not_run(engine: Engine) -> None:
    engine.deploy(process(chain('<task id="later" camunda:asyncBefore="true"/>')))
    pi = engine.start_process_instance("p")
    engine.runtime_service.suspend_process_instance(pi.id)
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.suspended
    assert engine.run_due_jobs() == 0
    with pytest.raises(Rejected, match="is suspended"):
        engine.management_service.execute_job(job.id)
    engine.runtime_service.activate_process_instance(pi.id)
    assert engine.run_due_jobs() == 1
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"


def test_a_suspended_definition_starts_nothing_and_suspends_its_instances(engine: Engine) -> None:
    deployment = engine.deploy(MODEL)
    definition_id = deployment.process_definitions[0].id
    running = engine.start_process_instance("p")
    engine.repository_service.suspend_process_definition(definition_id)
    (definition,) = engine.repository_service.process_definitions("p")
    assert definition.suspended
    with pytest.raises(Rejected, match="is suspended"):
        engine.start_process_instance("p")
    instance = engine.runtime_service.process_instance(running.id)
    assert instance is not None and not instance.suspended  # not asked to
    engine.repository_service.suspend_process_definition(key="p", include_instances=True)
    instance = engine.runtime_service.process_instance(running.id)
    assert instance is not None and instance.suspended
    engine.repository_service.activate_process_definition(key="p", include_instances=True)
    instance = engine.runtime_service.process_instance(running.id)
    assert instance is not None and not instance.suspended
    engine.start_process_instance("p")
    assert engine.verify().problems == []


def test_instances_are_suspended_by_ids_or_by_definition(engine: Engine) -> None:
    engine.deploy(MODEL)
    first, second, third = (engine.start_process_instance("p").id for _ in range(3))

    def suspended() -> set[str]:
        found = (engine.runtime_service.process_instance(i) for i in (first, second, third))
        return {p.id for p in found if p is not None and p.suspended}

    engine.runtime_service.set_process_instances_suspended(
        True, process_instance_ids=[first, second]
    )
    assert suspended() == {first, second}
    engine.runtime_service.set_process_instances_suspended(False, key="p")
    assert suspended() == set()
    engine.runtime_service.set_process_instances_suspended(True, key="p")
    assert suspended() == {first, second, third}
    (definition,) = engine.repository_service.process_definitions("p")
    assert not definition.suspended  # the definition stays as it is
    with pytest.raises(Rejected, match="Name exactly one of"):
        engine.runtime_service.set_process_instances_suspended(
            True, process_instance_ids=[first], key="p"
        )
