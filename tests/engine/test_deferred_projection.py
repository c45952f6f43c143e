"""Deferred projection (`Engine(projection="deferred")`): a command commits its log rows and the
command-side lookup tables only; the runtime and history rows follow in batches, and no reader can
tell — every read sees every write acknowledged before it began, in any thread or process."""

from __future__ import annotations

import inspect
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.exc import OperationalError

from flowledger import Engine
from flowledger.core.errors import InvalidValue, ProjectionBehind
from flowledger.engine import lookups
from flowledger.engine.workers import deferred_projection
from flowledger.engine.workers.history_worker import HistoryProcess
from flowledger.projections.deferred import CHECKPOINT
from flowledger.projections.queries import reads

USER_TASK = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <message id="go" name="go"/>
  <process id="p" isExecutable="true" camunda:historyTimeToLive="30">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="review"/>
    <userTask id="review" name="Review" camunda:assignee="${who}"
              camunda:candidateUsers="ann,bob" camunda:candidateGroups="sales"
              camunda:dueDate="2030-01-02T03:04:05Z" camunda:priority="70"/>
    <sequenceFlow id="f2" sourceRef="review" targetRef="wait"/>
    <intermediateCatchEvent id="wait">
      <messageEventDefinition messageRef="go"/>
    </intermediateCatchEvent>
    <sequenceFlow id="f3" sourceRef="wait" targetRef="work"/>
    <serviceTask id="work" camunda:type="external" camunda:topic="work"/>
    <sequenceFlow id="f4" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>
"""


class Statements:
    """The SQL statements the engine's connections send, by the thread that sent them."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []

    def of(self, thread: int) -> list[str]:
        return [sql for t, sql in self.sent if t == thread]

    def inserts_into(self, table: str) -> int:
        return sum(1 for _t, sql in self.sent if sql.startswith(f"INSERT INTO {table} "))


@pytest.fixture
def statements() -> Iterator[Statements]:
    seen = Statements()

    def traced(dbapi: sqlite3.Connection, _record: object) -> None:
        dbapi.set_trace_callback(lambda sql: seen.sent.append((threading.get_ident(), sql)))

    event.listen(SqlEngine, "connect", traced)
    yield seen
    event.remove(SqlEngine, "connect", traced)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'deferred.db'}"


@pytest.fixture
def deferred(url: str, statements: Statements) -> Iterator[Engine]:
    """A deferred engine whose every connection's statements `statements` sees."""
    with Engine(url, projection="deferred") as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        yield engine


def raw_rows(url: str, sql: str) -> list[tuple[object, ...]]:
    """Rows as the database file holds them, read past the engine (no read barrier)."""
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def stop_follower(engine: Engine) -> None:
    """No follower process: the rows wait until a read (or the test) writes them."""
    deferred = engine._deferred
    assert deferred is not None
    deferred.stop_follower()


def test_a_command_writes_its_log_rows_and_no_runtime_or_history_row(
    deferred: Engine, statements: Statements
) -> None:
    statements.sent.clear()
    started = deferred.start_process_instance("p", {"amount": 5, "who": "ann"})
    written = [s for s in statements.of(threading.get_ident()) if s.startswith(("INSERT", "UPD"))]
    tables = {s.split()[1 if s.startswith("UPDATE") else 2] for s in written}
    assert tables == {"event_log", "stream_head", "command_log", "log_head"}, written
    # ... and yet every reader sees the instance at once: it waits for the rows first.
    assert [t.name for t in deferred.tasks(process_instance_id=started.id)] == ["Review"]


def test_a_task_created_and_completed_in_one_batch_is_never_written(
    deferred: Engine, url: str, statements: Statements
) -> None:
    stop_follower(deferred)
    statements.sent.clear()
    pi = deferred.start_process_instance("p", {"who": "ann"})
    assert raw_rows(url, "SELECT ID_ FROM ACT_RU_TASK") == []  # not written yet
    # The task's id from the log (the rows wait behind it): completing it needs no ACT_RU_TASK
    # either, the engine learned its instance from the start.
    (task_id,) = [
        e.payload["task_id"] for e in deferred.events(pi.id) if e.type == "UserTaskCreated"
    ]
    deferred.complete_task(task_id)
    deferred.flush_history()  # one batch: both commands
    done = deferred.history_service.historic_task_instances(process_instance_id=pi.id)
    assert [(t.id, t.delete_reason) for t in done] == [(task_id, "completed")]
    assert statements.inserts_into("ACT_RU_TASK") == 0
    assert statements.inserts_into("ACT_HI_TASKINST") == 1


