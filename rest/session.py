"""Sign-in sessions for the web UI: `GET/POST/DELETE /flowledger/v1/session`, and the
server-side store of who is signed in.

A session lives in this process's memory only (a restart signs everyone out): at most
`MAX_SESSIONS` at once (a new one pushes out the one idle longest), each ending after
`IDLE_TIMEOUT` without a request or `ABSOLUTE_TIMEOUT` after sign-in, whichever comes first.
Its id is the `flowledger_session` cookie's value (256 random bits, HttpOnly, SameSite=Strict,
Secure over https); the store keeps only its SHA-256, so the memory holds no usable cookie. Its
CSRF token, which the page reads here and echoes in `X-XSRF-TOKEN`, is checked by rest/auth.py.
Passwords are checked as HTTP Basic checks them (the users file, the same hashing limiter).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
from litestar import Request, Response, delete, get, post
from litestar.params import JSONBody

from .auth import (
    SESSION_COOKIE,
    PasswordCheck,
    SignedIn,
    authenticated_groups,
    authenticated_user,
    current_session,
    session_ids,
)
from .errors import RestError
from .request_ids import printable

log = logging.getLogger("flowledger.rest.session")

MAX_SESSIONS = 10_000  # sessions held at once; a new one pushes out the one idle longest
IDLE_TIMEOUT = 8 * 3600.0  # seconds without a request after which a session ends
ABSOLUTE_TIMEOUT = 24 * 3600.0  # seconds after sign-in after which a session ends anyway
SIGN_IN_STATE = "sign_in"  # where the application's state holds the `SignIn`


@dataclass
class _Held:
    session: SignedIn
    started: float
    last_seen: float


class Sessions:
    """Live sign-in sessions, bounded in number and in time. Safe from any thread."""

    def __init__(
        self,
        *,
        max_sessions: int = MAX_SESSIONS,
        idle_timeout: float = IDLE_TIMEOUT,
        absolute_timeout: float = ABSOLUTE_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max = max_sessions
        self._idle = idle_timeout
        self._absolute = absolute_timeout
        self._clock = clock
        self._held: OrderedDict[bytes, _Held] = OrderedDict()  # SHA-256 of the id → session
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._held)

    @staticmethod
    def _key(session_id: str) -> bytes:
        return hashlib.sha256(session_id.encode("utf-8", "surrogateescape")).digest()

    def _ended(self, held: _Held, now: float) -> bool:
        return now - held.last_seen >= self._idle or now - held.started >= self._absolute

    def create(self, user: str, groups: tuple[str, ...]) -> SignedIn:
        session = SignedIn(secrets.token_urlsafe(32), user, groups, secrets.token_urlsafe(32))
        now = self._clock()
        with self._lock:
            # the least recently used come first: drop those that ended, then the idlest
            while self._held and self._ended(next(iter(self._held.values())), now):
                self._held.popitem(last=False)
            while len(self._held) >= self._max:
                self._held.popitem(last=False)
            self._held[self._key(session.id)] = _Held(session, now, now)
        return session

    def find(self, session_id: str) -> SignedIn | None:
        """The live session of this id (its idle time starts again), or None."""
        key = self._key(session_id)
        now = self._clock()
        with self._lock:
            held = self._held.get(key)
            if held is None:
                return None
            if self._ended(held, now):
                del self._held[key]
                return None
            held.last_seen = now
            self._held.move_to_end(key)
            return held.session

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._held.pop(self._key(session_id), None)


@dataclass(frozen=True)
class SignIn:
    """What signing in needs: the users file's passwords and the session store."""

    check: PasswordCheck
    sessions: Sessions


# -- the endpoints ----------------------------------------------------------------------------


class SessionDto(msgspec.Struct, rename="camel"):
    """Whether this server needs signing in, and who this request comes from. `csrfToken`: what
    a request with the session cookie that changes something echoes in `X-XSRF-TOKEN`."""

    authentication_required: bool
    authenticated: bool
    user: str | None
    groups: list[str]
    csrf_token: str | None


class CredentialsDto(msgspec.Struct):
    """A sign-in: a user of the users file and its password."""

    username: str
    password: str


def _sign_in_of(request: Request[Any, Any, Any]) -> SignIn | None:
    found = request.app.state.get(SIGN_IN_STATE)
    return found if isinstance(found, SignIn) else None


def _described(request: Request[Any, Any, Any], session: SignedIn | None = None) -> SessionDto:
    if _sign_in_of(request) is None:  # no users file: every request is let in, as the API is
        return SessionDto(False, True, None, [], None)
    if session is None:
        session = current_session(request.scope)
    user = session.user if session else authenticated_user(request.scope)
    groups = session.groups if session else authenticated_groups(request.scope)
    token = session.csrf_token if session else None
    return SessionDto(True, user is not None, user, list(groups), token)


def _cookie(response: Response[Any], request: Request[Any, Any, Any], value: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        value,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        max_age=None if value else 0,
    )


@get("/session", sync_to_thread=False)
def session(request: Request[Any, Any, Any]) -> SessionDto:
    """Whether signing in is needed and who is signed in (open to all: the UI asks it first)."""
    return _described(request)


@post("/session", status_code=200)
async def sign_in(
    request: Request[Any, Any, Any], data: JSONBody[CredentialsDto]
) -> Response[SessionDto]:
    """Sign in with a user of the users file: the session cookie and the session's CSRF token.
    401 AuthenticationException for a wrong user name or password."""
    signing = _sign_in_of(request)
    if signing is None:
        return Response(_described(request))
    if not await signing.check.valid(data.username, data.password):
        client = request.client.host if request.client else "-"
        log.warning("sign-in refused: user %s from %s", printable(data.username), client)
        raise RestError(401, "AuthenticationException", "Wrong user name or password")
    for replaced in session_ids(request.scope):  # signing in again ends the session before
        signing.sessions.forget(replaced)
    groups = signing.check.users.groups_of(data.username)
    created = signing.sessions.create(data.username, groups)
    log.info("user %s signed in", printable(data.username))
    response = Response(_described(request, created))
    _cookie(response, request, created.id)
    return response


@delete("/session", status_code=204, sync_to_thread=False)
def sign_out(request: Request[Any, Any, Any]) -> Response[None]:
    """Sign out: the session ends on the server and its cookie is cleared."""
    signing = _sign_in_of(request)
    ended = current_session(request.scope)
    if signing is not None and ended is not None:
        signing.sessions.forget(ended.id)
    response: Response[None] = Response(None, status_code=204)
    _cookie(response, request, "")
    return response


routes: list[Any] = [session, sign_in, sign_out]
