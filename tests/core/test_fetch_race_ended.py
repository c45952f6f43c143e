"""fetchAndLock racing another node on one database: the candidate query ran before the other
node ended or deleted the instance (or took the task), the lock runs after. Camunda skips such a
task; the fetch answers with the others, never NotFound for the whole fetch.

The race is made deterministic by handing the handler the candidates read before the other
node's commit (what a read-committed database shows a node that read first)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from flowledger import ControllableClock, Engine
from flowledger.engine.commands.handlers import external_tasks as handler
from tests.support import bpmn


@pytest.fixture
def other_node(db_url: str, clock: ControllableClock, engine: Engine) -> Iterator[Engine]:
    """A second engine process on the same database (`engine` created the schema first)."""
    with Engine(db_url, clock=clock) as e:
        yield e


def _stale_candidates(monkeypatch: pytest.MonkeyPatch, engine: Engine, change: Any) -> None:
    """The next fetch locks among the candidates as they were before `change()` ran on another
    node."""
    real = handler.lookups.fetchable_external_tasks
    with engine.reading() as conn:
        stale = real(conn, ["invoice"], engine.clock.now(), 100, False)
    change()
    monkeypatch.setattr(handler.lookups, "fetchable_external_tasks", lambda *a, **k: stale)


def test_a_task_whose_instance_another_node_deleted_is_skipped(
    engine: Engine, other_node: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.deploy(bpmn("external_task.bpmn"))
    gone = engine.start_process_instance("externalInvoice", {"priority": 9}).id
    kept = engine.start_process_instance("externalInvoice", {"priority": 1}).id
    _stale_candidates(
        monkeypatch,
        engine,
        lambda: other_node.runtime_service.delete_process_instance(gone, "cancelled"),
    )

    locked = engine.external_task_service.fetch_and_lock("w1", {"invoice": 60_000}, max_tasks=5)

    assert [t.process_instance_id for t in locked] == [kept]


def test_a_task_whose_instance_another_node_ended_or_that_it_took_is_skipped(
    engine: Engine, other_node: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.deploy(bpmn("external_task.bpmn"))
    ended = engine.start_process_instance("externalInvoice", {"priority": 9}).id
    taken = engine.start_process_instance("externalInvoice", {"priority": 5}).id
    kept = engine.start_process_instance("externalInvoice", {"priority": 1}).id

    def other_node_works() -> None:
        [task] = other_node.external_task_service.fetch_and_lock(
            "w2", {"invoice": 60_000}, use_priority=True
        )
        other_node.external_task_service.complete(task.id, "w2")
        [user_task] = other_node.tasks(process_instance_id=ended)
        other_node.complete_task(user_task.id)
        [task] = other_node.external_task_service.fetch_and_lock(
            "w2", {"invoice": 60_000}, use_priority=True
        )
        assert task.process_instance_id == taken

    _stale_candidates(monkeypatch, engine, other_node_works)

    locked = engine.external_task_service.fetch_and_lock("w1", {"invoice": 60_000}, max_tasks=5)

    assert [t.process_instance_id for t in locked] == [kept]
    assert engine.runtime_service.process_instance(ended).ended  # type: ignore[union-attr]
