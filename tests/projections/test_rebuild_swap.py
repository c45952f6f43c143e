"""`Engine.rebuild`: shadow tables built in checkpointed batches while commands go on, then
swapped in; an interrupted rebuild goes on from its checkpoint; the replaced rows are kept until
`drop_old_tables`. On the suite's database kind."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from flowledger import Engine
from tests.support import bpmn, deferred_rows_written

MODEL = "user_task_assignment.bpmn"


def _start(engine: Engine, n: int) -> str:
    instance = engine.start_process_instance(
        "userTaskAssignment",
        {
            "initiator": "fozzie",
            "extraUser": "piggy",
            "orderId": f"O-{n}",
            "due": None,
            "priority": 50,
            "n": n,
        },
    )
    return instance.id


def _work(engine: Engine, count: int) -> list[str]:
    ids = []
    for n in range(count):
        ids.append(_start(engine, n))
        if n % 2:
            (task,) = engine.tasks(process_instance_id=ids[-1])
            engine.complete_task(task.id, {"reviewed": n})
    return ids


@pytest.fixture
def busy(db_url: str) -> Iterator[Engine]:
    with Engine(db_url) as engine:
        engine.deploy(bpmn(MODEL))
        _work(engine, 12)
        deferred_rows_written(engine)  # the tests read and edit the tables past the engine
        yield engine


def _count(url: str, table: str) -> int:
    sql = sa.create_engine(url)
    try:
        with sql.connect() as conn:
            return int(conn.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar_one())
    finally:
        sql.dispose()


def test_a_rebuild_swaps_in_tables_equal_to_the_log_and_keeps_the_old_rows(
    busy: Engine, db_url: str
) -> None:
    tasks_before = _count(db_url, "ACT_HI_TASKINST")

    report = busy.audit_service.rebuild(batch_events=40)

    assert report.resumed_from == 0 and "ACT_RU_TASK" in report.tables
    assert busy.verify().ok
    assert _count(db_url, "ACT_HI_TASKINST") == tasks_before
    assert _count(db_url, "old_act_hi_taskinst") == tasks_before
    assert "old_act_hi_taskinst" in busy.audit_service.drop_old_tables()
    assert "old_act_hi_taskinst" not in sa.inspect(sa.create_engine(db_url)).get_table_names()


def test_an_edited_row_is_reported_and_a_rebuild_repairs_it(busy: Engine, db_url: str) -> None:
    sql = sa.create_engine(db_url)
    try:
        with sql.begin() as conn:
            conn.execute(sa.text("UPDATE ACT_HI_TASKINST SET ASSIGNEE_ = 'mallory'"))
    finally:
        sql.dispose()
    assert any("ACT_HI_TASKINST" in p for p in busy.verify().problems)

    busy.audit_service.rebuild("history")

    assert busy.verify().ok


class Interrupted(Exception):
    pass


def test_an_interrupted_rebuild_goes_on_from_its_checkpoint(busy: Engine, db_url: str) -> None:
    seen: list[int] = []

    def stop_after_the_first_batch(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 1:
            raise Interrupted  # as a Ctrl-C or a killed process would, after a batch committed

    with pytest.raises(Interrupted):
        busy.audit_service.rebuild(batch_events=30, progress=stop_after_the_first_batch)
    _work(busy, 3)  # commands go on between the two runs

    report = busy.audit_service.rebuild(batch_events=30)

    assert report.resumed_from == seen[0] > 0
    assert busy.verify().ok


def test_a_different_rebuild_discards_an_unfinished_one(busy: Engine) -> None:
    def interrupt(done: int, total: int) -> None:
        raise Interrupted

    with pytest.raises(Interrupted):
        busy.audit_service.rebuild("runtime", batch_events=30, progress=interrupt)

    report = busy.audit_service.rebuild("history", batch_events=30)

    assert report.resumed_from == 0
    assert busy.verify().ok


def test_no_command_is_lost_while_a_rebuild_runs(busy: Engine, db_url: str) -> None:
    errors: list[BaseException] = []
    started: list[str] = []
    stop = threading.Event()

    def keep_working() -> None:
        try:
            with Engine(db_url) as other:  # another engine on the database, as another process
                n = 100
                while not stop.is_set():
                    started.append(_start(other, n))
                    n += 1
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=keep_working)
    worker.start()
    try:
        while len(started) < 3:
            threading.Event().wait(0.01)
        busy.audit_service.rebuild(batch_events=25)
        while len(started) < 6:
            threading.Event().wait(0.01)
    finally:
        stop.set()
        worker.join(60)

    assert not errors, errors
    assert busy.verify().ok
    found = {i.id for i in busy.history_service.historic_process_instances()}
    assert set(started) <= found


def test_raising_the_history_level_by_rebuild_fills_the_past(busy: Engine, db_url: str) -> None:
    assert busy.history_level == "audit"
    assert _count(db_url, "ACT_HI_DETAIL") == 0

    busy.audit_service.rebuild("history", history_level="full")

    assert busy.history_level == "full"
    assert _count(db_url, "ACT_HI_DETAIL") > 0
    assert busy.verify().ok


def test_an_unknown_projection_is_refused(busy: Engine) -> None:
    from flowledger.core.errors import InvalidValue

    with pytest.raises(InvalidValue, match="projection 'everything'"):
        busy.audit_service.rebuild("everything")


def test_a_history_level_with_a_runtime_rebuild_is_refused(busy: Engine) -> None:
    from flowledger.core.errors import InvalidValue

    with pytest.raises(InvalidValue, match="history level applies to the history tables"):
        busy.audit_service.rebuild("runtime", history_level="full")
    assert busy.history_level == "audit"


def _schema(url: str) -> dict[str, object]:
    """Every ACT_ table's columns, primary key and indexes, as the database reports them."""
    sql = sa.create_engine(url)
    try:
        inspector = sa.inspect(sql)
        return {
            name: (
                [(c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(name)],
                inspector.get_pk_constraint(name)["constrained_columns"],
                sorted(
                    (i["name"], tuple(i["column_names"]), bool(i["unique"]))
                    for i in inspector.get_indexes(name)
                ),
            )
            for name in inspector.get_table_names()
            if name.upper().startswith("ACT_")
        }
    finally:
        sql.dispose()


def test_a_rebuild_leaves_the_tables_as_the_migrations_made_them(busy: Engine, db_url: str) -> None:
    before = _schema(db_url)
    finished = _start(busy, 99)
    while tasks := busy.tasks(process_instance_id=finished):
        busy.complete_task(tasks[0].id, {"reviewed": 1})
    busy.history_service.delete_historic_process_instance(
        finished
    )  # a purge: the shadow indexes it

    busy.audit_service.rebuild(batch_events=40)

    assert _schema(db_url) == before
    tables = sa.inspect(sa.create_engine(db_url)).get_table_names()
    assert not [t for t in tables if t.startswith("rb_")]
