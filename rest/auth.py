"""HTTP Basic authentication from a users file of salted scrypt hashes.

The file holds one `name:scrypt$N$r$p$salt$hash` line per user (`flowledger users add` writes
it, readable by its owner only); passwords never appear in it. scrypt runs in a few worker
threads, never on the event loop, and an unknown user costs one scrypt like a wrong password.
A verified credential is remembered for `CACHE_TTL` seconds under an HMAC with a per-process
key (never the password itself). The file is read once, at start: a change to it takes effect
on restart, and were it ever reloaded, a remembered credential would pass for up to the TTL.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import os
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import anyio.to_thread

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_N, _R, _P = 2**14, 8, 1
CACHE_TTL = 60.0  # seconds a verified credential is remembered
CACHE_SIZE = 1024  # credentials remembered at most (the least recently used go first)
# scrypt is CPU- and memory-hard (16 MiB a hash): a flood of wrong passwords may take half the
# processors, never the event loop nor more threads than this.
HASHING_THREADS = max(1, min(4, (os.cpu_count() or 1) // 2))


class UsersFileError(Exception):
    """The users file cannot be read; the message names the file and line."""


class UsersFileExposed(UsersFileError):
    """The users file is open to other users than its owner: serving refuses it, as ssh
    refuses a private key others can read."""


class _Hash(NamedTuple):
    n: int
    r: int
    p: int
    salt: bytes
    digest: bytes


def _scrypt(password: bytes, salt: bytes, n: int, r: int, p: int) -> bytes:
    """The one place scrypt runs."""
    return hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, dklen=32)


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    salt = salt or os.urandom(16)
    digest = _scrypt(password.encode(), salt, _N, _R, _P)
    return "$".join(
        ["scrypt", str(_N), str(_R), str(_P), base64.b64encode(salt).decode(), digest.hex()]
    )


def _parse(encoded: str) -> _Hash:
    """`scrypt$N$r$p$salt$hash` as numbers and bytes; ValueError when it is not that."""
    scheme, n, r, p, salt, digest = encoded.split("$")
    parsed = _Hash(
        int(n), int(r), int(p), base64.b64decode(salt, validate=True), bytes.fromhex(digest)
    )
    power_of_two = parsed.n > 1 and parsed.n & (parsed.n - 1) == 0
    if scheme != "scrypt" or not power_of_two or min(parsed.r, parsed.p) < 1:
        raise ValueError("not an scrypt hash")
    return parsed


def _well_formed(encoded: str) -> bool:
    try:
        _parse(encoded)
    except ValueError:
        return False
    return True


class Users:
    """Who may call the API: user name → scrypt hash, and the credentials verified lately."""

    def __init__(
        self,
        hashes: dict[str, str],
        *,
        cache_ttl: float = CACHE_TTL,
        cache_size: int = CACHE_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._hashes = {name: _parse(encoded) for name, encoded in hashes.items()}
        # What an unknown user's password is hashed against: the cost of a real hash (`check`
        # refuses it whatever the digest).
        self._dummy = _Hash(_N, _R, _P, os.urandom(16), bytes(32))
        self._key = os.urandom(32)
        self._ttl = cache_ttl
        self._size = cache_size
        self._clock = clock
        self._verified: OrderedDict[bytes, float] = OrderedDict()  # HMAC → expiry
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
            if not sep or not name or not _well_formed(encoded):
                raise UsersFileError(
                    f"{file}, line {number}: expected 'name:scrypt$...' "
                    "(write it with `flowledger users add NAME --file ...`)"
                )
            hashes[name] = encoded
        if not hashes:
            raise UsersFileError(f"users file {file} names no user")
        return cls(hashes)

    def _cache_key(self, name: str, password: str) -> bytes:
        encoded_name = name.encode()
        message = len(encoded_name).to_bytes(4, "big") + encoded_name + password.encode()
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def remembered(self, name: str, password: str) -> bool:
        """Whether these credentials were verified less than the cache TTL ago (no scrypt)."""
        key = self._cache_key(name, password)
        with self._lock:
            expiry = self._verified.get(key)
            if expiry is None:
                return False
            if expiry <= self._clock():
                del self._verified[key]
                return False
            self._verified.move_to_end(key)
            return True

    def check(self, name: str, password: str) -> bool:
        """Run scrypt once, for a known user or not, and remember the credentials if valid.
        Slow on purpose: call it from a worker thread."""
        known = self._hashes.get(name)
        stored = known or self._dummy
        digest = _scrypt(password.encode(), stored.salt, stored.n, stored.r, stored.p)
        if not (hmac.compare_digest(digest, stored.digest) and known is not None):
            return False
        key = self._cache_key(name, password)
        with self._lock:
            self._verified[key] = self._clock() + self._ttl
            self._verified.move_to_end(key)
            while len(self._verified) > self._size:
                self._verified.popitem(last=False)
        return True

    def verify(self, name: str, password: str) -> bool:
        """`remembered` or else `check`: blocks for scrypt's cost when not remembered."""
        return self.remembered(name, password) or self.check(name, password)


def require_private(path: str | Path) -> None:
    """Refuse a users file that users other than its owner may read or write: it holds
    password hashes (offline guessing) and says who may call the API."""
    if os.name != "posix":
        return
    try:
        mode = os.stat(path).st_mode & 0o777
    except OSError:
        return  # Users.load says what is wrong with it
    if mode & 0o077:
        raise UsersFileExposed(
            f"users file {path} is accessible by others (mode {mode:04o}); it must be "
            f"readable by its owner only: chmod 600 {path}"
        )


def add_user(path: str | Path, name: str, password: str) -> None:
    """Add or replace one user in the users file (created when missing).

    The new content goes to a temporary file beside it, created readable by its owner only,
    which then replaces the file: never readable by others, never half written."""
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
    # mkstemp creates the file with mode 0600 (O_CREAT | O_EXCL)
    fd, temporary = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write("\n".join(kept) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, file)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


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


# Where `basic_auth` leaves the name of the caller it let in: the ASGI scope's state.
USER_KEY = "user_id"


def authenticated_user(scope: Mapping[str, object]) -> str | None:
    """The user `basic_auth` let in for this request; None without authentication."""
    state = scope.get("state")
    user = state.get(USER_KEY) if isinstance(state, Mapping) else None
    return user if isinstance(user, str) else None


_UNAUTHORIZED = (
    b'{"type":"AuthenticationException","message":"Authentication required: HTTP Basic"}'
)


def basic_auth(users: Users) -> Callable[[ASGIApp], ASGIApp]:
    """ASGI middleware: every HTTP request needs valid Basic credentials, else 401.

    Credentials not remembered are checked in at most `HASHING_THREADS` worker threads of
    their own (not the pool of the sync handlers); requests beyond that wait their turn."""
    hashing = anyio.CapacityLimiter(HASHING_THREADS)

    async def valid(name: str, password: str) -> bool:
        if users.remembered(name, password):
            return True
        return await anyio.to_thread.run_sync(users.check, name, password, limiter=hashing)

    def middleware(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            creds = _credentials(scope)
            if creds is not None and await valid(*creds):
                scope.setdefault("state", {})[USER_KEY] = creds[0]
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
