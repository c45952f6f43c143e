"""Runs one workload on flowledger: a fresh SQLite file, one engine mode, N instances, timed.

Only the instances are timed (start, plus the user-task query and completion where the model has
one); deploying, waiting for asynchronous history and counting rows afterwards are not.
"""

from __future__ import annotations

import gc
import shutil
import sqlite3
import time
import tracemalloc
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy import cast, create_engine, func, select, text
from sqlalchemy.types import LargeBinary

from flowledger.core import ModelError
from flowledger.core.engine import Engine
from flowledger.eventlog.tables import event_log
from flowledger.projections.tables import (
    ACT_HI_ACTINST,
    ACT_HI_PROCINST,
    ACT_RE_DEPLOYMENT,
    HISTORY_TABLES,
    RUNTIME_TABLES,
)

from .errors import BenchError, NotAvailable
from .features import EngineFeatures
from .model_generator import COUNT_VARIABLE, DELEGATE_NAME
from .workloads import Workload

HISTORY_CATCH_UP_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class Mode:
    """How the engine is configured for a run."""

    name: str
    synchronous: str  # SQLite PRAGMA synchronous
    async_history: bool  # ACT_HI_* projected by a follower instead of in the command
    description: str


MODES = (
    Mode("sqlite-normal", "NORMAL", False, "SQLite WAL, synchronous=NORMAL, history inline"),
    Mode("sqlite-full", "FULL", False, "SQLite WAL, synchronous=FULL, history inline"),
    Mode("async-history", "NORMAL", True, "SQLite WAL, synchronous=NORMAL, history_mode=async"),
)


def unavailable_reason(mode: Mode, features: EngineFeatures) -> str | None:
    if mode.async_history and not features.async_history:
        return "this engine has no Engine(history_mode='async') yet"
    return None


def count_delegate(execution: Any) -> None:
    """The workloads' no-op service: increment the `count` process variable."""
    execution.setVariable(COUNT_VARIABLE, (execution.getVariable(COUNT_VARIABLE) or 0) + 1)


def make_template(path: Path) -> Path:
    """A database file migrated to the newest schema, to copy instead of migrating every time
    (Alembic costs ~0.1 s per fresh file). One self-contained file: no WAL beside it."""
    Engine(f"sqlite:///{path}").close()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    return path


def fresh_database(path: Path, template: Path | None) -> Path:
    """`path` as an empty database: a copy of `template`, or nothing yet (Engine creates it)."""
    if template is not None:
        shutil.copyfile(template, path)
    return path


def open_engine(path: Path, mode: Mode, **extra: Any) -> Engine:
    """An engine on the SQLite file `path` in `mode`, with the benchmark delegate registered."""
    options: dict[str, Any] = {"sqlite_synchronous": mode.synchronous, **extra}
    if mode.async_history:
        options["history_mode"] = "async"
    engine = Engine(f"sqlite:///{path}", **options)
    engine.register_delegate(DELEGATE_NAME, count_delegate)
    return engine


def deploy(engine: Engine, workload: Workload) -> None:
    """Deploy the workload's model; NotAvailable when the engine refuses it (names the element)."""
    try:
        engine.deploy({f"{workload.name}.bpmn": workload.bpmn("camunda")}, name=workload.name)
    except ModelError as exc:
        raise NotAvailable(f"flowledger refuses the model: {exc}") from exc


def drive(engine: Engine, workload: Workload, instances: int, first: int = 0) -> list[str]:
    """Run `instances` instances to their end through the public API; returns their ids."""
    ids: list[str] = []
    for i in range(first, first + instances):
        pi = engine.start_process_instance(workload.process_id, workload.start_variables(i))
        if workload.task_variables is not None:
            for task in engine.tasks(process_instance_id=pi.id):
                engine.complete_task(task.id, workload.task_variables(i))
        ids.append(pi.id)
    return ids


