"""`Engine.rebuild_projections()` rewrites every ACT_* table from the log, exactly as the live run
wrote it: identical rows (REV_ included) after a mixed workload, tampered rows restored, batch
boundaries anywhere, a report that counts the log, and an engine that keeps working afterwards.
The replay helpers under it (`projections.replay`: Replayer, state_at) project the live tables
whichever instance states they keep.

`run_mixed_workload` is shared with test_async_history.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

import flowledger.engine.audit.log_reader
from flowledger import BpmnError, ControllableClock, Engine, TypedValue
from flowledger.core.state import InstanceState
from flowledger.engine.storage.codec import make_codec
from flowledger.eventlog import EventStore
from flowledger.eventlog.tables import event_log
from flowledger.projections.changes import ChangeSet, MemoryRowStore, Row, diff_rows, read_table
from flowledger.projections.history import HistoryProjector
from flowledger.projections.replay import Replayer, state_at
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_ACTINST,
    ACT_HI_DETAIL,
    ACT_HI_PROCINST,
    ACT_HI_TASKINST,
    ACT_HI_VARINST,
    ACT_RU_EXECUTION,
    ACT_RU_EXT_TASK,
    ACT_RU_TASK,
    ACT_RU_VARIABLE,
    HISTORY_TABLES,
    REPOSITORY_TABLES,
    RUNTIME_TABLES,
)
from tests.support import bpmn, deferred_rows_written, task_named

ALL_TABLES = (*REPOSITORY_TABLES, *RUNTIME_TABLES, *HISTORY_TABLES)
Tables = dict[str, dict[str, Row]]

MODELS = (
    "user_task_assignment.bpmn",
    "exclusive_gateway_default_flow.bpmn",
    "parallel_gateway_fork_join.bpmn",
    "embedded_subprocess.bpmn",
    "error_boundary_on_subprocess.bpmn",
    "error_boundary_on_service_task.bpmn",
    "external_task.bpmn",
    "timers_and_async.bpmn",
    "messages.bpmn",
    "business_rule_task.bpmn",
    "dinner.dmn",
)
BLOB = b"\x00\x01binary\xfe\xff"
DOC = {"a": 1, "b": [True, None, "x"], "c": {"d": 2.5}}


class Charger:
    """The `${charger}` delegate of error_boundary_on_service_task.bpmn: always declines."""

    def execute(self, execution: Any) -> None:
        raise BpmnError("DECLINED", "card declined by issuer")


class Booker:
    """The `${booker}` delegate of timers_and_async.bpmn: fails for bookings marked so."""

    def execute(self, execution: Any) -> None:
        if execution.get_variable("fail"):
            raise RuntimeError("the booking system is down")


@dataclass
class Workload:
    """Instance ids of the mixed workload, by what state it left them in."""

    completed: list[str]
    running: list[str]
    deleted: list[str]
    open_approve: str  # userTaskAssignment instance waiting in `Approve`
    locked_external: str  # externalInvoice instance whose task worker-3 holds


def order_variables(order: str) -> dict[str, Any]:
    return {
        "initiator": "kermit",
        "extraUser": "gonzo",
        "due": datetime(2026, 4, 1, 12, 30, tzinfo=UTC),
        "priority": 60,
        "orderId": order,
        "blob": BLOB,
        "doc": DOC,
        "small": TypedValue("Short", 7),
        "ratio": 1234.5678,
        "nothing": None,
        "big": 2**40,
    }


def run_mixed_workload(flow: Engine, clock: ControllableClock) -> Workload:
    """The same commands, in the same order, at the same (controlled) times on any engine.

    Byte-array variables only ever change from bytes to other bytes here: a change from bytes
    to a plain value and back is the subject of its own tests.
    """

    def tick() -> None:
        clock.advance(milliseconds=1234)

    flow.register_delegate("charger", Charger())
    flow.register_delegate("booker", Booker())
    for model in MODELS:
        flow.deploy(bpmn(model), deployment_source="tests")
        tick()
    completed: list[str] = []
    running: list[str] = []
    deleted: list[str] = []

    # user tasks: assignment, claim/unclaim, task-local and instance variables, bytes and json
    a = flow.start_process_instance("userTaskAssignment", order_variables("A-1"), "A-1").id
    tick()
    review = task_named(flow, a, "Review order A-1")
    flow.task_service.set_assignee(review, None)
    tick()
    fozzie = flow.acting_as("fozzie")  # a user's commands: the user operation log
    fozzie.claim(review, "fozzie")
    tick()
    fozzie.task_service.add_comment(review, "Checked the order,\n  all lines present")
    tick()
    fozzie.task_service.set_variables(
        review, {"note": "checked", "blob": b"task-local"}, local=True
    )
    tick()
    flow.runtime_service.set_variables(a, {"blob": b"\x02new bytes", "doc": {"a": 2}, "ratio": 2.5})
    tick()
    flow.runtime_service.remove_variables(a, ["nothing"])
    tick()
    fozzie.complete_task(review, {"approved": True, "big": TypedValue("Long", 5)})
    tick()
    running.append(a)

    b = flow.start_process_instance("userTaskAssignment", order_variables("B-2"), "B-2").id
    tick()
    flow.complete_task(task_named(flow, b, "Review order B-2"))
    tick()
    flow.task_service.unclaim(task_named(flow, b, "Approve"))
    tick()
    flow.complete_task(task_named(flow, b, "Approve"), {"blob": b"\x03final"})
    tick()
    completed.append(b)

    # gateways
    c = flow.start_process_instance("exclusiveDefault", {"amount": 5000}).id
    tick()
    flow.complete_task(task_named(flow, c, "Large"))
    tick()
    completed.append(c)
    d = flow.start_process_instance("exclusiveDefault", {"amount": 50}).id
    tick()
    running.append(d)
    e = flow.start_process_instance("parallelForkJoin").id
    tick()
    flow.complete_task(task_named(flow, e, "Ship"))
    tick()
    flow.complete_task(task_named(flow, e, "Bill"))
    tick()
    running.append(e)  # waits in Archive

    # subprocesses and BPMN errors
    f = flow.start_process_instance("embeddedSubprocess").id
    tick()
    flow.complete_task(task_named(flow, f, "Check A"))
    tick()
    running.append(f)  # Check B still open inside the subprocess
    g = flow.start_process_instance("errorOnSubprocess", {"outcome": "stock"}).id
    tick()
    flow.complete_task(task_named(flow, g, "Pick items"))
    tick()
    flow.complete_task(task_named(flow, g, "Reorder"))
    tick()
    completed.append(g)
    h = flow.start_process_instance("errorOnServiceTask").id
    tick()
    running.append(h)  # Call customer

    # external tasks: failure and retry, completion, BPMN error, a lock still held
    i = flow.start_process_instance("externalInvoice", {"priority": 5, "amount": 30}).id
    tick()
    [fetched] = flow.external_task_service.fetch_and_lock("worker-1", {"invoice": 60_000})
    tick()
    flow.external_task_service.handle_failure(
        fetched.id, "worker-1", "timeout", error_details="stack", retries=2, retry_timeout=1000
    )
    clock.advance(seconds=2)
    [fetched] = flow.external_task_service.fetch_and_lock("worker-2", {"invoice": 60_000})
    tick()
    flow.external_task_service.extend_lock(fetched.id, "worker-2", 120_000)
    tick()
    flow.external_task_service.complete(
        fetched.id, "worker-2", {"invoiceNo": "INV-1", "pdf": b"%PDF"}
    )
    tick()
    running.append(i)  # Check invoice
    j = flow.start_process_instance("externalInvoice", {"priority": 9, "amount": 10}).id
    tick()
    [fetched] = flow.external_task_service.fetch_and_lock("worker-1", {"invoice": 60_000})
    tick()
    flow.external_task_service.handle_bpmn_error(
        fetched.id, "worker-1", "REJECTED", "no customer", {"reason": "unknown"}
    )
    tick()
    flow.complete_task(task_named(flow, j, "Fix invoice"))
    tick()
    completed.append(j)
    k = flow.start_process_instance("externalInvoice", {"priority": 1, "amount": 99}).id
    tick()
    [fetched] = flow.external_task_service.fetch_and_lock("worker-3", {"invoice": 60_000})
    assert fetched.process_instance_id == k
    tick()
    running.append(k)

    # deleted instances: one fresh, one half-way through a parallel flow
    m = flow.start_process_instance("userTaskAssignment", order_variables("M-3"), "M-3").id
    tick()
    flow.runtime_service.delete_process_instance(m, "no longer needed")
    tick()
    n = flow.start_process_instance("parallelForkJoin").id
    tick()
    flow.complete_task(task_named(flow, n, "Bill"))
    tick()
    flow.runtime_service.delete_process_instance(n, "cancelled by customer")
    tick()
    deleted.extend([m, n])

    # jobs: an async step that fails and is retried, a repeating boundary timer, a timer catch,
    # asyncAfter on an end event, a job out of retries with its incident, a timer start event
    p = flow.start_process_instance("timersAndAsync", {"fail": True}).id
    tick()
    flow.run_due_jobs()  # fails: 1 retry left, due again in 5 minutes
    tick()
    flow.runtime_service.set_variables(p, {"fail": False})
    clock.advance(minutes=5)
    flow.run_due_jobs()  # books
    tick()
    clock.advance(hours=1)
    flow.run_due_jobs()  # the first reminder
    tick()
    flow.complete_task(task_named(flow, p, "Confirm booking"))
    tick()
    clock.advance(minutes=30)
    flow.run_due_jobs()  # the timer catch, then the end event's asyncAfter job
    tick()
    flow.run_due_jobs()
    running.append(p)  # the nudge task is still open
    q = flow.start_process_instance("timersAndAsync", {"fail": True}).id
    tick()
    for _ in range(2):
        flow.run_due_jobs()
        clock.advance(minutes=5)
    running.append(q)  # its job is out of retries, with an incident
    clock.advance(hours=1)
    flow.run_due_jobs()  # the hourly report starts an instance (it started some before)
    reports = sorted({t.process_instance_id for t in flow.tasks() if t.name == "Read report"})
    assert reports
    running.extend(reports)
    # messages: a catch event reached by business key, a non-interrupting boundary message whose
    # name is an expression, an instance left waiting with its subscriptions
    m = flow.start_process_instance("orderMessages", {"orderId": "o-9"}, "order-9").id
    waiting = flow.start_process_instance("orderMessages", {"orderId": "o-10"}, "order-10").id
    tick()
    flow.runtime_service.correlate_message(
        "orderPaid", business_key="order-9", variables={"paidAt": "noon"}
    )
    tick()
    flow.runtime_service.correlate_message("order-o-9-changed")
    running.extend([m, waiting])
    # decisions: a business rule task (a DRG: the required decision recorded too, a list input
    # kept in a byte array), and a decision evaluated over the API
    d = flow.start_process_instance(
        "dinnerPlanning",
        {"season": "Fall", "guestCount": 4, "guestsWithChildren": True, "allergies": ["nuts"]},
    ).id
    tick()
    flow.complete_task(task_named(flow, d, "Serve dinner"))
    tick()
    completed.append(d)
    fozzie.evaluate_decision("dish", {"season": "Spring", "guestCount": 3})
    tick()
    # a batch (issue 37) deleting two fresh instances: its seed job and one of its two jobs ran,
    # the other is left (a running batch, its jobs, job definitions and configurations)
    doomed = [flow.start_process_instance("exclusiveDefault", {"amount": 7}).id for _ in "ab"]
    tick()
    fozzie.runtime_service.delete_process_instances_async(doomed, delete_reason="in a batch")
    tick()
    for handler in ("batch-seed-job", "instance-deletion"):
        job = flow.management_service.jobs(handler_type=handler)[0]
        flow.management_service.execute_job(job.id)
        tick()
    return Workload(completed, running, deleted, open_approve=a, locked_external=k)


def capture(flow: Engine) -> Tables:
    """Every row of every ACT_* table, keyed by table name and primary key."""
    with flow_connection(flow) as conn:
        return {table.name: read_table(conn, table) for table in ALL_TABLES}


@contextmanager
def flow_connection(flow: Engine) -> Iterator[Connection]:
    """A read connection of its own on the engine's database (plain SQLAlchemy, no engine);
    deferred rows are written first."""
    deferred_rows_written(flow)
    db = sa.create_engine(flow.url)
    try:
        with db.connect() as conn:
            yield conn
    finally:
        db.dispose()


def assert_same_tables(expected: Tables, actual: Tables) -> None:
    for name, rows in expected.items():
        assert set(actual[name]) == set(rows), f"{name}: different primary keys"
        for pk, row in rows.items():
            assert actual[name][pk] == row, f"{name} row {pk}"


def log_counts(flow: Engine) -> tuple[int, int]:
    """(commits, events) in the event log."""
    with flow_connection(flow) as conn:
        commits, events = conn.execute(
            sa.select(
                sa.func.count(),
                sa.func.sum(event_log.c.last_position - event_log.c.first_position + 1),
            )
        ).one()
    return int(commits), int(events)


@pytest.fixture
def engine(full_engine: Engine) -> Engine:
    """Rebuilds are checked at history level full: every table holds rows then."""
    return full_engine


@pytest.fixture
def workload(engine: Engine, clock: ControllableClock) -> Workload:
    return run_mixed_workload(engine, clock)


# Tables the workload leaves empty (none: it reaches every table).
NOT_IN_THE_WORKLOAD: set[str] = set()


def test_the_workload_leaves_every_kind_of_row_behind(engine: Engine, workload: Workload) -> None:
    tables = capture(engine)
    for table in ALL_TABLES:
        if table.name not in NOT_IN_THE_WORKLOAD:
            assert tables[table.name], f"{table.name} is empty: the workload misses it"
    states = {r["STATE_"] for r in tables[ACT_HI_PROCINST.name].values()}
    assert states == {"ACTIVE", "COMPLETED", "EXTERNALLY_TERMINATED"}
    assert {r["REV_"] for r in tables[ACT_RU_EXECUTION.name].values()} - {1}, "no update seen"
    assert {r["REV_"] for r in tables[ACT_GE_BYTEARRAY.name].values()} - {1}
    assert {r["TYPE_"] for r in tables[ACT_GE_BYTEARRAY.name].values()} == {1, 2, 3}
    assert engine.verify().problems == []


def test_rebuild_rewrites_every_table_exactly(engine: Engine, workload: Workload) -> None:
    before = capture(engine)

    report = engine.rebuild_projections()

    assert_same_tables(before, capture(engine))
    commits, events = log_counts(engine)
    assert (report.commits, report.events) == (commits, events)
    # one batch into emptied tables: every row is one insert
    assert report.rows_written == sum(len(rows) for rows in before.values())
    assert engine.verify().problems == []


def test_rebuild_restores_tampered_tables(engine: Engine, workload: Workload) -> None:
    before = capture(engine)
    running = workload.open_approve
    with flow_connection(engine) as conn, conn.begin():
        conn.execute(ACT_HI_ACTINST.delete().where(ACT_HI_ACTINST.c.PROC_INST_ID_ == running))
        conn.execute(ACT_HI_DETAIL.delete())
        conn.execute(
            ACT_HI_TASKINST.update()
            .where(ACT_HI_TASKINST.c.PROC_INST_ID_ == workload.completed[0])
            .values(ASSIGNEE_="mallory", DURATION_=1)
        )
        conn.execute(ACT_HI_VARINST.delete().where(ACT_HI_VARINST.c.NAME_ == "blob"))
        conn.execute(
            ACT_RU_TASK.update()
            .where(ACT_RU_TASK.c.PROC_INST_ID_ == running)
            .values(NAME_="tampered", REV_=99)
        )
        conn.execute(ACT_RU_VARIABLE.delete().where(ACT_RU_VARIABLE.c.NAME_ == "doc"))
        conn.execute(
            ACT_RU_EXT_TASK.delete().where(
                ACT_RU_EXT_TASK.c.PROC_INST_ID_ == workload.locked_external
            )
        )
        conn.execute(ACT_GE_BYTEARRAY.update().values(BYTES_=b"garbage"))
        conn.execute(
            ACT_HI_PROCINST.insert().values(
                ID_="forged",
                PROC_INST_ID_="forged",
                PROC_DEF_ID_="nothing:1:0",
                START_TIME_=datetime(2020, 1, 1),
                STATE_="COMPLETED",
            )
        )
    problems = engine.verify().problems
    assert any("ACT_RU_TASK" in p for p in problems)
    assert any("forged" in p for p in problems)

    engine.rebuild_projections()

    assert_same_tables(before, capture(engine))
    assert engine.verify().problems == []
    # commands find their rows again: the external task row was gone before the rebuild
    [locked] = engine.external_task_service.external_tasks(
        process_instance_id=workload.locked_external
    )
    engine.external_task_service.complete(locked.id, "worker-3")
    assert engine.verify().problems == []


def test_the_engine_keeps_working_after_a_rebuild(
    engine: Engine, clock: ControllableClock, workload: Workload
) -> None:
    engine.rebuild_projections()
    approve = task_named(engine, workload.open_approve, "Approve")
    clock.advance(minutes=5)

    engine.claim(approve, "kermit")
    engine.complete_task(approve, {"blob": b"\x04after rebuild"})
    [locked] = engine.external_task_service.external_tasks(
        process_instance_id=workload.locked_external
    )
    engine.external_task_service.complete(locked.id, "worker-3")

    instance = engine.history_service.historic_process_instance(workload.open_approve)
    assert (instance.state, instance.end_activity_id) == ("COMPLETED", "end")
    [approved] = [
        t
        for t in engine.history_service.historic_task_instances(workload.open_approve)
        if t.name == "Approve"
    ]
    assert (approved.assignee, approved.delete_reason) == ("kermit", "completed")
    assert engine.tasks(process_instance_id=workload.locked_external)
    assert engine.verify().problems == []
    after = capture(engine)
    engine.rebuild_projections()
    assert_same_tables(after, capture(engine))


def test_batch_boundaries_do_not_change_the_result(
    engine: Engine, workload: Workload, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows one batch writes are updated (REV_ = REV_ + n) or deleted by later batches."""
    before = capture(engine)
    events = log_counts(engine)[1]
    for batch_events in (1, 2, 3, 5, 8, 13, 40):
        monkeypatch.setattr(
            flowledger.engine.audit.log_reader, "REBUILD_BATCH_EVENTS", batch_events
        )

        report = engine.rebuild_projections()

        assert report.events == events
        assert_same_tables(before, capture(engine))
    assert engine.verify().problems == []


