"""`ChangeSet.merge`: a batch of commands nets out to what applying them one by one would leave,
revisions counting once per command that changed a row (REV_ must equal the live run's).

Semantics are checked on `MemoryRowStore`, then the same merged change sets are written through
`SqlRowStore` on the selected database and must leave the same rows.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowledger import migrations
from flowledger.engine.storage.database import create_database
from flowledger.projections.changes import (
    ChangeSet,
    MemoryRowStore,
    Row,
    SqlRowStore,
    blank_row,
    read_table,
)
from flowledger.projections.tables import ACT_RU_TASK

TABLE = ACT_RU_TASK
NAME = TABLE.name


def task(pk: str, name: str = "new", rev: int = 1) -> Row:
    row = blank_row(TABLE)
    row.update(ID_=pk, REV_=rev, NAME_=name)
    return row


def store(*rows: Row) -> MemoryRowStore:
    memory = MemoryRowStore([TABLE])
    memory.rows[NAME] = {r["ID_"]: dict(r) for r in rows}
    return memory


def merged(*commands: ChangeSet) -> ChangeSet:
    batch = ChangeSet()
    for command in commands:
        batch.merge(command)
    return batch


def changes_of(batch: ChangeSet) -> Any:
    return batch.tables[TABLE]


# -- merge semantics, one rule at a time --------------------------------------------------------


def test_an_insert_then_a_later_update_is_one_insert_with_the_later_values() -> None:
    first, second = ChangeSet(), ChangeSet()
    first.insert(TABLE, "t1", task("t1", "draft"))
    second.update(TABLE, "t1", {"NAME_": "final", "ASSIGNEE_": "kermit"})

    batch = merged(first, second)

    tc = changes_of(batch)
    assert (tc.updates, tc.deletes, tc.bump) == ({}, set(), {})
    assert tc.inserts == {"t1": task("t1", "final") | {"ASSIGNEE_": "kermit"}}
    assert batch.row_count() == 1


def test_a_bump_in_a_later_command_raises_the_revision_of_the_inserted_row() -> None:
    commands = [ChangeSet() for _ in range(3)]
    commands[0].insert(TABLE, "t1", task("t1"))
    commands[1].update(TABLE, "t1", {"NAME_": "second"}, bump_revision=True)
    commands[2].update(TABLE, "t1", {"NAME_": "third"}, bump_revision=True)

    tc = changes_of(merged(*commands))

    assert tc.inserts["t1"]["REV_"] == 3 and tc.inserts["t1"]["NAME_"] == "third"
    assert (tc.updates, tc.bump) == ({}, {})


def test_bumps_of_two_commands_on_a_stored_row_add_up() -> None:
    memory = store(task("t1", "stored", rev=5))
    first, second = ChangeSet(), ChangeSet()
    first.update(TABLE, "t1", {"NAME_": "one"}, bump_revision=True)
    second.update(TABLE, "t1", {"ASSIGNEE_": "gonzo"}, bump_revision=True)

    batch = merged(first, second)
    memory.apply(batch)

    assert changes_of(batch).bump == {"t1": 2}
    assert memory.rows[NAME]["t1"] == task("t1", "one", rev=7) | {"ASSIGNEE_": "gonzo"}


def test_two_bumps_within_one_command_count_once() -> None:
    command = ChangeSet()
    command.update(TABLE, "t1", {"NAME_": "a"}, bump_revision=True)
    command.update(TABLE, "t1", {"ASSIGNEE_": "b"}, bump_revision=True)
    assert changes_of(command).bump == {"t1": 1}
    later = ChangeSet()
    later.update(TABLE, "t1", {"NAME_": "c"}, bump_revision=True)
    later.update(TABLE, "t1", {"NAME_": "d"}, bump_revision=True)

    memory = store(task("t1", rev=1))
    memory.apply(merged(command, later))

    assert memory.rows[NAME]["t1"] == task("t1", "d", rev=3) | {"ASSIGNEE_": "b"}


def test_an_update_without_a_bump_leaves_the_revision_alone() -> None:
    first, second = ChangeSet(), ChangeSet()
    first.update(TABLE, "t1", {"NAME_": "a"})
    second.update(TABLE, "t1", {"NAME_": "b"}, bump_revision=True)

    memory = store(task("t1", rev=4))
    memory.apply(merged(first, second))

    assert changes_of(merged(first, second)).bump == {"t1": 1}
    assert memory.rows[NAME]["t1"]["REV_"] == 5


def test_a_delete_then_a_later_insert_rewrites_the_stored_row() -> None:
    first, second = ChangeSet(), ChangeSet()
    first.delete(TABLE, "t1")
    second.insert(TABLE, "t1", task("t1", "reborn"))

    batch = merged(first, second)

    tc = changes_of(batch)
    assert (tc.inserts, tc.deletes, tc.bump) == ({}, set(), {})
    assert tc.updates == {"t1": task("t1", "reborn")}
    memory = store(task("t1", "old", rev=6))
    memory.apply(batch)
    assert memory.rows[NAME]["t1"] == task("t1", "reborn", rev=1)


def test_an_insert_then_a_later_delete_never_reaches_the_store() -> None:
    first, second = ChangeSet(), ChangeSet()
    first.insert(TABLE, "t1", task("t1"))
    second.update(TABLE, "t1", {"NAME_": "x"}, bump_revision=True)
    third = ChangeSet()
    third.delete(TABLE, "t1")

    batch = merged(first, second, third)

    assert not changes_of(batch) and batch.row_count() == 0


def test_an_update_then_a_later_delete_is_only_a_delete() -> None:
    first, second = ChangeSet(), ChangeSet()
    first.update(TABLE, "t1", {"NAME_": "x"}, bump_revision=True)
    second.delete(TABLE, "t1")

    tc = changes_of(merged(first, second))

    assert (tc.inserts, tc.updates, tc.bump, tc.deletes) == ({}, {}, {}, {"t1"})


def test_a_delete_then_a_later_update_stays_a_delete() -> None:
    first, second = ChangeSet(), ChangeSet()
    first.delete(TABLE, "t1")
    second.update(TABLE, "t1", {"NAME_": "ghost"}, bump_revision=True)

    tc = changes_of(merged(first, second))

    assert (tc.inserts, tc.updates, tc.bump, tc.deletes) == ({}, {}, {}, {"t1"})


def test_merging_into_a_batch_keeps_other_rows_and_tables_apart() -> None:
    first, second = ChangeSet(), ChangeSet()
    first.insert(TABLE, "t1", task("t1"))
    first.update(TABLE, "t2", {"NAME_": "two"}, bump_revision=True)
    second.update(TABLE, "t3", {"NAME_": "three"}, bump_revision=True)
    second.delete(TABLE, "t4")

    batch = merged(first, second)

    tc = changes_of(batch)
    assert set(tc.inserts) == {"t1"} and set(tc.updates) == {"t2", "t3"}
    assert tc.bump == {"t2": 1, "t3": 1} and tc.deletes == {"t4"}
    assert batch.row_count() == 4


# -- the rule behind them all: a merged batch leaves what the commands one by one leave ---------


@dataclass(frozen=True)
class Op:
    kind: str  # insert | update | delete
    pk: str
    name: str
    bump: bool


KEYS = ("t1", "t2", "t3")
INITIAL = {"t1": task("t1", "stored-1", rev=3), "t2": task("t2", "stored-2", rev=1)}


@st.composite
def command_sequences(draw: st.DrawFn, reinsert: str = "across") -> list[list[Op]]:
    """Valid commands: inserts only of absent rows, updates and deletes only of present ones.

    `reinsert`: whether a deleted row may be inserted again "never", only by a later command
    ("across"), or also by the command that deleted it ("anywhere").
    """
    present = set(INITIAL)
    deleted: set[str] = set()
    commands: list[list[Op]] = []
    for _ in range(draw(st.integers(1, 6))):
        ops: list[Op] = []
        deleted_now: set[str] = set()
        for _ in range(draw(st.integers(0, 4))):
            pk = draw(st.sampled_from(KEYS))
            name = draw(st.sampled_from(["a", "b", "c"]))
            if pk not in present:
                if pk in deleted and reinsert == "never":
                    continue
                if pk in deleted_now and reinsert == "across":
                    continue
                ops.append(Op("insert", pk, name, False))
                present.add(pk)
            elif draw(st.booleans()):
                ops.append(Op("update", pk, name, draw(st.booleans())))
            else:
                ops.append(Op("delete", pk, name, False))
                present.discard(pk)
                deleted.add(pk)
                deleted_now.add(pk)
        commands.append(ops)
    return commands


def change_set(ops: list[Op]) -> ChangeSet:
    changes = ChangeSet()
    for op in ops:
        if op.kind == "insert":
            changes.insert(TABLE, op.pk, task(op.pk, op.name))
        elif op.kind == "update":
            changes.update(TABLE, op.pk, {"NAME_": op.name}, bump_revision=op.bump)
        else:
            changes.delete(TABLE, op.pk)
    return changes


def one_by_one(commands: list[list[Op]]) -> dict[str, Row]:
    memory = store(*copy.deepcopy(list(INITIAL.values())))
    for ops in commands:
        memory.apply(change_set(ops))
    return memory.rows[NAME]


@settings(max_examples=300, deadline=None)
@given(commands=command_sequences(reinsert="anywhere"))
def test_a_merged_batch_leaves_what_its_commands_leave_one_by_one(
    commands: list[list[Op]],
) -> None:
    memory = store(*copy.deepcopy(list(INITIAL.values())))
    memory.apply(merged(*(change_set(ops) for ops in commands)))

    assert memory.rows[NAME] == one_by_one(commands)


# -- the same batches written through SqlRowStore on the selected database ----------------------


@pytest.fixture
def sql(db_url: str) -> Iterator[sa.Engine]:
    db = create_database(db_url)
    migrations.upgrade(db)
    try:
        yield db
    finally:
        db.dispose()


def write_through_sql(db: sa.Engine, batch: ChangeSet) -> dict[str, Row]:
    """Reset the table to INITIAL, apply `batch` with SqlRowStore, read the rows back."""
    with db.begin() as conn:
        conn.execute(TABLE.delete())
        conn.execute(TABLE.insert(), [dict(r) for r in INITIAL.values()])
        SqlRowStore().apply(conn, batch)
    with db.connect() as conn:
        return read_table(conn, TABLE)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(commands=command_sequences(reinsert="anywhere"))
def test_sql_row_store_writes_a_merged_batch_like_memory(
    sql: sa.Engine, commands: list[list[Op]]
) -> None:
    batch = merged(*(change_set(ops) for ops in commands))

    assert write_through_sql(sql, batch) == one_by_one(commands)


def test_sql_row_store_revision_of_a_row_recreated_and_then_bumped(sql: sa.Engine) -> None:
    """Regression: the re-created row's REV_ 1 plus one bump, not the stored REV_ plus one."""
    commands = [
        [Op("delete", "t1", "", False)],
        [Op("insert", "t1", "reborn", False)],
        [Op("update", "t1", "bumped", True)],
    ]
    expected = one_by_one(commands)
    assert expected["t1"]["REV_"] == 2

    assert write_through_sql(sql, merged(*(change_set(ops) for ops in commands))) == expected


def test_a_row_recreated_within_one_command_forgets_earlier_bumps() -> None:
    """Regression: a full-row rewrite (REV_ 1) replaces the increments counted before it."""
    commands = [
        [Op("update", "t1", "bumped", True)],
        [Op("delete", "t1", "", False), Op("insert", "t1", "reborn", False)],
    ]
    expected = one_by_one(commands)
    assert expected["t1"]["REV_"] == 1

    memory = store(*copy.deepcopy(list(INITIAL.values())))
    memory.apply(merged(*(change_set(ops) for ops in commands)))

    assert memory.rows[NAME] == expected
