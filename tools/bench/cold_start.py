"""Cold start: how long a new engine over a big database takes to serve its first query and command.

The database (N finished and M active `usertask_gateway` instances, history at level audit) is
slow to build, so it is built once and cached under the cache directory, keyed by schema
revision, state schema, engine version, model, history level and sizes. Measurements run on a
copy: the cached file is never written to again.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.metadata
import json
import shutil
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path

from flowledger import migrations
from flowledger.core.state import STATE_SCHEMA
from flowledger.tools.progress import Progress

from . import flowledger_runner as fl
from .errors import BenchError
from .features import EngineFeatures
from .results import ColdStartFigures, Spread
from .workloads import workload

COLD_WORKLOAD = "usertask_gateway"
# The level the database's history is built at (recorded in it: an engine opens it at this level
# only); `populated` derives copies at other levels from it.
COLD_HISTORY_LEVEL = "audit"
SAMPLE_SIZE = 16  # active instances remembered for the measurement
NOTE_EVERY = 1000


@dataclass(frozen=True)
class ColdDatabase:
    path: Path
    finished: int
    active: int
    active_sample: list[str]
    build_seconds: float | None
    from_cache: bool


def _engine_version() -> str:
    try:
        return importlib.metadata.version("flowledger")
    except importlib.metadata.PackageNotFoundError:
        return "dev"


def cache_key(finished: int, active: int) -> str:
    """The cached database's name: anything that changes what the engine writes changes it."""
    model = hashlib.sha256(workload(COLD_WORKLOAD).bpmn("camunda")).hexdigest()[:10]
    return (
        f"cold-{COLD_WORKLOAD}-{finished}f-{active}a-rev{migrations.head_revision()}"
        f"-state{STATE_SCHEMA}-v{_engine_version()}-{model}-{COLD_HISTORY_LEVEL}"
    )


def _is_active(i: int, total: int, active: int) -> bool:
    """Spread the `active` instances evenly over all `total` (exactly `active` of them)."""
    return (i * active) // total != ((i + 1) * active) // total


def _build(
    path: Path, finished: int, active: int, features: EngineFeatures, progress: Progress
) -> list[str]:
    """Fill `path` (fast path: synchronous=OFF, async history when the engine has it)."""
    w = workload(COLD_WORKLOAD)
    assert w.task_variables is not None
    mode = fl.Mode("cold-build", "OFF", features.async_history, "bulk build", COLD_HISTORY_LEVEL)
    total = finished + active
    active_ids: list[str] = []
    engine = fl.open_engine(path, mode)
    try:
        fl.deploy(engine, w)
        for i in range(total):
            pi = engine.start_process_instance(w.process_id, w.start_variables(i))
            if _is_active(i, total, active):
                active_ids.append(pi.id)
            else:
                for task in engine.tasks(process_instance_id=pi.id):
                    engine.complete_task(task.id, w.task_variables(i))
            if (i + 1) % NOTE_EVERY == 0:
                progress.note(f"cold-start database: {i + 1:,} of {total:,} instances")
        if mode.async_history:
            fl.wait_for_history(engine, finished)
    finally:
        engine.close()
    step = max(1, len(active_ids) // SAMPLE_SIZE)
    return active_ids[::step][:SAMPLE_SIZE]


def _single_file(path: Path) -> None:
    """Fold the WAL into the main file so the cache holds one self-contained file."""
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")


def ensure_database(
    cache_dir: Path, finished: int, active: int, features: EngineFeatures, progress: Progress
) -> ColdDatabase:
    """The cached database for these sizes, built first if the cache does not hold it."""
    if active < 1:
        raise BenchError("--cold-active must be at least 1: cold start completes an active task")
    cache_dir.mkdir(parents=True, exist_ok=True)
    key = cache_key(finished, active)
    path = cache_dir / f"{key}.db"
    meta_path = cache_dir / f"{key}.json"
    if path.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text())
        return ColdDatabase(
            path, finished, active, list(meta["active_sample"]), meta.get("build_seconds"), True
        )
    partial = cache_dir / f"{key}.partial.db"
    for stale in cache_dir.glob(f"{key}.partial.db*"):
        stale.unlink()
    progress.note(f"building the cold-start database {path} (once; cached afterwards)")
    started = time.perf_counter()
    sample = _build(partial, finished, active, features, progress)
    build_seconds = time.perf_counter() - started
    _single_file(partial)
    partial.replace(path)
    meta_path.write_text(
        json.dumps(
            {
                "workload": COLD_WORKLOAD,
                "finished": finished,
                "active": active,
                "active_sample": sample,
                "build_seconds": round(build_seconds, 1),
            },
            indent=2,
        )
    )
    return ColdDatabase(path, finished, active, sample, build_seconds, False)


def measure(db: ColdDatabase, workdir: Path, repeat: int, progress: Progress) -> ColdStartFigures:
    """Engine(url), then the tasks of one active instance, then completing that task."""
    progress.phase(f"engine: cold start over {db.finished:,} finished + {db.active:,} active")
    copy = workdir / "cold-start.db"
    shutil.copyfile(db.path, copy)
    w = workload(COLD_WORKLOAD)
    assert w.task_variables is not None
    cold_mode = replace(fl.mode("sqlite-normal"), history_level=COLD_HISTORY_LEVEL)
    construct: list[float] = []
    query: list[float] = []
    command: list[float] = []
    for rep in range(repeat):
        instance_id = db.active_sample[rep % len(db.active_sample)]
        gc.collect()
        started = time.perf_counter()
        engine = fl.open_engine(copy, cold_mode)
        try:
            constructed = time.perf_counter()
            tasks = engine.tasks(process_instance_id=instance_id)
            queried = time.perf_counter()
            if len(tasks) != 1:
                raise BenchError(
                    f"cold-start database {db.path}: active instance {instance_id} has "
                    f"{len(tasks)} open tasks, expected 1; delete the cached file to rebuild it"
                )
            engine.complete_task(tasks[0].id, w.task_variables(rep))
            commanded = time.perf_counter()
        finally:
            engine.close()
        construct.append(constructed - started)
        query.append(queried - constructed)
        command.append(commanded - queried)
    progress.tick()
    return ColdStartFigures(
        workload=COLD_WORKLOAD,
        finished_instances=db.finished,
        active_instances=db.active,
        database_bytes=db.path.stat().st_size,
        build_seconds=None if db.build_seconds is None else round(db.build_seconds, 2),
        from_cache=db.from_cache,
        construct_s=Spread.of(construct),
        first_query_s=Spread.of(query),
        first_command_s=Spread.of(command),
        total_s=Spread.of([a + b + c for a, b, c in zip(construct, query, command, strict=True)]),
    )
