"""The durable peer: SpiffWorkflow 3.2 keeping each workflow in SQLite as its own JSON, timed.

A SpiffWorkflow application persists a workflow by serializing it with `BpmnWorkflowSerializer`
(the JSON carries the spec too) and storing the text. Here: one row per instance in
`workflow (id INTEGER PRIMARY KEY, state TEXT NOT NULL)`, through the standard `sqlite3` module,
WAL with synchronous=NORMAL (flowledger's default), no other pragma. The JSON is saved at each
wait state and at the end, one transaction per save: an instance that stops at its user task is
inserted there and updated at its end, one without a wait state is inserted at its end. Saves are
timed with the instances; opening the database and creating the table are not.

Uncached: every instance is started and saved at its user task first; then the connection is
opened again and each instance is loaded back (SELECT, `deserialize_json`) before its task is
completed and the result saved, as flowledger's uncached mode completes with a second engine.
"""

from __future__ import annotations

import shutil
import sqlite3
import tracemalloc
from collections.abc import Callable
from contextlib import AbstractContextManager, closing, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import peer
from .errors import BenchError, NotAvailable
from .timing import Stopwatch

SYNCHRONOUS = "NORMAL"
CACHED, UNCACHED = "sqlite-json", "sqlite-json-uncached"
MODES = (CACHED, UNCACHED)
SCHEMA = "CREATE TABLE IF NOT EXISTS workflow (id INTEGER PRIMARY KEY, state TEXT NOT NULL)"


