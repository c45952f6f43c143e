"""axe-core over the named pages: no serious or critical violation on any of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .cockpit import Cockpit
from .pages import named_pages, populate

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.ui

SEVERE = {"serious", "critical"}


@pytest.fixture(scope="module")
def ids(cockpit: Cockpit) -> dict[str, str]:
    return populate(cockpit)


NAMES = [p.name for p in named_pages({})]


@pytest.mark.parametrize("index", range(len(NAMES)), ids=NAMES)
def test_no_serious_accessibility_violation(
    signed_in: Page, cockpit: Cockpit, ids: dict[str, str], index: int
) -> None:
    from axe_playwright_python.sync_playwright import Axe

    named = named_pages(ids)[index]
    page = signed_in
    if named.name == "sign-in":
        page.context.clear_cookies()
    page.goto(named.path(cockpit))
    page.locator(named.ready).first.wait_for()
    results = Axe().run(page)
    severe = [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v.get("impact") in SEVERE
    ]
    assert severe == [], f"{named.title}: " + "; ".join(severe)
