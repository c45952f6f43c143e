"""The deferred projection's figures (`python -m flowledger.tools.bench.deferred_figures`): they
run, and say what the mode is for — commands write fewer WAL pages, reads see every write."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowledger.tools.bench import deferred_figures as figures
from flowledger.tools.bench.workloads import workload


def test_deferred_commands_write_fewer_pages_and_batches_fold() -> None:
    wl = workload("usertask_gateway")
    inline_command, _ = figures.wal_pages(wl, "inline", 10, 1)
    deferred_command, deferred_one = figures.wal_pages(wl, "deferred", 10, 1)
    _, deferred_ten = figures.wal_pages(wl, "deferred", 10, 10)
    assert deferred_command < inline_command / 2
    assert deferred_ten < deferred_one  # larger batches: fewer pages per instance


def test_reads_right_after_writes_and_the_lag_are_measured(tmp_path: Path) -> None:
    wl = workload("usertask_gateway")
    for mode in figures.MODES:
        read = figures.read_after_write(wl, mode, 5)
        assert 0 < read.read_p50_ms <= read.read_p99_ms
        assert 0 < read.query_p50_ms <= read.query_p99_ms
    lag = figures.lag_under_load(wl, 0.5)
    assert lag.instances_per_s > 0 and lag.samples
    svg = tmp_path / "lag.svg"
    figures.lag_svg(lag, svg)
    assert svg.read_text().startswith("<svg") and "polyline" in svg.read_text()


@pytest.mark.parametrize("mode", ["sideways"])
def test_an_unknown_mode_is_refused(mode: str) -> None:
    with pytest.raises(ValueError, match="projection must be one of"):
        figures.read_after_write(workload("usertask_gateway"), mode, 1)
