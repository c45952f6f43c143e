"""Every history row of an ended instance carries its removal time (Camunda's removal-time
strategy `end`: its end plus its time to live), not only its ACT_HI_PROCINST row: activities,
tasks, variables and their details, job log, incidents, decisions, the user operation log and
the byte arrays they name. History cleanup then removes the instance whole, and a rebuild
from the log writes the same removal times."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.core.errors import InvalidValue
from flowledger.projections import tables
from tests.core.test_admin_commands import assert_log_and_tables_agree
from tests.dmn.models import dish
from tests.support import all_deferred_rows_written

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">\n'
)
TTL_DAYS = 5
DINNER = {"season": "Fall", "guestCount": 4, "guestsWithChildren": True}

# start → decision → user task → asynchronous task → end: every kind of history row.
MODEL = (
    f'{HEAD}<process id="p" isExecutable="true" camunda:historyTimeToLive="P{TTL_DAYS}D">'
    '<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="brt"/>'
    '<businessRuleTask id="brt" camunda:decisionRef="dish" camunda:resultVariable="meal" '
    'camunda:mapDecisionResult="singleEntry"/>'
    '<sequenceFlow id="f2" sourceRef="brt" targetRef="review"/><userTask id="review"/>'
    '<sequenceFlow id="f3" sourceRef="review" targetRef="later"/>'
    '<task id="later" camunda:asyncBefore="true"/>'
    '<sequenceFlow id="f4" sourceRef="later" targetRef="e"/><endEvent id="e"/>'
    "</process></definitions>"
).encode()

# Each table, and how its rows name the instance they belong to.
INSTANCE_COLUMN = {
    "ACT_HI_PROCINST": "PROC_INST_ID_",
    "ACT_HI_ACTINST": "PROC_INST_ID_",
    "ACT_HI_TASKINST": "PROC_INST_ID_",
    "ACT_HI_VARINST": "PROC_INST_ID_",
    "ACT_HI_DETAIL": "PROC_INST_ID_",
    "ACT_HI_JOB_LOG": "PROCESS_INSTANCE_ID_",
    "ACT_HI_DECINST": "PROC_INST_ID_",
    "ACT_HI_DEC_IN": "ROOT_PROC_INST_ID_",
    "ACT_HI_DEC_OUT": "ROOT_PROC_INST_ID_",
    "ACT_HI_OP_LOG": "PROC_INST_ID_",
    "ACT_GE_BYTEARRAY": "ROOT_PROC_INST_ID_",
}


@pytest.fixture
def full(db_url: str, clock: ControllableClock) -> Iterator[Engine]:
    with Engine(db_url, clock=clock, history_level="full") as engine:
        engine.deploy({"dish.dmn": dish(), "p.bpmn": MODEL})
        yield engine


def _rows(db_url: str, instance_id: str) -> dict[str, list[dict[str, Any]]]:
    all_deferred_rows_written()
    db = sa.create_engine(db_url)
    try:
        with db.connect() as conn:
            out = {}
            for name, column in INSTANCE_COLUMN.items():
                table = getattr(tables, name)
                query = sa.select(table).where(table.c[column] == instance_id)
                rows = conn.execute(query.order_by(table.c.ID_))
                found = [dict(r._mapping) for r in rows]
                if name == "ACT_GE_BYTEARRAY":  # history's, not the deployment's or runtime's
                    found = [r for r in found if r["TYPE_"] == 3]
                out[name] = found
            return out
    finally:
        db.dispose()


def _run(engine: Engine, actor: str = "kermit") -> str:
    """An instance with a decision, variables changed (details, one in a byte array), a task
    completed by a user (an operation log entry) and a job; it ends with the job."""
    instance = engine.start_process_instance("p", variables=DINNER)
    engine.runtime_service.set_variables(
        instance.id, {"guestCount": 6, "notes": {"allergies": ["nuts"] * 50}}
    )
    (task,) = engine.tasks(process_instance_id=instance.id)
    engine.acting_as(actor).complete_task(task.id)
    (job,) = engine.management_service.jobs(process_instance_id=instance.id)
    engine.management_service.execute_job(job.id)
    return instance.id


def _naive(moment: datetime) -> datetime:
    return moment.replace(tzinfo=None)


def test_every_history_row_of_an_ended_instance_has_its_removal_time(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    instance_id = _run(full)
    running = full.start_process_instance("p", variables=DINNER)
    end = full.history_service.historic_process_instance(instance_id).end_time
    assert end is not None
    removal = _naive(end + timedelta(days=TTL_DAYS))

    rows = _rows(db_url, instance_id)
    assert all(rows.values()), {t: len(r) for t, r in rows.items()}  # every kind was written
    stamped = {t: {r["REMOVAL_TIME_"] for r in found} for t, found in rows.items()}
    assert stamped == {table: {removal} for table in INSTANCE_COLUMN}
    # A running instance has none yet.
    unended = _rows(db_url, running.id)
    assert {r["REMOVAL_TIME_"] for found in unended.values() for r in found} == {None}

    # A rebuild from the log writes the same removal times, row for row.
    assert full.verify().ok
    full.audit_service.rebuild("history")
    assert _rows(db_url, instance_id) == rows


def test_cleanup_leaves_no_row_of_the_instance_behind(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    instance_id = _run(full)
    second = _run(full, "gonzo")
    clock.advance(days=TTL_DAYS - 1)
    assert full.history_service.cleanup_history().removed == 0
    assert all(_rows(db_url, instance_id).values())
    clock.advance(days=2)

    assert full.history_service.cleanup_history().removed == 2
    for gone in (instance_id, second):
        left = {t: len(r) for t, r in _rows(db_url, gone).items() if r}
        assert left == {}
    assert full.verify().ok


def test_an_instance_deleted_by_a_user_is_stamped_whole_with_what_its_deletion_logs(
    full: Engine, db_url: str
) -> None:
    instance = full.start_process_instance("p", variables=DINNER)
    full.runtime_service.set_variables(instance.id, {"notes": {"allergies": ["nuts"] * 50}})
    (task,) = full.tasks(process_instance_id=instance.id)
    full.complete_task(task.id)  # it waits for its job now
    full.acting_as("kermit").runtime_service.delete_process_instance(instance.id, "not needed")
    end = full.history_service.historic_process_instance(instance.id).end_time
    assert end is not None

    rows = _rows(db_url, instance.id)
    # the job's creation and its deletion with the instance; the user's deletion
    assert len(rows["ACT_HI_JOB_LOG"]) == 2
    assert [r["OPERATION_TYPE_"] for r in rows["ACT_HI_OP_LOG"]] == ["Delete"]
    stamped = {r["REMOVAL_TIME_"] for found in rows.values() for r in found}
    assert stamped == {_naive(end + timedelta(days=TTL_DAYS))}
    assert full.verify().ok


ROOT_TTL_DAYS = 10
# A root calling `p` (whose own time to live is shorter), then waiting for a user.
CALLER = (
    f'{HEAD}<process id="root" isExecutable="true" '
    f'camunda:historyTimeToLive="P{ROOT_TTL_DAYS}D">'
    '<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="call"/>'
    '<callActivity id="call" calledElement="p"><extensionElements>'
    '<camunda:in variables="all"/></extensionElements></callActivity>'
    '<sequenceFlow id="f2" sourceRef="call" targetRef="wrapup"/><userTask id="wrapup"/>'
    '<sequenceFlow id="f3" sourceRef="wrapup" targetRef="e"/><endEvent id="e"/>'
    "</process></definitions>"
).encode()


def _hierarchy(engine: Engine, db_url: str) -> tuple[str, str, dict[str, list[dict[str, Any]]]]:
    """(root, called instance, their rows by table) once the called instance has ended and the
    root waits for its user task."""
    engine.deploy({"root.bpmn": CALLER})
    root = engine.start_process_instance("root", variables=DINNER).id
    (called,) = [
        h.id for h in engine.history_service.historic_process_instances(process_definition_key="p")
    ]
    engine.runtime_service.set_variables(
        called, {"guestCount": 6, "notes": {"allergies": ["nuts"] * 50}}
    )
    (task,) = engine.tasks(process_instance_id=called)
    engine.acting_as("kermit").complete_task(task.id)
    (job,) = engine.management_service.jobs(process_instance_id=called)
    engine.management_service.execute_job(job.id)
    assert engine.history_service.historic_process_instance(called).end_time is not None
    return root, called, _both(db_url, root, called)


def _both(db_url: str, root: str, called: str) -> dict[str, list[dict[str, Any]]]:
    first, second = _rows(db_url, root), _rows(db_url, called)
    return {t: first[t] + second[t] for t in INSTANCE_COLUMN}


def test_a_called_instance_carries_its_roots_removal_time(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    root, called, rows = _hierarchy(full, db_url)
    # Ended before its root: no removal time of its own (its own would be its end + 5 days).
    assert {r["REMOVAL_TIME_"] for found in rows.values() for r in found} == {None}

    clock.advance(days=1)
    (task,) = full.tasks(process_instance_id=root)
    full.complete_task(task.id)
    end = full.history_service.historic_process_instance(root).end_time
    assert end is not None
    removal = _naive(end + timedelta(days=ROOT_TTL_DAYS))
    rows = _both(db_url, root, called)
    assert all(rows.values()), {t: len(r) for t, r in rows.items()}
    stamped = {t: {r["REMOVAL_TIME_"] for r in found} for t, found in rows.items()}
    assert stamped == {table: {removal} for table in INSTANCE_COLUMN}

    assert full.verify().ok
    full.audit_service.rebuild("history")
    assert _both(db_url, root, called) == rows


def test_cleanup_removes_a_hierarchy_whole_at_its_roots_removal_time(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    root, called, _ = _hierarchy(full, db_url)
    (task,) = full.tasks(process_instance_id=root)
    full.complete_task(task.id)
    clock.advance(days=ROOT_TTL_DAYS - 1)
    assert full.history_service.cleanup_history().removed == 0
    kept = _rows(db_url, called)  # past its own time to live, kept with its root
    assert all(kept[t] for t in ("ACT_HI_PROCINST", "ACT_HI_TASKINST", "ACT_HI_DECINST"))
    clock.advance(days=2)

    assert full.history_service.cleanup_history().removed == 2
    assert {t: len(r) for t, r in _both(db_url, root, called).items() if r} == {}
    assert full.verify().ok


def test_a_root_deleted_while_its_called_instance_runs_stamps_both(
    full: Engine, db_url: str
) -> None:
    full.deploy({"root.bpmn": CALLER})
    root = full.start_process_instance("root", variables=DINNER).id
    (called,) = [
        h.id for h in full.history_service.historic_process_instances(process_definition_key="p")
    ]
    full.runtime_service.delete_process_instance(root, "not needed")
    end = full.history_service.historic_process_instance(root).end_time
    assert end is not None
    rows = _both(db_url, root, called)
    stamped = {r["REMOVAL_TIME_"] for found in rows.values() for r in found}
    assert stamped == {_naive(end + timedelta(days=ROOT_TTL_DAYS))}
    assert full.verify().ok
    full.audit_service.rebuild("history")
    assert _both(db_url, root, called) == rows


def test_strategy_start_writes_the_roots_start_plus_its_time_to_live_on_every_row(
    db_url: str, clock: ControllableClock
) -> None:
    with Engine(
        db_url, clock=clock, history_level="full", history_removal_time_strategy="start"
    ) as engine:
        engine.deploy({"dish.dmn": dish(), "p.bpmn": MODEL})
        root, called, rows = _hierarchy(engine, db_url)
        started = engine.history_service.historic_process_instance(root).start_time
        removal = _naive(started + timedelta(days=ROOT_TTL_DAYS))
        # As written, before the root ends; the called instance's rows carry its root's.
        assert all(rows.values()), {t: len(r) for t, r in rows.items()}
        stamped = {t: {r["REMOVAL_TIME_"] for r in found} for t, found in rows.items()}
        assert stamped == {table: {removal} for table in INSTANCE_COLUMN}
        clock.advance(days=1)
        (task,) = engine.tasks(process_instance_id=root)
        engine.complete_task(task.id)
        rows = _both(db_url, root, called)
        assert {r["REMOVAL_TIME_"] for found in rows.values() for r in found} == {removal}
        assert engine.verify().ok
    # The log holds what the strategy decided: an engine set otherwise rebuilds the same.
    with Engine(db_url, clock=clock, history_level="full") as other:
        other.audit_service.rebuild("history")
        assert _both(db_url, root, called) == rows
        assert other.verify().ok


def test_an_unknown_removal_time_strategy_is_refused_naming_the_choices(db_url: str) -> None:
    with pytest.raises(InvalidValue, match=r"'later' is not one of 'end'.*'start'"):
        Engine(db_url, history_removal_time_strategy="later")


def test_a_rebuild_stamps_what_survives_a_history_deletion_as_the_live_tables_did(
    full: Engine,
) -> None:
    """The instance's end stamps its operation log entries; deleting its history later leaves
    them (Camunda keeps a user's operations). A rebuild projects the end and the deletion in one
    change set: the stamp still comes before the deletion, as it did live."""
    instance_id = _run(full)
    full.history_service.delete_historic_process_instance(instance_id)
    assert_log_and_tables_agree(full)
