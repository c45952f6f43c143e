"""Errors of the event store.

Plain exceptions: the store knows nothing about the engine's domain.
"""

from __future__ import annotations


class ConcurrencyError(Exception):
    """Another writer appended to the stream since the caller read it; reload and retry."""

    def __init__(self, stream_id: str, expected_version: int) -> None:
        self.stream_id = stream_id
        self.expected_version = expected_version
        super().__init__(
            f"Stream '{stream_id}' was changed concurrently "
            f"(expected version {expected_version} is no longer the head)"
        )


class CodecError(Exception):
    """A stored commit could not be decoded (unknown type, missing upcaster, bad JSON)."""


class CorruptStream(Exception):
    """A stream read for a command does not verify: a commit was edited, removed or inserted
    behind the store's back. Nothing may be appended to it until an operator looks."""

    def __init__(self, stream_id: str, position: int, detail: str) -> None:
        self.stream_id = stream_id
        self.position = position
        self.detail = detail
        super().__init__(
            f"Stream '{stream_id}' is corrupt at position {position}: {detail}; refusing to "
            "append to it (run `flowledger verify`)"
        )
