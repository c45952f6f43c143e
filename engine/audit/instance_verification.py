"""Verify one instance: its hash chain, its commands in the command log, its replay against the
state the engine serves, and its rows in every table against a rebuild of its own commits (and
those of its deployment, which may delete or add rows of it). Reads only what belongs to it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Table, select
from sqlalchemy.engine import Connection

from flowledger.core import events as ev
from flowledger.core import views
from flowledger.core.errors import NotFound
from flowledger.core.evolve import evolve
from flowledger.core.state import InstanceState
from flowledger.engine.storage.streams import Repository
from flowledger.eventlog import CorruptStream, EventStore, StoredCommit, check_stream
from flowledger.projections.changes import ChangeSet
from flowledger.projections.compare import ShadowTables, compare_tables
from flowledger.projections.history import HistoryProjector
from flowledger.projections.replay import Replayer
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_RU_IDENTITYLINK,
    ACT_RU_TASK,
    HISTORY_TABLES,
    RUNTIME_TABLES,
)

# Byte arrays are rebuilt (projectors write them with the rows that name them) but not compared:
# no column of theirs names the instance.
TABLES = (*RUNTIME_TABLES, *HISTORY_TABLES, ACT_GE_BYTEARRAY)


def verify_instance(
    conn: Connection,
    store: EventStore,
    repository: Repository,
    history: HistoryProjector,
    instance_id: str,
    live: InstanceState | None,
) -> views.VerificationReport:
    """Everything verify checks, for one instance; `live` is the state the engine holds."""
    commits = store.read_stream(conn, instance_id)
    if not commits:
        raise NotFound("Process instance", instance_id)
    first = repository.decode(commits[0].events)[0]
    if not isinstance(first, ev.ProcessInstanceStarted):
        raise NotFound("Process instance", instance_id, ev.not_an_instance(first))
    problems: list[str] = []
    try:
        check_stream(instance_id, commits, 0, linked_to_start=True)
    except CorruptStream as exc:
        problems.append(f"hash: {exc}")
    problems += _commands(conn, store, commits)
    state: InstanceState | None = None
    for commit in commits:
        for event in repository.decode(commit.events):
            state = evolve(state, event)
    assert state is not None  # its first event starts it
    if live is not None and live != state:
        problems.append(f"stream {instance_id}: the state the engine serves differs from replay")
    streams = [*commits, *store.read_stream(conn, state.deployment_id)]
    streams.sort(key=lambda c: c.first_position)
    rows, found = _tables(conn, repository, history, streams, instance_id)
    return views.VerificationReport(
        commits_checked=len(commits),
        streams_checked=1,
        rows_compared=rows,
        problems=problems + found,
    )


def _commands(conn: Connection, store: EventStore, commits: list[StoredCommit]) -> list[str]:
    problems = []
    for c in commits:
        record = store.find_command(conn, c.command_id)
        where = f"the commit at {c.first_position} (stream {c.stream_id})"
        if record is None:
            problems.append(f"command-log: {where}: command {c.command_id} is not recorded")
        elif record.status != "accepted" or (record.command_type, record.actor) != (
            c.command_type,
            c.actor,
        ):
            problems.append(
                f"command-log: {where} is {c.command_type} by {c.actor!r}; the command log "
                f"says {record.command_type} by {record.actor!r}, {record.status}"
            )
    return problems


def _tables(
    conn: Connection,
    repository: Repository,
    history: HistoryProjector,
    commits: list[StoredCommit],
    instance_id: str,
) -> tuple[int, list[str]]:
    shadows = ShadowTables(TABLES)
    shadows.create(conn)
    try:
        replayer = Replayer(
            lambda stream, version: repository.state_at(conn, stream, version),
            history=history,
            runtime=True,
            repository=False,
        )
        changes = ChangeSet()
        for c in commits:
            replayer.project_commit(c, repository.decode(c.events), changes)
        shadows.apply(conn, changes)
        rebuilt = set(shadows.of.values())
        rebuilt_tasks = shadows.of[ACT_RU_TASK]

        def of_instance(t: Table) -> Any:
            return _belongs(t, instance_id, rebuilt_tasks if t in rebuilt else ACT_RU_TASK)

        count, problems = 0, []
        for table in TABLES:
            if _belongs(table, instance_id, ACT_RU_TASK) is None:
                continue
            rows, found = compare_tables(conn, table, shadows.of[table], rows=of_instance)
            count += rows
            problems += found
        return count, problems
    finally:
        shadows.drop(conn)


def _belongs(table: Table, instance_id: str, tasks: Table) -> ColumnElement[bool] | None:
    """The condition that picks `instance_id`'s rows of `table` (None: no column says)."""
    for column in ("PROC_INST_ID_", "PROCESS_INSTANCE_ID_"):
        if column in table.c:
            return table.c[column] == instance_id
    if table.name == ACT_RU_IDENTITYLINK.name:
        own = select(tasks.c.ID_).where(tasks.c.PROC_INST_ID_ == instance_id)
        return table.c.TASK_ID_.in_(own.scalar_subquery())
    return None
