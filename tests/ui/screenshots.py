"""Refresh the screenshots of docs/ui.md: `.venv/bin/python -m tests.ui.screenshots`
(`... screenshots --migration` for the migration's pictures only).

Starts a cockpit on a temporary SQLite database, fills it (tests/ui/pages.py), signs in and
writes one PNG per named page to docs/ui/, then the migration's (tests/ui/migration_world.py).
Not run by CI: the pictures change only when the UI does, and a reader should see them in
review."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from .cockpit import CHROMIUM, CHROMIUM_ARGS, PASSWORD, USER, missing, running_cockpit
from .migration_world import migration_screenshots
from .pages import named_pages, populate

if TYPE_CHECKING:
    from playwright.sync_api import Page

OUT = Path(__file__).parents[2] / "docs" / "ui"


def sign_in(page: Page) -> None:
    page.goto("/login")
    page.get_by_label("Username").fill(USER)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login" not in url)


def main(argv: list[str]) -> int:
    only_migration = "--migration" in argv
    reason = missing()
    if reason is not None:
        print(f"cannot take screenshots: {reason}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as directory, running_cockpit(Path(directory)) as cockpit:
        ids = {} if only_migration else populate(cockpit)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            context = browser.new_context(
                viewport={"width": 1366, "height": 768}, base_url=cockpit.base
            )
            page = context.new_page()
            for named in [] if only_migration else named_pages(ids):  # sign-in first
                if named.name != "sign-in" and "flowledger_session" not in str(context.cookies()):
                    sign_in(page)
                page.goto(named.path(cockpit))
                page.locator(named.ready).first.wait_for()
                page.wait_for_load_state("networkidle")
                page.screenshot(path=str(OUT / f"{named.name}.png"), full_page=True)
                print(f"docs/ui/{named.name}.png: {named.title}")
            if "flowledger_session" not in str(context.cookies()):
                sign_in(page)
            for name in migration_screenshots(page, cockpit, OUT):
                print(f"docs/ui/{name}.png: migration")
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