def test_a_byte_array_recreated_within_a_later_batch_keeps_its_revision(
    engine: Engine, clock: ControllableClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a row stored by one batch, deleted, re-created and updated by the next one
    must end at the live REV_ (1 + 1), not at the stored REV_ + 1."""
    engine.deploy(bpmn("exclusive_gateway_default_flow.bpmn"))
    pi = engine.start_process_instance("exclusiveDefault", {"amount": 50, "blob": b"\x01"}).id
    # bytes -> bytes (REV_ 2), bytes -> text (row deleted), text -> bytes (new row, REV_ 1),
    # bytes -> bytes (REV_ 2): the live run ends with REV_ 2 on both byte-array rows
    for value in (b"\x02", "text", b"\x03", b"\x04"):
        clock.advance(seconds=1)
        engine.runtime_service.set_variables(pi, {"blob": value})
    before = capture(engine)
    blobs = before[ACT_GE_BYTEARRAY.name]
    [runtime] = [
        v["BYTEARRAY_ID_"] for v in before[ACT_RU_VARIABLE.name].values() if v["NAME_"] == "blob"
    ]
    [history] = [
        v["BYTEARRAY_ID_"] for v in before[ACT_HI_VARINST.name].values() if v["NAME_"] == "blob"
    ]
    assert (blobs[runtime]["REV_"], blobs[history]["REV_"]) == (2, 2)
    # the first batch ends right after the bytes -> bytes update: the row is stored at REV_ 2
    first_update = next(e for e in engine.events(pi) if e.command_type == "SetVariables")
    monkeypatch.setattr(
        flowledger.engine.audit.log_reader, "REBUILD_BATCH_EVENTS", first_update.position
    )

    engine.rebuild_projections()

    assert_same_tables(before, capture(engine))


# -- the replay helpers every rebuild runs on (projections.replay) ------------------------------


def replay_into_memory(flow: Engine, keep: int) -> tuple[MemoryRowStore, list[tuple[str, int]]]:
    """All commits through a Replayer keeping `keep` states; returns the rows and its loads."""
    loads: list[tuple[str, int]] = []
    codec = make_codec()
    memory = MemoryRowStore(ALL_TABLES)
    with flow_connection(flow) as conn:
        store = EventStore(conn.dialect.name)

        def load(stream_id: str, version: int) -> InstanceState | None:
            loads.append((stream_id, version))
            return state_at(store, conn, codec, stream_id, version)

        replayer = Replayer(
            load, history=HistoryProjector("full"), runtime=True, repository=True, keep=keep
        )
        changes = ChangeSet()
        for commit in store.read_all(conn):
            events = codec.decode(commit.events)
            replayer.project_commit(commit, events, changes)
        memory.apply(changes)
    return memory, loads


@pytest.mark.parametrize("keep", [1, 10_000])
def test_a_replayer_projects_the_live_tables_whatever_states_it_keeps(
    engine: Engine, clock: ControllableClock, workload: Workload, keep: int
) -> None:
    for round_ in range(3):  # commits of three instances, interleaved
        for instance in workload.running[:3]:
            clock.advance(seconds=1)
            engine.runtime_service.set_variables(
                instance, {"round": round_, "data": bytes([round_])}
            )
    live = capture(engine)

    memory, loads = replay_into_memory(engine, keep)

    for table in ALL_TABLES:
        assert diff_rows(table.name, memory.rows[table.name], live[table.name]) == []
    # with one state kept, interleaved instances are reloaded from the log; with all, never
    assert bool(loads) == (keep == 1)


def test_state_at_a_commit_boundary_is_the_replayed_state(
    engine: Engine, workload: Workload
) -> None:
    codec = make_codec()
    with flow_connection(engine) as conn:
        store = EventStore(conn.dialect.name)
        for instance in workload.running + workload.completed:
            for commit in store.read_stream(conn, instance):
                state = state_at(store, conn, codec, instance, commit.last_version)
                assert state is not None and state.version == commit.last_version
                assert state == engine.replay(instance, until_position=commit.last_position)
        deployment = next(c for c in store.read_all(conn)).stream_id
        assert state_at(store, conn, codec, deployment, 1) is None


def test_state_at_a_version_inside_a_commit(engine: Engine, workload: Workload) -> None:
    codec = make_codec()
    instance = workload.running[0]
    with flow_connection(engine) as conn:
        store = EventStore(conn.dialect.name)
        first = store.read_stream(conn, instance)[0]
        assert first.last_version > 2  # the start command appends several events at once

        state = state_at(store, conn, codec, instance, 2)

    assert state is not None and state.version == 2
    assert state == engine.replay(instance, until_position=first.first_position + 1)
