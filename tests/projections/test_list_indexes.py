"""The list pages Cockpit and Tasklist read newest first read the index revision 0006 made for them.

On SQLite, whose planner decides without statistics (the plan follows from the statement and the
schema alone, as on a database of any size), a page of each list reads its keys from its index in
the list's order, from the index alone, and sorts nothing but the page; and a selective filter
beside a broad one (one instance's unfinished tasks) still reads the selective one's index. A
change to a search or an index that loses this (a sort term the index does not hold, an ORDER BY
on a joined table, a filter the planner takes for selective) fails here, where it would otherwise
show only as a slow page at 100,000 instances (`python -m flowledger.tools.bench.list_pages`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from flowledger import migrations
from flowledger.projections.queries import history_instances as instances
from flowledger.projections.queries import history_tasks, tasks
from flowledger.projections.queries.declaration import Search, find

PI = instances.HistoricProcessInstanceQuery
TI = history_tasks.HistoricTaskInstanceQuery
NEWEST_FIRST = [("startTime", True)]

# (list, search, query, sorting, the indexes its page reads)
LISTS: list[tuple[str, Search[Any, Any], Any, list[tuple[str, bool]], tuple[str, ...]]] = [
    (
        "finished process instances, newest first",
        instances.PROCESS_INSTANCES,
        PI(finished=True),
        NEWEST_FIRST,
        ("ACT_IDX_HI_PRO_INST_START",),
    ),
    (
        "process instances, newest first",
        instances.PROCESS_INSTANCES,
        PI(),
        NEWEST_FIRST,
        ("ACT_IDX_HI_PRO_INST_START",),
    ),
    (
        "unfinished process instances, newest first",
        instances.PROCESS_INSTANCES,
        PI(unfinished=True),
        NEWEST_FIRST,
        ("ACT_IDX_HI_PRO_INST_START",),
    ),
    (
        "finished process instances, last finished first",
        instances.PROCESS_INSTANCES,
        PI(finished=True),
        [("endTime", True)],
        ("ACT_IDX_HI_PRO_INST_END",),
    ),
    (
        "process instances of a definition key, newest first",
        instances.PROCESS_INSTANCES,
        PI(process_definition_key="invoice"),
        NEWEST_FIRST,
        ("ACT_IDX_HI_PRO_INST_PROC_DEF_KEY",),
    ),
    (
        "task instances, newest first",
        history_tasks.TASK_INSTANCES,
        TI(),
        NEWEST_FIRST,
        ("ACT_IDX_HI_TASK_INST_START",),
    ),
    (
        "unfinished task instances, newest first",
        history_tasks.TASK_INSTANCES,
        TI(unfinished=True),
        NEWEST_FIRST,
        ("ACT_IDX_HI_TASK_INST_START",),
    ),
    (
        "finished task instances, last finished first",
        history_tasks.TASK_INSTANCES,
        TI(finished=True),
        [("endTime", True)],
        ("ACT_IDX_HI_TASK_INST_END",),
    ),
    (
        "open tasks, newest first",
        tasks.TASKS,
        tasks.TaskQuery(),
        [("created", True)],
        ("ACT_IDX_TASK_CREATE",),
    ),
    (
        "an assignee's tasks, newest first",
        tasks.TASKS,
        tasks.TaskQuery(assignee="demo"),
        [("created", True)],
        ("ACT_IDX_TASK_ASSIGNEE",),
    ),
    (
        "candidate groups' tasks, newest first",
        tasks.TASKS,
        tasks.TaskQuery(candidate_groups=["accounting", "sales"]),
        [("created", True)],
        ("ACT_IDX_TASK_ASSIGNEE", "ACT_IDX_IDENT_LNK_GROUP"),
    ),
    (
        "a candidate user's tasks, newest first",
        tasks.TASKS,
        tasks.TaskQuery(candidate_user="kermit"),
        [("created", True)],
        ("ACT_IDX_TASK_ASSIGNEE", "ACT_IDX_IDENT_LNK_USER"),
    ),
]


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Connection]:
    """An empty SQLite database at the newest schema, without statistics."""
    path: Path = tmp_path_factory.mktemp("lists") / "lists.db"
    db = sa.create_engine(f"sqlite:///{path}")
    migrations.upgrade(db)
    with db.connect() as connection:
        yield connection
    db.dispose()


def _plan(conn: Connection, run: Callable[[], object]) -> list[tuple[int, int, str]]:
    """EXPLAIN QUERY PLAN of the last statement `run` executes: (node, parent, detail) rows."""
    statements: list[tuple[str, Any]] = []

    def record(*args: Any) -> None:
        statements.append((args[2], args[3]))  # (connection, cursor, statement, parameters, ...)

    sa.event.listen(conn, "before_cursor_execute", record)
    try:
        run()
    finally:
        sa.event.remove(conn, "before_cursor_execute", record)
    statement, parameters = statements[-1]
    rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters).all()
    return [(row[0], row[1], row[3]) for row in rows]


def _page_subtree(plan: list[tuple[int, int, str]]) -> list[str]:
    """The plan of the subquery that reads a page's keys (`PAGE`), every level of it."""
    # SQLite materialises the subquery, or runs it as a co-routine (versions differ).
    (top,) = [
        node
        for node, _parent, detail in plan
        if detail.split()[-1:] == ["PAGE"] and detail.split()[0] in ("MATERIALIZE", "CO-ROUTINE")
    ]
    inside, details = {top}, []
    for node, parent, detail in plan:
        if parent in inside:
            inside.add(node)
            details.append(detail)
    return details


