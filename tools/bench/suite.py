"""Runs the whole benchmark: every workload on every system round-robin (on empty databases, then
the workloads asked for on populated ones), then the engine figures, then the REST workload
(flowledger only: the peer has no REST API).

Round-robin per repetition (the order rotates each time) so machine drift hits every system
alike; the median over repetitions is reported with min-max. Only this module decides the order
of runs; what one run does lives in `contenders`, `flowledger_runner`, `peer`, `durable_peer` and
`rest_workload`.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flowledger.core import FlowledgerError
from flowledger.tools.progress import Progress

from . import cold_start, durable_peer, engine_figures, machine, rest_workload, variable_scaling
from . import flowledger_runner as fl
from .contenders import (
    IN_MEMORY,
    PEER_MODES,
    Contender,
    DurablePeerContender,
    FlowledgerContender,
    PeerContender,
    parse_peer,
    remove_database,
)
from .errors import BenchError
from .features import EngineFeatures, detect
from .populated import Populated, prepare_databases
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
ALL_MODES = tuple(m.name for m in fl.MODES) + PEER_MODES


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
    modes: tuple[str, ...] = ALL_MODES  # flowledger modes and peer modes to run (ALL_MODES)
    populated: tuple[Workload, ...] = ()  # run again on a copy of the populated database

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
            "modes": list(self.modes),
            "populated": [w.name for w in self.populated],
        }


def selected_modes(settings: Settings) -> list[fl.Mode]:
    return [m for m in fl.MODES if m.name in settings.modes]


def _flowledger_contenders(
    workload: Workload,
    instances: int,
    settings: Settings,
    features: EngineFeatures,
    workdir: Path,
    templates: dict[str, Path],
    populated: Populated | None,
) -> list[Contender]:
    contenders: list[Contender] = []
    for mode in selected_modes(settings):
        template, before = templates[mode.history_level], None
        reason = fl.unavailable_reason(mode, features, workload)
        if populated is not None:
            template = populated.flowledger.get(mode.history_level, template)
            before = populated.before.get(mode.history_level)
            reason = reason or populated.unavailable.get(mode.history_level)
        contender = FlowledgerContender(
            workload, mode, instances, workdir, template, settings.memory, before
        )
        if reason is not None:
            contender.result.available, contender.result.reason = False, reason
        contenders.append(contender)
    return contenders


def _peer_contenders(
    workload: Workload,
    instances: int,
    settings: Settings,
    workdir: Path,
    populated: Populated | None,
) -> list[Contender]:
    peer_modes = [m for m in PEER_MODES if m in settings.modes]
    if not peer_modes:
        return []
    spec, reason = parse_peer(workload, settings.peer)
    durable_template = None if populated is None else populated.peer
    durable_reason = reason or (None if populated is None else populated.peer_reason)
    contenders: list[Contender] = []
    for mode in peer_modes:
        if mode == IN_MEMORY:
            contenders.append(PeerContender(spec, reason, instances, settings.memory))
            continue
        contender = DurablePeerContender(
            spec if durable_reason is None else None,
            durable_reason,
            mode == durable_peer.UNCACHED,
            instances,
            workdir,
            durable_template,
            settings.memory,
        )
        contenders.append(contender)
    return contenders


def run_workload(
    workload: Workload,
    settings: Settings,
    features: EngineFeatures,
    workdir: Path,
    templates: dict[str, Path],
    progress: Progress,
    populated: Populated | None = None,
) -> WorkloadResult:
    """Every selected system on `workload`, on empty databases (copies of `templates`, one per
    history level) or on copies of the `populated` ones."""
    instances = workload.instances_for(settings.instances)
    contenders = _flowledger_contenders(
        workload, instances, settings, features, workdir, templates, populated
    )
    contenders += _peer_contenders(workload, instances, settings, workdir, populated)
    where = "" if populated is None else f" on {populated.instances:,}"
    for rep in range(settings.repeat):
        shift = rep % len(contenders)
        for c in contenders[shift:] + contenders[:shift]:
            if _runnable(c):
                progress.phase(
                    f"{workload.name}{where} x{instances}: {c.label} ({rep + 1}/{settings.repeat})"
                )
                c.run(rep)
            progress.tick()
    for c in contenders:
        if _runnable(c):
            progress.phase(f"{workload.name}{where}: {c.label} memory and counts (untimed)")
            c.finish()
        progress.tick()
    result = _summarise(workload, instances, contenders)
    if populated is not None:
        result.preloaded_finished, result.preloaded_active = populated.finished, populated.active
    return result


def _runnable(c: Contender) -> bool:
    return c.result.available and c.result.completed is not False


def _rates(r: SystemResult, instances: int, activities: int) -> None:
    """Per-instance figures from what each repetition measured."""
    r.instances_per_s = Spread.of([instances / s for s in r.seconds])
    r.us_per_activity = Spread.of([s * 1e6 / (instances * activities) for s in r.seconds])
    # Child processes unreadable (no /proc): CPU is this process's alone, and no child figure.
    children = r.children_cpu_s if len(r.children_cpu_s) == len(r.cpu_s) else [0.0] * len(r.cpu_s)
    total = [own + child for own, child in zip(r.cpu_s, children, strict=True)]
    r.cpu_us_per_instance = Spread.of([cpu * 1e6 / instances for cpu in total])
    if len(r.children_cpu_s) == len(r.cpu_s):
        r.children_cpu_us_per_instance = Spread.of([c * 1e6 / instances for c in r.children_cpu_s])
    r.cores = Spread.of([cpu / s for cpu, s in zip(total, r.seconds, strict=True)])


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
            _rates(r, instances, activities)
    peers = {
        r.mode: r.instances_per_s.median
        for r in results
        if r.system == "spiffworkflow" and r.instances_per_s is not None
    }
    in_memory = peers.get(IN_MEMORY)
    for r in results:
        # Asynchronous history is compared with its catch-up counted: the history rows exist then.
        rate = r.instances_per_s_with_catch_up or r.instances_per_s
        if rate is None:
            continue
        if in_memory is not None and (r.system, r.mode) != ("spiffworkflow", IN_MEMORY):
            r.ratio_vs_peer = round(rate.median / in_memory, 3)
        durable = peers.get(durable_peer.UNCACHED if r.uncached else durable_peer.CACHED)
        if r.system == "flowledger" and durable is not None:
            r.ratio_vs_durable_peer = round(rate.median / durable, 3)
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
    remove_database(corpus.path)
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
    modes = selected_modes(settings)
    systems = len(modes) + sum(1 for m in PEER_MODES if m in settings.modes)
    per_workload = systems * (settings.repeat + 1)
    steps = per_workload * (len(settings.workloads) + len(settings.populated))
    steps += ENGINE_FIGURE_STEPS if settings.engine_figures else 0
    steps += settings.repeat if settings.rest else 0
    progress = Progress(steps, enabled=show_progress)
    workdir = Path(tempfile.mkdtemp(prefix="flowledger-bench-"))
    try:
        levels = sorted({m.history_level for m in modes} | {fl.MODES[0].history_level})
        templates = {
            level: fl.make_template(workdir / f"template-{level}.db", level) for level in levels
        }
        for workload in settings.workloads:
            report.workloads.append(
                run_workload(workload, settings, features, workdir, templates, progress)
            )
        if settings.populated:
            databases = prepare_databases(
                settings.cache_dir,
                settings.cold_finished,
                settings.cold_active,
                levels,
                settings.peer and any(m in settings.modes for m in durable_peer.MODES),
                features,
                progress,
            )
            for workload in settings.populated:
                report.workloads.append(
                    run_workload(
                        workload, settings, features, workdir, templates, progress, databases
                    )
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
        f"{w.name}{_on(w)} on {r.system} ({r.mode}): {r.reason}"
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


def _on(w: WorkloadResult) -> str:
    total = w.preloaded_finished + w.preloaded_active
    return f" on a database of {total:,} instances" if total else ""
