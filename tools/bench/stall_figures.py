"""How long one large command holds SQLite's write path, and how long a small command sent
meanwhile waits: `python -m flowledger.tools.bench.stall_figures`.

The large commands are the ones Camunda users send and that a limit admits: a start with 10,000
variables, and a start whose parallel multi-instance task runs 10,000 times. While one runs, a
second thread starts small instances back to back; the longest of those starts is what any
other client of the engine waits. The write path's hold is timed where it is taken (each write
transaction of the engine), so the figure is the engine's, not the machine's scheduler's.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flowledger import Engine

MODEL = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="bench">
  <process id="variables" isExecutable="true">
    <startEvent id="s1"/><sequenceFlow id="a1" sourceRef="s1" targetRef="review"/>
    <userTask id="review"/><sequenceFlow id="a2" sourceRef="review" targetRef="e1"/>
    <endEvent id="e1"/>
  </process>
  <process id="fanOut" isExecutable="true">
    <startEvent id="s2"/><sequenceFlow id="b1" sourceRef="s2" targetRef="each"/>
    <userTask id="each"><multiInstanceLoopCharacteristics
        camunda:collection="${items}" camunda:elementVariable="item"/></userTask>
    <sequenceFlow id="b2" sourceRef="each" targetRef="e2"/><endEvent id="e2"/>
  </process>
  <process id="small" isExecutable="true">
    <startEvent id="s3"/><sequenceFlow id="c1" sourceRef="s3" targetRef="task"/>
    <userTask id="task"/><sequenceFlow id="c2" sourceRef="task" targetRef="e3"/>
    <endEvent id="e3"/>
  </process>
</definitions>
"""


@dataclass
class StallRun:
    command_seconds: float
    longest_write_hold: float
    longest_small_wait: float
    small_starts: int


@dataclass
class StallCase:
    name: str
    runs: list[StallRun] = field(default_factory=list)

    def median(self, attribute: str) -> float:
        return float(statistics.median(getattr(r, attribute) for r in self.runs))


def _timed_writes(engine: Engine, holds: list[float]) -> None:
    """Time every write transaction the engine opens (the group commit's and any other)."""
    db: Any = engine._db  # the bench looks inside: no public API exposes the write path
    plain = db.write

    @contextmanager
    def write() -> Iterator[Any]:
        with plain() as conn:
            started = time.perf_counter()
            try:
                yield conn
            finally:
                holds.append(time.perf_counter() - started)

    db.write = write
    groups = engine._bus.groups
    if groups is not None:
        groups._write = write


def _cases(size: int) -> dict[str, Callable[[Engine], object]]:
    return {
        f"start with {size:,} variables": lambda e: e.start_process_instance(
            "variables", {f"var{i}": (i, f"value {i}", i % 2 == 0)[i % 3] for i in range(size)}
        ),
        f"start of a {size:,}-instance parallel multi-instance task": lambda e: (
            e.start_process_instance("fanOut", {"items": list(range(size))})
        ),
    }


def _run_once(workdir: Path, history_mode: str, command: Callable[[Engine], object]) -> StallRun:
    path = workdir / f"stall-{time.monotonic_ns()}.db"
    holds: list[float] = []
    with Engine(f"sqlite:///{path}", history_mode=history_mode) as engine:
        engine.deploy({"stall.bpmn": MODEL})
        engine.start_process_instance("small")  # warm: definitions cached, statements compiled
        _timed_writes(engine, holds)
        done = threading.Event()
        seconds: list[float] = []

        def large() -> None:
            started = time.perf_counter()
            try:
                command(engine)
            finally:
                seconds.append(time.perf_counter() - started)
                done.set()

        thread = threading.Thread(target=large)
        waits: list[float] = []
        thread.start()
        while not done.is_set():
            started = time.perf_counter()
            engine.start_process_instance("small")
            waits.append(time.perf_counter() - started)
        thread.join()
    for file in workdir.glob(path.name + "*"):
        file.unlink()
    return StallRun(seconds[0], max(holds), max(waits), len(waits))


def measure(size: int, repeat: int, history_mode: str) -> list[StallCase]:
    with tempfile.TemporaryDirectory(prefix="flowledger-stall-") as tmp:
        cases = []
        for name, command in _cases(size).items():
            case = StallCase(name)
            for _ in range(repeat):
                case.runs.append(_run_once(Path(tmp), history_mode, command))
            cases.append(case)
        return cases


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m flowledger.tools.bench.stall_figures")
    parser.add_argument("--size", type=int, default=10_000, help="variables / instances")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--history-mode", choices=("inline", "async"), default="inline")
    args = parser.parse_args(argv)
    print(
        f"SQLite, history {args.history_mode}, median of {args.repeat}: seconds "
        "(the command; the longest write transaction; the longest small start meanwhile)"
    )
    for case in measure(args.size, args.repeat, args.history_mode):
        print(
            f"{case.name:<55} command {case.median('command_seconds'):6.2f} s"
            f"   write path held {case.median('longest_write_hold'):5.2f} s"
            f"   small start waited {case.median('longest_small_wait'):5.2f} s"
        )


if __name__ == "__main__":
    main()
