"""Shared fixtures: a controllable clock, a fresh database of the selected kind, an engine on it."""

from __future__ import annotations

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
