"""Shared fixtures: a controllable clock, a fresh database of the selected kind, an engine on it."""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from flowledger import ControllableClock, Engine
from tests.support import drop_pooled_databases, fresh_database, selected_kind


@pytest.fixture
def clock() -> ControllableClock:
    return ControllableClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    with fresh_database(selected_kind(), tmp_path) as url:
        yield url


@pytest.fixture
def engine(db_url: str, clock: ControllableClock) -> Iterator[Engine]:
    with Engine(db_url, clock=clock) as e:
        yield e


@pytest.fixture
def full_engine(db_url: str, clock: ControllableClock) -> Iterator[Engine]:
    """An engine at history level full (the default is audit): ACT_HI_DETAIL rows too."""
    with Engine(db_url, clock=clock, history_level="full") as e:
        yield e


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    drop_pooled_databases()


# Names a test module or fixture uses when it runs on the selected database itself rather than
# on a throwaway SQLite of its own (or on none).
_SELECTS_DATABASE = ("selected_kind", "fresh_database", "SERVER_URLS", "require(", "KINDS")


def _selects_database(text: str) -> bool:
    return any(name in text for name in _SELECTS_DATABASE)


def _uses_selected_database(item: pytest.Item, seen: dict[object, bool]) -> bool:
    """Does the test's module, or any fixture it uses (the `rest` server's, `db_url`, ...),
    open the selected database?"""
    sources: list[object] = [item.path]
    info = getattr(item, "_fixtureinfo", None)
    if info is not None:
        sources += [defs[-1].func for defs in info.name2fixturedefs.values() if defs]
    for source in sources:
        if source not in seen:
            if isinstance(source, Path):
                text = source.read_text(encoding="utf-8")
            else:
                try:
                    text = inspect.getsource(source)  # type: ignore[arg-type]
                except (OSError, TypeError):
                    text = ""
            seen[source] = _selects_database(text)
        if seen[source]:
            return True
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With FLOWLEDGER_DATABASE_TESTS_ONLY=1 (CI's PostgreSQL and MariaDB passes), leave out the
    tests that never touch the selected database: they ran, identically, on the SQLite pass."""
    if os.environ.get("FLOWLEDGER_DATABASE_TESTS_ONLY") != "1" or selected_kind() == "sqlite":
        return
    seen: dict[object, bool] = {}
    keep, skip = [], []
    for item in items:
        (keep if _uses_selected_database(item, seen) else skip).append(item)
    if skip:
        config.hook.pytest_deselected(items=skip)
        items[:] = keep
