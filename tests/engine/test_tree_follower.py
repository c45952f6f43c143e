"""The tree follower a server runs (`Engine.start_tree_follower`): the stored tiles follow the
log as commands commit, proofs are then answered from them, and a follower that cannot write
says so in its health and in the log, and catches up once it can."""

from __future__ import annotations

import logging

import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.eventlog import proofs, tile_store
from tests.engine.test_deferred_projection import USER_TASK
from tests.exporter_support import wait_for


def _tiled(engine: Engine) -> bool:
    health = engine.tree_health()
    return health is not None and health.lag == 0 and health.status == "UP"


def test_tiles_follow_the_log_and_answer_proofs(db_url: str) -> None:
    with Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        engine.start_tree_follower()
        for i in range(30):
            engine.start_process_instance("p", {"who": f"u{i}"})
        wait_for(lambda: _tiled(engine), what="the tiles")
        health = engine.tree_health()
        assert health is not None and health.tiled == health.size == 31
        with engine.reading() as conn:
            assert tile_store.tiled(conn)[0] == 31
        head = engine.audit_service.tree_head()
        proof = engine.audit_service.prove(engine.log_position())
        assert proof.leaf_index == 30 and proofs.check_inclusion(proof, head) == []


def test_a_follower_that_cannot_write_is_down_and_catches_up(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        db = sa.create_engine(db_url)
        try:
            with db.begin() as conn:
                conn.execute(sa.text("ALTER TABLE merkle_tile RENAME TO merkle_tile_away"))
            with caplog.at_level(logging.ERROR, "flowledger.tree"):
                follower = engine.start_tree_follower()
                engine.start_process_instance("p", {"who": "ann"})
                wait_for(lambda: follower.last_error is not None, what="the failure")
            health = engine.tree_health()
            assert health is not None and health.status == "DOWN" and health.lag > 0
            assert "cannot extend the Merkle tree's tiles" in caplog.text
            with db.begin() as conn:
                conn.execute(sa.text("ALTER TABLE merkle_tile_away RENAME TO merkle_tile"))
            engine.start_process_instance("p", {"who": "bob"})
            wait_for(lambda: _tiled(engine), what="the catch-up")
        finally:
            db.dispose()
