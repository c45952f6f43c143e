"""`flowledger serve`: the engine-rest app on uvicorn, with the safety checks a server needs.

Serves the REST API and the web UI (cockpit and tasklist). Loopback by default; a non-loopback
address needs a users file (HTTP Basic and the UI's sign-in) or an explicit `--insecure`.
SIGINT/SIGTERM stop accepting, let running requests finish (long polls are cut after a few
seconds), then close the engine, which brings asynchronous history up to date.
Requests too malformed to reach the app are answered in Camunda's error shape too, with an
`X-Request-Id` and an access-log line like every other answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import sys
from collections.abc import Iterator
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from flowledger.engine import Engine

from .app import DEFAULT_MAX_BODY, create_app
from .auth import Users
from .errors import error_body
from .request_ids import REQUEST_ID_HEADER, new_request_id, printable

log = logging.getLogger("flowledger.rest")
access = logging.getLogger("flowledger.rest.access")


class _GracefulServer(uvicorn.Server):
    """uvicorn re-raises SIGTERM/SIGINT after its graceful shutdown, which would kill the
    process before the caller closes the engine (and flushes asynchronous history)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        with super().capture_signals():
            yield
            self._captured_signals.clear()


class _CamundaErrors:
    """Answers a request the HTTP parser cannot parse with Camunda's JSON error instead of
    uvicorn's plain text. uvicorn closes the connection after it; this writes the answer whole,
    whatever state the parser was left in."""

    server_state: Any
    transport: Any

    def send_400_response(self, msg: str) -> None:
        # The request could not be parsed, so neither can a caller's id be trusted: a new one,
        # logged as the application logs its requests.
        rid = new_request_id()
        access.info("(unparseable request) 400 id=%s: %s", rid, printable(msg))
        body = error_body("InvalidRequestException", msg)
        head = [b"HTTP/1.1 400 Bad Request"]
        head += [name + b": " + value for name, value in self.server_state.default_headers]
        head += [
            b"content-type: application/json",
            b"content-length: " + str(len(body)).encode(),
            REQUEST_ID_HEADER + b": " + rid.encode(),
            b"connection: close",
        ]
        self.transport.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        self.transport.close()


class CamundaErrorsHttpToolsProtocol(_CamundaErrors, HttpToolsProtocol):
    """uvicorn's protocol on httptools (llhttp, in C): the parser `flowledger serve` uses."""


class CamundaErrorsH11Protocol(_CamundaErrors, H11Protocol):
    """uvicorn's pure-Python h11 protocol: where httptools is not installed."""


def http_protocol() -> type[asyncio.Protocol]:
    """httptools parses a request in C; h11 in Python costs a REST server about a tenth of its
    time (py-spy). h11 stays the fallback for a platform without httptools wheels."""
    try:
        import httptools  # noqa: F401
    except ImportError:
        return CamundaErrorsH11Protocol
    return CamundaErrorsHttpToolsProtocol


class ServeError(Exception):
    """The server refuses to start; the message says why and what to do."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, None)
        except OSError:
            return False
        return all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


def check_binding(host: str, users: Users | None, insecure: bool) -> None:
    if users is None and not insecure and not is_loopback(host):
        raise ServeError(
            f"refusing to serve on non-loopback address {host} without authentication: "
            "pass --users FILE (HTTP Basic; create it with `flowledger users add`) "
            "or --insecure to allow anyone on the network"
        )


def serve(
    engine: Engine,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    users: Users | None = None,
    insecure: bool = False,
    max_body_bytes: int = DEFAULT_MAX_BODY,
) -> None:
    """Serve until interrupted; the caller closes the engine afterwards."""
    check_binding(host, users, insecure)
    if not logging.getLogger().handlers:
        logging.basicConfig(
            stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
        )
    app = create_app(engine, users=users, max_body_bytes=max_body_bytes)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        access_log=False,  # our own middleware writes one line per request
        log_config=None,
        lifespan="on",
        http=http_protocol(),
        loop="auto",  # uvloop where installed
        timeout_graceful_shutdown=5,
        server_header=False,
    )
    root = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    log.info(
        "flowledger engine-rest on %s/engine-rest, web UI on %s/ (cockpit %s/cockpit/, "
        "tasklist %s/tasklist/) (database %s%s)",
        root,
        root,
        root,
        root,
        engine.url,
        ", sign-in or HTTP Basic authentication" if users else "",
    )
    _GracefulServer(config).run()
