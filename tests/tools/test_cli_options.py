"""The `flowledger` command line as the README writes it: global options on either side of the
subcommand, and output piped into a reader that stops early (`| head`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flowledger import Engine
from flowledger.tools.cli import main

INVOICE = Path(__file__).resolve().parents[2] / "tools" / "examples" / "invoice.bpmn"


@pytest.mark.parametrize(
    "argv",
    [
        ["--db", "sqlite:///{dir}/a.db", "events", "{deployment}"],
        ["events", "--db", "sqlite:///{dir}/a.db", "{deployment}"],
        ["events", "{deployment}", "--db", "sqlite:///{dir}/a.db"],
    ],
)
def test_the_database_may_be_named_before_or_after_the_subcommand(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Engine(f"sqlite:///{tmp_path / 'a.db'}") as engine:
        deployment = engine.deploy(INVOICE)
    args = [a.format(dir=tmp_path, deployment=deployment.id) for a in argv]

    main(args)

    assert "DeploymentCreated" in capsys.readouterr().out


def test_an_option_after_the_subcommand_wins_over_one_before_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    with Engine(b) as engine:
        engine.deploy(INVOICE)

    main(["--db", a, "deploy", str(INVOICE), "--db", b, "--json"])

    with Engine(b) as engine:
        assert [d.version for d in engine.repository_service.process_definitions()] == [1, 2]
    with Engine(a) as engine:
        assert engine.repository_service.process_definitions() == []


def test_without_db_the_environment_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'from-env.db'}"
    monkeypatch.setenv("FLOWLEDGER_DB", url)

    main(["deploy", str(INVOICE)])

    with Engine(url) as engine:
        assert [d.key for d in engine.repository_service.process_definitions()] == ["invoice"]


def test_json_and_allow_scripts_go_on_either_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'j.db'}"
    main(["migrate", "--db", url])  # `tasks` reads: the database must exist
    capsys.readouterr()
    main(["--json", "--db", url, "tasks"])
    assert json.loads(capsys.readouterr().out) == []
    main(["tasks", "--db", url, "--json", "--allow-scripts"])
    assert json.loads(capsys.readouterr().out) == []


def test_a_bad_option_is_a_usage_error_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["tasks", "--no-such-option"])

    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "No such option '--no-such-option'" in err
    assert "Traceback" not in err


def test_shell_completion_lists_the_subcommands(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "_FLOWLEDGER_COMPLETE": "bash_complete",
        "COMP_WORDS": "flowledger re",
        "COMP_CWORD": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "flowledger"], env=env, capture_output=True, text=True, timeout=60
    )

    assert "replay" in done.stdout


def test_deploy_with_db_after_the_subcommand_writes_that_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'after.db'}"

    main(["deploy", str(INVOICE), "--db", url])

    assert "invoice version 1" in capsys.readouterr().out
    with Engine(url) as engine:
        assert [d.key for d in engine.repository_service.process_definitions()] == ["invoice"]


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
