"""The `flowledger` command line: deploy, start, list and complete tasks, read history and events,
replay, verify, a walk-through example, and `bench` (which lives in `tools.bench`). A thin shell
over `core.Engine`; no logic of its own.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Sequence
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec

from flowledger.core import FlowledgerError
from flowledger.core.engine import Engine

DEFAULT_DB = "sqlite:///flowledger.db"


def _engine(args: argparse.Namespace) -> Engine:
    return Engine(args.db, allow_scripts=getattr(args, "allow_scripts", False))


def _value(text: str) -> Any:
    """`--var amount=1200` gives 1200 (JSON when it parses as JSON), else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _variables(pairs: Sequence[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise SystemExit(f"error: --var expects name=value, got {pair!r}")
        out[name] = _value(value)
    return out


def _when(moment: datetime | None) -> str:
    return "" if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _print_tasks(engine: Engine, **filters: Any) -> None:
    tasks = engine.tasks(**filters)
    if not tasks:
        print("(no open tasks)")
        return
    print(
        _table(
            [(t.id, t.name, t.assignee, ",".join(t.candidate_groups), _when(t.due)) for t in tasks],
            ["task id", "name", "assignee", "candidate groups", "due"],
        )
    )


def _print_history(engine: Engine, instance_id: str) -> None:
    hpi = engine.historic_process_instance(instance_id)
    print(
        f"process instance {hpi.id}: {hpi.state}, started {_when(hpi.start_time)}"
        + (f", ended {_when(hpi.end_time)} ({hpi.duration_in_millis} ms)" if hpi.end_time else "")
    )
    print(
        _table(
            [
                (
                    a.activity_id,
                    a.activity_type,
                    _when(a.start_time),
                    _when(a.end_time),
                    a.duration_in_millis,
                    "canceled" if a.canceled else ("scope complete" if a.complete_scope else ""),
                )
                for a in engine.historic_activity_instances(instance_id)
            ],
            ["activity", "type", "start", "end", "ms", "state"],
        )
    )
    variables = engine.historic_variable_instances(instance_id)
    if variables:
        print()
        print(
            _table(
                [(v.name, v.type, json.dumps(v.value, default=str), v.state) for v in variables],
                ["variable", "type", "value", "state"],
            )
        )


def _print_events(engine: Engine, stream_id: str, as_json: bool) -> None:
    events = engine.events(stream_id)
    if as_json:
        print(msgspec.json.encode(events).decode())
        return
    print(
        _table(
            [
                (
                    e.position,
                    e.stream_version,
                    e.type,
                    e.command_type,
                    _summary(e.payload),
                )
                for e in events
            ],
            ["position", "version", "event", "command", "facts"],
        )
    )


def _summary(payload: dict[str, Any]) -> str:
    keys = (
        "activity_id",
        "name",
        "task_id",
        "value",
        "flow_id",
        "error_code",
        "reason",
        "worker_id",
    )
    parts = [
        f"{k}={json.dumps(payload[k], default=str)}" for k in keys if payload.get(k) is not None
    ]
    text = " ".join(parts)
    return text if len(text) <= 80 else text[:77] + "..."


# -- commands ---------------------------------------------------------------------------------


def cmd_example(args: argparse.Namespace) -> None:
    example = resources.files("flowledger.tools") / "examples" / "invoice.bpmn"
    with _engine(args) as engine:
        deployment = engine.deploy(
            {"invoice.bpmn": example.read_bytes()}, name="invoice-example", duplicate_filtering=True
        )
        definition = deployment.process_definitions[0]
        print(f"deployed {definition.key} version {definition.version} ({definition.id})")
        instance = engine.start_process_instance(
            "invoice", {"amount": 1250, "invoiceNumber": "INV-1001"}, business_key="INV-1001"
        )
        print(f"started process instance {instance.id}\n")
        print("open tasks:")
        _print_tasks(engine, process_instance_id=instance.id)
        for task in engine.tasks(process_instance_id=instance.id):
            engine.claim(task.id, "demo")
            engine.complete_task(task.id, {"approvedBy": "demo"})
            print(f"\nclaimed and completed task {task.id} ({task.name})\n")
        _print_history(engine, instance.id)
        print("\nrecorded events:")
        _print_events(engine, instance.id, as_json=False)
        report = engine.verify()
        print(
            f"\nverify: {report.commits_checked} commits, {report.rows_compared} rows compared, "
            + ("everything agrees" if report.ok else f"{len(report.problems)} problems")
        )
        for problem in report.problems:
            print(f"  {problem}")


def cmd_deploy(args: argparse.Namespace) -> None:
    files = {Path(f).name: Path(f).read_bytes() for f in args.files}
    with _engine(args) as engine:
        deployment = engine.deploy(
            files, name=args.name, duplicate_filtering=args.duplicate_filtering
        )
        print(f"deployment {deployment.id}")
        for d in deployment.process_definitions:
            print(f"  {d.key} version {d.version}: {d.id}")


def cmd_start(args: argparse.Namespace) -> None:
    with _engine(args) as engine:
        pi = engine.start_process_instance(
            args.key, _variables(args.var), business_key=args.business_key
        )
        print(pi.id)
        if pi.ended:
            print("(the instance already ended)")
        else:
            _print_tasks(engine, process_instance_id=pi.id)


def cmd_tasks(args: argparse.Namespace) -> None:
    filters = {
        "process_instance_id": args.instance,
        "assignee": args.assignee,
        "candidate_group": args.candidate_group,
        "candidate_user": args.candidate_user,
    }
    with _engine(args) as engine:
        _print_tasks(engine, **{k: v for k, v in filters.items() if v is not None})


def cmd_complete(args: argparse.Namespace) -> None:
    with _engine(args) as engine:
        engine.complete_task(args.task_id, _variables(args.var))
        print(f"completed {args.task_id}")


def cmd_history(args: argparse.Namespace) -> None:
    with _engine(args) as engine:
        _print_history(engine, args.instance_id)


def cmd_events(args: argparse.Namespace) -> None:
    with _engine(args) as engine:
        _print_events(engine, args.stream_id, args.json)


def cmd_replay(args: argparse.Namespace) -> None:
    with _engine(args) as engine:
        state = engine.replay(args.instance_id, until_position=args.until)
    print(json.dumps(msgspec.to_builtins(state), indent=2, default=str))


def cmd_verify(args: argparse.Namespace) -> None:
    from flowledger.tools.progress import Progress

    progress = Progress(100)

    def show(done: int, total: int) -> None:
        percent = done * progress.total // max(total, 1)
        # A terminal redraws one line; a log gets one line per tenth of the way.
        if progress.interactive or percent // 10 != progress.done // 10 or done == total:
            progress.done = percent
            progress.note(f"verify: {done:,} of {total:,} commits read")

    with _engine(args) as engine:
        report = engine.verify(expect_anchor=args.expect_anchor, progress=show)
    progress.finish()
    print(
        f"{report.commits_checked} commits, {report.streams_checked} instances replayed, "
        f"{report.rows_compared} table rows compared"
    )
    # Kept outside the database, the anchor lets a later `verify --expect-anchor` see a log
    # rewritten consistently (every hash recomputed), which no check inside it can.
    print(f"anchor {report.anchor}")
    if report.ok:
        print(
            "OK: hash chains and command log intact, replay == live state, "
            "rebuilt tables == live tables"
        )
        return
    for problem in report.problems:
        print(f"PROBLEM {problem}")
    raise SystemExit(2)


def cmd_history_level(args: argparse.Namespace) -> None:
    with _engine(args) as engine:
        if args.level is None:
            print(engine.history_level)
            return
        before = engine.history_level
        report = engine.set_history_level(args.level)
    print(
        f"history level {before} -> {args.level}: rebuilt from {report.commits:,} commits "
        f"({report.events:,} events, {report.rows_written:,} rows written)"
    )


def cmd_migrate(args: argparse.Namespace) -> None:
    with _engine(args):
        print("database is at the newest schema revision")


def cmd_serve(args: argparse.Namespace) -> None:
    # Imported here: the other commands should not pay for loading the web stack.
    from flowledger.rest.auth import Users, require_private
    from flowledger.rest.server import check_binding, serve

    users = None
    if args.users:
        require_private(args.users)  # before reading it, as ssh does a private key
        users = Users.load(args.users)
    check_binding(args.host, users, args.insecure)  # refuse before touching the database
    engine = Engine(
        args.db,
        allow_scripts=args.allow_scripts,
        history_mode=args.history_mode,
        job_executor=not args.no_job_executor,
    )
    try:
        serve(
            engine,
            host=args.host,
            port=args.port,
            users=users,
            insecure=args.insecure,
            max_body_bytes=args.max_body_mb * 1024 * 1024,
        )
    finally:
        engine.close()


def cmd_users_add(args: argparse.Namespace) -> None:
    from flowledger.rest.auth import add_user

    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(f"password for {args.name}: ")
    if not password:
        raise SystemExit("error: empty password")
    add_user(args.file, args.name, password)
    print(f"user {args.name} written to {args.file}")


BENCH_FROM_SOURCE = (
    "the benchmark is not installed with flowledger: it runs from a source checkout, "
    "`pip install -e '.[bench]'` then `flowledger bench`"
)


def cmd_bench(args: argparse.Namespace) -> None:
    from flowledger.tools.bench import cli as bench_cli
    from flowledger.tools.bench.errors import BenchError

    try:
        status = bench_cli.run(args)
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    if status:
        raise SystemExit(status)


def cmd_bench_missing(args: argparse.Namespace) -> None:
    print(f"error: {BENCH_FROM_SOURCE}", file=sys.stderr)
    raise SystemExit(2)


def _add_bench(sub: Any) -> None:
    """`flowledger bench`, when the benchmark is there (a source checkout, not the wheel)."""
    help_text = "benchmark against SpiffWorkflow (temporary SQLite files; --db is not used)"
    try:
        from flowledger.tools.bench import cli as bench_cli
    except ImportError:
        p = sub.add_opaque_parser("bench", help="(source checkout only) " + help_text)
        p.set_defaults(func=cmd_bench_missing)
        return
    p = sub.add_parser("bench", help=help_text)
    bench_cli.add_arguments(p)
    p.set_defaults(func=cmd_bench)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flowledger",
        description="An event-sourced BPMN engine that speaks Camunda 7.",
    )
    _add_global_options(parser, default=os.environ.get("FLOWLEDGER_DB", DEFAULT_DB))
    # The same options after the subcommand (`flowledger serve --db URL`, as the README writes
    # it): SUPPRESS leaves the value given before the subcommand, or its default, in place.
    global_options = argparse.ArgumentParser(add_help=False)
    _add_global_options(global_options, default=argparse.SUPPRESS)
    sub = _Subcommands(parser.add_subparsers(dest="command", required=True), global_options)

    sub.add_parser("example", help="walk through an invoice example end to end").set_defaults(
        func=cmd_example
    )
    p = sub.add_parser("deploy", help="deploy BPMN files")
    p.add_argument("files", nargs="+")
    p.add_argument("--name")
    p.add_argument("--duplicate-filtering", action="store_true")
    p.set_defaults(func=cmd_deploy)
    p = sub.add_parser("start", help="start the latest version of a process")
    p.add_argument("key")
    p.add_argument("--var", action="append", metavar="NAME=VALUE")
    p.add_argument("--business-key")
    p.set_defaults(func=cmd_start)
    p = sub.add_parser("tasks", help="list open user tasks")
    p.add_argument("--instance")
    p.add_argument("--assignee")
    p.add_argument("--candidate-group")
    p.add_argument("--candidate-user")
    p.set_defaults(func=cmd_tasks)
    p = sub.add_parser("complete", help="complete a user task")
    p.add_argument("task_id")
    p.add_argument("--var", action="append", metavar="NAME=VALUE")
    p.set_defaults(func=cmd_complete)
    p = sub.add_parser("history", help="history of a process instance")
    p.add_argument("instance_id")
    p.set_defaults(func=cmd_history)
    p = sub.add_parser("events", help="recorded events of an instance or deployment")
    p.add_argument("stream_id")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_events)
    p = sub.add_parser("replay", help="state of an instance, replayed from its events")
    p.add_argument("instance_id")
    p.add_argument("--until", type=int, metavar="POSITION")
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("verify", help="check hash chains, replay, and rebuilt tables")
    p.add_argument(
        "--expect-anchor",
        metavar="POSITION:DIGEST",
        help="an anchor an earlier verify printed (kept outside the database): the log up to "
        "that position must still digest to it",
    )
    p.set_defaults(func=cmd_verify)
    p = sub.add_parser(
        "history-level",
        help="show the history level, or rebuild history at another one (nothing is lost)",
        description="Without LEVEL, print the level the history tables are built at. With it, "
        "rebuild every table from the event log at LEVEL and record it: raising the level "
        "fills history for the past too. Stop other engines on the database first.",
    )
    p.add_argument("level", nargs="?", choices=["none", "activity", "audit", "full"])
    p.set_defaults(func=cmd_history_level)
    sub.add_parser("migrate", help="upgrade the database schema").set_defaults(func=cmd_migrate)
    p = sub.add_parser("serve", help="serve the Camunda REST API (engine-rest) over HTTP")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    p.add_argument("--users", metavar="FILE", help="users file: require HTTP Basic auth")
    p.add_argument(
        "--insecure",
        action="store_true",
        help="allow a non-loopback address without authentication",
    )
    p.add_argument("--history-mode", choices=["inline", "async"], default="inline")
    p.add_argument("--max-body-mb", type=int, default=16, help="request body limit (MiB)")
    p.add_argument(
        "--no-job-executor",
        action="store_true",
        help="run no timers or asynchronous jobs in this process (another one runs them)",
    )
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("users", help="manage the users file of `serve --users`")
    users_sub = p.add_subparsers(dest="users_command", required=True)
    p = users_sub.add_parser("add", help="add or replace a user (password hashed with scrypt)")
    p.add_argument("name")
    p.add_argument("--file", required=True, metavar="FILE")
    p.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    p.set_defaults(func=cmd_users_add)
    _add_bench(sub)
    return parser


