"""The systems a workload runs on, each run repetition by repetition: flowledger in one mode,
SpiffWorkflow in memory, SpiffWorkflow with its JSON in SQLite (cached or reloaded).

Each contender turns its runs into a `SystemResult` (what each repetition measured, then the
untimed figures in `finish`); the suite decides the order of runs and derives the rates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from flowledger.core import FlowledgerError

from . import durable_peer, peer
from . import flowledger_runner as fl
from .errors import BenchError, NotAvailable
from .results import Spread, SystemResult
from .workloads import Workload

IN_MEMORY = "in-memory"
PEER_MODES = (IN_MEMORY, durable_peer.CACHED, durable_peer.UNCACHED)
PEER_LABELS = {
    IN_MEMORY: "SpiffWorkflow in memory",
    durable_peer.CACHED: "SpiffWorkflow + SQLite JSON",
    durable_peer.UNCACHED: "SpiffWorkflow + SQLite JSON, reloaded",
}


class Contender(Protocol):
    """One system in one mode on one workload, run repetition by repetition."""

    result: SystemResult

    @property
    def label(self) -> str: ...

    def run(self, rep: int) -> None: ...

    def finish(self) -> None: ...

    def measured_activities(self) -> int | None: ...


def remove_database(path: Path) -> None:
    for file in path.parent.glob(path.name + "*"):
        file.unlink()


def _record_cpu(result: SystemResult, cpu_s: float, children_cpu_s: float | None) -> None:
    result.cpu_s.append(cpu_s)
    if children_cpu_s is not None:
        result.children_cpu_s.append(children_cpu_s)


class FlowledgerContender:
    def __init__(
        self,
        workload: Workload,
        mode: fl.Mode,
        instances: int,
        workdir: Path,
        template: Path | None,
        memory: bool,
        before: fl.DatabaseFigures | None = None,
    ) -> None:
        """`template` is copied for each repetition: an empty database, or a populated one that
        held `before`."""
        self.workload = workload
        self.template = template
        self.before = before
        self.mode = mode
        self.instances = instances
        self.workdir = workdir
        self.memory = memory
        self.result = SystemResult(
            "flowledger",
            mode.name,
            label=mode.label,
            sqlite_synchronous=mode.synchronous,
            history_level=mode.history_level,
            uncached=mode.uncached,
            instances=instances,
        )
        self.figures: fl.DatabaseFigures | None = None
        self.catch_up: list[float] = []
        self.catch_up_cpu: list[float] = []
        self.backlog: list[float] = []

    @property
    def label(self) -> str:
        return f"flowledger {self.mode.name}"

    def _path(self, tag: str) -> Path:
        return self.workdir / f"{self.workload.name}-{self.mode.name}-{tag}.db"

    def run(self, rep: int) -> None:
        path = self._path(f"rep{rep}")
        try:
            run = fl.timed_run(
                self.workload, self.mode, self.instances, path, self.template, self.before
            )
        except NotAvailable as exc:
            self.result.available, self.result.reason = False, str(exc)
            return
        except (BenchError, FlowledgerError) as exc:
            self.result.completed, self.result.reason = False, f"{type(exc).__name__}: {exc}"
            return
        finally:
            remove_database(path)
        self.result.seconds.append(run.seconds)
        _record_cpu(self.result, run.cpu_s, run.children_cpu_s)
        self.result.history_level = run.history_level
        self.result.repetitions += 1
        if run.history_catch_up_s is not None:
            self.catch_up.append(run.history_catch_up_s)
        if run.catch_up_cpu_s is not None:
            self.catch_up_cpu.append(run.catch_up_cpu_s)
        if run.history_backlog_events is not None:
            self.backlog.append(run.history_backlog_events)
        self.figures = run.figures

    def measured_activities(self) -> int | None:
        """Activity instances per instance in ACT_HI_ACTINST (history inline), if known."""
        f = self.figures
        if f is None or f.instances == 0 or self.mode.async_history:
            return None
        return round(f.activity_instances / f.instances)

    def finish(self) -> None:
        r, figures = self.result, self.figures
        if r.completed is None:
            r.completed = True
        if figures is None:
            return
        n = figures.instances or 1
        r.events_per_instance = round(figures.events / n, 2)
        r.runtime_rows_per_instance = round(figures.runtime_rows / n, 2)
        r.history_rows_per_instance = round(figures.history_rows / n, 2)
        r.log_bytes_per_instance = round(figures.log_bytes / n, 1)
        r.database_bytes_per_instance = round(figures.file_bytes / n, 1)
        r.history_catch_up_s = Spread.of(self.catch_up)
        r.history_backlog_events = Spread.of(self.backlog)
        if self.catch_up:
            with_catch_up = zip(r.seconds, self.catch_up, strict=True)
            r.instances_per_s_with_catch_up = Spread.of(
                [self.instances / (s + c) for s, c in with_catch_up]
            )
        if self.catch_up_cpu and len(r.children_cpu_s) == len(r.cpu_s) == len(self.catch_up_cpu):
            parts = zip(r.cpu_s, r.children_cpu_s, self.catch_up_cpu, strict=True)
            r.cpu_us_per_instance_with_catch_up = Spread.of(
                [
                    (own + children + catch_up) * 1e6 / self.instances
                    for own, children, catch_up in parts
                ]
            )
        if self.memory:
            path = self._path("memory")
            try:
                r.peak_memory_bytes = fl.peak_memory(
                    self.workload, self.mode, self.instances, path, self.template, self.before
                )
            finally:
                remove_database(path)


def parse_peer(workload: Workload, wanted: bool) -> tuple[peer.PeerSpec | None, str | None]:
    """The workload parsed by SpiffWorkflow, or why the peer cannot run it."""
    if not wanted:
        return None, "not run (--no-peer)"
    missing = peer.missing_reason()
    if missing is not None:
        return None, missing
    if workload.repaired_past is not None:
        # its reset_from_task_id only moves a token back to a task it passed
        return None, "SpiffWorkflow has no process instance modification to move a token on"
    try:
        return peer.parse(workload), None
    except Exception as exc:  # the peer's parser raises its own exception types
        return None, f"SpiffWorkflow cannot parse the model: {exc}"


class PeerContender:
    """SpiffWorkflow in memory: nothing is persisted."""

    def __init__(
        self, spec: peer.PeerSpec | None, reason: str | None, instances: int, memory: bool
    ) -> None:
        self.spec = spec
        self.instances = instances
        self.memory = memory
        self.result = SystemResult(
            "spiffworkflow", IN_MEMORY, label=PEER_LABELS[IN_MEMORY], instances=instances
        )
        if spec is None:
            self.result.available, self.result.reason = False, reason

    @property
    def label(self) -> str:
        return PEER_LABELS[IN_MEMORY]

    def measured_activities(self) -> int | None:
        return None

    def run(self, rep: int) -> None:
        if self.spec is None:
            return
        try:
            watch = peer.timed_run(self.spec, self.instances)
        except BenchError as exc:
            self.result.completed = False
            self.result.reason = str(exc)
            return
        self.result.seconds.append(watch.seconds)
        _record_cpu(self.result, watch.cpu_s, watch.children_cpu_s)
        self.result.repetitions += 1

    def finish(self) -> None:
        if self.spec is None:
            return
        if self.result.completed is None:
            self.result.completed = True
        self.result.serialized_state_bytes = peer.serialized_state_bytes(self.spec)
        if self.memory:
            self.result.peak_memory_bytes = peer.peak_memory(self.spec, self.instances)


class DurablePeerContender:
    """SpiffWorkflow saving its workflow JSON to SQLite (`durable_peer`)."""

    def __init__(
        self,
        spec: peer.PeerSpec | None,
        reason: str | None,
        uncached: bool,
        instances: int,
        workdir: Path,
        template: Path | None,
        memory: bool,
    ) -> None:
        """`template`: a populated database to copy for each repetition (None: empty)."""
        self.spec = spec
        self.uncached = uncached
        self.instances = instances
        self.workdir = workdir
        self.template = template
        self.memory = memory
        self.mode = durable_peer.UNCACHED if uncached else durable_peer.CACHED
        self.result = SystemResult(
            "spiffworkflow",
            self.mode,
            label=PEER_LABELS[self.mode],
            sqlite_synchronous=durable_peer.SYNCHRONOUS,
            uncached=uncached,
            instances=instances,
        )
        if spec is not None:
            reason = durable_peer.unavailable_reason(spec, uncached)
        if spec is None or reason is not None:
            self.result.available, self.result.reason = False, reason
        self.saves: int | None = None
        self.database_bytes: int | None = None

    @property
    def label(self) -> str:
        return PEER_LABELS[self.mode]

    def measured_activities(self) -> int | None:
        return None

    def _path(self, tag: str) -> Path:
        name = self.spec.workload.name if self.spec else "peer"
        return self.workdir / f"{name}-{self.mode}-{tag}.db"

    def run(self, rep: int) -> None:
        if self.spec is None:
            return
        path = self._path(f"rep{rep}")
        try:
            run = durable_peer.timed_run(
                self.spec, self.instances, path, uncached=self.uncached, template=self.template
            )
        except BenchError as exc:
            self.result.completed = False
            self.result.reason = str(exc)
            return
        finally:
            remove_database(path)
        self.result.seconds.append(run.watch.seconds)
        _record_cpu(self.result, run.watch.cpu_s, run.watch.children_cpu_s)
        self.result.repetitions += 1
        self.saves, self.database_bytes = run.saves, run.database_bytes

    def finish(self) -> None:
        if self.spec is None:
            return
        r = self.result
        if r.completed is None:
            r.completed = True
        if self.saves is not None:
            r.saves_per_instance = round(self.saves / self.instances, 2)
        if self.database_bytes is not None:
            r.database_bytes_per_instance = round(self.database_bytes / self.instances, 1)
        r.serialized_state_bytes = peer.serialized_state_bytes(self.spec)
        if self.memory:
            path = self._path("memory")
            try:
                r.peak_memory_bytes = durable_peer.peak_memory(
                    self.spec,
                    self.instances,
                    path,
                    uncached=self.uncached,
                    template=self.template,
                )
            finally:
                remove_database(path)
