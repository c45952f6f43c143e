"""Removal times set after the fact (issue 37, Camunda 7.24's set-removal-time batches): a
batch's jobs give every history row of a process instance (of its whole hierarchy when
hierarchical), of a decision evaluation, or a historic batch an absolute, cleared or calculated
removal time; history cleanup then removes or keeps them by it; a rebuild writes the same. And
historic decision instances deleted as a batch."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.core.errors import Rejected
from flowledger.projections import tables
from flowledger.projections.changes import ChangeSet, Purge
from flowledger.projections.queries.decisions import HistoricDecisionInstanceQuery
from flowledger.projections.queries.history_instances import HistoricProcessInstanceQuery
from tests.core.test_admin_commands import assert_log_and_tables_agree
from tests.dmn.models import dinner, dish
from tests.projections.test_removal_time import (
    DINNER,
    INSTANCE_COLUMN,
    MODEL,
    ROOT_TTL_DAYS,
    TTL_DAYS,
    _both,
    _hierarchy,
    _rows,
    _run,
)
from tests.support import all_deferred_rows_written, sql_rows

ABSOLUTE = datetime(2026, 1, 15, 12, 30, tzinfo=UTC)


@pytest.fixture
def full(db_url: str, clock: ControllableClock) -> Iterator[Engine]:
    with Engine(db_url, clock=clock, history_level="full", history_time_to_live=3) as engine:
        engine.deploy({"dish.dmn": dish(), "p.bpmn": MODEL})
        yield engine


def run_batch(engine: Engine, clock: ControllableClock) -> None:
    """The batch's seed and work jobs, then its monitor job completes it."""
    engine.run_due_jobs()
    clock.advance(seconds=30)
    engine.run_due_jobs()
    assert engine.management_service.batch_statistics() == []


def _stamps(rows: dict[str, list[dict[str, Any]]]) -> dict[str, set[Any]]:
    return {t: {r["REMOVAL_TIME_"] for r in found} for t, found in rows.items()}


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None)