def _add_global_options(parser: argparse.ArgumentParser, *, default: Any) -> None:
    parser.add_argument(
        "--db",
        default=default,
        help="SQLAlchemy database URL (default: $FLOWLEDGER_DB or sqlite:///flowledger.db)",
    )
    parser.add_argument(
        "--allow-scripts",
        action="store_true",
        default=False if default is not argparse.SUPPRESS else argparse.SUPPRESS,
        help="allow scriptFormat=python in models",
    )


class _Subcommands:
    """Adds every subcommand with the global options as a parent."""

    def __init__(self, actions: Any, parent: argparse.ArgumentParser) -> None:
        self._actions = actions
        self._parent = parent

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = self._actions.add_parser(
            name, parents=[self._parent], **kwargs
        )
        return parser

    def add_opaque_parser(self, name: str, help: str) -> argparse.ArgumentParser:
        """A subcommand that takes whatever follows it, options included, without parsing."""
        parser: argparse.ArgumentParser = self._actions.add_parser(
            name, help=help, add_help=False, prefix_chars="\0"
        )
        parser.add_argument("arguments", nargs="*")
        return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # `flowledger events ID | head`: the reader has gone, which is not an error. Point stdout
        # at /dev/null so that the interpreter's own flush at exit does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(0) from None
    except FlowledgerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    except Exception as exc:
        from flowledger.rest.auth import UsersFileError, UsersFileExposed
        from flowledger.rest.server import ServeError

        if isinstance(exc, ServeError | UsersFileError):
            print(f"error: {exc}", file=sys.stderr)
            raise SystemExit(2 if isinstance(exc, UsersFileExposed) else 1) from None
        raise


if __name__ == "__main__":
    main()
