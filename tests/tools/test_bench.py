"""Smoke test of `flowledger bench`: every workload runs to its end on every system, tiny sizes.

No timing assertions: figures must exist, instances must complete, the reports must render.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from flowledger import Engine
from flowledger.tools import cli as flowledger_cli
from flowledger.tools.bench import cli as bench_cli
from flowledger.tools.bench import (
    contenders,
    durable_peer,
    peer,
    populated,
    report,
    rest_workload,
    suite,
    timing,
    workloads,
)
from flowledger.tools.bench import flowledger_runner as fl
from flowledger.tools.bench.errors import BenchError
from flowledger.tools.bench.model_generator import render
from flowledger.tools.bench.results import BenchReport, SystemResult, WorkloadResult

MODELS_DIR = Path(bench_cli.__file__).resolve().parent / "models"
PEER_MISSING = peer.missing_reason()

SYSTEM_KEYS = {
    "system",
    "mode",
    "label",
    "sqlite_synchronous",
    "history_level",
    "uncached",
    "available",
    "reason",
    "completed",
    "instances",
    "repetitions",
    "seconds",
    "cpu_s",
    "children_cpu_s",
    "instances_per_s",
    "us_per_activity",
    "cpu_us_per_instance",
    "children_cpu_us_per_instance",
    "cores",
    "history_catch_up_s",
    "history_backlog_events",
    "instances_per_s_with_catch_up",
    "cpu_us_per_instance_with_catch_up",
    "events_per_instance",
    "runtime_rows_per_instance",
    "history_rows_per_instance",
    "log_bytes_per_instance",
    "database_bytes_per_instance",
    "saves_per_instance",
    "serialized_state_bytes",
    "peak_memory_bytes",
    "ratio_vs_peer",
    "ratio_vs_durable_peer",
}
WORKLOAD_KEYS = {
    "name",
    "description",
    "instances",
    "model_activities",
    "activities_per_instance",
    "activities_source",
    "systems",
    "preloaded_finished",
    "preloaded_active",
}
MACHINE_KEYS = {"cpu_model", "nproc", "python", "sqlite", "spiffworkflow", "flowledger_commit"}
ENGINE_KEYS = {
    "append": {"batched_events_per_s", "single_commit_events_per_s", "event_bytes"},
    "rebuild": {"available", "reason", "events_per_s", "seconds", "events"},
    "replay": {"available", "events_per_s", "events", "workload"},
    "cold_start": {
        "available",
        "finished_instances",
        "active_instances",
        "construct_s",
        "first_query_s",
        "first_command_s",
        "total_s",
    },
    "variables": {"available", "reason", "points"},
}


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench_cli.add_arguments(parser)
    return parser.parse_args(list(argv))


FLOWLEDGER_MODES = {m.name for m in fl.MODES}
ALL_SYSTEMS = {("flowledger", m.name) for m in fl.MODES} | {
    ("spiffworkflow", m) for m in contenders.PEER_MODES
}
QUICK_POPULATED = (30, 5)  # --quick's --cold-finished and --cold-active


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bench-cache")


@pytest.fixture(scope="module")
def quick_report(cache_dir: Path) -> BenchReport:
    argv = ("--quick", "--cache-dir", str(cache_dir), "--populated", "usertask_gateway")
    settings = bench_cli.settings_from(_parse(*argv))
    return suite.run(settings, "flowledger bench --quick", show_progress=False)


def _empty_database_rows(report: BenchReport) -> list[WorkloadResult]:
    return [w for w in report.workloads if not w.preloaded_finished + w.preloaded_active]


def _by_name(report: BenchReport) -> dict[str, WorkloadResult]:
    return {w.name: w for w in _empty_database_rows(report)}


def _system(w: WorkloadResult, system: str, mode: str) -> SystemResult:
    found = w.result(system, mode)
    assert found is not None, (w.name, system, mode)
    return found


def test_quick_run_selects_the_base_workloads_and_a_short_scaling_ladder() -> None:
    settings = bench_cli.settings_from(_parse("--quick"))
    names = [w.name for w in settings.workloads]
    assert names == [*workloads.BASE, *workloads.QUICK_SCALING]
    assert settings.repeat == 1


def test_every_workload_completes_on_every_system(quick_report: BenchReport) -> None:
    assert suite.failures(quick_report) == []
    for w in quick_report.workloads:
        assert {(r.system, r.mode) for r in w.systems} == ALL_SYSTEMS
        has_user_task = w.name == "usertask_gateway"
        for r in w.systems:
            if r.system == "spiffworkflow" and PEER_MISSING is not None:
                assert not r.available
            elif r.uncached and not has_user_task:
                # nothing waits, so nothing can be found uncached: reported, not run
                assert not r.available
                assert r.reason is not None and "no user task" in r.reason
            elif r.system == "spiffworkflow":
                assert r.available and r.completed, (w.name, r.mode, r.reason)
                assert r.repetitions == 1
            else:
                # completed means: every instance reached COMPLETED in ACT_HI_PROCINST
                assert r.available and r.completed, (w.name, r.mode, r.reason)
                assert r.repetitions == 1
                assert r.events_per_instance and r.history_rows_per_instance
                assert r.log_bytes_per_instance and r.peak_memory_bytes
                assert r.runtime_rows_per_instance == 0  # every instance ended


def test_flowledger_counts_its_activities_from_history(quick_report: BenchReport) -> None:
    by_name = _by_name(quick_report)
    assert by_name["linear10"].activities_per_instance == 12
    assert by_name["usertask_gateway"].activities_per_instance == 6
    # Camunda writes one ACT_HI_ACTINST row per token arriving at a parallel join.
    assert by_name["parallel"].activities_per_instance == 15
    assert by_name["parallel"].model_activities == 12
    # start, the multi-instance body, its 50 inner instances, end
    assert by_name["mi50"].activities_source == "ACT_HI_ACTINST"
    assert by_name["mi50"].activities_per_instance == 53


def test_every_mode_runs_at_its_history_level_and_full_writes_more(
    quick_report: BenchReport,
) -> None:
    gateway = _by_name(quick_report)["usertask_gateway"]
    for mode in fl.MODES:
        r = _system(gateway, "flowledger", mode.name)
        # the level the engine recorded for the database, not merely the one asked for
        assert r.history_level == mode.history_level, mode.name
        assert r.sqlite_synchronous == mode.synchronous
    assert {m.history_level for m in fl.MODES} == {"audit", "full"}
    audit = _system(gateway, "flowledger", "sqlite-normal")
    full = _system(gateway, "flowledger", "sqlite-normal-full-history")
    assert audit.history_rows_per_instance and full.history_rows_per_instance
    # full adds the ACT_HI_DETAIL rows of every variable change; the log is the same
    assert full.history_rows_per_instance > audit.history_rows_per_instance
    assert full.events_per_instance == audit.events_per_instance


@pytest.mark.skipif(PEER_MISSING is not None, reason=str(PEER_MISSING))
def test_durable_peer_saves_its_json_at_each_wait_state_and_at_the_end(
    quick_report: BenchReport,
) -> None:
    by_name = _by_name(quick_report)
    for name, saves in (("usertask_gateway", 2), ("linear10", 1), ("parallel", 1)):
        durable = _system(by_name[name], "spiffworkflow", durable_peer.CACHED)
        assert durable.saves_per_instance == saves, name
        assert durable.sqlite_synchronous == "NORMAL"
        assert durable.database_bytes_per_instance and durable.database_bytes_per_instance > 0
        assert durable.serialized_state_bytes and durable.serialized_state_bytes > 0
        # the durable peer against the one in memory, and flowledger against both
        assert durable.ratio_vs_peer and durable.ratio_vs_peer > 0
        for mode in fl.MODES:
            r = _system(by_name[name], "flowledger", mode.name)
            if r.available:
                assert r.ratio_vs_peer and r.ratio_vs_peer > 0
                assert r.ratio_vs_durable_peer and r.ratio_vs_durable_peer > 0
    reloaded = _system(by_name["usertask_gateway"], "spiffworkflow", durable_peer.UNCACHED)
    assert reloaded.completed and reloaded.uncached
    assert reloaded.saves_per_instance == 2  # at the user task, and at the end


def test_uncached_completion_runs_where_a_user_task_waits(quick_report: BenchReport) -> None:
    by_name = _by_name(quick_report)
    uncached = _system(by_name["usertask_gateway"], "flowledger", "sqlite-normal-uncached")
    assert uncached.completed and uncached.uncached and uncached.repetitions == 1
    cached = _system(by_name["usertask_gateway"], "flowledger", "sqlite-normal")
    # the same instances leave the same log and history, cached or not
    assert uncached.events_per_instance == cached.events_per_instance
    assert uncached.history_rows_per_instance == cached.history_rows_per_instance
    linear = _system(by_name["linear10"], "flowledger", "sqlite-normal-uncached")
    assert not linear.available and linear.reason and "no user task" in linear.reason


def test_cpu_time_is_reported_next_to_wall_time_for_every_system(
    quick_report: BenchReport,
) -> None:
    for w in quick_report.workloads:
        for r in w.systems:
            if not r.repetitions:
                continue
            assert len(r.cpu_s) == len(r.seconds) == r.repetitions, (w.name, r.mode)
            assert all(cpu > 0 for cpu in r.cpu_s)
            assert len(r.children_cpu_s) == r.repetitions  # /proc is there on Linux
            assert all(cpu >= 0 for cpu in r.children_cpu_s)
            assert r.cpu_us_per_instance and r.cpu_us_per_instance.median > 0
            assert r.children_cpu_us_per_instance is not None
            assert r.cores and r.cores.median > 0
            if r.mode.startswith("async-history"):
                catch_up = r.cpu_us_per_instance_with_catch_up
                assert catch_up is not None
                assert catch_up.median >= r.cpu_us_per_instance.median
            else:
                assert r.cpu_us_per_instance_with_catch_up is None


def test_cpu_of_a_live_child_process_is_counted() -> None:
    # what the async-history follower is: a child process running while the timed part runs
    burn = (
        "import sys, time\n"
        "while time.process_time() < 0.3: pass\n"
        "print('done', flush=True)\n"
        "sys.stdin.read()\n"
    )
    watch = timing.Stopwatch()
    with watch.running():
        child = subprocess.Popen(
            [sys.executable, "-c", burn], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None and child.stdout.readline() == "done\n"
    assert child.stdin is not None
    child.stdin.close()
    child.wait()
    assert watch.children_cpu_s is not None and watch.children_cpu_s >= 0.25
    assert watch.cpu_s < watch.children_cpu_s  # the parent only waited


def test_populated_database_row_counts_only_what_the_run_added(
    quick_report: BenchReport, cache_dir: Path, tmp_path: Path
) -> None:
    rows = [w for w in quick_report.workloads if w.preloaded_finished + w.preloaded_active]
    assert [w.name for w in rows] == ["usertask_gateway"]
    on_populated, empty = rows[0], _by_name(quick_report)["usertask_gateway"]
    assert (on_populated.preloaded_finished, on_populated.preloaded_active) == QUICK_POPULATED
    assert on_populated.activities_per_instance == empty.activities_per_instance == 6
    for mode in fl.MODES:
        r = _system(on_populated, "flowledger", mode.name)
        assert r.completed and r.history_level == mode.history_level, (mode.name, r.reason)
        same = _system(empty, "flowledger", mode.name)
        assert r.events_per_instance == same.events_per_instance, mode.name
        assert r.history_rows_per_instance == same.history_rows_per_instance, mode.name
        assert r.runtime_rows_per_instance == 0
    if PEER_MISSING is None:
        durable = _system(on_populated, "spiffworkflow", durable_peer.CACHED)
        assert durable.completed and durable.saves_per_instance == 2
        assert _system(on_populated, "spiffworkflow", durable_peer.UNCACHED).completed
    # one database per history level, the level recorded in it; the peer's holds JSON rows
    finished, active = QUICK_POPULATED
    (audit,) = cache_dir.glob("cold-*-audit.db")
    (full,) = cache_dir.glob("cold-*-audit-as-full.db")  # its history rebuilt at level full
    for level, cached in (("audit", audit), ("full", full)):
        path = tmp_path / f"{level}.db"  # the cached files are never written to
        shutil.copyfile(cached, path)
        with Engine(f"sqlite:///{path}") as engine:
            assert engine.history_level == level
            assert len(engine.history_service.historic_process_instances(finished=True)) == finished
    if PEER_MISSING is None:
        peer_db = cache_dir / f"{populated.peer_key(finished, active)}.db"
        with closing(sqlite3.connect(peer_db)) as conn:
            assert conn.execute("SELECT count(*) FROM workflow").fetchone()[0] == finished + active


def test_runs_on_a_populated_database_leave_the_cached_file_unchanged(
    quick_report: BenchReport, cache_dir: Path, tmp_path: Path
) -> None:
    (cold,) = cache_dir.glob("cold-*-audit.db")
    digest = hashlib.sha256(cold.read_bytes()).hexdigest()
    before = fl.database_figures(cold)
    gateway = workloads.workload("usertask_gateway")
    run = fl.timed_run(gateway, fl.MODES[0], 2, tmp_path / "copy.db", cold, before)
    assert run.figures.completed == 2 and run.figures.instances == 2
    assert hashlib.sha256(cold.read_bytes()).hexdigest() == digest


def test_json_holds_every_figure(quick_report: BenchReport) -> None:
    saved = report.to_json(quick_report)
    assert report.from_json(saved) == quick_report  # --from-json renders exactly what ran
    data: dict[str, Any] = json.loads(saved)
    assert MACHINE_KEYS <= set(data["machine"])
    assert {"async_history", "flush_history", "rebuild_projections"} == set(data["features"])
    # the base workloads and the scaling ladder, then usertask_gateway on a populated database
    assert len(data["workloads"]) == len(workloads.BASE) + len(workloads.QUICK_SCALING) + 1
    assert data["format_version"] == 2
    assert data["settings"]["modes"] == list(suite.ALL_MODES)
    assert data["settings"]["populated"] == ["usertask_gateway"]
    for w in data["workloads"]:
        assert set(w) == WORKLOAD_KEYS
        assert {(s["system"], s["mode"]) for s in w["systems"]} == ALL_SYSTEMS
        for s in w["systems"]:
            assert set(s) == SYSTEM_KEYS
    for name, keys in ENGINE_KEYS.items():
        assert keys <= set(data["engine"][name]), name
    engine = data["engine"]
    assert engine["append"]["batched_events_per_s"]["median"] > 0
    assert engine["replay"]["events_per_s"]["median"] > 0
    assert engine["cold_start"]["available"], engine["cold_start"]["reason"]
    if PEER_MISSING is None:
        linear = next(w for w in data["workloads"] if w["name"] == "linear10")
        normal = next(s for s in linear["systems"] if s["mode"] == "sqlite-normal")
        assert normal["ratio_vs_peer"] > 0
        assert normal["ratio_vs_durable_peer"] > 0


def test_start_with_many_variables_is_measured_at_each_quick_size(
    quick_report: BenchReport,
) -> None:
    assert quick_report.engine is not None
    figures = quick_report.engine.variables
    assert figures is not None and figures.available, figures and figures.reason
    assert [p.variables for p in figures.points] == list(bench_cli.QUICK_VARIABLE_COUNTS)
    for point in figures.points:
        assert point.seconds is not None and point.us_per_variable is not None
        assert point.us_per_variable.median == pytest.approx(
            point.seconds.median * 1e6 / point.variables
        )
    assert quick_report.settings["variable_counts"] == list(bench_cli.QUICK_VARIABLE_COUNTS)
    text = report.markdown(quick_report)
    assert "| start with 1,000 variables |" in text and "µs/variable" in text


def test_variable_counts_are_chosen_on_the_command_line() -> None:
    settings = bench_cli.settings_from(_parse("--variable-counts", "10, 2_000"))
    assert settings.variable_counts == (10, 2000)
    assert bench_cli.settings_from(_parse()).variable_counts == (1_000, 5_000, 10_000)
    with pytest.raises(BenchError, match="--variable-counts: expected a number of at least 1"):
        bench_cli.settings_from(_parse("--variable-counts", "100,0"))


REST_KEYS = {
    "available",
    "reason",
    "completed",
    "workload",
    "clients",
    "instances",
    "repetitions",
    "seconds",
    "requests_per_s",
    "instances_per_s",
    "requests",
}


def test_rest_workload_runs_every_instance_to_its_end_over_http(
    quick_report: BenchReport,
) -> None:
    rest = quick_report.rest
    assert rest is not None
    # completed means: every instance reached COMPLETED in ACT_HI_PROCINST of the server's DB
    assert rest.available and rest.completed, rest.reason
    assert rest.workload == "usertask_gateway" and rest.repetitions == 1
    assert rest.instances == 16 and rest.clients == 8
    assert rest.requests_per_s is not None and rest.requests_per_s.median > 0
    assert rest.instances_per_s is not None and rest.instances_per_s.median > 0
    by_request = {f.request: f for f in rest.requests}
    assert list(by_request) == [*rest_workload.REQUESTS, "all requests"]
    for name in rest_workload.REQUESTS:
        assert by_request[name].count == 16  # one of each per instance
    assert by_request["all requests"].count == 48
    for f in rest.requests:
        assert f.p50_ms is not None and f.p99_ms is not None
        assert 0 < f.p50_ms.median <= f.p99_ms.median


def test_rest_figures_are_in_the_json(quick_report: BenchReport) -> None:
    data: dict[str, Any] = json.loads(report.to_json(quick_report))
    assert set(data["rest"]) == REST_KEYS
    assert {"request", "count", "p50_ms", "p99_ms"} == set(data["rest"]["requests"][0])
    assert data["settings"]["rest_instances"] == 16


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert rest_workload.percentile(values, 0.50) == 50
    assert rest_workload.percentile(values, 0.99) == 99
    assert rest_workload.percentile([7.0], 0.99) == 7
    assert rest_workload.percentile([3.0, 1.0, 2.0], 0.50) == 2


def test_variables_are_sent_typed_as_camunda_clients_do() -> None:
    assert rest_workload.typed({"amount": 150, "ok": True, "rate": 0.5, "name": "x"}) == {
        "amount": {"value": 150, "type": "Integer"},
        "ok": {"value": True, "type": "Boolean"},
        "rate": {"value": 0.5, "type": "Double"},
        "name": {"value": "x", "type": "String"},
    }
    assert rest_workload.typed({"big": 2**40})["big"]["type"] == "Long"


def test_reports_render(quick_report: BenchReport) -> None:
    text = report.markdown(quick_report)
    for heading in ("## Results", "### Machine", "### Instances per second", "### Engine-level"):
        assert heading in text
    assert "### REST API: usertask_gateway over HTTP" in text
    assert "POST /task/{id}/complete" in text
    assert "SpiffWorkflow has no REST API" in text  # why the peer has no REST figures
    terminal = report.terminal(quick_report)
    for shown in (text, terminal):
        assert "Instances per second" in shown
        assert "REST API" in shown
        # both history levels, both peers, the uncached variant, CPU and the populated row
        assert "| audit |" in text and "| full |" in text
        for figure in (
            "÷ Spiff in memory",
            "÷ Spiff + SQLite",
            "CPU µs/inst",
            "cores",
            "SpiffWorkflow + SQLite JSON, reloaded",
            "flowledger uncached",
            "flowledger async history",
            "usertask_gateway @35",
            "follower process",
            "saves/inst",
        ):
            assert figure in shown, figure


def test_modes_are_chosen_on_the_command_line() -> None:
    settings = bench_cli.settings_from(_parse("--modes", "sqlite-json, sqlite-normal"))
    assert settings.modes == ("sqlite-normal", "sqlite-json")  # in the suite's order
    assert bench_cli.settings_from(_parse()).modes == suite.ALL_MODES
    with pytest.raises(BenchError, match="--modes: unknown mode sqlite-turbo"):
        bench_cli.settings_from(_parse("--modes", "sqlite-normal,sqlite-turbo"))
    with pytest.raises(BenchError, match="unknown workload 'zigzag'"):
        bench_cli.settings_from(_parse("--populated", "zigzag"))


def test_cli_writes_json_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json, out_md = tmp_path / "bench.json", tmp_path / "bench.md"
    modes = "sqlite-normal-uncached,async-history,sqlite-json-uncached"
    flowledger_cli.main(
        [
            "bench",
            "--quick",
            "--quiet",
            "--workloads",
            "usertask_gateway",
            "--modes",
            modes,
            "--no-memory",
            "--skip-engine",
            "--skip-rest",
            "--json",
            str(out_json),
            "--markdown",
            str(out_md),
        ]
    )
    data = json.loads(out_json.read_text())
    assert [w["name"] for w in data["workloads"]] == ["usertask_gateway"]
    systems = [(s["system"], s["mode"]) for s in data["workloads"][0]["systems"]]
    assert systems == [
        ("flowledger", "sqlite-normal-uncached"),
        ("flowledger", "async-history"),
        ("spiffworkflow", "sqlite-json-uncached"),
    ]
    assert data["engine"] is None
    assert data["rest"] is None
    assert data["command"].startswith("flowledger bench --quick")
    assert "--skip-rest" in data["command"] and f"--modes {modes}" in data["command"]
    assert "usertask_gateway" in out_md.read_text()
    assert "Instances per second" in capsys.readouterr().out


def test_unknown_workload_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        flowledger_cli.main(["bench", "--workloads", "linear10,zigzag"])
    assert exit_info.value.code == 1
    assert "unknown workload 'zigzag'" in capsys.readouterr().err


def test_an_instance_left_waiting_is_reported_not_timed(tmp_path: Path) -> None:
    gateway = workloads.workload("usertask_gateway")
    never_completed = workloads.Workload(
        gateway.name, gateway.description, gateway.graph, gateway.start_variables, None
    )
    with pytest.raises(BenchError, match="0 of 2 instances reached COMPLETED"):
        fl.timed_run(never_completed, fl.MODES[0], 2, tmp_path / "waiting.db")


def test_shipped_models_are_the_generated_ones() -> None:
    for name in workloads.BASE:
        graph = workloads.workload(name).graph
        assert (MODELS_DIR / f"{name}.bpmn").read_bytes() == render(graph, "camunda"), name
        assert (MODELS_DIR / f"{name}.peer.bpmn").read_bytes() == render(graph, "peer"), name


def test_shipped_models_deploy(tmp_path: Path) -> None:
    with Engine(f"sqlite:///{tmp_path / 'models.db'}") as engine:
        for name in ("linear10", "usertask_gateway", "parallel", "mi50"):
            engine.deploy(MODELS_DIR / f"{name}.bpmn")
        assert len(engine.repository_service.process_definitions()) == 4


def test_the_decision_benchmark_table_decides_one_rule_per_input() -> None:
    from flowledger.core.dmn import evaluate_decision, parse_dmn
    from flowledger.tools.bench import decision_figures

    requirements = parse_dmn(decision_figures.table(100, "UNIQUE", None), "fees.dmn")
    outcome = evaluate_decision(requirements, "fee", {"category": "c7", "amount": 4750.5})
    assert outcome.result == [{"fee": 47}] and outcome.matched_rules == ["r47"]

    figures = decision_figures.measure(evaluations=20, repeat=1)
    assert figures["rules"] == 100
    for policy in ("UNIQUE", "FIRST", "COLLECT", "COLLECT SUM"):
        assert figures[policy]["evaluations_per_second"] > 0


def test_the_decision_benchmark_peer_decides_the_same() -> None:
    pytest.importorskip("SpiffWorkflow")
    from types import SimpleNamespace

    from lxml import etree
    from SpiffWorkflow.bpmn.script_engine import PythonScriptEngine
    from SpiffWorkflow.dmn.engine.DMNEngine import DMNEngine
    from SpiffWorkflow.dmn.parser.BpmnDmnParser import BpmnDmnParser

    from flowledger.tools.bench import decision_figures

    parser = BpmnDmnParser()
    parser.add_dmn_xml(etree.fromstring(decision_figures.peer_table(100, "UNIQUE")), "f.dmn")
    decision_parser = parser.dmn_parsers["fee"]
    decision_parser.parse()
    engine = DMNEngine(decision_parser.decision.decisionTables[0])
    task = SimpleNamespace(
        data={"category": "c7", "amount": 4750.5},
        workflow=SimpleNamespace(script_engine=PythonScriptEngine()),
    )
    assert dict(engine.result(task)) == {"fee": 47}
    peer = decision_figures.measure_peer(evaluations=10, repeat=1)
    assert peer is not None and peer["UNIQUE"]["evaluations_per_second"] > 0


def test_the_conditional_workload_completes_on_the_peer_after_its_last_update() -> None:
    spec = peer.parse(workloads.workload("conditional"))
    finished = peer.run_by_updates(spec, 3)
    assert [w.data["progress"] for w in finished] == [workloads.PROGRESS_THRESHOLD] * 3
    assert [w.data["count"] for w in finished] == [1, 1, 1]  # the task after the wait ran once


def test_the_peer_cannot_run_the_saga_and_says_so() -> None:
    spec, reason = contenders.parse_peer(workloads.workload("saga"), wanted=True)
    assert spec is None
    assert reason is not None and "boundaryEvent" in reason


def test_the_saga_model_has_a_compensation_handler_per_step() -> None:
    from lxml import etree

    xml = etree.fromstring(workloads.workload("saga").bpmn("camunda"))
    ns = {"b": "http://www.omg.org/spec/BPMN/20100524/MODEL"}
    handlers = xml.xpath("//b:serviceTask[@isForCompensation='true']/@id", namespaces=ns)
    assert handlers == [f"undo{i}" for i in range(1, workloads.SAGA_STEPS + 1)]
    boundaries = xml.xpath("//b:boundaryEvent[b:compensateEventDefinition]", namespaces=ns)
    assert [b.get("attachedToRef") for b in boundaries] == [
        f"step{i}" for i in range(1, workloads.SAGA_STEPS + 1)
    ]
    assert xml.xpath("//b:endEvent[b:compensateEventDefinition]/@id", namespaces=ns) == ["undo_all"]


@pytest.mark.parametrize(
    ("name", "waiting_type"),
    [("conditional", "intermediateConditional"), ("conditional_control", "userTask")],
)
def test_the_conditional_workloads_end_every_instance_on_flowledger(
    tmp_path: Path, name: str, waiting_type: str
) -> None:
    run = fl.timed_run(workloads.workload(name), fl.MODES[0], 3, tmp_path / "conditional.db")
    assert run.figures.completed == 3  # each waited through the five changes, then went on
    with closing(sqlite3.connect(tmp_path / "conditional.db")) as conn:
        rows = conn.execute(
            "SELECT ACT_TYPE_, COUNT(*) FROM ACT_HI_ACTINST WHERE ACT_ID_ = 'ready' "
            "AND END_TIME_ IS NOT NULL GROUP BY ACT_TYPE_"
        ).fetchall()
        progress = conn.execute(
            "SELECT DISTINCT LONG_ FROM ACT_HI_VARINST WHERE NAME_ = 'progress'"
        ).fetchall()
    assert rows == [(waiting_type, 3)]
    assert progress == [(workloads.PROGRESS_THRESHOLD,)]


def test_the_peer_runs_the_control_with_the_same_updates() -> None:
    spec = peer.parse(workloads.workload("conditional_control"))
    finished = peer.run_by_updates(spec, 2)
    assert [w.data["progress"] for w in finished] == [workloads.PROGRESS_THRESHOLD] * 2


def test_the_migrate_workload_moves_every_instance_to_version_2_on_both_systems(
    tmp_path: Path,
) -> None:
    workload = workloads.workload("migrate")
    run = fl.timed_run(workload, fl.MODES[0], 3, tmp_path / "migrate.db")
    assert run.figures.completed == 3
    with closing(sqlite3.connect(tmp_path / "migrate.db")) as conn:
        versions = conn.execute(
            "SELECT d.VERSION_, COUNT(*) FROM ACT_HI_PROCINST p "
            "JOIN ACT_RE_PROCDEF d ON d.ID_ = p.PROC_DEF_ID_ GROUP BY d.VERSION_"
        ).fetchall()
    assert versions == [(2, 3)]  # every instance ended on version 2
    spec = peer.parse(workload)
    finished = peer.run_instance(spec, 0)
    assert finished.spec is spec.spec_v2
