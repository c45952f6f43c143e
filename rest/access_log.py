"""One log line per request: method, path, status, duration."""

from __future__ import annotations

import logging
import time
from collections.abc import MutableMapping
from typing import Any

from .auth import ASGIApp, Receive, Scope, Send

log = logging.getLogger("flowledger.rest.access")


def access_log(app: ASGIApp) -> ASGIApp:
    async def logged(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def capture(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await app(scope, receive, capture)
        finally:
            query = scope.get("query_string", b"").decode("latin-1")
            path = scope["path"] + (f"?{query}" if query else "")
            millis = (time.perf_counter() - started) * 1000
            log.info("%s %s %d %.1fms", scope["method"], path, status, millis)

    return logged
