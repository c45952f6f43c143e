"""Per-variable cost of one start command as the number of start variables grows.

A flat µs/variable means the command path is linear in the variables it carries: a lookup per
variable that scans the instance's variables made a start with 32,000 of them take 21 s.
Each size runs on its own fresh SQLite file in the work directory.
"""

from __future__ import annotations

import gc
import time
from pathlib import Path

from flowledger.core import FlowledgerError
from flowledger.tools.progress import Progress

from . import flowledger_runner as fl
from .results import Spread, VariablesFigures, VariablesPoint

PROCESS_ID = "manyVariables"
# The start command runs to the user task and stops there: one command, every variable in it.
MODEL = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             targetNamespace="http://flowledger.bench">
  <process id="manyVariables" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="review"/>
    <userTask id="review" name="Review"/>
    <sequenceFlow id="f2" sourceRef="review" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>
"""


def start_variables(count: int) -> dict[str, object]:
    """`count` variables of the common kinds: integers, strings and booleans in turn."""
    return {f"var{i}": (i, f"value {i}", i % 2 == 0)[i % 3] for i in range(count)}


def _start_seconds(path: Path, count: int, repeat: int) -> list[float]:
    engine = fl.open_engine(path, fl.MODES[0])
    try:
        engine.deploy({f"{PROCESS_ID}.bpmn": MODEL}, name=PROCESS_ID)
        seconds: list[float] = []
        for _ in range(repeat):
            variables = start_variables(count)
            gc.collect()
            started = time.perf_counter()
            engine.start_process_instance(PROCESS_ID, variables)
            seconds.append(time.perf_counter() - started)
        return seconds
    finally:
        engine.close()


def measure(
    workdir: Path, counts: tuple[int, ...], repeat: int, progress: Progress
) -> VariablesFigures:
    """Seconds of one start command with each number of variables, and µs per variable."""
    figures = VariablesFigures()
    for count in counts:
        progress.phase(f"engine: start with {count:,} variables")
        path = workdir / f"variables-{count}.db"
        try:
            seconds = _start_seconds(path, count, repeat)
        except FlowledgerError as exc:
            figures.available, figures.reason = False, f"{type(exc).__name__}: {exc}"
            break
        finally:
            for file in workdir.glob(path.name + "*"):
                file.unlink()
        figures.points.append(
            VariablesPoint(
                variables=count,
                seconds=Spread.of(seconds),
                us_per_variable=Spread.of([s * 1e6 / count for s in seconds]),
            )
        )
    progress.tick()
    return figures
