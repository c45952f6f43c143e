"""Who is calling: HTTP Basic from a users file of salted scrypt hashes, or a sign-in session.

The users file holds one line per user, `name:scrypt$N$r$p$salt$hash`, optionally followed by
the user's groups: `name:scrypt$N$r$p$salt$hash:accounting,management` (a line without groups is
a user in none, so older files load as they are). `flowledger users add NAME --group G` writes
it, readable by its owner only; passwords never appear in it. Names hold no colon, comma or
whitespace, so the file stays readable and an identity service can import it line by line.

scrypt runs in a few worker threads, never on the event loop, and an unknown user costs one
scrypt like a wrong password. A verified credential is remembered for `CACHE_TTL` seconds under
an HMAC with a per-process key (never the password itself). The file is read once, at start: a
change to it takes effect on restart, and were it ever reloaded, a remembered credential would
pass for up to the TTL.

The middleware lets a request in with valid Basic credentials or a session cookie (rest/session.py
signs in); a cookie-borne request that changes something must echo the session's CSRF token in
`X-XSRF-TOKEN`. The web UI's pages and assets and the sign-in endpoint are open to all: the page
must load to show its sign-in form.
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
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import anyio
import anyio.to_thread

from .errors import error_body
from .paths import SESSION_PATH, UI_PAGE_PREFIXES, UI_PAGES

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


class UserEntry(NamedTuple):
    """One line of the users file: the name, its scrypt hash and the user's groups."""

    name: str
    encoded: str
    groups: tuple[str, ...]


def _valid_name(name: str, *, separators: str = ":") -> bool:
    """A name the file can hold: not empty, no separator, no whitespace."""
    return bool(name) and not any(c in separators or c.isspace() for c in name)


def _valid_group(name: str) -> bool:
    return _valid_name(name, separators=":,")


def _entry(text: str) -> UserEntry | None:
    """`name:scrypt$...[:group,group]` as an entry; None when the line is not that."""
    name, sep, rest = text.partition(":")
    encoded, _, group_list = rest.partition(":")
    groups = tuple(group.strip() for group in group_list.split(",") if group.strip())
    if not sep or not name or not _well_formed(encoded):
        return None
    if not all(_valid_group(group) for group in groups):
        return None
    return UserEntry(name, encoded, groups)


def read_users_file(path: str | Path) -> list[UserEntry]:
    """The users of a users file, in its order (a name written twice: the last line counts)."""
    file = Path(path)
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UsersFileError(f"cannot read users file {file}: {exc.strerror}") from None
    entries: dict[str, UserEntry] = {}
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        entry = _entry(text)
        if entry is None:
            raise UsersFileError(
                f"{file}, line {number}: expected 'name:scrypt$...' or "
                "'name:scrypt$...:group,group' "
                "(write it with `flowledger users add NAME --file ... [--group G]`)"
            )
        entries.pop(entry.name, None)
        entries[entry.name] = entry
    return list(entries.values())


