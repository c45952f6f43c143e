"""Test support for the event exporters: reading what a target holds, waiting for an export to
catch up, a NATS server to test against (skipped when unreachable, except in CI), and a TCP
proxy that can be paused or closed between an exporter and NATS (the machine's NATS server is
never stopped)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import select
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import in_ci

NATS_HOST, NATS_PORT = "127.0.0.1", 4222


def wait_for(check: Callable[[], bool], seconds: float = 30, what: str = "the export") -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        time.sleep(0.05)


def file_positions(path: Path) -> list[int]:
    return [json.loads(line)["position"] for line in path.read_text().splitlines()]


def require_nats() -> None:
    """Skip (in CI: fail) when no NATS server answers at 127.0.0.1:4222."""
    try:
        with socket.create_connection((NATS_HOST, NATS_PORT), timeout=2):
            return
    except OSError as exc:
        message = f"NATS is not reachable at {NATS_HOST}:{NATS_PORT}: {exc}"
        if in_ci():
            pytest.fail(message + " (CI=true: NATS tests must not skip)")
        pytest.skip(message)


@contextlib.contextmanager
def nats_stream_name() -> Iterator[str]:
    """A stream name of this test's own; the stream is deleted afterwards."""
    require_nats()
    name = f"FLTEST_{uuid.uuid4().hex[:10].upper()}"
    try:
        yield name
    finally:
        with contextlib.suppress(Exception):
            _run(_delete(name))


def nats_messages(stream: str) -> list[tuple[str, dict[str, str], bytes]]:
    """(subject, headers, body) of every message of `stream`, oldest first."""
    return _run(_messages(stream))


def _run(work: Any) -> Any:
    return asyncio.run(work)


async def _connect() -> Any:
    import nats

    async def quiet(_e: Exception) -> None:
        pass

    return await nats.connect(
        f"nats://{NATS_HOST}:{NATS_PORT}", connect_timeout=5, allow_reconnect=False, error_cb=quiet
    )


async def _delete(name: str) -> None:
    nc = await _connect()
    try:
        await nc.jetstream().delete_stream(name)
    finally:
        await nc.close()


async def _messages(name: str) -> list[tuple[str, dict[str, str], bytes]]:
    from nats.js.errors import NotFoundError

    nc = await _connect()
    out = []
    try:
        js = nc.jetstream()
        try:
            info = await js.stream_info(name)
        except NotFoundError:
            return []
        for seq in range(info.state.first_seq or 1, info.state.last_seq + 1):
            with contextlib.suppress(NotFoundError):
                m = await js.get_msg(name, seq)
                out.append((m.subject, dict(m.headers or {}), bytes(m.data or b"")))
    finally:
        await nc.close()
    return out


class TcpProxy:
    """127.0.0.1:<port> forwarded to `target`; `pause()` stops forwarding (connections hang, as
    behind a dead network), `cut()` closes every connection and refuses new ones, `resume()`
    brings it back."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.port = self._listener.getsockname()[1]
        self._forwarding = threading.Event()
        self._forwarding.set()
        self._refusing = False
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._refusing:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while not self._closed:
                ready, _, _ = select.select([a, b], [], [], 0.1)
                if not self._forwarding.is_set():
                    continue  # hold the bytes: the peer sees silence
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (b if sock is a else a).sendall(data)
        except OSError:
            return
        finally:
            a.close()
            b.close()

    def pause(self) -> None:
        self._forwarding.clear()

    def cut(self) -> None:
        self._refusing = True
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for a, b in pairs:
            for sock in (a, b):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def resume(self) -> None:
        self._refusing = False
        self._forwarding.set()

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._listener.close()
