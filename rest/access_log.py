"""One log line per request (method, path, status, duration, user, request id), and the request
id every answer carries in `X-Request-Id`.

The outermost middleware: every answer passes here, an unknown path's 404, the 401 of
authentication and the 413 of a body too large included. A well-formed `X-Request-Id` the
caller sent is kept (a proxy's or a client's correlation id), any other gets a fresh UUID. A
5xx is logged at ERROR; what raised it is logged where it is turned into the answer
(`rest.errors.to_response`), with its traceback and this id, never in the answer itself.

Everything in a line that comes from the request is escaped (`\\x00`, `\\n`, `\\\\`): a line of
the log stays one line of text whatever the caller sends. This module must not log bodies or
credentials.
"""

from __future__ import annotations

import logging
import time
from collections.abc import MutableMapping
from typing import Any

from .auth import ASGIApp, Receive, Scope, Send, authenticated_user
from .errors import error_body
from .request_ids import (
    REQUEST_ID_HEADER,
    REQUEST_ID_KEY,
    incoming_request_id,
    new_request_id,
    printable,
    with_request_id,
)

log = logging.getLogger("flowledger.rest.access")


def access_log(app: ASGIApp) -> ASGIApp:
    async def logged(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        rid = incoming_request_id(scope.get("headers", [])) or new_request_id()
        scope.setdefault("state", {})[REQUEST_ID_KEY] = rid
        started = time.perf_counter()
        status = 500
        answered = False

        async def capture(message: MutableMapping[str, Any]) -> None:
            nonlocal status, answered
            if message["type"] == "http.response.start":
                status = int(message["status"])
                answered = True
                message = {**message, "headers": with_request_id(message.get("headers"), rid)}
            await send(message)

        try:
            await app(scope, receive, capture)
            if not answered:
                log.error("no answer to %s (request %s)", printable(scope["path"]), rid)
                status = 500
                await _answer_500(send, rid)
        except Exception:
            # Escaped the application's own error handling (a middleware's fault): logged with
            # its traceback and answered in Camunda's shape here, where uvicorn would answer
            # plain text without the id.
            log.exception(
                "unexpected error on %s %s (request %s)",
                printable(scope["method"]),
                printable(scope["path"]),
                rid,
            )
            if answered:
                raise
            status = 500
            await _answer_500(send, rid)
        finally:
            query = printable(scope.get("query_string", b"").decode("latin-1"))
            path = printable(scope["path"]) + (f"?{query}" if query else "")
            millis = (time.perf_counter() - started) * 1000
            user = authenticated_user(scope)
            who = f" user={printable(user)}" if user else ""
            log.log(
                logging.ERROR if status >= 500 else logging.INFO,
                "%s %s %d %.1fms%s id=%s",
                printable(scope["method"]),
                path,
                status,
                millis,
                who,
                rid,
            )

    return logged


async def _answer_500(send: Send, rid: str) -> None:
    body = error_body("ProcessEngineException", f"Internal error (request {rid})")
    await send(
        {
            "type": "http.response.start",
            "status": 500,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (REQUEST_ID_HEADER, rid.encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
