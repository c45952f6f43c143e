"""Runs one workload on flowledger: a fresh SQLite file, one engine mode, N instances, timed.

Only the instances are timed (start, plus the user-task query and completion where the model has
one); deploying, waiting for asynchronous history and counting rows afterwards are not. An
uncached mode starts every instance first, then opens a second engine on the database (its state
cache is empty) to query and complete the tasks: every completion loads its instance from the log.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
import tracemalloc
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy import cast, create_engine, func, select
from sqlalchemy.types import LargeBinary

from flowledger.core import ModelError
from flowledger.core.commands import (
    CancelAllForActivity,
    ModificationInstruction,
    StartAfterActivity,
)
from flowledger.core.instance_migration.plan import MigrationInstruction, MigrationPlan
from flowledger.engine import Engine
from flowledger.eventlog.tables import event_log, log_head
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
from .timing import Stopwatch, settle_children
from .workloads import Workload

HISTORY_CATCH_UP_TIMEOUT_S = 600.0
HISTORY_LEVELS = ("audit", "full")  # the levels the modes run at: Camunda's default, and all


@dataclass(frozen=True)
class Mode:
    """How the engine is configured for a run. Every mode names its history level: the engine's
    default is not what a mode measures."""

    name: str
    synchronous: str  # SQLite PRAGMA synchronous
    async_history: bool  # ACT_HI_* projected by a follower instead of in the command
    description: str
    history_level: str  # Engine(history_level=...): "audit" or "full"
    uncached: bool = False  # the user task is completed by a second engine: nothing cached
    projection: str = "inline"  # Engine(projection=...): rows in each command, or behind the log

    @property
    def label(self) -> str:
        """How the reports name the system (sync and history level are columns of their own)."""
        if self.async_history:
            return "flowledger async history"
        if self.projection == "deferred":
            return "flowledger deferred"
        return "flowledger uncached" if self.uncached else "flowledger"


MODES = (
    Mode(
        "sqlite-normal", "NORMAL", False, "SQLite WAL, synchronous=NORMAL, history inline", "audit"
    ),
    Mode(
        "sqlite-normal-full-history",
        "NORMAL",
        False,
        "SQLite WAL, synchronous=NORMAL, history inline at level full",
        "full",
    ),
    Mode(
        "sqlite-normal-uncached",
        "NORMAL",
        False,
        "as sqlite-normal; the user task completed by a second engine (state cache empty)",
        "audit",
        uncached=True,
    ),
    Mode("sqlite-full", "FULL", False, "SQLite WAL, synchronous=FULL, history inline", "audit"),
    Mode(
        "sqlite-full-full-history",
        "FULL",
        False,
        "SQLite WAL, synchronous=FULL, history inline at level full",
        "full",
    ),
    Mode(
        "sqlite-deferred",
        "NORMAL",
        False,
        "SQLite WAL, synchronous=NORMAL, projection=deferred (rows written behind the log)",
        "audit",
        projection="deferred",
    ),
    Mode(
        "sqlite-deferred-full-history",
        "NORMAL",
        False,
        "SQLite WAL, synchronous=NORMAL, projection=deferred at history level full",
        "full",
        projection="deferred",
    ),
    Mode(
        "async-history",
        "NORMAL",
        True,
        "SQLite WAL, synchronous=NORMAL, projection=async-history",
        "audit",
    ),
    Mode(
        "async-history-full-history",
        "NORMAL",
        True,
        "SQLite WAL, synchronous=NORMAL, projection=async-history at level full",
        "full",
    ),
)


def mode(name: str) -> Mode:
    """The mode called `name` (KeyError if there is none)."""
    for m in MODES:
        if m.name == name:
            return m
    raise KeyError(name)


def unavailable_reason(
    mode: Mode, features: EngineFeatures, workload: Workload | None = None
) -> str | None:
    if mode.async_history and not features.async_history:
        return "this engine has no Engine(history_mode='async') yet"
    if mode.uncached and workload is not None and workload.variable_updates is not None:
        return "variables set while instances wait: reloading per change is not measured"
    if mode.uncached and workload is not None and workload.task_variables is None:
        return "no user task: every instance ends within its start command, nothing to reload"
    return None


def count_delegate(execution: Any) -> None:
    """The workloads' no-op service: increment the `count` process variable."""
    execution.setVariable(COUNT_VARIABLE, (execution.getVariable(COUNT_VARIABLE) or 0) + 1)


