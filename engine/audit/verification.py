"""`Engine.verify`: the log, the instance states and the ACT_* tables checked against each other.

Three phases, timed apart: `chains` reads the log in position order through the log's own checks
(positions, hash chains, witnesses, the anchor, the Merkle root) and the command log cross-check
(`chain_pass`); `replay` reads it again and rebuilds every table into temporary shadow tables,
states kept for a bounded window and re-read from the log when needed; `tables` compares live
and shadow tables by streaming both in key order. Memory stays flat as the database grows. An
incremental run (`run_since`) checks the commits a tree head covers by its root alone and only
the commits after it fully.
Reads only: nothing is written but the temporary tables of its own connection. Every read of a
run is of one snapshot when the connection's transaction is one (`Connections.take_snapshot`):
the temporary tables are made before it begins (`make_shadows`), and nothing is made inside it.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
from sqlalchemy import Table, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from flowledger.core import events as ev
from flowledger.core import views
from flowledger.core.state import STATE_SCHEMA, InstanceState, decode_state, encode_state
from flowledger.engine.audit.chain_pass import check_chains, check_prefix
from flowledger.engine.audit.gc_batches import fewer_collections
from flowledger.engine.storage.database import is_memory_url
from flowledger.engine.storage.streams import Repository
from flowledger.eventlog import EventStore, LogAnchor, LogProblem, StoredCommit
from flowledger.eventlog.proofs import TreeHead
from flowledger.eventlog.tables import event_log, instance_snapshot
from flowledger.projections.changes import ChangeSet, Purge
from flowledger.projections.compare import ShadowTables, compare_tables
from flowledger.projections.decision_history import purge_decision_history
from flowledger.projections.follower import CHECKPOINT as HISTORY_CHECKPOINT
from flowledger.projections.history import HistoryProjector, purge_history
from flowledger.projections.replay import begin_and_end, operation_of, project_events
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_ACTINST,
    ACT_HI_OP_LOG,
    ACT_HI_PROCINST,
    ACT_HI_TASKINST,
    ACT_RU_EXECUTION,
    ACT_RU_EXT_TASK,
    ACT_RU_JOBDEF,
    ACT_RU_TASK,
    HISTORY_TABLES,
    REPOSITORY_TABLES,
    RUNTIME_TABLES,
)

# (done, total) within the running phase: called every PROGRESS_EVERY commits and at its end
Progress = Callable[[int, int], None]
# (phase name, its total): called as each phase begins
PhaseStart = Callable[[str, int], None]
log = logging.getLogger("flowledger.engine.verification")

PROGRESS_EVERY = 1000
KEEP_STATES = 10_000  # states of unfinished instances kept between their commits
BATCH_EVENTS = 20_000  # events projected between writes into the shadow tables
TABLES = (*REPOSITORY_TABLES, *RUNTIME_TABLES, *HISTORY_TABLES)

# Where the command a missing commit belonged to names its instance: (payload field, table
# holding that id, column naming the instance), tried in order.
_OWNERS = (
    ("task_id", ACT_HI_TASKINST, "ID_"),
    ("task_id", ACT_RU_TASK, "ID_"),
    ("external_task_id", ACT_RU_EXT_TASK, "ID_"),
    ("execution_id", ACT_RU_EXECUTION, "ID_"),
    ("execution_id", ACT_HI_ACTINST, "EXECUTION_ID_"),
)


class _Decoder(Protocol):
    def decode(self, data: bytes) -> list[ev.Event]: ...


class CachedState(Protocol):
    """What the engine keeps of an instance it served: its state at a stream version."""

    @property
    def state(self) -> InstanceState: ...

    @property
    def version(self) -> int: ...


@dataclass(frozen=True)
class HeldState:
    """A cached state as it was when verify's snapshot was taken, encoded: the engine's
    commands evolve the states they take from the cache in place, also while verify runs."""

    encoded: bytes
    version: int

    @property
    def state(self) -> InstanceState:
        return decode_state(self.encoded)


def hold_states(cache: Iterable[tuple[str, CachedState]]) -> dict[str, HeldState]:
    """The states of `cache`'s entries, copied (encoding is the cheapest deep copy)."""
    return {sid: HeldState(encode_state(c.state), c.version) for sid, c in cache}


