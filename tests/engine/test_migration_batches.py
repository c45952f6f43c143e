"""Migration as a batch (issue 37): `newMigration(plan).executeAsync()` makes an
instance-migration batch whose jobs move a few instances each in their own commands; the plan
is checked when the batch is made; an instance that cannot move fails its job (retries down,
`failedJobs` in the statistics) and nothing of that job moves; each moved instance's trail
names the batch; Camunda's Migrate entry (async) is logged once, when the batch is made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from flowledger import ControllableClock, Engine, MigrationPlanInvalid
from flowledger.engine.workers.job_executor import JobExecutorSettings
from flowledger.projections.tables import ACT_HI_OP_LOG, ACT_RU_BATCH, ACT_RU_JOB
from tests.core.test_admin_commands import assert_log_and_tables_agree
from tests.engine.test_migration import deploy, plan, rows, task_process
from tests.support import fresh_database, selected_kind


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    settings = JobExecutorSettings(batch_jobs_per_seed=4, invocations_per_batch_job=3)
    with (
        fresh_database(selected_kind(), tmp_path) as url,
        Engine(
            url, clock=ControllableClock(), history_level="full", job_executor_settings=settings
        ) as engine,
    ):
        yield engine.acting_as("demo")


def test_a_migration_batch_moves_every_instance_in_chunks(engine: Engine) -> None:
    v1 = deploy(engine, task_process("userTask"))
    ids = [engine.start_process_instance(definition_id=v1).id for _ in range(20)]
    v2 = deploy(engine, task_process("approve"))
    built = plan(v1, v2, ("userTask", "approve"))
    batch = (
        engine.runtime_service.new_migration(built)
        .process_instance_query({"processDefinitionId": v1})
        .execute_async()
    )
    assert (batch.type, batch.total_jobs, batch.invocations_per_batch_job) == (
        "instance-migration",
        7,  # 20 instances, 3 a job
        3,
    )
    # the seed job makes four jobs; one of them moves its three instances in one command
    seed = rows(engine, ACT_RU_JOB, HANDLER_TYPE_="batch-seed-job")[0]
    engine.management_service.execute_job(seed["ID_"])
    job = rows(engine, ACT_RU_JOB, HANDLER_TYPE_="instance-migration")[0]
    engine.management_service.execute_job(job["ID_"])
    [stats] = engine.management_service.batch_statistics()
    assert (stats.completed_jobs, stats.remaining_jobs, stats.failed_jobs) == (1, 6, 0)
    moved = [t for t in engine.tasks() if t.process_definition_id == v2]
    assert len(moved) == 3
    # the rest, then the monitor completes the batch
    engine.run_due_jobs()
    engine.clock.advance(seconds=30)  # type: ignore[attr-defined]
    engine.run_due_jobs()
    assert rows(engine, ACT_RU_BATCH) == []
    assert {t.process_definition_id for t in engine.tasks()} == {v2}
    assert {t.task_definition_key for t in engine.tasks()} == {"approve"}
    # each instance's trail names the batch that moved it
    [entry] = [t for t in engine.audit_service.timeline(ids[0]) if "migrated" in t.what]
    assert entry.what == f"instance migrated by batch {batch.id} from {v1} to {v2}"
    # Camunda's Migrate entry, once, at the batch's creation (async: true)
    log = rows(engine, ACT_HI_OP_LOG, OPERATION_TYPE_="Migrate")
    assert {(r["PROPERTY_"], r["ORG_VALUE_"], r["NEW_VALUE_"]) for r in log} == {
        ("processDefinitionId", v1, v2),
        ("nrOfInstances", None, "20"),
        ("async", None, "true"),
    }
    assert {r["USER_ID_"] for r in log} == {"demo"}
    assert_log_and_tables_agree(engine)


def test_an_invalid_plan_makes_no_batch(engine: Engine) -> None:
    v1 = deploy(engine, task_process("userTask"))
    pid = engine.start_process_instance(definition_id=v1).id
    v2 = deploy(
        engine,
        task_process("userTask").replace(
            b'<userTask id="userTask" name="Review"/>',
            b'<serviceTask id="userTask" camunda:expression="${1}"/>',
        ),
    )
    with pytest.raises(MigrationPlanInvalid):
        engine.runtime_service.migrate_process_instances_async(
            plan(v1, v2, ("userTask", "userTask")), [pid]
        )
    assert rows(engine, ACT_RU_BATCH) == []


def test_an_instance_that_cannot_move_fails_its_job_only(engine: Engine) -> None:
    v1 = deploy(engine, task_process("userTask"))
    ids = [engine.start_process_instance(definition_id=v1).id for _ in range(4)]
    v2 = deploy(engine, task_process("approve"))
    batch = engine.runtime_service.migrate_process_instances_async(
        plan(v1, v2, ("userTask", "approve")), ids
    )
    # the last instance moves on by hand before its job runs: that job cannot move it
    v0 = deploy(engine, task_process("userTask"))
    engine.runtime_service.migrate_process_instances(
        plan(v1, v0, ("userTask", "userTask")), [ids[3]]
    )
    for _ in range(4):
        engine.run_due_jobs()
        engine.clock.advance(minutes=10)  # type: ignore[attr-defined]
    [stats] = engine.management_service.batch_statistics(batch_id=batch.id)
    assert (stats.completed_jobs, stats.failed_jobs) == (1, 1)
    [failed] = rows(engine, ACT_RU_JOB, HANDLER_TYPE_="instance-migration")
    assert failed["RETRIES_"] == 0
    assert "not applicable to process instance" in failed["EXCEPTION_MSG_"]
    versions = {t.process_instance_id: t.process_definition_id for t in engine.tasks()}
    assert [versions[i] for i in ids] == [v2, v2, v2, v0]
    assert_log_and_tables_agree(engine)
