"""The benchmark's workloads: which graph, which start variables, what completes the user tasks.

Names: `linear10`, `usertask_gateway`, `parallel`, `mi50` (alias `mi`) are the base set;
`linearN` and `miN` work for any N, and the default scaling ladder is listed in SCALING. The
construct workloads (CONSTRUCTS: `saga`, `conditional` and its `conditional_control`, `repair`
and its `repair_control`, `migrate` (control: `repair_control`)) run when named.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import model_generator as gen

BASE = ("linear10", "usertask_gateway", "parallel", "mi50")
SCALING = ("linear50", "linear100", "linear200", "linear400", "mi10", "mi200", "mi1000")
QUICK_SCALING = ("linear50", "mi10")
CONSTRUCTS = (
    "saga",
    "conditional",
    "conditional_control",
    "repair",
    "repair_control",
    "migrate",
)
SAGA_STEPS = 5
# The conditional workload: every instance waits until `progress` reaches the threshold; the
# variable is raised one step at a time, so each instance is re-evaluated THRESHOLD times and
# fires on the last.
PROGRESS_VARIABLE = "progress"
PROGRESS_THRESHOLD = 5
ALIASES = {"mi": "mi50"}
# The size the `--instances` figure is meant for: bigger instances run proportionally fewer.
REFERENCE_ACTIVITIES = 12
MIN_INSTANCES = 2


@dataclass(frozen=True)
class Workload:
    """One benchmark workload: a graph, and how to drive one instance of it through the API."""

    name: str
    description: str
    graph: gen.ProcessGraph
    start_variables: Callable[[int], dict[str, Any]]
    # Variables to complete the user task of instance i with; None: the model has no user task.
    task_variables: Callable[[int], dict[str, Any]] | None = None
    # Variables set on instance i after every instance of the run started (all of them waiting),
    # one round after another; None: the model needs none.
    variable_updates: Callable[[int], list[dict[str, Any]]] | None = None
    # An operator moves every instance past its user task by a process instance modification
    # (cancel it, start after it) instead of completing it.
    repaired_past: str | None = None
    # Version 2 of the graph: every instance starts on version 1 and is migrated to it while it
    # waits at its user task (one migration per instance), then its task is completed.
    migrated_to: gen.ProcessGraph | None = None

    @property
    def process_id(self) -> str:
        return self.graph.process_id

    @property
    def model_activities(self) -> int:
        return self.graph.activities_per_instance

    def bpmn(self, dialect: gen.Dialect) -> bytes:
        return gen.render(self.graph, dialect)

    def bpmn_v2(self, dialect: gen.Dialect) -> bytes:
        assert self.migrated_to is not None
        return gen.render(self.migrated_to, dialect)

    def instances_for(self, instances: int) -> int:
        """Instances to run when the base workloads run `instances`: about the same activities."""
        scaled = round(instances * REFERENCE_ACTIVITIES / max(self.model_activities, 1))
        return max(MIN_INSTANCES, min(instances, scaled))


def _counter_start(_i: int) -> dict[str, Any]:
    return {gen.COUNT_VARIABLE: 0}


def _amount(i: int) -> dict[str, Any]:
    # Alternate both gateway branches: even instances take the large path, odd the small one.
    return {"amount": 150 if i % 2 == 0 else 50}


def workload(name: str) -> Workload:
    """The workload called `name` (see the module docstring); ValueError names the valid ones."""
    name = ALIASES.get(name, name)
    if name == "usertask_gateway":
        return Workload(
            name,
            "start → user task → XOR on amount > 100 → service task → merge → end",
            gen.usertask_gateway(),
            _counter_start,
            _amount,
        )
    if name == "saga":
        return Workload(
            name,
            f"{SAGA_STEPS} service tasks with compensation handlers → compensation end: all "
            "undone, the last first",
            gen.saga(SAGA_STEPS),
            _counter_start,
        )
    if name == "conditional":
        return Workload(
            name,
            f"start → conditional catch on {PROGRESS_VARIABLE} >= {PROGRESS_THRESHOLD} → service "
            f"→ end; {PROGRESS_VARIABLE} raised 1..{PROGRESS_THRESHOLD} while every instance waits",
            gen.conditional_wait(PROGRESS_VARIABLE, PROGRESS_THRESHOLD),
            lambda _i: {gen.COUNT_VARIABLE: 0, PROGRESS_VARIABLE: 0},
            variable_updates=lambda _i: [
                {PROGRESS_VARIABLE: step} for step in range(1, PROGRESS_THRESHOLD + 1)
            ],
        )
    if name == "conditional_control":
        return Workload(
            name,
            f"as conditional, but a user task waits, completed after {PROGRESS_VARIABLE} reached "
            f"{PROGRESS_THRESHOLD}: the same commands with no condition to re-evaluate",
            gen.conditional_wait(PROGRESS_VARIABLE, PROGRESS_THRESHOLD, control=True),
            lambda _i: {gen.COUNT_VARIABLE: 0, PROGRESS_VARIABLE: 0},
            task_variables=lambda _i: {},
            variable_updates=lambda _i: [
                {PROGRESS_VARIABLE: step} for step in range(1, PROGRESS_THRESHOLD + 1)
            ],
        )
    if name in ("repair", "repair_control"):
        control = name == "repair_control"
        return Workload(
            name,
            "start → user task → service task → end; the user task "
            + ("completed" if control else "cancelled and the token started after it (a repair)"),
            gen.stuck_task(name),
            _counter_start,
            task_variables=(lambda _i: {}) if control else None,
            repaired_past=None if control else gen.STUCK_TASK,
        )
    if name == "migrate":
        return Workload(
            name,
            "start → user task → service task → end on version 1; each waiting instance migrated "
            "to version 2 (its service task renamed), then its task completed (control: "
            "repair_control, the same without the move)",
            gen.stuck_task(name),
            _counter_start,
            task_variables=lambda _i: {},
            migrated_to=gen.stuck_task(name, version=2),
        )
    if name == "parallel":
        return Workload(
            name, "fork → 4 branches x 2 service tasks → join → end", gen.parallel(), _counter_start
        )
    match = re.fullmatch(r"(linear|mi)([1-9][0-9]*)", name)
    if match is None:
        raise ValueError(
            f"unknown workload {name!r}: use usertask_gateway, parallel, saga, conditional, "
            f"repair, migrate, mi (= mi50), linearN or miN (N a positive number), "
            f"e.g. {','.join(BASE + SCALING)}"
        )
    size = int(match.group(2))
    if match.group(1) == "linear":
        return Workload(
            name, f"start → {size} service tasks → end", gen.linear(size), _counter_start
        )
    items = list(range(size))
    return Workload(
        name,
        f"parallel multi-instance service task over {size} items",
        gen.multi_instance(size),
        lambda _i: {gen.COUNT_VARIABLE: 0, "items": list(items)},
    )


def select(names: Sequence[str] | None, *, quick: bool = False) -> list[Workload]:
    """The workloads to run: the named ones, or the base set plus the (quick) scaling ladder."""
    if not names:
        names = BASE + (QUICK_SCALING if quick else SCALING)
    chosen: list[Workload] = []
    seen: set[str] = set()
    for raw in names:
        w = workload(raw.strip())
        if w.name not in seen:
            seen.add(w.name)
            chosen.append(w)
    return chosen
