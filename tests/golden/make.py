"""Write a golden log: `python -m tests.golden.make NAME` (from the repository root).

Runs one scripted history through most of what the engine records (user tasks claimed and
completed, external tasks failed and completed, timers and async jobs, messages, signals, a
call activity, an error, suspension, a deletion), then writes the whole log as an audit package
`tests/golden/NAME.zip` and what the engine made of it as `tests/golden/NAME.expected.json`:
every instance's final state and every projected table's rows.

A golden log is written once, by the engine version it is named for, and never rewritten: CI
loads it with every later version and checks that state and tables come out the same
(tests/golden/test_golden_logs.py). That is how an event schema change proves its upcaster.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import sqlalchemy as sa

from flowledger import BpmnError, ControllableClock, Engine
from flowledger.projections.tables import HISTORY_TABLES, REPOSITORY_TABLES, RUNTIME_TABLES

HERE = Path(__file__).resolve().parent
BPMN = HERE.parent / "bpmn"
MODELS = (
    "user_task_assignment.bpmn",
    "external_task.bpmn",
    "timers_and_async.bpmn",
    "messages.bpmn",
    "rest_call.bpmn",
    "rest_signal_catch.bpmn",
    "error_boundary_on_service_task.bpmn",
    "rest_async_script_then_timer.bpmn",
)
TABLES = (*HISTORY_TABLES, *RUNTIME_TABLES, *REPOSITORY_TABLES)


def play(engine: Engine, clock: ControllableClock) -> None:
    """The scripted history; deterministic apart from the ids the engine draws."""
    engine.register_delegate("booker", lambda execution: None)

    def decline(execution: Any) -> None:
        raise BpmnError("DECLINED", "card expired")

    engine.register_delegate("charger", decline)
    for name in MODELS:
        engine.deploy(BPMN / name)

    def review(amount: int) -> dict[str, Any]:
        due = datetime(2026, 12, 24, tzinfo=UTC)
        return {
            "amount": amount,
            "initiator": "fozzie",
            "extraUser": "piggy",
            "orderId": "O-1",
            "due": due,
            "priority": 60,
        }

    approval = engine.start_process_instance("userTaskAssignment", review(1200), business_key="A-1")
    (task,) = engine.tasks(process_instance_id=approval.id)
    engine.complete_task(task.id, {"reviewed": True})
    (task,) = engine.tasks(process_instance_id=approval.id)
    engine.acting_as("kermit", via="rest").claim(task.id, "kermit")
    clock.advance(minutes=3)
    engine.acting_as("kermit", via="rest").complete_task(task.id, {"approved": True})

    pending = engine.start_process_instance("userTaskAssignment", review(5))
    (waiting,) = engine.tasks(process_instance_id=pending.id)
    engine.complete_task(waiting.id)
    (waiting,) = engine.tasks(process_instance_id=pending.id)
    engine.claim(waiting.id, "gonzo")
    engine.runtime_service.suspend_process_instance(pending.id)

    invoice = engine.start_process_instance("externalInvoice", {"priority": 10})
    (locked,) = engine.external_task_service.fetch_and_lock("worker-1", {"invoice": 60_000})
    engine.external_task_service.handle_failure(
        locked.id, "worker-1", "printer on fire", retries=1, retry_timeout=1000
    )
    clock.advance(seconds=2)
    (locked,) = engine.external_task_service.fetch_and_lock("worker-2", {"invoice": 60_000})
    engine.external_task_service.complete(locked.id, "worker-2", {"invoiceId": "INV-9"})
    del invoice

    booking = engine.start_process_instance("timersAndAsync", {"guests": 2})
    engine.run_due_jobs()
    clock.advance(hours=1, minutes=1)
    engine.run_due_jobs()
    for t in engine.tasks(process_instance_id=booking.id):
        engine.complete_task(t.id)
    clock.advance(minutes=31)
    engine.run_due_jobs()

    order = engine.start_process_instance("orderMessages", {"orderId": "7"}, business_key="O-7")
    engine.runtime_service.correlate_message(
        "orderPaid", business_key="O-7", variables={"paidAt": "noon"}
    )
    engine.runtime_service.correlate_message("order-7-changed", process_instance_id=order.id)
    for t in engine.tasks(process_instance_id=order.id):
        engine.complete_task(t.id)

    caller = engine.start_process_instance("restCaller", {"input": [1, 2, 3]})
    engine.start_process_instance("restSignalCatch")
    engine.runtime_service.signal("restAlert", {"level": 3})

    engine.start_process_instance("errorOnServiceTask", {"card": "4111"})
    engine.start_process_instance("restJobs", {"divisor": "nothing"})  # fails into an incident
    for _ in range(4):
        engine.run_due_jobs()
        clock.advance(minutes=10)

    doomed = engine.start_process_instance("userTaskAssignment", review(1))
    engine.runtime_service.delete_process_instance(doomed.id, "entered by mistake")
    engine.runtime_service.set_variables(
        caller.id, {"ratio": 0.25, "when": datetime(2026, 1, 2, tzinfo=UTC), "blob": b"\x00\x01"}
    )


def expected(engine: Engine, url: str) -> dict[str, Any]:
    """What a later engine must make of the log: final states and table rows."""
    states = {}
    sql = sa.create_engine(url)
    try:
        with sql.connect() as conn:
            streams = [
                r[0] for r in conn.execute(sa.text("SELECT DISTINCT stream_id FROM event_log"))
            ]
            tables = {t.name: table_rows(conn, t) for t in TABLES}
    finally:
        sql.dispose()
    for stream_id in sorted(streams):
        try:
            states[stream_id] = msgspec.to_builtins(engine.replay(stream_id))
        except Exception:  # a deployment stream has no instance state
            continue
    return {"states": states, "tables": tables}


def table_rows(conn: sa.Connection, table: sa.Table) -> list[dict[str, Any]]:
    """The table's rows as plain values, in a stable order (every column, sorted)."""
    rows = [
        {k: plain(v) for k, v in row._mapping.items()} for row in conn.execute(sa.select(table))
    ]
    return sorted(rows, key=lambda r: msgspec.json.encode(r, order="sorted"))


def plain(value: Any) -> Any:
    """A column value the same on every database: booleans as 0/1, times as text to the
    millisecond, bytes as hex, decimals as floats."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, datetime):
        return value.replace(tzinfo=None).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
    if isinstance(value, bytes | memoryview):
        return bytes(value).hex()
    if value is not None and type(value).__name__ == "Decimal":
        return float(value)
    return value


def main(name: str) -> None:
    target = HERE / f"{name}.zip"
    if target.exists():
        raise SystemExit(f"{target} exists: a golden log is never rewritten")
    work = HERE / f".{name}.db"
    work.unlink(missing_ok=True)
    url = f"sqlite:///{work}"
    clock = ControllableClock(datetime(2026, 12, 4, 9, 0, tzinfo=UTC))
    try:
        with Engine(url, clock=clock, history_level="full") as engine:
            play(engine, clock)
            engine.audit_service.export_log(target)
            facts = expected(engine, url)
            assert engine.verify().ok
    finally:
        work.unlink(missing_ok=True)
    (HERE / f"{name}.expected.json").write_bytes(
        msgspec.json.format(msgspec.json.encode(facts, order="sorted"), indent=1)
    )
    print(f"wrote {target} and {name}.expected.json")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "v1-mixed")
