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

from flowledger.core import events as ev
from flowledger.core.state import InstanceState
from flowledger.eventlog import EventStore
from flowledger.eventlog.records import LogEntry

from .changes import ChangeSet, SqlRowStore, WritePlan
from .history import HISTORY_LEVELS, HistoryProjector
from .properties import stored_history_level
from .replay import Replayer, state_at

CHECKPOINT = "history"
SCHEMA_VERSION = 1
FOLLOWING = "following"
FAILED = "failed"  # stopped at a commit it cannot project; `detail` says which and why
MAX_DETAIL = 4000


@dataclass(frozen=True, slots=True)
class CheckpointStatus:
    """Where the history follower stands, as every process on the database sees it."""

    position: int
    status: str  # FOLLOWING | FAILED
    updated_at: datetime  # last batch or heartbeat of a follower (UTC)
    detail: str | None


class HistoryStopped(Exception):
    """The follower must stop: trying again would not help (its reason is the message)."""


class ProjectionFailed(HistoryStopped):
    """A commit that cannot be projected: the same error comes back on every try."""

    def __init__(self, position: int, stream_id: str, command_id: str, cause: BaseException):
        self.position = position
        self.stream_id = stream_id
        self.command_id = command_id
        self.cause = cause
        super().__init__(
            f"cannot project the commit at position {position} (stream {stream_id}, command "
            f"{command_id}): {type(cause).__name__}: {_first_line(cause)}"
        )


def _first_line(exc: BaseException) -> str:
    # Database errors carry the whole statement and its parameters: one line says enough.
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


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

    checkpoint = CHECKPOINT  # its row in projection_checkpoint

    def __init__(
        self, store: EventStore, codec: Decoder, history: HistoryProjector, rows: SqlRowStore
    ) -> None:
        self._store = store
        self._codec = codec
        self._rows = rows
        self._conn: Connection | None = None
        self.use(history)

    def use(self, history: HistoryProjector) -> None:
        """Project with `history` from the next batch on (the history level changed)."""
        self._history = history
        self._replayer = Replayer(self._load, history=history, runtime=False, repository=False)

    def _project(self, entry: LogEntry, events: list[ev.Event], changes: ChangeSet) -> None:
        """Add one commit's rows to the batch."""
        self._replayer.project_commit(entry, events, changes)

    def _follow_level(self, conn: Connection) -> None:
        """Project at the level the tables are built at now: an engine may have rebuilt them at
        another one (`Engine.set_history_level`) since this follower started. That rebuild also
        moved the checkpoint, so a batch prepared at the old level is never written."""
        level = stored_history_level(conn)
        if level is not None and HISTORY_LEVELS[level] != self._history.level:
            self.use(HistoryProjector(level))

    def start_at_head(self, conn: Connection, now: datetime) -> CheckpointStatus | None:
        """Begin following where the log ends now, unless a checkpoint exists already; a
        follower that had stopped at a commit it could not project is given another try.
        Returns the status found (None: there was no checkpoint)."""
        found = self.status(conn, lock=True)
        if found is None:
            head = self._store.head_position(conn)
            self._store.save_checkpoint(conn, self.checkpoint, head, SCHEMA_VERSION, now)
        elif found.status == FAILED:
            self._store.set_checkpoint_status(conn, self.checkpoint, FOLLOWING, None, now)
        return found

    def status(self, conn: Connection, *, lock: bool = False) -> CheckpointStatus | None:
        row = self._store.checkpoint_row(conn, self.checkpoint, lock=lock)
        return None if row is None else CheckpointStatus(*row)

    def heartbeat(self, conn: Connection, now: datetime) -> None:
        """Say that a follower is alive while there is nothing to project (other engines
        opened on the database leave history to a live follower, see `Engine`). Raises
        HistoryStopped when there is nothing left to follow: another follower failed, or an
        engine took history over (inline) after this one had gone quiet for too long."""
        if self._store.touch_checkpoint(conn, self.checkpoint, FOLLOWING, now):
            return
        found = self.status(conn)
        if found is None:
            raise HistoryStopped(
                "the history checkpoint is gone: an engine with inline history took history "
                "over; start this engine again to follow"
            )
        if found.status == FAILED:
            raise HistoryStopped(found.detail or "history projection stopped")

    def fail(self, conn: Connection, failure: ProjectionFailed, now: datetime) -> None:
        """Record that history stopped at `failure`'s commit, for every process to see."""
        detail = str(failure)[:MAX_DETAIL]
        self._store.set_checkpoint_status(conn, self.checkpoint, FAILED, detail, now)

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
        the database's write lock is not held while Python works. Nothing while the follower
        stands failed: it resumes only when an engine starts it again."""
        found = self.status(conn)
        if found is None or found.status == FAILED:
            return None
        self._follow_level(conn)
        position = found.position
        changes = ChangeSet()
        projected = 0
        last = position
        self._conn = conn
        try:
            for entry in self._store.entries(conn, after_position=position):
                events = self._codec.decode(entry.events)
                self._project(entry, events, changes)
                projected += len(events)
                last = entry.last_position
                if projected >= max_events:
                    break
        except BaseException:
            self._replayer.forget()
            raise
        finally:
            self._conn = None
        if not projected:
            return None
        return HistoryBatch(position, last, projected, self._rows.plan(conn.dialect, changes))

    def write(self, conn: Connection, batch: HistoryBatch, now: datetime) -> bool:
        """Write a prepared batch and move the checkpoint, in the caller's write transaction;
        False (nothing written) when another follower moved the checkpoint meanwhile."""
        found = self.status(conn, lock=True)
        if found is None or found.status == FAILED or found.position != batch.after_position:
            return False
        self._rows.run(conn, batch.plan)
        self._store.move_checkpoint(conn, self.checkpoint, batch.last_position, now)
        return True

    def lag(self, conn: Connection) -> int | None:
        """Events committed but not yet in history; None when history is not followed."""
        position = self._store.checkpoint(conn, self.checkpoint)
        if position is None:
            return None
        return self._store.head_position(conn) - position

    def failing_commit(self, conn: Connection, cause: BaseException) -> ProjectionFailed:
        """The first commit after the checkpoint, which a batch of one failed on with `cause`."""
        position = self._store.checkpoint(conn, self.checkpoint) or 0
        for commit in self._store.read_all(conn, after_position=position, batch_size=1):
            return ProjectionFailed(
                commit.first_position, commit.stream_id, commit.command_id, cause
            )
        return ProjectionFailed(position + 1, "(none)", "(none)", cause)

    def _load(self, stream_id: str, version: int) -> InstanceState | None:
        assert self._conn is not None
        return state_at(self._store, self._conn, self._codec, stream_id, version)
