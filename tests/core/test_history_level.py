"""The history level: audit by default, recorded in the database, changed only by a rebuild.

Every history row can be rebuilt from the log, so raising the level later fills history for the
past: the rows are those the higher level would have written live.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

import flowledger.engine.commands.bus
from flowledger import ControllableClock, Engine, HistoryLevelMismatch
from flowledger.projections.tables import ACT_GE_PROPERTY, HISTORY_TABLES
from tests.projections.test_rebuild import NOT_IN_THE_WORKLOAD, capture, run_mixed_workload
from tests.support import bpmn, fresh_database, selected_kind, sql_rows

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def stored_level(url: str) -> list[tuple[object, ...]]:
    return sql_rows(url, "select NAME_, VALUE_ from ACT_GE_PROPERTY")


def run_instance(engine: Engine) -> str:
    engine.deploy(bpmn("pass_through_activities.bpmn"))
    pi = engine.start_process_instance("passThrough", {"n": 1})
    engine.runtime_service.set_variables(pi.id, {"n": 2})
    return pi.id


def test_a_new_database_keeps_history_at_camundas_default_audit(
    db_url: str, clock: ControllableClock
) -> None:
    with Engine(db_url, clock=clock) as engine:
        assert engine.history_level == "audit"
        pi = run_instance(engine)
        assert [v.value for v in engine.history_service.historic_variable_instances(pi)] == [2]
        assert engine.verify().problems == []
    assert stored_level(db_url) == [("historyLevel", "2")]  # Camunda's row and number
    assert sql_rows(db_url, "select count(*) from ACT_HI_DETAIL") == [(0,)]


def test_a_database_keeps_the_level_it_was_opened_with_first(
    db_url: str, clock: ControllableClock
) -> None:
    with Engine(db_url, clock=clock, history_level="full") as engine:
        pi = run_instance(engine)
    with Engine(db_url, clock=clock) as engine:  # no level asked: the recorded one
        assert engine.history_level == "full"
        engine.runtime_service.set_variables(pi, {"n": 3})
    assert sql_rows(db_url, "select count(*) from ACT_HI_DETAIL") == [(3,)]


def test_asking_for_another_level_is_refused_and_changes_nothing(
    db_url: str, clock: ControllableClock
) -> None:
    with Engine(db_url, clock=clock) as engine:
        run_instance(engine)
    before = {t.name: sql_rows(db_url, f"select count(*) from {t.name}") for t in HISTORY_TABLES}

    with pytest.raises(HistoryLevelMismatch) as refused:
        Engine(db_url, clock=clock, history_level="full")

    message = str(refused.value)
    assert "'audit'" in message and "'full'" in message
    assert "flowledger history-level full" in message
    assert stored_level(db_url) == [("historyLevel", "2")]
    assert {t.name: sql_rows(db_url, f"select count(*) from {t.name}") for t in HISTORY_TABLES} == (
        before
    )


def test_an_unknown_level_is_refused_before_anything_is_recorded(db_url: str) -> None:
    with pytest.raises(ValueError, match="unknown history level 'verbose'"):
        Engine(db_url, history_level="verbose")
    with Engine(db_url) as engine:
        assert engine.history_level == "audit"


def test_raising_audit_to_full_fills_the_past_as_full_would_have_written_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def run(level: str | None) -> tuple[str, dict[str, dict[object, dict[str, object]]]]:
        counter = itertools.count(1)
        monkeypatch.setattr(
            flowledger.engine.commands.bus,
            "uuid7",
            lambda: f"00000000-0000-7000-8000-{next(counter):012x}",
        )
        clock = ControllableClock(START)
        with fresh_database(selected_kind(), tmp_path) as url:
            with Engine(url, clock=clock, history_level=level) as engine:
                run_mixed_workload(engine, clock)
                if level is None:  # written at the default, audit: raise it now
                    assert engine.history_level == "audit"
                    assert capture(engine)["ACT_HI_DETAIL"] == {}
                    report = engine.history_service.set_history_level("full")
                    assert report.events > 0
                    assert engine.history_level == "full"
                tables = capture(engine)
                assert engine.verify().problems == []
            assert stored_level(url) == [("historyLevel", "3")]
            return url, tables

    _, raised = run(None)
    _, live = run("full")
    for table in HISTORY_TABLES:
        if table.name not in NOT_IN_THE_WORKLOAD:
            assert raised[table.name], f"{table.name} holds no rows: the workload misses it"
        assert raised[table.name] == live[table.name], table.name


def test_lowering_the_level_drops_the_rows_above_it_and_later_commands_follow(
    db_url: str, clock: ControllableClock
) -> None:
    with Engine(db_url, clock=clock, history_level="full") as engine:
        pi = run_instance(engine)
        engine.history_service.set_history_level("activity")
        assert sql_rows(db_url, "select count(*) from ACT_HI_VARINST") == [(0,)]
        assert sql_rows(db_url, "select count(*) from ACT_HI_DETAIL") == [(0,)]
        engine.runtime_service.set_variables(pi, {"n": 4})
        assert sql_rows(db_url, "select count(*) from ACT_HI_VARINST") == [(0,)]
        assert engine.events(pi)[-1].type == "VariableSet"  # the log keeps every change
        assert engine.verify().problems == []
    with Engine(db_url, clock=clock) as engine:
        assert engine.history_level == "activity"


def test_an_async_follower_switches_level_with_the_rebuild(
    db_url: str, clock: ControllableClock
) -> None:
    with Engine(db_url, clock=clock, history_mode="async") as engine:
        pi = run_instance(engine)
        engine.flush_history()
        assert sql_rows(db_url, "select count(*) from ACT_HI_DETAIL") == [(0,)]
        engine.history_service.set_history_level("full")
        engine.runtime_service.set_variables(pi, {"n": 5})
        engine.flush_history()
        assert sql_rows(db_url, "select count(*) from ACT_HI_DETAIL") == [(3,)]
        assert engine.verify().problems == []


def test_the_cli_shows_and_changes_the_level(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"

    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "flowledger", "--db", url, *args],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    cli("example")
    assert cli("history-level").strip() == "audit"
    details = sql_rows(url, "select count(*) from ACT_HI_DETAIL")[0][0]
    assert details == 0
    said = cli("history-level", "full")
    assert said.startswith("history level audit -> full: rebuilt from ")
    assert cli("history-level").strip() == "full"
    assert sql_rows(url, "select count(*) from ACT_HI_DETAIL")[0][0] > 0
    assert "OK:" in cli("verify")
    assert sql_rows(url, f"select VALUE_ from {ACT_GE_PROPERTY.name}") == [("3",)]
