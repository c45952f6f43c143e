"""The world the browser tests look at: a live `flowledger` server with users, the invoice
model deployed, and a REST client (HTTP Basic) to set up what a page should then show.

One server per test module, on SQLite only: the REST tests already cover the three databases,
and the browser tests check what a person sees (issue 32: they run once)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from flowledger import Engine
from flowledger.rest.auth import Users, add_user
from tests.rest.server import live_server

MODELS = Path(__file__).parent / "models"
DMN = Path(__file__).parents[1] / "bpmn" / "dinner.dmn"
BUNDLE = Path(__file__).parents[2] / "rest" / "ui_bundle" / "index.html"
CHROMIUM = Path("/usr/bin/chromium")
# Debian's chromium as root in a container: no sandbox, and nothing that calls home (the network
# is closed here, and a test must not depend on it).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
USER, PASSWORD = "demo", "demo-password-1"
OTHER_USER = "mary"
GROUP = "accounting"


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    if not BUNDLE.exists():
        return f"the UI bundle is not built ({BUNDLE}: cd ui && npm ci && npm run build)"
    return None


@dataclass
class Cockpit:
    """`base`: the server's root URL; `rest`: an HTTP Basic client on /engine-rest;
    `ext`: one on /flowledger/v1; `engine`: the engine behind it."""

    base: str
    rest: httpx.Client
    ext: httpx.Client
    engine: Engine

    def deploy(self, *paths: Path) -> None:
        files = [(f"r{i}", (p.name, p.read_bytes(), "text/xml")) for i, p in enumerate(paths)]
        answer = self.rest.post("/deployment/create", data={"deployment-name": "ui"}, files=files)
        assert answer.status_code == 200, answer.text

    def start_invoice(self, creditor: str, amount: int = 120, key: str | None = None) -> str:
        answer = self.rest.post(
            "/process-definition/key/invoice/start",
            json={
                "businessKey": key or f"invoice-{creditor}",
                "variables": {
                    "creditor": {"value": creditor, "type": "String"},
                    "amount": {"value": amount, "type": "Long"},
                },
            },
        )
        assert answer.status_code == 200, answer.text
        instance_id: str = answer.json()["id"]
        return instance_id

    def task_of(self, instance_id: str) -> dict[str, Any]:
        tasks = self.rest.get("/task", params={"processInstanceId": instance_id}).json()
        assert len(tasks) == 1, tasks
        task: dict[str, Any] = tasks[0]
        return task

    def complete(self, task_id: str, **variables: Any) -> None:
        body = {"variables": {name: {"value": value} for name, value in variables.items()}}
        answer = self.rest.post(f"/task/{task_id}/complete", json=body)
        assert answer.status_code in (200, 204), answer.text

    def definition_id(self, key: str) -> str:
        found: str = self.rest.get(f"/process-definition/key/{key}").json()["id"]
        return found

    def fail_booking(self, instance_id: str) -> str:
        """The booking worker gives up on the instance's external task: an incident; its id."""
        locked = self.rest.post(
            "/external-task/fetchAndLock",
            json={
                "workerId": "booker",
                "maxTasks": 10,
                "topics": [{"topicName": "booking", "lockDuration": 60_000}],
            },
        ).json()
        mine = [t for t in locked if t["processInstanceId"] == instance_id]
        assert len(mine) == 1, locked
        answer = self.rest.post(
            f"/external-task/{mine[0]['id']}/failure",
            json={"workerId": "booker", "errorMessage": "ledger closed", "retries": 0},
        )
        assert answer.status_code == 204, answer.text
        incidents = self.rest.get("/incident", params={"processInstanceId": instance_id}).json()
        assert len(incidents) == 1, incidents
        incident_id: str = incidents[0]["id"]
        return incident_id


@contextmanager
def running_cockpit(directory: Path) -> Iterator[Cockpit]:
    users_file = directory / "users"
    add_user(users_file, USER, PASSWORD, groups=[GROUP])
    add_user(users_file, OTHER_USER, "mary-password-1", groups=[GROUP])
    os.chmod(users_file, 0o600)
    with (
        Engine(f"sqlite:///{directory / 'ui.db'}", history_level="full") as engine,
        live_server(engine, users=Users.load(users_file)) as server,
    ):
        base = server.url.removesuffix("/engine-rest")
        auth = (USER, PASSWORD)
        with (
            httpx.Client(base_url=server.url, auth=auth, timeout=30) as rest,
            httpx.Client(base_url=base + "/flowledger/v1", auth=auth, timeout=30) as ext,
        ):
            yield Cockpit(base, rest, ext, engine)
