"""The shape of a benchmark report: every figure the harness measures, as plain dataclasses.

Data only: the suite fills these in, `report` turns them into JSON, markdown and a terminal table.
A figure that does not apply or could not be measured is None, never missing, so JSON readers
always find every key; `available`/`reason` say why.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# 2: history level, CPU time, the durable peer, uncached and populated runs
FORMAT_VERSION = 2


@dataclass
class Spread:
    """Median and range of one figure over the repetitions."""

    median: float
    min: float
    max: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread | None:
        if not values:
            return None
        return cls(float(statistics.median(values)), float(min(values)), float(max(values)))


@dataclass
class SystemResult:
    """One system (flowledger in one mode, or the peer in one mode) on one workload."""

    system: str  # "flowledger" | "spiffworkflow"
    mode: str  # flowledger_runner.MODES, or "in-memory" | "sqlite-json" | "sqlite-json-uncached"
    label: str = ""  # how the reports name it, e.g. "flowledger async history"
    sqlite_synchronous: str | None = None  # PRAGMA synchronous of its database; None in memory
    history_level: str | None = None  # flowledger: the level the engine recorded and worked at
    uncached: bool = False  # the completion found the instance uncached (loaded it back)
    available: bool = True
    reason: str | None = None  # why not available, or what went wrong
    instances: int = 0  # per repetition
    repetitions: int = 0
    completed: bool | None = None  # every instance of every repetition reached its end
    seconds: list[float] = field(default_factory=list)  # per repetition, instance execution only
    cpu_s: list[float] = field(default_factory=list)  # per repetition: this process, timed part
    # per repetition: child processes (the async-history follower), timed part; empty when they
    # could not be read (no /proc)
    children_cpu_s: list[float] = field(default_factory=list)
    instances_per_s: Spread | None = None
    us_per_activity: Spread | None = None
    cpu_us_per_instance: Spread | None = None  # CPU of all processes, timed part
    children_cpu_us_per_instance: Spread | None = None  # of that, child processes
    cores: Spread | None = None  # CPU of all processes ÷ wall-clock time, timed part
    history_catch_up_s: Spread | None = None  # async history: flush time after the timed part
    history_backlog_events: Spread | None = None  # async history: unprojected events at the end
    instances_per_s_with_catch_up: Spread | None = None  # async history: catch-up included
    cpu_us_per_instance_with_catch_up: Spread | None = None  # async: all processes, catch-up too
    events_per_instance: float | None = None
    runtime_rows_per_instance: float | None = None  # ACT_RU_* rows left per instance
    history_rows_per_instance: float | None = None  # ACT_HI_* rows per instance
    log_bytes_per_instance: float | None = None  # event_log.events bytes per instance
    database_bytes_per_instance: float | None = None  # SQLite file growth / instances
    saves_per_instance: float | None = None  # durable peer: JSON saves (transactions)
    serialized_state_bytes: int | None = None  # peer: JSON of one finished workflow
    peak_memory_bytes: int | None = None  # tracemalloc peak during an untimed pass
    ratio_vs_peer: float | None = None  # instances/s ÷ SpiffWorkflow in memory instances/s
    # flowledger: instances/s ÷ SpiffWorkflow with its JSON in SQLite (reloaded before the
    # completion when this mode is uncached)
    ratio_vs_durable_peer: float | None = None


@dataclass
class WorkloadResult:
    name: str
    description: str
    instances: int
    model_activities: int  # flow nodes of the model one instance passes
    activities_per_instance: int  # what µs/activity divides by (see activities_source)
    activities_source: str  # "ACT_HI_ACTINST" (measured on flowledger) or "model"
    systems: list[SystemResult] = field(default_factory=list)
    # A run on a copy of a populated database: the instances it held before (0: empty database)
    preloaded_finished: int = 0
    preloaded_active: int = 0

    def result(self, system: str, mode: str) -> SystemResult | None:
        for r in self.systems:
            if r.system == system and r.mode == mode:
                return r
        return None


@dataclass
class AppendFigures:
    available: bool = True
    reason: str | None = None
    commits: int = 0
    events_per_commit: int = 0
    event_bytes: float | None = None  # average encoded size of one synthetic event
    batched_commits_per_txn: int = 0
    batched_events_per_s: Spread | None = None
    single_commit_events_per_s: Spread | None = None  # one commit per transaction, as commands do


@dataclass
class RebuildFigures:
    available: bool = True
    reason: str | None = None
    events: int = 0
    instances: int = 0
    seconds: Spread | None = None
    events_per_s: Spread | None = None


@dataclass
class ReplayFigures:
    available: bool = True
    reason: str | None = None
    workload: str = ""
    events: int = 0
    seconds: Spread | None = None
    events_per_s: Spread | None = None


@dataclass
class ColdStartFigures:
    available: bool = True
    reason: str | None = None
    workload: str = ""
    finished_instances: int = 0
    active_instances: int = 0
    database_bytes: int | None = None
    build_seconds: float | None = None  # when it was built (perhaps by an earlier run)
    from_cache: bool = False  # this run reused the cached database
    construct_s: Spread | None = None  # Engine(url)
    first_query_s: Spread | None = None  # tasks of one active instance
    first_command_s: Spread | None = None  # complete that task
    total_s: Spread | None = None


@dataclass
class VariablesPoint:
    """One start command carrying `variables` start variables (median over repetitions)."""

    variables: int
    seconds: Spread | None = None
    us_per_variable: Spread | None = None


@dataclass
class VariablesFigures:
    available: bool = True
    reason: str | None = None  # what went wrong
    points: list[VariablesPoint] = field(default_factory=list)  # one per number of variables


@dataclass
class EngineFigures:
    append: AppendFigures | None = None
    rebuild: RebuildFigures | None = None
    replay: ReplayFigures | None = None
    cold_start: ColdStartFigures | None = None
    variables: VariablesFigures | None = None  # per-variable cost of one start command


@dataclass
class RequestFigures:
    """One request type: how many per repetition and its latency (median over repetitions)."""

    request: str
    count: int = 0
    p50_ms: Spread | None = None
    p99_ms: Spread | None = None


@dataclass
class RestFigures:
    available: bool = True
    reason: str | None = None  # why not available, or what went wrong
    completed: bool | None = None  # every instance of every repetition reached COMPLETED
    workload: str = "usertask_gateway"
    clients: int = 0
    instances: int = 0  # per repetition
    repetitions: int = 0
    seconds: list[float] = field(default_factory=list)  # per repetition, client phase only
    requests_per_s: Spread | None = None
    instances_per_s: Spread | None = None
    requests: list[RequestFigures] = field(default_factory=list)  # each type, then "all"


@dataclass
class BenchReport:
    format_version: int
    command: str
    machine: dict[str, Any]
    settings: dict[str, Any]
    features: dict[str, bool]
    workloads: list[WorkloadResult] = field(default_factory=list)
    engine: EngineFigures | None = None  # None with --skip-engine
    rest: RestFigures | None = None  # None with --skip-rest
    duration_s: float = 0.0