@pytest.mark.parametrize(
    ("search", "query", "sorting", "indexes"),
    [pytest.param(*case[1:], id=case[0]) for case in LISTS],
)
@pytest.mark.parametrize("first", [0, 5000])
def test_a_page_reads_its_keys_from_the_index_in_order(
    conn: Connection,
    search: Search[Any, Any],
    query: Any,
    sorting: list[tuple[str, bool]],
    indexes: tuple[str, ...],
    first: int,
) -> None:
    plan = _page_subtree(_plan(conn, lambda: find(conn, search, query, sorting, first, 50)))
    for index in indexes:
        assert any(f"USING COVERING INDEX {index}" in step for step in plan), plan
    assert not any("TEMP B-TREE" in step for step in plan), plan
    assert not any(step.startswith("SCAN") and "INDEX" not in step for step in plan), plan


# A selective filter beside a broad one that the list's indexes start with: the page reads the
# few rows of the selective one, not every unfinished row in the list's order (in the list's
# own order, and newest first).
SELECTIVE: list[tuple[str, Search[Any, Any], Any, list[tuple[str, bool]], str]] = [
    (f"{name}, {order}", search, query, sorting, index)
    for name, search, query, index in [
        (
            "unfinished task instances of a process instance",
            history_tasks.TASK_INSTANCES,
            TI(process_instance_id="pi-1", unfinished=True),
            "ACT_IDX_HI_TASKINST_PROCINST",
        ),
        (
            "the unfinished process instance of a business key",
            instances.PROCESS_INSTANCES,
            PI(process_instance_business_key="INV-7", unfinished=True),
            "ACT_IDX_HI_PRO_I_BUSKEY",
        ),
    ]
    for order, sorting in (("own order", []), ("newest first", NEWEST_FIRST))
]


@pytest.mark.parametrize(
    ("search", "query", "sorting", "index"),
    [pytest.param(*case[1:], id=case[0]) for case in SELECTIVE],
)
def test_a_selective_filter_reads_its_own_index(
    conn: Connection,
    search: Search[Any, Any],
    query: Any,
    sorting: list[tuple[str, bool]],
    index: str,
) -> None:
    plan = _page_subtree(_plan(conn, lambda: find(conn, search, query, sorting, 0, 50)))
    assert any(f"INDEX {index} " in step for step in plan), plan
