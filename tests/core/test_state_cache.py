"""The engine's state cache is bounded by the memory its states hold, not only by their count."""

from __future__ import annotations

import gc
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

from flowledger import Engine
from flowledger.engine.storage.state_cache import Cached, StateCache, state_size
from tests.support import bpmn

MB = 1024 * 1024
START_VARIABLES = {
    "initiator": "a",
    "extraUser": "b",
    "due": datetime(2031, 5, 4, tzinfo=UTC),
    "priority": 1,
    "orderId": "X",
}


def test_instances_with_large_variables_do_not_grow_the_cache_past_its_budget(
    tmp_path: Path,
) -> None:
    budget = 8 * MB
    with Engine(f"sqlite:///{tmp_path / 'cache.db'}", cache_bytes=budget) as engine:
        engine.deploy(bpmn("user_task_assignment.bpmn"))
        tracemalloc.start()
        try:
            started = []
            for i in range(20):
                big = {"blob": "x" * MB, "n": i}  # about 1 MB of JSON each
                variables = {**START_VARIABLES, "orderId": f"X{i}", "big": big}
                started.append(engine.start_process_instance("userTaskAssignment", variables).id)
            gc.collect()
            retained, _peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        # Twenty 1 MB states would be 20 MB and more; the cache keeps about its budget.
        assert engine._repository.cache.bytes <= budget
        assert retained < budget + 6 * MB, retained
        # An evicted state is read back from the log when a command needs it.
        first = started[0]
        assert engine.runtime_service.get_variable(first, "big")["n"] == 0
        task = engine.tasks(process_instance_id=first)[0]
        engine.complete_task(task.id)


def test_a_state_larger_than_an_eighth_of_the_budget_is_not_kept(tmp_path: Path) -> None:
    with Engine(f"sqlite:///{tmp_path / 'big.db'}", cache_bytes=4 * MB) as engine:
        engine.deploy(bpmn("user_task_assignment.bpmn"))
        small = engine.start_process_instance("userTaskAssignment", START_VARIABLES).id
        large = engine.start_process_instance(
            "userTaskAssignment", {**START_VARIABLES, "big": ["y" * MB]}
        ).id
        assert small in engine._repository.cache
        assert large not in engine._repository.cache
        assert engine.runtime_service.get_variable(large, "big") == ["y" * MB]


def test_the_size_estimate_counts_variable_values() -> None:
    with Engine("sqlite://") as engine:
        engine.deploy(bpmn("user_task_assignment.bpmn"))
        pi = engine.start_process_instance("userTaskAssignment", START_VARIABLES).id
        before = engine._repository.cache.peek(pi)
        assert before is not None
        engine.runtime_service.set_variables(pi, {"note": {"text": "z" * 100_000}})
        after = engine._repository.cache.peek(pi)
        assert after is not None
        assert after.size - before.size >= 100_000  # sizes as measured when each was cached
        assert after.size == state_size(after.state)


def test_least_recently_used_states_leave_first() -> None:
    with Engine("sqlite://") as engine:
        engine.deploy(bpmn("user_task_assignment.bpmn"))
        ids = [
            engine.start_process_instance("userTaskAssignment", START_VARIABLES).id for _ in "abc"
        ]
        entries = [engine._repository.cache.peek(i) for i in ids]
    cache = StateCache(max_states=3, max_bytes=10 * MB)
    for i, entry in zip(ids, entries, strict=True):
        assert entry is not None
        cache.put(i, Cached(entry.state, entry.version, entry.head_hash))
    assert len(cache) == 3
    cache.get(ids[0])  # used: the least recently used is now ids[1]
    cache.put("fourth", Cached(entries[0].state, 1, None))  # type: ignore[union-attr]
    assert ids[1] not in cache
    assert ids[0] in cache and ids[2] in cache and "fourth" in cache
    assert cache.bytes == sum(state_size(e.state) for e in entries)  # type: ignore[union-attr]
