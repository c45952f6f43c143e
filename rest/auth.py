"""HTTP Basic authentication from a users file of salted scrypt hashes.

The file holds one `name:scrypt$N$r$p$salt$hash` line per user (`flowledger users add` writes
it); passwords never appear in it. A verified credential is remembered by its SHA-256 so that
scrypt's deliberate cost is paid once per user and password, not once per request.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_N, _R, _P = 2**14, 8, 1


class UsersFileError(Exception):
    """The users file cannot be read; the message names the file and line."""


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    salt = salt or os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return "$".join(
        ["scrypt", str(_N), str(_R), str(_P), base64.b64encode(salt).decode(), digest.hex()]
    )


def _check(password: str, encoded: str) -> bool:
    scheme, n, r, p, salt, expected = encoded.split("$")
    digest = hashlib.scrypt(
        password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=32
    )
    return scheme == "scrypt" and hmac.compare_digest(digest.hex(), expected)


class Users:
    """Who may call the API: user name → scrypt hash."""

    def __init__(self, hashes: dict[str, str]) -> None:
        self._hashes = hashes
        self._verified: set[bytes] = set()
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: str | Path) -> Users:
        file = Path(path)
        try:
            lines = file.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise UsersFileError(f"cannot read users file {file}: {exc.strerror}") from None
        hashes: dict[str, str] = {}
        for number, line in enumerate(lines, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            name, sep, encoded = text.partition(":")
            if not sep or not name or len(encoded.split("$")) != 6 or encoded[:7] != "scrypt$":
                raise UsersFileError(
                    f"{file}, line {number}: expected 'name:scrypt$...' "
                    "(write it with `flowledger users add NAME --file ...`)"
                )
            hashes[name] = encoded
        if not hashes:
            raise UsersFileError(f"users file {file} names no user")
        return cls(hashes)

    def verify(self, name: str, password: str) -> bool:
        key = hashlib.sha256(f"{name}\0{password}".encode()).digest()
        with self._lock:
            if key in self._verified:
                return True
        encoded = self._hashes.get(name)
        if encoded is None or not _check(password, encoded):
            return False
        with self._lock:
            self._verified.add(key)
        return True


def add_user(path: str | Path, name: str, password: str) -> None:
    """Add or replace one user in the users file (created when missing)."""
    if not name or ":" in name or any(c.isspace() for c in name):
        raise UsersFileError(f"invalid user name {name!r}: no colon or whitespace allowed")
    file = Path(path)
    kept = []
    if file.exists():
        kept = [
            line
            for line in file.read_text(encoding="utf-8").splitlines()
            if line.partition(":")[0].strip() != name
        ]
    kept.append(f"{name}:{hash_password(password)}")
    file.write_text("\n".join(kept) + "\n", encoding="utf-8")
    file.chmod(0o600)


def _credentials(scope: Scope) -> tuple[str, str] | None:
    for key, value in scope.get("headers", []):
        if key == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() != "basic":
                return None
            try:
                decoded = base64.b64decode(token.strip(), validate=True).decode()
            except (binascii.Error, UnicodeDecodeError):
                return None
            name, sep, password = decoded.partition(":")
            return (name, password) if sep else None
    return None


_UNAUTHORIZED = (
    b'{"type":"AuthenticationException","message":"Authentication required: HTTP Basic"}'
)


def basic_auth(users: Users) -> Callable[[ASGIApp], ASGIApp]:
    """ASGI middleware: every HTTP request needs valid Basic credentials, else 401."""

    def middleware(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            creds = _credentials(scope)
            if creds is not None and users.verify(*creds):
                scope.setdefault("state", {})["user_id"] = creds[0]
                await app(scope, receive, send)
                return
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b'Basic realm="flowledger"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": _UNAUTHORIZED})

        return guarded

    return middleware
