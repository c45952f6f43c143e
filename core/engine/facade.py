"""The engine facade: the composition root wiring the event log, the pure core and the projections.

Every command runs in one transaction: decide on the instance state, append the events as one
commit per stream, project runtime and history rows, record the command, commit. Only this module
(and the CLI/REST layers above it) touches the database and the clock.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

import msgspec
from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError

from flowledger import migrations
from flowledger.core import commands as cmd
from flowledger.core import decide, views
from flowledger.core import events as ev
from flowledger.core.clock import Clock, SystemClock
from flowledger.core.deployments import (
    changed_only,
    deployment_created,
    model_from_deployment,
    parse_resources,
    unchanged,
)
from flowledger.core.engine.codec import make_codec
from flowledger.core.engine.database import create_database, is_memory_url
from flowledger.core.engine.history_worker import (
    HEARTBEAT,
    PASSING,
    HistoryProcess,
    HistoryRunner,
    HistoryThread,
)
from flowledger.core.engine.state_cache import DEFAULT_MAX_BYTES, Cached, StateCache
from flowledger.core.engine.verification import Verifier
from flowledger.core.errors import (
    FlowledgerError,
    InvalidValue,
    NotFound,
    ProcessEngineError,
    Rejected,
    SchemaMismatch,
)
from flowledger.core.evolve import evolve
from flowledger.core.ids import uuid7
from flowledger.core.limits import (
    MAX_COMMAND_ID,
    check_deployment,
    check_fetch,
    check_text,
    recordable_actor,
    refuse_nul_in_events,
    refuse_nul_in_ids,
)
from flowledger.core.model import ProcessModel
from flowledger.core.scope import visible_variables
from flowledger.core.session import CommandContext, InstanceSession
from flowledger.core.state import (
    STATE_SCHEMA,
    InstanceState,
    copy_state,
    decode_state,
    encode_state,
)
from flowledger.core.variables import StoredValue, from_stored, rest_type_name
from flowledger.eventlog import (
    CommandRecord,
    ConcurrencyError,
    CorruptStream,
    EventStore,
    LogAnchor,
    NewCommit,
    Snapshot,
    StoredCommit,
    check_stream,
)
from flowledger.eventlog.tables import event_log
from flowledger.projections import queries
from flowledger.projections.changes import ChangeSet, SqlRowStore
from flowledger.projections.follower import CHECKPOINT as HISTORY_CHECKPOINT
from flowledger.projections.follower import (
    FAILED,
    FOLLOWING,
    CheckpointStatus,
    HistoryFollower,
    ProjectionFailed,
)
from flowledger.projections.follower import SCHEMA_VERSION as HISTORY_SCHEMA
from flowledger.projections.history import HistoryProjector
from flowledger.projections.replay import Replayer, state_at
from flowledger.projections.repository import project_deployment, project_repository
from flowledger.projections.runtime import RuntimeBatch
from flowledger.projections.tables import HISTORY_TABLES, REPOSITORY_TABLES, RUNTIME_TABLES

R = TypeVar("R")
log = logging.getLogger("flowledger.engine")

DEFAULT_URL = "sqlite:///flowledger.db"
MAX_ATTEMPTS = 5
SNAPSHOT_EVERY = 500  # events between stored snapshots of a long instance
CACHE_SIZE = 10_000
HISTORY_MODES = ("inline", "async")
REBUILD_BATCH_EVENTS = 20_000  # events projected between writes of a rebuild
# A follower that marked the checkpoint within this many seconds is alive (it marks it every
# HEARTBEAT seconds while idle, and with every batch).
FOLLOWER_ALIVE_WITHIN = 4 * HEARTBEAT


class _Txn:
    """One command's unit of work: the streams it touches and the rows it changes."""

    def __init__(self, engine: Engine, conn: Connection, now: datetime, command_id: str) -> None:
        self.engine = engine
        self.conn = conn
        self.ctx = CommandContext(
            now=now,
            new_id=uuid7,
            delegates=engine._delegates,
            allow_scripts=engine.allow_scripts,
        )
        self.command_id = command_id
        self.changes = ChangeSet()
        self.instances: dict[str, tuple[InstanceSession, int, str | None, RuntimeBatch]] = {}
        # Deployment streams: (stream id, expected version, head hash, events).
        self.other_streams: list[tuple[str, int, str | None, list[ev.Event]]] = []
        # Checks run after the append, when the log head lock orders this command after every
        # command that committed before; a failed check raises ConcurrencyError (decide again).
        self.guards: list[Callable[[Connection], None]] = []

    def _session(
        self, state: InstanceState | None, model: ProcessModel
    ) -> tuple[InstanceSession, RuntimeBatch]:
        batch = RuntimeBatch()
        if self.engine.history_mode == "async":
            # History follows from the log (HistoryFollower); the command writes runtime only.
            return InstanceSession(state, model, self.ctx, batch.observe), batch
        history = self.engine._history
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
        cached = self.engine._load_fresh(self.conn, instance_id)
        if cached is None:
            raise NotFound("Process instance", instance_id)
        if cached.state.ended and not ended_ok:
            raise NotFound("Process instance", instance_id, "it has already ended")
        state = cached.state
        model = self.engine._model(self.conn, state.definition_id, state.deployment_id)
        session, batch = self._session(cached.state, model)
        self.instances[instance_id] = (session, cached.version, cached.head_hash, batch)
        return session

    def flush(
        self, conn: Connection, command_type: str, actor: str | None, check_heads: bool
    ) -> list[StoredCommit]:
        engine = self.engine
        codec = engine._codec
        commits: list[NewCommit] = []
        for stream_id, (session, version, head, batch) in self.instances.items():
            if not session.events:
                continue
            encoded = codec.encode(session.events)
            refuse_nul_in_events(encoded, session.events)
            commits.append(
                NewCommit(
                    stream_id=stream_id,
                    expected_version=version,
                    prev_hash=head,
                    events=encoded,
                    event_count=len(session.events),
                    command_id=self.command_id,
                    command_type=command_type,
                    actor=actor,
                )
            )
            batch.finish(session.state, self.changes)
        # After the instances: a deployment deleted with cascade ends its instances first.
        for stream_id, version, head, events in self.other_streams:
            encoded = codec.encode(events)
            refuse_nul_in_events(encoded, events)
            commits.append(
                NewCommit(
                    stream_id=stream_id,
                    expected_version=version,
                    prev_hash=head,
                    events=encoded,
                    event_count=len(events),
                    command_id=self.command_id,
                    command_type=command_type,
                    actor=actor,
                )
            )
        stored = engine._store.append(conn, commits, self.ctx.now, check_heads=check_heads)
        for guard in self.guards:
            guard(conn)
        engine._rows.apply(conn, self.changes)
        by_stream = {c.stream_id: c for c in stored}
        for stream_id, (session, _v, _h, _b) in self.instances.items():
            commit = by_stream.get(stream_id)
            if commit is None:
                continue
            state = session.state
            if (
                state.version // SNAPSHOT_EVERY
                != (state.version - len(session.events)) // SNAPSHOT_EVERY
            ):
                engine._store.save_snapshot(
                    conn,
                    Snapshot(
                        stream_id,
                        commit.last_version,
                        commit.last_position,
                        STATE_SCHEMA,
                        encode_state(state),
                    ),
                    self.ctx.now,
                )
        return stored

    def publish(self, stored: list[StoredCommit]) -> None:
        """After commit: the decided states become the cached truth."""
        by_stream = {c.stream_id: c for c in stored}
        for stream_id, (session, _v, _h, _b) in self.instances.items():
            commit = by_stream.get(stream_id)
            if commit is not None and session.started:
                self.engine._remember(
                    stream_id, Cached(session.state, commit.last_version, commit.hash)
                )

    def discard(self) -> None:
        for stream_id in self.instances:
            self.engine._forget(stream_id)


