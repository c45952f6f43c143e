"""The deferred projection: runtime and history rows written behind the log, many commands at once.

In deferred mode a command's transaction writes the log, its command-log row and the tables that
commands look rows up in (the engine names them, `keep_inline`); every other row is written by
this follower, which tails the log from the `deferred` checkpoint exactly as the asynchronous
history follower does — a batch is projected on a read snapshot, then written with the checkpoint
in one short write transaction that first checks the checkpoint has not moved — but projects each
commit through the repository, runtime and history projectors, as a rebuild does, and keeps the
rows of the deferred tables only. Merged to their net effect, a task created and completed within
one batch is never written; rows and checkpoint commit together, so a crash loses or repeats
nothing. The tables come out as a rebuild makes them (the property tests hold them to one).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Table

from flowledger.core import events as ev
from flowledger.eventlog import EventStore
from flowledger.eventlog.records import LogEntry

from .changes import ChangeSet, SqlRowStore
from .follower import Decoder, HistoryFollower
from .history import HistoryProjector
from .replay import Replayer

CHECKPOINT = "deferred"


class DeferredFollower(HistoryFollower):
    """Writes the rows of the tables `deferred` picks for the commits after its checkpoint."""

    checkpoint = CHECKPOINT

    def __init__(
        self,
        store: EventStore,
        codec: Decoder,
        history: HistoryProjector,
        rows: SqlRowStore,
        deferred: Callable[[Table], bool],
    ) -> None:
        self.deferred = deferred
        super().__init__(store, codec, history, rows)

    def use(self, history: HistoryProjector) -> None:
        self._history = history
        self._replayer = Replayer(self._load, history=history, runtime=True, repository=True)

    def _project(self, entry: LogEntry, events: list[ev.Event], changes: ChangeSet) -> None:
        own = ChangeSet()
        self._replayer.project_commit(entry, events, own)
        changes.merge(own.split_off(self.deferred))
