"""Smoke test of `flowledger bench`: every workload runs to its end on every system, tiny sizes.

No timing assertions: figures must exist, instances must complete, the reports must render.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from flowledger import Engine, FlowledgerError
from flowledger.tools import cli as flowledger_cli
from flowledger.tools.bench import cli as bench_cli
from flowledger.tools.bench import flowledger_runner as fl
from flowledger.tools.bench import peer, report, rest_workload, suite, workloads
from flowledger.tools.bench.errors import BenchError
from flowledger.tools.bench.model_generator import render
from flowledger.tools.bench.results import BenchReport

MODELS_DIR = Path(bench_cli.__file__).resolve().parent / "models"
PEER_MISSING = peer.missing_reason()

SYSTEM_KEYS = {
    "system",
    "mode",
    "available",
    "reason",
    "completed",
    "instances",
    "repetitions",
    "seconds",
    "instances_per_s",
    "us_per_activity",
    "history_catch_up_s",
    "history_backlog_events",
    "instances_per_s_with_catch_up",
    "events_per_instance",
    "runtime_rows_per_instance",
    "history_rows_per_instance",
    "log_bytes_per_instance",
    "database_bytes_per_instance",
    "serialized_state_bytes",
    "peak_memory_bytes",
    "ratio_vs_peer",
}
WORKLOAD_KEYS = {
    "name",
    "description",
    "instances",
    "model_activities",
    "activities_per_instance",
    "activities_source",
    "systems",
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


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory: pytest.TempPathFactory) -> BenchReport:
    cache = tmp_path_factory.mktemp("bench-cache")
    settings = bench_cli.settings_from(_parse("--quick", "--cache-dir", str(cache)))
    return suite.run(settings, "flowledger bench --quick", show_progress=False)


def test_quick_run_selects_the_base_workloads_and_a_short_scaling_ladder() -> None:
    settings = bench_cli.settings_from(_parse("--quick"))
    names = [w.name for w in settings.workloads]
    assert names == [*workloads.BASE, *workloads.QUICK_SCALING]
    assert settings.repeat == 1


def test_every_workload_completes_on_every_system(quick_report: BenchReport) -> None:
    assert suite.failures(quick_report) == []
    for w in quick_report.workloads:
        for r in w.systems:
            if r.system == "spiffworkflow":
                if PEER_MISSING is None:
                    assert r.available and r.completed, (w.name, r.reason)
                    assert r.repetitions == 1
                else:
                    assert not r.available
            elif w.name.startswith("mi"):
                # multi-instance is refused at deploy, naming the element: reported, not run
                assert not r.available
                assert r.reason is not None and "multi-instance" in r.reason
            else:
                # completed means: every instance reached COMPLETED in ACT_HI_PROCINST
                assert r.available and r.completed, (w.name, r.mode, r.reason)
                assert r.repetitions == 1
                assert r.events_per_instance and r.history_rows_per_instance
                assert r.log_bytes_per_instance and r.peak_memory_bytes
                assert r.runtime_rows_per_instance == 0  # every instance ended


def test_flowledger_counts_its_activities_from_history(quick_report: BenchReport) -> None:
    by_name = {w.name: w for w in quick_report.workloads}
    assert by_name["linear10"].activities_per_instance == 12
    assert by_name["usertask_gateway"].activities_per_instance == 6
    # Camunda writes one ACT_HI_ACTINST row per token arriving at a parallel join.
    assert by_name["parallel"].activities_per_instance == 15
    assert by_name["parallel"].model_activities == 12
    assert by_name["mi50"].activities_source == "model"
    assert by_name["mi50"].activities_per_instance == 53


def test_json_holds_every_figure(quick_report: BenchReport) -> None:
    saved = report.to_json(quick_report)
    assert report.from_json(saved) == quick_report  # --from-json renders exactly what ran
    data: dict[str, Any] = json.loads(saved)
    assert MACHINE_KEYS <= set(data["machine"])
    assert {"async_history", "flush_history", "rebuild_projections"} == set(data["features"])
    assert len(data["workloads"]) == len(workloads.BASE) + len(workloads.QUICK_SCALING)
    for w in data["workloads"]:
        assert set(w) == WORKLOAD_KEYS
        assert {(s["system"], s["mode"]) for s in w["systems"]} == set(report.SYSTEMS)
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
    assert bench_cli.settings_from(_parse()).variable_counts == (1_000, 10_000, 100_000)
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
    assert "multi-instance" in text  # why flowledger has no mi figures
    assert "### REST API: usertask_gateway over HTTP" in text
    assert "POST /task/{id}/complete" in text
    assert "SpiffWorkflow has no REST API" in text  # why the peer has no REST figures
    assert "Instances per second" in report.terminal(quick_report)
    assert "REST API" in report.terminal(quick_report)


def test_cli_writes_json_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json, out_md = tmp_path / "bench.json", tmp_path / "bench.md"
    flowledger_cli.main(
        [
            "bench",
            "--quick",
            "--quiet",
            "--workloads",
            "usertask_gateway",
            "--no-peer",
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
    assert data["engine"] is None
    assert data["rest"] is None
    assert data["command"].startswith("flowledger bench --quick")
    assert "--skip-rest" in data["command"]
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


def test_shipped_models_deploy_except_multi_instance(tmp_path: Path) -> None:
    with Engine(f"sqlite:///{tmp_path / 'models.db'}") as engine:
        for name in ("linear10", "usertask_gateway", "parallel"):
            engine.deploy(MODELS_DIR / f"{name}.bpmn")
        with pytest.raises(FlowledgerError, match=r"element 'each'.*multi-instance"):
            engine.deploy(MODELS_DIR / "mi50.bpmn")
