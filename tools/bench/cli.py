"""`flowledger bench` options and entry point: parse, run the suite, print and write the reports.

`tools/cli.py` mounts this as its `bench` subcommand; `python -m tools.bench` runs it alone.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from . import flowledger_runner as fl
from . import report, suite, workloads
from .contenders import PEER_MODES
from .errors import BenchError
from .model_generator import render

# Defaults of the sizes; --corpus-instances defaults to --instances.
QUICK = {
    "instances": 3,
    "repeat": 1,
    "cold_finished": 30,
    "cold_active": 5,
    "append_commits": 200,
    "rest_instances": 16,
    "rest_clients": 8,
}
# Start variables of the per-variable figure (--variable-counts).
QUICK_VARIABLE_COUNTS = (100, 1_000)
FULL_VARIABLE_COUNTS = (1_000, 5_000, 10_000)  # 10,000: MAX_VARIABLES_PER_COMMAND
FULL = {
    "instances": 500,
    "repeat": 5,
    "cold_finished": 100_000,
    "cold_active": 10_000,
    "append_commits": 20_000,
    "rest_instances": 2_000,
    "rest_clients": 8,
}


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def _counts(text: str) -> tuple[int, ...]:
    """A comma-separated list of whole numbers of at least 1 (BenchError names the bad one)."""
    try:
        return tuple(_positive(part.strip()) for part in text.split(",") if part.strip())
    except argparse.ArgumentTypeError as exc:
        raise BenchError(f"--variable-counts: {exc}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workloads",
        metavar="LIST",
        help="comma-separated workloads: linear10, usertask_gateway, parallel, mi (= mi50), "
        "linearN, miN, saga (5 steps undone by compensation), conditional (instances waiting on "
        "a condition while a variable changes), conditional_control (the same at a user task), "
        "repair (an operator moves each instance past its user task by a modification), "
        "repair_control (the task completed instead), migrate (each waiting instance migrated "
        "to version 2, then its task completed) "
        "(default: the base four plus linear50-400 and mi10/200/1000)",
    )
    parser.add_argument(
        "--instances",
        type=_positive,
        help="instances per repetition of a base workload; bigger models run proportionally "
        "fewer (default 500, --quick 3)",
    )
    parser.add_argument(
        "--repeat", type=_positive, help="repetitions, median reported (default 5, --quick 1)"
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run of seconds")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write every figure as JSON")
    parser.add_argument(
        "--markdown",
        type=Path,
        metavar="PATH",
        help="write the results as markdown tables; in a file with the results markers "
        "(docs/benchmarks.md) only the part between them is replaced",
    )
    parser.add_argument(
        "--modes",
        metavar="LIST",
        help="comma-separated systems to run: flowledger modes "
        + ", ".join(m.name for m in fl.MODES)
        + "; SpiffWorkflow modes "
        + ", ".join(PEER_MODES)
        + " (default: all)",
    )
    parser.add_argument(
        "--populated",
        metavar="LIST",
        help="comma-separated workloads to run a second time, each repetition on a copy of a "
        "database already holding --cold-finished + --cold-active instances (the cold-start "
        "database, cached; the durable peer's holds as many JSON rows); reported as rows of "
        "their own",
    )
    parser.add_argument("--no-peer", action="store_true", help="do not run SpiffWorkflow")
    parser.add_argument(
        "--no-memory", action="store_true", help="skip the untimed tracemalloc passes"
    )
    parser.add_argument(
        "--skip-engine",
        action="store_true",
        help="skip the engine-level figures (append, rebuild, replay, start with many "
        "variables, cold start)",
    )
    parser.add_argument(
        "--cold-finished",
        type=_positive,
        metavar="N",
        help="finished instances in the cold-start database (default 100,000)",
    )
    parser.add_argument(
        "--cold-active",
        type=_positive,
        metavar="M",
        help="active instances in the cold-start database (default 10,000)",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(".bench-cache"),
        help="where the cold-start database is cached (default .bench-cache/)",
    )
    parser.add_argument(
        "--append-commits",
        type=_positive,
        metavar="N",
        help="commits appended for the append rate (default 20,000)",
    )
    parser.add_argument(
        "--corpus-instances",
        type=_positive,
        metavar="N",
        help="instances per workload in the rebuild/replay log corpus (default --instances)",
    )
    parser.add_argument(
        "--variable-counts",
        metavar="LIST",
        help="start variables of the per-variable start figure, comma-separated "
        "(default 1000,10000,100000, --quick 100,1000)",
    )
    parser.add_argument(
        "--skip-rest",
        action="store_true",
        help="skip the REST workload (engine-rest on uvicorn driven by HTTP clients)",
    )
    parser.add_argument(
        "--rest-instances",
        type=_positive,
        metavar="N",
        help="instances per repetition of the REST workload (default 2,000, --quick 16)",
    )
    parser.add_argument(
        "--rest-clients",
        type=_positive,
        metavar="N",
        help="concurrent HTTP clients of the REST workload (default 8)",
    )
    parser.add_argument(
        "--export-models",
        type=Path,
        metavar="DIR",
        help="write the selected workloads' BPMN (flowledger and peer dialects) to DIR and exit",
    )
    parser.add_argument(
        "--from-json",
        type=Path,
        metavar="PATH",
        help="run nothing: render a report saved with --json (terminal table, --markdown)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def settings_from(args: argparse.Namespace) -> suite.Settings:
    defaults = QUICK if args.quick else FULL
    names = [n for n in (args.workloads or "").split(",") if n.strip()]
    try:
        chosen = workloads.select(names, quick=args.quick)
        populated_names = [n for n in (args.populated or "").split(",") if n.strip()]
        populated = workloads.select(populated_names) if populated_names else []
    except ValueError as exc:
        raise BenchError(str(exc)) from None

    def pick(name: str) -> int:
        value = getattr(args, name)
        return int(value if value is not None else defaults[name])

    instances = pick("instances")
    return suite.Settings(
        workloads=chosen,
        instances=instances,
        repeat=pick("repeat"),
        peer=not args.no_peer,
        engine_figures=not args.skip_engine,
        memory=not args.no_memory,
        cold_finished=pick("cold_finished"),
        cold_active=pick("cold_active"),
        cache_dir=args.cache_dir,
        append_commits=pick("append_commits"),
        corpus_instances=args.corpus_instances or instances,
        quick=args.quick,
        rest=not args.skip_rest,
        rest_instances=pick("rest_instances"),
        rest_clients=pick("rest_clients"),
        variable_counts=_variable_counts(args),
        modes=_modes(args.modes),
        populated=tuple(populated),
    )


def _modes(text: str | None) -> tuple[str, ...]:
    """The systems named by --modes, in the suite's order; BenchError names an unknown one."""
    if text is None:
        return suite.ALL_MODES
    names = {n.strip() for n in text.split(",") if n.strip()}
    unknown = sorted(names - set(suite.ALL_MODES))
    if unknown:
        raise BenchError(
            f"--modes: unknown mode {', '.join(unknown)}; use {', '.join(suite.ALL_MODES)}"
        )
    if not names:
        raise BenchError("--modes: expected at least one mode")
    return tuple(m for m in suite.ALL_MODES if m in names)