class _Shadows(ShadowTables):
    """Shadow tables that make no index once `sealed`. On MariaDB and MySQL an index made
    inside verify's snapshot would end its transaction (an implicit commit) and the next read
    would see a later point of the log: the indexes the projectors' purges use are made before
    the snapshot (`make_shadows`), and a purge of any other kind scans its table instead."""

    sealed = False

    def _index(self, conn: Connection, table: Table, column: str) -> None:
        if self.sealed and conn.dialect.name in ("mysql", "mariadb"):
            if (table.name, column) not in self._indexed:
                self._indexed.add((table.name, column))
                log.warning(
                    "verify: a purge by %s.%s scans the table (no index made in the snapshot)",
                    table.name,
                    column,
                )
            return
        super()._index(conn, table, column)


def _every_purge() -> ChangeSet:
    """A purge of every kind the projectors make (history, decision history, the operation log,
    deployments), of rows that are not there: applied to empty shadows, it makes their indexes."""
    changes = ChangeSet()
    for column in ("PROC_INST_ID_", "PROC_DEF_ID_"):
        for hierarchy in (False, True):
            purge_history(changes, column, "", hierarchy=hierarchy)
    for column in ("ROOT_DEC_INST_ID_", "ID_", "DEC_DEF_ID_"):
        purge_decision_history(changes, column, "")
    changes.purge(Purge(ACT_HI_OP_LOG, "PROC_INST_ID_", "", roots=ACT_HI_PROCINST))
    changes.purge(Purge(ACT_RU_JOBDEF, "DEPLOYMENT_ID_", ""))
    changes.purge(Purge(ACT_GE_BYTEARRAY, "DEPLOYMENT_ID_", ""))
    return changes


def make_shadows(conn: Connection) -> ShadowTables:
    """The temporary tables a run rebuilds every table into, made on `conn` (commit them
    before the snapshot's transaction begins: made inside it, MariaDB would end it)."""
    shadows = _Shadows(TABLES)
    if conn.dialect.name == "sqlite" and not is_memory_url(str(conn.engine.url)):
        # (An in-memory database is in memory whole: its one connection keeps its journals so.)
        _spill_temporary_tables(conn, outside_transaction=not conn.in_transaction())
    shadows.create(conn)
    if conn.dialect.name in ("mysql", "mariadb"):
        shadows.apply(conn, _every_purge())
    shadows.sealed = True
    return shadows


