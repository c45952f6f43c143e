"""The auditor's and debugger's commands: an instance's timeline, its events, its state at any
point (and what changed between two), why an event happened, the log's anchor and verify.
Registered on `tools.cli.app`.
"""

from __future__ import annotations

import base64
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import click
import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from flowledger.core.instance_view import InstanceView, diff
from flowledger.core.views import PackageSummary
from flowledger.engine import Engine
from flowledger.eventlog import signed_heads
from flowledger.eventlog.proofs import TreeHead

from .cli_app import app, as_user, open_engine, output
from .cli_proofs import parse_head, published_heads, signed_by_any
from .output import Output, when
from .render import compact, diff_table, instance_panel, print_timeline, who

instance_argument = click.argument("instance")
_ANCHOR = re.compile(r"\b(\d+:[0-9a-fA-F]{64})\b")


@app.command()
@instance_argument
def history(instance: str) -> None:
    """What happened to an instance: when, where, who, and which variables changed."""
    out = output()
    with open_engine() as engine:
        entries = engine.audit_service.timeline(instance)
    if out.json:
        out.data(entries)
    else:
        print_timeline(out, instance, entries)


@app.command()
@click.argument("stream")
def events(stream: str) -> None:
    """Every recorded event of an instance or deployment, with who issued it."""
    out = output()
    with open_engine() as engine:
        found = engine.events(stream)
    if out.json:
        out.data(found)
        return
    out.table(
        ["position", "version", "event", "command", "who", "facts"],
        [
            (
                e.position,
                e.stream_version,
                e.type,
                e.command_type,
                who(e.actor, e.via),
                _facts(e.payload),
            )
            for e in found
        ],
    )


_FACTS = ("activity_id", "name", "task_id", "value", "flow_id", "error_code", "reason", "worker_id")


def _facts(payload: dict[str, Any]) -> str:
    parts = [f"{k}={compact(payload[k])}" for k in _FACTS if payload.get(k) is not None]
    return " ".join(parts)


def point(text: str) -> tuple[int | None, datetime | None]:
    """`--at 42` is a log position; `--at 2026-12-04T10:00:00Z` a moment (UTC unless it says)."""
    if text.isascii() and text.isdigit():
        return int(text), None
    try:
        return None, datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is neither a log position (a whole number) nor an ISO 8601 timestamp "
            "such as 2026-12-04T10:00:00Z",
            param_hint="--at",
        ) from None


@app.command()
@instance_argument
@click.option("--at", metavar="POSITION|TIMESTAMP", help="as it was then (default: now)")
@click.option("--until", type=int, hidden=True, help="the same as --at POSITION")
@click.option(
    "--diff", "diff_points", nargs=2, metavar="A B", help="what changed between two points"
)
@click.option("--step", is_flag=True, help="walk the events forwards and backwards (a terminal)")
def replay(
    instance: str,
    at: str | None,
    until: int | None,
    diff_points: tuple[str, str] | None,
    step: bool,
) -> None:
    """An instance as it was at a point of the log: activities, tasks, variables, jobs..."""
    out = output()
    with open_engine() as engine:
        if step:
            _step(out, engine, instance)
            return
        if diff_points is not None:
            a, b, changes = engine.audit_service.diff(
                instance, _point_args(diff_points[0]), _point_args(diff_points[1])
            )
            if out.json:
                out.data({"a": a.position, "b": b.position, "changes": changes})
            else:
                out.print(diff_table(changes, a=a.position, b=b.position))
            return
        then = engine.audit_service.state_at(
            instance, **_point_args(at if until is None else str(until))
        )
    view = then.view()
    if out.json:
        out.data(
            {
                "position": then.position,
                "recorded_at": then.recorded_at,
                "view": view,
                "state": msgspec.to_builtins(then.state),
            }
        )
    else:
        out.print(instance_panel(view, position=then.position, recorded_at=then.recorded_at))