def make_template(path: Path, history_level: str) -> Path:
    """A database file migrated to the newest schema, its history level recorded, to copy instead
    of migrating every time (Alembic costs ~0.1 s per fresh file). One self-contained file: no
    WAL beside it. One per history level: a database keeps the level it was first opened at."""
    Engine(f"sqlite:///{path}", history_level=history_level).close()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    return path


def fresh_database(path: Path, template: Path | None) -> Path:
    """`path` as a copy of `template` (an empty or a populated database), or nothing yet (Engine
    creates it)."""
    if template is not None:
        shutil.copyfile(template, path)
    return path


def open_engine(path: Path, mode: Mode, **extra: Any) -> Engine:
    """An engine on the SQLite file `path` in `mode`, with the benchmark delegate registered."""
    options: dict[str, Any] = {
        "sqlite_synchronous": mode.synchronous,
        "history_level": mode.history_level,
        **extra,
    }
    # Every mode names its projection: a new SQLite file's default is not what "inline" measures.
    options["projection"] = "async-history" if mode.async_history else mode.projection
    engine = Engine(f"sqlite:///{path}", **options)
    engine.register_delegate(DELEGATE_NAME, count_delegate)
    if mode.projection == "deferred":
        engine.start_projection_follower()  # as a server does: the steady state is measured
    return engine


def deploy(engine: Engine, workload: Workload) -> None:
    """Deploy the workload's model; NotAvailable when the engine refuses it (names the element)."""
    try:
        engine.deploy({f"{workload.name}.bpmn": workload.bpmn("camunda")}, name=workload.name)
        if workload.migrated_to is not None:
            engine.deploy(
                {f"{workload.name}.bpmn": workload.bpmn_v2("camunda")}, name=f"{workload.name} v2"
            )
    except ModelError as exc:
        raise NotAvailable(f"flowledger refuses the model: {exc}") from exc


def drive(engine: Engine, workload: Workload, instances: int, first: int = 0) -> list[str]:
    """Run `instances` instances to their end through the public API; returns their ids."""
    if workload.variable_updates is not None:
        return _drive_by_updates(engine, workload, range(first, first + instances))
    if workload.repaired_past is not None:
        return _drive_by_repair(engine, workload, workload.repaired_past, instances, first)
    if workload.migrated_to is not None:
        return _drive_by_migration(engine, workload, range(first, first + instances))
    ids: list[str] = []
    for i in range(first, first + instances):
        pi = engine.start_process_instance(workload.process_id, workload.start_variables(i))
        if workload.task_variables is not None:
            for task in engine.tasks(process_instance_id=pi.id):
                engine.complete_task(task.id, workload.task_variables(i))
        ids.append(pi.id)
    return ids


def _drive_by_updates(engine: Engine, workload: Workload, numbers: range) -> list[str]:
    """Start every instance (each waits), then set their variables round by round: every change
    meets all the run's instances waiting, which is what re-evaluation costs."""
    assert workload.variable_updates is not None
    ids = [
        engine.start_process_instance(workload.process_id, workload.start_variables(i)).id
        for i in numbers
    ]
    rounds = {i: workload.variable_updates(i) for i in numbers}
    for step in range(max((len(r) for r in rounds.values()), default=0)):
        for i, instance_id in zip(numbers, ids, strict=True):
            if step < len(rounds[i]):
                engine.runtime_service.set_variables(instance_id, rounds[i][step])
    if workload.task_variables is not None:
        complete_tasks(engine, workload, ids)
    return ids


def _drive_by_repair(
    engine: Engine, workload: Workload, stuck: str, instances: int, first: int
) -> list[str]:
    """Start each instance (it waits at `stuck`), then move it on as an operator would: one
    modification cancelling the task and starting after it, with an annotation."""
    repair: list[ModificationInstruction] = [
        CancelAllForActivity(activity_id=stuck),
        StartAfterActivity(activity_id=stuck),
    ]
    ids: list[str] = []
    for i in range(first, first + instances):
        pi = engine.start_process_instance(workload.process_id, workload.start_variables(i))
        engine.runtime_service.modify_process_instance(
            pi.id, repair, annotation="bench: moved past a stuck task"
        )
        ids.append(pi.id)
    return ids


