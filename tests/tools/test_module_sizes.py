"""Modules stay small enough to read: none of ours over 900 lines, no service over 600 (issue
31); one that grows past is split by area."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ("api", "core", "engine", "eventlog", "projections", "migrations", "rest", "tools")


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_source_module_is_over_900_lines() -> None:
    too_long = {
        str(path.relative_to(ROOT)): n
        for folder in SOURCE
        for path in (ROOT / folder).rglob("*.py")
        if (n := lines(path)) > 900
    }
    assert too_long == {}


def test_no_service_is_over_600_lines() -> None:
    services = list((ROOT / "engine" / "services").glob("*.py"))
    assert len(services) >= 9
    assert {p.name: lines(p) for p in services if lines(p) > 600} == {}
