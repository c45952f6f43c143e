"""Databases already holding many instances, so that workloads can run on a copy of one.

flowledger: the cold-start database (`cold_start.ensure_database`: N finished + M active
`usertask_gateway` instances, history at `cold_start.COLD_HISTORY_LEVEL`), and for each other
history level a copy whose history was rebuilt at that level from the log
(`history_service.set_history_level`). The durable peer: a SQLite file of N + M workflow rows in
SpiffWorkflow's JSON (finished and waiting `usertask_gateway` workflows as its serializer writes
them, active ones spread as in flowledger's). All are cached in the cache directory and never
written again: every run works on a copy.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from contextlib import closing
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from flowledger.core import FlowledgerError
from flowledger.engine import Engine
from flowledger.tools.progress import Progress

from . import cold_start, durable_peer, peer
from . import flowledger_runner as fl
from .errors import BenchError
from .features import EngineFeatures
from .workloads import workload


@dataclass
class Populated:
    """The populated databases of one run, per history level, and why one is missing."""

    finished: int
    active: int
    flowledger: dict[str, Path] = field(default_factory=dict)  # history level -> database
    before: dict[str, fl.DatabaseFigures] = field(default_factory=dict)  # what each holds
    unavailable: dict[str, str] = field(default_factory=dict)  # history level -> why none
    peer: Path | None = None
    peer_reason: str | None = None  # why the durable peer has no populated database

    @property
    def instances(self) -> int:
        return self.finished + self.active


def prepare_databases(
    cache_dir: Path,
    finished: int,
    active: int,
    levels: list[str],
    peer_wanted: bool,
    features: EngineFeatures,
    progress: Progress,
) -> Populated:
    """The populated databases at `levels` (and the peer's when wanted), built when the cache
    does not hold them; a database that cannot be built is recorded as unavailable, with why."""
    populated = Populated(finished, active)
    try:
        base = cold_start.ensure_database(cache_dir, finished, active, features, progress)
    except (BenchError, FlowledgerError) as exc:
        for level in levels:
            populated.unavailable[level] = f"populated database: {type(exc).__name__}: {exc}"
    else:
        for level in levels:
            try:
                path = _at_level(base.path, level, progress)
                populated.before[level] = _figures(path)
                populated.flowledger[level] = path
            except (BenchError, FlowledgerError) as exc:
                populated.unavailable[level] = f"{type(exc).__name__}: {exc}"
    if peer_wanted:
        try:
            populated.peer = peer_database(cache_dir, finished, active, progress)
        except BenchError as exc:
            populated.peer_reason = str(exc)
    return populated


def _at_level(base: Path, level: str, progress: Progress) -> Path:
    """The cold-start database with its history at `level`: itself, or a cached copy rebuilt."""
    if level == cold_start.COLD_HISTORY_LEVEL:
        return base
    path = base.with_name(f"{base.stem}-as-{level}.db")
    if path.exists():
        return path
    partial = base.with_name(f"{base.stem}-as-{level}.partial.db")
    for stale in partial.parent.glob(partial.name + "*"):
        stale.unlink()
    progress.note(f"rebuilding the history of a copy of {base.name} at level {level} (once)")
    shutil.copyfile(base, partial)
    set_history_level(partial, level)
    _single_file(partial)
    partial.replace(path)
    return path


def set_history_level(path: Path, level: str) -> None:
    """Rebuild the history of the database `path` at `level` and record the level there."""
    with Engine(f"sqlite:///{path}", sqlite_synchronous="OFF") as engine:
        engine.history_service.set_history_level(level)


def _single_file(path: Path) -> None:
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")


def _figures(path: Path) -> fl.DatabaseFigures:
    """What the cached database holds (counted once, then read from beside it)."""
    saved = path.with_name(path.name + ".figures.json")
    if saved.exists():
        counted = json.loads(saved.read_text())
        if set(counted) == {f.name for f in fields(fl.DatabaseFigures)}:
            return fl.DatabaseFigures(**counted)
        # written by an older harness: count again
    figures = fl.database_figures(path)
    saved.write_text(json.dumps(asdict(figures), indent=2))
    return figures


def peer_key(finished: int, active: int) -> str:
    model = hashlib.sha256(workload(cold_start.COLD_WORKLOAD).bpmn("peer")).hexdigest()[:10]
    return f"spiff-json-{cold_start.COLD_WORKLOAD}-{finished}f-{active}a-v{peer.version()}-{model}"


def peer_database(cache_dir: Path, finished: int, active: int, progress: Progress) -> Path:
    """The durable peer's populated database: `finished` + `active` workflows as JSON rows."""
    missing = peer.missing_reason()
    if missing is not None:
        raise BenchError(missing)
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"{peer_key(finished, active)}.db"
    if path.exists():
        return path
    partial = path.with_name(path.stem + ".partial.db")
    for stale in partial.parent.glob(partial.name + "*"):
        stale.unlink()
    progress.note(f"building the SpiffWorkflow JSON database {path} (once; cached afterwards)")
    spec = peer.parse(workload(cold_start.COLD_WORKLOAD))
    serializer = peer.serializer()
    waiting, ended = [], []
    for i in (0, 1):  # both gateway branches
        workflow = peer.start(spec, i)
        waiting.append(serializer.serialize_json(workflow))
        peer.complete(spec, workflow, i)
        peer.check_completed(spec, workflow, i)
        ended.append(serializer.serialize_json(workflow))
    total = finished + active
    rows = (
        (waiting[i % 2] if cold_start._is_active(i, total, active) else ended[i % 2],)
        for i in range(total)
    )
    with closing(sqlite3.connect(partial)) as conn:
        conn.execute("PRAGMA synchronous=OFF")  # a bulk build, as flowledger's
        conn.execute(durable_peer.SCHEMA)
        conn.executemany("INSERT INTO workflow (state) VALUES (?)", rows)
        conn.commit()
    partial.replace(path)
    return path
