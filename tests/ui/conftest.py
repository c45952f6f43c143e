"""Browser fixtures: Debian's chromium driven by Playwright, one live cockpit per module.

They skip where chromium, playwright or the built bundle is missing, except in CI (`CI=true`),
where a missing piece fails the run: .ci/run installs chromium and checks the bundle."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.support import in_ci

from .cockpit import CHROMIUM, CHROMIUM_ARGS, PASSWORD, USER, Cockpit, missing, running_cockpit

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    reason = missing()
    if os.environ.get("FLOWLEDGER_TEST_DB", "sqlite").lower() != "sqlite":
        reason = "the browser tests run once, on SQLite"
    elif reason is not None and in_ci():
        return  # the fixtures fail with the reason instead
    if reason is None:
        return
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    reason = missing()
    if reason is not None:
        pytest.fail(f"browser tests cannot run: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def cockpit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cockpit]:
    with running_cockpit(tmp_path_factory.mktemp("cockpit")) as running:
        yield running


@pytest.fixture
def page(browser: Browser, cockpit: Cockpit) -> Iterator[Page]:
    """A fresh browser context (no cookies) on a laptop-sized screen."""
    context = browser.new_context(viewport={"width": 1366, "height": 768}, base_url=cockpit.base)
    context.set_default_timeout(15_000)
    opened = context.new_page()
    yield opened
    context.close()


@pytest.fixture
def signed_in(page: Page) -> Page:
    """`page` after signing in as the demo user through the sign-in form."""
    page.goto("/login")
    page.get_by_label("Username").fill(USER)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login" not in url)
    return page