class Engine:
    """flowledger's only public entry point: deploy models, run instances, query, replay, verify.

    `Engine()` keeps everything in `flowledger.db` in the working directory; any SQLAlchemy URL
    for SQLite, PostgreSQL (postgresql+psycopg://) or MySQL/MariaDB (mysql+pymysql://) works.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        clock: Clock | None = None,
        allow_scripts: bool = False,
        history_level: str = "full",
        history_mode: str = "inline",
        sqlite_synchronous: str = "NORMAL",
        cache_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        if history_mode not in HISTORY_MODES:
            raise ValueError(
                f"history_mode must be one of {', '.join(HISTORY_MODES)}, not {history_mode!r}"
            )
        self.url = url or DEFAULT_URL
        self._memory = is_memory_url(self.url)
        self.clock: Clock = clock or SystemClock()
        self.allow_scripts = allow_scripts
        self.history_level = history_level
        self.history_mode = history_mode
        self._sqlite_synchronous = sqlite_synchronous
        self._history = HistoryProjector(history_level)
        self._db = create_database(self.url, sqlite_synchronous)
        try:
            migrations.upgrade(self._db)
        except migrations.UnknownSchema as exc:
            self._db.dispose()
            raise SchemaMismatch(str(exc)) from None
        self._store = EventStore(self._db.dialect.name)
        self._codec = make_codec()
        self._rows = SqlRowStore()
        self._delegates: dict[str, Any] = {}
        self._models: dict[str, ProcessModel] = {}
        self._cache = StateCache(CACHE_SIZE, cache_bytes)
        self._lock = threading.RLock()
        self._writer: Connection | None = None
        self._decider: Connection | None = None
        self._follower = HistoryFollower(self._store, self._codec, self._history, self._rows)
        self._history_worker: HistoryThread | HistoryProcess | None = None
        self._history_runner = HistoryRunner(self._follower, self._snapshot, self._write)
        self._commit_listeners: list[Callable[[], None]] = []
        self._start_history()

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Stop background work (history is brought up to date first) and release the pool.

        A history follower that stopped at a commit it cannot project does not keep the engine
        from closing: the failure stays recorded for the next start, and is logged again."""
        worker, self._history_worker = self._history_worker, None
        if worker is not None:
            worker.stop()
            try:
                self.flush_history()
            except ProcessEngineError as exc:
                log.error("history is behind the log: %s", exc)
        with self._lock:
            for conn in (self._writer, self._decider):
                if conn is not None:
                    conn.close()
            self._writer = self._decider = None
        self._db.dispose()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- history projection ----------------------------------------------------------------

    def _start_history(self) -> None:
        if self.history_mode == "inline" and not self._take_over_history():
            # Another process's follower owns history (a server in async mode): join it, never
            # take it over. Commands here write no history; a follower thread of this engine
            # helps (followers share one checkpoint, so no batch is written twice).
            log.info("history of this database is followed asynchronously: joining")
            self.history_mode = "async"
            self._history_worker = HistoryThread(self._history_runner)
        else:
            if self.history_mode == "inline":
                return
            with self._write() as conn:
                found = self._follower.start_at_head(conn, _wall_clock())
            if found is not None and found.status == FAILED:
                log.warning("history had stopped (%s); trying again", found.detail)
            # Another process cannot open an in-memory database: follow in a thread there.
            self._history_worker = (
                HistoryThread(self._history_runner)
                if self._memory
                else HistoryProcess(self.url, self.history_level, self._sqlite_synchronous)
            )
        self._history_worker.start()
        # A script that never calls close() still leaves history complete when it exits.
        atexit.register(_close_at_exit, weakref.ref(self))

    def _take_over_history(self) -> bool:
        """Inline history owns the tables: finish what an asynchronous run left behind and drop
        its checkpoint. Not while another process's follower is alive (opening an engine never
        touches another process's follower), nor when history cannot be brought up to date."""
        with self._read() as conn:
            found = self._follower.status(conn)
        if found is None:
            return True
        if found.status == FOLLOWING and _follower_alive(found):
            return False
        if found.status == FAILED:
            with self._write() as conn:
                self._follower.start_at_head(conn, _wall_clock())  # one more try
        try:
            self.flush_history()
        except ProcessEngineError as exc:
            # History stays where it stopped: writing newer history inline would leave a gap.
            log.error("history is behind the log and stays so until this is fixed: %s", exc)
            return False
        with self._write() as conn:
            self._store.drop_checkpoint(conn, HISTORY_CHECKPOINT)
        return True

    def flush_history(self) -> None:
        """Bring asynchronous history up to the end of the log now (a no-op for inline).

        Raises ProcessEngineError naming the commit when one cannot be projected, or the
        database error when it failed for a passing reason (nothing moved then)."""
        try:
            while self._history_runner.step() > 0:
                pass
        except ProjectionFailed as failure:
            raise ProcessEngineError(f"history projection stopped: {failure}") from failure
        except PASSING as exc:
            raise ProcessEngineError(
                f"history projection failed (nothing moved; try again): {exc}"
            ) from exc
        worker = self._history_worker
        if worker is not None and worker.error is not None:
            error, worker.error = worker.error, None
            raise ProcessEngineError(f"history projection failed: {error}") from error

    def history_lag(self) -> int:
        """Events committed to the log but not yet projected into ACT_HI_* (0 when inline)."""
        with self._read() as conn:
            return self._follower.lag(conn) or 0

    def history_health(self) -> views.HistoryHealth:
        """Is history being written? For the REST health endpoint and operators' probes."""
        with self._read() as conn:
            found = self._follower.status(conn)
            head = self._store.head_position(conn)
        if self.history_mode == "inline":
            return views.HistoryHealth("UP", "inline", "inline", 0, None)
        worker = self._history_worker
        restarts = 0 if worker is None else worker.restarts
        if found is None:
            return views.HistoryHealth(
                "DOWN",
                "async",
                "stopped",
                head,
                None,
                restarts,
                "the history checkpoint is gone (an engine with inline history took history "
                "over): commands of this engine reach no history until it is started again",
            )
        detail = found.detail
        if found.status == FAILED:
            follower = "failed"
        elif worker is None:
            follower = "stopped"
        else:
            follower = worker.state
            failure = getattr(worker, "failure", None)
            if failure is not None:
                detail = str(failure)
        if follower in ("restarting", "stopped") and detail is None:
            detail = "the history follower is not running: history falls behind the log"
        return views.HistoryHealth(
            "UP" if follower == "running" else "DOWN",
            "async",
            follower,
            head - found.position,
            found.position,
            restarts,
            detail,
        )

    def register_delegate(self, name: str, delegate: Any) -> None:
        """Make a Python callable (or an object with `execute(execution)`) available to models:
        `camunda:delegateExpression="${name}"`, `camunda:expression="${name.method(...)}"`, or
        `camunda:class="name"`."""
        self._delegates[name] = delegate

    def add_commit_listener(self, listener: Callable[[], None]) -> None:
        """Call `listener()` after every command that appended events (e.g. to wake long polls).

        It runs on the committing thread with the engine lock held: it must be quick and must
        not call back into the engine."""
        self._commit_listeners.append(listener)

    def _notify_committed(self) -> None:
        for listener in self._commit_listeners:
            listener()

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A read-only connection on the projection tables, for queries the facade does not
        offer (the REST API's filtered lists run `projections.search` on it)."""
        with self._read() as conn:
            yield conn

    def log_position(self) -> int:
        """Position of the newest event in the log: it moves whenever any engine commits."""
        with self._read() as conn:
            return self._store.head_position(conn)

    # -- command plumbing ------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A write transaction on the engine's one writer connection.

        Writes are serialised by the engine lock anyway, so one connection kept open spares
        every command a pool checkout, its reset and its return."""
        with self._lock:
            conn = self._writer
            if conn is None or conn.closed or conn.invalidated:
                conn = self._db.connect().execution_options(flowledger_write=True)
                self._writer = conn
            try:
                with conn.begin():
                    yield conn
            except DBAPIError as exc:
                if exc.connection_invalidated:
                    self._writer = None
                raise

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        if self._memory:
            # In-memory SQLite is one connection for everyone: a read must not run inside (and
            # on return roll back) a command's or the history thread's transaction.
            with self._lock, self._db.connect() as conn:
                yield conn
            return
        with self._db.connect() as conn:
            yield conn

    @contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        """A read transaction for deciding a command: one consistent view, no write lock.

        Like the writer, one connection kept open for the engine's serialised commands."""
        with self._lock:
            conn = self._decider
            if conn is None or conn.closed or conn.invalidated:
                conn = self._decider = self._db.connect()
            try:
                with conn.begin():
                    yield conn
            except DBAPIError as exc:
                if exc.connection_invalidated:
                    self._decider = None
                raise

    def _commit(
        self,
        txn: _Txn,
        conn: Connection,
        command: cmd.Command,
        payload: bytes | None,
        cid: str,
        result: Any,
        actor: str | None,
        check_heads: bool,
    ) -> list[StoredCommit]:
        """Append the command's commits, write its rows and its command-log entry."""
        command_type = type(command).__name__
        stored = txn.flush(conn, command_type, actor, check_heads)
        self._store.record_command(
            conn,
            CommandRecord(
                command_id=cid,
                command_type=command_type,
                payload=payload if payload is not None else cmd.encode_command(command),
                status="accepted",
                received_at=txn.ctx.now,
                result=cmd.encode_result(result),
                first_position=stored[0].first_position if stored else None,
                last_position=stored[-1].last_position if stored else None,
                actor=actor,
            ),
        )
        return stored

    def _execute(
        self,
        command: cmd.Command,
        handler: Callable[[_Txn], R],
        result_type: Any,
        *,
        command_id: str | None = None,
        actor: str | None = None,
        exclusive: bool = False,
        lost_race: Callable[[], R] | None = None,
    ) -> R:
        """Run a command: decide, append, project, record, with retries on concurrent change.

        `exclusive` commands decide inside the write transaction (deployments number versions
        under the log head lock); the others decide on a snapshot first. A command that lost
        the race for its streams on every attempt raises ConcurrencyError, or answers
        `lost_race()` when it has an answer for that (a fetch that found every candidate taken
        by other nodes locked nothing, as Camunda answers)."""
        if command_id is not None:
            # Refused, not recorded: the command log's key cannot hold it either.
            check_text("command id", command_id, MAX_COMMAND_ID)
            with self._read() as conn:
                record = self._store.find_command(conn, command_id)
            if record is not None:
                return cast(R, self._stored_outcome(record, result_type))
        cid = command_id or uuid7()
        try:
            payload: bytes | None = cmd.encode_command(command)
        except RecursionError:
            payload = None  # a value nested too deeply: the handler's checks name it
        with self._lock:
            for attempt in range(MAX_ATTEMPTS):
                now = self.clock.now()
                txn: _Txn | None = None
                try:
                    if payload is not None:
                        refuse_nul_in_ids(payload, command)
                    if exclusive:
                        with self._write() as conn:
                            txn = _Txn(self, conn, now, cid)
                            result = handler(txn)
                            stored = self._commit(
                                txn, conn, command, payload, cid, result, actor, False
                            )
                    else:
                        # Decide on a read snapshot, then append under the write lock; the append
                        # checks every stream's head, so a decision on moved state is retried.
                        with self._snapshot() as rconn:
                            txn = _Txn(self, rconn, now, cid)
                            result = handler(txn)
                        with self._write() as conn:
                            stored = self._commit(
                                txn, conn, command, payload, cid, result, actor, True
                            )
                    txn.publish(stored)
                    if stored:
                        self._notify_committed()
                    return result
                except ConcurrencyError:
                    if txn is not None:
                        txn.discard()
                    if attempt == MAX_ATTEMPTS - 1:
                        if lost_race is not None:
                            return lost_race()
                        raise
                except IntegrityError:
                    if txn is not None:
                        txn.discard()
                    with self._read() as conn:
                        record = self._store.find_command(conn, cid)
                    if record is None:
                        raise
                    return cast(R, self._stored_outcome(record, result_type))
                except FlowledgerError as exc:
                    if txn is not None:
                        txn.discard()
                    self._reject(cid, command, exc, now, actor)
                    raise
                except BaseException:
                    if txn is not None:
                        txn.discard()
                    raise
        raise AssertionError("unreachable")

    def _reject(
        self, cid: str, command: cmd.Command, exc: Exception, now: datetime, actor: str | None
    ) -> None:
        """A rejected command leaves exactly one trace: its row in the command log."""
        try:
            payload = cmd.encode_command(command)
        except RecursionError:
            payload = msgspec.json.encode(
                {"type": type(command).__name__, "unrecorded": "input nested too deeply to record"}
            )
        try:
            with self._write() as conn:
                self._store.record_command(
                    conn,
                    CommandRecord(
                        command_id=cid,
                        command_type=type(command).__name__,
                        payload=payload,
                        status="rejected",
                        received_at=now,
                        reason=f"{type(exc).__name__}: {exc}"[:4000],
                        actor=recordable_actor(actor),
                    ),
                )
        except IntegrityError:
            pass  # the same command id was recorded by a concurrent attempt

    def _stored_outcome(self, record: CommandRecord, result_type: Any) -> Any:
        if record.status != "accepted":
            raise Rejected(f"command {record.command_id} was rejected before: {record.reason}")
        if result_type is None or record.result is None:
            return None
        return msgspec.json.decode(record.result, type=result_type)

    # -- state and models ------------------------------------------------------------------

    def _remember(self, stream_id: str, cached: Cached) -> None:
        self._cache.put(stream_id, cached)

    def _forget(self, stream_id: str) -> None:
        self._cache.pop(stream_id)

    def _load(self, conn: Connection, stream_id: str) -> Cached | None:
        cached = self._cache.get(stream_id)
        if cached is not None:
            return cached
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
                if isinstance(event, ev.DeploymentCreated):
                    return None
                state = evolve(state, event)
            version, head = commit.last_version, commit.hash
        if state is None:
            return None
        if head is None:
            stream_head = self._store.stream_head(conn, stream_id)
            head = stream_head[1] if stream_head else None
        loaded = Cached(state, version, head)
        self._remember(stream_id, loaded)
        return loaded

    def _load_fresh(self, conn: Connection, stream_id: str) -> Cached | None:
        """The cached state only if no other engine appended to the stream since (one query)."""
        cached = self._cache.get(stream_id)
        if cached is not None:
            head = self._store.stream_head(conn, stream_id)
            if head is None or head == (cached.version, cached.head_hash):
                return cached
            self._forget(stream_id)
        return self._load(conn, stream_id)

    def _model(
        self, conn: Connection, definition_id: str, deployment_id: str | None = None
    ) -> ProcessModel:
        """The parsed model of a deployed definition (cached), or, given the deployment id an
        instance recorded, of a definition whose deployment was deleted since (not cached: the
        cache serves deployed definitions only)."""
        model = self._models.get(definition_id)
        if model is not None:
            return model
        definition = queries.process_definition(conn, definition_id)
        if definition is None:
            if deployment_id is None:
                raise NotFound("Process definition", definition_id)
            # Only finished instances outlive their deployment (deleting it needs no running
            # ones, or ends them): the model is read for deleting such an instance's history.
            event = self._deployment_event(conn, deployment_id)
            model, _meta = model_from_deployment(
                event, definition_id, allow_scripts=self.allow_scripts
            )
            return model
        deployment = self._deployment_event(conn, definition.deployment_id)
        model, _meta = model_from_deployment(
            deployment, definition_id, allow_scripts=self.allow_scripts
        )
        self._models[definition_id] = model
        return model

    def _deployment_event(self, conn: Connection, deployment_id: str) -> ev.DeploymentCreated:
        for commit in self._store.read_stream(conn, deployment_id):
            for event in self._codec.decode(commit.events):
                if isinstance(event, ev.DeploymentCreated):
                    return event
        raise NotFound("Deployment", deployment_id)

    # -- repository ------------------------------------------------------------------------

    def deploy(
        self,
        source: str | bytes | Path | Mapping[str, bytes | str] | Sequence[tuple[str, bytes | str]],
        name: str | None = None,
        *,
        deployment_source: str | None = None,
        duplicate_filtering: bool = False,
        deploy_changed_only: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> views.Deployment:
        """Deploy BPMN resources: a file path, BPMN bytes or XML text, or several named resources.

        With `duplicate_filtering`, re-deploying byte-identical resources under the same
        deployment name returns the existing deployment and writes nothing.
        """
        resources = _resources(source)
        command = cmd.Deploy(
            resources=resources,
            name=name,
            source=deployment_source,
            duplicate_filtering=duplicate_filtering or deploy_changed_only,
            deploy_changed_only=deploy_changed_only,
        )

        def handle(txn: _Txn) -> views.Deployment:
            check_deployment(name, deployment_source, [r.name for r in resources])
            conn = txn.conn
            self._store.lock_head(conn)  # versions per key are numbered under the log head lock
            chosen = list(resources)
            if command.duplicate_filtering and name is not None:
                previous = queries.latest_deployment_resources(conn, name, deployment_source)
                if previous is not None:
                    if unchanged(resources, previous[1]):
                        existing = queries.deployment(conn, previous[0])
                        assert existing is not None
                        return existing
                    if deploy_changed_only:
                        chosen = changed_only(resources, previous[1])
            parsed = parse_resources(chosen, allow_scripts=self.allow_scripts)
            keys = [p.id for r in parsed.values() for p in r.processes]
            created = deployment_created(
                chosen,
                parsed,
                name=name,
                source=deployment_source,
                now=txn.ctx.now,
                new_id=txn.ctx.new_id,
                latest_versions=queries.latest_versions(conn, keys),
            )
            txn.other_streams.append((created.deployment_id, 0, None, [created]))
            project_deployment(created, txn.changes)
            for resource_name, result in parsed.items():
                for process in result.processes:
                    meta = next(
                        d
                        for d in created.process_definitions
                        if d.key == process.id and d.resource_name == resource_name
                    )
                    self._models[meta.id] = process
            return views.Deployment(
                id=created.deployment_id,
                name=name,
                source=deployment_source,
                deployment_time=created.time,
                process_definitions=[
                    views.ProcessDefinition(
                        id=d.id,
                        key=d.key,
                        version=d.version,
                        deployment_id=created.deployment_id,
                        resource_name=d.resource_name,
                        name=d.name,
                        version_tag=d.version_tag,
                        history_time_to_live=d.history_ttl,
                        category=d.category,
                        startable_in_tasklist=d.startable,
                    )
                    for d in created.process_definitions
                ],
                resource_names=sorted(r.name for r in chosen),
            )

        return self._execute(
            command, handle, views.Deployment, command_id=command_id, actor=actor, exclusive=True
        )

    def delete_deployment(
        self,
        deployment_id: str,
        *,
        cascade: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's repositoryService.deleteDeployment(id, cascade): the deployment, its process
        definitions and resources leave the repository tables (the log keeps them).

        Without `cascade` it is refused while an instance of one of its definitions runs. With
        `cascade` those instances are deleted ("deleted deployment"), and the history of every
        instance of its definitions, finished ones too, is removed from the ACT_HI_* tables.
        Starting by key then starts the latest remaining version; the next deployment of the key
        numbers its version after the latest remaining one, as in Camunda.
        """
        command = cmd.DeleteDeployment(deployment_id=deployment_id, cascade=cascade)

        def handle(txn: _Txn) -> None:
            conn = txn.conn
            # Under the log head lock, like deploy: no start can slip in between the check for
            # running instances and the deletion (a start that decided earlier fails its guard).
            self._store.lock_head(conn)
            deployment = queries.deployment(conn, deployment_id)
            head = self._store.stream_head(conn, deployment_id)
            if deployment is None or head is None:
                raise NotFound("Deployment", deployment_id)
            definition_ids = [d.id for d in deployment.process_definitions]
            running = queries.running_process_instances(conn, definition_ids)
            if running and not cascade:
                _refuse_deletion_with_instances(definition_ids, running)
            for instance_id, _definition_id in running:
                session = txn.instance(instance_id)
                decide.delete_instance(session, DELETED_DEPLOYMENT)
                decide.delete_history(session)
            deleted = ev.DeploymentDeleted(
                deployment_id=deployment_id,
                cascade=cascade,
                process_definition_ids=definition_ids,
                time=txn.ctx.now,
            )
            txn.other_streams.append((deployment_id, head[0], head[1], [deleted]))
            project_repository(deleted, txn.changes)
            if self.history_mode == "inline":
                self._history.observe(deleted, None, txn.changes)
            for definition_id in definition_ids:
                self._models.pop(definition_id, None)

        self._execute(command, handle, None, command_id=command_id, actor=actor, exclusive=True)

    def process_definitions(self, key: str | None = None) -> list[views.ProcessDefinition]:
        with self._read() as conn:
            return queries.process_definitions(conn, key=key)

    def deployment(self, deployment_id: str) -> views.Deployment | None:
        with self._read() as conn:
            return queries.deployment(conn, deployment_id)

    # -- process instances -----------------------------------------------------------------

    def start_process_instance(
        self,
        key: str | None = None,
        variables: Mapping[str, Any] | None = None,
        business_key: str | None = None,
        *,
        definition_id: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> views.ProcessInstance:
        """Start the latest version of the process `key` (or a given definition id)."""
        if key is None and definition_id is None:
            raise ValueError("start_process_instance needs a process key or a definition_id")
        command = cmd.StartProcessInstance(
            key=key,
            definition_id=definition_id,
            business_key=business_key,
            variables=dict(variables or {}),
        )

        def handle(txn: _Txn) -> views.ProcessInstance:
            conn = txn.conn
            if definition_id is not None:
                definition = queries.process_definition(conn, definition_id)
                if definition is None:
                    raise NotFound("Process definition", definition_id)
            else:
                assert key is not None
                definition = queries.latest_process_definition(conn, key)
                if definition is None:
                    raise NotFound("Process definition with key", key, "nothing deployed yet")
            if definition.suspended:
                raise Rejected(f"Process definition '{definition.id}' is suspended")
            model = self._model(conn, definition.id)
            txn.guards.append(partial(_still_deployed, definition.id))
            session = txn.start_instance(
                model,
                definition_id=definition.id,
                definition_version=definition.version,
                deployment_id=definition.deployment_id,
                business_key=business_key,
                variables=command.variables,
            )
            instance_id = session.state.id
            return views.ProcessInstance(
                id=instance_id,
                definition_id=definition.id,
                definition_key=definition.key,
                business_key=business_key,
                ended=session.state.ended,
            )

        return self._execute(
            command, handle, views.ProcessInstance, command_id=command_id, actor=actor
        )

    def delete_process_instance(
        self,
        process_instance_id: str,
        reason: str | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        command = cmd.DeleteProcessInstance(process_instance_id=process_instance_id, reason=reason)

        def handle(txn: _Txn) -> None:
            decide.delete_instance(txn.instance(process_instance_id), reason)

        self._execute(command, handle, None, command_id=command_id, actor=actor)

    def delete_historic_process_instance(
        self,
        process_instance_id: str,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's historyService.deleteHistoricProcessInstance: the finished instance's
        ACT_HI_* rows (instance, activities, tasks, variables, details) are deleted.

        The log keeps every event of the instance and appends this deletion to it: `events(id)`
        and `replay(id)` still show everything, and a rebuild leaves the rows deleted."""
        command = cmd.DeleteHistoricProcessInstance(process_instance_id=process_instance_id)

        def handle(txn: _Txn) -> None:
            try:
                session = txn.instance(process_instance_id, ended_ok=True)
            except NotFound:
                raise NotFound("Historic process instance", process_instance_id) from None
            state = session.state
            gone = state.ended and self._deleted_with_cascade(txn.conn, state.deployment_id)
            decide.delete_history(session, deleted_with_deployment=gone)

        self._execute(command, handle, None, command_id=command_id, actor=actor)

    def _deleted_with_cascade(self, conn: Connection, deployment_id: str) -> bool:
        """Whether the deployment was deleted with cascade (taking its instances' history)."""
        if queries.deployment(conn, deployment_id) is not None:
            return False  # still deployed: the usual case, no need to read the log
        for commit in self._store.read_stream(conn, deployment_id):
            for event in self._codec.decode(commit.events):
                if isinstance(event, ev.DeploymentDeleted) and event.cascade:
                    return True
        return False

    def process_instance(self, process_instance_id: str) -> views.ProcessInstance | None:
        with self._read() as conn:
            return queries.process_instance(conn, process_instance_id)

    def executions(self, process_instance_id: str) -> list[views.Execution]:
        with self._read() as conn:
            return queries.executions(conn, process_instance_id)

    def activity_instance_tree(self, process_instance_id: str) -> views.ActivityInstanceNode:
        """The runtime activity instance tree (Camunda's runtimeService.getActivityInstance)."""
        with self._lock, self._read() as conn:
            cached = self._load_fresh(conn, process_instance_id)
            if cached is None:
                raise NotFound("Process instance", process_instance_id)
            state = copy_state(cached.state)
            if state.ended:
                raise NotFound("Process instance", process_instance_id, "it has already ended")
            model = self._model(conn, state.definition_id)
        return _activity_tree(state, model)

    def trigger(
        self,
        execution_id: str,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Signal an execution waiting in a receive task (Camunda's runtimeService.signal)."""
        command = cmd.Trigger(execution_id=execution_id, variables=dict(variables or {}))

        def handle(txn: _Txn) -> None:
            instance_id = queries.instance_of_execution(txn.conn, execution_id)
            if instance_id is None:
                raise NotFound("Execution", execution_id)
            decide.trigger(txn.instance(instance_id), execution_id, command.variables)

        self._execute(command, handle, None, command_id=command_id, actor=actor)

    # -- variables -------------------------------------------------------------------------

    def _owner_of(self, conn: Connection, execution_id: str) -> str:
        instance_id = queries.instance_of_execution(conn, execution_id)
        if instance_id is None:
            raise NotFound("Execution", execution_id, "it does not exist or has ended")
        return instance_id

    def set_variables(
        self,
        execution_id: str,
        variables: Mapping[str, Any],
        *,
        local: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Set variables from an execution (or process instance) id, Camunda's scoping rules."""
        command = cmd.SetVariables(
            execution_id=execution_id, variables=dict(variables), local=local
        )

        def handle(txn: _Txn) -> None:
            session = txn.instance(self._owner_of(txn.conn, execution_id))
            decide.set_variables(session, execution_id, command.variables, local=local)

        self._execute(command, handle, None, command_id=command_id, actor=actor)

    def set_task_variables(
        self,
        task_id: str,
        variables: Mapping[str, Any],
        *,
        local: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        command = cmd.SetVariables(
            execution_id="", variables=dict(variables), local=local, task_id=task_id
        )

        def handle(txn: _Txn) -> None:
            instance_id = queries.instance_of_task(txn.conn, task_id)
            if instance_id is None:
                raise NotFound("Task", task_id)
            decide.set_variables(
                txn.instance(instance_id), "", command.variables, local=local, task_id=task_id
            )

        self._execute(command, handle, None, command_id=command_id, actor=actor)

    def remove_variables(
        self,
        execution_id: str,
        names: Sequence[str],
        *,
        local: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        command = cmd.RemoveVariables(execution_id=execution_id, names=list(names), local=local)

        def handle(txn: _Txn) -> None:
            session = txn.instance(self._owner_of(txn.conn, execution_id))
            decide.remove_variables(session, execution_id, list(names), local=local)

        self._execute(command, handle, None, command_id=command_id, actor=actor)

    def remove_task_variables(
        self,
        task_id: str,
        names: Sequence[str],
        *,
        local: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's taskService.removeVariables / removeVariablesLocal. `local` removes the
        task's own variables only; otherwise each name goes where the task sees it: the task's
        own variable, else the innermost execution scope above the task that has it. Names
        that are not there are ignored, as in Camunda."""
        command = cmd.RemoveVariables(
            execution_id="", names=list(names), local=local, task_id=task_id
        )
        self._task_command(
            command,
            task_id,
            lambda s: decide.remove_variables(s, "", command.names, local=local, task_id=task_id),
            command_id,
            actor,
        )

    def get_variables(self, execution_id: str, *, local: bool = False) -> dict[str, Any]:
        """Variables visible from an execution or process instance (inner scopes win)."""
        typed = self.get_variables_typed(execution_id, local=local)
        return {name: value for name, (value, _type) in typed.items()}

    def get_variable(self, execution_id: str, name: str) -> Any:
        return self.get_variables(execution_id).get(name)

    def get_variable_values(
        self, execution_id: str, *, local: bool = False
    ) -> dict[str, StoredValue]:
        """Variables visible from an execution or process instance as stored (type + encoded
        value + value info), inner scopes first: what the REST API serialises."""
        with self._read() as conn:
            chain = queries.execution_chain(conn, execution_id)
            if not chain:
                raise NotFound("Execution", execution_id, "it does not exist or has ended")
            rows = queries.variable_rows(conn, execution_ids=chain[:1] if local else chain)
        rank = {e: i for i, e in enumerate(chain)}
        best: dict[str, tuple[int, StoredValue]] = {}
        for name, stored, owner, task_id in rows:
            if task_id is not None:
                continue
            r = rank[owner]
            if name not in best or r < best[name][0]:
                best[name] = (r, stored)
        return {n: v for n, (_r, v) in sorted(best.items())}

    def get_variables_typed(
        self, execution_id: str, *, local: bool = False
    ) -> dict[str, tuple[Any, str]]:
        """Like get_variables, with Camunda's type name: {"amount": (5, "Integer")}."""
        values = self.get_variable_values(execution_id, local=local)
        return {n: (from_stored(v), rest_type_name(v.type)) for n, v in values.items()}

    def get_task_variable_values(
        self, task_id: str, *, local: bool = False
    ) -> dict[str, StoredValue]:
        """Variables of a task as stored: its own (task-local) ones, and unless `local` those
        visible from its execution underneath."""
        with self._read() as conn:
            task = queries.tasks(conn, task_id=task_id)
            if not task:
                raise NotFound("Task", task_id)
            own = {n: v for n, v, _e, _t in queries.variable_rows(conn, task_id=task_id)}
        if local:
            return dict(sorted(own.items()))
        merged = self.get_variable_values(task[0].execution_id)
        merged.update(own)
        return dict(sorted(merged.items()))

    def get_task_variables(self, task_id: str, *, local: bool = False) -> dict[str, Any]:
        values = self.get_task_variable_values(task_id, local=local)
        return {n: from_stored(v) for n, v in values.items()}

    # -- user tasks ------------------------------------------------------------------------

    def tasks(self, **filters: Any) -> list[views.Task]:
        """Open user tasks. Filters: process_instance_id, assignee, candidate_user,
        candidate_group, candidate_groups, task_definition_key, name, unassigned, task_id,
        include_assigned_tasks."""
        with self._read() as conn:
            return queries.tasks(conn, **filters)

    def task(self, task_id: str) -> views.Task:
        found = self.tasks(task_id=task_id)
        if not found:
            raise NotFound("Task", task_id)
        return found[0]

    def _task_command(
        self,
        command: cmd.Command,
        task_id: str,
        action: Callable[[InstanceSession], None],
        command_id: str | None,
        actor: str | None,
    ) -> None:
        def handle(txn: _Txn) -> None:
            instance_id = queries.instance_of_task(txn.conn, task_id)
            if instance_id is None:
                raise NotFound("Task", task_id, "it does not exist or is already completed")
            action(txn.instance(instance_id))

        self._execute(command, handle, None, command_id=command_id, actor=actor)

    def complete_task(
        self,
        task_id: str,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        command = cmd.CompleteTask(task_id=task_id, variables=dict(variables or {}))
        self._task_command(
            command,
            task_id,
            lambda s: decide.complete_task(s, task_id, command.variables),
            command_id,
            actor,
        )

    def claim(
        self, task_id: str, user_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        command = cmd.ClaimTask(task_id=task_id, user_id=user_id)
        self._task_command(
            command, task_id, lambda s: decide.claim_task(s, task_id, user_id), command_id, actor
        )

    def unclaim(
        self, task_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        command = cmd.UnclaimTask(task_id=task_id)
        self._task_command(
            command, task_id, lambda s: decide.unclaim_task(s, task_id), command_id, actor
        )

    def set_assignee(
        self,
        task_id: str,
        user_id: str | None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        command = cmd.SetAssignee(task_id=task_id, user_id=user_id)
        self._task_command(
            command, task_id, lambda s: decide.set_assignee(s, task_id, user_id), command_id, actor
        )

    # -- external tasks --------------------------------------------------------------------

    def fetch_and_lock(
        self,
        worker_id: str,
        topics: Sequence[tuple[str, int]] | Mapping[str, int],
        max_tasks: int = 1,
        *,
        use_priority: bool = False,
        task_ids: Sequence[str] | None = None,
        command_id: str | None = None,
    ) -> list[views.ExternalTask]:
        """Lock up to `max_tasks` external tasks of the given topics: {topic: lock duration ms}.

        `task_ids` restricts the choice to those tasks (a caller that filtered candidates by
        more than their topic, such as the REST API's business key or variable filters)."""
        pairs = list(topics.items()) if isinstance(topics, Mapping) else list(topics)
        if max_tasks < 0:
            raise Rejected("maxTasks must not be negative")
        command = cmd.FetchAndLock(
            worker_id=worker_id,
            topics=[cmd.TopicRequest(t, d) for t, d in pairs],
            max_tasks=max_tasks,
            use_priority=use_priority,
            task_ids=None if task_ids is None else sorted(task_ids),
        )
        durations = dict(pairs)
        for topic, duration in pairs:
            if duration <= 0:
                raise Rejected(f"lockDuration of topic '{topic}' must be positive")

        def handle(txn: _Txn) -> list[views.ExternalTask]:
            check_fetch(worker_id, durations, max_tasks, txn.ctx.now)
            if max_tasks == 0 or not pairs:
                return []
            candidates = queries.fetchable_external_tasks(
                txn.conn,
                list(durations),
                txn.ctx.now,
                max_tasks * 2 + 5,
                use_priority,
                only=command.task_ids,
            )
            locked: list[str] = []
            for task_id, instance_id, topic in candidates:
                if len(locked) >= max_tasks:
                    break
                session = txn.instance(instance_id)
                if decide.lock_external_task(session, task_id, worker_id, durations[topic]):
                    locked.append(task_id)
            return [self._external_task_view(txn, task_id) for task_id in locked]

        return self._execute(
            command,
            handle,
            list[views.ExternalTask],
            command_id=command_id,
            actor=worker_id,
            lost_race=list,
        )

    def _external_task_view(self, txn: _Txn, task_id: str) -> views.ExternalTask:
        for session, _v, _h, _b in txn.instances.values():
            ext = session.state.external_tasks.get(task_id)
            if ext is None:
                continue
            state = session.state
            return views.ExternalTask(
                id=ext.id,
                topic_name=ext.topic,
                activity_id=ext.activity_id,
                activity_instance_id=ext.activity_instance_id,
                execution_id=ext.execution_id,
                process_instance_id=state.id,
                process_definition_id=state.definition_id,
                process_definition_key=state.definition_key,
                priority=ext.priority,
                created=ext.created,
                worker_id=ext.worker_id,
                lock_expiration_time=ext.lock_expiration,
                retries=ext.retries,
                error_message=ext.error_message,
                business_key=state.business_key,
                variables=visible_variables(session, ext.execution_id),
            )
        raise NotFound("External task", task_id)

    def external_tasks(self, **filters: Any) -> list[views.ExternalTask]:
        """External tasks. Filters: process_instance_id, topic_name, external_task_id."""
        with self._read() as conn:
            return queries.external_tasks(conn, **filters)

    def _external_command(
        self,
        command: cmd.Command,
        external_task_id: str,
        action: Callable[[InstanceSession], None],
        command_id: str | None,
        actor: str | None,
    ) -> None:
        def handle(txn: _Txn) -> None:
            instance_id = queries.instance_of_external_task(txn.conn, external_task_id)
            if instance_id is None:
                raise NotFound("External task", external_task_id)
            action(txn.instance(instance_id))

        self._execute(command, handle, None, command_id=command_id, actor=actor)

    def complete_external_task(
        self,
        external_task_id: str,
        worker_id: str,
        variables: Mapping[str, Any] | None = None,
        local_variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
    ) -> None:
        command = cmd.CompleteExternalTask(
            external_task_id=external_task_id,
            worker_id=worker_id,
            variables=dict(variables or {}),
            local_variables=dict(local_variables or {}),
        )
        self._external_command(
            command,
            external_task_id,
            lambda s: decide.complete_external_task(
                s, external_task_id, worker_id, command.variables, command.local_variables
            ),
            command_id,
            worker_id,
        )

    def handle_external_task_failure(
        self,
        external_task_id: str,
        worker_id: str,
        error_message: str | None = None,
        *,
        error_details: str | None = None,
        retries: int = 0,
        retry_timeout: int = 0,
        variables: Mapping[str, Any] | None = None,
        local_variables: Mapping[str, Any] | None = None,
        command_id: str | None = None,
    ) -> None:
        """Report a failure; fetchable again `retry_timeout` ms later while retries remain."""
        command = cmd.HandleExternalTaskFailure(
            external_task_id=external_task_id,
            worker_id=worker_id,
            error_message=error_message,
            error_details=error_details,
            retries=retries,
            retry_timeout=retry_timeout,
            variables=dict(variables or {}),
            local_variables=dict(local_variables or {}),
        )
        self._external_command(
            command,
            external_task_id,
            lambda s: decide.fail_external_task(
                s,
                external_task_id,
                worker_id,
                error_message=error_message,
                error_details=error_details,
                retries=retries,
                retry_timeout_ms=retry_timeout,
                variables=command.variables,
                local_variables=command.local_variables,
            ),
            command_id,
            worker_id,
        )

    def handle_external_task_bpmn_error(
        self,
        external_task_id: str,
        worker_id: str,
        error_code: str,
        error_message: str | None = None,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
    ) -> None:
        command = cmd.HandleExternalTaskBpmnError(
            external_task_id=external_task_id,
            worker_id=worker_id,
            error_code=error_code,
            error_message=error_message,
            variables=dict(variables or {}),
        )
        self._external_command(
            command,
            external_task_id,
            lambda s: decide.external_task_bpmn_error(
                s, external_task_id, worker_id, error_code, error_message, command.variables
            ),
            command_id,
            worker_id,
        )

    def extend_lock(
        self,
        external_task_id: str,
        worker_id: str,
        new_duration: int,
        *,
        command_id: str | None = None,
    ) -> None:
        command = cmd.ExtendExternalTaskLock(
            external_task_id=external_task_id, worker_id=worker_id, new_duration=new_duration
        )
        self._external_command(
            command,
            external_task_id,
            lambda s: decide.extend_external_task_lock(
                s, external_task_id, worker_id, new_duration
            ),
            command_id,
            worker_id,
        )

    def unlock(
        self, external_task_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        command = cmd.UnlockExternalTask(external_task_id=external_task_id)
        self._external_command(
            command,
            external_task_id,
            lambda s: decide.unlock_external_task(s, external_task_id),
            command_id,
            actor,
        )

    def set_external_task_retries(
        self,
        external_task_id: str,
        retries: int,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's externalTaskService.setRetries: negative is refused; at 0 the task is no
        longer fetched (Camunda would also open an incident: not built yet)."""
        command = cmd.SetExternalTaskRetries(external_task_id=external_task_id, retries=retries)
        self._external_command(
            command,
            external_task_id,
            lambda s: decide.set_external_task_retries(s, external_task_id, retries),
            command_id,
            actor,
        )

    def set_external_task_priority(
        self,
        external_task_id: str,
        priority: int,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's externalTaskService.setPriority (fetch_and_lock with use_priority)."""
        command = cmd.SetExternalTaskPriority(external_task_id=external_task_id, priority=priority)
        self._external_command(
            command,
            external_task_id,
            lambda s: decide.set_external_task_priority(s, external_task_id, priority),
            command_id,
            actor,
        )

    def external_task_error_details(self, external_task_id: str) -> str | None:
        """The error details of the task's last failure report that had any (Camunda's
        getExternalTaskErrorDetails), read from its ACT_GE_BYTEARRAY row; None if never."""
        with self._read() as conn:
            exists, details = queries.external_task_error_details(conn, external_task_id)
        if not exists:
            raise NotFound("External task", external_task_id)
        return details

    # -- history ---------------------------------------------------------------------------

    def historic_process_instances(self, **filters: Any) -> list[views.HistoricProcessInstance]:
        """Filters: process_instance_id, process_definition_key, finished."""
        with self._read() as conn:
            return queries.historic_process_instances(conn, **filters)

    def historic_process_instance(self, process_instance_id: str) -> views.HistoricProcessInstance:
        found = self.historic_process_instances(process_instance_id=process_instance_id)
        if not found:
            raise NotFound("Historic process instance", process_instance_id)
        return found[0]

    def historic_activity_instances(
        self, process_instance_id: str
    ) -> list[views.HistoricActivityInstance]:
        with self._read() as conn:
            return queries.historic_activity_instances(conn, process_instance_id)

    def historic_task_instances(
        self, process_instance_id: str | None = None
    ) -> list[views.HistoricTaskInstance]:
        with self._read() as conn:
            return queries.historic_task_instances(conn, process_instance_id)

    def historic_variable_instances(
        self, process_instance_id: str | None = None
    ) -> list[views.HistoricVariableInstance]:
        with self._read() as conn:
            rows = queries.historic_variable_rows(conn, process_instance_id)
        return [
            views.HistoricVariableInstance(
                id=m["ID_"],
                name=m["NAME_"],
                type=rest_type_name(stored.type),
                value=from_stored(stored),
                process_instance_id=m["PROC_INST_ID_"],
                execution_id=m["EXECUTION_ID_"],
                activity_instance_id=m["ACT_INST_ID_"],
                task_id=m["TASK_ID_"],
                state=m["STATE_"],
                create_time=queries.utc(m["CREATE_TIME_"]),
            )
            for m, stored in rows
        ]

    # -- the log: audit, replay, verification ----------------------------------------------

    def events(self, process_instance_id: str) -> list[views.RecordedEvent]:
        """Every recorded event of an instance (or deployment) stream, in order."""
        with self._read() as conn:
            commits = self._store.read_stream(conn, process_instance_id)
        if not commits:
            raise NotFound("Stream", process_instance_id)
        out = []
        for commit in commits:
            for i, event in enumerate(self._codec.decode(commit.events)):
                payload = ev.to_dict(event)
                out.append(
                    views.RecordedEvent(
                        position=commit.first_position + i,
                        stream_id=commit.stream_id,
                        stream_version=commit.first_version + i,
                        type=payload.pop("type"),
                        recorded_at=queries.utc(commit.recorded_at) or commit.recorded_at,
                        command_id=commit.command_id,
                        command_type=commit.command_type,
                        actor=commit.actor,
                        payload=payload,
                    )
                )
        return out

    def replay(self, process_instance_id: str, until_position: int | None = None) -> InstanceState:
        """The instance's state as it was right after the event at `until_position` (or now)."""
        with self._read() as conn:
            commits = self._store.read_stream(conn, process_instance_id)
        state: InstanceState | None = None
        for commit in commits:
            for i, event in enumerate(self._codec.decode(commit.events)):
                if until_position is not None and commit.first_position + i > until_position:
                    break
                if isinstance(event, ev.DeploymentCreated):
                    raise NotFound("Process instance", process_instance_id, "that is a deployment")
                state = evolve(state, event)
        if state is None:
            raise NotFound("Process instance", process_instance_id)
        return state

    def verify(
        self,
        *,
        expect_anchor: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> views.VerificationReport:
        """Check the hash chains and the command log, replay every instance, rebuild every
        projection into temporary tables and compare with the live state and tables. An empty
        `problems` list means all agree; `anchor` is the digest of the log as read.

        `expect_anchor`: an anchor an earlier `verify` reported (`POSITION:DIGEST`, kept
        outside the database); the log up to that position must still digest to it.
        `progress(commits done, commits in the log)` is called as the log is read."""
        # Compare at one point of the log: asynchronous history caught up, no command between.
        with self._lock:
            stopped: str | None = None
            try:
                self.flush_history()
            except ProcessEngineError as exc:
                stopped = str(exc)  # history cannot catch up: say why, then compare all else
            with self._read() as conn:
                report = self._verify(conn, expect_anchor, progress)
        if stopped is None:
            return report
        return msgspec.structs.replace(report, problems=[stopped, *report.problems])

    def rebuild_projections(self) -> views.RebuildReport:
        """Rewrite every ACT_* table from the log, in one transaction: for a schema change, a new
        history level, or tables someone edited by hand. Commands wait until it is done."""
        tables = (*HISTORY_TABLES, *RUNTIME_TABLES, *REPOSITORY_TABLES)
        with self._lock, self._write() as conn:
            self._store.lock_head(conn)
            # A history follower's batch prepared before the rebuild must not land in it: it
            # waits on this row lock, then finds the checkpoint moved and drops its batch.
            self._store.checkpoint(conn, HISTORY_CHECKPOINT, lock=True)
            for table in tables:
                conn.execute(table.delete())
            # Building an index once over the loaded rows beats maintaining it row by row; only
            # where DDL is transactional (MySQL would commit the rebuild half done), and only
            # when no history deletion needs them to find its rows (a scan of whole tables each).
            indexes = (
                [i for t in tables for i in t.indexes]
                if conn.dialect.name in ("sqlite", "postgresql") and not _purges_in_log(conn)
                else []
            )
            for index in indexes:
                index.drop(conn)

            def load(stream_id: str, version: int) -> InstanceState | None:
                return state_at(self._store, conn, self._codec, stream_id, version)

            replayer = Replayer(
                load, history=self._history, runtime=True, repository=True, keep=CACHE_SIZE
            )
            changes = ChangeSet()
            commits = events = rows = pending = 0
            for entry in self._store.entries(conn):
                decoded = self._codec.decode(entry.events)
                replayer.project(
                    entry.stream_id, entry.first_version, entry.last_version, decoded, changes
                )
                commits += 1
                events += len(decoded)
                pending += len(decoded)
                if pending >= REBUILD_BATCH_EVENTS:
                    rows += changes.row_count()
                    self._rows.apply(conn, changes)
                    changes, pending = ChangeSet(), 0
            rows += changes.row_count()
            self._rows.apply(conn, changes)
            for index in indexes:
                index.create(conn)
            if self._store.checkpoint(conn, HISTORY_CHECKPOINT) is not None:
                head = self._store.head_position(conn)
                self._store.save_checkpoint(
                    conn, HISTORY_CHECKPOINT, head, HISTORY_SCHEMA, _wall_clock()
                )
        return views.RebuildReport(commits=commits, events=events, rows_written=rows)

    def _verify(
        self,
        conn: Connection,
        expect_anchor: str | None,
        progress: Callable[[int, int], None] | None,
    ) -> views.VerificationReport:
        try:
            anchor = None if expect_anchor is None else LogAnchor.parse(expect_anchor)
        except ValueError as exc:
            raise InvalidValue(str(exc), field="expect_anchor") from None
        # The states this engine serves commands from, compared with their replay.
        cached = dict(self._cache.items())
        verifier = Verifier(self._store, self._codec, self._history, cached, keep=CACHE_SIZE)
        report = verifier.run(conn, expect_anchor=anchor, progress=progress)
        for stream_id in verifier.stale:
            self._forget(stream_id)
        return report


def _resources(
    source: str | bytes | Path | Mapping[str, bytes | str] | Sequence[tuple[str, bytes | str]],
) -> list[cmd.ResourceInput]:
    def data(value: bytes | str) -> bytes:
        return value.encode() if isinstance(value, str) else bytes(value)

    if isinstance(source, Mapping):
        return [cmd.ResourceInput(name, data(value)) for name, value in source.items()]
    if isinstance(source, Path):
        return [cmd.ResourceInput(source.name, source.read_bytes())]
    if isinstance(source, bytes):
        return [cmd.ResourceInput("process.bpmn", source)]
    if isinstance(source, str):
        if source.lstrip().startswith("<"):
            return [cmd.ResourceInput("process.bpmn", source.encode())]
        path = Path(source)
        if not path.is_file():
            raise NotFound("BPMN file", source)
        return [cmd.ResourceInput(path.name, path.read_bytes())]
    return [cmd.ResourceInput(name, data(value)) for name, value in source]


def _activity_tree(state: InstanceState, model: ProcessModel) -> views.ActivityInstanceNode:
    children: dict[str, list[str]] = {}
    for ai in state.activity_instances.values():
        children.setdefault(ai.parent_id, []).append(ai.id)

    def executions_of(ai_id: str) -> list[str]:
        return sorted(
            e.id
            for e in state.executions.values()
            if e.activity_instance_id == ai_id or e.scope_activity_instance_id == ai_id
        )

    def node(ai_id: str) -> views.ActivityInstanceNode:
        ai = state.activity_instances[ai_id]
        return views.ActivityInstanceNode(
            id=ai.id,
            activity_id=ai.activity_id,
            activity_type=ai.activity_type,
            activity_name=ai.activity_name,
            parent_activity_instance_id=ai.parent_id,
            execution_ids=executions_of(ai.id),
            child_activity_instances=[node(c) for c in children.get(ai.id, [])],
        )

    return views.ActivityInstanceNode(
        id=state.id,
        activity_id=state.definition_id,  # Camunda: the root stands for the process definition
        activity_type="processDefinition",
        activity_name=model.name,
        parent_activity_instance_id=None,
        execution_ids=executions_of(state.id),
        child_activity_instances=[node(c) for c in children.get(state.id, [])],
    )


DELETED_DEPLOYMENT = "deleted deployment"  # Camunda's delete reason for a cascade


def _refuse_deletion_with_instances(
    definition_ids: Sequence[str], running: Sequence[tuple[str, str]]
) -> None:
    """Camunda checks definition by definition and names the first that has instances; the
    message is Camunda's (ENGINE-03076), its spelling included, for clients that match it."""
    for definition_id in definition_ids:
        count = sum(1 for _i, d in running if d == definition_id)
        if count:
            raise Rejected(
                "Deletion of process definition without cascading failed. Process definition "
                f"with id: {definition_id} can't be deleted, since there exists {count} "
                "dependening process instances."
            )


# Commands whose events delete projection rows by what they belong to (history purges).
PURGING_COMMANDS = ("DeleteDeployment", "DeleteHistoricProcessInstance")


def _purges_in_log(conn: Connection) -> bool:
    found = conn.execute(
        select(event_log.c.first_position)
        .where(event_log.c.command_type.in_(PURGING_COMMANDS))
        .limit(1)
    ).first()
    return found is not None


def _still_deployed(definition_id: str, conn: Connection) -> None:
    """Guard of a start: its definition was not deleted while the start was decided."""
    if queries.process_definition(conn, definition_id) is None:
        raise ConcurrencyError(definition_id, 0)


def _wall_clock() -> datetime:
    """Checkpoints are stamped by the wall clock, never the engine's (perhaps controlled) one:
    other processes compare their marks with it."""
    return datetime.now(UTC)


def _follower_alive(found: CheckpointStatus) -> bool:
    """A follower marked the checkpoint recently (every HEARTBEAT seconds while idle)."""
    age = (_wall_clock() - found.updated_at).total_seconds()
    return abs(age) < FOLLOWER_ALIVE_WITHIN


def _close_at_exit(ref: weakref.ref[Engine]) -> None:
    engine = ref()
    if engine is not None and engine._history_worker is not None:
        engine.close()
