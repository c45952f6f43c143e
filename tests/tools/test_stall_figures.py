"""The stall benchmark: one large command beside small ones, the write path's hold timed where it
is taken. Sizes here are small; the figures themselves come from a run on an idle machine."""

from __future__ import annotations

from flowledger.tools.bench import stall_figures


def test_the_stall_figures_time_the_write_path_and_the_small_starts_beside_it() -> None:
    cases = stall_figures.measure(size=300, repeat=1, history_mode="inline")
    assert [c.name for c in cases] == [
        "start with 300 variables",
        "start of a 300-instance parallel multi-instance task",
    ]
    for case in cases:
        (run,) = case.runs
        assert run.small_starts >= 1  # at least one small start ran beside the large one
        assert 0 < run.longest_write_hold
        assert 0 < run.command_seconds
