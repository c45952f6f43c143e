"""The per-workload tables of a report: one row per workload and system (flowledger in each mode,
SpiffWorkflow in each mode), in the order they ran. Formatting only: measures nothing.

A system that cannot run a workload has no row; the notes say which and why.
"""

from __future__ import annotations

from collections.abc import Callable

from .formatting import Table, mebibytes, median, number, ratio, spread
from .results import BenchReport, Spread, SystemResult, WorkloadResult

NONE = "-"


def workload_label(w: WorkloadResult) -> str:
    """The workload's name; `@110k` when it ran on a database already holding that many."""
    total = w.preloaded_finished + w.preloaded_active
    if not total:
        return w.name
    short = f"{total / 1000:,.0f}k" if total >= 10_000 else f"{total:,}"
    return f"{w.name} @{short}"


def system_label(r: SystemResult) -> str:
    if r.label:
        return r.label
    return f"{r.system} {r.mode}"  # a report from before labels were recorded


def _ran(r: SystemResult) -> bool:
    """Has a row: it ran (perhaps failing); not merely unavailable."""
    return r.available and (r.repetitions > 0 or r.completed is False)


def _rows(
    report: BenchReport,
    cells: Callable[[WorkloadResult, SystemResult], list[str]],
    keep: Callable[[SystemResult], bool] = _ran,
) -> list[list[str]]:
    """One row per workload and kept system: workload, system, sync, history, then `cells`;
    the workload is named on its first row only."""
    rows = []
    for w in report.workloads:
        first = True
        for r in w.systems:
            if not keep(r):
                continue
            row = [workload_label(w) if first else "", system_label(r)]
            row += [r.sqlite_synchronous or NONE, r.history_level or NONE]
            rows.append(row + cells(w, r))
            first = False
    return rows


def _system_name(r: SystemResult) -> str:
    return f"flowledger {r.mode}" if r.system == "flowledger" else system_label(r)


def unavailable_notes(report: BenchReport) -> list[str]:
    """Which systems did not run a workload, and why: one line per distinct reason."""
    grouped: dict[str, list[str]] = {}
    for w in report.workloads:
        by_reason: dict[str, list[str]] = {}
        flowledger = [r for r in w.systems if r.system == "flowledger"]
        for r in w.systems:
            if r.available and r.completed is not False:
                continue
            state = "FAILED" if r.completed is False else "not available"
            reason = str(r.reason).replace(w.name, "<workload>")
            by_reason.setdefault(f"{state}: {reason}", []).append(_system_name(r))
        for reason, names in by_reason.items():
            every = [_system_name(r) for r in flowledger]
            if len(every) > 1 and all(n in names for n in every):
                names = ["flowledger (every mode)"] + [n for n in names if n not in every]
            grouped.setdefault(f"{', '.join(names)} {reason}", []).append(workload_label(w))
    return [f"{', '.join(labels)}: {text}" for text, labels in grouped.items()]


def _populated_notes(report: BenchReport) -> list[str]:
    seen = set()
    notes = []
    for w in report.workloads:
        key = (w.preloaded_finished, w.preloaded_active)
        if w.preloaded_finished + w.preloaded_active and key not in seen:
            seen.add(key)
            notes.append(
                f"{workload_label(w).split(' ')[-1]}: each repetition on a copy of a database "
                f"already holding {w.preloaded_finished:,} finished + {w.preloaded_active:,} "
                "active usertask_gateway instances (flowledger: the cold-start database, for "
                "level full a copy with its history rebuilt at full; SpiffWorkflow + SQLite: as "
                "many workflow JSON rows); per-instance figures count only what the run added"
            )
    return notes


def throughput_table(report: BenchReport) -> Table:
    def cells(w: WorkloadResult, r: SystemResult) -> list[str]:
        return [
            spread(r.instances_per_s),
            median(r.us_per_activity),
            median(r.cpu_us_per_instance),
            median(r.cores),
            ratio(r.ratio_vs_peer),
            ratio(r.ratio_vs_durable_peer),
        ]

    rows = _rows(report, cells)
    headers = ["workload", "system", "sync", "history", "inst/s", "µs/activity"]
    headers += ["CPU µs/inst", "cores", "÷ Spiff in memory", "÷ Spiff + SQLite"]
    notes = [
        "inst/s: instances ÷ seconds of the timed part (median, min-max); µs/activity: "
        "seconds ÷ flow nodes executed; " + _sizes(report),
        "CPU: user + system time of the benchmark process (every thread; SQLite runs in it) "
        "and of its child processes (the async-history follower), timed part only; cores = "
        "CPU ÷ wall-clock time",
        "÷ Spiff in memory / ÷ Spiff + SQLite: instances/s ÷ SpiffWorkflow's in the same run; "
        "async history counts its catch-up; an uncached mode is compared with SpiffWorkflow "
        "reloading its JSON, the others with SpiffWorkflow keeping the workflow between saves",
        *_populated_notes(report),
        *unavailable_notes(report),
    ]
    return Table(
        "Instances per second and CPU per instance (median over repetitions)",
        headers,
        rows,
        notes,
        text_columns=frozenset({0, 1, 2, 3}),
    )


