"""Batches (issue 37), as Camunda runs them: a batch's seed job creates its jobs in chunks, each
job runs its targets in its own command, the monitor job completes the batch once no job is left;
suspension, deletion, failing jobs and their retries; the rows Camunda has (ACT_RU_BATCH,
ACT_HI_BATCH, ACT_RU_JOB, ACT_RU_JOBDEF, ACT_HI_OP_LOG); and a rebuild from the log writes the
same tables."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.core import commands as cmd
from flowledger.core.batches.model import MONITOR_JOB, SEED_JOB
from flowledger.core.errors import InvalidValue, JobFailure, NotFound, Rejected
from flowledger.engine.commands import batch_registry
from flowledger.engine.workers.job_executor import JobExecutorSettings
from flowledger.projections.queries.jobs import JobSearchQuery
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_BATCH,
    ACT_HI_JOB_LOG,
    ACT_HI_OP_LOG,
    ACT_RU_BATCH,
    ACT_RU_EXECUTION,
    ACT_RU_JOB,
    ACT_RU_JOBDEF,
)
from tests.core.test_admin_commands import assert_log_and_tables_agree
from tests.support import bpmn

MODEL = bpmn("user_task_assignment.bpmn")
KEY = "userTaskAssignment"
VARIABLES = {"initiator": "kermit", "extraUser": "gonzo", "priority": 60, "orderId": "o"}
VARIABLES["due"] = None


@pytest.fixture
def small_seeds(db_url: str, clock: ControllableClock) -> Iterator[Engine]:
    """Level full; a seed run creates 3 jobs of 2 targets each (Camunda's settings)."""
    settings = JobExecutorSettings(batch_jobs_per_seed=3, invocations_per_batch_job=2)
    with Engine(
        db_url, clock=clock, history_level="full", job_executor_settings=settings
    ) as engine:
        engine.deploy(MODEL)
        yield engine


def started(engine: Engine, n: int) -> list[str]:
    return [engine.start_process_instance(KEY, VARIABLES).id for _ in range(n)]


def running(engine: Engine, ids: list[str]) -> list[str]:
    e = ACT_RU_EXECUTION
    alive = {r["ID_"] for r in rows(engine, e, e.c.ID_ == e.c.PROC_INST_ID_)}
    return [i for i in ids if i in alive]


def rows(engine: Engine, table: sa.Table, *where: Any) -> list[dict[str, Any]]:
    with engine.reading() as conn:
        return [dict(r._mapping) for r in conn.execute(sa.select(table).where(*where))]


def jobs_of(engine: Engine, handler_type: str) -> list[dict[str, Any]]:
    return rows(engine, ACT_RU_JOB, ACT_RU_JOB.c.HANDLER_TYPE_ == handler_type)


def run_one(engine: Engine, handler_type: str) -> None:
    job = jobs_of(engine, handler_type)[0]
    engine.management_service.execute_job(job["ID_"])


def test_a_deletion_batch_seeds_its_jobs_in_chunks_runs_them_and_completes(
    small_seeds: Engine, clock: ControllableClock
) -> None:
    engine = small_seeds
    ids = started(engine, 9)
    kermit = engine.acting_as("kermit")
    batch = kermit.runtime_service.delete_process_instances_async(ids[:7], delete_reason="gone")
    assert (batch.type, batch.total_jobs, batch.jobs_created) == ("instance-deletion", 4, 0)
    assert (batch.batch_jobs_per_seed, batch.invocations_per_batch_job) == (3, 2)
    assert batch.create_user_id == "kermit" and not batch.suspended

    # Camunda's rows: the batch, three job definitions of it, its seed job due at once
    [row] = rows(engine, ACT_RU_BATCH)
    assert row["CONFIGURATION_"] is not None and row["SUSPENSION_STATE_"] == 1
    jobdefs = rows(engine, ACT_RU_JOBDEF, ACT_RU_JOBDEF.c.JOB_CONFIGURATION_ == batch.id)
    assert sorted(d["JOB_TYPE_"] for d in jobdefs) == sorted(
        [SEED_JOB, MONITOR_JOB, "instance-deletion"]
    )
    [seed] = jobs_of(engine, SEED_JOB)
    assert (seed["HANDLER_CFG_"], seed["BATCH_ID_"], seed["DUEDATE_"]) == (batch.id, batch.id, None)
    [historic] = engine.history_service.historic_batches()
    assert historic.id == batch.id and historic.end_time is None

    # the first seed run: 3 jobs and a new seed job; nothing deleted yet
    run_one(engine, SEED_JOB)
    stats = engine.management_service.batch_statistics()[0]
    assert (stats.jobs_created, stats.remaining_jobs, stats.completed_jobs) == (3, 4, 0)
    assert len(jobs_of(engine, "instance-deletion")) == 3
    assert len(jobs_of(engine, SEED_JOB)) == 1
    assert len(running(engine, ids)) == 9

    # one batch job: its two instances are gone, in the job's command
    run_one(engine, "instance-deletion")
    stats = engine.management_service.batch_statistics()[0]
    assert (stats.remaining_jobs, stats.completed_jobs, stats.failed_jobs) == (3, 1, 0)
    assert len(running(engine, ids)) == 7
    assert stats.execution_start_time is not None

    # the last seed run makes the monitor job, due at once: it finds jobs left and polls again
    # 30 s later (Camunda's batchPollTime), while the jobs run
    run_one(engine, SEED_JOB)
    assert jobs_of(engine, SEED_JOB) == []
    run_one(engine, MONITOR_JOB)
    [monitor] = jobs_of(engine, MONITOR_JOB)
    assert monitor["DUEDATE_"] is not None
    engine.run_due_jobs()
    assert running(engine, ids) == ids[7:]
    assert engine.history_service.historic_process_instance(ids[0]).delete_reason == "gone"
    stats = engine.management_service.batch_statistics()[0]
    assert (stats.remaining_jobs, stats.completed_jobs, stats.failed_jobs) == (0, 4, 0)
    clock.advance(seconds=30)
    assert engine.run_due_jobs() == 1
    assert engine.management_service.batches() == []
    assert rows(engine, ACT_RU_BATCH) == []
    assert rows(engine, ACT_RU_JOBDEF, ACT_RU_JOBDEF.c.JOB_CONFIGURATION_ == batch.id) == []
    assert rows(engine, ACT_RU_JOB, ACT_RU_JOB.c.BATCH_ID_ == batch.id) == []
    [historic] = engine.history_service.historic_batches()
    assert historic.end_time is not None and historic.execution_start_time is not None
    # no batch byte array is left behind
    names = {r["NAME_"] for r in rows(engine, ACT_GE_BYTEARRAY)}
    assert not names & {"batch.configuration", "job.handlerConfiguration"}

    # Camunda's operation log entry, written when the batch was created
    entries = rows(engine, ACT_HI_OP_LOG, ACT_HI_OP_LOG.c.OPERATION_TYPE_ == "Delete")
    assert {(e["PROPERTY_"], e["NEW_VALUE_"]) for e in entries} == {
        ("nrOfInstances", "7"),
        ("async", "true"),
        ("deleteReason", "gone"),
    }
    assert {e["ENTITY_TYPE_"] for e in entries} == {"ProcessInstance"}
    assert_log_and_tables_agree(engine)


def test_the_targets_come_from_a_query_too_and_an_empty_batch_is_refused(
    small_seeds: Engine,
) -> None:
    from flowledger.projections.queries.runtime import ProcessInstanceQuery

    engine = small_seeds
    ids = started(engine, 3)
    with pytest.raises(Rejected, match="processInstanceIds is empty"):
        engine.runtime_service.delete_process_instances_async(
            process_instance_query=ProcessInstanceQuery(business_key="none")
        )
    with pytest.raises(Rejected, match="processInstanceIds or processInstanceQuery"):
        engine.runtime_service.delete_process_instances_async()
    batch = engine.runtime_service.delete_process_instances_async(
        [ids[0]], ProcessInstanceQuery(process_definition_key=KEY)
    )
    assert batch.total_jobs == 2  # ids[0] once, then ids[1] and ids[2]: 3 targets, 2 per job
    engine.run_due_jobs()
    assert running(engine, ids) == []


def test_suspension_stops_a_batch_and_activation_resumes_it(small_seeds: Engine) -> None:
    engine = small_seeds
    ids = started(engine, 4)
    batch = engine.runtime_service.delete_process_instances_async(ids)
    run_one(engine, SEED_JOB)
    kermit = engine.acting_as("kermit").management_service
    kermit.suspend_batch_by_id(batch.id)
    assert engine.management_service.batch(batch.id).suspended
    assert engine.management_service.batches(suspended=True)[0].id == batch.id
    assert engine.management_service.batches(suspended=False) == []
    assert {j["SUSPENSION_STATE_"] for j in rows(engine, ACT_RU_JOB)} == {2}
    assert engine.run_due_jobs() == 0
    assert len(running(engine, ids)) == 4
    kermit.activate_batch_by_id(batch.id)
    engine.run_due_jobs()
    assert running(engine, ids) == []
    types = [r["OPERATION_TYPE_"] for r in rows(engine, ACT_HI_OP_LOG)]
    assert "SuspendBatch" in types and "ActivateBatch" in types
    assert_log_and_tables_agree(engine)


@pytest.mark.parametrize("cascade", [False, True])
def test_deleting_a_batch_takes_its_jobs_and_with_cascade_its_history(
    small_seeds: Engine, cascade: bool
) -> None:
    engine = small_seeds
    ids = started(engine, 8)
    batch = engine.runtime_service.delete_process_instances_async(ids)
    run_one(engine, SEED_JOB)
    run_one(engine, "instance-deletion")
    engine.acting_as("kermit").management_service.delete_batch(batch.id, cascade=cascade)
    assert engine.management_service.batches() == []
    assert rows(engine, ACT_RU_JOB) == []
    assert len(running(engine, ids)) == 6  # what ran stays done, nothing more runs
    historic = rows(engine, ACT_HI_BATCH)
    if cascade:
        assert historic == []
    else:
        assert historic[0]["END_TIME_"] is not None
        engine.history_service.delete_historic_batch(batch.id)
        assert rows(engine, ACT_HI_BATCH) == []
    with pytest.raises(NotFound):
        engine.management_service.delete_batch(batch.id)
    assert_log_and_tables_agree(engine)


def test_a_failing_job_loses_its_retries_and_counts_as_failed(
    small_seeds: Engine, clock: ControllableClock
) -> None:
    engine = small_seeds
    ids = started(engine, 3)
    batch = engine.runtime_service.delete_process_instances_async(ids)
    engine.runtime_service.delete_process_instance(ids[2])  # its job will fail: not found
    engine.run_due_jobs()
    assert running(engine, ids) == []
    [failed] = jobs_of(engine, "instance-deletion")
    assert failed["RETRIES_"] == 0 and "ids[2]" not in (failed["EXCEPTION_MSG_"] or "")
    assert failed["EXCEPTION_STACK_ID_"] is not None
    stats = engine.management_service.batch_statistics(batch_id=batch.id)[0]
    assert (stats.remaining_jobs, stats.completed_jobs, stats.failed_jobs) == (1, 1, 1)
    # failed jobs are left jobs: the monitor does not complete the batch
    clock.advance(minutes=5)
    engine.run_due_jobs()
    assert engine.management_service.batches()[0].id == batch.id
    # new retries: it fails again, once; deleting the batch takes it along
    engine.management_service.set_job_retries(failed["ID_"], 1)
    engine.run_due_jobs()
    assert jobs_of(engine, "instance-deletion")[0]["RETRIES_"] == 0
    engine.management_service.delete_batch(batch.id)
    stacktraces = ACT_GE_BYTEARRAY.c.NAME_ == "job.exceptionByteArray"
    runtime = ACT_GE_BYTEARRAY.c.TYPE_ == 2
    assert rows(engine, ACT_GE_BYTEARRAY, stacktraces, runtime) == []

    # Camunda's job log of the failing job: created, four failures (each with its message and
    # stack trace, the retries it ran with), deleted with the batch
    log = ACT_HI_JOB_LOG
    states = [
        (r["JOB_STATE_"], r["JOB_RETRIES_"], r["JOB_EXCEPTION_MSG_"] is not None)
        for r in sorted(
            rows(engine, log, log.c.JOB_ID_ == failed["ID_"]), key=lambda r: r["TIMESTAMP_"]
        )
    ]
    assert states[0] == (0, 3, False) and states[-1] == (3, 0, False)
    assert sorted(states[1:-1]) == [(1, 1, True), (1, 1, True), (1, 2, True), (1, 3, True)]
    failures = rows(engine, log, log.c.JOB_ID_ == failed["ID_"], log.c.JOB_STATE_ == 1)
    blobs = {r["JOB_EXCEPTION_STACK_ID_"] for r in failures}
    assert len(rows(engine, ACT_GE_BYTEARRAY, ACT_GE_BYTEARRAY.c.ID_.in_(blobs))) == 4
    assert {r["JOB_DEF_CONFIGURATION_"] for r in rows(engine, log)} == {batch.id}
    assert_log_and_tables_agree(engine)
    # deleting the batch's history takes its job log and those stack traces
    engine.history_service.delete_historic_batch(batch.id)
    assert rows(engine, log) == []
    assert rows(engine, ACT_GE_BYTEARRAY, ACT_GE_BYTEARRAY.c.ID_.in_(blobs)) == []
    assert_log_and_tables_agree(engine)


def test_the_registry_knows_camundas_types_and_refuses_others(engine: Engine) -> None:
    assert "instance-deletion" in batch_registry.registered_types()
    with pytest.raises(Rejected, match="not supported"):
        engine.management_service.create_batch("no-such-type", ["x"])
    with pytest.raises(ValueError, match="registered already"):
        batch_registry.register(batch_registry.operation("instance-deletion"))


def test_the_settings_are_checked(db_url: str) -> None:
    with pytest.raises(InvalidValue, match="batch_jobs_per_seed"):
        Engine(db_url, job_executor_settings=JobExecutorSettings(batch_jobs_per_seed=0))


# -- set-job-retries ----------------------------------------------------------------------------


def failed_jobs(engine: Engine, n: int) -> list[str]:
    """`n` instances whose asynchronous script failed out of its retries; their job ids."""
    engine.deploy(bpmn("rest_async_script_then_timer.bpmn"))
    for _ in range(n):
        engine.start_process_instance("restJobs")
    for _ in range(3):
        for job in engine.management_service.jobs(handler_type="async-continuation"):
            with contextlib.suppress(JobFailure):
                engine.management_service.execute_job(job.id)
    jobs = engine.management_service.jobs(no_retries_left=True)
    assert len(jobs) == n
    return [j.id for j in jobs]


def test_a_retries_batch_sets_the_retries_of_the_jobs_named_and_found(
    small_seeds: Engine, clock: ControllableClock
) -> None:
    engine = small_seeds
    ids = failed_jobs(engine, 3)
    due = clock.now() + timedelta(hours=2)
    kermit = engine.acting_as("kermit").management_service
    batch = kermit.set_job_retries_async(ids[:1], JobSearchQuery(job_ids=ids[1:]), 5, due_date=due)
    assert (batch.type, batch.total_jobs) == ("set-job-retries", 2)
    for handler in (SEED_JOB, "set-job-retries", "set-job-retries"):
        run_one(engine, handler)
    jobs = {j.id: j for j in engine.management_service.jobs(handler_type="async-continuation")}
    assert {jobs[i].retries for i in ids} == {5}
    assert {jobs[i].due_date for i in ids} == {due}
    # their incidents are resolved, as a synchronous setJobRetries resolves them
    assert engine.runtime_service.incidents() == []
    entries = rows(engine, ACT_HI_OP_LOG, ACT_HI_OP_LOG.c.OPERATION_TYPE_ == "SetJobRetries")
    assert {(e["PROPERTY_"], e["NEW_VALUE_"], e["ENTITY_TYPE_"]) for e in entries} == {
        ("nrOfInstances", "3", "Job"),
        ("async", "true", "Job"),
        ("retries", "5", "Job"),
    }
    # by process instance: every job of the instances
    instances = [j.process_instance_id for j in jobs.values()]
    batch = engine.management_service.set_job_retries_async_by_process(instances, 1)
    engine.run_due_jobs()
    assert engine.management_service.batches() == []
    with pytest.raises(Rejected, match="non-negative"):
        engine.management_service.set_job_retries_async(ids, retries=-1)
    assert_log_and_tables_agree(engine)


# -- suspension, external task retries, historic deletion ---------------------------------------


def test_suspension_external_task_retries_and_history_deletion_batches(
    small_seeds: Engine,
) -> None:
    engine = small_seeds
    ids = started(engine, 3)
    batch = engine.runtime_service.update_process_instances_suspension_state_async(
        ids, suspended=True
    )
    assert batch.type == "instance-update-suspension-state"
    engine.run_due_jobs()
    assert {r["SUSPENSION_STATE_"] for r in rows(engine, ACT_RU_EXECUTION)} == {2}
    engine.runtime_service.update_process_instances_suspension_state_async(ids, suspended=False)
    engine.run_due_jobs()
    assert {r["SUSPENSION_STATE_"] for r in rows(engine, ACT_RU_EXECUTION)} == {1}

    engine.deploy(bpmn("external_task.bpmn"))
    for _ in range(2):
        engine.start_process_instance("externalInvoice", {"amount": 5, "priority": 1})
    tasks = [t.id for t in engine.external_task_service.external_tasks()]
    batch = engine.external_task_service.set_retries_async(tasks, 6)
    assert batch.type == "set-external-task-retries"
    engine.run_due_jobs()
    assert {t.retries for t in engine.external_task_service.external_tasks()} == {6}

    for instance_id in ids:
        engine.runtime_service.delete_process_instance(instance_id)
    history = engine.acting_as("kermit").history_service
    batch = history.delete_historic_process_instances_async(ids, "tidy")
    assert batch.type == "historic-instance-deletion"
    engine.run_due_jobs()
    found = {h.id for h in engine.history_service.historic_process_instances()}
    assert not set(ids) & found
    entries = rows(engine, ACT_HI_OP_LOG, ACT_HI_OP_LOG.c.OPERATION_TYPE_ == "DeleteHistory")
    assert ("nrOfInstances", "3") in {(e["PROPERTY_"], e["NEW_VALUE_"]) for e in entries}
    assert_log_and_tables_agree(engine)


# -- modification and restart -------------------------------------------------------------------


def test_modification_and_restart_batches(small_seeds: Engine) -> None:
    engine = small_seeds
    ids = started(engine, 3)
    definition = engine.history_service.historic_process_instance(ids[0]).process_definition_id
    kermit = engine.acting_as("kermit").runtime_service
    moves = [
        cmd.StartBeforeActivity(activity_id="approve"),
        cmd.CancelAllForActivity(activity_id="review"),
    ]
    batch = kermit.modify_process_instances_async(definition, ids[:2], moves, annotation="fix")
    assert (batch.type, batch.total_jobs) == ("instance-modification", 1)  # 2 per job
    one = kermit.modify_process_instance_async(ids[2], moves)
    assert one.total_jobs == 1
    engine.run_due_jobs()
    assert {t.task_definition_key for t in engine.tasks()} == {"approve"}
    entries = rows(
        engine, ACT_HI_OP_LOG, ACT_HI_OP_LOG.c.OPERATION_TYPE_ == "ModifyProcessInstance"
    )
    assert ("async", "true", "fix") in {
        (e["PROPERTY_"], e["NEW_VALUE_"], e["ANNOTATION_"]) for e in entries
    }

    for instance_id in ids:
        engine.runtime_service.delete_process_instance(instance_id)
    batch = kermit.restart_process_instances_async(
        definition, ids, [cmd.StartBeforeActivity(activity_id="review")]
    )
    assert (batch.type, batch.total_jobs) == ("instance-restart", 2)
    engine.run_due_jobs()
    assert len([t for t in engine.tasks() if t.task_definition_key == "review"]) == 3
    with pytest.raises(NotFound):
        kermit.restart_process_instances_async(
            "nope:1:x", ids, [cmd.StartBeforeActivity(activity_id="a")]
        )
    assert_log_and_tables_agree(engine)
