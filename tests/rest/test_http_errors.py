"""Errors below the handlers, from a real `flowledger serve`: requests too malformed for the HTTP
parser and bodies over the limits answer in Camunda's `{"type", "message"}` JSON too."""

from __future__ import annotations

import json
import re
import signal
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from .server import free_port
from .test_serve_command import run_flowledger, wait_until_serving

MIB = 1024 * 1024


@dataclass
class Served:
    port: int
    url: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    cwd = tmp_path_factory.mktemp("http-errors")
    port = free_port()
    process = run_flowledger(
        "--db",
        f"sqlite:///{cwd / 'errors.db'}",
        "serve",
        "--port",
        str(port),
        "--max-body-mb",
        "1",
        cwd=cwd,
    )
    url = f"http://127.0.0.1:{port}/engine-rest"
    try:
        wait_until_serving(f"{url}/engine", process)
        yield Served(port, url)
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=30)
    assert "Traceback" not in err


def _exchange(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes, read until the server closes: status, headers, body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


def _camunda_error(body: bytes) -> dict[str, Any]:
    error: dict[str, Any] = json.loads(body)
    assert set(error) == {"type", "message"}
    assert isinstance(error["message"], str) and error["message"]
    return error


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"NOT HTTP AT ALL\r\n\r\n",
        b"GET /engine-rest/engine HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        b"GET /engine-rest/engine HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n",
        b"POST /engine-rest/engine HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
    ids=["garbage", "content-length", "header-name", "chunk-size"],
)
def test_malformed_http_is_a_json_400(served: Served, request_bytes: bytes) -> None:
    status, headers, body = _exchange(served.port, request_bytes)
    assert status == 400
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body)
    assert headers["connection"] == "close"
    assert _camunda_error(body)["type"] == "InvalidRequestException"
    # answered below the application, yet with an id like every other answer
    assert re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", headers["x-request-id"])


def test_server_still_answers_after_malformed_requests(served: Served) -> None:
    _exchange(served.port, b"NOT HTTP AT ALL\r\n\r\n")
    assert httpx.get(f"{served.url}/version").json() == {"version": "7.15.0"}


def _bpmn_part(size: int) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("resource", ("big.bpmn", b"<!--" + b"x" * size + b"-->", "text/xml"))]


def test_oversized_multipart_deployment_is_a_json_413(served: Served) -> None:
    response = httpx.post(
        f"{served.url}/deployment/create",
        data={"deployment-name": "big"},
        files=_bpmn_part(MIB + 1024),
        timeout=30,
    )
    assert response.status_code == 413
    assert response.headers["content-type"] == "application/json"
    error = _camunda_error(response.content)
    assert error == {
        "type": "InvalidRequestException",
        "message": f"Request body too large: this server accepts at most {MIB} bytes",
    }


def test_oversized_multipart_without_length_is_a_json_413(served: Served) -> None:
    body = b"".join(
        [
            b"--b\r\n",
            b'Content-Disposition: form-data; name="resource"; filename="big.bpmn"\r\n\r\n',
            b"x" * (MIB + 1024),
            b"\r\n--b--\r\n",
        ]
    )

    def chunks() -> Iterator[bytes]:  # sent chunked: only the bytes read can tell
        for start in range(0, len(body), 64 * 1024):
            yield body[start : start + 64 * 1024]

    response = httpx.post(
        f"{served.url}/deployment/create",
        content=chunks(),
        headers={"content-type": "multipart/form-data; boundary=b"},
        timeout=30,
    )
    assert response.status_code == 413
    assert _camunda_error(response.content)["message"].startswith("Request body too large")


def test_multipart_over_the_part_limit_is_a_json_413(served: Served) -> None:
    parts = [(f"part-{i}", ("p.bpmn", b"<x/>", "text/xml")) for i in range(1001)]
    response = httpx.post(f"{served.url}/deployment/create", files=parts, timeout=30)
    assert response.status_code == 413
    assert _camunda_error(response.content) == {
        "type": "InvalidRequestException",
        "message": "Multipart form beyond the limits of this server: "
        "Maximum segment count exceeded",
    }
