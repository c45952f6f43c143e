"""The `flowledger` command line as the README writes it: global options on either side of the
subcommand, and output piped into a reader that stops early (`| head`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from flowledger import Engine
from flowledger.tools.cli import build_parser, main

INVOICE = Path(__file__).resolve().parents[2] / "tools" / "examples" / "invoice.bpmn"


@pytest.mark.parametrize(
    "argv",
    [
        ["--db", "sqlite:///a.db", "serve", "--port", "9"],
        ["serve", "--db", "sqlite:///a.db", "--port", "9"],
        ["serve", "--port", "9", "--db", "sqlite:///a.db"],
    ],
)
def test_the_database_may_be_named_before_or_after_the_subcommand(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)

    assert (args.command, args.db, args.port) == ("serve", "sqlite:///a.db", 9)


def test_an_option_after_the_subcommand_wins_over_one_before_it() -> None:
    args = build_parser().parse_args(["--db", "sqlite:///a.db", "tasks", "--db", "sqlite:///b.db"])

    assert args.db == "sqlite:///b.db"


def test_without_db_the_environment_or_the_default_applies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOWLEDGER_DB", "sqlite:///from-env.db")

    assert build_parser().parse_args(["tasks"]).db == "sqlite:///from-env.db"
    assert build_parser().parse_args(["tasks", "--allow-scripts"]).allow_scripts is True
    assert build_parser().parse_args(["--allow-scripts", "tasks"]).allow_scripts is True
    assert build_parser().parse_args(["tasks"]).allow_scripts is False


def test_deploy_with_db_after_the_subcommand_writes_that_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'after.db'}"

    main(["deploy", str(INVOICE), "--db", url])

    assert "invoice version 1" in capsys.readouterr().out
    with Engine(url) as engine:
        assert [d.key for d in engine.process_definitions()] == ["invoice"]


def test_output_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pipe.db'}"
    with Engine(url) as engine:
        engine.deploy(INVOICE)
        instance = engine.start_process_instance(
            "invoice", {"amount": 1250, "invoiceNumber": "INV-1"}, business_key="A"
        )
    # The reading end is closed before the command writes a byte, as when `head` has had enough.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "flowledger", "events", instance.id, "--db", url],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)

    assert done.returncode == 0
    assert done.stderr == ""
