"""The engine's one reader of streams: instance states, deployed models and recorded events.

Only here is a stream read, decoded and folded: states come from the cache or from snapshot +
tail (hash-chain checked), models from their deployment's stream, replays and audit listings
from the log. Writes nothing but the snapshots of long instances; decides nothing. Shared by the
engine's threads: the state cache is thread-safe, and a command's state is its own (`checkout`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Literal

from sqlalchemy.engine import Connection

from flowledger.core import events as ev
from flowledger.core import views
from flowledger.core.decisions import DeployedDecision
from flowledger.core.deployments import decisions_from_deployment, model_from_deployment
from flowledger.core.errors import NotFound
from flowledger.core.evolve import evolve
from flowledger.core.model import ProcessModel
from flowledger.core.state import (
    STATE_SCHEMA,
    InstanceState,
    copy_state,
    decode_state,
    encode_state,
)
from flowledger.engine import lookups
from flowledger.engine.storage.state_cache import Cached, StateCache
from flowledger.eventlog import (
    CodecError,
    ConcurrencyError,
    CorruptStream,
    EventCodec,
    EventStore,
    Snapshot,
    StoredCommit,
    check_stream,
)
from flowledger.eventlog.records import LogEntry
from flowledger.projections.replay import state_at

SNAPSHOT_EVERY = 500  # events between stored snapshots of a long instance
# Seconds a cached state serves commands before its stream is read and checked again: a commit
# edited behind the engine's back while the state is cached is noticed within this time.
RECHECK_SECONDS = 60.0
READ_ATTEMPTS = 5  # reads of a stream racing its own commits before a command retries whole
CACHE_SIZE = 10_000  # instance states kept at most (the byte budget usually bounds it first)

# What a command may name to find its instance by; also the kind its NotFound names.
Owned = Literal["Execution", "Task", "External task", "Job", "Incident"]
_OWNER_QUERIES: dict[Owned, Callable[[Connection, str], str | None]] = {
    "Execution": lookups.instance_of_execution,
    "Task": lookups.instance_of_task,
    "External task": lookups.instance_of_external_task,
    "Job": lookups.instance_of_job,
    "Incident": lookups.instance_of_incident,
}


# Entities whose instance a command learns (`Repository.learn_owners`): those of the tables a
# deferred projection writes behind the log. The oldest are forgotten past the bound (then read).
_LEARNED = frozenset({"Execution", "Task"})
MAX_KNOWN_OWNERS = 200_000


def holds(state: InstanceState, kind: Owned, entity_id: str) -> bool:
    """Whether the instance still has the execution or task `entity_id`."""
    if kind == "Task":
        return entity_id in state.tasks
    return not state.ended and entity_id in state.executions


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
        self._owners: dict[str, str] = {}  # entity id -> instance id, oldest first
        self._owners_lock = threading.Lock()

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
            if self._usable(conn, stream_id, cached):
                return cached
            self.forget(stream_id)
        return self.load(conn, stream_id)

    def current_state(self, conn: Connection, stream_id: str) -> InstanceState | None:
        """The cached state of an instance when it is at the head of its stream (one query),
        else None. The caller holds the engine's command lock: no command changes a cached
        state meanwhile (a command deciding beside the writer has taken its own out)."""
        cached = self.cache.peek(stream_id)
        if cached is None or not self._is_head(conn, stream_id, cached):
            return None
        return cached.state

    def checkout(self, conn: Connection, stream_id: str) -> Cached | None:
        """The instance's state for a command to decide on, fresh as `load_fresh` and the
        command's own: taken out of the cache (or read, not cached), so that another command of
        this engine running at the same time never sees it half decided. The command gives it
        back with `remember` once it committed (or decided nothing)."""
        cached = self.cache.take(stream_id)
        if cached is not None and self._usable(conn, stream_id, cached):
            return cached
        return self._read(conn, stream_id)

    def _usable(self, conn: Connection, stream_id: str, cached: Cached) -> bool:
        """Whether a cached state may serve: checked recently enough, and still at the head
        (another engine may have appended since, or the stream's end was removed)."""
        if time.monotonic() - cached.checked_at >= RECHECK_SECONDS:
            return False
        return self._is_head(conn, stream_id, cached)

    def _is_head(self, conn: Connection, stream_id: str, cached: Cached) -> bool:
        head = self._store.stream_head(conn, stream_id)
        if head is None:
            # Committed after this read's snapshot began (the command's check of the heads in
            # its write transaction sees it), unless the stream's witness says it had commits.
            return self._store.witness(conn, stream_id) is None
        return head == (cached.version, cached.head_hash)

    def _read(self, conn: Connection, stream_id: str) -> Cached | None:
        """Newest snapshot + the commits after it, checked (`_checked`); the cache untouched."""
        snapshot, commits, head = self._checked(conn, stream_id, snapshots=True)
        state = None if snapshot is None else decode_state(snapshot.state)
        for commit in commits:
            for event in self._events(commit):
                if isinstance(event, ev.STATELESS_STREAM_EVENTS):
                    return None
                state = evolve(state, event)
        if state is None or head is None:
            return None
        return Cached(state, head[0], head[1])

    def _checked(
        self, conn: Connection, stream_id: str, *, snapshots: bool
    ) -> tuple[Snapshot | None, list[StoredCommit], tuple[int, str] | None]:
        """The stream's newest snapshot (with `snapshots`), the commits after it and the
        (version, hash) they end at, checked: never decide on (and so append to) a stream
        changed behind our back.

        The commits read must chain and match their hashes (one SHA-256 each), and the last of
        them must be the stream's witness (an indexed read before and after), which catches a
        removed or added last commit. Only the tail after the snapshot is read and checked,
        never the whole chain. Raises CorruptStream."""
        for _attempt in range(READ_ATTEMPTS):
            # On a server database each statement sees the commits of its own moment (READ
            # COMMITTED): a witness that did not move while the stream was read makes the read
            # one consistent picture of the stream; a witness that moved is a commit racing us.
            before = self._store.witness(conn, stream_id)
            snapshot, commits, head = self._tail(conn, stream_id, snapshots)
            witness = self._store.witness(conn, stream_id)
            if witness == before:
                break
        else:
            raise ConcurrencyError(stream_id, 0 if witness is None else witness[0])
        version = 0 if snapshot is None else snapshot.version
        check_stream(stream_id, commits, version, linked_to_start=snapshot is None)
        if head != witness:
            if commits:
                position = commits[-1].last_position
            else:
                position = snapshot.position if snapshot is not None else 0
            raise CorruptStream(stream_id, position, _unlike_witness(head, witness))
        return snapshot, commits, head

    def _tail(
        self, conn: Connection, stream_id: str, snapshots: bool
    ) -> tuple[Snapshot | None, list[StoredCommit], tuple[int, str] | None]:
        snapshot = self._store.load_snapshot(conn, stream_id, STATE_SCHEMA) if snapshots else None
        after = 0 if snapshot is None else snapshot.version
        commits = self._store.read_stream(conn, stream_id, after_version=after)
        if commits:
            return snapshot, commits, (commits[-1].last_version, commits[-1].hash)
        head = self._store.stream_head(conn, stream_id) if snapshot is not None else None
        return snapshot, commits, head

    def _events(self, commit: StoredCommit) -> list[ev.Event]:
        """The commit's events; CorruptStream (a 409, not a 500) when they do not decode."""
        try:
            events: list[ev.Event] = self._codec.decode(commit.events)
        except CodecError as exc:
            raise CorruptStream(
                commit.stream_id, commit.first_position, f"its events cannot be read: {exc}"
            ) from None
        return events

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

    def learn_owners(self, instance_id: str, entity_ids: Iterable[str]) -> None:
        """Executions and tasks a command of this engine touched belong to `instance_id` for
        good: a deferred ACT_RU_EXECUTION or ACT_RU_TASK need not be read to find it."""
        owners = self._owners
        with self._owners_lock:  # commands of several threads publish at once
            for entity_id in entity_ids:
                owners[entity_id] = instance_id
            while len(owners) > MAX_KNOWN_OWNERS:
                del owners[next(iter(owners))]

    def known_owner(self, kind: Owned, entity_id: str) -> str | None:
        """The instance an execution or task belongs to, when a command of this engine touched
        it (whether it still exists is the instance state's to say: `holds`)."""
        if kind not in _LEARNED:
            return None
        return self._owners.get(entity_id)

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
        definition = lookups.process_definition(conn, definition_id)
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
        if lookups.deployment(conn, deployment_id) is not None:
            return False  # still deployed: the usual case, no need to read the log
        return any(
            isinstance(event, ev.DeploymentDeleted) and event.cascade
            for event in self._deployment_events(conn, deployment_id)
        )

    def _deployment_events(self, conn: Connection, deployment_id: str) -> Iterator[ev.Event]:
        """The deployment stream's events, checked as an instance's are: the models the engine
        runs come from it (read once per definition, then cached)."""
        _snapshot, commits, _head = self._checked(conn, deployment_id, snapshots=False)
        for commit in commits:
            yield from self._events(commit)

    # -- the log read back -----------------------------------------------------------------

    def decode(self, events: bytes) -> list[ev.Event]:
        """A commit's events, decoded (upcast to the current event schema)."""
        return self._codec.decode(events)

    def stream(self, conn: Connection, stream_id: str) -> list[tuple[StoredCommit, list[ev.Event]]]:
        """Every commit of a stream with its events, in order."""
        return [
            (commit, self._events(commit)) for commit in self._store.read_stream(conn, stream_id)
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
            for i, event in enumerate(self._events(commit)):
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


def _unlike_witness(head: tuple[int, str] | None, witness: tuple[int, str] | None) -> str:
    if witness is None:
        return (
            f"its commits end at version {head[0] if head else 0} but it has no witness (its "
            "stream_head row was removed)"
        )
    if head is None:
        return f"its witness says version {witness[0]}, but the log holds none of its commits"
    if head[0] != witness[0]:
        return (
            f"its commits end at version {head[0]}, but its witness says version {witness[0]}: "
            "commits were removed from or added to its end"
        )
    return f"its last commit (version {head[0]}) is not the one its witness names"