def _drive_by_migration(engine: Engine, workload: Workload, numbers: range) -> list[str]:
    """Start each instance on version 1 (it waits at its user task), migrate it to version 2
    by a plan mapping the activities both share, then complete its task."""
    by_version = {
        d.version: d.id for d in engine.repository_service.process_definitions(workload.process_id)
    }
    v1, v2 = by_version[1], by_version[max(by_version)]
    shared = sorted(
        {n.id for n in workload.graph.nodes}
        & {n.id for n in (workload.migrated_to.nodes if workload.migrated_to else [])}
    )
    plan = MigrationPlan(v1, v2, tuple(MigrationInstruction(a, a) for a in shared))
    ids: list[str] = []
    for i in numbers:
        pi = engine.start_process_instance(definition_id=v1, variables=workload.start_variables(i))
        engine.runtime_service.migrate_process_instances(plan, [pi.id])
        ids.append(pi.id)
    complete_tasks(engine, workload, ids)
    return ids


def start_instances(engine: Engine, workload: Workload, instances: int) -> list[str]:
    """Start `instances` instances (they wait at their user task); returns their ids."""
    return [
        engine.start_process_instance(workload.process_id, workload.start_variables(i)).id
        for i in range(instances)
    ]


def complete_tasks(engine: Engine, workload: Workload, ids: list[str]) -> None:
    """Query each instance's tasks and complete them, as `drive` does after the start."""
    assert workload.task_variables is not None
    for i, instance_id in enumerate(ids):
        for task in engine.tasks(process_instance_id=instance_id):
            engine.complete_task(task.id, workload.task_variables(i))


def wait_for_history(engine: Engine, finished: int) -> float:
    """Seconds until asynchronous history holds `finished` finished instances."""
    started = time.perf_counter()
    flush = getattr(engine, "flush_history", None)
    if callable(flush):
        flush()
        return time.perf_counter() - started
    deadline = started + HISTORY_CATCH_UP_TIMEOUT_S
    while len(engine.history_service.historic_process_instances(finished=True)) < finished:
        if time.perf_counter() > deadline:
            raise BenchError(
                f"asynchronous history did not reach {finished} finished instances within "
                f"{HISTORY_CATCH_UP_TIMEOUT_S:.0f} s"
            )
        time.sleep(0.005)
    return time.perf_counter() - started


@dataclass(frozen=True)
class DatabaseFigures:
    """What a database holds, counted with no engine open."""

    instances: int  # rows in ACT_HI_PROCINST
    completed: int  # of those, STATE_ = COMPLETED
    activity_instances: int  # rows in ACT_HI_ACTINST
    events: int  # events outside deployment streams (rows of the event_log_events view)
    log_bytes: int  # bytes of event_log.events outside deployment streams
    runtime_rows: int
    history_rows: int
    file_bytes: int
    log_position: int = 0  # the newest event's position (log_head)


def database_figures(path: Path, before: DatabaseFigures | None = None) -> DatabaseFigures:
    """What the database `path` holds; with `before`, what was added to a database that held
    that (the log is read only past `before.log_position`: a populated log is large)."""
    after = 0 if before is None else before.log_position
    db = create_engine(f"sqlite:///{path}")
    try:
        with db.connect() as conn:
            deployments = select(ACT_RE_DEPLOYMENT.c.ID_).scalar_subquery()

            def count(table: Any, *where: Any) -> int:
                stmt = select(func.count()).select_from(table).where(*where)
                return int(conn.execute(stmt).scalar_one())

            # A commit holds the events first_position..last_position: the same count as the
            # event_log_events view's rows, without decoding every commit's JSON.
            c = event_log.c
            added = (c.stream_id.not_in(deployments), c.first_position > after)
            events, log_bytes = conn.execute(
                select(
                    func.coalesce(func.sum(c.last_position - c.first_position + 1), 0),
                    func.coalesce(func.sum(func.length(cast(c.events, LargeBinary))), 0),
                ).where(*added)
            ).one()
            position = conn.execute(select(log_head.c.last_position)).scalar_one()
            figures = DatabaseFigures(
                instances=count(ACT_HI_PROCINST),
                completed=count(ACT_HI_PROCINST, ACT_HI_PROCINST.c.STATE_ == "COMPLETED"),
                activity_instances=count(ACT_HI_ACTINST),
                events=int(events),
                log_bytes=int(log_bytes),
                runtime_rows=sum(count(t) for t in RUNTIME_TABLES),
                history_rows=sum(count(t) for t in HISTORY_TABLES),
                file_bytes=sum(p.stat().st_size for p in path.parent.glob(path.name + "*")),
                log_position=int(position),
            )
    finally:
        db.dispose()
    if before is None:
        return figures
    return replace(
        figures,
        instances=figures.instances - before.instances,
        completed=figures.completed - before.completed,
        activity_instances=figures.activity_instances - before.activity_instances,
        runtime_rows=figures.runtime_rows - before.runtime_rows,
        history_rows=figures.history_rows - before.history_rows,
        file_bytes=figures.file_bytes - before.file_bytes,
    )


