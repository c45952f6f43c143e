"""The deferred projection: runtime and history rows written behind the log, many commands at once.

In deferred mode a command's transaction writes the log, its command-log row and the tables
commands look rows up in (the engine names them); every other row it computed is handed here
(`register`), under the position and hash of each commit it belongs to. `catch_up` writes the
rows of the commits after the `deferred` checkpoint in one transaction with the checkpoint,
merged to their net effect: a task created and completed within one batch is never written.

A commit nothing was registered for — written by another process, or before a crash lost what
this process held — is projected again from the log, as a rebuild projects it. The tables come
out the same either way: the command's rows are the ones replay computes (the property tests
hold live tables to a rebuild), and a registered change set is used only for the very commits
it was computed for (position and chain hash both match: a rolled-back commit's position is
reused by the next one).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice

from sqlalchemy import Table
from sqlalchemy.engine import Connection

from flowledger.core.state import InstanceState
from flowledger.eventlog import EventStore, StoredCommit
from flowledger.eventlog.records import LogEntry

from .changes import ChangeSet, SqlRowStore
from .follower import Decoder
from .history import HistoryProjector
from .replay import Replayer, state_at

CHECKPOINT = "deferred"
SCHEMA_VERSION = 1
# Commits projected in one transaction: bounds the memory of a batch and the time SQLite's one
# write lock is held by it (a backlog is caught up in several).
BATCH_COMMITS = 2_000
# Commands whose rows wait in memory at most; rows of older ones are projected from the log
# when their turn comes (a projection that cannot write for a while costs memory no more).
MAX_REGISTERED = 20_000


@dataclass(frozen=True, slots=True)
class _Registered:
    """The rows one command computed, for its commits (position, hash) in log order."""

    commits: tuple[tuple[int, str], ...]
    streams: tuple[str, ...]
    changes: ChangeSet


@dataclass(frozen=True, slots=True)
class CaughtUp:
    """What one `catch_up` did."""

    commits: int  # commits projected (0: the tables had reached the log's end)
    position: int  # the checkpoint after it
    replayed: int  # of them, commits projected from the log (nothing registered)


class DeferredProjector:
    """Writes registered (or replayed) rows for the commits after the `deferred` checkpoint."""

    def __init__(
        self,
        store: EventStore,
        codec: Decoder,
        history: Callable[[], HistoryProjector],
        rows: SqlRowStore,
        deferred: Callable[[Table], bool],
    ) -> None:
        self._store = store
        self._codec = codec
        self._history = history
        self._rows = rows
        self.deferred = deferred
        self._registered: dict[int, _Registered] = {}  # by the first commit's position
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._replayer: Replayer | None = None
        self._replayer_level: int | None = None

    def register(self, commits: Sequence[StoredCommit], changes: ChangeSet) -> None:
        """The deferred rows of one command, whose transaction appended `commits` (in order,
        consecutive positions). Called before that transaction commits: rows of a commit that
        rolls back are never used (its position comes back with another hash)."""
        if not commits:
            return
        entry = _Registered(
            tuple((c.first_position, c.hash) for c in commits),
            tuple(c.stream_id for c in commits),
            changes,
        )
        with self._lock:
            self._registered[commits[0].first_position] = entry
            while len(self._registered) > MAX_REGISTERED:
                del self._registered[next(iter(self._registered))]

    @property
    def waiting(self) -> int:
        """Commands whose rows are held in memory, not yet written."""
        return len(self._registered)

    def catch_up(
        self, conn: Connection, now: datetime, max_commits: int = BATCH_COMMITS
    ) -> CaughtUp | None:
        """Project up to `max_commits` commits after the checkpoint and move it past them, in
        the caller's write transaction (which must hold the database's write lock: SQLite's, or
        the checkpoint row's). None when the database has no deferred checkpoint."""
        position = self._store.checkpoint(conn, CHECKPOINT, lock=True)
        if position is None:
            return None
        self._prune(position)
        entries = list(islice(self._store.entries(conn, after_position=position), max_commits))
        if not entries:
            return CaughtUp(0, position, 0)
        changes = ChangeSet()
        replayed = 0
        self._conn = conn
        try:
            i = 0
            while i < len(entries):
                used = self._use_registered(entries, i, changes)
                if used:
                    i += used
                    continue
                self._replay(entries[i], changes)
                replayed += 1
                i += 1
        except BaseException:
            if self._replayer is not None:
                self._replayer.forget()
            raise
        finally:
            self._conn = None
        self._rows.run(conn, self._rows.plan(conn.dialect, changes))
        last = entries[-1].last_position
        self._store.move_checkpoint(conn, CHECKPOINT, last, now)
        return CaughtUp(len(entries), last, replayed)

    def _prune(self, position: int) -> None:
        """Forget the rows of commits the checkpoint has passed (written, by anyone)."""
        with self._lock:
            done = [p for p in self._registered if p <= position]
            for p in done:
                del self._registered[p]

    def _use_registered(self, entries: list[LogEntry], i: int, changes: ChangeSet) -> int:
        """Merge the registered rows of the command whose first commit is `entries[i]`; the
        number of commits they cover, 0 when none match. Used rows are taken out: merging
        may change them in place, and should this transaction roll back, those commits are
        projected from the log instead."""
        with self._lock:
            found = self._registered.pop(entries[i].first_position, None)
        if found is None or i + len(found.commits) > len(entries):
            return 0
        for k, (first_position, digest) in enumerate(found.commits):
            entry = entries[i + k]
            if entry.first_position != first_position or entry.hash != digest:
                return 0
        changes.merge(found.changes)
        if self._replayer is not None:
            for stream_id in found.streams:
                self._replayer.forget_stream(stream_id)  # it moved on without the replayer
        return len(found.commits)

    def _replay(self, entry: LogEntry, changes: ChangeSet) -> None:
        own = ChangeSet()
        self._replaying().project_commit(entry, self._codec.decode(entry.events), own)
        changes.merge(own.split_off(self.deferred))

    def _replaying(self) -> Replayer:
        history = self._history()
        if self._replayer is None or self._replayer_level != history.level:
            self._replayer = Replayer(self._load, history=history, runtime=True, repository=True)
            self._replayer_level = history.level
        return self._replayer

    def _load(self, stream_id: str, version: int) -> InstanceState | None:
        assert self._conn is not None
        return state_at(self._store, self._conn, self._codec, stream_id, version)

    def lag(self, conn: Connection) -> tuple[int, int] | None:
        """(log head, checkpoint), or None when the database projects inline."""
        head, position = self._store.head_and_checkpoint(conn, CHECKPOINT)
        return None if position is None else (head, position)
