"""The log as the auditor sees it: recorded events, replay to a point in time, verification of
log, states and tables against each other, and the rebuild of every table from the log.

Runs no command; only the rebuild writes, and only the projected tables (and the history
checkpoint it moves to the head).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from flowledger.core import events as ev
from flowledger.core import views
from flowledger.core.errors import InvalidValue, NotFound, ProcessEngineError
from flowledger.core.state import InstanceState
from flowledger.engine.audit.chain_pass import READ_BATCH, log_checker
from flowledger.engine.audit.instance_verification import verify_instance
from flowledger.engine.audit.verification import (
    HeldState,
    PhaseStart,
    Verifier,
    hold_states,
    make_shadows,
)
from flowledger.engine.audit.verify_tasks import VerifyTasks
from flowledger.engine.storage.connections import Connections
from flowledger.engine.storage.streams import CACHE_SIZE, Repository
from flowledger.engine.workers.history_lifecycle import HistoryLifecycle, wall_clock
from flowledger.eventlog import EventCodec, EventStore, LogAnchor
from flowledger.eventlog.proofs import TreeHead
from flowledger.eventlog.tables import event_log
from flowledger.projections.changes import ChangeSet, SqlRowStore
from flowledger.projections.compare import ShadowTables
from flowledger.projections.deferred import CHECKPOINT as DEFERRED_CHECKPOINT
from flowledger.projections.follower import CHECKPOINT as HISTORY_CHECKPOINT
from flowledger.projections.follower import SCHEMA_VERSION as HISTORY_SCHEMA
from flowledger.projections.history import HistoryProjector
from flowledger.projections.properties import save_history_level
from flowledger.projections.queries import reads as queries
from flowledger.projections.replay import Replayer
from flowledger.projections.tables import HISTORY_TABLES, REPOSITORY_TABLES, RUNTIME_TABLES

REBUILD_BATCH_EVENTS = 20_000  # events projected between writes of a rebuild
# Commands whose events delete projection rows by what they belong to (history purges).
PURGING_COMMANDS = ("DeleteDeployment", "DeleteHistoricProcessInstance")


class Audit:
    """What `Engine`'s audit methods answer: events, replay, verify, rebuild_projections."""

    def __init__(
        self,
        db: Connections,
        store: EventStore,
        codec: EventCodec,
        rows: SqlRowStore,
        repository: Repository,
        history: HistoryLifecycle,
    ) -> None:
        self._db = db
        self._store = store
        self._codec = codec
        self._rows = rows
        self._repository = repository
        self._history = history
        # Full verifies started in the background (REST's verify tasks), one at a time.
        self.verify_tasks = VerifyTasks(lambda progress: self.verify(None, progress))

    def events(self, stream_id: str) -> list[views.RecordedEvent]:
        """Every recorded event of an instance (or deployment) stream, in order."""
        with self._db.read_unchecked() as conn:  # the log only: no projected table
            commits = self._repository.stream(conn, stream_id)
        if not commits:
            raise NotFound("Stream", stream_id)
        out = []
        for commit, events in commits:
            for i, event in enumerate(events):
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
                        via=commit.via,
                    )
                )
        return out

    def replay(self, process_instance_id: str, until_position: int | None = None) -> InstanceState:
        with self._db.read_unchecked() as conn:  # the log only
            return self._repository.replay(conn, process_instance_id, until_position)

    def verify(
        self,
        expect_anchor: str | None,
        progress: Callable[[int, int], None] | None,
        phase: PhaseStart | None = None,
    ) -> views.VerificationReport:
        """The whole log checked at one point of it, the lock held only to fix that point: the
        engine's commands run on while the check reads a snapshot of the database."""
        anchor = _anchor(expect_anchor)
        if self._db.memory:
            # One connection for everyone, which a command would use beside the check: the
            # lock is held all along.
            return self._caught_up(
                lambda conn: self._verify_on(conn, anchor, progress, self._held(), None, phase)
            )
        with self._db.repeatable_read() as conn:
            try:
                shadows = make_shadows(conn)
                conn.commit()  # before the snapshot: see make_shadows
            except DBAPIError:
                conn.invalidate()  # MariaDB keeps the tables it made: they go with the session
                raise
            try:
                with self._db.lock:
                    stopped = self._catch_up()
                    # The states first: a commit of another engine between the two then makes
                    # a state stale (which it may be), never newer than the log it is checked on.
                    held = self._held()
                    self._db.take_snapshot(conn)
                report = self._verify_on(conn, anchor, progress, held, shadows, phase)
            finally:
                _drop(conn, shadows)
        return _stopped_first(report, stopped)

    def verify_since(
        self,
        head: TreeHead,
        progress: Callable[[int, int], None] | None,
        phase: PhaseStart | None = None,
    ) -> views.VerificationReport:
        """An incremental verify from a tree head (`Verifier.run_since`): the log only, on one
        snapshot of it; no lock beyond fixing that point, nothing written."""
        verifier = Verifier(self._store, self._codec, self._repository, self._history.projector, {})
        if self._db.memory:  # one connection for everyone: read under the lock
            with self._db.read_unchecked() as conn:
                return verifier.run_since(conn, head, progress=progress, phase=phase)
        with self._db.repeatable_read() as conn:  # the log only: no projected table
            self._db.take_snapshot(conn)
            try:
                return verifier.run_since(conn, head, progress=progress, phase=phase)
            finally:
                conn.rollback()

    def verify_instance(self, instance_id: str) -> views.VerificationReport:
        """`verify` for one instance: its chain, its commands, its state, its rows. Short: it
        holds the lock while it checks, and its state needs no copy."""

        def check(conn: Connection) -> views.VerificationReport:
            cached = self._repository.cache.get(instance_id)
            return verify_instance(
                conn,
                self._store,
                self._repository,
                self._history.projector,
                instance_id,
                None if cached is None else cached.state,
            )

        return self._caught_up(check)

    def _caught_up(
        self, check: Callable[[Connection], views.VerificationReport]
    ) -> views.VerificationReport:
        """Run `check` at one point of the log: asynchronous history caught up, no command
        between, the lock held throughout."""
        with self._db.lock:
            stopped = self._catch_up()
            with self._db.read_unchecked() as conn:  # caught up above, or `stopped` says why
                report = check(conn)
        return _stopped_first(report, stopped)

    def _catch_up(self) -> str | None:
        """Asynchronous history brought up to the head; why it cannot be, if it cannot (the
        first problem of the report, and the rest is checked)."""
        try:
            self._history.flush()
        except ProcessEngineError as exc:
            return str(exc)
        return None

    def _held(self) -> dict[str, HeldState]:
        return hold_states(self._repository.cache.items())

    def verify_on(
        self,
        conn: Connection,
        expect_anchor: str | None,
        progress: Callable[[int, int], None] | None,
    ) -> views.VerificationReport:
        """Verify on the given connection, as far as the log and history are on it."""
        return self._verify_on(conn, _anchor(expect_anchor), progress, self._held(), None)

    def _verify_on(
        self,
        conn: Connection,
        anchor: LogAnchor | None,
        progress: Callable[[int, int], None] | None,
        held: dict[str, HeldState],
        shadows: ShadowTables | None,
        phase: PhaseStart | None = None,
    ) -> views.VerificationReport:
        # The states this engine serves commands from, compared with their replay.
        verifier = Verifier(
            self._store,
            self._codec,
            self._repository,
            self._history.projector,
            held,
            keep=CACHE_SIZE,
        )
        report = verifier.run(
            conn, expect_anchor=anchor, progress=progress, shadows=shadows, phase=phase
        )
        for stream_id in verifier.stale:
            # Another engine moved the stream on; one of this engine's commands may have done
            # so since the check's point, and that state is not stale.
            cached = self._repository.cache.peek(stream_id)
            if cached is not None and cached.version <= held[stream_id].version:
                self._repository.forget(stream_id)
        return report

    def head(self, progress: Callable[[int, int], None] | None) -> views.LogHead:
        """The anchor of the whole log as it is now, after the log's own checks (a damaged log
        is reported, not anchored silently): what an operator keeps outside the database."""
        with self._db.read() as conn:
            total = self._store.commit_count(conn)
            checker = log_checker(self._store, conn)
            done = 0
            for commit in self._store.read_all(conn, batch_size=READ_BATCH):
                checker.check(commit)
                done += 1
                if progress is not None and done % 1000 == 0:
                    progress(done, total)
            anchor = checker.finish(self._store.head_position(conn))
        if progress is not None:
            progress(done, total)
        return views.LogHead(
            anchor=str(anchor),
            position=anchor.position,
            commits=done,
            problems=[str(p) for p in checker.problems],
        )

    def rebuild_projections(self, history_level: str | None = None) -> views.RebuildReport:
        """Every projected table rebuilt from the log; at `history_level` when given, which is
        then recorded as the level the history tables hold (in the same transaction)."""
        tables = (*HISTORY_TABLES, *RUNTIME_TABLES, *REPOSITORY_TABLES)
        projector = self._history.projector
        if history_level is not None:
            projector = HistoryProjector(history_level)  # refuses an unknown level first
        with self._db.lock, self._db.write() as conn:
            self._store.lock_head(conn)
            if history_level is not None:
                save_history_level(conn, history_level)
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
                return self._repository.state_at(conn, stream_id, version)

            replayer = Replayer(
                load,
                history=projector,
                runtime=True,
                repository=True,
                keep=CACHE_SIZE,
            )
            changes = ChangeSet()
            commits = events = rows = pending = 0
            for entry, decoded in self._repository.log(conn):
                replayer.project_commit(entry, decoded, changes)
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
            head = self._store.head_position(conn)
            if self._store.checkpoint(conn, HISTORY_CHECKPOINT) is not None:
                self._store.save_checkpoint(
                    conn, HISTORY_CHECKPOINT, head, HISTORY_SCHEMA, wall_clock()
                )
            if self._store.checkpoint(conn, DEFERRED_CHECKPOINT) is not None:
                # Every row up to the head is in the rebuilt tables: none is waiting any more.
                self._store.move_checkpoint(conn, DEFERRED_CHECKPOINT, head, wall_clock())
        if history_level is not None:
            self._history.use_level(history_level)
        return views.RebuildReport(commits=commits, events=events, rows_written=rows)


def _purges_in_log(conn: Connection) -> bool:
    found = conn.execute(
        select(event_log.c.first_position)
        .where(event_log.c.command_type.in_(PURGING_COMMANDS))
        .limit(1)
    ).first()
    return found is not None


def _anchor(expect_anchor: str | None) -> LogAnchor | None:
    try:
        return None if expect_anchor is None else LogAnchor.parse(expect_anchor)
    except ValueError as exc:
        raise InvalidValue(str(exc), field="expect_anchor") from None


def _stopped_first(
    report: views.VerificationReport, stopped: str | None
) -> views.VerificationReport:
    if stopped is None:
        return report
    return msgspec.structs.replace(report, problems=[stopped, *report.problems])


def _drop(conn: Connection, shadows: ShadowTables) -> None:
    """Drop the shadows a snapshot's check used, once its transaction is over. Tables that will
    not drop go with the connection, closed for good (a temporary table lives as long as its
    session): nobody else gets it with them."""
    try:
        if conn.in_transaction():
            conn.rollback()
        with conn.begin():
            shadows.drop(conn)
    except DBAPIError:
        conn.invalidate()
