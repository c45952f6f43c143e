"""One command's unit of work: the streams it touches, the rows it changes, and their append.

Handlers decide through it (instance sessions, new deployment events, guards); the command bus
flushes it in the write transaction and publishes it after commit. It never commits or retries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from flowledger.core import decide
from flowledger.core import events as ev
from flowledger.core.errors import NotFound
from flowledger.core.limits import refuse_nul_in_events
from flowledger.core.model import ProcessModel
from flowledger.core.session import CommandContext, InstanceSession
from flowledger.core.state import InstanceState
from flowledger.eventlog import EventCodec, EventStore, NewCommit, StoredCommit
from flowledger.projections.changes import ChangeSet, SqlRowStore
from flowledger.projections.history import HistoryProjector
from flowledger.projections.runtime import RuntimeBatch

from .history_lifecycle import HistoryLifecycle
from .repository import Owned, Repository
from .state_cache import Cached


@dataclass(frozen=True, slots=True)
class Wiring:
    """What every unit of work of one engine works with."""

    store: EventStore
    codec: EventCodec
    rows: SqlRowStore
    repository: Repository
    history: HistoryLifecycle
    delegates: Mapping[str, Any]
    allow_scripts: bool


class UnitOfWork:
    """The sessions, deployment events, guards and row changes of one command."""

    def __init__(
        self,
        wiring: Wiring,
        conn: Connection,
        now: datetime,
        command_id: str,
        new_id: Callable[[], str],
    ) -> None:
        self._wiring = wiring
        self.conn = conn
        self.store = wiring.store
        self.repository = wiring.repository
        # None while history follows the log asynchronously: the command writes runtime only.
        self.history: HistoryProjector | None = wiring.history.inline_projector
        self.ctx = CommandContext(
            now=now,
            new_id=new_id,
            delegates=wiring.delegates,
            allow_scripts=wiring.allow_scripts,
        )
        self.command_id = command_id
        self.changes = ChangeSet()
        self.instances: dict[str, tuple[InstanceSession, int, str | None, RuntimeBatch]] = {}
        # Deployment streams: (stream id, expected version, head hash, events).
        self._other_streams: list[tuple[str, int, str | None, list[ev.Event]]] = []
        # Checks run after the append, when the log head lock orders this command after every
        # command that committed before; a failed check raises ConcurrencyError (decide again).
        self.guards: list[Callable[[Connection], None]] = []

    def _session(
        self, state: InstanceState | None, model: ProcessModel
    ) -> tuple[InstanceSession, RuntimeBatch]:
        batch = RuntimeBatch()
        history = self.history
        if history is None:
            return InstanceSession(state, model, self.ctx, batch.observe), batch
        changes = self.changes

        def observe(event: ev.Event, before: InstanceState | None) -> None:
            batch.observe(event, before)
            history.observe(event, before, changes)

        return InstanceSession(state, model, self.ctx, observe), batch

    def start_instance(self, model: ProcessModel, **start: Any) -> InstanceSession:
        """Start a new instance stream (expected version 0) and run it to its wait states."""
        session, batch = self._session(None, model)
        instance_id = decide.start_instance(session, model, **start)
        self.instances[instance_id] = (session, 0, None, batch)
        return session

    def instance(self, instance_id: str, *, ended_ok: bool = False) -> InstanceSession:
        """The instance's session; a finished one only with `ended_ok` (to delete its history)."""
        if instance_id in self.instances:
            return self.instances[instance_id][0]
        # Fresh, not merely cached: another engine on the database may have moved the instance,
        # and a decision on stale state could refuse a task that exists or miss one.
        cached = self.repository.load_fresh(self.conn, instance_id)
        if cached is None:
            raise NotFound("Process instance", instance_id)
        if cached.state.ended and not ended_ok:
            raise NotFound("Process instance", instance_id, "it has already ended")
        state = cached.state
        model = self.repository.model(self.conn, state.definition_id, state.deployment_id)
        session, batch = self._session(cached.state, model)
        self.instances[instance_id] = (session, cached.version, cached.head_hash, batch)
        return session

    def instance_owning(self, kind: Owned, entity_id: str, detail: str = "") -> InstanceSession:
        """The session of the instance an execution, task or external task belongs to."""
        return self.instance(self.repository.instance_of(self.conn, kind, entity_id, detail))

    def append(
        self, stream_id: str, expected_version: int, head_hash: str | None, events: list[ev.Event]
    ) -> None:
        """Events for a stream that is not an instance's (a deployment's)."""
        self._other_streams.append((stream_id, expected_version, head_hash, events))

    def flush(
        self, conn: Connection, command_type: str, actor: str | None, check_heads: bool
    ) -> list[StoredCommit]:
        """Append one commit per touched stream, then write the rows and due snapshots."""
        wiring = self._wiring
        commits: list[NewCommit] = []
        for stream_id, (session, version, head, batch) in self.instances.items():
            if not session.events:
                continue
            commits.append(
                self._commit(stream_id, version, head, session.events, command_type, actor)
            )
            batch.finish(session.state, self.changes)
        # After the instances: a deployment deleted with cascade ends its instances first.
        for stream_id, version, head, events in self._other_streams:
            commits.append(self._commit(stream_id, version, head, events, command_type, actor))
        stored = self.store.append(conn, commits, self.ctx.now, check_heads=check_heads)
        for guard in self.guards:
            guard(conn)
        wiring.rows.apply(conn, self.changes)
        by_stream = {c.stream_id: c for c in stored}
        for stream_id, (session, _v, _h, _b) in self.instances.items():
            commit = by_stream.get(stream_id)
            if commit is not None:
                self.repository.snapshot_if_due(
                    conn, session.state, len(session.events), commit, self.ctx.now
                )
        return stored

    def _commit(
        self,
        stream_id: str,
        version: int,
        head: str | None,
        events: list[ev.Event],
        command_type: str,
        actor: str | None,
    ) -> NewCommit:
        encoded = self._wiring.codec.encode(events)
        refuse_nul_in_events(encoded, events)
        return NewCommit(
            stream_id=stream_id,
            expected_version=version,
            prev_hash=head,
            events=encoded,
            event_count=len(events),
            command_id=self.command_id,
            command_type=command_type,
            actor=actor,
        )

    def publish(self, stored: list[StoredCommit]) -> None:
        """After commit: the decided states become the cached truth."""
        by_stream = {c.stream_id: c for c in stored}
        for stream_id, (session, _v, _h, _b) in self.instances.items():
            commit = by_stream.get(stream_id)
            if commit is not None and session.started:
                self.repository.remember(
                    stream_id, Cached(session.state, commit.last_version, commit.hash)
                )

    def discard(self) -> None:
        """After a failure: the sessions' states may be half decided, so none is kept."""
        for stream_id in self.instances:
            self.repository.forget(stream_id)
