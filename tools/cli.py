"""The `flowledger` command line, on Click with Rich output: serve the REST API, deploy,
start, list and complete tasks; `cli_audit.py` reads, replays and verifies the log, and
`cli_app.py` holds the command group and what every command shares (global options, the engine
they open). A thin shell over `core.Engine`; no logic of its own.

Global options (`--db`, `--allow-scripts`, `--json`, and what the engine may call out to:
`--connector`, `--http-allow`, `--http-deadline`, `--http-max-bytes`, `--command-budget`) are
accepted before or after the subcommand; one given after it wins. `--json` prints one JSON
document for tools instead of tables. Only the commands that set a database up (serve, deploy,
example, import, migrate, history-level LEVEL) create a missing SQLite file; every other one
refuses it (exit 2, naming the path), so a mistyped --db never yields an empty database reported
on as healthy. Shell completion: `eval "$(_FLOWLEDGER_COMPLETE=bash_source flowledger)"`
(zsh_source, fish_source for those shells).
"""

from __future__ import annotations

import getpass
import json
import os
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import click

from flowledger.core import FlowledgerError

from .cli_app import (
    app,
    as_user,
    global_options,
    open_engine,
    output,
)
from .output import Output, when
from .render import print_timeline

# Subcommands that print results, and so take `--json`; the others serve, write files or
# (bench) have their own `--json PATH`.
JSON_COMMANDS = {
    "audit",
    "erase",
    "personal-data",
    "exporters",
    "example",
    "deploy",
    "start",
    "tasks",
    "complete",
    "decide",
    "history",
    "events",
    "replay",
    "why",
    "verify",
    "head",
    "history-level",
    "migrate",
    "export",
    "import",
    "rebuild",
    "cleanup",
}
NO_GLOBALS = {"bench", "users"}


variables_option = click.option(
    "--var", "var", multiple=True, metavar="NAME=VALUE", help="a variable (JSON or text)"
)


def variables(pairs: Sequence[str]) -> dict[str, Any]:
    """`--var amount=1200` gives 1200 (JSON when it parses as JSON), else the text itself."""
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"expected name=value, got {pair!r}", param_hint="--var")
        try:
            out[name] = json.loads(value)
        except json.JSONDecodeError:
            out[name] = value
    return out


# -- running a process -----------------------------------------------------------------------


@app.command()
def example() -> None:
    """Walk through an invoice example end to end."""
    out = output()
    source = resources.files("flowledger.tools") / "examples" / "invoice.bpmn"
    with open_engine(create=True) as owner:
        engine = as_user(owner)
        deployment = engine.deploy(
            {"invoice.bpmn": source.read_bytes()}, name="invoice-example", duplicate_filtering=True
        )
        definition = deployment.process_definitions[0]
        instance = engine.start_process_instance(
            "invoice", {"amount": 1250, "invoiceNumber": "INV-1001"}, business_key="INV-1001"
        )
        completed = []
        for task in engine.tasks(process_instance_id=instance.id):
            engine.claim(task.id, "demo")
            engine.complete_task(task.id, {"approvedBy": "demo"})
            completed.append(task)
        timeline = engine.audit_service.timeline(instance.id)
        report = engine.verify()
    if out.json:
        out.data(
            {
                "definition": definition,
                "instance": instance.id,
                "completed_tasks": [t.id for t in completed],
                "timeline": timeline,
                "verify": report,
            }
        )
        return
    out.print(f"deployed {definition.key} version {definition.version} ({definition.id})")
    out.print(f"started process instance {instance.id}")
    for task in completed:
        out.print(f"claimed and completed task {task.id} ({task.name})")
    out.print()
    print_timeline(out, instance.id, timeline)
    agrees = "everything agrees" if report.ok else f"{len(report.problems)} problems"
    out.print(
        f"\nverify: {report.commits_checked} commits, {report.rows_compared} rows compared, "
        + agrees
    )
    for problem in report.problems:
        out.print(f"  {problem}")


@app.command()
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--name", help="deployment name")
@click.option("--duplicate-filtering", is_flag=True, help="skip it when nothing changed")
def deploy(files: tuple[Path, ...], name: str | None, duplicate_filtering: bool) -> None:
    """Deploy BPMN and DMN files."""
    out = output()
    sources = {f.name: f.read_bytes() for f in files}
    with open_engine(create=True) as engine:
        deployment = as_user(engine).deploy(
            sources, name=name, duplicate_filtering=duplicate_filtering
        )
    if out.json:
        out.data(deployment)
        return
    out.print(f"deployment {deployment.id}")
    for d in deployment.process_definitions:
        out.print(f"  {d.key} version {d.version}: {d.id}")
    for decision in deployment.decision_definitions:
        out.print(f"  decision {decision.key} version {decision.version}: {decision.id}")
    for warning in deployment.warnings:
        # deployed, but will fail when it runs (a timer literal that does not parse)
        where = f"{warning.resource}:{warning.line} {warning.element_id or ''}".strip()
        out.print(f"  warning ({where}): {warning.message}")