@dataclass
class _Replay:
    """The replay side of the pass: states in a bounded window, rows into the shadows."""

    repository: Repository
    conn: Connection
    codec: _Decoder
    history: HistoryProjector
    shadows: ShadowTables
    pinned_ids: set[str]  # streams whose final state is compared afterwards
    keep: int
    problems: list[str] = field(default_factory=list)
    streams: int = 0
    pinned: dict[str, tuple[int, InstanceState | None]] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)
    _states: OrderedDict[str, tuple[int, InstanceState]] = field(default_factory=OrderedDict)
    _changes: ChangeSet = field(default_factory=ChangeSet)
    _pending: int = 0
    _window: list[StoredCommit] = field(default_factory=list)
    _window_events: int = 0
    # Asynchronous history is compared as far as the follower got in this read (its
    # checkpoint): commits after it are in the log but, rightly, not yet in ACT_HI_*.
    history_until: int | None = None

    def add(self, commit: StoredCommit, batch_events: int) -> None:
        """Take one commit; a batch's commits are projected together (`project_batch`)."""
        self._window.append(commit)
        self._window_events += commit.last_version - commit.first_version + 1
        if self._window_events >= batch_events:
            self.project_batch()

    def project_batch(self) -> None:
        """Project the commits taken since the last batch and write them into the shadows.
        Instances that start and end within the batch leave no runtime rows in it: their
        runtime projection is left out (`begin_and_end`)."""
        window, self._window, self._window_events = self._window, [], 0
        brief = begin_and_end(
            ((c.stream_id, c.first_version, c.events) for c in window), self._decoded_or_none
        )
        for commit in window:
            self.project(commit, runtime=commit.stream_id not in brief)
        self.flush()

    def _decoded_or_none(self, data: bytes) -> list[ev.Event]:
        try:
            return self.codec.decode(data)
        except Exception:  # `project` reports it
            return []

    def project(self, commit: StoredCommit, *, runtime: bool = True) -> None:
        stream_id = commit.stream_id
        if stream_id in self.failed:
            return
        try:
            events = self.codec.decode(commit.events)
        except Exception as exc:  # a tampered commit may not even decode
            self._failed(commit, f"cannot decode: {exc}")
            return
        try:
            before = self._state_before(commit, events)
            own = ChangeSet()  # revisions count per command: each commit is projected alone
            history = (
                self.history
                if self.history_until is None or commit.last_position <= self.history_until
                else None
            )
            after = project_events(
                events,
                before,
                own,
                history=history,
                runtime=runtime,
                repository=True,
                operation=operation_of(commit),
            )
        except Exception as exc:
            self._failed(commit, f"replay failed: {type(exc).__name__}: {exc}")
            return
        self._changes.merge(own)
        self._pending += len(events)
        if commit.first_version == 1 and after is not None:
            self.streams += 1
        if stream_id in self.pinned_ids:
            self.pinned[stream_id] = (commit.last_version, after)
        if after is None or after.ended:
            self._states.pop(stream_id, None)
        else:
            self._states[stream_id] = (commit.last_version, after)
            self._states.move_to_end(stream_id)
            while len(self._states) > self.keep:
                self._states.popitem(last=False)

    def flush(self) -> None:
        self.shadows.apply(self.conn, self._changes)
        self._changes, self._pending = ChangeSet(), 0

    def _state_before(self, commit: StoredCommit, events: list[ev.Event]) -> InstanceState | None:
        if commit.first_version == 1 or (
            events and isinstance(events[0], ev.STATELESS_STREAM_EVENTS)
        ):
            return None
        known = self._states.get(commit.stream_id)
        if known is not None and known[0] == commit.first_version - 1:
            return known[1]
        return self.repository.state_at(self.conn, commit.stream_id, commit.first_version - 1)

    def _failed(self, commit: StoredCommit, what: str) -> None:
        # The kept state may be half evolved: the stream's later commits are not replayed.
        self.failed.add(commit.stream_id)
        self._states.pop(commit.stream_id, None)
        self.pinned.pop(commit.stream_id, None)
        self.problems.append(
            f"stream {commit.stream_id} at position {commit.first_position} "
            f"(command {commit.command_id}): {what}"
        )


