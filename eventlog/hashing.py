"""The per-stream SHA-256 hash chain that makes the log tamper-evident.

Pure: no I/O. A commit's hash covers its predecessor's hash and every stored column of the commit.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

_SEP = b"\x1f"


def commit_hash(
    *,
    prev_hash: str | None,
    stream_id: str,
    first_version: int,
    last_version: int,
    first_position: int,
    last_position: int,
    command_id: str,
    command_type: str,
    actor: str | None,
    causation_position: int | None,
    recorded_at: datetime,
    events: bytes,
    via: str | None = None,
) -> str:
    h = hashlib.sha256()
    for part in (
        prev_hash or "",
        stream_id,
        str(first_version),
        str(last_version),
        str(first_position),
        str(last_position),
        command_id,
        command_type,
        actor or "",
        "" if causation_position is None else str(causation_position),
        recorded_at.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3],
    ):
        h.update(part.encode())
        h.update(_SEP)
    if via is not None:
        # Only when set: commits written before the column existed keep their hashes.
        h.update(b"via=" + via.encode())
        h.update(_SEP)
    h.update(events)
    return h.hexdigest()


def anchor_step(previous: str, commit_digest: str) -> str:
    """The log anchor after one more commit: SHA-256 over the anchor before it and the commit's
    hash, so the anchor at a position covers every commit up to it, in position order."""
    return hashlib.sha256(f"{previous}{commit_digest}".encode()).hexdigest()
