"""Engine-level figures that no single workload shows: raw append rate of the event store, full
projection rebuild rate, and single-instance replay rate.

Each runs on its own fresh SQLite file in the work directory; nothing here touches a user database.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Connection

from flowledger import migrations
from flowledger.core.ids import uuid7
from flowledger.eventlog import EventStore, NewCommit
from flowledger.tools.progress import Progress

from . import flowledger_runner as fl
from .errors import NotAvailable
from .results import AppendFigures, RebuildFigures, ReplayFigures, Spread
from .workloads import workload

EVENTS_PER_COMMIT = 10
COMMITS_PER_BATCH = 100
REPLAY_WORKLOAD = "linear400"
CORPUS_WORKLOADS = ("linear10", "usertask_gateway", "parallel")


def sqlite_database(path: Path, synchronous: str = "NORMAL") -> sa.Engine:
    """A SQLAlchemy engine on `path` configured as flowledger configures SQLite (WAL, BEGIN
    IMMEDIATE), with the schema migrated: what `EventStore` expects from its caller."""
    db = sa.create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False})

    @sa_event.listens_for(db, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.close()

    @sa_event.listens_for(db, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    migrations.upgrade(db)
    return db


def _synthetic_commit(index: int) -> NewCommit:
    """A new stream's first commit of EVENTS_PER_COMMIT events shaped like ActivityStarted."""
    stream_id = uuid7()
    events = [
        {
            "type": "ActivityStarted",
            "v": 1,
            "activity_instance_id": f"task{i}:{uuid7()}",
            "activity_id": f"task{i}",
            "activity_type": "serviceTask",
            "execution_id": stream_id,
            "parent_activity_instance_id": stream_id,
            "time": "2026-03-01T09:00:00.000",
        }
        for i in range(EVENTS_PER_COMMIT)
    ]
    return NewCommit(
        stream_id=stream_id,
        expected_version=0,
        prev_hash=None,
        events=msgspec.json.encode(events),
        event_count=EVENTS_PER_COMMIT,
        command_id=uuid7(),
        command_type="BenchmarkAppend",
        actor=f"bench-{index}",
    )


def _append_seconds(path: Path, commits: list[NewCommit], per_txn: int) -> float:
    db = sqlite_database(path)
    store = EventStore("sqlite")
    now = datetime.now(UTC)
    try:
        started = time.perf_counter()
        for first in range(0, len(commits), per_txn):
            with db.connect() as conn, conn.begin():
                store.append(conn, commits[first : first + per_txn], now)
        return time.perf_counter() - started
    finally:
        db.dispose()


def append_rate(workdir: Path, commits: int, repeat: int, progress: Progress) -> AppendFigures:
    """Events/s that `EventStore.append` sustains, batched and one commit per transaction."""
    progress.phase(f"engine: append {commits} commits x {EVENTS_PER_COMMIT} events")
    batched: list[float] = []
    single: list[float] = []
    event_bytes = 0.0
    for rep in range(repeat):
        prepared = [_synthetic_commit(i) for i in range(commits)]
        event_bytes = sum(len(c.events) for c in prepared) / (commits * EVENTS_PER_COMMIT)
        events = commits * EVENTS_PER_COMMIT
        seconds = _append_seconds(workdir / f"append-batched-{rep}.db", prepared, COMMITS_PER_BATCH)
        batched.append(events / seconds)
        prepared = [_synthetic_commit(i) for i in range(commits)]
        seconds = _append_seconds(workdir / f"append-single-{rep}.db", prepared, 1)
        single.append(events / seconds)
    progress.tick()
    return AppendFigures(
        commits=commits,
        events_per_commit=EVENTS_PER_COMMIT,
        event_bytes=round(event_bytes, 1),
        batched_commits_per_txn=COMMITS_PER_BATCH,
        batched_events_per_s=Spread.of(batched),
        single_commit_events_per_s=Spread.of(single),
    )


@dataclass(frozen=True)
class LogCorpus:
    """A database whose log the rebuild and replay figures read."""

    path: Path
    instances: int
    long_instance_id: str  # the instance replayed


def build_log_corpus(workdir: Path, instances: int, progress: Progress) -> LogCorpus:
    """A database holding `instances` instances of each base workload flowledger can run, and
    one long instance (linear400) to replay."""
    path = workdir / "log-corpus.db"
    engine = fl.open_engine(path, fl.MODES[0])
    total = 1
    try:
        for name in CORPUS_WORKLOADS:
            w = workload(name)
            try:
                fl.deploy(engine, w)
            except NotAvailable:
                continue  # a model this engine cannot run yet adds nothing to the corpus
            progress.note(f"log corpus: {instances} x {name}")
            fl.drive(engine, w, instances)
            total += instances
        long = workload(REPLAY_WORKLOAD)
        fl.deploy(engine, long)
        long_id = fl.drive(engine, long, 1)[0]
    finally:
        engine.close()
    return LogCorpus(path, total, long_id)


def _events_in_log(path: Path) -> int:
    db = sa.create_engine(f"sqlite:///{path}")
    try:
        with db.connect() as conn:
            return int(conn.execute(sa.text("SELECT last_position FROM log_head")).scalar_one())
    finally:
        db.dispose()


def _required_parameters(method: Callable[..., object]) -> list[str]:
    return [
        name
        for name, p in inspect.signature(method).parameters.items()
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]


def rebuild_rate(corpus: LogCorpus, repeat: int, progress: Progress) -> RebuildFigures:
    """Events/s of `engine.rebuild_projections()` over the whole corpus log."""
    progress.phase("engine: projection rebuild")
    progress.tick()
    engine = fl.open_engine(corpus.path, fl.MODES[0])
    try:
        rebuild: Callable[[], object] | None = getattr(engine, "rebuild_projections", None)
        if not callable(rebuild):
            return RebuildFigures(
                available=False, reason="this engine has no rebuild_projections() yet"
            )
        required = _required_parameters(rebuild)
        if required:
            return RebuildFigures(
                available=False,
                reason=f"rebuild_projections() needs arguments the harness does not know: "
                f"{', '.join(required)}",
            )
        events = _events_in_log(corpus.path)
        seconds: list[float] = []
        for _ in range(repeat):
            started = time.perf_counter()
            rebuild()
            seconds.append(time.perf_counter() - started)
    finally:
        engine.close()
    return RebuildFigures(
        events=events,
        instances=corpus.instances,
        seconds=Spread.of(seconds),
        events_per_s=Spread.of([events / s for s in seconds]),
    )


def replay_rate(corpus: LogCorpus, repeat: int, progress: Progress) -> ReplayFigures:
    """Events/s of `engine.replay(id)` on one long instance: read, decode and fold its stream."""
    progress.phase(f"engine: replay one {REPLAY_WORKLOAD} instance")
    instance_id = corpus.long_instance_id
    engine = fl.open_engine(corpus.path, fl.MODES[0])
    try:
        events = len(engine.events(instance_id))
        seconds: list[float] = []
        for _ in range(max(repeat, 3)):
            started = time.perf_counter()
            engine.replay(instance_id)
            seconds.append(time.perf_counter() - started)
    finally:
        engine.close()
    progress.tick()
    return ReplayFigures(
        workload=REPLAY_WORKLOAD,
        events=events,
        seconds=Spread.of(seconds),
        events_per_s=Spread.of([events / s for s in seconds]),
    )
