"""Group commit on SQLite: commands waiting for the writer share one transaction, each in its own
savepoint; one command's failure is its own, a failed commit is everyone's."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from flowledger.engine.commands.group_commit import CommitGroups
from flowledger.engine.storage.connections import Connections
from flowledger.engine.storage.database import create_database

WAITERS = 12


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Connections]:
    engine = create_database(f"sqlite:///{tmp_path / 'groups.db'}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE done (name TEXT PRIMARY KEY)")
    connections = Connections(engine, memory=False)
    yield connections
    connections.close()


def names(db: Connections) -> set[str]:
    with db.read() as conn:
        return {r[0] for r in conn.exec_driver_sql("SELECT name FROM done")}


def insert(name: str) -> object:
    def work(conn: Connection) -> str:
        conn.execute(sa.text("INSERT INTO done VALUES (:n)"), {"n": name})
        return f"did {name}"

    return work


def run_behind_a_blocked_leader(
    groups: CommitGroups, works: list[object]
) -> tuple[list[object], list[BaseException]]:
    """The first command holds the writer until every other one waits behind it."""
    release = threading.Event()

    def first(conn: Connection) -> str:
        release.wait(timeout=30)
        return "first"

    results: list[object] = []
    errors: list[BaseException] = []

    def call(work: object) -> None:
        try:
            results.append(groups.run(work))  # type: ignore[arg-type]
        except Exception as exc:
            errors.append(exc)

    leader = threading.Thread(target=call, args=(first,))
    leader.start()
    while not groups._leading:
        threading.Event().wait(0.001)
    threads = [threading.Thread(target=call, args=(w,)) for w in works]
    for t in threads:
        t.start()
    while len(groups._queue) < len(works):
        threading.Event().wait(0.001)
    release.set()
    for t in [leader, *threads]:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in [leader, *threads])
    return results, errors


def test_commands_waiting_for_the_writer_commit_together(db: Connections) -> None:
    groups = CommitGroups(db.write)
    results, errors = run_behind_a_blocked_leader(groups, [insert(f"n{i}") for i in range(WAITERS)])
    assert errors == []
    assert sorted(map(str, results)) == sorted(["first", *(f"did n{i}" for i in range(WAITERS))])
    assert names(db) == {f"n{i}" for i in range(WAITERS)}
    # the leader alone, then everyone who queued behind it: two commits for thirteen commands
    assert (groups.groups, groups.commands) == (2, WAITERS + 1)


def test_a_failing_command_rolls_back_alone(db: Connections) -> None:
    groups = CommitGroups(db.write)

    def half_then_fail(conn: Connection) -> None:
        conn.execute(sa.text("INSERT INTO done VALUES ('half')"))
        raise ValueError("refused")

    works = [insert("a"), half_then_fail, insert("b")]
    results, errors = run_behind_a_blocked_leader(groups, works)
    assert [str(e) for e in errors] == ["refused"]
    assert names(db) == {"a", "b"}
    assert sorted(map(str, results)) == ["did a", "did b", "first"]


def test_a_failed_commit_fails_every_command_of_the_group(db: Connections) -> None:
    fail = threading.Event()

    @contextmanager
    def write() -> Iterator[Connection]:
        with db.write() as conn:
            yield conn
            if fail.is_set():
                raise OSError("disk full")

    groups = CommitGroups(write)
    fail.set()
    _results, errors = run_behind_a_blocked_leader(groups, [insert("x"), insert("y")])
    assert sorted(map(str, errors)) == ["disk full"] * 3
    assert names(db) == set()
    fail.clear()
    assert groups.run(insert("z")) == "did z"  # the next group works again
    assert names(db) == {"z"}


def test_a_lone_command_commits_at_once(db: Connections) -> None:
    groups = CommitGroups(db.write)
    assert groups.run(insert("alone")) == "did alone"
    assert names(db) == {"alone"}
    assert not groups._leading
