"""`flowledger verify` at a million events (issue 34): builds a log of real process instances and
measures a cold, full verify on it — each phase's time, the events per second and the peak
resident size — in a fresh child process.

The log is made by the engine itself (no row is forged): `usertask_gateway` instances (every
tenth left waiting at its task) and `parallel` instances, driven through the public API on SQLite
with synchronous=OFF and asynchronous history, until the log holds `--events` events. The file
lives outside the repository (`/tmp` by default) and is reused when it holds enough events; the
measurement runs on it read-only (verify writes only its temporary tables).

    python -m flowledger.tools.bench.verify_scale --events 1000000            # build + measure
    python -m flowledger.tools.bench.verify_scale --events 100000 --build-only

Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import resource
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from flowledger.tools.progress import Progress

from . import flowledger_runner as fl
from .workloads import workload

ACTIVE_EVERY = 10  # every tenth usertask_gateway instance waits at its user task
PARALLEL_EVERY = 3  # every third instance is a `parallel` one
CHECK_EVERY = 500  # instances between looks at the log's length


def default_path(events: int) -> Path:
    return Path(f"/tmp/flowledger-verify-scale-{events}.db")


def log_events(path: Path) -> int:
    """Events the log at `path` holds (0 when there is no database yet)."""
    if not path.exists():
        return 0
    with closing(sqlite3.connect(path)) as conn:
        try:
            return int(conn.execute("SELECT last_position FROM log_head").fetchone()[0])
        except sqlite3.Error:
            return 0


def build(path: Path, events: int, progress: Progress) -> dict[str, Any]:
    """Fill `path` with real instances until the log holds at least `events` events."""
    for stale in path.parent.glob(path.name + "*"):
        stale.unlink()
    mode = fl.Mode("verify-scale", "OFF", True, "bulk build", "audit")
    gateway, parallel = workload("usertask_gateway"), workload("parallel")
    assert gateway.task_variables is not None
    started = time.perf_counter()
    engine = fl.open_engine(path, mode)
    instances = 0
    try:
        fl.deploy(engine, gateway)
        fl.deploy(engine, parallel)
        while True:
            i = instances
            if i % PARALLEL_EVERY == 0:
                engine.start_process_instance(parallel.process_id, parallel.start_variables(i))
            else:
                pi = engine.start_process_instance(gateway.process_id, gateway.start_variables(i))
                if i % ACTIVE_EVERY != 1:
                    for task in engine.tasks(process_instance_id=pi.id):
                        engine.complete_task(task.id, gateway.task_variables(i))
            instances += 1
            if instances % CHECK_EVERY == 0:
                done = log_events(path)
                progress.note(f"{done:,} of {events:,} events ({instances:,} instances)")
                if done >= events:
                    break
        fl.wait_for_history(engine, 0)
    finally:
        engine.close()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return {"instances": instances, "build_seconds": round(time.perf_counter() - started, 1)}


def measure(path: Path, *, since_head: str | None = None) -> dict[str, Any]:
    """One verify in a fresh child process (its peak resident size is verify's own)."""
    command = [sys.executable, "-m", "flowledger.tools.bench.verify_scale", "--child", str(path)]
    if since_head is not None:
        command += ["--since-head", since_head]
    child = subprocess.run(command, capture_output=True, text=True, check=False)
    if child.returncode != 0:
        raise SystemExit(f"verify over {path} failed: {child.stderr.strip()[-3000:]}")
    found: dict[str, Any] = json.loads(child.stdout)
    return found


def _child(path: str, since_head: str | None) -> None:
    from flowledger.engine import Engine  # imported here: the parent only builds and waits

    started = time.perf_counter()
    engine = Engine(f"sqlite:///{path}")
    try:
        opened = time.perf_counter() - started
        if since_head is None:
            report = engine.verify()
        else:
            report = engine.audit_service.verify(since_head=since_head)
    finally:
        engine.close()
    events = log_events(Path(path))
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "events": events,
                "commits": report.commits_checked,
                "problems": len(report.problems),
                "open_seconds": round(opened, 2),
                "seconds": round(seconds, 2),
                "phases": {
                    p.name: {
                        "seconds": round(p.seconds, 2),
                        "events_per_second": round(p.events / p.seconds) if p.seconds else None,
                    }
                    for p in report.phases
                },
                "root": report.root,
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            }
        )
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m flowledger.tools.bench.verify_scale")
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--db", type=Path, help="the SQLite file (default /tmp/…-EVENTS.db)")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--rebuild", action="store_true", help="build anew even if it exists")
    parser.add_argument("--since-head", help="measure the incremental verify from HEAD")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.since_head)
        return
    path = args.db or default_path(args.events)
    progress = Progress(1)
    out: dict[str, Any] = {"database": str(path)}
    if args.rebuild or log_events(path) < args.events:
        progress.phase(f"building a log of {args.events:,} events in {path}")
        out.update(build(path, args.events, progress))
    if not args.build_only:
        progress.phase("verify (child process)")
        out.update(measure(path, since_head=args.since_head))
    progress.finish()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