@dataclass
class Verifier:
    """Everything `verify` needs from the engine; `run` on a read connection."""

    store: EventStore
    codec: _Decoder
    repository: Repository
    history: HistoryProjector
    cache: Mapping[str, CachedState]
    keep: int = KEEP_STATES
    batch_events: int = BATCH_EVENTS
    stale: list[str] = field(default_factory=list)  # cached states another engine moved past

    @fewer_collections()
    def run(
        self,
        conn: Connection,
        *,
        expect_anchor: LogAnchor | None = None,
        progress: Progress | None = None,
        shadows: ShadowTables | None = None,
        phase: PhaseStart | None = None,
    ) -> views.VerificationReport:
        """`shadows`: made by `make_shadows` on `conn`, left to the caller to drop; without,
        the run makes its own and drops them. Three phases, timed apart, each reading what it
        needs in position or key order: `chains`, `replay`, `tables`; `phase(name, total)` is
        called as each begins, `progress(done, total)` within it (commits; tables in `tables`,
        only for a caller that follows the phases: for the others the count ends at commits)."""
        own = shadows is None
        if shadows is None:
            shadows = make_shadows(conn)
        total = int(conn.execute(select(func.count()).select_from(event_log)).scalar_one())
        snapshots = _snapshot_versions(conn)
        phases: list[views.VerifyPhase] = []
        try:
            if phase is not None:
                phase("chains", total)
            chains = check_chains(self.store, conn, total, expect=expect_anchor, progress=progress)
            phases.append(
                views.VerifyPhase("chains", chains.seconds, chains.commits, chains.events)
            )
            if phase is not None:
                phase("replay", total)
            started = time.perf_counter()
            replay = _Replay(
                self.repository,
                conn,
                self.codec,
                self.history,
                shadows,
                set(self.cache) | set(snapshots),
                self.keep,
                history_until=self.store.checkpoint(conn, HISTORY_CHECKPOINT),
            )
            done = 0
            for commit in self.store.read_all(conn):
                replay.add(commit, self.batch_events)
                done += 1
                if progress is not None and done % PROGRESS_EVERY == 0:
                    progress(done, total)
            replay.project_batch()
            if progress is not None:
                progress(done, total)
            problems = [str(p) for p in chains.log.problems]
            problems += replay.problems
            problems += [str(p) for p in chains.commands.problems]
            problems += self._missing_commits(conn, chains.commands.missing)
            problems += self._states(conn, replay, snapshots)
            phases.append(
                views.VerifyPhase("replay", time.perf_counter() - started, done, chains.events)
            )
            if phase is not None:
                phase("tables", len(TABLES))
            started = time.perf_counter()
            rows = 0
            for i, table in enumerate(TABLES, 1):
                count, found = compare_tables(conn, table, shadows.of[table])
                rows += count
                problems += found
                if progress is not None and phase is not None:  # counted in tables here
                    progress(i, len(TABLES))
            phases.append(views.VerifyPhase("tables", time.perf_counter() - started, rows=rows))
        finally:
            if own:
                shadows.drop(conn)
        return views.VerificationReport(
            commits_checked=chains.commits,
            streams_checked=replay.streams,
            rows_compared=rows,
            problems=problems,
            anchor=str(chains.anchor),
            root=chains.root,
            phases=phases,
        )

    def run_since(
        self,
        conn: Connection,
        head: TreeHead,
        *,
        progress: Progress | None = None,
        phase: PhaseStart | None = None,
    ) -> views.VerificationReport:
        """An incremental verify: the commits `head` covers checked by its root alone
        (`check_prefix`), then the log's and the command log's checks over the commits after
        it, their chains going on from the hashes the root vouched for. No replay, no tables."""
        total = int(conn.execute(select(func.count()).select_from(event_log)).scalar_one())
        if phase is not None:
            phase("root", head.size)
        started = time.perf_counter()
        prefix = check_prefix(self.store, conn, head, progress)
        phases = [
            views.VerifyPhase("root", time.perf_counter() - started, head.size, prefix.events)
        ]
        problems = list(prefix.problems)
        tail = max(total - head.size, 0)
        if phase is not None:
            phase("chains", tail)
        chains = check_chains(self.store, conn, tail, progress=progress, prefix=prefix)
        phases.append(views.VerifyPhase("chains", chains.seconds, chains.commits, chains.events))
        problems += [str(p) for p in chains.log.problems]
        problems += [str(p) for p in chains.commands.problems]
        problems += self._missing_commits(conn, chains.commands.missing)
        return views.VerificationReport(
            commits_checked=chains.commits,
            streams_checked=0,
            rows_compared=0,
            problems=problems,
            anchor=str(chains.anchor),
            root=chains.root,
            phases=phases,
            since_head=f"{head.size}:{head.root}",
        )

    def _states(self, conn: Connection, replay: _Replay, snapshots: Mapping[str, int]) -> list[str]:
        """Cached live states and stored snapshots against the replayed final states."""
        problems: list[str] = []
        for stream_id, cached in self.cache.items():
            final = replay.pinned.get(stream_id)
            if stream_id in replay.failed or final is None or final[1] is None:
                continue
            version, state = final
            if cached.version > version:
                problems.append(
                    f"stream {stream_id}: this engine holds its state at version "
                    f"{cached.version}, but the log ends at version {version}: commits of the "
                    "stream were removed"
                )
            elif cached.version < version:
                self.stale.append(stream_id)  # another engine moved on: stale, not wrong
            elif cached.state != state:
                problems.append(f"stream {stream_id}: cached live state differs from replay")
        for stream_id, snapshot_version in snapshots.items():
            final = replay.pinned.get(stream_id)
            if stream_id in replay.failed or final is None or final[1] is None:
                continue
            if snapshot_version > final[0]:
                problems.append(
                    f"stream {stream_id}: its snapshot is at version {snapshot_version}, but "
                    f"the log ends at version {final[0]}: commits of the stream were removed"
                )
                continue
            tail = self.repository.snapshot_with_tail(conn, stream_id)
            if tail is not None and tail != final[1]:
                problems.append(f"stream {stream_id}: snapshot + tail differs from replay")
        return problems

    def _missing_commits(self, conn: Connection, missing: list[tuple[str, int, int]]) -> list[str]:
        """Name the stream of each accepted command whose commits are gone, from what the
        command names (its instance, task, execution) or what it returned."""
        problems: list[str] = []
        for command_id, first, last in missing:
            record = self.store.find_command(conn, command_id)
            stream_id = None if record is None else _stream_of(conn, record.payload, record.result)
            if stream_id is not None:
                problems.append(
                    str(
                        LogProblem(
                            "missing-commit",
                            stream_id,
                            first,
                            f"positions {first}..{last} of command {command_id} are missing "
                            "from the stream",
                        )
                    )
                )
        return problems


