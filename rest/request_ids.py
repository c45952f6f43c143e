"""What the logs say about a request. Its id: taken from the caller's `X-Request-Id` when well
formed, else a new UUID; kept in the ASGI scope's state for whoever logs about the request, and
sent back in the `X-Request-Id` header of its answer (`rest.access_log`). And `printable`: text
from the request escaped so that a log line stays one line. No I/O, no logging here."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

REQUEST_ID_HEADER = b"x-request-id"
# Where the id is kept for the rest of the application: the ASGI scope's state.
REQUEST_ID_KEY = "request_id"
MAX_REQUEST_ID = 128
# What a caller's id may look like to be kept: UUIDs, hex trace ids, W3C traceparent, base64.
# Nothing that could break a log line or a header.
_WELL_FORMED = re.compile(rf"[A-Za-z0-9._:/+=@-]{{1,{MAX_REQUEST_ID}}}")


def new_request_id() -> str:
    return str(uuid.uuid4())


def incoming_request_id(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The caller's `X-Request-Id`, if it is short and plain enough to be kept."""
    for key, value in headers:
        if key.lower() == REQUEST_ID_HEADER:
            text = value.decode("latin-1")
            return text if _WELL_FORMED.fullmatch(text) else None
    return None


def request_id(scope: Mapping[str, Any]) -> str | None:
    """The id `access_log` gave this request; None outside it."""
    state = scope.get("state")
    found = state.get(REQUEST_ID_KEY) if isinstance(state, Mapping) else None
    return found if isinstance(found, str) else None


def with_request_id(headers: Iterable[tuple[bytes, bytes]] | None, rid: str) -> list[Any]:
    """Response headers with `X-Request-Id: rid` (replacing one the application set)."""
    kept = [(k, v) for k, v in headers or [] if k.lower() != REQUEST_ID_HEADER]
    return [*kept, (REQUEST_ID_HEADER, rid.encode("latin-1"))]


# C0 and C1 controls, DEL, the Unicode line and paragraph separators, and the escape itself.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\\]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def printable(text: str) -> str:
    """`text` with every character that could break or forge a log line escaped."""
    return _UNPRINTABLE.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    char = match[0]
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")
