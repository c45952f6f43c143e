"""Where signed heads are published and read back: a file of published heads (one JSON document
a line, `eventlog.signed_heads.publish`) or a NATS JetStream stream
(`nats://HOST:PORT/STREAM[/subject]`, one message per head, the signed note as its body).

For `serve --publish-heads`, `Engine.publish_heads` and `verify --against-published`. A head is
published only once the stream acknowledged it; its message id is the head (size and root), so
a head published twice within the stream's duplicate window is kept once.

Must not: change the file format, or accept a head back without its signature being checked by
the caller.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from flowledger.eventlog import signed_heads

from .exporters.nats_stream import NatsError, NatsStream, NatsUrl

HEADS_SUBJECT = "heads"  # the subject's last token when the URL names none: <stream>.heads


def is_nats(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("nats://", "tls://"))


def parse(target: str | Path) -> str | Path:
    """A target as given on the command line: a NATS URL (checked), else a file's path."""
    if is_nats(target):
        NatsUrl.parse(str(target))
        return str(target)
    return Path(target)


def _subject(url: NatsUrl) -> str:
    return url.subject or f"{url.stream.lower()}.{HEADS_SUBJECT}"


def publish(target: str | Path, note: str) -> None:
    """Publish one signed head; raises (OSError, NatsError) when it was not."""
    if not is_nats(target):
        signed_heads.publish(Path(target), note)
        return
    url = NatsUrl.parse(str(target))
    subject = _subject(url)
    digest = hashlib.sha256(note.split("\n\n", 1)[0].encode()).hexdigest()[:32]
    with NatsStream(url) as stream:
        stream.ensure([subject])
        stream.publish(subject, note.encode(), f"head/{digest}", {"Content-Type": "text/plain"})


def published(target: str | Path) -> list[str]:
    """Every published signed head, oldest first; HeadError when they cannot be read."""
    if not is_nats(target):
        return signed_heads.published(Path(target))
    try:
        url = NatsUrl.parse(str(target))
        with NatsStream(url) as stream:
            return [body.decode() for body in stream.messages(_subject(url))]
    except (NatsError, ValueError, UnicodeDecodeError) as exc:
        raise signed_heads.HeadError(f"cannot read the published heads: {exc}") from None
