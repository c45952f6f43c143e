"""Deferred projection figures (issue 33), on SQLite: what a read right after a write costs in each
projection mode, how far the follower trails the log at the highest command rate, and the WAL
pages each commit writes.

    python -m flowledger.tools.bench.deferred_figures --instances 300 --seconds 10 \\
        --svg docs/bench/projector-lag.svg

Prints a markdown report. Runs usertask_gateway (the workload of the reference: start, the user
task, its completion) through the Python API, as `flowledger bench` does.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import threading
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flowledger.engine import Engine
from flowledger.engine.storage import database
from flowledger.engine.workers.deferred_projection import SPAWN_AFTER
from flowledger.projections.deferred import CHECKPOINT

from . import flowledger_runner as fr
from .model_generator import DELEGATE_NAME
from .timing import settle_children
from .workloads import Workload, workload

MODES = ("inline", "deferred")


def _engine(path: Path, projection: str) -> Engine:
    engine = Engine(f"sqlite:///{path}", projection=projection, history_level="audit")
    engine.register_delegate(DELEGATE_NAME, fr.count_delegate)
    return engine


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


@dataclass(frozen=True)
class ReadAfterWrite:
    mode: str
    read_p50_ms: float  # the instance's task list (deferred: from the instance's state)
    read_p99_ms: float
    query_p50_ms: float  # a task query by id (deferred: through the read barrier)
    query_p99_ms: float
    write_p50_ms: float


def read_after_write(wl: Workload, projection: str, instances: int) -> ReadAfterWrite:
    """Start `instances` instances (untimed), then for each: complete its task (the write),
    then list the open tasks of the instance, and query the completed task by id (the reads
    right after it, timed)."""
    assert wl.task_variables is not None
    with tempfile.TemporaryDirectory() as tmp:
        engine = _engine(Path(tmp) / "raw.db", projection)
        try:
            fr.deploy(engine, wl)
            ids = fr.start_instances(engine, wl, instances)
            tasks = [engine.tasks(process_instance_id=pi)[0].id for pi in ids]
            reads, queries, writes = [], [], []
            for i, (pi, task) in enumerate(zip(ids, tasks, strict=True)):
                started = time.perf_counter()
                engine.complete_task(task, wl.task_variables(i))
                written = time.perf_counter()
                assert engine.tasks(process_instance_id=pi) == []
                read = time.perf_counter()
                assert engine.tasks(task_id=task) == []
                queries.append((time.perf_counter() - read) * 1e3)
                reads.append((read - written) * 1e3)
                writes.append((written - started) * 1e3)
        finally:
            engine.close()
    return ReadAfterWrite(
        projection,
        _pct(reads, 0.5),
        _pct(reads, 0.99),
        _pct(queries, 0.5),
        _pct(queries, 0.99),
        _pct(writes, 0.5),
    )


@dataclass(frozen=True)
class Lag:
    instances_per_s: float
    samples: list[tuple[float, float]]  # (seconds into the run, lag in ms)
    p50_ms: float
    p99_ms: float
    max_ms: float


def lag_under_load(wl: Workload, seconds: float) -> Lag:
    """Run instances as fast as one client can (start, complete: no read between) for
    `seconds`, sampling every 5 ms how old the oldest commit not yet in the tables is."""
    assert wl.task_variables is not None
    with tempfile.TemporaryDirectory() as tmp:
        engine = _engine(Path(tmp) / "lag.db", "deferred")
        fr.deploy(engine, wl)
        # Enough commands to start the follower process, then wait until it has started: its
        # start-up (an interpreter, the imports) is not the steady state measured here.
        fr.drive(engine, wl, SPAWN_AFTER)
        settle_children()
        heads: list[tuple[float, int]] = []  # (time, log head) as sampled
        lags: list[tuple[float, float]] = []
        done = threading.Event()
        begin = time.perf_counter()

        def sample() -> None:
            store = engine._store  # the sampler reads past the barrier
            while not done.is_set():
                with engine._db.read_unchecked() as conn:
                    head, position = store.head_and_checkpoint(conn, CHECKPOINT)
                now = time.perf_counter() - begin
                heads.append((now, head))
                oldest = next((t for t, h in heads if h > (position or 0)), None)
                lags.append((now, 0.0 if oldest is None else (now - oldest) * 1e3))
                time.sleep(0.005)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        count = 0
        try:
            while time.perf_counter() - begin < seconds:
                pi = engine.start_process_instance(wl.process_id, wl.start_variables(count))
                cached = engine._repository.cache.get(pi.id)  # no read: no barrier
                assert cached is not None
                for task in list(cached.state.tasks):
                    engine.complete_task(task, wl.task_variables(count))
                count += 1
            elapsed = time.perf_counter() - begin
        finally:
            done.set()
            sampler.join()
            engine.close()
    values = [lag for _t, lag in lags]
    return Lag(count / elapsed, lags, _pct(values, 0.5), _pct(values, 0.99), max(values))


def wal_pages(wl: Workload, projection: str, instances: int, batch: int) -> tuple[float, float]:
    """(WAL pages per command, per instance) over `instances` instances with no WAL checkpoint
    between; deferred rows written every `batch` instances (1: after each; the command pages
    are counted apart from the batches')."""
    assert wl.task_variables is not None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "wal.db"
        engine = _engine(path, projection)
        checkpointer: Any = engine._checkpointer
        if checkpointer is not None:
            checkpointer.stop()
        saved = database.AUTOCHECKPOINT_PAGES
        database.AUTOCHECKPOINT_PAGES = 10**9  # the log keeps every frame of the run
        deferred = engine._deferred
        if deferred is not None:
            deferred.stop_follower()  # this process writes the batches, when told
        try:
            fr.deploy(engine, wl)
            _truncate(path)
            command_frames = batch_frames = 0
            for i in range(instances):
                before = _frames(path)
                pi = engine.start_process_instance(wl.process_id, wl.start_variables(i))
                cached = engine._repository.cache.get(pi.id)
                assert cached is not None
                for task in list(cached.state.tasks):
                    engine.complete_task(task, wl.task_variables(i))
                command_frames += _frames(path) - before
                if deferred is not None and (i + 1) % batch == 0:
                    before = _frames(path)
                    deferred.drain()
                    batch_frames += _frames(path) - before
        finally:
            database.AUTOCHECKPOINT_PAGES = saved
            engine.close()
    return command_frames / (2 * instances), (command_frames + batch_frames) / instances


def _frames(path: Path) -> int:
    """Frames in the WAL file: its size past the header, over the frame size."""
    wal = path.with_name(path.name + "-wal")
    size = wal.stat().st_size if wal.exists() else 0
    return max(0, (size - 32) // (4096 + 24))


def _truncate(path: Path) -> None:
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def lag_svg(lag: Lag, path: Path) -> None:
    """The lag over time as a small SVG line chart (no plotting library is a dependency)."""
    width, height, pad = 640, 240, 40
    t_max = max(t for t, _ in lag.samples) or 1.0
    y_max = max(100.0, lag.max_ms * 1.1)

    def x(t: float) -> float:
        return pad + (width - 2 * pad) * t / t_max

    def y(ms: float) -> float:
        return height - pad - (height - 2 * pad) * ms / y_max

    points = " ".join(f"{x(t):.1f},{y(ms):.1f}" for t, ms in lag.samples)
    limit = y(100.0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="11">\n'
        f'<rect width="{width}" height="{height}" fill="white"/>\n'
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
        'stroke="black"/>\n'
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="black"/>\n'
        f'<line x1="{pad}" y1="{limit:.1f}" x2="{width - pad}" y2="{limit:.1f}" '
        'stroke="#c00" stroke-dasharray="4 3"/>\n'
        f'<text x="{width - pad}" y="{limit - 4:.1f}" text-anchor="end" fill="#c00">'
        "100 ms</text>\n"
        f'<polyline points="{points}" fill="none" stroke="#1f5fa8" stroke-width="1.2"/>\n'
        f'<text x="{width / 2}" y="{height - 8}" text-anchor="middle">seconds into the run '
        f"({lag.instances_per_s:.0f} instances/s)</text>\n"
        f'<text x="12" y="{height / 2}" transform="rotate(-90 12 {height / 2})" '
        'text-anchor="middle">lag of the oldest unwritten commit (ms)</text>\n'
        f'<text x="{pad - 4}" y="{y(0) + 4:.1f}" text-anchor="end">0</text>\n'
        f'<text x="{pad - 4}" y="{y(y_max) + 4:.1f}" text-anchor="end">{y_max:.0f}</text>\n'
        f'<text x="{width - pad}" y="{height - pad + 14}" text-anchor="end">{t_max:.0f}</text>\n'
        "</svg>\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--svg", type=Path, help="write the lag plot here")
    args = parser.parse_args(argv)
    wl = workload("usertask_gateway")
    print(
        "| mode | the instance's task list p50 | p99 | a task query by id p50 | p99 "
        "| the write (completion) p50 |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for mode in MODES:
        r = read_after_write(wl, mode, args.instances)
        print(
            f"| {mode} | {r.read_p50_ms:.2f} ms | {r.read_p99_ms:.2f} ms "
            f"| {r.query_p50_ms:.2f} ms | {r.query_p99_ms:.2f} ms | {r.write_p50_ms:.2f} ms |"
        )
    lag = lag_under_load(wl, args.seconds)
    print(
        f"\nlag at {lag.instances_per_s:.0f} instances/s (one client, no reads): "
        f"p50 {lag.p50_ms:.1f} ms, p99 {lag.p99_ms:.1f} ms, max {lag.max_ms:.1f} ms "
        f"({len(lag.samples)} samples)"
    )
    if args.svg:
        lag_svg(lag, args.svg)
    print("\n| mode | WAL pages per command | per instance (with the batches) |")
    print("|---|---:|---:|")
    per_command, per_instance = wal_pages(wl, "inline", 50, 1)
    print(f"| inline | {per_command:.1f} | {per_instance:.1f} |")
    for batch in (1, 10, 50):
        per_command, per_instance = wal_pages(wl, "deferred", 50, batch)
        print(
            f"| deferred, a batch every {batch} instances | {per_command:.1f} "
            f"| {per_instance:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
