"""Shared fixtures: a controllable clock, a fresh database of the selected kind, an engine on it."""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from flowledger import ControllableClock, Engine
from tests.support import ENGINES, drop_pooled_databases, fresh_database, selected_kind

# Every engine the tests make is registered, so that a read past the engines (a raw SQL helper
# given only a URL) writes the rows a deferred projection has not written yet. CI's second mode
# (FLOWLEDGER_TEST_PROJECTION=inline on SQLite, whose default is deferred) makes every engine
# project that way unless a test names its mode. Engines in other processes (a served CLI) adopt
# the mode of the database a test made.
_PROJECTION = os.environ.get("FLOWLEDGER_TEST_PROJECTION")
_engine_init = Engine.__init__


@functools.wraps(_engine_init)
def _init_in_test_mode(self: Engine, url: str | None = None, **options: object) -> None:
    # Asynchronous history is its own mode.
    if _PROJECTION and options.get("history_mode") != "async":
        options.setdefault("projection", _PROJECTION)
    _engine_init(self, url, **options)  # type: ignore[arg-type]
    ENGINES.add(self)


Engine.__init__ = _init_in_test_mode  # type: ignore[method-assign]


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


# In the second projection mode (SQLite only) every test that makes an engine counts: most make
# their own SQLite database, and the mode is the engine's.
if _PROJECTION:
    _SELECTS_DATABASE += ("Engine(", "engine: Engine", "rest_client", "engine_url")


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
    """With FLOWLEDGER_DATABASE_TESTS_ONLY=1 (CI's PostgreSQL and MariaDB passes, and the second
    projection mode's), leave out the tests that never touch the selected database (or, in the
    second mode, make no engine): they ran, identically, on the first SQLite pass."""
    if os.environ.get("FLOWLEDGER_DATABASE_TESTS_ONLY") != "1":
        return
    if selected_kind() == "sqlite" and not _PROJECTION:
        return
    seen: dict[object, bool] = {}
    keep, skip = [], []
    for item in items:
        (keep if _uses_selected_database(item, seen) else skip).append(item)
    if skip:
        config.hook.pytest_deselected(items=skip)
        items[:] = keep
