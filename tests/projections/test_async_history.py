"""Asynchronous history (`Engine(url, history_mode="async")`): commands write the log and runtime
rows only, a follower writes ACT_HI_* from the log behind a checkpoint committed with its rows.

Proves: the same commands leave the same tables as inline history (ids aside) and tables equal to
a rebuild from the log; the lag counts unprojected events and flush/verify/close clear it; the
child process catches up by itself at the engine's history level, is reaped on close and exits
when its parent dies; two async engines share one checkpoint; an inline engine finishes and drops
what an async run left behind; a stale batch is never written; in-memory SQLite follows in a
thread, and a read during a history batch there neither fails nor loses history.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger.core import ControllableClock, views
from flowledger.engine import Engine
from flowledger.engine.storage.codec import make_codec
from flowledger.engine.storage.database import create_database
from flowledger.engine.workers.history_worker import HistoryProcess, HistoryThread
from flowledger.eventlog import EventStore
from flowledger.eventlog.tables import projection_checkpoint
from flowledger.projections.changes import SqlRowStore
from flowledger.projections.follower import CHECKPOINT, HistoryBatch, HistoryFollower
from flowledger.projections.history import HistoryProjector
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_ACTINST,
    ACT_HI_DETAIL,
    ACT_HI_VARINST,
    ACT_RU_VARIABLE,
    HISTORY_TABLES,
)
from tests.projections.test_rebuild import (
    Tables,
    assert_same_tables,
    capture,
    flow_connection,
    log_counts,
    run_mixed_workload,
)
from tests.support import bpmn, fresh_database, selected_kind, task_named

# Far from the wall clock: a checkpoint stamped by the child (wall clock) is told apart from one
# stamped by the parent engine (this clock).
START = datetime(2031, 5, 4, 8, 0, tzinfo=UTC)
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0  # seconds a test waits for another process before it gives up (never a measure)


@pytest.fixture
def urls(tmp_path: Path) -> Iterator[Callable[[], str]]:
    """Fresh databases of the selected kind, as many as a test asks for."""
    with ExitStack() as stack:
        yield lambda: stack.enter_context(fresh_database(selected_kind(), tmp_path))


@pytest.fixture
def paused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Async engines start no child: history moves only when the test flushes it."""
    monkeypatch.setattr(HistoryProcess, "start", lambda self: None)


def new_clock() -> ControllableClock:
    return ControllableClock(START)


def child_of(flow: Engine) -> subprocess.Popen[bytes]:
    worker = flow._history.worker
    assert isinstance(worker, HistoryProcess), worker
    child = worker._child
    assert child is not None
    return child


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {WAIT:.0f} s waiting for {what}")
        time.sleep(0.02)


