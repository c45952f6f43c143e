"""What the event store reads and writes: commits, command records, snapshots, verify findings.

Plain frozen records with no behaviour, shared by the store (store.py) and its integrity checks
(integrity.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple


@dataclass(frozen=True, slots=True)
class NewCommit:
    """The events one command appends to one stream, decided on the stream at `expected_version`."""

    stream_id: str
    expected_version: int
    prev_hash: str | None
    events: bytes
    event_count: int
    command_id: str
    command_type: str
    actor: str | None = None
    causation_position: int | None = None
    via: str | None = None


@dataclass(frozen=True, slots=True)
class StoredCommit:
    first_position: int
    last_position: int
    stream_id: str
    first_version: int
    last_version: int
    events: bytes
    command_id: str
    command_type: str
    actor: str | None
    causation_position: int | None
    recorded_at: datetime
    prev_hash: str | None
    hash: str
    via: str | None = None


class LogEntry(NamedTuple):
    """A commit as the projectors replay it."""

    stream_id: str
    first_version: int
    last_version: int
    last_position: int
    events: bytes
    # Who issued the commit's command and what it was: the user operation log is made of these.
    command_id: str = ""
    command_type: str = ""
    actor: str | None = None


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """A command as the audit trail keeps it, accepted or rejected."""

    command_id: str
    command_type: str
    payload: bytes
    status: str
    received_at: datetime
    reason: str | None = None
    result: bytes | None = None
    first_position: int | None = None
    last_position: int | None = None
    actor: str | None = None
    via: str | None = None


@dataclass(frozen=True, slots=True)
class Snapshot:
    stream_id: str
    version: int
    position: int
    state_schema: int
    state: bytes


@dataclass(frozen=True, slots=True)
class LogProblem:
    """One finding of `verify`: where the log is not what it was when written."""

    kind: str
    stream_id: str | None
    position: int | None
    detail: str
    command_id: str | None = None

    def __str__(self) -> str:
        if self.stream_id:
            where = f"stream {self.stream_id}"
        elif self.command_id:
            where = f"command {self.command_id}"
        else:
            where = "log"
        if self.command_id and self.stream_id:
            where += f" (command {self.command_id})"
        if self.position is not None:
            where += f" at position {self.position}"
        return f"{self.kind}: {where}: {self.detail}"
