"""Commands of several processes, and of several threads in each, on one database at once.

A follower reading the log while they write sees positions gapless and in commit order; every
command that returned has its events; an external task is locked by one worker only, however
many fetch at once; long polls are answered while other processes write. Runs on the database
the suite runs on (FLOWLEDGER_TEST_DB); engines in child processes are spawned, as a second
server process would be.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from multiprocessing.pool import AsyncResult
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from typing import Any, TypeVar

import httpx
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from flowledger import Engine, NotFound
from flowledger.engine.storage.database import create_database
from flowledger.eventlog import EventStore, StoredCommit
from tests.rest.server import live_server
from tests.support import bpmn

T = TypeVar("T")

PROCESSES = 3
THREADS = 2  # per process: commands of one engine in flight at once
INSTANCES = 5  # per thread
FORK_JOIN = bpmn("parallel_gateway_fork_join.bpmn")  # two user tasks at once, then "Archive"


# -- work done in spawned processes (module-level functions: spawn pickles them by name) ---------


def _in_threads(work: Callable[[int], T], threads: int) -> list[T]:
    barrier = threading.Barrier(threads)

    def run(t: int) -> T:
        barrier.wait()
        return work(t)

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(run, range(threads)))


def run_instances(url: str, worker: str, threads: int, instances: int) -> list[str]:
    """Run `instances` fork/join instances to their end in each of `threads` threads of one
    engine; the ids of the instances whose every command returned."""

    def work(t: int) -> list[str]:
        done = []
        for _ in range(instances):
            pi = engine.start_process_instance("parallelForkJoin", business_key=f"{worker}-{t}")
            for name in ("Ship", "Bill", "Archive"):
                (task,) = (x for x in engine.tasks(process_instance_id=pi.id) if x.name == name)
                engine.complete_task(task.id, {f"by{name}": worker})
            done.append(pi.id)
        return done

    with Engine(url) as engine:
        return [pi for ids in _in_threads(work, threads) for pi in ids]


def complete_tasks(
    url: str, worker: str, task_ids: Sequence[str], together: Barrier, out: Queue[Any]
) -> None:
    """Complete each task at the moment the other process completes its own task of the same
    instance, all setting the same new process variable; 'done' or the error, to `out`."""
    outcomes = []
    with Engine(url) as engine:
        for task_id in task_ids:
            together.wait(timeout=60)
            try:
                engine.complete_task(task_id, {"approvedBy": worker})
                outcomes.append("done")
            except Exception as exc:  # what this test looks for
                outcomes.append(f"{type(exc).__name__}: {exc}")
    out.put((worker, outcomes))


def fetch_until_empty(url: str, worker: str, threads: int) -> list[str]:
    """Workers of one process fetch and lock `invoice` tasks, two at a time, until none is left
    for them; the ids each was handed."""

    def work(t: int) -> list[str]:
        got: list[str] = []
        empty = 0
        while empty < 3:  # a fetch that lost every race answers empty too: ask again
            locked = engine.external_task_service.fetch_and_lock(
                f"{worker}-{t}", {"invoice": 600_000}, max_tasks=2
            )
            got += [task.id for task in locked]
            empty = 0 if locked else empty + 1
        return got

    with Engine(url) as engine:
        return [task for got in _in_threads(work, threads) for task in got]


def start_on_topic(url: str, topic: str, count: int) -> list[str]:
    with Engine(url) as engine:
        return [
            engine.start_process_instance("restExtWorker", {"topic": topic}).id
            for _ in range(count)
        ]


# -- the test's side ------------------------------------------------------------------------------


@contextmanager
def processes(count: int) -> Iterator[multiprocessing.pool.Pool]:
    with multiprocessing.get_context("spawn").Pool(count) as pool:
        yield pool


class Follower:
    """Reads the log the way the history follower does (`first_position > checkpoint`, in
    position order), over and over while writers run, and checks what each read shows."""

    def __init__(self, url: str) -> None:
        self._db = create_database(url)
        self._store = EventStore(self._db.dialect.name)
        self.position = 0
        self.reads_that_moved = 0
        self.commits: list[StoredCommit] = []

    def read(self) -> None:
        with self._db.connect() as conn:
            batch = list(self._store.read_all(conn, after_position=self.position, batch_size=50))
        for commit in batch:
            # A commit that becomes visible later with a lower position would be skipped forever.
            assert commit.first_position == self.position + 1, (
                f"after position {self.position} the follower saw {commit.first_position}"
            )
            self.position = commit.last_position
        if batch:
            self.reads_that_moved += 1
            self.commits += batch

    def follow(self, *running: AsyncResult[Any]) -> None:
        while not all(r.ready() for r in running):
            self.read()
        self.read()

    def close(self) -> None:
        self._db.dispose()


def stream_event_types(url: str) -> dict[str, list[str]]:
    """Stream id -> its event types, in stream order (read straight from the log)."""
    db = create_database(url)
    try:
        with db.connect() as conn:
            view = sa.text(
                "SELECT stream_id, event_type FROM event_log_events ORDER BY stream_id, position"
            )
            types: dict[str, list[str]] = {}
            for stream_id, event_type in conn.execute(view):
                types.setdefault(stream_id, []).append(event_type)
        return types
    finally:
        db.dispose()


def fork_join_instances(engine: Engine, count: int) -> tuple[list[str], dict[str, list[str]]]:
    """`count` instances of the fork-join model, and the ids of their two open tasks by name."""
    engine.deploy(FORK_JOIN)
    instances = [engine.start_process_instance("parallelForkJoin").id for _ in range(count)]
    tasks = {
        name: [
            next(t.id for t in engine.tasks(process_instance_id=pi) if t.name == name)
            for pi in instances
        ]
        for name in ("Ship", "Bill")
    }
    return instances, tasks


def test_a_follower_sees_a_gapless_log_in_commit_order_while_processes_and_threads_write(
    db_url: str,
) -> None:
    with Engine(db_url) as engine:
        engine.deploy(FORK_JOIN)
    follower = Follower(db_url)
    try:
        with processes(PROCESSES) as pool:
            running = [
                pool.apply_async(run_instances, (db_url, f"p{p}", THREADS, INSTANCES))
                for p in range(PROCESSES)
            ]
            follower.follow(*running)
            finished = [pi for r in running for pi in r.get()]
    finally:
        follower.close()

    assert len(finished) == PROCESSES * THREADS * INSTANCES
    assert follower.reads_that_moved > 1  # it read while the writers wrote
    with Engine(db_url) as engine:
        assert follower.position == engine.log_position()
        report = engine.verify()
    assert report.problems == []  # positions, chains, command log, replay == live, tables
    # Nothing lost: every instance whose commands returned is in the log, to its end.
    types = stream_event_types(db_url)
    for pi in finished:
        assert types[pi][0] == "ProcessInstanceStarted"
        assert types[pi][-1] == "ProcessInstanceCompleted"
        assert types[pi].count("TaskCompleted") == 3


def test_commands_racing_on_one_instance_are_decided_again_and_lose_nothing(
    db_url: str,
) -> None:
    """Two processes complete the two open tasks of each instance at the same moment, both
    creating the same process variable: the one that loses the race (on the log, on the
    variable's unique key, or in a deadlock) decides again, and both completions count."""
    with Engine(db_url) as engine:
        instances, tasks = fork_join_instances(engine, 12)
    context = multiprocessing.get_context("spawn")
    together, out = context.Barrier(2), context.Queue()
    racers = [
        context.Process(target=complete_tasks, args=(db_url, name, tasks[name], together, out))
        for name in ("Ship", "Bill")
    ]
    for racer in racers:
        racer.start()
    try:
        outcomes = dict(out.get(timeout=120) for _ in racers)
    finally:
        for racer in racers:
            racer.join(30)

    assert outcomes == {"Ship": ["done"] * 12, "Bill": ["done"] * 12}
    with Engine(db_url) as engine:
        for pi in instances:
            assert [t.name for t in engine.tasks(process_instance_id=pi)] == ["Archive"]
            assert engine.runtime_service.get_variable(pi, "approvedBy") in ("Ship", "Bill")
        assert engine.verify().problems == []


def test_threads_of_one_engine_racing_on_one_instance_are_decided_again(db_url: str) -> None:
    """The same race inside one engine: each thread decides on a state of its own (never the
    other's half-decided one), and the loser decides again on the winner's."""
    with Engine(db_url) as engine:
        instances, tasks = fork_join_instances(engine, 12)
        together = threading.Barrier(2)

        def complete(name: str) -> None:
            for task_id in tasks[name]:
                together.wait(timeout=60)
                engine.complete_task(task_id, {"approvedBy": name})

        with ThreadPoolExecutor(2) as threads:
            for done in [threads.submit(complete, name) for name in ("Ship", "Bill")]:
                done.result()
        for pi in instances:
            assert [t.name for t in engine.tasks(process_instance_id=pi)] == ["Archive"]
        assert engine.verify().problems == []


def test_verify_while_threads_of_the_engine_run_commands_sees_no_command_half_done(
    db_url: str,
) -> None:
    with Engine(db_url) as engine:
        engine.deploy(FORK_JOIN)
        with ThreadPoolExecutor(THREADS) as threads:
            running = [threads.submit(run_instances_here, engine, 4) for _ in range(THREADS)]
            reports = []
            while not all(r.done() for r in running):
                reports.append(engine.verify())
            for r in running:
                r.result()
        assert [p for report in reports for p in report.problems] == []
        assert engine.verify().problems == []


def test_an_external_task_is_locked_by_one_worker_however_many_fetch_at_once(
    db_url: str,
) -> None:
    with Engine(db_url) as engine:
        engine.deploy(bpmn("external_task.bpmn"))
        instances = [
            engine.start_process_instance("externalInvoice", {"priority": 1, "amount": i}).id
            for i in range(30)
        ]
        all_tasks = {
            t.id
            for pi in instances
            for t in engine.external_task_service.external_tasks(process_instance_id=pi)
        }
    with processes(PROCESSES) as pool:
        running = [
            pool.apply_async(fetch_until_empty, (db_url, f"w{p}", THREADS))
            for p in range(PROCESSES)
        ]
        handed = [task for r in running for task in r.get()]

    assert [task for task, n in Counter(handed).items() if n > 1] == []
    assert set(handed) == all_tasks
    with Engine(db_url) as engine:
        for pi in instances:
            (task,) = engine.external_task_service.external_tasks(process_instance_id=pi)
            assert task.worker_id is not None
        assert all(
            [e.type for e in engine.events(pi)].count("ExternalTaskLocked") == 1 for pi in instances
        )


def test_long_polls_are_answered_while_other_processes_and_threads_write(db_url: str) -> None:
    topic = f"topic-{uuid.uuid4().hex[:8]}"
    polls = 4
    with Engine(db_url) as engine, live_server(engine) as server:
        engine.deploy(bpmn("rest_ext_worker.bpmn"))
        engine.deploy(FORK_JOIN)

        def long_poll(worker: int) -> httpx.Response:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                return client.post(
                    "/external-task/fetchAndLock",
                    json={
                        "workerId": f"poller-{worker}",
                        "maxTasks": 1,
                        "asyncResponseTimeout": 30_000,
                        "topics": [{"topicName": topic, "lockDuration": 60_000}],
                    },
                )

        with ThreadPoolExecutor(polls + THREADS) as threads, processes(1) as pool:
            waiting = [threads.submit(long_poll, w) for w in range(polls)]
            # This server's engine is busy with commands of its own meanwhile.
            busy = [threads.submit(run_instances_here, engine, 3) for _ in range(THREADS)]
            started = pool.apply_async(start_on_topic, (db_url, topic, polls)).get()
            answers = [w.result() for w in waiting]
            for b in busy:
                b.result()

        assert [a.status_code for a in answers] == [200] * polls
        handed = [task["processInstanceId"] for a in answers for task in a.json()]
        assert sorted(handed) == sorted(started)


def run_instances_here(engine: Engine, instances: int) -> None:
    for _ in range(instances):
        pi = engine.start_process_instance("parallelForkJoin")
        for name in ("Ship", "Bill", "Archive"):
            (task,) = (x for x in engine.tasks(process_instance_id=pi.id) if x.name == name)
            engine.complete_task(task.id)


def test_a_command_waiting_for_its_rows_does_not_hold_up_other_instances(db_url: str) -> None:
    """The ordering lock covers only positions and what follows them: while a command waits for
    a row lock of its own instance, commands on other instances still commit."""
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite has one writer at a time: there is nothing to overlap")
    # Inline: a deferred command writes no task row, so nothing of it waits for one.
    with Engine(db_url, projection="inline") as engine:
        engine.deploy(FORK_JOIN)
        pi = engine.start_process_instance("parallelForkJoin").id
        (ship,) = (t.id for t in engine.tasks(process_instance_id=pi) if t.name == "Ship")
    db = create_database(db_url)
    try:
        with (
            Engine(db_url, projection="inline") as waiting,
            Engine(db_url, projection="inline") as other,
            ThreadPoolExecutor(2) as threads,
        ):
            with db.connect() as blocker, blocker.begin():
                # Another transaction holds the instance's task rows (as a command of another
                # process would while it writes them): completing a task waits for them.
                blocker.execute(
                    sa.text("UPDATE ACT_RU_TASK SET REV_ = REV_ WHERE PROC_INST_ID_ = :pi"),
                    {"pi": pi},
                )
                completing = threads.submit(waiting.complete_task, ship)
                wait_until_waiting_for(blocker, db)
                starting = threads.submit(other.start_process_instance, "parallelForkJoin")
                # Were the log head taken before the rows, this start would wait for the
                # blocker too; the 30 s only bound the test's wait if it did.
                started = starting.result(timeout=30)
                assert not completing.done()
            completing.result(timeout=30)
        with Engine(db_url) as engine:
            assert engine.events(started.id)[0].type == "ProcessInstanceStarted"
            assert sorted(t.name or "" for t in engine.tasks(process_instance_id=pi)) == ["Bill"]
    finally:
        db.dispose()


def test_a_cascading_deletion_and_a_command_on_its_instance_in_flight_together(
    db_url: str,
) -> None:
    """A deletion with cascade takes the log head first and then needs the rows of an instance
    whose command wrote them and waits for the log head: the database undoes one of the two
    (a deadlock; unless the database hands the log head to the command first), and that one is
    decided again, never answered with a database error."""
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite has one writer at a time: there is nothing to overlap")
    with Engine(db_url) as engine:
        deployment = engine.deploy(FORK_JOIN)
        pi = engine.start_process_instance("parallelForkJoin").id
        (ship,) = (t.id for t in engine.tasks(process_instance_id=pi) if t.name == "Ship")
    db = create_database(db_url)
    try:
        with Engine(db_url) as deleting, Engine(db_url) as completing, ThreadPoolExecutor(2) as th:
            with db.connect() as blocker, blocker.begin():
                # Hold the log head so that both line up behind it, the deletion first.
                blocker.execute(sa.text("UPDATE log_head SET last_position = last_position"))
                deleted = th.submit(
                    deleting.repository_service.delete_deployment, deployment.id, cascade=True
                )
                wait_until_waiting_for(blocker, db)
                completed = th.submit(completing.complete_task, ship)
                wait_until_waiting_for(blocker, db, waiting=2)
            assert deleted.result(timeout=60) is None
            problem = completed.exception(timeout=60)
        assert problem is None or isinstance(problem, NotFound), problem
        with Engine(db_url) as engine:
            assert engine.repository_service.deployment(deployment.id) is None
            assert engine.runtime_service.process_instance(pi) is None
            assert engine.verify().problems == []
    finally:
        db.dispose()


def wait_until_waiting_for(blocker: Connection, db: sa.engine.Engine, waiting: int = 1) -> None:
    """Until `waiting` transactions wait for a lock that `blocker`'s transaction holds (others
    sharing the database server are not counted)."""
    if db.dialect.name == "postgresql":
        me = blocker.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
        # Behind the first waiter, the others wait for it (for the row's tuple lock).
        query = (
            "WITH RECURSIVE behind(pid) AS ("
            " SELECT pid FROM pg_stat_activity WHERE :me = ANY(pg_blocking_pids(pid))"
            " UNION SELECT a.pid FROM pg_stat_activity a"
            " JOIN behind b ON b.pid = ANY(pg_blocking_pids(a.pid))"
            ") SELECT count(*) FROM behind"
        )
    else:
        me = blocker.execute(
            sa.text(
                "SELECT trx_id FROM information_schema.INNODB_TRX "
                "WHERE trx_mysql_thread_id = CONNECTION_ID()"
            )
        ).scalar_one()
        query = (
            "SELECT count(DISTINCT requesting_trx_id) FROM information_schema.INNODB_LOCK_WAITS "
            "WHERE blocking_trx_id = :me"
        )
    deadline = time.monotonic() + 30
    while True:
        with db.connect() as conn:
            if conn.execute(sa.text(query), {"me": me}).scalar_one() >= waiting:
                return
        assert time.monotonic() < deadline, f"fewer than {waiting} waited for the held lock"
        # InnoDB refreshes its lock tables only when they were not read for 0.1 s.
        time.sleep(0.2)
