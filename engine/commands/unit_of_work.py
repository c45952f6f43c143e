"""One command's unit of work: the streams it touches, the rows it changes, and their append.

Handlers decide through it (instance sessions, new deployment events, guards); the command bus
flushes it in the write transaction and publishes it after commit. It never commits or retries.
The states it decides on are its own (checked out of the engine's cache), so commands of one
engine may run in several threads at once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from sqlalchemy import Table
from sqlalchemy.engine import Connection, Dialect

from flowledger.core import events as ev
from flowledger.core import instance_start
from flowledger.core.batches.model import DEFAULT_BATCH_SETTINGS, BatchSettings
from flowledger.core.errors import NotFound
from flowledger.core.limits import refuse_nul_in_events
from flowledger.core.model import ProcessModel
from flowledger.core.outbound import RecordedCalls
from flowledger.core.session import CommandContext, InstanceSession
from flowledger.core.state import InstanceState
from flowledger.engine.commands import decision_lookup
from flowledger.engine.lookups import CATCH_UP
from flowledger.engine.personal_data.keys import SubjectKeys
from flowledger.engine.personal_data.sealing import CommandSeals
from flowledger.engine.storage.state_cache import Cached
from flowledger.engine.storage.streams import Owned, Repository, holds
from flowledger.eventlog import EventCodec, EventStore, NewCommit, StoredCommit
from flowledger.projections.changes import ChangeSet, SqlRowStore, WritePlan
from flowledger.projections.history import HistoryProjector
from flowledger.projections.operation_log import Operation, operation_logger
from flowledger.projections.repository import project_repository
from flowledger.projections.runtime import RuntimeBatch, batch_owned

if TYPE_CHECKING:
    from flowledger.engine.workers.history_lifecycle import HistoryLifecycle

# A decision made inside SQLite's write transaction that emits more events than this is large:
# it is rolled back and decided again beside the writer (bus.py). Small commands, nearly all of
# them, emit tens.
LARGE_DECISION_EVENTS = 2_000


class DecisionTooLarge(BaseException):  # a signal to the bus, past every `except Exception`
    """The decision emitted more events than one made inside the write transaction may."""


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
    history_ttl_days: int | None = None
    # The camunda:connectorIds this engine's outbound policy enables (deployments are held to it).
    connectors: frozenset[str] = frozenset()
    removal_time_strategy: str = "end"
    # Deferred projection: which tables a follower writes behind the log (the command leaves
    # their rows out), and the catch-up a lookup of one runs first in the command's transaction.
    deferred: Callable[[Table], bool] | None = None
    catch_up: Callable[[Connection], None] | None = None
    # ... and the one of a command decided on a transaction of its own (a server database's):
    # the tail is written in short transactions beside it, which it then reads (READ COMMITTED).
    catch_up_beside: Callable[[Connection], None] | None = None
    # The key table personal values are sealed with (engine/personal_data).
    personal_keys: SubjectKeys | None = None
    # Camunda's batch settings: jobs per seed run, targets per job, the monitor's poll time.
    batches: BatchSettings = DEFAULT_BATCH_SETTINGS


class UnitOfWork:
    """The sessions, deployment events, guards and row changes of one command."""

    def __init__(
        self,
        wiring: Wiring,
        conn: Connection,
        now: datetime,
        command_id: str,
        new_id: Callable[[], str],
        actor: str | None = None,
        via: str | None = None,
        command_type: str = "",
        outbound: RecordedCalls | None = None,
        event_limit: int | None = None,
    ) -> None:
        self._wiring = wiring
        self.via = via
        self.conn = conn
        self.store = wiring.store
        self.repository = wiring.repository
        self.connectors = wiring.connectors
        # None while history follows the log asynchronously: the command writes runtime only.
        self.history: HistoryProjector | None = wiring.history.inline_projector
        self._log_operation = operation_logger(
            self.history, Operation(command_id, command_type, actor)
        )
        self.ctx = CommandContext(
            now=now,
            new_id=new_id,
            delegates=wiring.delegates,
            allow_scripts=wiring.allow_scripts,
            actor=actor,
            history_ttl_days=wiring.history_ttl_days,
            removal_time_strategy=wiring.removal_time_strategy,
            decisions=partial(decision_lookup.by_reference, self),
            outbound=outbound if outbound is not None else RecordedCalls(),
        )
        self.command_id = command_id
        self.changes = ChangeSet()
        # the batch whose job this command runs, if one does (its operation's events name it)
        self.running_batch: str | None = None
        self.instances: dict[str, tuple[InstanceSession, int, str | None, RuntimeBatch]] = {}
        # The cached states checked out for deciding: handed back as they were when the command
        # emitted nothing on them.
        self._checked_out: dict[str, Cached] = {}
        # Deployment streams: (stream id, expected version, head hash, events).
        self._other_streams: list[tuple[str, int, str | None, list[ev.Event]]] = []
        # Checks run after the positions are assigned, when the log head lock orders this command
        # after every command that committed before; a failed check raises ConcurrencyError.
        self.guards: list[Callable[[Connection], None]] = []
        # Statements of the command beyond its rows and commits (erasure's key destruction),
        # run in the write transaction before the rows.
        self.writes: list[Callable[[Connection], None]] = []
        # The keys the command sealed personal values with (None: it sealed none).
        self.seals: CommandSeals | None = None
        # The encoded commits and planned row writes, once `prepare` ran.
        self._prepared: tuple[list[NewCommit], WritePlan] | None = None
        # Events the decision may emit before it raises DecisionTooLarge (None: any number).
        self._room = event_limit
        if conn.get_execution_options().get("flowledger_write"):
            conn.info[CATCH_UP] = wiring.catch_up
        elif conn.dialect.name != "sqlite":
            # A server database decides most commands on a transaction of their own, beside the
            # append: the tail is written beside it and committed at once. Written inside it, the
            # checkpoint's row lock would be held until the decision ends, and a second lookup
            # of the same decision could wait for another command that waits for that lock.
            # SQLite decides inside the write transaction, or beside it on a read that passed the
            # barrier (it cannot take the write lock from a read transaction without a deadlock).
            conn.info[CATCH_UP] = wiring.catch_up_beside
        else:
            conn.info.pop(CATCH_UP, None)

    def _session(
        self, state: InstanceState | None, model: ProcessModel
    ) -> tuple[InstanceSession, RuntimeBatch]:
        batch = RuntimeBatch()
        history = self.history
        observe: Callable[[ev.Event, InstanceState | None], None]
        if history is None:
            observe = batch.observe
        else:
            changes = self.changes
            log_operation = self._log_operation

            def observe(event: ev.Event, before: InstanceState | None) -> None:
                batch.observe(event, before)
                history.observe(event, before, changes)
                if log_operation is not None:
                    log_operation(event, before, changes)

        if self._room is not None:
            observe = self._counted(observe)
        return InstanceSession(state, model, self.ctx, observe), batch

    def _counted(
        self, observe: Callable[[ev.Event, InstanceState | None], None]
    ) -> Callable[[ev.Event, InstanceState | None], None]:
        """`observe`, raising DecisionTooLarge once the unit's sessions emitted too many."""

        def counted(event: ev.Event, before: InstanceState | None) -> None:
            assert self._room is not None
            self._room -= 1
            if self._room < 0:
                raise DecisionTooLarge
            observe(event, before)

        return counted

    def start_instance(self, model: ProcessModel, **start: Any) -> InstanceSession:
        """Start a new instance stream (expected version 0) and run it to its wait states."""
        session, batch = self._session(None, model)
        instance_id = instance_start.start_instance(session, model, **start)
        self.instances[instance_id] = (session, 0, None, batch)
        return session

    def begin_instance(
        self, model: ProcessModel, start: Callable[[InstanceSession], str]
    ) -> InstanceSession:
        """A new instance stream (expected version 0), its first events decided by `start`
        (which returns the new instance's id), e.g. a restart's (core.restart)."""
        session, batch = self._session(None, model)
        instance_id = start(session)
        self.instances[instance_id] = (session, 0, None, batch)
        return session

    def instance(self, instance_id: str, *, ended_ok: bool = False) -> InstanceSession:
        """The instance's session; a finished one only with `ended_ok` (to delete its history)."""
        if instance_id in self.instances:
            return self.instances[instance_id][0]
        # Fresh, not merely cached: another engine on the database may have moved the instance,
        # and a decision on stale state could refuse a task that exists or miss one.
        cached = self.repository.checkout(self.conn, instance_id)
        if cached is None:
            raise NotFound("Process instance", instance_id)
        self._checked_out[instance_id] = cached
        if cached.state.ended and not ended_ok:
            raise NotFound("Process instance", instance_id, "it has already ended")
        state = cached.state
        model = self.repository.model(self.conn, state.definition_id, state.deployment_id)
        session, batch = self._session(cached.state, model)
        self.instances[instance_id] = (session, cached.version, cached.head_hash, batch)
        return session

    def instance_owning(self, kind: Owned, entity_id: str, detail: str = "") -> InstanceSession:
        """The session of the instance an execution, task or external task belongs to."""
        owner = self.repository.known_owner(kind, entity_id)
        if owner is None:
            return self.instance(self.repository.instance_of(self.conn, kind, entity_id, detail))
        # Known from a command of this engine (an entity never changes instance): the state
        # says whether it still exists, as the runtime table would.
        try:
            session = self.instance(owner, ended_ok=True)
        except NotFound:
            raise NotFound(kind, entity_id, detail) from None
        if not holds(session.state, kind, entity_id):
            raise NotFound(kind, entity_id, detail)
        return session

    def append(
        self, stream_id: str, expected_version: int, head_hash: str | None, events: list[ev.Event]
    ) -> None:
        """Events for a stream that is not an instance's (a deployment's), projected here: onto
        the repository and runtime tables, and onto history when it is written inline."""
        self._other_streams.append((stream_id, expected_version, head_hash, events))
        for event in events:
            project_repository(event, self.changes)
            if self.history is not None:
                self.history.observe(event, None, self.changes)
            if self._log_operation is not None:
                self._log_operation(event, None, self.changes)

    def prepare(self, dialect: Dialect, command_type: str, actor: str | None) -> None:
        """What the write needs and no database round trip does: the commits encoded, the
        runtime rows finished, the statements and their parameters planned. A command that
        decided beside the writer prepares before it takes the lock, which it then holds only
        to write."""
        commits: list[NewCommit] = []
        deferred = self._wiring.deferred
        for stream_id, (session, version, head, batch) in self.instances.items():
            if not session.events:
                continue
            events = self._sealed(stream_id, session)
            commits.append(self._commit(stream_id, version, head, events, command_type, actor))
            batch.finish(session.state, self.changes, lookups_only=deferred is not None)
        # After the instances: a deployment deleted with cascade ends its instances first.
        for stream_id, version, head, events in self._other_streams:
            commits.append(self._commit(stream_id, version, head, events, command_type, actor))
        if deferred is not None:
            self.changes.split_off(deferred)  # the follower writes those from the log
        self._prepared = (commits, self._wiring.rows.plan(dialect, self.changes))

    def flush(
        self, conn: Connection, command_type: str, actor: str | None, check_heads: bool
    ) -> list[StoredCommit]:
        """Write the rows, then append one commit per touched stream, then run the guards and
        write due snapshots: the log head's lock is taken at the append and held until commit,
        so it covers only assigning positions and what must be ordered with them.

        `check_heads`: the command decided on a snapshot, so the streams' heads are checked and
        the guards run. A command that decided in this write transaction (SQLite's one writer, or
        under the log head lock) saw every commit before it: neither is needed."""
        if self._prepared is None:
            self.prepare(conn.dialect, command_type, actor)
        assert self._prepared is not None
        commits, plan = self._prepared
        if check_heads:
            # A stream that moved since the decision: retry before writing anything.
            self.store.check_heads(conn, commits)
        if self.seals is not None:
            SubjectKeys.write(conn, self.seals.new_rows)
        for write in self.writes:
            write(conn)
        # Rows before the log head: other commands keep appending while these statements run. A
        # writer racing us on a stream waits for our rows here, then loses on a unique key of a
        # row we both insert or on the log's UNIQUE(stream_id, first_version) below.
        self._wiring.rows.run(conn, plan)
        stored = self.store.append(conn, commits, self.ctx.now, check_heads=False)
        if check_heads:
            for guard in self.guards:
                guard(conn)
        by_stream = {c.stream_id: c for c in stored}
        for stream_id, (session, _v, _h, _b) in self.instances.items():
            commit = by_stream.get(stream_id)
            if commit is not None:
                self.repository.snapshot_if_due(
                    conn, session.state, len(session.events), commit, self.ctx.now
                )
        return stored

    def _sealed(self, stream_id: str, session: InstanceSession) -> list[ev.Event]:
        """The session's events as the log keeps them: personal values sealed."""
        spec = session.model.personal_data
        events = session.events
        if spec is None and not any(
            type(e) is ev.VariableSet and e.value.info is not None for e in events
        ):
            return events
        if self.seals is None:
            assert self._wiring.personal_keys is not None
            self.seals = CommandSeals(self._wiring.personal_keys, self.conn, self.ctx.now)
        return self.seals.seal_events(stream_id, spec, session.state, events)

    @property
    def batch_settings(self) -> BatchSettings:
        return self._wiring.batches

    @property
    def codec(self) -> EventCodec:
        return self._wiring.codec

    def seal_record(self, data: bytes) -> bytes:
        """The command's payload or result as `command_log` keeps it (see CommandSeals)."""
        return data if self.seals is None else self.seals.seal_record(data)

    def appends(self) -> list[tuple[str, int]]:
        """(stream id, version decided on) of every stream this command appends to."""
        streams = [
            (sid, v) for sid, (session, v, _h, _b) in self.instances.items() if session.events
        ]
        return streams + [(sid, v) for sid, v, _h, _e in self._other_streams]

    def moved(self, conn: Connection) -> bool:
        """Whether a stream this command appends to moved past the version it decided on."""
        for stream_id, version in self.appends():
            head = self.store.stream_head(conn, stream_id)
            if (0 if head is None else head[0]) != version:
                return True
        return False

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
            via=self.via,
        )

    def publish(self, stored: list[StoredCommit]) -> None:
        """After commit: the decided states become the cached truth; states the command emitted
        nothing on go back as they were."""
        by_stream = {c.stream_id: c for c in stored}
        for stream_id, (session, _v, _h, _b) in self.instances.items():
            commit = by_stream.get(stream_id)
            if commit is not None and session.started:
                if self._wiring.deferred is not None:
                    self.repository.learn_owners(
                        stream_id, batch_owned(self.instances[stream_id][3])
                    )
                evolved = Cached(session.state, commit.last_version, commit.hash)
                if stream_id in self._checked_out:  # checked when it was read, not now
                    evolved.checked_at = self._checked_out[stream_id].checked_at
                self.repository.remember(stream_id, evolved)
            elif not session.events and stream_id in self._checked_out:
                self.repository.remember(stream_id, self._checked_out[stream_id])

    def discard(self) -> None:
        """After a failure: states the command emitted events on may be half decided and stay
        out of the cache (the next command reads them from the log); the others go back."""
        for stream_id, cached in self._checked_out.items():
            entry = self.instances.get(stream_id)
            if entry is None or not entry[0].events:
                self.repository.remember(stream_id, cached)
        self._checked_out.clear()
