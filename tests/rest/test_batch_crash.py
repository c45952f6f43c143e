"""kill -9 of `flowledger serve` while its job executor runs a batch migrating (or deleting)
thousands of instances, then a restart on the same database: the batch completes and every
instance is migrated (deleted) exactly once.

A batch job's work and its `BatchJobCompleted` are one commit, so a crash loses both or
neither; the jobs leased by the killed server wait out their lease (5 minutes), so the test
finishes them with an engine whose clock is past it, as a later executor would. The log is the
witness: one `ProcessInstanceMigrated` (`ProcessInstanceTerminated`) per target, one
`BatchJobCompleted` per job.
`FLOWLEDGER_SLOW=1` runs 10,000 instances instead of 2,000 (500 in CI's database passes).
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.projections.queries.batches import Batch
from flowledger.projections.tables import ACT_RU_JOB
from tests.support import BPMN_DIR, fresh_database, selected_kind

from .server import served_process

MODEL = BPMN_DIR / "rest_task_steps.bpmn"
KEY = "restTaskSteps"
# The scale is the first pass's (SQLite); CI's other passes (PostgreSQL, MariaDB, the inline
# projection) prove the same crash and commit boundaries on their database with fewer targets,
# still many batch jobs and several seed runs.
if os.environ.get("FLOWLEDGER_SLOW") == "1":
    INSTANCES = 10_000
elif os.environ.get("FLOWLEDGER_DATABASE_TESTS_ONLY") == "1":
    INSTANCES = 500
else:
    INSTANCES = 2_000
KILL_AFTER = INSTANCES // 5  # jobs completed before the crash
WAIT = 600.0  # seconds the server may take to get there


def statistics(url: str, batch_id: str) -> dict[str, Any] | None:
    answer = httpx.get(f"{url}/batch/statistics", params={"batchId": batch_id}, timeout=10)
    assert answer.status_code == 200, answer.text
    found = answer.json()
    return found[0] if found else None


def progress_until(url: str, batch_id: str, done: int, seen: list[int]) -> None:
    """Poll the batch's statistics until `done` jobs completed (or its counts stop moving for
    10 s: the last jobs wait out a lease), recording the completed counts seen."""
    deadline = time.monotonic() + WAIT
    last, still_since = -1, time.monotonic()
    while time.monotonic() < deadline:
        stats = statistics(url, batch_id)
        completed = INSTANCES if stats is None else int(stats["completedJobs"])
        assert stats is None or stats["failedJobs"] == 0, stats
        if not seen or seen[-1] != completed:
            seen.append(completed)
        if completed >= done:
            return
        if completed != last:
            last, still_since = completed, time.monotonic()
        elif time.monotonic() - still_since > 10:
            return
        time.sleep(0.2)
    raise AssertionError(f"the batch got no further than {seen[-1:]} jobs in {WAIT} s")


def seed_held(url: str, batch_id: str) -> bool:
    """Whether the batch's seed job is leased (by the killed server: nobody else runs)."""
    with Engine(url) as engine, engine.reading() as conn:
        j = ACT_RU_JOB
        held = conn.execute(
            sa.select(j.c.ID_).where(
                j.c.BATCH_ID_ == batch_id,
                j.c.HANDLER_TYPE_ == "batch-seed-job",
                j.c.LOCK_OWNER_.is_not(None),
            )
        ).all()
    return bool(held)


def per_stream(engine: Engine, event_type: str) -> dict[str, int]:
    with engine.reading() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT stream_id, COUNT(*) FROM event_log_events WHERE event_type = :t "
                "GROUP BY stream_id"
            ),
            {"t": event_type},
        ).all()
    return {str(r[0]): int(r[1]) for r in rows}


def start_batch(engine: Engine, operation: str) -> tuple[list[str], Batch]:
    """Instances of the model, and a batch migrating them to its second version or deleting
    them."""
    [v1] = engine.deploy(MODEL).process_definitions
    ids = [engine.start_process_instance(definition_id=v1.id).id for _ in range(INSTANCES)]
    if operation == "ProcessInstanceTerminated":
        return ids, engine.runtime_service.delete_process_instances_async(ids, delete_reason="x")
    [v2] = engine.deploy(MODEL.read_bytes().replace(b'name="', b'name="v2 ', 1)).process_definitions
    plan = engine.runtime_service.create_migration_plan(v1.id, v2.id).map_equal_activities()
    return ids, engine.runtime_service.migrate_process_instances_async(plan.build(), ids)


@pytest.mark.parametrize("witness", ["ProcessInstanceMigrated", "ProcessInstanceTerminated"])
def test_a_batch_survives_kill_9_and_runs_every_target_once(tmp_path: Path, witness: str) -> None:
    log = tmp_path / "serve.log"
    with fresh_database(selected_kind(), tmp_path) as url:
        with Engine(url) as engine:
            ids, batch = start_batch(engine, witness)
            created = time.monotonic()
        seen: list[int] = []
        with served_process(url, log=log) as first:
            progress_until(first.url, batch.id, KILL_AFTER, seen)
            first.kill_group()  # kill -9, mid-batch
        at_kill = seen[-1]
        assert 0 < at_kill < INSTANCES, seen
        with served_process(url, log=log) as second:
            progress_until(second.url, batch.id, INSTANCES, seen)
            served_seconds = time.monotonic() - created
            second.stop()
        # Progress after the restart, unless the killed server held the seed job (its lease
        # runs 5 minutes, as Camunda's lock) when every job created so far was done.
        assert seen[-1] > at_kill or seed_held(url, batch.id), f"no progress: {seen}"
        assert len(seen) > 3, f"statistics showed no progress: {seen}"

        # What the killed server held leases on runs once they expire; the monitor polls.
        later = ControllableClock(datetime.now(UTC) + timedelta(minutes=10))
        with Engine(url, clock=later) as engine:
            engine.run_due_jobs()
            later.advance(minutes=1)
            engine.run_due_jobs()
            assert engine.management_service.batches() == []
            done = per_stream(engine, witness)
            assert sorted(done) == sorted(ids)
            assert set(done.values()) == {1}, f"an instance had two {witness}"
            assert per_stream(engine, "BatchJobCompleted") == {batch.id: INSTANCES}
            assert per_stream(engine, "BatchCompleted") == {batch.id: 1}
            assert engine.verify().ok
        print(
            f"\n{INSTANCES} instances: {len(seen)} progress readings, killed at {at_kill}, "
            f"{served_seconds:.1f} s served ({seen[-1] / served_seconds:.0f} jobs/s)"
        )
