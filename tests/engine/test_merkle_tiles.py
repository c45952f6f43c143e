"""Proofs served from the stored tiles (`eventlog.tile_store`): equal to those of a tree held
whole in memory for random sizes, whether the tiles are written (the follower's `extend`), only
partly written (the tail tiled in memory) or not at all; a proof reads O(log n) tiles; a
tampered tile or frontier is reported by verify. On the selected database."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from flowledger import migrations
from flowledger.engine.audit import log_tree
from flowledger.eventlog import EventStore
from flowledger.eventlog import tile_store as tiles
from flowledger.eventlog.merkle import MemoryTree, consistency_proof, inclusion_proof
from flowledger.eventlog.merkle_tiles import TileSource
from flowledger.eventlog.proofs import commit_leaf
from tests.eventlog.test_store import Log, items, make_sql_engine, new_commit
from tests.support import fresh_database, selected_kind

NOW = datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)
COMMITS = 700  # three level-0 tiles, a level-1 tile


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Log]:
    with fresh_database(selected_kind(), tmp_path_factory.mktemp("tiles")) as url:
        db = make_sql_engine(url)
        try:
            migrations.upgrade(db)
            store = EventStore(db.dialect.name)
            with db.begin() as conn:
                for i in range(COMMITS):
                    store.append(
                        conn, [new_commit(f"s-{i % 7}-{i}", 0, None, items(1 + i % 3))], NOW
                    )
            yield Log(db, store)
        finally:
            db.dispose()


def memory_tree(log: Log) -> tuple[MemoryTree, list[int]]:
    with log.db.connect() as conn:
        commits = list(log.store.read_all(conn))
    tree = MemoryTree()
    for c in commits:
        tree.append_hash(commit_leaf(c.hash))
    return tree, [c.last_position for c in commits]


def extend(log: Log, limit: int) -> int:
    with log.db.begin() as conn:
        return tiles.extend(log.store, conn, NOW, limit)[1]


def check_proofs(log: Log, seed: int) -> None:
    tree, lasts = memory_tree(log)
    rng = random.Random(seed)
    with log.db.connect() as conn:
        for _ in range(15):
            size = rng.randint(1, COMMITS)
            leaf = rng.randrange(size)
            old = rng.randint(0, size)
            proof = log_tree.prove_position(log.store, conn, lasts[leaf], size)
            assert proof.leaf_index == leaf
            assert proof.head.root == tree.root(size).hex()
            assert proof.head.position == lasts[size - 1]
            assert proof.path == [h.hex() for h in inclusion_proof(tree, leaf, size)]
            consistency = log_tree.prove_consistency(log.store, conn, old, size)
            assert consistency.path == [h.hex() for h in consistency_proof(tree, old, size)]
            assert consistency.old.root == tree.root(old).hex()


def test_proofs_from_tiles_equal_the_memory_trees(log: Log) -> None:
    with log.db.begin() as conn:
        tiles.clear(conn, log.store)
    check_proofs(log, 1)  # nothing stored: the tail is tiled in memory
    assert extend(log, 300) == 300
    check_proofs(log, 2)  # partly stored
    assert extend(log, 10_000) == COMMITS - 300
    assert extend(log, 10_000) == 0
    check_proofs(log, 3)  # all stored


def test_a_proof_reads_a_few_tiles(log: Log) -> None:
    extend(log, 10_000)
    with log.db.connect() as conn:
        tree = tiles.StoredTree(conn, COMMITS)
        inclusion_proof(tree.source, 5, COMMITS)
        consistency_proof(tree.source, 123, COMMITS)
        tree.root(COMMITS)
        # level-0 tiles 0..2 and the level-1 tile: O(log n) tiles, never the log
        assert tree.source.reads <= 4


def test_tiles_answer_subtrees_as_a_memory_tree(log: Log) -> None:
    extend(log, 10_000)
    tree, _ = memory_tree(log)
    with log.db.connect() as conn:
        source = TileSource(lambda level, idx: tiles.read_tile(conn, level, idx))
        for level in range(10):
            for index in range(COMMITS >> level):
                assert source.subtree(level, index) == tree.subtree(level, index)


def test_verify_reports_a_tampered_tile_or_frontier(log: Log) -> None:
    extend(log, 10_000)
    with log.db.connect() as conn:
        assert log.store.verify(conn) == []
    with log.db.begin() as conn:
        tile = tiles.read_tile(conn, 0, 1)
        assert tile is not None
        tile.hashes[40] ^= 1
        tiles.write(conn, {(0, 1): tile})
    with log.db.connect() as conn:
        problems = [str(p) for p in log.store.verify(conn)]
    assert any("tile" in p for p in problems), problems
    with log.db.begin() as conn:
        tile.hashes[40] ^= 1
        tiles.write(conn, {(0, 1): tile})
        conn.execute(sa.text("UPDATE log_head SET frontier = NULL, tree_size = 0"))
    with log.db.connect() as conn:
        problems = [str(p) for p in log.store.verify(conn)]
    assert any("frontier" in p for p in problems), problems