def _sizes(report: BenchReport) -> str:
    parts = [
        f"{workload_label(w)} {w.instances:,} x {w.activities_per_instance} ({w.activities_source})"
        for w in report.workloads
    ]
    return "instances x activities per instance: " + ", ".join(parts)


def async_table(report: BenchReport) -> Table | None:
    def is_async(r: SystemResult) -> bool:
        return _ran(r) and r.history_catch_up_s is not None

    def cells(w: WorkloadResult, r: SystemResult) -> list[str]:
        own = Spread.of([cpu * 1e6 / r.instances for cpu in r.cpu_s]) if r.instances else None
        return [
            median(r.history_backlog_events),
            spread(r.history_catch_up_s),
            spread(r.instances_per_s_with_catch_up),
            median(own),
            median(r.children_cpu_us_per_instance),
            median(r.cpu_us_per_instance_with_catch_up),
        ]

    rows = _rows(report, cells, is_async)
    if not rows:
        return None
    headers = ["workload", "system", "sync", "history", "backlog events", "catch-up s"]
    headers += ["inst/s incl. catch-up", "CPU µs/inst: engine process", "follower process"]
    headers += ["all, incl. catch-up"]
    return Table(
        "Asynchronous history: the backlog when the timed part ends, the catch-up after it, "
        "and the CPU of both processes (median)",
        headers,
        rows,
        [
            "the follower is a child process projecting ACT_HI_* on the second core; the "
            "catch-up (flush_history() after the timed part) runs in the engine process while "
            "the follower keeps going: 'all, incl. catch-up' is both processes over the timed "
            "part and the catch-up",
        ],
        text_columns=frozenset({0, 1, 2, 3}),
    )


def _storage_rows_kept(report: BenchReport) -> set[int]:
    """Per workload, one flowledger row per history level (inline, cached: the others write the
    same rows) and the SpiffWorkflow rows that store something."""
    kept: set[int] = set()
    for w in report.workloads:
        levels: set[str | None] = set()
        for r in w.systems:
            if not _ran(r):
                continue
            if r.system == "flowledger":
                plain = r.history_catch_up_s is None and not r.uncached
                if plain and r.history_level not in levels:
                    levels.add(r.history_level)
                    kept.add(id(r))
            elif not r.uncached:
                kept.add(id(r))
    return kept


def storage_table(report: BenchReport) -> Table:
    kept = _storage_rows_kept(report)

    def cells(w: WorkloadResult, r: SystemResult) -> list[str]:
        return [
            number(r.events_per_instance),
            number(r.log_bytes_per_instance),
            number(r.runtime_rows_per_instance),
            number(r.history_rows_per_instance),
            number(r.database_bytes_per_instance),
            number(r.saves_per_instance),
            number(r.serialized_state_bytes),
        ]

    headers = ["workload", "system", "sync", "history", "events/inst", "log bytes/inst"]
    headers += ["RU rows/inst", "HI rows/inst", "DB bytes/inst", "saves/inst"]
    headers += ["Spiff JSON bytes (finished)"]
    return Table(
        "What one instance leaves behind (flowledger: inline history, one row per level; "
        "SpiffWorkflow: its JSON serialization, and what saving it to SQLite wrote)",
        headers,
        _rows(report, cells, lambda r: id(r) in kept),
        text_columns=frozenset({0, 1, 2, 3}),
    )


def memory_table(report: BenchReport) -> Table | None:
    measured = [r for w in report.workloads for r in w.systems if r.peak_memory_bytes]
    if not measured:
        return None
    return Table(
        "Peak Python memory during one untimed pass (tracemalloc, MiB)",
        ["workload", "system", "sync", "history", "instances", "MiB"],
        _rows(report, lambda w, r: [str(r.instances), mebibytes(r.peak_memory_bytes)]),
        text_columns=frozenset({0, 1, 2, 3}),
    )