def process_state(pid: int) -> str | None:
    """The state letter of a process (R, S, T, Z, ...), None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def checkpoint_row(flow: Engine) -> dict[str, Any] | None:
    with flow_connection(flow) as conn:
        row = conn.execute(
            sa.select(projection_checkpoint).where(projection_checkpoint.c.name == CHECKPOINT)
        ).first()
    return None if row is None else dict(row._mapping)


def quiet_for(flow: Engine, seconds: float) -> None:
    """Make the history checkpoint look unmarked for `seconds`: its follower died that long ago."""
    with flow_connection(flow) as conn, conn.begin():
        conn.execute(
            sa.update(projection_checkpoint)
            .where(projection_checkpoint.c.name == CHECKPOINT)
            .values(updated_at=datetime.now(UTC).replace(tzinfo=None) - timedelta(seconds=seconds))
        )


def history_of(tables: Tables) -> Tables:
    return {t.name: tables[t.name] for t in HISTORY_TABLES}


def masked(tables: Tables) -> dict[str, Counter[tuple[tuple[str, Any], ...]]]:
    """Every table as a multiset of rows with generated ids (UUIDs) blanked out."""

    def mask(value: Any) -> Any:
        if isinstance(value, bytes) and value.startswith(b"{"):  # a batch's configuration
            return UUID.sub("<id>", value.decode())
        return UUID.sub("<id>", value) if isinstance(value, str) else value

    return {
        name: Counter(
            tuple(sorted((column, mask(value)) for column, value in row.items()))
            for row in rows.values()
        )
        for name, rows in tables.items()
    }


def few_commands(flow: Engine, clock: ControllableClock) -> str:
    """A short run: a user task instance with variables, one task completed; returns its id."""
    flow.deploy(bpmn("user_task_assignment.bpmn"))
    clock.advance(seconds=1)
    variables = {
        "initiator": "kermit",
        "extraUser": "gonzo",
        "due": START,
        "priority": 10,
        "orderId": "Z-9",
        "blob": b"\x00\x01",
        "doc": {"k": [1, 2]},
    }
    pi = flow.start_process_instance("userTaskAssignment", variables, "Z-9").id
    clock.advance(seconds=1)
    flow.runtime_service.set_variables(pi, {"blob": b"\x02", "count": 3})
    clock.advance(seconds=1)
    flow.complete_task(task_named(flow, pi, "Review order Z-9"), {"approved": True})
    clock.advance(seconds=1)
    return pi


# -- the same history as inline --------------------------------------------------------------


def test_async_history_equals_inline_history_and_a_rebuild(urls: Callable[[], str]) -> None:
    inline_clock, async_clock = new_clock(), new_clock()
    with Engine(urls(), clock=inline_clock) as inline:
        inline_work = run_mixed_workload(inline, inline_clock)
        inline_tables = capture(inline)
    with Engine(urls(), clock=async_clock, history_mode="async") as flow:
        work = run_mixed_workload(flow, async_clock)
        flow.flush_history()
        assert flow.history_service.history_lag() == 0
        tables = capture(flow)

        assert masked(tables) == masked(inline_tables)
        assert len(work.completed) == len(inline_work.completed)
        assert flow.verify().problems == []
        report = flow.rebuild_projections()
        assert report.events == log_counts(flow)[1]
        assert_same_tables(tables, capture(flow))
        assert (
            flow.history_service.history_lag() == 0
        )  # the rebuild moved the checkpoint to the log end


@pytest.mark.usefixtures("paused")
def test_history_waits_for_the_follower_and_flush_brings_it_up_to_date(
    urls: Callable[[], str],
) -> None:
    clock = new_clock()
    with Engine(urls(), clock=clock, history_mode="async") as flow:
        assert flow.history_service.history_lag() == 0
        pi = few_commands(flow, clock)

        # the runtime is current, history not written yet: every event is still to project
        assert flow.tasks(process_instance_id=pi)
        assert flow.history_service.history_lag() == log_counts(flow)[1] > 0
        assert flow.history_service.historic_process_instances() == []
        assert all(not rows for rows in history_of(capture(flow)).values())

        flow.flush_history()

        assert flow.history_service.history_lag() == 0
        assert flow.history_service.historic_process_instance(pi).state == "ACTIVE"
        assert [t.name for t in flow.history_service.historic_task_instances(pi)] == [
            "Review order Z-9",
            "Approve",
        ]
        flow.flush_history()  # nothing left: a no-op
        assert flow.history_service.history_lag() == 0


@pytest.mark.usefixtures("paused")
def test_verify_flushes_history_first(urls: Callable[[], str]) -> None:
    clock = new_clock()
    with Engine(urls(), clock=clock, history_mode="async") as flow:
        few_commands(flow, clock)
        assert flow.history_service.history_lag() > 0

        assert flow.verify().problems == []

        assert flow.history_service.history_lag() == 0


def test_the_child_process_catches_up_by_itself(urls: Callable[[], str]) -> None:
    clock = new_clock()
    url = urls()
    with Engine(url, clock=clock, history_mode="async") as flow:
        child = child_of(flow)
        freeze(child, url)
        try:
            pi = few_commands(flow, clock)
            assert flow.history_service.history_lag() > 0  # the only follower is stopped
        finally:
            os.kill(child.pid, signal.SIGCONT)

        wait_until(lambda: flow.history_service.history_lag() == 0, "the child to project the log")

        checkpoint = checkpoint_row(flow)
        assert checkpoint is not None
        # stamped by the child's wall clock, not by this engine's controlled clock
        assert checkpoint["updated_at"] < START.replace(tzinfo=None)
        assert flow.history_service.historic_process_instance(pi).state == "ACTIVE"
        assert flow.verify().problems == []


def freeze(child: subprocess.Popen[bytes], url: str) -> None:
    """SIGSTOP the child while it holds no SQLite write lock (commands would wait for it)."""
    for _ in range(500):
        os.kill(child.pid, signal.SIGSTOP)
        wait_until(lambda: process_state(child.pid) == "T", "the child to stop")
        if not url.startswith("sqlite") or not sqlite_write_locked(url):
            return
        os.kill(child.pid, signal.SIGCONT)
        time.sleep(0.01)
    raise AssertionError("the child never let go of the write lock")


def sqlite_write_locked(url: str) -> bool:
    path = sa.make_url(url).database
    assert path is not None
    probe = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc) or "busy" in str(exc), exc
        return True
    finally:
        probe.close()


# -- close, and the end of the child -------------------------------------------------------------


def test_close_stops_and_reaps_the_child_and_leaves_no_lag(urls: Callable[[], str]) -> None:
    clock = new_clock()
    url = urls()
    flow = Engine(url, clock=clock, history_mode="async")
    child = child_of(flow)
    pi = few_commands(flow, clock)

    flow.close()

    assert child.returncode == 0  # it ended on its own when stdin closed, and was waited for
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)  # already reaped: no zombie left behind
    assert process_state(child.pid) is None
    db = create_database(url)
    try:
        with db.connect() as conn:
            store = EventStore(db.dialect.name)
            assert store.checkpoint(conn, CHECKPOINT) == store.head_position(conn)
    finally:
        db.dispose()
    # the next engine (async again) continues from the checkpoint with nothing to do
    with Engine(url, clock=clock, history_mode="async") as again:
        assert again.history_service.history_lag() == 0
        assert again.history_service.historic_process_instance(pi).state == "ACTIVE"
        assert again.verify().problems == []


PARENT = """
import sys
from flowledger import Engine
engine = Engine(sys.argv[1], history_mode="async")
print(engine._history.worker._child.pid, flush=True)
sys.stdin.read()
"""


def test_the_child_exits_when_its_parent_dies(urls: Callable[[], str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, urls()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        assert process_state(pid) not in (None, "Z")
    finally:
        parent.kill()
        parent.wait()

    # orphaned: its stdin closed with the parent; gone, or a zombie left for init to reap
    wait_until(lambda: process_state(pid) in (None, "Z"), "the orphaned child to exit")


def test_the_child_projects_at_the_engine_history_level(urls: Callable[[], str]) -> None:
    clock = new_clock()
    with Engine(urls(), clock=clock, history_mode="async", history_level="activity") as flow:
        pi = few_commands(flow, clock)
        wait_until(lambda: flow.history_service.history_lag() == 0, "the child to project the log")

        history = history_of(capture(flow))
        assert sorted(a["ACT_ID_"] for a in history[ACT_HI_ACTINST.name].values()) == [
            "approve",
            "review",
            "start",
        ]
        assert history[ACT_HI_VARINST.name] == {} and history[ACT_HI_DETAIL.name] == {}
        assert flow.history_service.historic_process_instance(pi).state == "ACTIVE"
        assert flow.verify().problems == []


def test_two_async_engines_on_one_database_share_one_checkpoint(urls: Callable[[], str]) -> None:
    """Two nodes, two followers: each batch is written once, whichever follower wins it."""
    clock = new_clock()
    url = urls()
    with (
        Engine(url, clock=clock, history_mode="async") as one,
        Engine(url, clock=clock, history_mode="async") as two,
    ):
        assert child_of(one).pid != child_of(two).pid
        pi = few_commands(one, clock)
        for i in range(6):
            node = (one, two)[i % 2]
            node.runtime_service.set_variables(pi, {f"v{i}": i, "last": node is one})
            clock.advance(seconds=1)
        two.complete_task(task_named(two, pi, "Approve"))
        wait_until(lambda: two.history_service.history_lag() == 0, "a child to project the log")
        assert two.history_service.historic_process_instance(pi).state == "COMPLETED"
    with Engine(url, clock=clock) as inline:
        assert inline.verify().problems == []


# -- switching modes ----------------------------------------------------------------------------


@pytest.mark.usefixtures("paused")
@pytest.mark.usefixtures("paused")
def test_an_inline_engine_finishes_history_an_async_run_left_and_drops_the_checkpoint(
    urls: Callable[[], str],
) -> None:
    clock = new_clock()
    url = urls()
    with Engine(url, clock=clock) as first:  # inline history to begin with
        done = few_commands(first, clock)
    crashed = Engine(url, clock=clock, history_mode="async")
    try:
        pi = crashed.start_process_instance(
            "userTaskAssignment",
            {"initiator": "a", "extraUser": "b", "due": START, "priority": 1, "orderId": "Y"},
        ).id
        clock.advance(seconds=1)
        crashed.complete_task(task_named(crashed, done, "Approve"))
        clock.advance(seconds=1)
        lag = crashed.history_service.history_lag()
        assert lag > 0
        assert checkpoint_row(crashed) is not None
        # ... and this process never closes it: the next engine finds the lag in the database,
        # and no follower has marked the checkpoint for a minute (it died with its process)
        quiet_for(crashed, 60)

        with Engine(url, clock=clock) as inline:
            assert checkpoint_row(inline) is None
            assert inline.history_service.history_lag() == 0
            assert inline.history_service.historic_process_instance(pi).state == "ACTIVE"
            assert inline.history_service.historic_process_instance(done).state == "COMPLETED"
            assert inline.verify().problems == []
            inline.complete_task(task_named(inline, pi, "Review order Y"))
            assert inline.verify().problems == []
            before = capture(inline)
            inline.rebuild_projections()
            assert_same_tables(before, capture(inline))
            assert checkpoint_row(inline) is None
    finally:
        crashed.close()  # its flush finds no checkpoint any more: nothing to do
    with Engine(url, clock=clock) as last:
        assert last.verify().problems == []


# -- two followers, one checkpoint -------------------------------------------------------------


@pytest.mark.usefixtures("paused")
def test_a_follower_never_writes_a_stale_batch(urls: Callable[[], str]) -> None:
    clock = new_clock()
    url = urls()
    with Engine(url, clock=clock, history_mode="async") as flow:
        few_commands(flow, clock)
        lag = flow.history_service.history_lag()
        db = create_database(url)
        try:
            store = EventStore(db.dialect.name)

            def follower() -> HistoryFollower:
                return HistoryFollower(store, make_codec(), HistoryProjector("full"), SqlRowStore())

            first, second = follower(), follower()
            with db.connect() as conn, conn.begin():
                after = store.checkpoint(conn, CHECKPOINT)
                small = first.prepare(conn, max_events=3)
                whole = second.prepare(conn)
            assert small is not None and whole is not None
            assert small.after_position == whole.after_position == after
            assert small.last_position < whole.last_position == after + lag

            def write(f: HistoryFollower, batch: HistoryBatch) -> bool:
                writer = db.connect().execution_options(flowledger_write=True)
                with writer as conn, conn.begin():
                    return f.write(conn, batch, START)

            assert write(first, small) is True
            history = history_of(capture(flow))
            assert any(history.values())

            assert write(second, whole) is False  # the checkpoint moved: nothing written
            assert history_of(capture(flow)) == history
            assert flow.history_service.history_lag() == lag - small.events

            # both prepare the same remaining range; whichever writes second writes nothing
            with db.connect() as conn, conn.begin():
                rest_first = first.prepare(conn)
                rest_second = second.prepare(conn)
            assert rest_first is not None and rest_second is not None
            assert (
                (rest_first.after_position, rest_first.last_position)
                == (
                    rest_second.after_position,
                    rest_second.last_position,
                )
                == (small.last_position, after + lag)
            )
            assert write(second, rest_second) is True
            history = history_of(capture(flow))
            assert write(first, rest_first) is False
            assert history_of(capture(flow)) == history
        finally:
            db.dispose()
        assert flow.history_service.history_lag() == 0
        assert flow.verify().problems == []


# -- a rebuild while a follower writes ----------------------------------------------------------


def waits_for_a_lock(conn: sa.Connection, session: Any) -> bool:
    """Whether the server session `session` waits for a lock (SQLite: never visible)."""
    if conn.dialect.name == "postgresql":
        query = "SELECT count(*) FROM pg_stat_activity WHERE pid = :s AND wait_event_type = 'Lock'"
    elif conn.dialect.name in ("mysql", "mariadb"):
        query = (
            "SELECT count(*) FROM information_schema.INNODB_TRX "
            "WHERE trx_mysql_thread_id = :s AND trx_state = 'LOCK WAIT'"
        )
    else:
        return True
    return bool(conn.execute(sa.text(query), {"s": session}).scalar())


def session_id(conn: sa.Connection) -> Any:
    """The server's id of this connection's session (None on SQLite); ends the read it takes."""
    queries = {"postgresql": "SELECT pg_backend_pid()", "mysql": "SELECT connection_id()"}
    query = queries.get("mysql" if conn.dialect.name == "mariadb" else conn.dialect.name)
    if query is None:
        return None
    session = conn.execute(sa.text(query)).scalar()
    conn.rollback()
    return session


@pytest.mark.usefixtures("paused")
def test_a_rebuild_and_a_follower_batch_prepared_before_it(
    urls: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = new_clock()
    url = urls()
    with Engine(url, clock=clock, history_mode="async") as flow:
        flow.deploy(bpmn("exclusive_gateway_default_flow.bpmn"))
        flow.start_process_instance("exclusiveDefault", {"amount": 5})
        flow.flush_history()
        flow.start_process_instance("exclusiveDefault", {"amount": 7})
        assert flow.history_service.history_lag() > 0
        db = create_database(url)
        try:
            store = EventStore(db.dialect.name)
            follower = HistoryFollower(store, make_codec(), HistoryProjector("full"), SqlRowStore())
            with db.connect() as conn, conn.begin():
                batch = follower.prepare(conn)  # as a follower does, before the rebuild
            assert batch is not None

            emptied, resume = threading.Event(), threading.Event()
            run = SqlRowStore.run

            def pause_after_the_deletes(conn: sa.Connection, plan: Any) -> None:
                if threading.current_thread().name == "rebuild" and not resume.is_set():
                    emptied.set()
                    resume.wait(timeout=WAIT)
                run(conn, plan)

            monkeypatch.setattr(SqlRowStore, "run", staticmethod(pause_after_the_deletes))
            outcome: dict[str, Any] = {}

            def rebuild() -> None:
                try:
                    outcome["rebuild"] = flow.rebuild_projections()
                except Exception as exc:
                    outcome["rebuild"] = exc

            def follow(writer: sa.Connection) -> None:
                try:
                    with writer, writer.begin():
                        outcome["write"] = follower.write(writer, batch, START)
                except Exception as exc:
                    outcome["write"] = exc

            rebuilding = threading.Thread(target=rebuild, name="rebuild")
            rebuilding.start()
            try:
                wait_until(emptied.is_set, "the rebuild to empty the tables")
                writer = db.connect().execution_options(flowledger_write=True)
                session = session_id(writer)
                following = threading.Thread(target=follow, args=(writer,))
                following.start()
                with db.connect() as probe:
                    wait_until(
                        lambda: not following.is_alive() or waits_for_a_lock(probe, session),
                        "the follower to write or to wait for the rebuild",
                    )
            finally:
                resume.set()
                rebuilding.join(WAIT)
            following.join(WAIT)
            monkeypatch.setattr(SqlRowStore, "run", staticmethod(run))
        finally:
            db.dispose()

        assert isinstance(outcome["rebuild"], views.RebuildReport), outcome["rebuild"]
        assert outcome["write"] is False  # the rebuild moved the checkpoint: a stale batch
        assert flow.history_service.history_lag() == 0
        assert flow.verify().problems == []


# -- in-memory SQLite: the follower is a thread -------------------------------------------------


def test_in_memory_sqlite_follows_in_a_thread() -> None:
    clock = new_clock()
    flow = Engine("sqlite://", clock=clock, history_mode="async")
    worker = flow._history.worker
    assert isinstance(worker, HistoryThread)

    def locked(read: Callable[[], Any]) -> Any:
        # Reads share the thread's one connection: read only while it cannot step (it steps
        # under the engine lock); see test_a_read_during_a_history_batch_...
        with flow._db.lock:
            return read()

    with flow._db.lock:  # the thread cannot move meanwhile
        pi = few_commands(flow, clock)
        assert flow.history_service.history_lag() > 0
    wait_until(
        lambda: locked(flow.history_service.history_lag) == 0,
        "the history thread to project the log",
    )
    assert locked(lambda: flow.history_service.historic_process_instance(pi).state) == "ACTIVE"
    assert flow.verify().problems == []

    flow.close()

    assert not worker._thread.is_alive()


def test_a_read_during_a_history_batch_neither_fails_nor_loses_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows_written, read_done = threading.Event(), threading.Event()
    run = SqlRowStore.run

    def run_then_wait(conn: sa.Connection, plan: Any) -> None:
        run(conn, plan)
        if threading.current_thread() is not threading.main_thread():
            rows_written.set()  # the history thread is inside its batch's transaction
            read_done.wait(timeout=2)

    monkeypatch.setattr(SqlRowStore, "run", staticmethod(run_then_wait))
    clock = new_clock()
    flow = Engine("sqlite://", clock=clock, history_mode="async")
    worker = flow._history.worker
    assert isinstance(worker, HistoryThread)
    try:
        with flow._db.lock:
            pi = few_commands(flow, clock)
        wait_until(rows_written.is_set, "the history thread to write a batch")
        read_error: Exception | None = None
        try:
            tasks = flow.tasks(process_instance_id=pi)  # an ordinary read, as any caller makes
        except sa.exc.OperationalError as exc:
            read_error, tasks = exc, []
        finally:
            read_done.set()
        monkeypatch.setattr(SqlRowStore, "run", staticmethod(run))
        wait_until(lambda: worker.error is None, "the history thread to recover")
        flow.flush_history()
        history = flow.history_service.historic_process_instances(process_instance_id=pi)
        problems = flow.verify().problems

        assert (read_error, [t.name for t in tasks]) == (None, ["Approve"])
        assert [h.id for h in history] == [pi]
        assert problems == []
    finally:
        read_done.set()
        flow.close()


# -- revisions of a byte-array row re-created within a follower batch ---------------------------


@pytest.mark.usefixtures("paused")
def test_a_byte_array_recreated_between_two_flushes_keeps_its_revision(
    urls: Callable[[], str],
) -> None:
    """Regression: the follower's second batch deletes, re-creates and updates a byte array
    the first batch stored at REV_ 2; it must end at REV_ 2 as inline history does."""
    clock = new_clock()
    with Engine(urls(), clock=clock, history_mode="async") as flow:
        flow.deploy(bpmn("exclusive_gateway_default_flow.bpmn"))
        pi = flow.start_process_instance("exclusiveDefault", {"amount": 5, "blob": b"\x01"}).id
        flow.runtime_service.set_variables(pi, {"blob": b"\x02"})  # history byte array: REV_ 2
        flow.flush_history()
        for value in ("text", b"\x03", b"\x04"):  # deleted, re-created (REV_ 1), updated (2)
            clock.advance(seconds=1)
            flow.runtime_service.set_variables(pi, {"blob": value})

        assert flow.verify().problems == []


RETYPE = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="http://flowledger.test">
  <process id="retype" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="wait"/>
    <userTask id="wait" name="Wait"/>
    <sequenceFlow id="f2" sourceRef="wait" targetRef="toText"/>
    <serviceTask id="toText" camunda:delegateExpression="${toText}"/>
    <sequenceFlow id="f3" sourceRef="toText" targetRef="toBytes"/>
    <serviceTask id="toBytes" camunda:delegateExpression="${toBytes}"/>
    <sequenceFlow id="f4" sourceRef="toBytes" targetRef="done"/>
    <userTask id="done" name="Done"/>
    <sequenceFlow id="f5" sourceRef="done" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>
"""


