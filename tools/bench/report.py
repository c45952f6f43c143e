"""Turns a BenchReport into JSON (every figure), markdown tables (docs/benchmarks.md) and the
terminal table printed at the end of a run. Formatting only: measures nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from .formatting import NA, Table, median, number, spread
from .results import BenchReport, VariablesFigures
from .workload_tables import async_table, memory_table, storage_table, throughput_table


def to_json(report: BenchReport) -> bytes:
    return msgspec.json.format(msgspec.json.encode(report), indent=2) + b"\n"


def from_json(data: bytes) -> BenchReport:
    """A report written by `to_json`, to render again (ValueError if it is not one); reports
    from before the REST workload read with `rest` None."""
    try:
        return msgspec.json.decode(data, type=BenchReport)
    except msgspec.DecodeError as exc:
        raise ValueError(f"not a flowledger bench JSON report: {exc}") from None


# -- tables -----------------------------------------------------------------------------------


def engine_table(report: BenchReport) -> Table | None:
    e = report.engine
    if e is None:
        return None
    rows: list[list[str]] = []
    notes: list[str] = []
    if e.append is not None:
        a = e.append
        rows.append(
            [
                f"append, {a.batched_commits_per_txn} commits per transaction",
                spread(a.batched_events_per_s) + " events/s",
                f"{a.commits:,} commits x {a.events_per_commit} events, "
                f"{number(a.event_bytes)} B/event",
            ]
        )
        rows.append(
            [
                "append, 1 commit per transaction",
                spread(a.single_commit_events_per_s) + " events/s",
                "as a command appends",
            ]
        )
    if e.rebuild is not None:
        r = e.rebuild
        rows.append(
            [
                "projection rebuild from the log",
                spread(r.events_per_s) + " events/s" if r.available else NA,
                f"{r.events:,} events, {r.instances:,} instances" if r.available else str(r.reason),
            ]
        )
    if e.replay is not None:
        p = e.replay
        rows.append(
            [
                f"replay one {p.workload} instance",
                spread(p.events_per_s) + " events/s" if p.available else NA,
                f"{p.events:,} events" if p.available else str(p.reason),
            ]
        )
    if e.cold_start is not None:
        c = e.cold_start
        if c.available:
            size = f"{c.database_bytes / 2**20:,.0f} MiB" if c.database_bytes else NA
            what = (
                f"{c.finished_instances:,} finished + {c.active_instances:,} active "
                f"{c.workload}, {size}"
            )
            rows.append(["cold start: Engine(url)", spread(c.construct_s) + " s", what])
            for label, value in (
                ("cold start: first query (tasks of one instance)", c.first_query_s),
                ("cold start: first command (complete that task)", c.first_command_s),
                ("cold start: total", c.total_s),
            ):
                rows.append([label, spread(value) + " s", ""])
            if c.build_seconds is not None:
                when = "by an earlier run, taken from the cache" if c.from_cache else "by this run"
                notes.append(f"cold-start database built in {c.build_seconds:,.0f} s ({when})")
        else:
            rows.append(["cold start", NA, str(c.reason)])
    if e.variables is not None:
        rows += variables_rows(e.variables)
    return Table(
        "Engine-level figures (median, min-max)",
        ["figure", "value", "on"],
        rows,
        notes,
        text_columns=frozenset({0, 2}),
    )


def variables_rows(v: VariablesFigures) -> list[list[str]]:
    """One row per number of start variables: flat µs/variable means a linear command path."""
    rows = [
        [
            f"start with {p.variables:,} variables",
            spread(p.us_per_variable) + " µs/variable",
            f"{median(p.seconds)} s for the one start command",
        ]
        for p in v.points
    ]
    if not v.available:
        rows.append(["start with many variables", NA, str(v.reason)])
    return rows


def rest_table(report: BenchReport) -> Table | None:
    r = report.rest
    if r is None:
        return None
    rows = [
        [f.request, str(f.count // max(r.instances, 1)), spread(f.p50_ms), spread(f.p99_ms)]
        for f in r.requests
    ]
    notes = [
        f"{spread(r.instances_per_s)} instances/s, {spread(r.requests_per_s)} requests/s "
        f"({r.instances:,} instances per repetition, {r.clients} concurrent clients, "
        f"{r.repetitions} repetition{'' if r.repetitions == 1 else 's'})",
        "server: `flowledger serve`'s app on uvicorn in its own process, one SQLite file "
        "(WAL, synchronous=NORMAL, history inline at level audit); clients: threads with one "
        "httpx keep-alive connection each, in the benchmark process",
        "SpiffWorkflow has no REST API: the peer takes no part in this workload",
    ]
    if r.completed is False:
        notes.insert(0, f"FAILED: {r.reason}")
    return Table(
        f"REST API: {r.workload} over HTTP (start, list its task, complete it); "
        "latency in ms, median over repetitions (min-max)",
        ["request", "per instance", "p50 ms", "p99 ms"],
        rows,
        notes,
    )


def machine_table(report: BenchReport) -> Table:
    m = report.machine
    rows = [
        ["CPU", str(m.get("cpu_model"))],
        ["cores (nproc)", str(m.get("nproc"))],
        ["Python", f"{m.get('python')} ({m.get('python_implementation')})"],
        ["SQLite", str(m.get("sqlite"))],
        ["SpiffWorkflow", str(m.get("spiffworkflow"))],
        ["flowledger commit", str(m.get("flowledger_commit"))],
        ["platform", str(m.get("platform"))],
    ]
    return Table("Machine", ["", "this run"], rows, text_columns=frozenset({0, 1}))


def tables(report: BenchReport) -> list[Table]:
    found = [
        throughput_table(report),
        async_table(report),
        storage_table(report),
        memory_table(report),
        engine_table(report),
        rest_table(report),
    ]
    return [t for t in found if t is not None]


# -- rendering --------------------------------------------------------------------------------


def _markdown_table(table: Table) -> str:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    align = ["---" if i in table.text_columns else "---:" for i in range(len(table.headers))]
    out = [f"### {table.title}", "", line(table.headers), "|" + "|".join(align) + "|"]
    out += [line(row) for row in table.rows]
    if table.notes:
        out.append("")
        out += [f"- {note}" for note in table.notes]
    return "\n".join(out)


def markdown(report: BenchReport) -> str:
    """The results section of docs/benchmarks.md, regenerated by `flowledger bench --markdown`."""
    parts = [
        "## Results",
        "",
        f"Command: `{report.command}` ({report.duration_s:,.0f} s)",
        "",
        _markdown_table(machine_table(report)),
    ]
    parts += ["", *(_markdown_table(t) + "\n" for t in tables(report))]
    return "\n".join(parts).rstrip() + "\n"


RESULTS_BEGIN = "<!-- bench-results:begin (generated by flowledger bench --markdown) -->"
RESULTS_END = "<!-- bench-results:end -->"


def write_markdown(path: Path, report: BenchReport) -> None:
    """Write the results; a file with the results markers (docs/benchmarks.md) keeps everything
    outside them, so the doc is regenerated in place."""
    section = f"{RESULTS_BEGIN}\n{markdown(report)}{RESULTS_END}"
    if path.exists():
        text = path.read_text()
        begin, end = text.find(RESULTS_BEGIN), text.find(RESULTS_END)
        if 0 <= begin < end:
            path.write_text(text[:begin] + section + text[end + len(RESULTS_END) :])
            return
    path.write_text(section + "\n")


def _plain_table(table: Table) -> str:
    cells = [table.headers, *table.rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(table.headers))]

    def line(row: Sequence[str]) -> str:
        cells = zip(row, widths, strict=True)
        text = "  ".join(
            c.ljust(w) if i in table.text_columns else c.rjust(w) for i, (c, w) in enumerate(cells)
        )
        return text.rstrip()

    out = [table.title, line(table.headers), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in table.rows]
    out += [f"  * {note}" for note in table.notes]
    return "\n".join(out)


def terminal(report: BenchReport) -> str:
    m = report.machine
    head = (
        f"flowledger bench: {m.get('cpu_model')}, {m.get('nproc')} cores, "
        f"Python {m.get('python')}, "
        f"SQLite {m.get('sqlite')}, SpiffWorkflow {m.get('spiffworkflow')}, "
        f"commit {m.get('flowledger_commit')}; {report.duration_s:,.0f} s"
    )
    return "\n\n".join([head, *(_plain_table(t) for t in tables(report))]) + "\n"