def _spill_temporary_tables(conn: Connection, *, outside_transaction: bool = False) -> None:
    """SQLite keeps temporary tables in memory here (database.py, for the commands' statement
    journals): the shadows of every table would hold the whole database in RAM. Moved to a
    temporary file instead, the connection keeps it so (SQLite will not switch back inside the
    transaction; only verifications make temporary tables). Inside a transaction, once the
    connection opened its temporary database (the engine's read connections have), SQLite
    refuses the switch: the connection then already spills, or stays in memory. Outside one
    (`outside_transaction`, said on the driver's connection: SQLAlchemy would begin one first)
    it switches."""
    try:
        if outside_transaction:
            driver: Any = conn.connection.driver_connection
            driver.execute("PRAGMA temp_store=FILE")
        else:
            conn.exec_driver_sql("PRAGMA temp_store=FILE")
    except (OperationalError, sqlite3.OperationalError):
        # Verify still runs, but its memory now grows with the database: the operator should know.
        log.warning(
            "verify: SQLite kept its temporary tables in memory (%s): verify's memory grows "
            "with the database",
            conn.engine.url,
        )


def _snapshot_versions(conn: Connection) -> dict[str, int]:
    rows = conn.execute(
        select(instance_snapshot.c.stream_id, instance_snapshot.c.version).where(
            instance_snapshot.c.state_schema == STATE_SCHEMA
        )
    )
    return {str(r[0]): int(r[1]) for r in rows}


def _stream_of(conn: Connection, payload: bytes, result: bytes | None) -> str | None:
    try:
        command: Any = msgspec.json.decode(payload)
        outcome: Any = None if result is None else msgspec.json.decode(result)
    except msgspec.DecodeError:
        return None
    if not isinstance(command, dict):
        return None
    for key in ("process_instance_id", "deployment_id"):
        if isinstance(command.get(key), str):
            return str(command[key])
    if isinstance(outcome, dict) and isinstance(outcome.get("id"), str):
        return str(outcome["id"])  # a start or a deployment: the new stream's id
    for key, table, column in _OWNERS:
        value = command.get(key)
        if not isinstance(value, str):
            continue
        owner = conn.execute(
            select(table.c.PROC_INST_ID_).where(table.c[column] == value).limit(1)
        ).scalar()
        if owner is not None:
            return str(owner)
    return None