@app.command()
@click.argument("key")
@variables_option
@click.option("--business-key", help="the instance's business key")
def start(key: str, var: tuple[str, ...], business_key: str | None) -> None:
    """Start the latest version of a process."""
    out = output()
    with open_engine() as engine:
        instance = as_user(engine).start_process_instance(
            key, variables(var), business_key=business_key
        )
        tasks = [] if instance.ended else engine.tasks(process_instance_id=instance.id)
    if out.json:
        out.data({"instance": instance, "tasks": tasks})
        return
    out.print(instance.id)
    if instance.ended:
        out.print("(the instance already ended)")
    else:
        _task_table(out, tasks)


@app.command()
@click.option("--instance", help="process instance id")
@click.option("--assignee")
@click.option("--candidate-group")
@click.option("--candidate-user")
def tasks(
    instance: str | None,
    assignee: str | None,
    candidate_group: str | None,
    candidate_user: str | None,
) -> None:
    """List open user tasks."""
    out = output()
    filters = {
        "process_instance_id": instance,
        "assignee": assignee,
        "candidate_group": candidate_group,
        "candidate_user": candidate_user,
    }
    with open_engine() as engine:
        found = engine.tasks(**{k: v for k, v in filters.items() if v is not None})
    if out.json:
        out.data(found)
    else:
        _task_table(out, found)


def _task_table(out: Output, found: Sequence[Any]) -> None:
    out.table(
        ["task id", "name", "assignee", "candidate groups", "due"],
        [(t.id, t.name, t.assignee, ",".join(t.candidate_groups), when(t.due)) for t in found],
        empty="(no open tasks)",
    )


@app.command()
@click.argument("task_id")
@variables_option
def complete(task_id: str, var: tuple[str, ...]) -> None:
    """Complete a user task."""
    out = output()
    with open_engine() as engine:
        as_user(engine).complete_task(task_id, variables(var))
    if out.json:
        out.data({"completed": task_id})
    else:
        out.print(f"completed {task_id}")


@app.command()
@click.argument("key")
@variables_option
@click.option("--definition-id", help="evaluate this definition, not the latest version of KEY")
def decide(key: str, var: tuple[str, ...], definition_id: str | None) -> None:
    """Evaluate a deployed decision: print its result and the rules that matched.

    The evaluation is recorded in the log (and in the decision history at level full)."""
    out = output()
    with open_engine() as engine:
        user = as_user(engine)
        result = (
            user.evaluate_decision(definition_id=definition_id, variables=variables(var))
            if definition_id
            else user.evaluate_decision(key, variables(var))
        )
    if out.json:
        out.data(
            {
                "decisionInstanceId": result.decision_instance_id,
                "decisionDefinitionId": result.decision_definition_id,
                "result": result.values,
                "matchedRules": result.matched_rules,
            }
        )
        return
    names = list(dict.fromkeys(name for row in result.values for name in row))
    # one result row per rule, unless an aggregation folded several rules into one row
    by_rule = len(result.matched_rules) == len(result.values)
    out.table(
        (["rule"] if by_rule else []) + names,
        [
            ([rule] if by_rule else []) + [row.get(n) for n in names]
            for rule, row in zip(
                result.matched_rules if by_rule else [""] * len(result.values),
                result.values,
                strict=True,
            )
        ],
        title=f"decision {result.decision_definition_id}",
        empty="(no rule matched: the result is empty)",
    )
    if not by_rule:
        out.print(f"matched rules: {', '.join(result.matched_rules) or 'none'}")
    out.print(f"recorded as decision instance {result.decision_instance_id}")


# -- operating -------------------------------------------------------------------------------


@app.command("history-level")
@click.argument("level", required=False, type=click.Choice(["none", "activity", "audit", "full"]))
def history_level(level: str | None) -> None:
    """Show the history level, or rebuild history at another one (nothing is lost).

    With LEVEL, every table is rebuilt from the event log at LEVEL and the level recorded:
    raising it fills history for the past too. Stop other engines on the database first.
    """
    out = output()
    with open_engine(create=level is not None) as engine:
        before = engine.history_level
        report = None if level is None else engine.history_service.set_history_level(level)
    if out.json:
        out.data({"level": level or before, "before": before, "rebuild": report})
    elif report is None:
        out.print(before)
    else:
        out.print(
            f"history level {before} -> {level}: rebuilt from {report.commits:,} commits "
            f"({report.events:,} events, {report.rows_written:,} rows written)"
        )


