"""A `flowledger serve` process on a test database (`server.served_process`) and what the
history tests ask of it: health, starts, history, its follower process, its log."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.support import bpmn

from .server import PROJECT_ROOT, ServedProcess, served_process

WAIT = 60.0  # seconds a test waits for another process before it gives up (never a measure)


class Served:
    def __init__(self, served: ServedProcess, url: str) -> None:
        self.process = served.process
        self.log = served.log
        self.url = url  # the database
        self.base = served.url.removesuffix("/engine-rest")
        self.client = httpx.Client(base_url=served.url, timeout=30)

    def health(self) -> tuple[int, dict[str, Any]]:
        response = httpx.get(self.base + "/actuator/health", timeout=10)
        body: dict[str, Any] = response.json()
        return response.status_code, body

    def start(self, business_key: str) -> str:
        response = self.client.post(
            "/process-definition/key/userTaskAssignment/start",
            json={
                "businessKey": business_key,
                "variables": {
                    "initiator": {"value": "kermit"},
                    "extraUser": {"value": "gonzo"},
                    "due": {"value": "2031-05-04T08:00:00.000+0000", "type": "Date"},
                    "priority": {"value": 5},
                    "orderId": {"value": business_key},
                },
            },
        )
        assert response.status_code == 200, response.text
        instance_id: str = response.json()["id"]
        return instance_id

    def in_history(self, instance_id: str) -> bool:
        response = self.client.get(
            "/history/process-instance", params={"processInstanceId": instance_id}
        )
        return response.status_code == 200 and len(response.json()) == 1

    def follower_pid(self) -> int | None:
        # Each thread lists the children it started: the supervisor thread starts restarts.
        pids = [
            int(pid)
            for children in Path(f"/proc/{self.process.pid}/task").glob("*/children")
            for pid in children.read_text().split()
        ]
        for pid in pids:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except FileNotFoundError:
                continue
            if b"follower_process" in cmdline:
                return pid
        return None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {WAIT:.0f} s waiting for {what}")
        time.sleep(0.05)


@contextmanager
def serving(
    url: str,
    tmp_path: Path,
    *,
    history_mode: str = "async",
    deploy: str = "user_task_assignment.bpmn",
) -> Iterator[Served]:
    """A server process on `url`, answering, with `deploy` deployed (duplicates filtered, so
    a second server on the same database finds it deployed)."""
    log = tmp_path / f"serve-{time.monotonic_ns()}.log"
    with served_process(url, "--history-mode", history_mode, log=log) as process:
        served = Served(process, url)
        try:
            files = {"data": (deploy, bpmn(deploy).read_bytes(), "text/xml")}
            deployed = served.client.post(
                "/deployment/create",
                data={"deployment-name": "served", "enable-duplicate-filtering": "true"},
                files=files,
            )
            assert deployed.status_code == 200, deployed.text
            yield served
        finally:
            served.client.close()
            if process.process.poll() is None:
                process.stop()


def flowledger(*args: str, cwd: Path, **options: Any) -> subprocess.Popen[bytes]:
    """The `flowledger` command line, as a user runs it (no FLOWLEDGER_DB from the tests)."""
    env = {k: v for k, v in os.environ.items() if k != "FLOWLEDGER_DB"}
    return subprocess.Popen(
        [sys.executable, "-m", "flowledger", *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(PROJECT_ROOT)},
        **options,
    )
