"""A SQLite database that does not exist: the commands that only read, or work on what is
already there, refuse it naming the path they looked for (exit 2) and create nothing; only the
commands that set a database up create one."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowledger.tools.cli import main

INVOICE = Path(__file__).resolve().parents[2] / "tools" / "examples" / "invoice.bpmn"
SOME_ID = "00000000-0000-0000-0000-000000000000"

REFUSING = [
    ["verify"],
    ["head"],
    ["events", SOME_ID],
    ["history", SOME_ID],
    ["replay", SOME_ID],
    ["why", SOME_ID, "1"],
    ["export", SOME_ID, "-o", "{dir}/package.zip"],
    ["tasks"],
    ["start", "invoice"],
    ["complete", SOME_ID],
    ["decide", "dish"],
    ["history-level"],
    ["rebuild", "--projection", "history"],
    ["cleanup"],
]


@pytest.mark.parametrize("argv", REFUSING, ids=[" ".join(a[:1]) for a in REFUSING])
def test_a_command_that_needs_a_database_refuses_a_missing_file(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "flowledger.db"
    args = [a.format(dir=tmp_path) for a in argv] + ["--db", f"sqlite:///{missing}"]

    with pytest.raises(SystemExit) as exited:
        main(args)

    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert f"no database at {missing}" in error
    assert "--db" in error
    assert not missing.exists()
    assert list(tmp_path.iterdir()) == []


def test_the_default_database_is_looked_for_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FLOWLEDGER_DB", raising=False)

    with pytest.raises(SystemExit) as exited:
        main(["verify"])

    assert exited.value.code == 2
    assert f"no database at {tmp_path / 'flowledger.db'}" in capsys.readouterr().err
    assert not (tmp_path / "flowledger.db").exists()


def test_deploy_creates_the_database_and_then_verify_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "new.db"
    url = f"sqlite:///{db}"

    main(["deploy", str(INVOICE), "--db", url])
    assert db.exists()

    main(["verify", "--db", url])
    assert "OK" in capsys.readouterr().out.upper()


@pytest.mark.parametrize("argv", [["migrate"], ["history-level", "full"]])
def test_commands_that_set_a_database_up_create_it(argv: list[str], tmp_path: Path) -> None:
    db = tmp_path / "set-up.db"

    main([*argv, "--db", f"sqlite:///{db}"])

    assert db.exists()


def test_an_in_memory_database_is_never_refused(capsys: pytest.CaptureFixture[str]) -> None:
    main(["tasks", "--db", "sqlite://", "--json"])

    assert capsys.readouterr().out.strip() == "[]"
