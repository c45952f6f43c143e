"""Where an exporter sends events, and how a target is named on the command line
(`serve --export URL`): `file:PATH` (JSON lines), `nats://host:port/STREAM[/subject.prefix]`
(JetStream), `https://…` or `http://…` (a webhook, through the engine's outbound policy);
`NAME=URL` names the exporter, else its name comes from the URL.

A target acknowledges a batch by returning from `send`, and says on `open` which position it
holds last (None when it cannot say, as a webhook): the runner resumes from there.

Must not: hold anything of the engine's (a target gets bytes and positions only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

MAX_NAME = 55  # `exporter:` + the name fits projection_checkpoint.name (64)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")


class TargetError(Exception):
    """The target refused, failed or did not answer in time; the message says which."""


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One event ready to leave: its position, CloudEvent id and type, and its JSON body."""

    position: int
    id: str
    kind: str  # the event type without the CloudEvents prefix (a NATS subject token)
    body: bytes


@dataclass(frozen=True, slots=True)
class Held:
    """The last event a target holds: its position and the log (CloudEvent source) it came
    from."""

    position: int
    source: str | None


class Target(Protocol):
    kind: str  # file | nats | webhook
    shown: str  # the target without credentials

    def open(self) -> Held | None:
        """Connect; the last event the target holds (None: empty, or it cannot say)."""

    def send(self, batch: list[Outgoing]) -> None:
        """Deliver `batch` in order; return only once the target acknowledged all of it."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class TargetSpec:
    """A target as configured: its exporter's name, kind and URL."""

    name: str
    kind: str
    url: str

    @classmethod
    def parse(cls, text: str) -> TargetSpec:
        """`[NAME=]URL`; ValueError names what is wrong."""
        name, sep, url = text.partition("=")
        if not sep or "://" in name or name.startswith("file:"):
            name, url = "", text
        url = url.strip()
        if url.startswith("file:"):
            path = url.removeprefix("file:").removeprefix("//")
            if not path:
                raise ValueError(f"{text!r}: file: names no file")
            kind, default = "file", "file-" + path.rstrip("/").rsplit("/", 1)[-1]
        elif url.startswith(("nats://", "tls://")):
            from .nats_stream import NatsUrl

            parsed = NatsUrl.parse(url)
            kind, default = "nats", "nats-" + parsed.stream
        elif url.startswith(("https://", "http://")):
            from urllib.parse import urlsplit

            kind, default = "webhook", "webhook-" + (urlsplit(url).hostname or "")
        else:
            raise ValueError(
                f"{text!r} is not an export target: file:PATH, nats://HOST:PORT/STREAM[/subject] "
                "or https://HOST/PATH"
            )
        name = name.strip() or re.sub(r"[^A-Za-z0-9._:-]", "_", default)[:MAX_NAME]
        if len(name) > MAX_NAME or not _NAME.match(name):
            raise ValueError(
                f"exporter name {name!r}: letters, digits, '.', '_', ':', '-', at most {MAX_NAME}"
            )
        return cls(name, kind, url)

    @property
    def file_path(self) -> str:
        return self.url.removeprefix("file:").removeprefix("//")
