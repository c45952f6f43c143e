"""The auditor's operations at scale: `verify`, `head` and the shadow-table `rebuild` over a log
of a million events or more, and the replay of one 10,000-event instance to a position.

Reuses the cached cold-start database (`cold_start.ensure_database`; 45,000 finished + 5,000
active usertask_gateway instances by default) and measures each operation in a child process on
a copy, so its peak resident size is its own. `python -m flowledger.tools.bench.audit_figures`
prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import text

from flowledger.tools.progress import Progress

from . import cold_start
from .errors import BenchError
from .features import detect

OPERATIONS = ("verify", "head", "rebuild", "replay")
LONG_INSTANCE_COMMANDS = 1_000  # commands of 10 variables each: 10,000 events and some
LONG_MODEL = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"
    targetNamespace="t">
  <bpmn:process id="long" isExecutable="true">
    <bpmn:startEvent id="s" /><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait" />
    <bpmn:userTask id="wait" /><bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>"""


def measure(db: cold_start.ColdDatabase, workdir: Path, progress: Progress) -> dict[str, Any]:
    out: dict[str, Any] = {"finished": db.finished, "active": db.active}
    for operation in OPERATIONS:
        progress.phase(f"audit: {operation} over {db.finished + db.active:,} instances")
        copy = workdir / f"audit-{operation}.db"
        shutil.copyfile(db.path, copy)
        try:
            child = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "flowledger.tools.bench.audit_figures",
                    "--child",
                    operation,
                    str(copy),
                ],
                capture_output=True,
                text=True,
                check=False,
            )
        finally:
            copy.unlink(missing_ok=True)
        if child.returncode != 0:
            raise BenchError(f"{operation} over {db.path} failed: {child.stderr.strip()[-2000:]}")
        out[operation] = json.loads(child.stdout)
        progress.tick()
    return out


def _child(operation: str, path: str) -> None:
    from flowledger import Engine  # imported here: the parent only copies files and waits

    engine = Engine(f"sqlite:///{path}")
    try:
        with engine.reading() as conn:
            events = int(
                conn.execute(text("SELECT MAX(last_position) FROM event_log")).scalar_one()
            )
        found: dict[str, Any] = {"events": events}
        started = time.perf_counter()
        if operation == "verify":
            report = engine.verify()
            found["problems"] = len(report.problems)
        elif operation == "head":
            engine.audit_service.head()
        elif operation == "rebuild":
            report_ = engine.audit_service.rebuild()
            found["rows_written"] = report_.rows_written
        else:
            found.update(_replay(engine))
        seconds = time.perf_counter() - started
    finally:
        engine.close()
    if operation != "replay":
        found["seconds"] = round(seconds, 1)
        found["events_per_second"] = round(events / seconds)
    found["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if operation == "rebuild":  # its writer process, if it started one (ended by now)
        found["writer_peak_rss_mb"] = round(
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1
        )
    print(json.dumps(found))


def _replay(engine: Any) -> dict[str, Any]:
    """One instance of 10,000 events among the others: its state at the middle and at the end,
    the median of five runs each, a slider over it (cold and warm, `_slider`) and its
    timeline."""
    engine.deploy({"long.bpmn": LONG_MODEL})
    instance = engine.start_process_instance("long", {"n": 0})
    for i in range(LONG_INSTANCE_COMMANDS):
        engine.runtime_service.set_variables(instance.id, {f"v{j}": i for j in range(10)})
    recorded = engine.events(instance.id)
    figures: dict[str, Any] = {"instance_events": len(recorded)}
    for name, position in (
        ("middle", recorded[len(recorded) // 2].position),
        ("end", recorded[-1].position),
    ):
        times = []
        for _ in range(5):
            started = time.perf_counter()
            engine.audit_service.state_at(instance.id, position=position)
            times.append(time.perf_counter() - started)
        figures[f"state_at_{name}_ms"] = round(statistics.median(times) * 1000, 1)
    figures.update(_slider(engine, instance.id, [e.position for e in recorded]))
    started = time.perf_counter()
    engine.audit_service.timeline(instance.id)
    figures["timeline_ms"] = round((time.perf_counter() - started) * 1000, 1)
    return figures


SLIDER_STOPS = 20  # positions spread over the instance


def _slider(engine: Any, instance_id: str, positions: list[int]) -> dict[str, Any]:
    """A state-at request at positions spread over the instance: cold (no folded state kept
    for it: a fold from its first event) and warm (the slider's next step, one event on: a fold
    from the nearest state the first request kept); median and worst, in milliseconds."""
    inspection = engine._parts.inspection
    cold, warm = [], []
    for stop in range(SLIDER_STOPS):
        at = (len(positions) - 2) * stop // (SLIDER_STOPS - 1)
        inspection.folded_states.drop(instance_id)
        started = time.perf_counter()
        engine.audit_service.state_at(instance_id, position=positions[at])
        cold.append(time.perf_counter() - started)
        started = time.perf_counter()
        engine.audit_service.state_at(instance_id, position=positions[at + 1])
        warm.append(time.perf_counter() - started)
    return {
        "state_at_cold_median_ms": round(statistics.median(cold) * 1000, 1),
        "state_at_cold_max_ms": round(max(cold) * 1000, 1),
        "state_at_warm_median_ms": round(statistics.median(warm) * 1000, 1),
        "state_at_warm_max_ms": round(max(warm) * 1000, 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m flowledger.tools.bench.audit_figures")
    parser.add_argument("--finished", type=int, default=45_000)
    parser.add_argument("--active", type=int, default=5_000)
    parser.add_argument("--cache-dir", type=Path, default=Path(".bench-cache"))
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return
    progress = Progress(len(OPERATIONS))
    db = cold_start.ensure_database(args.cache_dir, args.finished, args.active, detect(), progress)
    workdir = args.workdir or args.cache_dir
    workdir.mkdir(parents=True, exist_ok=True)  # a new directory is fine to name
    figures = measure(db, workdir, progress)
    progress.finish()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