@app.command()
def migrate() -> None:
    """Upgrade the database schema to the newest revision."""
    from flowledger import migrations

    out = output()
    with open_engine(create=True) as engine:  # opening an engine upgrades the schema and rebuilds
        rebuilt = engine.migration_rebuild
    revision = migrations.head_revision()
    if out.json:
        out.data({"revision": revision, "rebuilt": rebuilt})
        return
    out.print(f"database is at the newest schema revision ({revision})")
    if rebuilt is not None:
        out.print(
            f"the revisions applied changed projection tables: rebuilt {', '.join(rebuilt.tables)} "
            f"from {rebuilt.commits:,} commits"
        )


@app.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="address to bind")
@click.option("--port", type=int, default=8080, show_default=True)
@click.option("--users", metavar="FILE", help="users file: require sign-in or HTTP Basic auth")
@click.option("--insecure", is_flag=True, help="allow a non-loopback address without auth")
@click.option(
    "--history-mode",
    type=click.Choice(["inline", "async"]),
    default="inline",
    show_default=True,
    help="the older name of --projection async-history (async); kept for scripts that use it",
)
@click.option(
    "--projection",
    type=click.Choice(["inline", "deferred", "async-history"]),
    default=None,
    envvar="FLOWLEDGER_PROJECTION",
    help="where runtime and history rows are written: in each command (inline), behind the "
    "log in batches (deferred; every read still sees every write before it), or runtime rows "
    "in each command and history behind the log (async-history); default: as the database is "
    "(a new SQLite file: deferred; a new server database: inline)",
)
@click.option(
    "--signing-key",
    type=click.Path(dir_okay=False, path_type=Path),
    help="sign the log's tree head with this key (`audit keygen`) and publish it (--publish-heads)",
)
@click.option(
    "--publish-heads",
    metavar="FILE|nats://HOST:PORT/STREAM[/subject]",
    help="append a signed head to this file, or publish it to this NATS JetStream stream, at "
    "every --head-interval while the log grows",
)
@click.option(
    "--head-interval",
    type=click.FloatRange(min=1.0),
    default=300.0,
    show_default=True,
    metavar="SECONDS",
    help="seconds between published heads",
)
@click.option(
    "--export",
    "exports",
    multiple=True,
    metavar="[NAME=]URL",
    help="stream every committed event as CloudEvents to file:PATH, "
    "nats://HOST:PORT/STREAM[/subject.prefix] or https://HOST/PATH (on --http-allow); repeatable",
)
@click.option("--max-body-mb", type=int, default=16, show_default=True, help="body limit (MiB)")
@click.option(
    "--no-job-executor",
    is_flag=True,
    help="run no timers or asynchronous jobs here (another process runs them)",
)
@click.option(
    "--history-time-to-live",
    type=click.IntRange(min=0),
    metavar="DAYS",
    help="history kept after an instance ends, for models without camunda:historyTimeToLive",
)
@click.option(
    "--history-removal-time-strategy",
    type=click.Choice(["end", "start"]),
    default="end",
    show_default=True,
    help="when history's removal time is set: at the root instance's end, or at its start",
)
def serve(
    host: str,
    port: int,
    users: str | None,
    insecure: bool,
    history_mode: str,
    projection: str | None,
    signing_key: Path | None,
    publish_heads: str | None,
    head_interval: float,
    exports: tuple[str, ...],
    max_body_mb: int,
    no_job_executor: bool,
    history_time_to_live: int | None,
    history_removal_time_strategy: str,
) -> None:
    """Serve the Camunda REST API (engine-rest) over HTTP."""
    # Imported here: the other commands should not pay for loading the web stack.
    from flowledger.rest.auth import Users, require_private
    from flowledger.rest.server import check_binding
    from flowledger.rest.server import serve as serve_http

    accounts = None
    if users:
        require_private(users)  # before reading it, as ssh does a private key
        accounts = Users.load(users)
    check_binding(host, accounts, insecure)  # refuse before touching the database
    if (signing_key is None) != (publish_heads is None):
        raise click.UsageError("--signing-key and --publish-heads go together")
    from flowledger.engine.workers.exporters import TargetSpec

    try:
        for target in exports:
            TargetSpec.parse(target)  # refuse a bad target before serving
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--export") from None
    from flowledger.engine.workers import head_targets

    try:
        head_target = None if publish_heads is None else head_targets.parse(publish_heads)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--publish-heads") from None
    if signing_key is not None:
        from flowledger.eventlog import signed_heads

        try:
            signed_heads.load_private(signing_key)  # refuse a bad key before serving
        except signed_heads.KeyFileError as exc:
            raise click.ClickException(str(exc)) from None
    engine = open_engine(
        create=True,
        history_mode=history_mode,
        projection=projection,
        job_executor=not no_job_executor,
        history_time_to_live=history_time_to_live,
        history_removal_time_strategy=history_removal_time_strategy,
    )
    engine.start_projection_follower()  # a server is long-lived: no need to wait for load
    engine.start_tree_follower()  # proofs read O(log n) stored tiles, not the log
    if signing_key is not None and head_target is not None:
        engine.publish_heads(signing_key, head_target, every=head_interval)
    for target in exports:
        engine.start_exporter(target)
    try:
        serve_http(
            engine,
            host=host,
            port=port,
            users=accounts,
            insecure=insecure,
            max_body_bytes=max_body_mb * 1024 * 1024,
        )
    finally:
        engine.close()


