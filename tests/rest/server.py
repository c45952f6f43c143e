"""A real uvicorn server on a free loopback port, serving the app over an engine on a test DB."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from flowledger import Engine
from flowledger.rest import create_app
from flowledger.rest.auth import Users


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """`url` is the engine-rest base (`http://127.0.0.1:PORT/engine-rest`); `client` an httpx
    client on it; `engine` the engine behind it, for checks a client cannot make."""

    def __init__(self, engine: Engine, url: str, client: httpx.Client) -> None:
        self.engine = engine
        self.url = url
        self.client = client

    def deploy(self, *paths: Path, name: str = "test") -> dict[str, Any]:
        """Deploy BPMN files through the API; the deployment DTO."""
        files = [
            (f"resource-{i}", (p.name, p.read_bytes(), "text/xml")) for i, p in enumerate(paths)
        ]
        response = self.client.post(
            "/deployment/create", data={"deployment-name": name}, files=files
        )
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result


@contextmanager
def live_server(
    engine: Engine, *, users: Users | None = None, max_body_bytes: int | None = None
) -> Iterator[LiveServer]:
    port = free_port()
    options: dict[str, Any] = {"users": users}
    if max_body_bytes is not None:
        options["max_body_bytes"] = max_body_bytes
    config = uvicorn.Config(
        create_app(engine, **options),
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    url = f"http://127.0.0.1:{port}/engine-rest"
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            yield LiveServer(engine, url, client)
    finally:
        server.should_exit = True
        thread.join(10)


PROJECT_ROOT = Path(__file__).resolve().parents[2]


def process_group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, read from /proc: a child whose parent
    was killed is reaped by whoever adopts it, maybe never, so a zombie counts as gone."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended while we looked
        # pid (comm) state ppid pgrp ...: comm may hold spaces, so split after its ')'
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry.name))
    return sorted(members)


class ServedProcess:
    """`flowledger serve` in a process group of its own (with its history follower, if any):
    `url` is the engine-rest base, `process` the server process."""

    def __init__(self, process: subprocess.Popen[bytes], url: str, log: Path) -> None:
        self.process = process
        self.url = url
        self.log = log

    @property
    def group(self) -> list[int]:
        return process_group_members(self.process.pid)

    def kill_server(self) -> None:
        """kill -9 of the server process alone, as a crash would (its children live on)."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> int:
        """SIGTERM (graceful shutdown: history is flushed); the exit status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(60)

    def kill_group(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


@contextmanager
def served_process(db_url: str, *options: str, log: Path) -> Iterator[ServedProcess]:
    """Run `flowledger --db DB_URL serve --port FREE *options` until it answers; whatever is
    left of its process group is killed on exit, so no test leaves a process behind. Its
    output goes to `log` (appended)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "FLOWLEDGER_DB"}
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    command = [sys.executable, "-m", "flowledger", "--db", db_url, "serve", "--port", str(port)]
    with log.open("ab") as out:
        process = subprocess.Popen(
            [*command, *options],
            cwd=log.parent,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the follower is found and killed
        )
    served = ServedProcess(process, f"http://127.0.0.1:{port}/engine-rest", log)
    try:
        _wait_until_it_answers(served)
        yield served
    finally:
        served.kill_group()


def _wait_until_it_answers(served: ServedProcess) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if served.process.poll() is not None:
            raise RuntimeError(f"flowledger serve exited: {served.log.read_text()[-2000:]}")
        try:
            httpx.get(f"{served.url}/version", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError("flowledger serve did not answer within 60 s")