def test_an_instance_task_list_from_its_state_is_the_tables_one(deferred: Engine) -> None:
    pi = deferred.start_process_instance("p", {"who": "ann"})
    deferred.runtime_service.suspend_process_instance(pi.id)
    from_state = deferred.tasks(process_instance_id=pi.id)  # this engine holds the head state
    assert deferred._deferred.read_waits == 0  # answered without waiting for the rows
    with deferred.reading() as conn:  # the barrier, then the tables
        from_tables = reads.tasks(conn, process_instance_id=pi.id)
    assert from_state == from_tables
    (task,) = from_tables
    assert (task.assignee, task.priority, task.suspended) == ("ann", 70, True)
    assert (task.candidate_users, task.candidate_groups) == (["ann", "bob"], ["sales"])


def test_a_follower_process_writes_the_rows_of_a_busy_engine(deferred: Engine, url: str) -> None:
    for _ in range(deferred_projection.SPAWN_AFTER):
        deferred.start_process_instance("p", {"who": "ann"})
    assert deferred.projection_health().projector == "running"
    # Nobody reads: the follower process alone brings the tables to the log's head.
    deadline = time.monotonic() + 30
    while True:
        ((head,),) = raw_rows(url, "SELECT last_position FROM log_head")
        checkpoint = raw_rows(
            url, f"SELECT position FROM projection_checkpoint WHERE name = '{CHECKPOINT}'"
        )
        if checkpoint == [(head,)]:
            break
        assert time.monotonic() < deadline, f"the follower stays at {checkpoint} of {head}"
        time.sleep(0.05)
    running = raw_rows(url, "SELECT count(*) FROM ACT_RU_TASK")
    assert running == [(deferred_projection.SPAWN_AFTER,)]
    assert deferred._deferred.read_catch_ups == 0


