"""History retention: camunda:historyTimeToLive (or the engine's default) gives every finished
instance a removal time, and history cleanup removes the history of those due, through the log."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.core.errors import InvalidValue, ModelError
from flowledger.projections.tables import ACT_HI_PROCINST


def _model(key: str, ttl: str | None) -> bytes:
    attribute = f' camunda:historyTimeToLive="{ttl}"' if ttl is not None else ""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d-{key}" targetNamespace="t">
  <bpmn:process id="{key}" isExecutable="true"{attribute}>
    <bpmn:startEvent id="s" /><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>""".encode()


@pytest.fixture
def kept(db_url: str, clock: ControllableClock) -> Iterator[Engine]:
    with Engine(db_url, clock=clock, history_time_to_live=30) as engine:
        engine.deploy({"five.bpmn": _model("five", "P5D")})
        engine.deploy({"default.bpmn": _model("default", None)})
        yield engine


def _removal(url: str, instance_id: str) -> datetime | None:
    sql = sa.create_engine(url)
    try:
        with sql.connect() as conn:
            t = ACT_HI_PROCINST.c
            return conn.execute(
                sa.select(t.REMOVAL_TIME_).where(t.PROC_INST_ID_ == instance_id)
            ).scalar_one()
    finally:
        sql.dispose()


def test_removal_time_is_the_end_plus_the_time_to_live(
    kept: Engine, clock: ControllableClock, db_url: str
) -> None:
    five = kept.start_process_instance("five")
    default = kept.start_process_instance("default")

    end = kept.history_service.historic_process_instance(five.id).end_time
    assert end is not None
    removal = _removal(db_url, five.id)
    assert removal == (end + timedelta(days=5)).replace(tzinfo=None)
    default_end = kept.history_service.historic_process_instance(default.id).end_time
    assert default_end is not None  # the engine's default below, 30 days
    assert _removal(db_url, default.id) == (default_end + timedelta(days=30)).replace(tzinfo=None)


def test_cleanup_removes_what_is_due_and_only_that(kept: Engine, clock: ControllableClock) -> None:
    five = kept.start_process_instance("five")
    default = kept.start_process_instance("default")

    clock.advance(days=4)
    assert kept.history_service.cleanup_history().removed == 0
    clock.advance(days=2)
    report = kept.history_service.cleanup_history(batch_size=1)

    assert report.removed == 1
    remaining = {i.id for i in kept.history_service.historic_process_instances()}
    assert five.id not in remaining and default.id in remaining
    assert kept.events(five.id)  # the log keeps every event
    assert kept.verify().ok  # the removal is in the log: a rebuild leaves it removed
    kept.audit_service.rebuild("history")
    assert five.id not in {i.id for i in kept.history_service.historic_process_instances()}


def test_without_a_time_to_live_history_is_kept(db_url: str, clock: ControllableClock) -> None:
    with Engine(db_url, clock=clock) as engine:
        engine.deploy({"forever.bpmn": _model("forever", None)})
        instance = engine.start_process_instance("forever")
        clock.advance(days=10_000)

        assert engine.history_service.cleanup_history().removed == 0
        assert engine.history_service.historic_process_instance(instance.id).end_time is not None


def test_a_negative_time_to_live_is_refused(db_url: str) -> None:
    with pytest.raises(InvalidValue, match="history_time_to_live"):
        Engine(db_url, history_time_to_live=-1)


def test_a_time_to_live_beyond_a_century_is_refused(engine: Engine, db_url: str) -> None:
    with pytest.raises(ModelError, match="historyTimeToLive '3000000' is more than 36,500 days"):
        engine.deploy({"long.bpmn": _model("long", "3000000")})
    with pytest.raises(InvalidValue, match="from 0 to 36,500"):
        Engine(db_url, history_time_to_live=40_000)


def test_cleanup_with_asynchronous_history_ends_and_removes(
    db_url: str, clock: ControllableClock
) -> None:
    with Engine(db_url, clock=clock, history_mode="async") as engine:
        engine.deploy({"five.bpmn": _model("five", "P5D")})
        started = [engine.start_process_instance("five").id for _ in range(3)]
        clock.advance(days=6)

        report = engine.history_service.cleanup_history(batch_size=2)

        assert report.removed == 3
        assert not {i.id for i in engine.history_service.historic_process_instances()} & set(
            started
        )