def test_an_absolute_removal_time_stamps_every_history_row_and_cleanup_honours_it(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    instance_id = _run(full)
    other = _run(full)
    before_other = _rows(db_url, other)
    batch = (
        full.acting_as("demo")
        .history_service.set_removal_time_to_historic_process_instances()
        .absolute_removal_time(ABSOLUTE)
        .by_ids(instance_id)
        .execute_async()
    )
    assert (batch.type, batch.total_jobs) == ("process-set-removal-time", 1)
    run_batch(full, clock)

    rows = _rows(db_url, instance_id)
    assert all(rows.values()), {t: len(r) for t, r in rows.items()}
    assert _stamps(rows) == {table: {_naive(ABSOLUTE)} for table in INSTANCE_COLUMN}
    assert _rows(db_url, other) == before_other  # only the instance named
    [historic] = full.history_service.historic_batches(batch_id=batch.id)
    assert historic.end_time is not None

    # Camunda's SetRemovalTime entry, logged when the batch was made, in its order
    entries = sql_rows(
        db_url,
        "SELECT PROPERTY_, NEW_VALUE_, ENTITY_TYPE_, USER_ID_ FROM ACT_HI_OP_LOG "
        "WHERE OPERATION_TYPE_ = 'SetRemovalTime' ORDER BY PROPERTY_",
    )
    millis = str(int(ABSOLUTE.timestamp() * 1000))
    assert sorted(entries) == sorted(
        [
            ("mode", "ABSOLUTE_REMOVAL_TIME", "ProcessInstance", "demo"),
            ("removalTime", millis, "ProcessInstance", "demo"),
            ("hierarchical", "false", "ProcessInstance", "demo"),
            ("nrOfInstances", "1", "ProcessInstance", "demo"),
            ("async", "true", "ProcessInstance", "demo"),
            ("updateInChunks", "false", "ProcessInstance", "demo"),
            ("chunkSize", None, "ProcessInstance", "demo"),
        ]
    )
    # a rebuild from the log writes the same stamps
    assert_log_and_tables_agree(full)
    assert _rows(db_url, instance_id) == rows

    # the clock is past the new removal time (and before the other's end + 5 days)
    report = full.history_service.cleanup_history()
    assert report.removed == 1
    assert not any(_rows(db_url, instance_id).values())
    assert _rows(db_url, other)["ACT_HI_PROCINST"]


def test_a_cleared_removal_time_keeps_the_instance_and_calculated_brings_it_back(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    instance_id = _run(full)
    end = full.history_service.historic_process_instance(instance_id).end_time
    assert end is not None
    service = full.history_service
    service.set_removal_time_to_historic_process_instances().cleared_removal_time().by_ids(
        instance_id
    ).execute_async()
    run_batch(full, clock)
    assert _stamps(_rows(db_url, instance_id)) == {table: {None} for table in INSTANCE_COLUMN}

    clock.advance(days=TTL_DAYS + 1)
    assert service.cleanup_history().removed == 0
    assert _rows(db_url, instance_id)["ACT_HI_PROCINST"]

    query = HistoricProcessInstanceQuery(process_instance_id=instance_id)
    service.set_removal_time_to_historic_process_instances().calculated_removal_time().by_query(
        query
    ).execute_async()
    run_batch(full, clock)
    expected = _naive(end + timedelta(days=TTL_DAYS))
    assert _stamps(_rows(db_url, instance_id)) == {table: {expected} for table in INSTANCE_COLUMN}
    assert_log_and_tables_agree(full)
    assert service.cleanup_history().removed == 1


def test_calculated_is_none_for_a_running_instance_under_strategy_end(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    running = full.start_process_instance("p", variables=DINNER).id
    service = full.history_service
    service.set_removal_time_to_historic_process_instances().absolute_removal_time(ABSOLUTE).by_ids(
        running
    ).execute_async()
    run_batch(full, clock)
    assert _rows(db_url, running)["ACT_HI_PROCINST"][0]["REMOVAL_TIME_"] == _naive(ABSOLUTE)
    service.set_removal_time_to_historic_process_instances().calculated_removal_time().by_ids(
        running
    ).execute_async()
    run_batch(full, clock)
    assert _stamps(_rows(db_url, running))["ACT_HI_PROCINST"] == {None}
    # its end stamps its own (strategy end), over what was set; a rebuild agrees
    (task,) = full.tasks(process_instance_id=running)
    full.complete_task(task.id)
    (job,) = full.management_service.jobs(process_instance_id=running)
    full.management_service.execute_job(job.id)
    end = full.history_service.historic_process_instance(running).end_time
    assert end is not None
    expected = _naive(end + timedelta(days=TTL_DAYS))
    written = {t: found for t, found in _stamps(_rows(db_url, running)).items() if found}
    assert written == {t: {expected} for t in written}
    assert len(written) == 9
    assert_log_and_tables_agree(full)


def test_a_stamp_set_later_keeps_its_place_among_the_changes_of_one_batch() -> None:
    """Projected in one change set (a rebuild's batch of commits), a removal time set after the
    fact runs after the stamps and row changes before it, and before those after it, as it did
    live; an end's stamp still runs last."""
    end_stamp = Purge(tables.ACT_HI_PROCINST, "ID_", "i", values=(("REMOVAL_TIME_", 1),))
    set_later = replace(end_stamp, values=(("REMOVAL_TIME_", 2),), in_order=True)
    changes = ChangeSet()
    changes.update(tables.ACT_HI_PROCINST, "i", {"STATE_": "COMPLETED"})
    changes.purge(end_stamp)
    changes.purge(set_later)
    changes.update(tables.ACT_HI_PROCINST, "i", {"STATE_": "X"})
    order = [([p.values for p in purges], list(rows)) for purges, rows in changes.segments()]
    assert order == [
        ([], [tables.ACT_HI_PROCINST]),
        ([(("REMOVAL_TIME_", 1),)], []),
        ([(("REMOVAL_TIME_", 2),)], [tables.ACT_HI_PROCINST]),
    ]


def test_hierarchical_stamps_the_whole_hierarchy_from_its_root(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    root, called, _ = _hierarchy(full, db_url)
    (task,) = full.tasks(process_instance_id=root)
    full.complete_task(task.id)
    end = full.history_service.historic_process_instance(root).end_time
    assert end is not None
    service = full.history_service

    # not hierarchical: the called instance's rows alone
    service.set_removal_time_to_historic_process_instances().absolute_removal_time(ABSOLUTE).by_ids(
        called
    ).execute_async()
    run_batch(full, clock)
    root_stamp = _naive(end + timedelta(days=ROOT_TTL_DAYS))
    # (its decision inputs, outputs and byte arrays name its root instance: counted there)
    own = {t: found for t, found in _stamps(_rows(db_url, called)).items() if found}
    assert own == {t: {_naive(ABSOLUTE)} for t in own}
    assert len(own) == 8
    assert _stamps(_rows(db_url, root))["ACT_HI_PROCINST"] == {root_stamp}

    # hierarchical, named by the called instance: its root's calculated time on both
    builder = service.set_removal_time_to_historic_process_instances()
    builder.calculated_removal_time().by_ids(called).hierarchical().execute_async()
    run_batch(full, clock)
    rows = _both(db_url, root, called)
    assert all(rows.values())
    assert _stamps(rows) == {t: {root_stamp} for t in INSTANCE_COLUMN}

    # hierarchical absolute on the root
    builder = service.set_removal_time_to_historic_process_instances()
    builder.absolute_removal_time(ABSOLUTE).by_ids(root).hierarchical().execute_async()
    run_batch(full, clock)
    assert _stamps(_both(db_url, root, called)) == {t: {_naive(ABSOLUTE)} for t in INSTANCE_COLUMN}
    assert_log_and_tables_agree(full)
    assert service.cleanup_history().removed == 2


def test_invalid_requests_are_refused_with_camundas_messages(full: Engine) -> None:
    service = full.history_service
    with pytest.raises(Rejected, match=r"^Neither query nor ids provided\.$"):
        service.set_removal_time_to_historic_process_instances().absolute_removal_time(
            ABSOLUTE
        ).execute_async()
    with pytest.raises(Rejected, match=r"^removalTime is null$"):
        service.set_removal_time_to_historic_process_instances().by_ids("x").execute_async()
    with pytest.raises(Rejected, match=r"^historicProcessInstances is empty$"):
        service.set_removal_time_to_historic_process_instances().cleared_removal_time().by_ids().execute_async()
    with pytest.raises(Rejected, match="mutually exclusive"):
        service.set_removal_time_to_historic_process_instances().cleared_removal_time().calculated_removal_time()
    with pytest.raises(Rejected, match=r"^updateInChunks is not supported"):
        service.set_removal_time_to_historic_process_instances().update_in_chunks()
    with pytest.raises(Rejected, match=r"^historicBatches is empty$"):
        service.set_removal_time_to_historic_batches().cleared_removal_time().by_ids().execute_async()
    with pytest.raises(Rejected, match=r"^historicDecisionInstanceIds is empty$"):
        service.delete_historic_decision_instances_async([])
    assert full.management_service.batches() == []


# -- decisions evaluated over the API -------------------------------------------------------------


def _select(db_url: str, query: sa.Select[Any]) -> list[tuple[Any, ...]]:
    """Rows read through the table definitions (dates as datetimes on every database)."""
    all_deferred_rows_written()
    db = sa.create_engine(db_url)
    try:
        with db.connect() as conn:
            return [tuple(r) for r in conn.execute(query)]
    finally:
        db.dispose()


def _decision_rows(db_url: str, root: str) -> dict[str, list[tuple[Any, ...]]]:
    """The evaluation's rows: its decision instances, inputs and outputs (id, removal time)."""
    d = tables.ACT_HI_DECINST
    mine = sa.or_(d.c.ID_ == root, d.c.ROOT_DEC_INST_ID_ == root)
    out = {"ACT_HI_DECINST": _select(db_url, sa.select(d.c.ID_, d.c.REMOVAL_TIME_).where(mine))}
    for name in ("ACT_HI_DEC_IN", "ACT_HI_DEC_OUT"):
        table = getattr(tables, name)
        query = sa.select(table.c.DEC_INST_ID_, table.c.REMOVAL_TIME_).where(
            table.c.DEC_INST_ID_.in_(sa.select(d.c.ID_).where(mine))
        )
        out[name] = _select(db_url, query)
    return out


def _evaluate(engine: Engine) -> str:
    result = engine.evaluate_decision("beverages", DINNER)
    return str(result.decision_instance_id)


def test_decision_removal_times_by_instance_and_by_evaluation(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    full.deploy({"dinner.dmn": dinner()})
    root = _evaluate(full)
    evaluated = clock.now()
    other = _evaluate(full)
    rows = _decision_rows(db_url, root)
    (required,) = [i for i, _ in rows["ACT_HI_DECINST"] if i != root]
    calculated = _naive(evaluated + timedelta(days=3))  # the engine's default time to live
    assert {r for _, r in rows["ACT_HI_DECINST"]} == {calculated}
    service = full.history_service

    # the required decision alone
    batch = (
        service.set_removal_time_to_historic_decision_instances()
        .absolute_removal_time(ABSOLUTE)
        .by_ids(required)
        .execute_async()
    )
    assert batch.type == "decision-set-removal-time"
    run_batch(full, clock)
    stamps = dict(_decision_rows(db_url, root)["ACT_HI_DECINST"])
    assert stamps == {root: calculated, required: _naive(ABSOLUTE)}
    inputs = _decision_rows(db_url, root)["ACT_HI_DEC_IN"]
    assert {r for i, r in inputs if i == required} == {_naive(ABSOLUTE)}
    assert {r for i, r in inputs if i == root} == {calculated}

    # the whole evaluation, named by its required decision: cleared (by a user: logged)
    full.acting_as(
        "demo"
    ).history_service.set_removal_time_to_historic_decision_instances().cleared_removal_time().by_ids(
        required
    ).hierarchical().execute_async()
    run_batch(full, clock)
    cleared = _decision_rows(db_url, root)
    assert all(cleared.values())
    assert {r for found in cleared.values() for _, r in found} == {None}
    assert {r for _, r in _decision_rows(db_url, other)["ACT_HI_DECINST"]} == {calculated}
    entries = sql_rows(
        db_url,
        "SELECT PROPERTY_, NEW_VALUE_ FROM ACT_HI_OP_LOG WHERE OPERATION_TYPE_ = 'SetRemovalTime'"
        " AND ENTITY_TYPE_ = 'DecisionInstance' AND NEW_VALUE_ = 'CLEARED_REMOVAL_TIME'",
    )
    assert entries == [("mode", "CLEARED_REMOVAL_TIME")]
    assert_log_and_tables_agree(full)

    # cleanup keeps the cleared evaluation and removes the other one
    clock.advance(days=4)
    assert full.history_service.cleanup_history().decisions_removed == 1
    assert all(_decision_rows(db_url, root).values())
    assert not any(_decision_rows(db_url, other).values())

    # calculated: the evaluation's time plus its time to live again
    service.set_removal_time_to_historic_decision_instances().calculated_removal_time().by_ids(
        root
    ).hierarchical().execute_async()
    run_batch(full, clock)
    back = _decision_rows(db_url, root)
    assert {r for found in back.values() for _, r in found} == {calculated}


def test_decisions_an_instance_evaluated_get_removal_times_and_are_deleted_by_id(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    instance_id = _run(full)
    end = full.history_service.historic_process_instance(instance_id).end_time
    assert end is not None
    [(decision_id, evaluated)] = _select(
        db_url,
        sa.select(tables.ACT_HI_DECINST.c.ID_, tables.ACT_HI_DECINST.c.EVAL_TIME_).where(
            tables.ACT_HI_DECINST.c.PROC_INST_ID_ == instance_id
        ),
    )
    service = full.history_service
    service.set_removal_time_to_historic_decision_instances().absolute_removal_time(
        ABSOLUTE
    ).by_ids(decision_id).execute_async()
    run_batch(full, clock)
    rows = _decision_rows(db_url, decision_id)
    assert all(rows.values())
    assert {r for found in rows.values() for _, r in found} == {_naive(ABSOLUTE)}
    # the instance's own rows keep theirs
    instance_stamp = _naive(end + timedelta(days=TTL_DAYS))
    assert _stamps(_rows(db_url, instance_id))["ACT_HI_PROCINST"] == {instance_stamp}

    # calculated: its evaluation plus its decision's time to live (dish: 30 days)
    service.set_removal_time_to_historic_decision_instances().calculated_removal_time().by_ids(
        decision_id
    ).hierarchical().execute_async()
    run_batch(full, clock)
    rows = _decision_rows(db_url, decision_id)
    assert {r for found in rows.values() for _, r in found} == {evaluated + timedelta(days=30)}
    assert_log_and_tables_agree(full)

    deletion = service.delete_historic_decision_instances_async([decision_id])
    assert deletion.total_jobs == 1
    run_batch(full, clock)
    assert not any(_decision_rows(db_url, decision_id).values())
    assert _rows(db_url, instance_id)["ACT_HI_PROCINST"]  # the instance's history stays
    assert_log_and_tables_agree(full)


def test_a_decision_deletion_batch_deletes_evaluations_with_their_inputs_and_outputs(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    full.deploy({"dinner.dmn": dinner()})
    first, second, kept = _evaluate(full), _evaluate(full), _evaluate(full)
    query = HistoricDecisionInstanceQuery(decision_instance_id=second)
    batch = full.acting_as("demo").history_service.delete_historic_decision_instances_async(
        [first], query, "outdated"
    )
    assert (batch.type, batch.total_jobs) == ("historic-decision-instance-deletion", 2)
    run_batch(full, clock)
    assert not any(_decision_rows(db_url, first).values())
    assert not any(_decision_rows(db_url, second).values())
    assert all(_decision_rows(db_url, kept).values())
    entries = sql_rows(
        db_url,
        "SELECT PROPERTY_, NEW_VALUE_, ENTITY_TYPE_ FROM ACT_HI_OP_LOG "
        "WHERE OPERATION_TYPE_ = 'DeleteHistory'",
    )
    assert sorted(entries, key=str) == sorted(
        [
            ("nrOfInstances", "2", "DecisionInstance"),
            ("async", "true", "DecisionInstance"),
            ("deleteReason", "outdated", "DecisionInstance"),
        ],
        key=str,
    )
    assert_log_and_tables_agree(full)


# -- historic batches -------------------------------------------------------------------------


def test_a_historic_batch_gets_its_removal_time(
    full: Engine, db_url: str, clock: ControllableClock
) -> None:
    instance_id = _run(full)
    deletion = (  # any ended batch: this one
        full.acting_as("demo")
        .history_service.set_removal_time_to_historic_process_instances()
        .cleared_removal_time()
        .by_ids(instance_id)
        .execute_async()
    )
    run_batch(full, clock)
    service = full.history_service
    batch = (
        service.set_removal_time_to_historic_batches()
        .absolute_removal_time(ABSOLUTE)
        .by_ids(deletion.id, "unknown")
        .execute_async()
    )
    assert batch.type == "batch-set-removal-time"
    run_batch(full, clock)

    def removal(batch_id: str) -> object:
        b = tables.ACT_HI_BATCH
        [(value,)] = _select(db_url, sa.select(b.c.REMOVAL_TIME_).where(b.c.ID_ == batch_id))
        return value

    assert removal(deletion.id) == _naive(ABSOLUTE)
    assert removal(batch.id) is None  # only the batch named
    # ... and the job log of its jobs
    log = tables.ACT_HI_JOB_LOG
    stamped = _select(
        db_url,
        sa.select(log.c.JOB_DEF_CONFIGURATION_, log.c.REMOVAL_TIME_).where(
            log.c.JOB_DEF_CONFIGURATION_.in_([deletion.id, batch.id])
        ),
    )
    assert {(c, t) for c, t in stamped} == {(deletion.id, _naive(ABSOLUTE)), (batch.id, None)}
    assert_log_and_tables_agree(full)
    # calculated: flowledger has no batch history time to live, so none
    full.acting_as(
        "demo"
    ).history_service.set_removal_time_to_historic_batches().calculated_removal_time().by_ids(
        deletion.id
    ).execute_async()
    run_batch(full, clock)
    assert removal(deletion.id) is None
    entries = sql_rows(
        db_url,
        "SELECT PROPERTY_ FROM ACT_HI_OP_LOG WHERE OPERATION_TYPE_ = 'SetRemovalTime' "
        "AND ENTITY_TYPE_ = 'Batch' AND NEW_VALUE_ = 'CALCULATED_REMOVAL_TIME'",
    )
    assert entries == [("mode",)]