class Users:
    """Who may call the API: user name → scrypt hash and groups, and the credentials verified
    lately."""

    def __init__(
        self,
        hashes: dict[str, str],
        *,
        groups: Mapping[str, Iterable[str]] | None = None,
        cache_ttl: float = CACHE_TTL,
        cache_size: int = CACHE_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._hashes = {name: _parse(encoded) for name, encoded in hashes.items()}
        self._groups = {name: tuple(names) for name, names in (groups or {}).items()}
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
        entries = read_users_file(path)
        if not entries:
            raise UsersFileError(f"users file {Path(path)} names no user")
        return cls(
            {entry.name: entry.encoded for entry in entries},
            groups={entry.name: entry.groups for entry in entries},
        )

    def groups_of(self, name: str) -> tuple[str, ...]:
        """The groups the users file puts `name` in (none for an unknown user)."""
        return self._groups.get(name, ())

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


def add_user(path: str | Path, name: str, password: str, *, groups: Sequence[str] = ()) -> None:
    """Add or replace one user, with these groups, in the users file (created when missing).

    The new content goes to a temporary file beside it, created readable by its owner only,
    which then replaces the file: never readable by others, never half written."""
    if not _valid_name(name):
        raise UsersFileError(f"invalid user name {name!r}: no colon or whitespace allowed")
    for group in groups:
        if not _valid_group(group):
            raise UsersFileError(
                f"invalid group name {group!r}: no colon, comma or whitespace allowed"
            )
    file = Path(path)
    kept = []
    if file.exists():
        kept = [
            line
            for line in file.read_text(encoding="utf-8").splitlines()
            if line.partition(":")[0].strip() != name
        ]
    line = f"{name}:{hash_password(password)}"
    unique = list(dict.fromkeys(groups))
    kept.append(f"{line}:{','.join(unique)}" if unique else line)
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


# Where the middleware leaves who is calling: the ASGI scope's state.
USER_KEY = "user_id"
GROUPS_KEY = "user_groups"
SESSION_KEY = "session"
SESSION_COOKIE = "flowledger_session"
CSRF_HEADER = b"x-xsrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class SignedIn:
    """A sign-in session (rest/session.py keeps them): its id is the cookie's value."""

    id: str
    user: str
    groups: tuple[str, ...]
    csrf_token: str


class SessionFinder(Protocol):
    def find(self, session_id: str) -> SignedIn | None:
        """The live session of this id, or None (unknown, expired, signed out)."""


def authenticated_user(scope: Mapping[str, object]) -> str | None:
    """The user the middleware let in for this request; None without authentication."""
    state = scope.get("state")
    user = state.get(USER_KEY) if isinstance(state, Mapping) else None
    return user if isinstance(user, str) else None


def authenticated_groups(scope: Mapping[str, object]) -> tuple[str, ...]:
    """The groups of the user the middleware let in (the users file's); () without one."""
    state = scope.get("state")
    groups = state.get(GROUPS_KEY) if isinstance(state, Mapping) else None
    return groups if isinstance(groups, tuple) else ()


def current_session(scope: Mapping[str, object]) -> SignedIn | None:
    """The session this request came with, when its cookie named a live one."""
    state = scope.get("state")
    session = state.get(SESSION_KEY) if isinstance(state, Mapping) else None
    return session if isinstance(session, SignedIn) else None


class PasswordCheck:
    """The users file's passwords, checked off the event loop: credentials not remembered are
    hashed in at most `HASHING_THREADS` worker threads of their own (not the pool of the sync
    handlers); checks beyond that wait their turn. Basic auth and sign-in share it."""

    def __init__(self, users: Users) -> None:
        self.users = users
        self._hashing = anyio.CapacityLimiter(HASHING_THREADS)

    async def valid(self, name: str, password: str) -> bool:
        if self.users.remembered(name, password):
            return True
        return await anyio.to_thread.run_sync(
            self.users.check, name, password, limiter=self._hashing
        )


def _header(scope: Mapping[str, Any], name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value)
    return None


def session_ids(scope: Mapping[str, Any]) -> list[str]:
    """The values of every `flowledger_session` cookie the request carries."""
    found = []
    for key, value in scope.get("headers", []):
        if key != b"cookie":
            continue
        for pair in value.decode("latin-1").split(";"):
            name, sep, text = pair.strip().partition("=")
            if sep and name == SESSION_COOKIE and text:
                found.append(text.strip('"'))
    return found


class Caller(NamedTuple):
    user: str
    groups: tuple[str, ...]
    session: SignedIn | None  # None: HTTP Basic


def open_to_all(method: str, path: str) -> bool:
    """The web UI's pages and assets, and signing in (and asking whether one is): the page must
    load to show its sign-in form."""
    if path in UI_PAGES or path.startswith(UI_PAGE_PREFIXES):
        return True
    return path == SESSION_PATH and method in ("GET", "HEAD", "POST")


def _record(scope: Scope, caller: Caller) -> None:
    state = scope.setdefault("state", {})
    state[USER_KEY] = caller.user
    state[GROUPS_KEY] = caller.groups
    if caller.session is not None:
        state[SESSION_KEY] = caller.session


def _csrf_ok(scope: Scope, session: SignedIn) -> bool:
    token = _header(scope, CSRF_HEADER)
    return token is not None and hmac.compare_digest(token, session.csrf_token.encode())


_UNAUTHORIZED = error_body(
    "AuthenticationException", "Authentication required: HTTP Basic or a signed-in session"
)
_NO_CSRF = error_body(
    "AuthorizationException",
    "A request that changes something with a session cookie must carry the session's CSRF "
    "token in the X-XSRF-TOKEN header (GET /flowledger/v1/session gives it)",
)


async def _refuse(send: Send, status: int, body: bytes, challenge: bool = False) -> None:
    headers = [(b"content-type", b"application/json")]
    if challenge:
        headers.append((b"www-authenticate", b'Basic realm="flowledger"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def authentication(check: PasswordCheck, sessions: SessionFinder) -> Callable[[ASGIApp], ASGIApp]:
    """ASGI middleware: a request needs valid Basic credentials or a session cookie, else 401;
    with a cookie, a request other than GET/HEAD/OPTIONS needs the session's CSRF token, else
    403. Pages open to all pass without either (the session endpoint learns who calls)."""

    async def identify(scope: Scope) -> Caller | None:
        for session_id in session_ids(scope):
            session = sessions.find(session_id)
            if session is not None:
                return Caller(session.user, session.groups, session)
        creds = _credentials(scope)
        if creds is not None and await check.valid(*creds):
            return Caller(creds[0], check.users.groups_of(creds[0]), None)
        return None

    def middleware(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            method, path = scope["method"], scope["path"]
            if open_to_all(method, path):
                if path == SESSION_PATH and (caller := await identify(scope)) is not None:
                    _record(scope, caller)
                await app(scope, receive, send)
                return
            caller = await identify(scope)
            if caller is None:
                # A browser asked for Basic credentials opens its own password dialog: not for
                # the UI's requests (an expired session's cookie, or a script's request).
                browser = bool(session_ids(scope)) or _header(scope, b"x-requested-with")
                await _refuse(send, 401, _UNAUTHORIZED, challenge=not browser)
                return
            if (
                caller.session is not None
                and method not in SAFE_METHODS
                and not _csrf_ok(scope, caller.session)
            ):
                await _refuse(send, 403, _NO_CSRF)
                return
            _record(scope, caller)
            await app(scope, receive, send)

        return guarded

    return middleware
