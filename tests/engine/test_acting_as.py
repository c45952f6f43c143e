"""`Engine.acting_as(actor)`: a view whose commands record who issued them, sharing everything."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from flowledger import Engine, NotFound
from tests.support import bpmn, task_named


def _command_log(db_url: str) -> dict[str, tuple[str, str | None]]:
    db = sa.create_engine(db_url)
    try:
        with db.connect() as conn:
            rows = conn.execute(sa.text("select command_id, status, actor from command_log"))
            return {r[0]: (r[1], r[2]) for r in rows}
    finally:
        db.dispose()


def test_commands_of_a_view_record_its_actor_unless_the_call_names_one(
    engine: Engine, db_url: str
) -> None:
    engine.deploy(bpmn("pass_through_activities.bpmn"))
    alice = engine.acting_as("alice")
    started = alice.start_process_instance("passThrough", command_id="start")
    task = task_named(engine, started.id, "Wait here")
    alice.claim(task, "bob", command_id="claim", actor="bob")
    engine.task_service.unclaim(task, command_id="unclaim")
    with pytest.raises(NotFound):
        alice.complete_task("missing", command_id="refused")
    alice.complete_task(task, command_id="complete")

    actors = {e.command_id: e.actor for e in engine.events(started.id)}
    assert actors == {"start": "alice", "claim": "bob", "unclaim": None, "complete": "alice"}
    assert _command_log(db_url)["refused"] == ("rejected", "alice")
    assert _command_log(db_url)["complete"] == ("accepted", "alice")


def test_an_external_task_worker_is_the_actor_unless_a_view_names_one(
    engine: Engine, db_url: str
) -> None:
    engine.deploy(bpmn("external_task.bpmn"))
    first = engine.start_process_instance("externalInvoice", {"priority": 1}).id
    second = engine.start_process_instance("externalInvoice", {"priority": 1}).id
    [own] = engine.external_task_service.fetch_and_lock(
        "worker-1", {"invoice": 60_000}, command_id="own"
    )
    [viewed] = engine.acting_as("service-account").external_task_service.fetch_and_lock(
        "worker-2", {"invoice": 60_000}, command_id="viewed"
    )
    assert {own.process_instance_id, viewed.process_instance_id} == {first, second}
    log = _command_log(db_url)
    assert log["own"] == ("accepted", "worker-1")
    assert log["viewed"] == ("accepted", "service-account")


def test_a_view_shares_the_engine_and_closing_it_closes_nothing(engine: Engine) -> None:
    engine.deploy(bpmn("pass_through_activities.bpmn"))
    with engine.acting_as("alice") as view:
        started = view.start_process_instance("passThrough")
        assert started.id in engine._repository.cache  # the view decided through the engine's cache
    assert view.history_mode == engine.history_mode
    # Both still work after the view's close: it owns no connection and no worker.
    task = task_named(view, started.id, "Wait here")
    view.complete_task(task)
    assert engine.replay(started.id).ended
    assert [e.actor for e in engine.events(started.id)][-1] == "alice"