def wait_for_history(engine: Engine, finished: int) -> float:
    """Seconds until asynchronous history holds `finished` finished instances."""
    started = time.perf_counter()
    flush = getattr(engine, "flush_history", None)
    if callable(flush):
        flush()
        return time.perf_counter() - started
    deadline = started + HISTORY_CATCH_UP_TIMEOUT_S
    while len(engine.historic_process_instances(finished=True)) < finished:
        if time.perf_counter() > deadline:
            raise BenchError(
                f"asynchronous history did not reach {finished} finished instances within "
                f"{HISTORY_CATCH_UP_TIMEOUT_S:.0f} s"
            )
        time.sleep(0.005)
    return time.perf_counter() - started


@dataclass(frozen=True)
class DatabaseFigures:
    """What one run left in its database, counted after the engine closed."""

    instances: int  # rows in ACT_HI_PROCINST
    completed: int  # of those, STATE_ = COMPLETED
    activity_instances: int  # rows in ACT_HI_ACTINST
    events: int  # rows of event_log_events outside deployment streams
    log_bytes: int  # bytes of event_log.events outside deployment streams
    runtime_rows: int
    history_rows: int
    file_bytes: int


def database_figures(path: Path) -> DatabaseFigures:
    db = create_engine(f"sqlite:///{path}")
    try:
        with db.connect() as conn:
            deployments = select(ACT_RE_DEPLOYMENT.c.ID_).scalar_subquery()

            def count(table: Any, *where: Any) -> int:
                stmt = select(func.count()).select_from(table).where(*where)
                return int(conn.execute(stmt).scalar_one())

            events = conn.execute(
                text(
                    "SELECT count(*) FROM event_log_events "
                    "WHERE stream_id NOT IN (SELECT ID_ FROM ACT_RE_DEPLOYMENT)"
                )
            ).scalar_one()
            log_bytes = conn.execute(
                select(
                    func.coalesce(func.sum(func.length(cast(event_log.c.events, LargeBinary))), 0)
                ).where(event_log.c.stream_id.not_in(deployments))
            ).scalar_one()
            figures = DatabaseFigures(
                instances=count(ACT_HI_PROCINST),
                completed=count(ACT_HI_PROCINST, ACT_HI_PROCINST.c.STATE_ == "COMPLETED"),
                activity_instances=count(ACT_HI_ACTINST),
                events=int(events),
                log_bytes=int(log_bytes),
                runtime_rows=sum(count(t) for t in RUNTIME_TABLES),
                history_rows=sum(count(t) for t in HISTORY_TABLES),
                file_bytes=0,
            )
    finally:
        db.dispose()
    size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    return replace(figures, file_bytes=size)


@dataclass(frozen=True)
class TimedRun:
    seconds: float
    history_catch_up_s: float | None  # async history: flush after the timed part
    history_backlog_events: int | None  # async history: events not yet projected when timing ended
    figures: DatabaseFigures


def history_backlog(engine: Engine) -> int | None:
    lag = getattr(engine, "history_lag", None)
    return int(lag()) if callable(lag) else None


def timed_run(
    workload: Workload, mode: Mode, instances: int, path: Path, template: Path | None = None
) -> TimedRun:
    """One repetition on a fresh database file; raises BenchError if an instance did not end."""
    engine = open_engine(fresh_database(path, template), mode)
    try:
        deploy(engine, workload)
        gc.collect()
        started = time.perf_counter()
        drive(engine, workload, instances)
        seconds = time.perf_counter() - started
        backlog = history_backlog(engine) if mode.async_history else None
        catch_up = wait_for_history(engine, instances) if mode.async_history else None
    finally:
        engine.close()
    figures = database_figures(path)
    if figures.completed != instances:
        raise BenchError(
            f"{workload.name} on flowledger ({mode.name}): {figures.completed} of {instances} "
            "instances reached COMPLETED in ACT_HI_PROCINST"
        )
    return TimedRun(seconds, catch_up, backlog, figures)


def peak_memory(
    workload: Workload, mode: Mode, instances: int, path: Path, template: Path | None = None
) -> int:
    """Peak bytes Python allocated while running the instances (untimed: tracemalloc is slow)."""
    engine = open_engine(fresh_database(path, template), mode)
    try:
        deploy(engine, workload)
        tracemalloc.start()
        try:
            drive(engine, workload, instances)
            if mode.async_history:
                wait_for_history(engine, instances)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        engine.close()