def _point_args(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    position, moment = point(text)
    return {"position": position} if position is not None else {"moment": moment}


def _step(out: Output, engine: Engine, instance: str) -> None:
    if not (out.out.is_terminal and sys.stdin.isatty()):
        raise click.BadParameter("--step needs a terminal; use --at or --diff", param_hint="--step")

    def ask() -> str:
        return str(click.prompt("[n]ext, [p]revious, a position, [q]uit", default="n"))

    step_through(out, engine, instance, ask)


def step_through(out: Output, engine: Engine, instance: str, ask: Callable[[], str]) -> None:
    """Show the instance after each of its events in turn, and what that event changed:
    n (or nothing) goes forwards, p backwards, a position jumps there, q ends."""
    recorded = engine.events(instance)
    positions = [e.position for e in recorded]
    index = 0
    shown: tuple[int, InstanceView] | None = None
    while True:
        then = engine.audit_service.state_at(instance, position=positions[index])
        view = then.view()
        if out.out.is_terminal:
            out.out.clear()
        event = recorded[index]
        out.print(
            f"event {index + 1} of {len(positions)} at position {event.position}: {event.type} "
            f"({event.command_type} by {who(event.actor, event.via) or 'nobody recorded'})"
        )
        out.print(instance_panel(view, position=then.position, recorded_at=then.recorded_at))
        if shown is not None:
            out.print(diff_table(diff(shown[1], view), a=shown[0], b=then.position))
        shown = (then.position, view)
        answer = ask().strip().lower()
        if answer == "q":
            return
        if answer == "p":
            index = max(index - 1, 0)
        elif answer.isdigit() and int(answer) in positions:
            index = positions.index(int(answer))
        else:
            index = min(index + 1, len(positions) - 1)


@app.command()
@instance_argument
@click.argument("position", type=int)
def why(instance: str, position: int) -> None:
    """Follow an event back: the command that wrote it, who issued it, what it acted on, and
    the conditions that chose its path, with the values they read then."""
    out = output()
    with open_engine() as engine:
        chain = engine.audit_service.why(instance, position)
    if out.json:
        out.data(chain)
        return
    out.table(
        ["position", "time", "command", "who", "acted on", "events"],
        [
            (
                c.position,
                when(c.recorded_at),
                c.command_type,
                who(c.actor, c.via),
                c.because_of,
                ", ".join(c.events),
            )
            for c in chain
        ],
        title=f"why position {position} of process instance {instance}",
    )
    conditions = [(c.position, check) for c in chain for check in c.conditions]
    if conditions:
        out.table(
            ["position", "gateway", "flow", "condition", "result", "read"],
            [
                (
                    at,
                    check.gateway_id,
                    check.flow_id,
                    check.expression,
                    str(check.result).lower() if isinstance(check.result, bool) else check.result,
                    ", ".join(
                        f"{name}={compact(value)}" for name, value in check.variables.items()
                    ),
                )
                for at, check in conditions
            ],
            title="conditions that chose the path (evaluated again on the state of then)",
        )


@contextmanager
def phase_progress(
    out: Output,
) -> Iterator[tuple[Callable[[str, int], None], Callable[[int, int], None]]]:
    """A Rich progress bar per verify phase on stderr (a terminal only): `phase(name, total)`
    starts the next bar, `progress(done, total)` moves the current one."""
    bar = Progress(
        TextColumn("{task.description:<7}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=out.err,
        transient=False,
        disable=not out.err.is_terminal,
    )
    current: list[TaskID] = []

    def phase(name: str, total: int) -> None:
        if current:
            task = bar.tasks[-1]
            bar.update(current[-1], completed=task.total)
        current.append(bar.add_task(name, total=total))

    def progress(done: int, total: int) -> None:
        if not current:
            phase("verify", total)
        bar.update(current[-1], completed=done, total=total)

    with bar:
        yield phase, progress


def trusted_head(text: str, key_files: tuple[Path, ...] = ()) -> TreeHead:
    """--since-head: SIZE:ROOT, a file holding it, or a signed head's file (its signature
    checked with --key; read unchecked, with a warning, without one)."""
    path = Path(text)
    if not path.is_file():
        size, root = parse_head(text, "--since-head")
        if root is None:
            raise click.BadParameter("a head needs its root: SIZE:ROOT", param_hint="--since-head")
        return TreeHead(size=size, root=root, position=0)
    note = path.read_text(errors="replace")
    if key_files:
        try:
            publics = [signed_heads.load_public(k) for k in key_files]
            return signed_by_any(note, publics).head
        except (signed_heads.KeyFileError, signed_heads.HeadError) as exc:
            raise click.ClickException(f"{path}: {exc}") from None
    lines = note.strip().splitlines()
    if len(lines) == 1:
        return trusted_head(lines[0])
    try:
        size, root = int(lines[1]), base64.b64decode(lines[2], validate=True).hex()
    except (IndexError, ValueError):
        raise click.BadParameter(
            f"{path} holds neither SIZE:ROOT nor a signed head", param_hint="--since-head"
        ) from None
    output().err.print(f"warning: the signature of {path} is not checked (no --key)")
    return TreeHead(size=size, root=root, position=0)


def anchor_from(text: str) -> str:
    """An anchor as given: `POSITION:DIGEST`, or a file holding what `head` printed."""
    if _ANCHOR.fullmatch(text.strip()):
        return text.strip()
    path = Path(text)
    if not path.is_file():
        raise click.BadParameter(
            f"{text!r} is neither POSITION:DIGEST nor a file holding one", param_hint="--against"
        )
    found = _ANCHOR.search(path.read_text(errors="replace"))
    if found is None:
        raise click.BadParameter(
            f"{text} holds no POSITION:DIGEST anchor (what `flowledger head` prints)",
            param_hint="--against",
        )
    return found.group(1)


@app.command()
def head() -> None:
    """Print the log's anchor (POSITION:DIGEST) to keep outside the database."""
    out = output()
    with open_engine() as engine, out.progress("reading the log") as progress:
        found = engine.audit_service.head(progress)
    if out.json:
        out.data(found)
    else:
        out.print(found.anchor)
        for problem in found.problems:
            out.err.print(f"PROBLEM {problem}")
    if found.problems:
        raise click.exceptions.Exit(2)


@app.command()
@click.option(
    "--against",
    "--expect-anchor",
    "against",
    metavar="ANCHOR",
    help="an anchor `head` printed earlier (or a file holding it): the log up to it must be "
    "unchanged",
)
@click.option(
    "--against-published",
    "published",
    metavar="FILE|nats://HOST:PORT/STREAM[/subject]",
    help="a file (`audit publish`) or NATS stream (`serve --publish-heads`) of signed heads: "
    "the log must still extend every one",
)
@click.option(
    "--key",
    "key_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="a public key the published heads are checked with (repeat it for each key the log was "
    "signed with: `flowledger audit keys` lists them)",
)
@click.option("--instance", metavar="ID", help="only this process instance (quick)")
@click.option(
    "--since-head",
    "since",
    metavar="SIZE:ROOT|FILE",
    help="incremental: a tree head trusted from earlier (or a signed head's file; --key checks "
    "its signature): its commits are checked by its root, only the later ones fully",
)
def verify(
    against: str | None,
    published: str | None,
    key_files: tuple[Path, ...],
    instance: str | None,
    since: str | None,
) -> None:
    """Check hash chains, the command log, replay == live state, and rebuilt tables == live;
    print each phase's time (chains and the tree, replay, tables)."""
    out = output()
    anchor = None if against is None else anchor_from(against)
    signed = [] if published is None else published_heads(published, key_files)
    heads = [s.head for s in signed]
    since_head = None if since is None else trusted_head(since, key_files)
    with open_engine() as engine, phase_progress(out) as (phase, progress):
        report = engine.audit_service.verify(
            expect_anchor=anchor,
            progress=progress,
            instance=instance,
            since_head=since_head,
            phase=phase,
        )
        if heads:
            found = engine.audit_service.check_published(heads)
            found += engine.audit_service.check_signers(
                [(s.head.size, s.key_name, s.key_hash) for s in signed]
            )
            report = msgspec.structs.replace(report, problems=[*report.problems, *found])
    if out.json:
        out.data(report)
    else:
        out.print(
            f"{report.commits_checked} commits, {report.streams_checked} instances replayed, "
            f"{report.rows_compared} table rows compared"
        )
        # Kept outside the database, the anchor lets a later `verify --against` see a log
        # rewritten consistently (every hash recomputed), which no check inside it can.
        if report.anchor:
            out.print(f"anchor {report.anchor}")
        if report.root:
            out.print(f"tree head {report.root}")
        for p in report.phases:
            rate = f", {p.events / p.seconds:,.0f} events/s" if p.events and p.seconds else ""
            rows = f", {p.rows:,} rows" if p.rows else ""
            out.print(f"  {p.name}: {p.seconds:.2f} s ({p.commits:,} commits{rows}{rate})")
        if report.since_head:
            out.print(
                f"incremental from {report.since_head}: its commits checked by their root, the "
                "later ones fully; no replay, no table comparison"
            )
        if report.ok and report.since_head:
            out.print("OK: the head's root holds, later hash chains and command log intact")
        elif report.ok:
            out.print(
                "OK: hash chains and command log intact, replay == live state, "
                "rebuilt tables == live tables"
            )
        for problem in report.problems:
            out.print(f"PROBLEM {problem}")
    if not report.ok:
        raise click.exceptions.Exit(2)


@app.command("export")
@instance_argument
@click.option(
    "-o",
    "--output",
    "target",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="the package file to write",
)
@click.option(
    "--head-size",
    type=click.IntRange(min=1),
    help="prove the commits in the log's tree of this many commits (a head published earlier) "
    "instead of the tree of every commit now",
)
@click.option(
    "--signing-key",
    type=click.Path(dir_okay=False, path_type=Path),
    help="sign the head the commits are proven in now (`audit keygen`); the package carries it",
)
def export_package(
    instance: str, target: Path, head_size: int | None, signing_key: Path | None
) -> None:
    """Write an instance's audit package: commits with hashes, commands, definitions, and each
    commit's inclusion proof in the log's Merkle tree (checked on import against a head you got
    from elsewhere: `import --head`, `audit check PACKAGE --head`)."""
    out = output()
    key = None if signing_key is None else _private_key(signing_key)
    with open_engine() as engine:
        summary = as_user(engine).audit_service.export_instance(
            instance,
            target,
            head_size=head_size,
            signing_key=key,
            key_name="flowledger" if signing_key is None else signed_heads.key_name(signing_key),
        )
    _package_summary(out, summary, "wrote")


def _private_key(path: Path) -> Ed25519PrivateKey:
    try:
        return signed_heads.load_private(path)
    except signed_heads.KeyFileError as exc:
        raise click.ClickException(str(exc)) from None


@app.command("import")
@click.argument("package", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--head",
    "trusted",
    metavar="SIZE:ROOT|FILE",
    help="a tree head of the exporting log you got from elsewhere (or a signed head's file, "
    "checked with --key): every commit must be proven in it",
)
@click.option(
    "--key",
    "key_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="the public key a signed --head is checked with",
)
def import_package(package: Path, trusted: str | None, key_files: tuple[Path, ...]) -> None:
    """Load an audit package (every hash and inclusion proof checked first) into the database
    (--db)."""
    out = output()
    head = None if trusted is None else trusted_head(trusted, key_files)
    # An auditor loads a package into a database of its own: the one place it may be new.
    with open_engine(create=True) as engine:
        summary = engine.audit_service.import_package(package, trusted=head)
    _package_summary(out, summary, "imported")


def _package_summary(out: Output, summary: PackageSummary, verb: str) -> None:
    if out.json:
        out.data(summary)
        return
    subject = "the whole log" if summary.subject == "log" else f"process instance {summary.subject}"
    out.print(
        f"{verb} {summary.path}: {subject}, {summary.commits} commits "
        f"of {len(summary.streams)} streams (positions {summary.first_position}.."
        f"{summary.last_position}), {summary.commands} commands; exported by flowledger "
        f"{summary.engine_version}"
    )
    if summary.tree_head is not None:
        out.print(f"proven in the exporting log's tree {summary.tree_head}")


@app.command()
@click.option(
    "--projection",
    type=click.Choice(["runtime", "history", "all"]),
    default="all",
    show_default=True,
    help="which tables to rebuild",
)
@click.option(
    "--history-level",
    type=click.Choice(["none", "activity", "audit", "full"]),
    help="build history at this level (and record it): raising it fills the past",
)
@click.option("--batch-events", type=click.IntRange(min=1), default=20_000, show_default=True)
@click.option("--drop-old", is_flag=True, help="only drop the old_ tables earlier rebuilds kept")
def rebuild(projection: str, history_level: str | None, batch_events: int, drop_old: bool) -> None:
    """Rebuild projection tables from the log while commands go on, then swap them in.

    Interrupted, it goes on from its checkpoint when run again with the same options. The
    replaced rows stay in old_<table> tables until `rebuild --drop-old`.
    """
    out = output()
    with open_engine() as engine:
        if drop_old:
            dropped = engine.audit_service.drop_old_tables()
            if out.json:
                out.data({"dropped": dropped})
            else:
                out.print(
                    f"dropped {len(dropped)} tables"
                    + (": " + ", ".join(dropped) if dropped else "")
                )
            return
        with out.progress(f"rebuild {projection}") as progress:
            report = engine.audit_service.rebuild(
                projection,
                history_level=history_level,
                progress=progress,
                batch_events=batch_events,
            )
    if out.json:
        out.data(report)
        return
    resumed = f", going on from position {report.resumed_from}" if report.resumed_from else ""
    out.print(
        f"rebuilt {len(report.tables)} tables from {report.commits:,} commits "
        f"({report.events:,} events, {report.rows_written:,} rows){resumed}; the replaced rows "
        "are kept in old_<table> until `flowledger rebuild --drop-old`"
    )


@app.command()
@click.option("--batch-size", type=click.IntRange(min=1), default=500, show_default=True)
def cleanup(batch_size: int) -> None:
    """Remove the history of instances, and of decisions evaluated over the API, whose removal
    time has passed (historyTimeToLive).

    Each removal is a command in the log: the events stay, and a rebuild leaves them removed.
    """
    out = output()
    with open_engine() as engine:
        report = as_user(engine).history_service.cleanup_history(batch_size=batch_size)
    if out.json:
        out.data(report)
    else:
        out.print(
            f"removed the history of {report.removed} instances and "
            f"{report.decisions_removed} decision evaluations due by {when(report.at)}"
        )
