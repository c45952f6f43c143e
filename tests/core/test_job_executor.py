"""The job executor: leases on ACT_RU_JOB rows, threads that run due jobs, and several executors
(threads and separate processes) sharing one database, each job run exactly once in effect.

These tests run real threads on the wall clock: they wait for the executors with a deadline (a
bound on a hang, not a timing assertion) and assert what ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.engine.workers.job_executor import JobExecutor, JobExecutorSettings
from flowledger.engine.workers.job_leases import acquire, release
from tests.support import fresh_database, selected_kind

ASYNC_CHAIN = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
<process id="batch" isExecutable="true">
  <startEvent id="s"/>
  <scriptTask id="work" scriptFormat="juel" camunda:asyncBefore="true"
              camunda:resultVariable="done"><script>${true}</script></scriptTask>
  <endEvent id="e"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
</process>
</definitions>
"""
FAST = JobExecutorSettings(threads=2, wait=0.02, max_wait=0.2)
DEADLINE = 120.0  # seconds: a hang fails the test instead of stalling the suite


def wait_until(done: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + DEADLINE
    while not done():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def executed_per_job(engine: Engine, instance_ids: list[str]) -> Counter[str]:
    """How often each job's JobExecuted event is in the log (exactly once each, in effect)."""
    counts: Counter[str] = Counter()
    for instance_id in instance_ids:
        for event in engine.events(instance_id):
            if event.type == "JobExecuted":
                counts[event.payload["job_id"]] += 1
    return counts


@pytest.fixture
def server_url(tmp_path: Path) -> Iterator[str]:
    """The selected database (the suite runs once per database kind in CI)."""
    with fresh_database(selected_kind(), tmp_path) as url:
        yield url


def test_a_lease_keeps_other_executors_off_until_it_expires(server_url: str) -> None:
    clock = ControllableClock()
    with Engine(server_url, clock=clock) as engine:
        engine.deploy(ASYNC_CHAIN)
        pi = engine.start_process_instance("batch")
        (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    db = sa.create_engine(server_url)
    now = clock.now()
    try:
        with db.begin() as conn:
            assert acquire(conn, "killed", now, now + timedelta(minutes=5), 10) == [job.id]
        with db.begin() as conn:
            assert acquire(conn, "other", now + timedelta(minutes=4), now, 10) == []
        later = now + timedelta(minutes=5, seconds=1)
        with db.begin() as conn:
            assert acquire(conn, "other", later, later + timedelta(minutes=5), 10) == [job.id]
        with db.begin() as conn:
            release(conn, "killed", [job.id])  # no longer its lease: nothing changes
            release(conn, "other", [job.id])
        with db.begin() as conn:
            assert acquire(conn, "third", now, now + timedelta(minutes=5), 10) == [job.id]
    finally:
        db.dispose()


def test_acquisition_by_priority_takes_the_highest_priority_first(server_url: str) -> None:
    urgent = ASYNC_CHAIN.replace('id="batch"', 'id="urgent"').replace(
        'camunda:asyncBefore="true"', 'camunda:asyncBefore="true" camunda:jobPriority="${10}"'
    )
    clock = ControllableClock()
    with Engine(server_url, clock=clock) as engine:
        engine.deploy(ASYNC_CHAIN)
        engine.deploy(urgent)
        engine.start_process_instance("batch")
        late = engine.start_process_instance("urgent")
        (urgent_job,) = engine.management_service.jobs(process_instance_id=late.id)
        assert urgent_job.priority == 10
    db = sa.create_engine(server_url)
    now, until = clock.now(), clock.now() + timedelta(minutes=5)
    try:
        with db.begin() as conn:
            first = acquire(conn, "a", now, until, 1)
            assert first and first != [urgent_job.id]  # in creation (due) order
            release(conn, "a", first)
        with db.begin() as conn:
            assert acquire(conn, "b", now, until, 1, by_priority=True) == [urgent_job.id]
    finally:
        db.dispose()


def test_the_executor_runs_due_jobs_in_the_background(server_url: str) -> None:
    with Engine(server_url, job_executor=True, job_executor_settings=FAST) as engine:
        engine.deploy(ASYNC_CHAIN)
        ids = [engine.start_process_instance("batch").id for _ in range(20)]
        wait_until(lambda: engine.management_service.jobs() == [], "the jobs to run")
        counts = executed_per_job(engine, ids)
        assert len(counts) == 20 and set(counts.values()) == {1}
        assert all(
            engine.history_service.historic_process_instance(i).state == "COMPLETED" for i in ids
        )
        health = engine.management_service.job_executor_health()
        assert health is not None and health.running and health.jobs_run >= 20
    assert engine.management_service.job_executor_health() is not None


def test_a_failing_job_is_retried_by_the_executor_until_an_incident(server_url: str) -> None:
    model = ASYNC_CHAIN.replace(
        'scriptFormat="juel"', 'scriptFormat="juel" camunda:exclusive="false"'
    ).replace("${true}", "${1 / missing}")
    with Engine(server_url, job_executor=True, job_executor_settings=FAST) as engine:
        engine.deploy(model)
        pi = engine.start_process_instance("batch")
        wait_until(
            lambda: engine.runtime_service.incidents(process_instance_id=pi.id) != [],
            "the incident",
        )
        (job,) = engine.management_service.jobs(process_instance_id=pi.id)
        assert job.retries == 0 and job.exception_message
        health = engine.management_service.job_executor_health()
        assert health is not None and health.jobs_failed == 3


JOBS = 1_000
_WORKER = textwrap.dedent(
    """
    import sys, time
    from flowledger import Engine
    from flowledger.engine.workers.job_executor import JobExecutor, JobExecutorSettings
    settings = JobExecutorSettings(threads=2, wait=0.02, max_wait=0.2)
    with Engine(sys.argv[1], job_executor=True, job_executor_settings=settings) as engine:
        end = time.monotonic() + float(sys.argv[2])
        while engine.management_service.jobs() and time.monotonic() < end:
            time.sleep(0.1)
    """
)


@pytest.mark.skipif(selected_kind() == "sqlite", reason="several executors: a server database")
def test_executors_in_threads_and_processes_run_each_job_exactly_once(server_url: str) -> None:
    with Engine(server_url) as loader:
        loader.deploy(ASYNC_CHAIN)
        ids = [loader.start_process_instance("batch").id for _ in range(JOBS)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    workers = [
        subprocess.Popen([sys.executable, "-c", _WORKER, server_url, str(DEADLINE)], env=env)
        for _ in range(2)
    ]
    engines = [Engine(server_url, job_executor=True, job_executor_settings=FAST) for _ in range(2)]
    try:
        wait_until(lambda: engines[0].management_service.jobs() == [], "every job to run")
    finally:
        for engine in engines:
            engine.close()
        for worker in workers:
            worker.wait(DEADLINE)
    with Engine(server_url) as engine:
        counts = executed_per_job(engine, ids)
        assert len(counts) == JOBS
        assert set(counts.values()) == {1}, Counter(counts.values())
        assert engine.history_service.historic_process_instances(finished=False) == []
        assert all(w.returncode == 0 for w in workers)


def test_stopping_gives_back_leases_not_started_and_runs_nothing_new(server_url: str) -> None:
    """The executor alone, with work that holds no transaction: one job runs (blocked), the other
    is leased and waits; stopping gives the waiting lease back and never starts that job."""
    import threading

    with Engine(server_url) as engine:
        engine.deploy(ASYNC_CHAIN)
        for _ in range(2):
            engine.start_process_instance("batch")
        ran: list[str] = []
        started, finish = threading.Event(), threading.Event()

        def run(job_id: str) -> bool:
            ran.append(job_id)
            started.set()
            finish.wait(DEADLINE)
            return True

        one = JobExecutorSettings(threads=1, wait=0.02, max_wait=0.2)
        executor = JobExecutor(run, engine._db.write, engine._db.read, engine.clock, one)
        executor.start()
        assert started.wait(DEADLINE), "the first job never started"
        wait_until(lambda: executor._work.qsize() == 1, "the second lease")
        stopping = threading.Thread(target=executor.stop)
        stopping.start()
        wait_until(lambda: executor._work.qsize() == 0, "the queue drained")
        finish.set()
        stopping.join(DEADLINE)
        assert not stopping.is_alive() and len(ran) == 1
        owners = {job.id: job.lock_owner for job in engine.management_service.jobs()}
        assert owners == {ran[0]: executor.owner, **{j: None for j in owners if j != ran[0]}}
        assert len(owners) == 2


@pytest.mark.skipif(
    selected_kind() == "sqlite",
    reason="on SQLite a job's command holds the one writer while its delegate runs, so no second "
    "lease is taken while a job runs (the test above shows stop on SQLite with work that holds "
    "no transaction)",
)
def test_stopping_finishes_the_running_job_and_gives_back_the_waiting_lease(
    server_url: str,
) -> None:
    import threading

    started, release = threading.Event(), threading.Event()

    def slow(execution: object) -> None:
        started.set()
        release.wait(DEADLINE)

    model = ASYNC_CHAIN.replace(
        '<scriptTask id="work" scriptFormat="juel" camunda:asyncBefore="true"\n'
        '              camunda:resultVariable="done"><script>${true}</script></scriptTask>',
        '<serviceTask id="work" camunda:delegateExpression="${slow}" camunda:asyncBefore="true"'
        ' camunda:exclusive="false"/>',
    )
    assert "${slow}" in model
    one_worker = JobExecutorSettings(threads=1, wait=0.02, max_wait=0.2)
    # The delegate waits for the test, which waits for leases: on a loaded machine that may take
    # longer than the default command budget (1 s), and the job would fail instead of finishing.
    engine = Engine(server_url, command_budget_seconds=60)
    engine.register_delegate("slow", slow)
    engine.deploy(model)
    first, second = (engine.start_process_instance("batch").id for _ in range(2))
    engine.start_job_executor(one_worker)
    assert started.wait(DEADLINE), "the first job never started"
    # One job runs; the other is leased and waits for the one worker.
    wait_until(
        lambda: all(j.lock_owner for j in engine.management_service.jobs()), "the second lease"
    )
    executor = engine._parts.jobs.executor
    assert executor is not None
    stopping = threading.Thread(target=engine.close)
    stopping.start()
    # Stopping takes the waiting job from the queue before the running one ends (on SQLite the
    # running job holds the one write transaction, so the lease goes back after it).
    wait_until(
        lambda: executor._stopping.is_set() and executor._work.qsize() == 0, "the queue drained"
    )
    release.set()
    stopping.join(DEADLINE)
    with Engine(server_url) as after:
        left = after.management_service.jobs()
        assert len(left) == 1 and left[0].lock_owner is None  # given back, not run
        done = {first, second} - {left[0].process_instance_id}
        assert [after.history_service.historic_process_instance(i).state for i in done] == [
            "COMPLETED"
        ]
