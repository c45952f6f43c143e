"""A small synchronous client of one NATS JetStream stream, for the exporter's thread, the head
publisher and `verify --against-published nats://…`: connect, make sure the stream exists, read
its last message or all of them, publish with a message id.

Every call is bounded by one deadline (`DEADLINE_SECONDS`): a server that stopped answering, or
a connection that hangs, turns into an error, never into a wait without end. One instance is
used by one thread; it runs its own asyncio loop (nats-py is asyncio only).

Must not: reconnect on its own behind its caller's back (the caller decides when to retry, and
re-reads what the stream holds first), or log the URL's credentials.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

DEADLINE_SECONDS = 10.0  # one connect, publish (until its acknowledgement) or read
MAX_STREAM_NAME = 64

T = TypeVar("T")


class NatsError(Exception):
    """NATS could not be reached or refused a call; the message says what and where."""


@dataclass(frozen=True)
class NatsUrl:
    """`nats://[user:password@]host[:port]/STREAM[/subject]`, split."""

    server: str  # what the client connects to, credentials included
    shown: str  # the URL without credentials, for logs, health and errors
    stream: str
    subject: str | None

    @classmethod
    def parse(cls, url: str) -> NatsUrl:
        parts = urlsplit(url)
        if parts.scheme not in ("nats", "tls"):
            raise ValueError(f"{url!r} is not a nats:// URL")
        if not parts.hostname:
            raise ValueError(f"{url!r} names no NATS server")
        stream, _, path_rest = parts.path.lstrip("/").partition("/")
        if not stream:
            raise ValueError(
                f"{url!r} names no JetStream stream (nats://host:4222/STREAM[/subject])"
            )
        if len(stream) > MAX_STREAM_NAME or any(c in stream for c in " .*>\t\r\n"):
            raise ValueError(f"{stream!r} is not a JetStream stream name (no space, '.', '*', '>')")
        subject = unquote(path_rest).replace("/", ".") or None
        if subject is not None and (any(c in subject for c in " *>\t\r\n") or ".." in subject):
            raise ValueError(f"{subject!r} is not a NATS subject (no spaces or wildcards)")
        port = parts.port or 4222
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        credentials = parts.netloc.rpartition("@")[0]
        server = f"{parts.scheme}://{credentials + '@' if credentials else ''}{host}:{port}"
        shown = f"{parts.scheme}://{host}:{port}/{stream}" + (f"/{subject}" if subject else "")
        return cls(server, shown, stream, subject)


class NatsStream:
    """One connection to one stream. `connect` first; `close` always."""

    def __init__(self, url: NatsUrl, deadline: float = DEADLINE_SECONDS) -> None:
        if not 0 < deadline <= 600:
            raise ValueError("the NATS deadline must be between 0 and 600 seconds")
        self.url = url
        self.deadline = deadline
        self._loop = asyncio.new_event_loop()
        self._nc: Any = None
        self._js: Any = None

    def _run(self, work: Coroutine[Any, Any, T], what: str) -> T:
        try:
            return self._loop.run_until_complete(asyncio.wait_for(work, self.deadline))
        except TimeoutError:
            raise NatsError(
                f"{self.url.shown}: no answer to {what} within {self.deadline:g} s"
            ) from None
        except NatsError:
            raise
        except Exception as exc:
            message = f"{self.url.shown}: {what} failed: {type(exc).__name__}: {exc}"
            raise NatsError(message) from exc

    def connect(self) -> None:
        try:
            import nats
        except ImportError:
            raise NatsError(
                "NATS targets need the nats-py package: pip install 'flowledger[nats]'"
            ) from None

        async def quiet(_error: Exception) -> None:
            """nats-py logs every failed attempt with its traceback; the caller says it once."""

        async def connect() -> Any:
            return await nats.connect(
                servers=[self.url.server],
                connect_timeout=self.deadline,
                allow_reconnect=False,
                max_reconnect_attempts=1,
                error_cb=quiet,
            )

        self._nc = self._run(connect(), "connect")
        self._js = self._nc.jetstream(timeout=self.deadline)

    def ensure(self, subjects: list[str]) -> None:
        """Create the stream with `subjects` unless it exists (an existing one is kept as its
        owner configured it)."""
        from nats.js.errors import NotFoundError

        async def ensure() -> None:
            try:
                await self._js.stream_info(self.url.stream)
            except NotFoundError:
                await self._js.add_stream(name=self.url.stream, subjects=subjects)

        self._run(ensure(), f"finding or creating the stream {self.url.stream}")

    def last(self, subject: str) -> bytes | None:
        """The body of the stream's last message on `subject` (wildcards allowed), or None."""
        from nats.js.errors import NotFoundError

        async def last() -> bytes | None:
            try:
                found = await self._js.get_last_msg(self.url.stream, subject)
            except NotFoundError:
                return None
            return bytes(found.data or b"")

        return self._run(last(), f"reading the last message of {self.url.stream}")

    def publish(self, subject: str, body: bytes, msg_id: str, headers: dict[str, str]) -> None:
        """Publish one message and wait for the stream's acknowledgement. JetStream drops a
        message whose `msg_id` it stored within its duplicate window (default 2 minutes)."""

        async def publish() -> None:
            await self._js.publish(
                subject, body, timeout=self.deadline, headers={**headers, "Nats-Msg-Id": msg_id}
            )

        self._run(publish(), f"publishing to {subject}")

    def messages(self, subject: str) -> Iterator[bytes]:
        """The bodies of every message of the stream on `subject`, oldest first (one read each,
        each within the deadline: for streams of a few thousand messages, as published heads)."""
        from nats.js.errors import NotFoundError

        info = self._run(self._js.stream_info(self.url.stream), f"reading {self.url.stream}")
        first, last = int(info.state.first_seq), int(info.state.last_seq)

        async def get(seq: int) -> Any:
            try:
                return await self._js.get_msg(self.url.stream, seq)
            except NotFoundError:
                return None  # deleted from the stream

        for seq in range(max(first, 1), last + 1):
            found = self._run(get(seq), f"reading message {seq} of {self.url.stream}")
            if found is not None and found.subject == subject:
                yield bytes(found.data or b"")

    def delete_stream(self) -> None:
        self._run(self._js.delete_stream(self.url.stream), f"deleting {self.url.stream}")

    def close(self) -> None:
        """Close the connection (within a second: a hung one is abandoned) and the loop."""
        if self._nc is not None:
            with contextlib.suppress(Exception):
                self._loop.run_until_complete(asyncio.wait_for(self._nc.close(), 1.0))
            self._nc = self._js = None
        pending = asyncio.all_tasks(self._loop)
        for task in pending:
            task.cancel()
        if pending:
            with contextlib.suppress(Exception):
                self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.close()

    def __enter__(self) -> NatsStream:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
