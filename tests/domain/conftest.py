"""Fixtures of the domain tests: a fresh scenario per test, and no database at all.

The database fixtures of tests/conftest.py are overridden to fail, so a domain test that asks for
one is caught instead of silently running against SQLite.
"""

from __future__ import annotations

import pytest

from tests.domain.harness import Scenario


@pytest.fixture
def scenario() -> Scenario:
    return Scenario()


@pytest.fixture
def db_url() -> str:
    pytest.fail("domain tests run without a database; engine tests belong in tests/core")
