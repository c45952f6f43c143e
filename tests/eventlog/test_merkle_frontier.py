"""The tree's right edge kept beside the log head (`log_head.tree_size`, `log_head.frontier`):
after any sequence of appends — one commit, several streams in one append, several appends in
one transaction (a group commit), an audit package loaded — it is the tree recomputed from the
log's commits. Runs on the selected database (FLOWLEDGER_TEST_DB)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowledger import Engine, migrations
from flowledger.eventlog import EventStore
from flowledger.eventlog.merkle import MemoryTree
from flowledger.eventlog.proofs import commit_leaf
from tests.eventlog.test_store import Log, items, make_sql_engine, new_commit
from tests.support import bpmn, fresh_database, selected_kind

NOW = datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Log]:
    """One database for the module: each example appends after the last one's commits."""
    with fresh_database(selected_kind(), tmp_path_factory.mktemp("frontier")) as url:
        db = make_sql_engine(url)
        try:
            migrations.upgrade(db)
            yield Log(db, EventStore(db.dialect.name))
        finally:
            db.dispose()


def recomputed(log: Log) -> tuple[int, bytes, int]:
    """(commits, root, last position) of the tree read from the log itself."""
    with log.db.connect() as conn:
        commits = list(log.store.read_all(conn))
    tree = MemoryTree()
    for c in commits:
        tree.append_hash(commit_leaf(c.hash))
    return tree.size, tree.root(), commits[-1].last_position if commits else 0


def stored(log: Log) -> tuple[int, bytes, int]:
    with log.db.connect() as conn:
        position, frontier = log.store.tree(conn)
    return frontier.size, frontier.root(), position


# A transaction: a list of appends; an append: the streams it writes, each with its event count.
appends = st.lists(
    st.lists(st.tuples(st.integers(0, 5), st.integers(1, 3)), min_size=1, max_size=3),
    min_size=1,
    max_size=4,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(transactions=st.lists(appends, min_size=1, max_size=4))
def test_the_stored_edge_is_the_tree_of_the_log(
    log: Log, transactions: list[list[list[tuple[int, int]]]]
) -> None:
    for transaction in transactions:
        with log.db.begin() as conn:
            for append in transaction:
                commits, seen = [], set()
                for stream, events in append:
                    stream_id = f"s-{stream}"
                    if stream_id in seen:
                        continue  # one commit per stream and append
                    seen.add(stream_id)
                    version, head = log.head(conn, stream_id)
                    commits.append(new_commit(stream_id, version, head, items(events)))
                log.store.append(conn, commits, NOW)
        assert stored(log) == recomputed(log)


def test_a_failed_append_leaves_the_edge_as_it_was(log: Log) -> None:
    before = stored(log)
    with pytest.raises(sa.exc.SQLAlchemyError), log.db.begin() as conn:
        log.store.append(conn, [new_commit("fails", 0, None, items(1))], NOW)
        raise sa.exc.SQLAlchemyError("rolled back")
    assert stored(log) == before == recomputed(log)


def test_commands_and_group_commits_keep_the_edge(db_url: str) -> None:
    """The engine's own paths: commands one by one, and on SQLite commands that wait for the
    writer and share its transaction (group commit)."""
    with Engine(db_url) as engine:
        engine.deploy(bpmn("external_task.bpmn"))
        threads = [
            threading.Thread(
                target=lambda i=i: [
                    engine.start_process_instance(
                        "externalInvoice", {"priority": 1}, business_key=f"{i}-{n}"
                    )
                    for n in range(5)
                ]
            )
            for i in range(6)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        db = sa.create_engine(db_url)
        try:
            log = Log(db, EventStore(db.dialect.name))
            assert stored(log) == recomputed(log)
            assert stored(log)[0] == 31
        finally:
            db.dispose()
        head = engine.audit_service.tree_head()
        assert (head.size, head.root) == (31, recomputed(log)[1].hex())