@app.group("users")
def users_group() -> None:
    """Manage the users file of `serve --users`."""


@users_group.command("add")
@click.argument("name")
@click.option("--file", "file", required=True, metavar="FILE", help="the users file")
@click.option(
    "--group",
    "groups",
    multiple=True,
    metavar="GROUP",
    help="a group the user belongs to (repeat for more; replaces the user's groups)",
)
@click.option("--password-stdin", is_flag=True, help="read the password from stdin")
def users_add(name: str, file: str, groups: tuple[str, ...], password_stdin: bool) -> None:
    """Add or replace a user (password hashed with scrypt) and its groups."""
    from flowledger.rest.auth import add_user

    if password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(f"password for {name}: ")
    if not password:
        raise click.BadParameter("empty password")
    add_user(file, name, password, groups=groups)
    in_groups = f" in groups {', '.join(groups)}" if groups else ""
    print(f"user {name}{in_groups} written to {file}")


@users_group.command("list")
@click.option("--file", "file", required=True, metavar="FILE", help="the users file")
def users_list(file: str) -> None:
    """The users of the file and their groups (never their hashes)."""
    from flowledger.rest.auth import read_users_file

    entries = read_users_file(file)
    width = max((len(entry.name) for entry in entries), default=0)
    for entry in entries:
        print(f"{entry.name:<{width}}  {','.join(entry.groups) or '-'}".rstrip())


BENCH_FROM_SOURCE = (
    "the benchmark is not installed with flowledger: it runs from a source checkout, "
    "`pip install -e '.[bench]'` then `flowledger bench`"
)


@app.command(
    context_settings={"ignore_unknown_options": True, "help_option_names": []},
)
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED)
def bench(arguments: tuple[str, ...]) -> None:
    """Benchmark against SpiffWorkflow (source checkout only; `flowledger bench --help`)."""
    try:
        from flowledger.tools.bench import cli as bench_cli
    except ImportError:
        print(f"error: {BENCH_FROM_SOURCE}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        bench_cli.main(list(arguments))
    except SystemExit as exc:
        if exc.code:  # the benchmark's own parser and runs end in SystemExit, 0 when all ran
            raise


# -- entry point -----------------------------------------------------------------------------


_ready: list[click.Group] = []


def command() -> click.Group:
    """The command group, with the global options on it and on every subcommand."""
    if not _ready:
        from . import (  # noqa: F401  (they register on `app`)
            cli_audit,
            cli_exporters,
            cli_personal_data,
            cli_proofs,
        )

        app.params.extend(global_options(json_output=True))
        for name, sub in app.commands.items():
            if name in NO_GLOBALS:
                continue
            # A group's options go on its commands: `flowledger audit head --db URL`.
            commands = sub.commands.values() if isinstance(sub, click.Group) else [sub]
            for each in commands:
                each.params.extend(global_options(json_output=name in JSON_COMMANDS))
        _ready.append(app)
    return app


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        status = command().main(args=args, prog_name="flowledger", standalone_mode=False)
        sys.stdout.flush()
    except BrokenPipeError:
        # `flowledger events ID | head`: the reader has gone, which is not an error. Point stdout
        # at /dev/null so that the interpreter's own flush at exit does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(0) from None
    except click.ClickException as exc:
        exc.show()
        raise SystemExit(exc.exit_code) from None
    except click.Abort:
        print("aborted", file=sys.stderr)
        raise SystemExit(130) from None
    except (FlowledgerError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    except Exception as exc:
        _known_failure(exc)
        raise
    if isinstance(status, int) and status:
        raise SystemExit(status)


def _known_failure(exc: Exception) -> None:
    """Errors of `serve` and `users` that name their own cause: one line, no traceback."""
    from flowledger.rest.auth import UsersFileError, UsersFileExposed
    from flowledger.rest.server import ServeError

    if isinstance(exc, ServeError | UsersFileError):
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2 if isinstance(exc, UsersFileExposed) else 1) from None


if __name__ == "__main__":
    main()