@pytest.mark.usefixtures("paused")
def test_a_byte_array_recreated_within_one_command_matches_inline_history(
    urls: Callable[[], str],
) -> None:
    """Regression: an earlier command's REV_ bump in the same follower batch must not survive
    a later command that deletes and re-creates the row (inline history has REV_ 1)."""
    clock = new_clock()
    with Engine(urls(), clock=clock, history_mode="async") as flow:
        flow.register_delegate("toText", lambda execution: execution.setVariable("blob", "t"))
        flow.register_delegate("toBytes", lambda execution: execution.setVariable("blob", b"9"))
        flow.deploy(RETYPE)
        pi = flow.start_process_instance("retype", {"blob": b"\x01"}).id
        flow.flush_history()
        flow.runtime_service.set_variables(pi, {"blob": b"\x02"})  # bumps the history byte array
        # one command: the variable becomes text (row deleted), then bytes (row re-created)
        flow.complete_task(task_named(flow, pi, "Wait"))

        assert flow.verify().problems == []


@pytest.mark.usefixtures("paused")
def test_byte_array_revisions_match_inline_when_flushed_after_every_command(
    urls: Callable[[], str],
) -> None:
    """The same re-creation of a byte array, projected one command at a time, is right."""
    clock = new_clock()
    with Engine(urls(), clock=clock, history_mode="async") as flow:
        flow.deploy(bpmn("exclusive_gateway_default_flow.bpmn"))
        pi = flow.start_process_instance("exclusiveDefault", {"amount": 5, "blob": b"\x01"}).id
        for value in (b"\x02", "text", b"\x03", b"\x04"):
            flow.flush_history()
            clock.advance(seconds=1)
            flow.runtime_service.set_variables(pi, {"blob": value})
        flow.flush_history()
        tables = capture(flow)
        [var] = [v for v in tables[ACT_RU_VARIABLE.name].values() if v["NAME_"] == "blob"]
        [hist] = [v for v in tables[ACT_HI_VARINST.name].values() if v["NAME_"] == "blob"]
        blobs = tables[ACT_GE_BYTEARRAY.name]
        assert (blobs[var["BYTEARRAY_ID_"]]["REV_"], blobs[hist["BYTEARRAY_ID_"]]["REV_"]) == (2, 2)
        assert flow.verify().problems == []
