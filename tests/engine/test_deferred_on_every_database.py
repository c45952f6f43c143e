"""The deferred projection on the selected database (SQLite, PostgreSQL, MariaDB): commands write
the log, a follower writes the rest, reads see every write before them; on a server database
several engine processes share one follower at a time (the lease), and a standby takes over when
the holder dies."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

import pytest

from flowledger import Engine
from flowledger.engine.workers.history_worker import HistoryProcess
from tests.engine.test_deferred_projection import USER_TASK


def _until(condition: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds:g} s: {what}"
        time.sleep(0.02)


def _process(engine: Engine) -> HistoryProcess:
    deferred = engine._deferred
    assert deferred is not None
    worker = deferred.worker
    assert isinstance(worker, HistoryProcess)
    return worker


def test_reads_see_every_write_and_the_tables_equal_a_rebuild(db_url: str) -> None:
    with Engine(db_url, projection="deferred") as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        engine.start_projection_follower()
        for i in range(30):
            pi = engine.start_process_instance("p", {"who": "ann"}, business_key=f"order-{i}")
            (task,) = engine.tasks(process_instance_id=pi.id)
            engine.complete_task(task.id)
            # Read from the tables right after the write: the barrier makes them current.
            (done,) = engine.history_service.historic_task_instances(pi.id)
            assert done.end_time is not None
        # Command-side lookups: the subscription by business key, the new external task.
        engine.runtime_service.correlate_message("go", business_key="order-29")
        (locked,) = engine.external_task_service.fetch_and_lock("w", {"work": 60_000})
        assert locked.process_instance_id == pi.id
        assert engine.projection_health().status == "UP"
    with Engine(db_url, projection=None) as again:  # adopts the database's mode
        assert again.projection == "deferred"
        report = again.audit_service.verify()
        assert report.problems == []
        assert report.rows_compared > 0


def test_one_follower_per_database_and_a_standby_takes_over(db_url: str) -> None:
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite has no lease: each engine's follower follows (compare-and-set)")
    first = Engine(db_url, projection="deferred")
    second = Engine(db_url, projection=None)
    try:
        first.deploy({"p.bpmn": USER_TASK})
        first.start_projection_follower()
        _until(lambda: _process(first).ready, "the first engine's follower follows")
        second.start_projection_follower()
        _until(lambda: _process(second).standby, "the second engine's follower stands by")
        assert second.projection_health().projector == "standby"
        assert first.projection_health().projector == "running"

        # Reads on the standby's engine wait for the holder's batches.
        pi = second.start_process_instance("p", {"who": "ann"})
        assert [t.name for t in second.task_service.tasks(assignee="ann")] == ["Review"]

        # The holder dies: the database releases its lease, the standby takes it over.
        holder = _process(first)
        child = holder._child
        assert child is not None
        os.kill(child.pid, signal.SIGKILL)
        _until(lambda: _process(second).ready, "the standby took the lease over")
        (task,) = second.tasks(process_instance_id=pi.id)
        before = second.projection_health().read_catch_ups
        second.complete_task(task.id)
        # Nobody reads: the new holder alone brings the tables to the log's head.
        _until(lambda: second.projection_health().lag == 0, "the new holder follows")
        assert second.projection_health().read_catch_ups == before
        (done,) = second.history_service.historic_task_instances(pi.id)
        assert done.end_time is not None
    finally:
        second.close()
        first.close()
