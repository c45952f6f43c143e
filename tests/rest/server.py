"""A real uvicorn server on a free loopback port, serving the app over an engine on a test DB."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from core import Engine
from rest import create_app
from rest.auth import Users


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