def test_reads_wait_for_a_ready_follower_instead_of_writing_the_rows_themselves(
    deferred: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A loaded machine (CI runs beside other work) may keep the follower longer than the usual
    # patience: the test is about who writes the rows, not how fast.
    monkeypatch.setattr(deferred_projection, "FOLLOWER_WAIT", 30.0)
    deferred.start_projection_follower()
    worker = deferred._deferred.worker
    assert isinstance(worker, HistoryProcess)
    deadline = time.monotonic() + 30
    while not worker.ready:  # an interpreter starting: reads write the rows meanwhile
        assert time.monotonic() < deadline, "the follower process never reported"
        time.sleep(0.01)
    before = deferred._deferred.read_catch_ups
    for _ in range(20):
        pi = deferred.start_process_instance("p", {"who": "ann"})
        (task,) = deferred.tasks(process_instance_id=pi.id)
        deferred.complete_task(task.id)
        # A query the instance's state cannot answer: it waits for the tables.
        (done,) = deferred.history_service.historic_task_instances(pi.id)
        assert done.end_time is not None
    # Most reads waited (one the follower had written for already need not: a race the
    # machine's load decides, so no exact count).
    assert deferred._deferred.read_waits > 0
    # Each read was woken by the follower's report of the position its batch reached.
    assert deferred._deferred.read_catch_ups == before


def test_lookups_find_what_the_command_before_wrote(deferred: Engine) -> None:
    # version numbering at deploy
    assert deferred.deploy({"p.bpmn": USER_TASK.replace('name="Review"', 'name="R2"')})
    versions = [d.version for d in deferred.repository_service.process_definitions(key="p")]
    assert sorted(versions) == [1, 2]
    # a message correlated right after the instance reached its catch event
    pi = deferred.start_process_instance("p", {"who": "ann"}, business_key="order-1")
    (task,) = deferred.tasks(process_instance_id=pi.id)
    deferred.complete_task(task.id)
    deferred.runtime_service.correlate_message("go", business_key="order-1")
    # fetchAndLock right after the external task was created, and never twice
    locked = deferred.external_task_service.fetch_and_lock("w1", {"work": 60_000})
    assert [t.process_instance_id for t in locked] == [pi.id]
    assert deferred.external_task_service.fetch_and_lock("w2", {"work": 60_000}) == []


def test_every_lookup_of_a_deferred_table_catches_up_first() -> None:
    assert lookups.CATCHING_UP == {
        "batch_variables",
        "instance_of_task",
        "instance_of_execution",
        "running_process_instances",
        "waiting",
        "deployment",
        "latest_deployment_resources",
        "batch",
        "batch_configuration",
        "batch_job",
    }
    for name in lookups.CATCHING_UP:
        assert "_projected(conn)" in inspect.getsource(getattr(lookups, name)), name


def test_reads_see_writes_of_other_threads_and_processes(deferred: Engine, url: str) -> None:
    pi = deferred.start_process_instance("p", {"who": "ann"})
    (task,) = deferred.tasks(process_instance_id=pi.id)
    done = threading.Event()
    seen: list[int] = []

    def complete() -> None:
        deferred.complete_task(task.id)
        done.set()

    def read() -> None:
        done.wait()
        seen.append(len(deferred.tasks(process_instance_id=pi.id)))

    threads = [threading.Thread(target=complete), threading.Thread(target=read)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [0]
    # Another engine on the file (another process, as far as the rows in memory go): it has
    # none of this engine's rows and projects the missing commits from the log itself.
    # Another process on the file, with no follower of its own running: its read writes what
    # the first engine's commands left behind (or finds its follower did).
    with Engine(url, projection=None) as other:
        stop_follower(other)
        stop_follower(deferred)
        second = deferred.start_process_instance("p", {"who": "ann"})
        assert [t.name for t in other.tasks(process_instance_id=second.id)] == ["Review"]
        assert other.projection_health().read_catch_ups >= 1


def test_a_read_that_cannot_catch_up_says_so(
    deferred: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop_follower(deferred)
    deferred.flush_history()  # the deployment's rows: the instance's are all that wait
    pi = deferred.start_process_instance("p", {"who": "ann"})

    def broken(*_args: object, **_kw: object) -> int:
        raise OperationalError("INSERT ...", None, Exception("disk I/O error"))

    monkeypatch.setattr(deferred._deferred._runner, "step", broken)
    with pytest.raises(ProjectionBehind, match="disk I/O error"):
        deferred.history_service.historic_process_instances()
    # ... while what the engine holds at the head still answers (its task list, from state)
    assert [t.name for t in deferred.tasks(process_instance_id=pi.id)] == ["Review"]
    health = deferred.projection_health()
    waiting = len(deferred.events(pi.id))  # the instance's events: none in the tables
    assert (health.status, health.projector, health.lag) == ("DOWN", "stopped", waiting)


def test_close_writes_every_row_and_inline_converts_back(url: str) -> None:
    with Engine(url, projection="deferred") as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        for _ in range(5):
            engine.start_process_instance("p", {"who": "ann"})
    (head,) = raw_rows(url, "SELECT last_position FROM log_head")[0]
    checkpoint = raw_rows(
        url, f"SELECT position FROM projection_checkpoint WHERE name = '{CHECKPOINT}'"
    )
    assert checkpoint == [(head,)]
    assert len(raw_rows(url, "SELECT ID_ FROM ACT_RU_TASK")) == 5
    with Engine(url, projection="inline") as engine:
        assert engine.projection == "inline"
        assert engine.verify().ok
    assert raw_rows(url, f"SELECT * FROM projection_checkpoint WHERE name = '{CHECKPOINT}'") == []
    with Engine(url, projection=None) as engine:  # as the database is
        assert engine.projection == "inline"


def test_async_history_is_one_projection_and_history_mode_async_its_alias(url: str) -> None:
    with Engine(url, projection="deferred") as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        pi = engine.start_process_instance("p", {"who": "ann"})
    # Asked for on a deferred database: the rows are written, the database converted.
    with Engine(url, projection="async-history") as engine:
        assert (engine.projection, engine.history_mode) == ("async-history", "async")
        assert (
            raw_rows(url, f"SELECT * FROM projection_checkpoint WHERE name = '{CHECKPOINT}'") == []
        )
        # Runtime rows in the command, history behind it.
        (task,) = engine.tasks(process_instance_id=pi.id)
        engine.complete_task(task.id)
        assert raw_rows(url, f"SELECT * FROM ACT_RU_TASK WHERE ID_ = '{task.id}'") == []
        engine.history_service.flush_history()
        (done,) = engine.history_service.historic_task_instances(pi.id)
        assert done.end_time is not None
    with Engine(url, history_mode="async") as engine:  # the older name
        assert engine.projection == "async-history"


def test_deferred_is_refused_where_it_cannot_run() -> None:
    with pytest.raises(ValueError, match="projection must be one of"):
        Engine("sqlite://", projection="later")
    with pytest.raises(InvalidValue, match="history_mode='async' is the older name"):
        Engine("sqlite://", projection="deferred", history_mode="async")