def _variable_counts(args: argparse.Namespace) -> tuple[int, ...]:
    if args.variable_counts is not None:
        counts = _counts(args.variable_counts)
        if counts:
            return counts
        raise BenchError("--variable-counts: expected at least one number")
    return QUICK_VARIABLE_COUNTS if args.quick else FULL_VARIABLE_COUNTS


def export_models(settings: suite.Settings, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for w in settings.workloads:
        (directory / f"{w.name}.bpmn").write_bytes(render(w.graph, "camunda"))
        (directory / f"{w.name}.peer.bpmn").write_bytes(render(w.graph, "peer"))
        print(f"wrote {directory / w.name}.bpmn and {w.name}.peer.bpmn")


# The options in the order `command_line` writes them back.
_VALUED = (
    "workloads",
    "modes",
    "populated",
    "instances",
    "repeat",
    "cold_finished",
    "cold_active",
    "append_commits",
    "corpus_instances",
    "rest_instances",
    "rest_clients",
    "variable_counts",
    "json",
    "markdown",
)
_FLAGS = ("quick", "no_peer", "no_memory", "skip_engine", "skip_rest", "quiet")


def command_line(args: argparse.Namespace) -> str:
    """The command that reproduces this run, as recorded in the report."""
    words = ["flowledger", "bench"]
    for flag in _FLAGS:
        if getattr(args, flag):
            words.append("--" + flag.replace("_", "-"))
    for name in _VALUED:
        value = getattr(args, name)
        if value is not None:
            words += ["--" + name.replace("_", "-"), str(value)]
    if args.cache_dir != Path(".bench-cache"):
        words += ["--cache-dir", str(args.cache_dir)]
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark as `args` ask; returns the exit status (1 when a run failed)."""
    settings = settings_from(args)
    if args.export_models is not None:
        export_models(settings, args.export_models)
        return 0
    if args.from_json is not None:
        try:
            result = report.from_json(args.from_json.read_bytes())
        except (OSError, ValueError) as exc:
            raise BenchError(f"cannot read {args.from_json}: {exc}") from None
    else:
        result = suite.run(settings, command_line(args), show_progress=not args.quiet)
    print(report.terminal(result))
    if args.json is not None and args.from_json is None:
        args.json.write_bytes(report.to_json(result))
        print(f"wrote {args.json}")
    if args.markdown is not None:
        report.write_markdown(args.markdown, result)
        print(f"wrote {args.markdown}")
    problems = suite.failures(result)
    for problem in problems:
        print(f"FAILED {problem}", file=sys.stderr)
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="flowledger bench",
        description="Benchmark flowledger against SpiffWorkflow, plus engine-level figures and "
        "the REST API under concurrent HTTP clients.",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        status = run(args)
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    raise SystemExit(status)