@dataclass(frozen=True)
class TimedRun:
    seconds: float
    cpu_s: float  # this process, timed part
    children_cpu_s: float | None  # child processes (the async-history follower), timed part
    history_catch_up_s: float | None  # async history: flush after the timed part
    history_backlog_events: int | None  # async history: events not yet projected when timing ended
    catch_up_cpu_s: float | None  # async history: CPU of both processes during the catch-up
    history_level: str  # the level the engine recorded for the database
    figures: DatabaseFigures  # what the run added to the database


def history_backlog(engine: Engine) -> int | None:
    return int(engine.history_service.history_lag())


def _recorded_level(engine: Engine, mode: Mode) -> str:
    """The history level the engine works at: refuses a run at another level than asked."""
    level = str(getattr(engine, "history_level", mode.history_level))
    if level != mode.history_level:
        raise BenchError(
            f"{mode.name}: the engine works at history level {level!r}, not {mode.history_level!r}"
        )
    return level


def _reopened(engine: Engine, path: Path, mode: Mode) -> Engine:
    """A second engine on the database in place of `engine`: its state cache is empty, so each
    command loads its instance from the log (newest snapshot + the commits after it)."""
    engine.close()
    engine = open_engine(path, mode)
    if mode.async_history or mode.projection == "deferred":
        settle_children()
    return engine


def timed_run(
    workload: Workload,
    mode: Mode,
    instances: int,
    path: Path,
    template: Path | None = None,
    before: DatabaseFigures | None = None,
) -> TimedRun:
    """One repetition on a copy of `template` (fresh, or populated: `before` is what it held);
    raises BenchError if an instance did not end."""
    watch, catch_up_watch = Stopwatch(), Stopwatch()
    engine = open_engine(fresh_database(path, template), mode)
    try:
        level = _recorded_level(engine, mode)
        deploy(engine, workload)
        if mode.async_history or mode.projection == "deferred":
            settle_children()  # the follower process's start-up is not the workload's
        if mode.uncached:
            with watch.running():
                ids = start_instances(engine, workload, instances)
            engine = _reopened(engine, path, mode)
            with watch.running():
                complete_tasks(engine, workload, ids)
                if mode.projection == "deferred":
                    engine.flush_history()
        else:
            with watch.running():
                drive(engine, workload, instances)
                if mode.projection == "deferred":
                    engine.flush_history()  # the rows behind the log are part of the work
        backlog = catch_up = None
        if mode.async_history:
            backlog = history_backlog(engine)
            with catch_up_watch.running(collect=False):
                catch_up = wait_for_history(engine, instances + (before.completed if before else 0))
    finally:
        engine.close()
    figures = database_figures(path, before)
    if figures.completed != instances:
        raise BenchError(
            f"{workload.name} on flowledger ({mode.name}): {figures.completed} of {instances} "
            "instances reached COMPLETED in ACT_HI_PROCINST"
        )
    catch_up_cpu = None
    if catch_up is not None and catch_up_watch.children_cpu_s is not None:
        catch_up_cpu = catch_up_watch.cpu_s + catch_up_watch.children_cpu_s
    return TimedRun(
        seconds=watch.seconds,
        cpu_s=watch.cpu_s,
        children_cpu_s=watch.children_cpu_s,
        history_catch_up_s=catch_up,
        history_backlog_events=backlog,
        catch_up_cpu_s=catch_up_cpu,
        history_level=level,
        figures=figures,
    )


def peak_memory(
    workload: Workload,
    mode: Mode,
    instances: int,
    path: Path,
    template: Path | None = None,
    before: DatabaseFigures | None = None,
) -> int:
    """Peak bytes Python allocated while running the instances (untimed: tracemalloc is slow)."""
    engine = open_engine(fresh_database(path, template), mode)
    try:
        deploy(engine, workload)
        tracemalloc.start()
        try:
            if mode.uncached:
                ids = start_instances(engine, workload, instances)
                engine = _reopened(engine, path, mode)
                complete_tasks(engine, workload, ids)
            else:
                drive(engine, workload, instances)
            if mode.async_history:
                wait_for_history(engine, instances + (before.completed if before else 0))
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        engine.close()
