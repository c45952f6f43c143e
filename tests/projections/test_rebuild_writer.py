"""A large rebuild writes its shadow tables in a writer process while it projects the next
batch (`shadow_writer`): the same tables as written in one process, progress only for what the
writer committed, and a writer that fails or dies is reported, with a checkpoint to go on from.
Forced here for a small log (`PIPELINE_FROM_EVENTS` 0). On the suite's database kind."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator

import msgspec
import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.core.errors import ProcessEngineError
from flowledger.engine.audit import rebuild as rebuild_module
from flowledger.engine.audit.shadow_writer import Settings, ShadowWriter
from tests.projections.test_rebuild_swap import Interrupted, _start
from tests.support import bpmn, sql_rows

MODEL = "user_task_assignment.bpmn"


def _work(engine: Engine, count: int, first: int = 0) -> None:
    for n in range(first, first + count):
        instance = _start(engine, n)
        if n % 2:
            (task,) = engine.tasks(process_instance_id=instance)
            engine.complete_task(task.id, {"reviewed": n})
        if n % 3 == 0:  # to its end, then its history deleted: the writer purges by instance
            while tasks := engine.tasks(process_instance_id=instance):
                engine.complete_task(tasks[0].id, {"reviewed": n})
            engine.history_service.delete_historic_process_instance(instance)


@pytest.fixture
def busy(db_url: str) -> Iterator[Engine]:
    with Engine(db_url) as engine:
        engine.deploy(bpmn(MODEL))
        _work(engine, 14)
        yield engine


@pytest.fixture
def writers(monkeypatch: pytest.MonkeyPatch) -> list[ShadowWriter]:
    """Every rebuild writes through a writer process; the writers started, in order."""
    started: list[ShadowWriter] = []
    start = ShadowWriter.start

    def recorded(settings: object) -> ShadowWriter | None:
        writer = start(settings)  # type: ignore[arg-type]
        if writer is not None:
            started.append(writer)
        return writer

    monkeypatch.setattr(rebuild_module, "PIPELINE_FROM_EVENTS", 0)
    monkeypatch.setattr(ShadowWriter, "start", staticmethod(recorded))
    return started


def test_a_rebuild_through_its_writer_process_equals_the_log(
    busy: Engine, db_url: str, writers: list[ShadowWriter]
) -> None:
    instances_before = sql_rows(db_url, "SELECT COUNT(*) FROM ACT_HI_PROCINST")
    seen: list[tuple[int, int]] = []

    report = busy.audit_service.rebuild(
        batch_events=40, progress=lambda done, total: seen.append((done, total))
    )

    assert len(writers) == 1
    assert report.events > 40 and report.resumed_from == 0
    assert sql_rows(db_url, "SELECT COUNT(*) FROM ACT_HI_PROCINST") == instances_before
    assert busy.verify().ok
    # progress reports committed positions, in order, up to the head
    done = [d for d, _t in seen]
    assert done == sorted(done) and done[-1] == seen[-1][1]


def test_an_interrupted_rebuild_goes_on_from_what_its_writer_committed(
    busy: Engine, writers: list[ShadowWriter]
) -> None:
    seen: list[int] = []

    def stop_after_the_first_batch(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 1:
            raise Interrupted

    with pytest.raises(Interrupted):
        busy.audit_service.rebuild(batch_events=30, progress=stop_after_the_first_batch)
    _work(busy, 3, first=100)

    report = busy.audit_service.rebuild(batch_events=30)

    assert report.resumed_from == seen[0] > 0
    assert busy.verify().ok


def test_a_writer_process_that_dies_is_reported_and_the_rebuild_goes_on_later(
    busy: Engine, writers: list[ShadowWriter], caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[int] = []

    def kill_the_writer(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 1:
            writers[0]._child.kill()

    with (
        caplog.at_level(logging.ERROR, logger="flowledger.engine.rebuild"),
        pytest.raises(ProcessEngineError, match="writer process stopped"),
    ):
        busy.audit_service.rebuild(batch_events=30, progress=kill_the_writer)

    assert any("writer process stopped" in r.getMessage() for r in caplog.records)
    report = busy.audit_service.rebuild(batch_events=30)
    assert report.resumed_from == seen[0] > 0
    assert busy.verify().ok


def test_a_writer_that_cannot_write_says_why(
    busy: Engine, db_url: str, writers: list[ShadowWriter]
) -> None:
    def drop_the_checkpoint(done: int, total: int) -> None:
        sql = sa.create_engine(db_url)
        try:
            with sql.begin() as conn:
                conn.execute(sa.text("DELETE FROM projection_checkpoint WHERE name = 'rebuild'"))
        finally:
            sql.dispose()

    with pytest.raises(ProcessEngineError, match="checkpoint is gone"):
        busy.audit_service.rebuild(batch_events=30, progress=drop_the_checkpoint)

    busy.audit_service.rebuild(batch_events=30)  # starts afresh
    assert busy.verify().ok


def test_without_a_writer_process_the_rebuild_writes_itself(
    busy: Engine,
    writers: list[ShadowWriter],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")

    with caplog.at_level(logging.WARNING, logger="flowledger.engine.rebuild"):
        busy.audit_service.rebuild(batch_events=40)

    assert not writers
    assert any("no writer process" in r.getMessage() for r in caplog.records)
    assert busy.verify().ok


def test_a_writer_that_cannot_start_leaves_the_writing_to_the_rebuild(
    busy: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    start = ShadowWriter.start

    def broken(settings: Settings) -> ShadowWriter | None:
        return start(msgspec.structs.replace(settings, tables=["NO_SUCH_TABLE"]))

    monkeypatch.setattr(rebuild_module, "PIPELINE_FROM_EVENTS", 0)
    monkeypatch.setattr(ShadowWriter, "start", staticmethod(broken))

    with caplog.at_level(logging.WARNING, logger="flowledger.engine.rebuild"):
        report = busy.audit_service.rebuild(batch_events=40)

    assert any(
        "no writer process" in r.getMessage() and "NO_SUCH_TABLE" in r.getMessage()
        for r in caplog.records
    )
    assert report.events > 40
    assert busy.verify().ok
