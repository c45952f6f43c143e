"""The asynchronous history projection: tails the log from its checkpoint and writes ACT_HI_* rows
in large batches, the checkpoint committed in the same transaction as the rows.

With history projected this way, a command writes its log row and runtime rows only; history
follows within a moment, and a crash loses nothing (the follower restarts at its checkpoint, and
rows and checkpoint move together or not at all). One batch runs in the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy.engine import Connection

from core import events as ev
from core.state import InstanceState
from eventlog import EventStore

from .changes import ChangeSet, SqlRowStore, WritePlan
from .history import HistoryProjector
from .replay import Replayer, state_at

CHECKPOINT = "history"
SCHEMA_VERSION = 1


class Decoder(Protocol):
    def decode(self, data: bytes) -> list[ev.Event]: ...


@dataclass(frozen=True, slots=True)
class HistoryBatch:
    """History rows for the commits after `after_position` up to `last_position`."""

    after_position: int
    last_position: int
    events: int
    plan: WritePlan


class HistoryFollower:
    """Projects history for the commits after the `history` checkpoint, a batch at a time."""

    def __init__(
        self, store: EventStore, codec: Decoder, history: HistoryProjector, rows: SqlRowStore
    ) -> None:
        self._store = store
        self._codec = codec
        self._rows = rows
        self._conn: Connection | None = None
        self._replayer = Replayer(self._load, history=history, runtime=False, repository=False)

    def start_at_head(self, conn: Connection, now: datetime) -> None:
        """Begin following where the log ends now, unless a checkpoint exists already."""
        if self._store.checkpoint(conn, CHECKPOINT, lock=True) is None:
            head = self._store.head_position(conn)
            self._store.save_checkpoint(conn, CHECKPOINT, head, SCHEMA_VERSION, now)

    def catch_up(self, conn: Connection, now: datetime, max_events: int = 20_000) -> int:
        """Project up to about `max_events` events past the checkpoint and write them, all in
        the caller's (write) transaction; returns how many events were projected (0: current)."""
        batch = self.prepare(conn, max_events)
        if batch is None:
            return 0
        self.write(conn, batch, now)
        return batch.events

    def prepare(self, conn: Connection, max_events: int = 20_000) -> HistoryBatch | None:
        """Read and project the commits after the checkpoint; a read transaction is enough, so
        the database's write lock is not held while Python works."""
        position = self._store.checkpoint(conn, CHECKPOINT)
        if position is None:
            return None
        changes = ChangeSet()
        projected = 0
        last = position
        self._conn = conn
        try:
            for entry in self._store.entries(conn, after_position=position):
                events = self._codec.decode(entry.events)
                self._replayer.project(
                    entry.stream_id, entry.first_version, entry.last_version, events, changes
                )
                projected += len(events)
                last = entry.last_position
                if projected >= max_events:
                    break
        finally:
            self._conn = None
        if not projected:
            return None
        return HistoryBatch(position, last, projected, self._rows.plan(conn.dialect, changes))

    def write(self, conn: Connection, batch: HistoryBatch, now: datetime) -> bool:
        """Write a prepared batch and move the checkpoint, in the caller's write transaction;
        False (nothing written) when another follower moved the checkpoint meanwhile."""
        if self._store.checkpoint(conn, CHECKPOINT, lock=True) != batch.after_position:
            return False
        self._rows.run(conn, batch.plan)
        self._store.save_checkpoint(conn, CHECKPOINT, batch.last_position, SCHEMA_VERSION, now)
        return True

    def lag(self, conn: Connection) -> int | None:
        """Events committed but not yet in history; None when history is not followed."""
        position = self._store.checkpoint(conn, CHECKPOINT)
        if position is None:
            return None
        return self._store.head_position(conn) - position

    def _load(self, stream_id: str, version: int) -> InstanceState | None:
        assert self._conn is not None
        return state_at(self._store, self._conn, self._codec, stream_id, version)
