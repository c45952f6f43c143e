"""The `flowledger` command group and what every subcommand shares: the global options (the
database, scripts, JSON output, what the engine may call out to), the engine they open, the
actor commands record. The commands themselves live in `cli.py` and `cli_audit.py`, which both
import this module; nothing here imports them.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from typing import Any

import click
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from flowledger.core.budget import COMMAND_SECONDS
from flowledger.engine import Engine
from flowledger.engine.outbound import (
    CONNECTORS,
    DEADLINE_SECONDS,
    MAX_RESPONSE_BYTES,
    OutboundPolicy,
)
from flowledger.engine.storage.database import is_memory_url

from .output import Output

DEFAULT_DB = "sqlite:///flowledger.db"
VIA_CLI = "cli"  # the channel recorded with every command the command line issues


@click.group(
    name="flowledger",
    context_settings={"help_option_names": ["-h", "--help"]},
)
def app() -> None:
    """An event-sourced BPMN engine that speaks Camunda 7."""


# -- global options --------------------------------------------------------------------------


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    """Keep a global option wherever it was given; a later one (after the subcommand) wins."""
    if value is not None and value is not False and value != () and param.name is not None:
        ctx.meta[f"flowledger.{param.name}"] = value


def global_options(*, json_output: bool) -> list[click.Option]:
    options = [
        click.Option(
            ["--db"],
            metavar="URL",
            expose_value=False,
            callback=_remember,
            help="SQLAlchemy database URL (default: $FLOWLEDGER_DB or sqlite:///flowledger.db)",
        ),
        click.Option(
            ["--allow-scripts"],
            is_flag=True,
            default=None,
            expose_value=False,
            callback=_remember,
            help="allow scriptFormat=python in models",
        ),
        click.Option(
            ["--connector"],
            type=click.Choice(sorted(CONNECTORS)),
            multiple=True,
            expose_value=False,
            callback=_remember,
            help="enable an outbound connector (http: camunda:connector http-connector); "
            "off by default",
        ),
        click.Option(
            ["--http-allow"],
            metavar="HOST[:PORT]",
            multiple=True,
            expose_value=False,
            callback=_remember,
            help="a host, *.pattern, address or network the http-connector may reach "
            "(loopback, private and metadata addresses only when named explicitly)",
        ),
        click.Option(
            ["--http-deadline"],
            type=click.FloatRange(min=0.1, max=600),
            metavar="SECONDS",
            expose_value=False,
            callback=_remember,
            help=f"one outbound call's total time [default: {DEADLINE_SECONDS:g}]",
        ),
        click.Option(
            ["--http-max-bytes"],
            type=click.IntRange(min=1),
            metavar="N",
            expose_value=False,
            callback=_remember,
            help=f"the largest answer an outbound call keeps [default: {MAX_RESPONSE_BYTES}]",
        ),
        click.Option(
            ["--command-budget"],
            type=click.FloatRange(min=0.01, max=3600),
            metavar="SECONDS",
            expose_value=False,
            callback=_remember,
            help="time the expressions, scripts and delegates of one command may spend "
            f"[default: {COMMAND_SECONDS:g}]",
        ),
    ]
    if json_output:
        options.append(
            click.Option(
                ["--json", "json_output"],
                is_flag=True,
                default=None,
                expose_value=False,
                callback=_remember,
                help="print JSON for tools instead of tables",
            )
        )
    return options


def setting(name: str) -> Any:
    return click.get_current_context().meta.get(f"flowledger.{name}")


def database_url() -> str:
    return str(setting("db") or os.environ.get("FLOWLEDGER_DB") or DEFAULT_DB)


def output() -> Output:
    return Output(json=bool(setting("json_output")))


class NoDatabase(click.ClickException):
    """A command that only reads (or works on what is already there) was pointed at a SQLite
    file that does not exist: opening it would create an empty database and report on that."""

    exit_code = 2  # a usage error, as Click's own


def missing_database(url: str) -> Path | None:
    """The file a SQLite URL names, when it does not exist; None for an existing file, an
    in-memory database, a URI filename and every server database (the server says so itself)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None  # the engine names a malformed URL itself
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or is_memory_url(url) or not database:
        return None
    if database == ":memory:" or database.startswith("file:"):
        return None
    path = Path(database).absolute()
    return None if path.exists() else path


def open_engine(*, create: bool = False, **options: Any) -> Engine:
    """The engine on the database the global options chose. Only commands that set a
    database up (`create`: serve, deploy, import, ...) may create a SQLite file; the others
    refuse a missing one, naming the path they looked for."""
    url = database_url()
    if not create and (path := missing_database(url)) is not None:
        raise NoDatabase(
            f"no database at {path} (run `flowledger serve` or `flowledger deploy` to create "
            "one, or pass --db URL or set FLOWLEDGER_DB to the database to use)"
        )
    return Engine(
        url,
        allow_scripts=bool(setting("allow_scripts")),
        outbound=outbound_policy(),
        command_budget_seconds=setting("command_budget") or COMMAND_SECONDS,
        **options,
    )


def outbound_policy() -> OutboundPolicy:
    """What the global options allow the engine to call: nothing, unless told."""
    try:
        return OutboundPolicy(
            connectors=frozenset(setting("connector") or ()),
            http_allow=tuple(setting("http_allow") or ()),
            deadline_seconds=setting("http_deadline") or DEADLINE_SECONDS,
            max_response_bytes=setting("http_max_bytes") or MAX_RESPONSE_BYTES,
        )
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--http-allow") from None


def as_user(engine: Engine) -> Engine:
    """A view whose commands record the operating-system user as their actor, via `cli`."""
    return engine.acting_as(_os_user(), via=VIA_CLI)


def _os_user() -> str | None:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a bare container)
        return None
