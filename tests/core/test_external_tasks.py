"""Behaviour of external tasks: fetch-and-lock, complete, failure with retries, BPMN errors, locks.

Workers are the audit trail's actors: every command records the worker id.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from flowledger import ControllableClock, Engine, NotFound, Rejected
from tests.support import bpmn, open_task_names


@pytest.fixture
def started(engine: Engine) -> str:
    engine.deploy(bpmn("external_task.bpmn"))
    return engine.start_process_instance("externalInvoice", {"priority": 7, "amount": 30}).id


def test_fetch_and_lock_locks_the_task_for_the_worker(
    engine: Engine, clock: ControllableClock, started: str
) -> None:
    [waiting] = engine.external_task_service.external_tasks(process_instance_id=started)
    assert (waiting.topic_name, waiting.priority, waiting.worker_id) == ("invoice", 7, None)
    assert engine.external_task_service.fetch_and_lock("w1", {"other-topic": 1000}) == []

    [locked] = engine.external_task_service.fetch_and_lock("w1", {"invoice": 60_000}, max_tasks=5)

    assert locked.id == waiting.id and locked.activity_id == "createInvoice"
    assert locked.worker_id == "w1"
    assert locked.lock_expiration_time == clock.now() + timedelta(seconds=60)
    assert locked.variables == {"priority": 7, "amount": 30}
    assert (
        engine.external_task_service.fetch_and_lock("w2", {"invoice": 60_000}) == []
    )  # locked meanwhile
    clock.advance(seconds=61)
    [relocked] = engine.external_task_service.fetch_and_lock(
        "w2", {"invoice": 1000}
    )  # the lock expired
    assert relocked.worker_id == "w2"
    assert engine.events(started)[-1].actor == "w2"


def test_completing_an_external_task_continues_the_process_with_its_variables(
    engine: Engine, started: str
) -> None:
    [task] = engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000})
    with pytest.raises(Rejected, match="locked by worker 'w1'"):
        engine.external_task_service.complete(task.id, "intruder")

    engine.external_task_service.complete(task.id, "w1", {"invoiceNo": "INV-1"})

    assert engine.external_task_service.external_tasks(process_instance_id=started) == []
    assert open_task_names(engine, started) == ["Check invoice"]
    assert engine.runtime_service.get_variable(started, "invoiceNo") == "INV-1"
    with pytest.raises(NotFound):
        engine.external_task_service.complete(task.id, "w1")


def test_failures_count_down_retries_and_wait_for_the_retry_timeout(
    engine: Engine, clock: ControllableClock, started: str
) -> None:
    [task] = engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000})
    engine.external_task_service.handle_failure(
        task.id,
        "w1",
        "timeout calling ERP",
        error_details="stack...",
        retries=2,
        retry_timeout=5000,
    )
    [failed] = engine.external_task_service.external_tasks(process_instance_id=started)
    assert (failed.retries, failed.error_message) == (2, "timeout calling ERP")
    clock.advance(seconds=4)
    assert engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000}) == []
    clock.advance(seconds=2)
    [again] = engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000})
    assert again.error_message == "timeout calling ERP"

    engine.external_task_service.handle_failure(again.id, "w1", "still down", retries=0)
    clock.advance(hours=1)
    assert (
        engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000}) == []
    )  # no retries left
    failures = [e for e in engine.events(started) if e.type == "ExternalTaskFailed"]
    assert [f.payload["retries"] for f in failures] == [2, 0]


def test_a_bpmn_error_from_the_worker_is_caught_by_the_boundary_event(
    engine: Engine, started: str
) -> None:
    [task] = engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000})
    engine.external_task_service.handle_bpmn_error(
        task.id, "w1", "REJECTED", "customer unknown", {"x": 1}
    )

    assert engine.external_task_service.external_tasks(process_instance_id=started) == []
    assert open_task_names(engine, started) == ["Fix invoice"]
    assert engine.runtime_service.get_variables(started)["errorCode"] == "REJECTED"
    history = {a.activity_id: a for a in engine.historic_activity_instances(started)}
    assert history["createInvoice"].canceled and history["onRejected"].end_time is not None


def test_extend_lock_and_unlock(engine: Engine, clock: ControllableClock, started: str) -> None:
    [task] = engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000})
    engine.external_task_service.extend_lock(task.id, "w1", 30_000)
    [extended] = engine.external_task_service.external_tasks(process_instance_id=started)
    assert extended.lock_expiration_time == clock.now() + timedelta(seconds=30)
    with pytest.raises(Rejected):
        engine.external_task_service.extend_lock(task.id, "w2", 30_000)

    engine.external_task_service.unlock(task.id)
    [unlocked] = engine.external_task_service.external_tasks(process_instance_id=started)
    assert (unlocked.worker_id, unlocked.lock_expiration_time) == (None, None)
    assert len(engine.external_task_service.fetch_and_lock("w2", {"invoice": 1000})) == 1

    clock.advance(seconds=5)
    with pytest.raises(Rejected, match="expired"):
        engine.external_task_service.extend_lock(task.id, "w2", 1000)


def test_fetch_and_lock_prefers_higher_priority_when_asked(engine: Engine) -> None:
    engine.deploy(bpmn("external_task.bpmn"))
    low = engine.start_process_instance("externalInvoice", {"priority": 1}).id
    high = engine.start_process_instance("externalInvoice", {"priority": 9}).id
    [first] = engine.external_task_service.fetch_and_lock("w", {"invoice": 1000}, use_priority=True)
    assert first.process_instance_id == high
    [second] = engine.external_task_service.fetch_and_lock(
        "w", {"invoice": 1000}, use_priority=True
    )
    assert second.process_instance_id == low
