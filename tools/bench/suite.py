"""Runs the whole benchmark: every workload on every system round-robin, then the engine figures,
then the REST workload (flowledger only: the peer has no REST API).

Round-robin per repetition (the order rotates each time) so machine drift hits every system
alike; the median over repetitions is reported with min-max. Only this module decides the order
of runs; what one run does lives in `flowledger_runner`, `peer` and `rest_workload`.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from flowledger.core import FlowledgerError
from flowledger.tools.progress import Progress

from . import cold_start, engine_figures, machine, peer, rest_workload, variable_scaling
from . import flowledger_runner as fl
from .errors import BenchError, NotAvailable
from .features import EngineFeatures, detect
from .results import (
    FORMAT_VERSION,
    BenchReport,
    ColdStartFigures,
    EngineFigures,
    Spread,
    SystemResult,
    WorkloadResult,
)
from .workloads import Workload

ENGINE_FIGURE_STEPS = 5  # append, rebuild, replay, start with many variables, cold start


@dataclass(frozen=True)
class Settings:
    """What to run and how big (the defaults live in `cli`, the only place settings are made)."""

    workloads: list[Workload]
    instances: int
    repeat: int
    peer: bool
    engine_figures: bool
    memory: bool
    cold_finished: int
    cold_active: int
    cache_dir: Path
    append_commits: int
    corpus_instances: int
    quick: bool
    rest: bool  # the REST workload (engine-rest on uvicorn, HTTP clients)
    rest_instances: int
    rest_clients: int
    variable_counts: tuple[int, ...]  # start variables of the per-variable figure

    def as_dict(self) -> dict[str, Any]:
        return {
            "workloads": [w.name for w in self.workloads],
            "instances": self.instances,
            "repeat": self.repeat,
            "peer": self.peer,
            "engine_figures": self.engine_figures,
            "memory": self.memory,
            "cold_finished": self.cold_finished,
            "cold_active": self.cold_active,
            "cache_dir": str(self.cache_dir),
            "append_commits": self.append_commits,
            "corpus_instances": self.corpus_instances,
            "quick": self.quick,
            "rest": self.rest,
            "rest_instances": self.rest_instances,
            "rest_clients": self.rest_clients,
            "variable_counts": list(self.variable_counts),
        }


class Contender(Protocol):
    """One system in one mode on one workload, run repetition by repetition."""

    result: SystemResult

    @property
    def label(self) -> str: ...

    def run(self, rep: int) -> None: ...

    def finish(self) -> None: ...

    def measured_activities(self) -> int | None: ...


class FlowledgerContender:
    def __init__(
        self,
        workload: Workload,
        mode: fl.Mode,
        instances: int,
        workdir: Path,
        template: Path,
        settings: Settings,
    ) -> None:
        self.workload = workload
        self.template = template
        self.mode = mode
        self.instances = instances
        self.workdir = workdir
        self.memory = settings.memory
        self.result = SystemResult("flowledger", mode.name, instances=instances)
        self.figures: fl.DatabaseFigures | None = None
        self.catch_up: list[float] = []
        self.backlog: list[float] = []

    @property
    def label(self) -> str:
        return f"flowledger {self.mode.name}"

    def _path(self, tag: str) -> Path:
        return self.workdir / f"{self.workload.name}-{self.mode.name}-{tag}.db"

    def run(self, rep: int) -> None:
        path = self._path(f"rep{rep}")
        try:
            run = fl.timed_run(self.workload, self.mode, self.instances, path, self.template)
        except NotAvailable as exc:
            self.result.available, self.result.reason = False, str(exc)
            return
        except (BenchError, FlowledgerError) as exc:
            self.result.completed, self.result.reason = False, f"{type(exc).__name__}: {exc}"
            return
        finally:
            _remove_database(path)
        self.result.seconds.append(run.seconds)
        self.result.repetitions += 1
        if run.history_catch_up_s is not None:
            self.catch_up.append(run.history_catch_up_s)
        if run.history_backlog_events is not None:
            self.backlog.append(run.history_backlog_events)
        self.figures = run.figures

    def measured_activities(self) -> int | None:
        """Activity instances per instance in ACT_HI_ACTINST (full history, inline), if known."""
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
        if self.memory:
            path = self._path("memory")
            try:
                r.peak_memory_bytes = fl.peak_memory(
                    self.workload, self.mode, self.instances, path, self.template
                )
            finally:
                _remove_database(path)


class PeerContender:
    def __init__(self, workload: Workload, instances: int, settings: Settings) -> None:
        self.workload = workload
        self.instances = instances
        self.memory = settings.memory
        self.result = SystemResult("spiffworkflow", "in-memory", instances=instances)
        self.spec: peer.PeerSpec | None = None
        if not settings.peer:
            self.result.available = False
            self.result.reason = "not run (--no-peer)"
            return
        missing = peer.missing_reason()
        if missing is not None:
            self.result.available = False
            self.result.reason = missing
            return
        try:
            self.spec = peer.parse(workload)
        except Exception as exc:  # the peer's parser raises its own exception types
            self.result.available = False
            self.result.reason = f"SpiffWorkflow cannot parse the model: {exc}"

    @property
    def label(self) -> str:
        return "SpiffWorkflow"

    def measured_activities(self) -> int | None:
        return None

    def run(self, rep: int) -> None:
        if self.spec is None:
            return
        try:
            seconds = peer.timed_run(self.spec, self.instances)
        except BenchError as exc:
            self.result.completed = False
            self.result.reason = str(exc)
            return
        self.result.seconds.append(seconds)
        self.result.repetitions += 1

    def finish(self) -> None:
        if self.spec is None:
            return
        if self.result.completed is None:
            self.result.completed = True
        self.result.serialized_state_bytes = peer.serialized_state_bytes(self.spec)
        if self.memory:
            self.result.peak_memory_bytes = peer.peak_memory(self.spec, self.instances)


def _remove_database(path: Path) -> None:
    for file in path.parent.glob(path.name + "*"):
        file.unlink()


def _runnable(c: Contender) -> bool:
    return c.result.available and c.result.completed is not False


def run_workload(
    workload: Workload,
    settings: Settings,
    features: EngineFeatures,
    workdir: Path,
    template: Path,
    progress: Progress,
) -> WorkloadResult:
    instances = workload.instances_for(settings.instances)
    contenders: list[Contender] = []
    for mode in fl.MODES:
        contender = FlowledgerContender(workload, mode, instances, workdir, template, settings)
        reason = fl.unavailable_reason(mode, features)
        if reason is not None:
            contender.result.available, contender.result.reason = False, reason
        contenders.append(contender)
    contenders.append(PeerContender(workload, instances, settings))
    for rep in range(settings.repeat):
        shift = rep % len(contenders)
        for c in contenders[shift:] + contenders[:shift]:
            if _runnable(c):
                progress.phase(
                    f"{workload.name} x{instances}: {c.label} ({rep + 1}/{settings.repeat})"
                )
                c.run(rep)
            progress.tick()
    for c in contenders:
        if _runnable(c):
            progress.phase(f"{workload.name}: {c.label} memory and counts (untimed)")
            c.finish()
        progress.tick()
    return _summarise(workload, instances, contenders)


def _summarise(workload: Workload, instances: int, contenders: list[Contender]) -> WorkloadResult:
    activities, source = workload.model_activities, "model"
    for c in contenders:
        measured = c.measured_activities()
        if measured is not None:
            activities, source = measured, "ACT_HI_ACTINST"
            break
    results = [c.result for c in contenders]
    for r in results:
        if r.seconds:
            r.instances_per_s = Spread.of([instances / s for s in r.seconds])
            r.us_per_activity = Spread.of([s * 1e6 / (instances * activities) for s in r.seconds])
    peer_rate = next((r.instances_per_s for r in results if r.system == "spiffworkflow"), None)
    for r in results:
        # Asynchronous history is compared with its catch-up counted: the history rows exist then.
        rate = r.instances_per_s_with_catch_up or r.instances_per_s
        if r.system == "flowledger" and rate is not None and peer_rate is not None:
            r.ratio_vs_peer = round(rate.median / peer_rate.median, 3)
    return WorkloadResult(
        name=workload.name,
        description=workload.description,
        instances=instances,
        model_activities=workload.model_activities,
        activities_per_instance=activities,
        activities_source=source,
        systems=results,
    )


def run_engine_figures(
    settings: Settings, features: EngineFeatures, workdir: Path, progress: Progress
) -> EngineFigures:
    figures = EngineFigures()
    figures.append = engine_figures.append_rate(
        workdir, settings.append_commits, settings.repeat, progress
    )
    progress.phase(f"engine: log corpus of {settings.corpus_instances} instances per workload")
    corpus = engine_figures.build_log_corpus(workdir, settings.corpus_instances, progress)
    figures.rebuild = engine_figures.rebuild_rate(corpus, settings.repeat, progress)
    figures.replay = engine_figures.replay_rate(corpus, settings.repeat, progress)
    _remove_database(corpus.path)
    figures.variables = variable_scaling.measure(
        workdir, settings.variable_counts, settings.repeat, progress
    )
    try:
        cold = cold_start.ensure_database(
            settings.cache_dir, settings.cold_finished, settings.cold_active, features, progress
        )
        figures.cold_start = cold_start.measure(cold, workdir, settings.repeat, progress)
    except (BenchError, FlowledgerError) as exc:
        figures.cold_start = ColdStartFigures(
            available=False, reason=f"{type(exc).__name__}: {exc}"
        )
        progress.tick()
    return figures


def run(settings: Settings, command: str, *, show_progress: bool = True) -> BenchReport:
    """Run everything `settings` asks for in a temporary directory; returns the report."""
    started = time.perf_counter()
    features = detect()
    report = BenchReport(
        format_version=FORMAT_VERSION,
        command=command,
        machine=machine.describe(),
        settings=settings.as_dict(),
        features=features.as_dict(),
    )
    per_workload = (len(fl.MODES) + 1) * (settings.repeat + 1)
    steps = per_workload * len(settings.workloads)
    steps += ENGINE_FIGURE_STEPS if settings.engine_figures else 0
    steps += settings.repeat if settings.rest else 0
    progress = Progress(steps, enabled=show_progress)
    workdir = Path(tempfile.mkdtemp(prefix="flowledger-bench-"))
    try:
        template = fl.make_template(workdir / "template.db")
        for workload in settings.workloads:
            report.workloads.append(
                run_workload(workload, settings, features, workdir, template, progress)
            )
        if settings.engine_figures:
            report.engine = run_engine_figures(settings, features, workdir, progress)
        if settings.rest:
            report.rest = rest_workload.run(
                workdir, settings.rest_instances, settings.rest_clients, settings.repeat, progress
            )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        progress.finish()
    report.duration_s = round(time.perf_counter() - started, 1)
    return report


def failures(report: BenchReport) -> list[str]:
    """What went wrong (not what is merely unavailable): empty when every run completed."""
    problems = [
        f"{w.name} on {r.system} ({r.mode}): {r.reason}"
        for w in report.workloads
        for r in w.systems
        if r.completed is False
    ]
    if report.engine is not None and report.engine.cold_start is not None:
        cold = report.engine.cold_start
        if not cold.available:
            problems.append(f"cold start: {cold.reason}")
    rest = report.rest
    if rest is not None and rest.completed is False:
        problems.append(f"REST workload: {rest.reason}")
    return problems
