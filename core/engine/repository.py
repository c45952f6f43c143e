"""The engine's one reader of streams: instance states, deployed models and recorded events.

Only here is a stream read, decoded and folded: states come from the cache or from snapshot +
tail (hash-chain checked), models from their deployment's stream, replays and audit listings
from the log. Writes nothing but the snapshots of long instances; decides nothing. Shared by the
engine's threads: the state cache is thread-safe, and a command's state is its own (`checkout`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Literal

from sqlalchemy.engine import Connection

from flowledger.core import events as ev
from flowledger.core import views
from flowledger.core.decisions import DeployedDecision
from flowledger.core.deployments import decisions_from_deployment, model_from_deployment
from flowledger.core.errors import NotFound, ProcessEngineError
from flowledger.core.evolve import evolve
from flowledger.core.model import ProcessModel
from flowledger.core.state import (
    STATE_SCHEMA,
    InstanceState,
    copy_state,
    decode_state,
    encode_state,
)
from flowledger.eventlog import (
    CorruptStream,
    EventCodec,
    EventStore,
    Snapshot,
    StoredCommit,
    check_stream,
)
from flowledger.eventlog.records import LogEntry
from flowledger.projections import queries
from flowledger.projections.replay import state_at

from .state_cache import Cached, StateCache

SNAPSHOT_EVERY = 500  # events between stored snapshots of a long instance
CACHE_SIZE = 10_000  # instance states kept at most (the byte budget usually bounds it first)

# What a command may name to find its instance by; also the kind its NotFound names.
Owned = Literal["Execution", "Task", "External task", "Job", "Incident"]
_OWNER_QUERIES: dict[Owned, Callable[[Connection, str], str | None]] = {
    "Execution": queries.instance_of_execution,
    "Task": queries.instance_of_task,
    "External task": queries.instance_of_external_task,
    "Job": queries.instance_of_job,
    "Incident": queries.instance_of_incident,
}


class Repository:
    """Instance states (cached, or snapshot + tail), parsed models, and the log read back."""

    def __init__(
        self, store: EventStore, codec: EventCodec, *, allow_scripts: bool, cache_bytes: int
    ) -> None:
        self._store = store
        self._codec = codec
        self._allow_scripts = allow_scripts
        self.cache = StateCache(CACHE_SIZE, cache_bytes)
        self.models: dict[str, ProcessModel] = {}  # deployed definitions only
        self.decisions: dict[str, DeployedDecision] = {}  # deployed decision definitions only

    # -- instance states -------------------------------------------------------------------

    def remember(self, stream_id: str, cached: Cached) -> None:
        self.cache.put(stream_id, cached)

    def forget(self, stream_id: str) -> None:
        self.cache.pop(stream_id)

    def load(self, conn: Connection, stream_id: str) -> Cached | None:
        """The instance's state: cached, else its newest snapshot and the commits after it
        (None for a stream that is not an instance's)."""
        cached = self.cache.get(stream_id)
        if cached is not None:
            return cached
        loaded = self._read(conn, stream_id)
        if loaded is not None:
            self.remember(stream_id, loaded)
        return loaded

    def load_fresh(self, conn: Connection, stream_id: str) -> Cached | None:
        """The cached state only if no other engine appended to the stream since (one query)."""
        cached = self.cache.get(stream_id)
        if cached is not None:
            if self._is_head(conn, stream_id, cached):
                return cached
            self.forget(stream_id)
        return self.load(conn, stream_id)

    def checkout(self, conn: Connection, stream_id: str) -> Cached | None:
        """The instance's state for a command to decide on, fresh as `load_fresh` and the
        command's own: taken out of the cache (or read, not cached), so that another command of
        this engine running at the same time never sees it half decided. The command gives it
        back with `remember` once it committed (or decided nothing)."""
        cached = self.cache.take(stream_id)
        if cached is not None and self._is_head(conn, stream_id, cached):
            return cached
        return self._read(conn, stream_id)

    def _is_head(self, conn: Connection, stream_id: str, cached: Cached) -> bool:
        head = self._store.stream_head(conn, stream_id)
        return head is None or head == (cached.version, cached.head_hash)

    def _read(self, conn: Connection, stream_id: str) -> Cached | None:
        """Newest snapshot + the commits after it, hash chain checked; the cache untouched."""
        state: InstanceState | None = None
        version = 0
        head: str | None = None
        snapshot = self._store.load_snapshot(conn, stream_id, STATE_SCHEMA)
        if snapshot is not None:
            state = decode_state(snapshot.state)
            version = snapshot.version
        commits = self._store.read_stream(conn, stream_id, after_version=version)
        try:
            # Never decide on (and so append to) a stream whose commits were edited behind
            # our back: one SHA-256 per commit read, only when the state is not cached.
            check_stream(stream_id, commits, version, linked_to_start=snapshot is None)
        except CorruptStream as exc:
            raise ProcessEngineError(str(exc)) from None
        for commit in commits:
            for event in self._codec.decode(commit.events):
                if isinstance(event, ev.STATELESS_STREAM_EVENTS):
                    return None
                state = evolve(state, event)
            version, head = commit.last_version, commit.hash
        if state is None:
            return None
        if head is None:
            stream_head = self._store.stream_head(conn, stream_id)
            head = stream_head[1] if stream_head else None
        return Cached(state, version, head)

    def snapshot_if_due(
        self,
        conn: Connection,
        state: InstanceState,
        new_events: int,
        commit: StoredCommit,
        now: datetime,
    ) -> None:
        """Store a snapshot when the commit's events crossed a multiple of SNAPSHOT_EVERY."""
        if state.version // SNAPSHOT_EVERY == (state.version - new_events) // SNAPSHOT_EVERY:
            return
        self._store.save_snapshot(
            conn,
            Snapshot(
                commit.stream_id,
                commit.last_version,
                commit.last_position,
                STATE_SCHEMA,
                encode_state(state),
            ),
            now,
        )

    def instance_of(self, conn: Connection, kind: Owned, entity_id: str, detail: str = "") -> str:
        """The process instance an execution, user task or external task belongs to; NotFound
        (`kind` and `detail` in its message) when there is no such running one."""
        instance_id = _OWNER_QUERIES[kind](conn, entity_id)
        if instance_id is None:
            raise NotFound(kind, entity_id, detail)
        return instance_id

    # -- models ----------------------------------------------------------------------------

    def model(
        self, conn: Connection, definition_id: str, deployment_id: str | None = None
    ) -> ProcessModel:
        """The parsed model of a deployed definition (cached), or, given the deployment id an
        instance recorded, of a definition whose deployment was deleted since (not cached: the
        cache serves deployed definitions only)."""
        model = self.models.get(definition_id)
        if model is not None:
            return model
        definition = queries.process_definition(conn, definition_id)
        if definition is None:
            if deployment_id is None:
                raise NotFound("Process definition", definition_id)
            # Only finished instances outlive their deployment (deleting it needs no running
            # ones, or ends them): the model is read for deleting such an instance's history.
            event = self.deployment_created(conn, deployment_id)
            model, _meta = model_from_deployment(
                event, definition_id, allow_scripts=self._allow_scripts
            )
            return model
        deployment = self.deployment_created(conn, definition.deployment_id)
        model, _meta = model_from_deployment(
            deployment, definition_id, allow_scripts=self._allow_scripts
        )
        self.models[definition_id] = model
        return model

    def decision(self, conn: Connection, definition: views.DecisionDefinition) -> DeployedDecision:
        """A deployed decision definition with its parsed DRG and the definitions of that DRG's
        decisions (cached)."""
        found = self.decisions.get(definition.id)
        if found is not None:
            return found
        deployment = self.deployment_created(conn, definition.deployment_id)
        requirements, _meta = decisions_from_deployment(deployment, definition.id)
        siblings = {
            d.key: views.DecisionDefinition(
                id=d.id,
                key=d.key,
                version=d.version,
                deployment_id=deployment.deployment_id,
                resource_name=d.resource_name,
                name=d.name,
            )
            for d in deployment.decision_definitions
            if d.resource_name == definition.resource_name
        }
        found = DeployedDecision(definition, requirements, siblings)
        self.decisions[definition.id] = found
        return found

    def deployment_created(self, conn: Connection, deployment_id: str) -> ev.DeploymentCreated:
        for event in self._deployment_events(conn, deployment_id):
            if isinstance(event, ev.DeploymentCreated):
                return event
        raise NotFound("Deployment", deployment_id)

    def deleted_with_cascade(self, conn: Connection, deployment_id: str) -> bool:
        """Whether the deployment was deleted with cascade (taking its instances' history)."""
        if queries.deployment(conn, deployment_id) is not None:
            return False  # still deployed: the usual case, no need to read the log
        return any(
            isinstance(event, ev.DeploymentDeleted) and event.cascade
            for event in self._deployment_events(conn, deployment_id)
        )

    def _deployment_events(self, conn: Connection, deployment_id: str) -> Iterator[ev.Event]:
        for commit in self._store.read_stream(conn, deployment_id):
            yield from self._codec.decode(commit.events)

    # -- the log read back -----------------------------------------------------------------

    def decode(self, events: bytes) -> list[ev.Event]:
        """A commit's events, decoded (upcast to the current event schema)."""
        return self._codec.decode(events)

    def stream(self, conn: Connection, stream_id: str) -> list[tuple[StoredCommit, list[ev.Event]]]:
        """Every commit of a stream with its events, in order."""
        return [
            (commit, self._codec.decode(commit.events))
            for commit in self._store.read_stream(conn, stream_id)
        ]

    def replay(
        self, conn: Connection, stream_id: str, until_position: int | None = None
    ) -> InstanceState:
        """The instance's state as it was right after the event at `until_position` (or now),
        folded from the whole stream: never the cache, never a snapshot."""
        state: InstanceState | None = None
        for commit in self._store.read_stream(conn, stream_id):
            if until_position is not None and commit.first_position > until_position:
                break  # nothing later is decoded: a replay to an early point stays quick
            for i, event in enumerate(self._codec.decode(commit.events)):
                if until_position is not None and commit.first_position + i > until_position:
                    break
                if isinstance(event, ev.STATELESS_STREAM_EVENTS):
                    raise NotFound("Process instance", stream_id, ev.not_an_instance(event))
                state = evolve(state, event)
        if state is None:
            raise NotFound("Process instance", stream_id)
        return state

    def state_at(self, conn: Connection, stream_id: str, version: int) -> InstanceState | None:
        """The instance's state after `version` events (None for a deployment stream)."""
        return state_at(self._store, conn, self._codec, stream_id, version)

    def snapshot_with_tail(self, conn: Connection, stream_id: str) -> InstanceState | None:
        """The stored snapshot and the commits after it folded, without the cache or the chain
        check (verify compares this with its replay and checks the chains itself)."""
        snapshot = self._store.load_snapshot(conn, stream_id, STATE_SCHEMA)
        if snapshot is None:
            return None
        state = copy_state(decode_state(snapshot.state))
        for commit in self._store.read_stream(conn, stream_id, after_version=snapshot.version):
            for event in self._codec.decode(commit.events):
                state = evolve(state, event)
        return state

    def log(
        self, conn: Connection, after_position: int = 0
    ) -> Iterator[tuple[LogEntry, list[ev.Event]]]:
        """Every commit of the log after `after_position` in position order, with its events."""
        for entry in self._store.entries(conn, after_position):
            yield entry, self._codec.decode(entry.events)