class JsonStore:
    """The peer's table of workflows; every save is one committed transaction."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
        self.conn.execute(SCHEMA)
        self.conn.commit()
        self.saves = 0

    def insert(self, state: str) -> int:
        row = self.conn.execute("INSERT INTO workflow (state) VALUES (?)", (state,)).lastrowid
        self.conn.commit()
        self.saves += 1
        assert row is not None
        return row

    def update(self, workflow_id: int, state: str) -> None:
        self.conn.execute("UPDATE workflow SET state = ? WHERE id = ?", (state, workflow_id))
        self.conn.commit()
        self.saves += 1

    def load(self, workflow_id: int) -> str:
        found = self.conn.execute("SELECT state FROM workflow WHERE id = ?", (workflow_id,))
        return str(found.fetchone()[0])

    def close(self) -> None:
        self.conn.close()


def unavailable_reason(spec: peer.PeerSpec, uncached: bool) -> str | None:
    if uncached and spec.workload.variable_updates is not None:
        return "variables set while instances wait: reloading per change is not measured"
    if uncached and spec.workload.task_variables is None:
        return "no user task: every instance ends without a wait state, nothing to reload"
    return None


def _run_saved(spec: peer.PeerSpec, store: JsonStore, serializer: Any, i: int) -> int:
    """Run instance `i` to its end, saving at its wait state and at the end; returns its row."""
    workflow = peer.start(spec, i)
    if spec.workload.task_variables is None:
        peer.check_completed(spec, workflow, i)
        return store.insert(serializer.serialize_json(workflow))
    row = store.insert(serializer.serialize_json(workflow))  # waits at its user task
    peer.complete(spec, workflow, i)
    peer.check_completed(spec, workflow, i)
    store.update(row, serializer.serialize_json(workflow))
    return row


def _run_saved_by_updates(
    spec: peer.PeerSpec, store: JsonStore, serializer: Any, instances: int
) -> None:
    """Start every instance and save it (each waits); then, round by round, set each one's
    variables and save it again, as flowledger commits every change."""
    updates = spec.workload.variable_updates
    assert updates is not None
    workflows = [peer.start(spec, i) for i in range(instances)]
    rows = [store.insert(serializer.serialize_json(workflow)) for workflow in workflows]
    rounds = [updates(i) for i in range(instances)]
    for step in range(max((len(r) for r in rounds), default=0)):
        for i, workflow in enumerate(workflows):
            if step < len(rounds[i]):
                peer.update_waiting(workflow, rounds[i][step])
                store.update(rows[i], serializer.serialize_json(workflow))
    if spec.workload.task_variables is not None:
        for i, workflow in enumerate(workflows):
            peer.complete(spec, workflow, i)
            store.update(rows[i], serializer.serialize_json(workflow))
    for i, workflow in enumerate(workflows):
        peer.check_completed(spec, workflow, i)


def _run(
    spec: peer.PeerSpec,
    instances: int,
    path: Path,
    uncached: bool,
    timed: Callable[[], AbstractContextManager[Any]],
) -> JsonStore:
    """Run the instances on the database `path`, each phase inside `timed()` (a context);
    returns the store, closed."""
    serializer = peer.serializer()
    store = JsonStore(path)
    try:
        if not uncached and spec.workload.variable_updates is not None:
            with timed():
                _run_saved_by_updates(spec, store, serializer, instances)
            return store
        if not uncached:
            with timed():
                for i in range(instances):
                    _run_saved(spec, store, serializer, i)
            return store
        if spec.workload.task_variables is None or spec.workload.variable_updates is not None:
            raise NotAvailable(str(unavailable_reason(spec, uncached)))
        rows: list[int] = []
        with timed():
            for i in range(instances):
                rows.append(store.insert(serializer.serialize_json(peer.start(spec, i))))
        saves = store.saves
        store.close()
        store = JsonStore(path)  # a new connection: nothing of the first phase is at hand
        store.saves = saves
        with timed():
            for i, row in enumerate(rows):
                workflow = serializer.deserialize_json(store.load(row))
                peer.complete(spec, workflow, i)
                peer.check_completed(spec, workflow, i)
                store.update(row, serializer.serialize_json(workflow))
        return store
    finally:
        store.close()


@dataclass(frozen=True)
class DurableRun:
    watch: Stopwatch
    saves: int  # transactions that saved a workflow
    database_bytes: int  # what the run added to the database file


def _file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def _fresh(path: Path, template: Path | None) -> int:
    """`path` as a copy of `template` (a populated database) or nothing; returns its size."""
    if template is None:
        return 0
    shutil.copyfile(template, path)
    return _file_bytes(path)


def _check(path: Path, after: int, instances: int) -> None:
    """Every instance of the run is saved once, completed (Spiff's JSON says so)."""
    with closing(sqlite3.connect(path)) as conn:
        rows, completed = conn.execute(
            "SELECT count(*), coalesce(sum(json_extract(state, '$.completed')), 0) "
            "FROM workflow WHERE id > ?",
            (after,),
        ).fetchone()
    if rows != instances or completed != instances:
        raise BenchError(
            f"SpiffWorkflow saved {rows} workflows of {instances}, {completed} of them completed"
        )


def _rows_before(path: Path) -> int:
    if not path.exists():
        return 0
    with closing(sqlite3.connect(path)) as conn:
        return int(conn.execute("SELECT coalesce(max(id), 0) FROM workflow").fetchone()[0])


def timed_run(
    spec: peer.PeerSpec,
    instances: int,
    path: Path,
    *,
    uncached: bool = False,
    template: Path | None = None,
) -> DurableRun:
    """One repetition on a fresh database file (or a copy of a populated `template`)."""
    size_before = _fresh(path, template)
    after = _rows_before(path)
    watch = Stopwatch()
    store = _run(spec, instances, path, uncached, watch.running)
    _check(path, after, instances)
    return DurableRun(watch, store.saves, _file_bytes(path) - size_before)


def peak_memory(
    spec: peer.PeerSpec,
    instances: int,
    path: Path,
    *,
    uncached: bool = False,
    template: Path | None = None,
) -> int:
    """Peak bytes Python allocated while running the instances (untimed: tracemalloc is slow)."""
    _fresh(path, template)
    tracemalloc.start()
    try:
        _run(spec, instances, path, uncached, nullcontext)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
