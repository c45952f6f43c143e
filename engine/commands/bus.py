"""The command bus: runs any command through its one handler, in one transaction.

It owns what every command shares: the repeated-command-id answer, the transaction, retries on a
concurrent change, the command log's accepted and rejected records, and the commit listeners.
What a command does is its handler's.

Two transaction shapes. On SQLite, which has one writer, a command decides inside the write
transaction, and commands that wait for the writer share one (group commit, `CommitGroups`):
nothing can move under the decision, so nothing is checked again or retried. A decision that
turns out large there (over LARGE_DECISION_EVENTS events: 10,000 variables, a 10,000-instance
multi-instance) is undone and decided again beside the writer, then joins a group only to write
what it prepared, its streams' heads checked: however large a command, the writer waits only
for its rows. On PostgreSQL and MariaDB commands decide on a snapshot beside each other and append
in a short write transaction that checks every stream's head; a decision on moved state is
decided again.

A decision that reaches an outbound call stops there: the call is made with no transaction or
lock held, and the command is decided again with the answer (core/outbound.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from time import monotonic
from typing import Any, Generic, TypeVar

import msgspec
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError

from flowledger.core.budget import COMMAND_SECONDS, BudgetExceeded, CommandBudget, opened
from flowledger.core.clock import Clock
from flowledger.core.commands import Command, encode_command, encode_result
from flowledger.core.errors import FlowledgerError, ProcessEngineError, Rejected
from flowledger.core.ids import uuid7
from flowledger.core.limits import MAX_COMMAND_ID, check_text, recordable_actor, refuse_nul_in_ids
from flowledger.core.outbound import (
    MAX_CALLS_PER_COMMAND,
    Answer,
    HttpRequest,
    OutboundCallNeeded,
    RecordedCalls,
)
from flowledger.engine.commands.group_commit import CommitGroups
from flowledger.engine.commands.unit_of_work import (
    LARGE_DECISION_EVENTS,
    DecisionTooLarge,
    UnitOfWork,
    Wiring,
)
from flowledger.engine.outbound import Outbound
from flowledger.engine.storage.connections import Connections
from flowledger.eventlog import CommandRecord, ConcurrencyError, StoredCommit

log = logging.getLogger("flowledger.engine.bus")

C = TypeVar("C", bound=Command)
R = TypeVar("R")

MAX_ATTEMPTS = 5  # decisions on moved state before a command gives up
_DECIDE_AGAIN = object()  # a decision made beside the writer met a moved stream


@dataclass
class BudgetStats:
    """How often commands ran out of their evaluation budget, for `/actuator/health`: a limit
    hit is counted and logged, never silent."""

    exceeded_count: int = 0
    last: str | None = None

    def exceeded(self, error: BudgetExceeded) -> None:
        self.exceeded_count += 1  # under the GIL; a lost count under a race is harmless
        self.last = str(error)
        log.warning("a command ran out of its budget: %s", error)


# The channels a command comes through, recorded as `via` beside its actor. The REST layer
# (`rest`) and the command line (`cli`) name their own.
VIA_PYTHON = "python"  # the library, called directly
VIA_JOB_EXECUTOR = "job-executor"  # a job the background executor leased


@dataclass(frozen=True, slots=True)
class Handler(Generic[C, R]):
    """What the bus needs to know to run one command type.

    `handle(unit, command)` decides: it reads everything it needs from the command. `result` is
    the type a stored result decodes to (a repeated command id answers it again). `exclusive`
    handlers decide inside the write transaction (deployments number versions under the log
    head lock). `lost_race()` answers a command that lost the race for its streams on every
    attempt, where it has an answer for that."""

    command: type[C]
    handle: Callable[[UnitOfWork, C], R]
    result: Any = None
    exclusive: bool = False
    lost_race: Callable[[], R] | None = None


@dataclass(frozen=True, slots=True)
class _Run:
    """One command on its way through the bus: what every attempt at it shares, the answers of
    the outbound calls made so far included."""

    handler: Handler[Any, Any]
    command: Command
    cid: str
    payload: bytes | None
    actor: str | None
    via: str | None
    answers: list[tuple[HttpRequest, Answer]]

    def unpacked(
        self,
    ) -> tuple[Handler[Any, Any], Command, str, bytes | None, str | None, str | None]:
        return self.handler, self.command, self.cid, self.payload, self.actor, self.via

    def unit(
        self, wiring: Wiring, conn: Connection, now: datetime, event_limit: int | None = None
    ) -> UnitOfWork:
        return UnitOfWork(
            wiring,
            conn,
            now,
            self.cid,
            uuid7,
            self.actor,
            self.via,
            type(self.command).__name__,
            RecordedCalls(self.answers),
            event_limit,
        )


class CommandBus:
    """Runs commands: decide, append, project, record, with retries on concurrent change."""

    def __init__(
        self,
        handlers: Mapping[type[Command], Handler[Any, Any]],
        db: Connections,
        wiring: Wiring,
        clock: Clock,
        after_decision: Callable[[UnitOfWork], None] | None = None,
        outbound: Outbound | None = None,
        budget_seconds: float = COMMAND_SECONDS,
    ) -> None:
        self._handlers = handlers
        self._outbound = outbound or Outbound()
        self.budget_seconds = budget_seconds
        self.budget_stats = BudgetStats()
        # Runs after every handler in its unit of work (the broadcast of thrown signals).
        self._after_decision = after_decision
        self._db = db
        self._wiring = wiring
        self._store = wiring.store
        self._clock = clock
        self._listeners: list[Callable[[], None]] = []
        self._groups = None if db.concurrent else CommitGroups(db.write)
        # Set while this thread decides beside the writer: a command run from inside that
        # decision (a delegate calling the engine) is refused, as one inside a group is.
        self._beside = threading.local()

    @property
    def groups(self) -> CommitGroups | None:
        """The group commit of a SQLite engine; None on a server database."""
        return self._groups

    def add_commit_listener(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def inside_command(self) -> bool:
        """Whether this thread is running a command of the engine's group commit now."""
        return self._groups is not None and self._groups.inside()

    def execute(
        self,
        command: Command,
        *,
        command_id: str | None = None,
        actor: str | None = None,
        via: str | None = None,
    ) -> Any:
        """The command's result. A command that lost the race for its streams on every attempt
        raises ConcurrencyError, or answers its handler's `lost_race()`."""
        handler = self._handlers.get(type(command))
        if handler is None:
            raise TypeError(f"no handler for {type(command).__name__}")
        if command_id is not None:
            # Refused, not recorded: the command log's key cannot hold it either.
            check_text("command id", command_id, MAX_COMMAND_ID)
            with self._db.read() as conn:
                record = self._store.find_command(conn, command_id)
            if record is not None:
                return _stored_outcome(record, handler.result)
        cid = command_id or uuid7()
        try:
            payload: bytes | None = encode_command(command)
        except RecursionError:
            payload = None  # a value nested too deeply: the handler's checks name it
        # A decision that reaches an outbound call stops there; the call is made here, with no
        # transaction or lock held, and the command is decided again with the answer in hand.
        answers: list[tuple[HttpRequest, Answer]] = []
        for _ in range(4 * MAX_CALLS_PER_COMMAND):
            try:
                return self._attempt(_Run(handler, command, cid, payload, actor, via, answers))
            except OutboundCallNeeded as needed:
                answer = self._outbound.call(needed.request, needed.element_id)
                RecordedCalls(answers).record(needed, answer)
        raise ProcessEngineError(
            f"{type(command).__name__} asked for different outbound calls on every attempt (the "
            "state it decides on kept changing): nothing was committed, send it again"
        )

    def _attempt(self, run: _Run) -> Any:
        """Decide and commit the command once, with the outbound answers obtained so far."""
        handler, command, cid, payload, actor, via = run.unpacked()
        if self._groups is not None:
            if getattr(self._beside, "deciding", False):
                raise RuntimeError("a command cannot run inside another command of the same engine")
            if handler.exclusive or self._db.memory:
                return self._execute_in_group(self._groups, run)
            # Inside the group first, the fast way for the small commands nearly all are; a
            # decision that turns out large steps out and is decided again beside the writer.
            try:
                return self._execute_in_group(self._groups, run, LARGE_DECISION_EVENTS)
            except DecisionTooLarge:
                log.debug("%s is large: deciding it beside the writer", type(command).__name__)
            outcome = self._decide_beside(self._groups, run)
            if outcome is not _DECIDE_AGAIN:
                return outcome
            return self._execute_in_group(self._groups, run)
        with self._db.command():
            for attempt in range(MAX_ATTEMPTS):
                now = self._clock.now()
                unit: UnitOfWork | None = None
                try:
                    if payload is not None:
                        refuse_nul_in_ids(payload, command)
                    try:
                        if handler.exclusive:
                            with self._db.write() as conn:
                                unit = run.unit(self._wiring, conn, now)
                                result = self._decide(handler, unit, command)
                                stored = self._commit(
                                    unit, conn, command, payload, result, actor, check_heads=False
                                )
                        else:
                            # Decide on a read snapshot, then append in the write transaction; the
                            # append checks every stream's head, so a decision on moved state is
                            # retried.
                            with self._db.snapshot() as rconn:
                                unit = run.unit(self._wiring, rconn, now)
                                result = self._decide(handler, unit, command)
                            with self._db.write() as conn:
                                stored = self._commit(
                                    unit, conn, command, payload, result, actor, check_heads=True
                                )
                    except DBAPIError as exc:
                        lost = self._lost_race(exc, unit, cid)
                        if lost is None:
                            raise
                        raise lost from exc
                    self._published(unit, stored)
                    return result
                except ConcurrencyError as exc:
                    if unit is not None:
                        unit.discard()
                    log.debug(
                        "%s lost a race (attempt %d): %s", type(command).__name__, attempt, exc
                    )
                    if attempt == MAX_ATTEMPTS - 1:
                        if handler.lost_race is not None:
                            return handler.lost_race()
                        raise
                except IntegrityError as exc:
                    if unit is not None:
                        unit.discard()
                    return self._recorded_outcome(cid, handler, exc)
                except FlowledgerError as exc:
                    if unit is not None:
                        unit.discard()
                    self._reject(cid, command, exc, now, actor, via)
                    raise
                except BaseException:
                    if unit is not None:
                        unit.discard()
                    raise
        raise AssertionError("unreachable")

    def _published(self, unit: UnitOfWork, stored: list[StoredCommit]) -> None:
        """After commit: the unit's states become the cached truth, listeners hear of it."""
        unit.publish(stored)
        if stored:
            for listener in self._listeners:
                listener()

    def _decide(self, handler: Handler[Any, Any], unit: UnitOfWork, command: Command) -> Any:
        budget = CommandBudget(
            self.budget_seconds, clock=monotonic, on_exceeded=self.budget_stats.exceeded
        )
        with opened(budget):
            result = handler.handle(unit, command)
            if self._after_decision is not None:
                self._after_decision(unit)
        return result

    def _decide_beside(self, groups: CommitGroups, run: _Run) -> Any:
        """Decide on the committed log with no lock held, then append in a group with every
        stream's head checked (SQLite). `_DECIDE_AGAIN` when a stream moved meanwhile: the
        caller decides again inside a group, where nothing can move."""
        handler, command, cid, payload, actor, via = run.unpacked()
        now = self._clock.now()
        unit: UnitOfWork | None = None
        try:
            if payload is not None:
                refuse_nul_in_ids(payload, command)
            self._beside.deciding = True
            try:
                with self._db.read() as conn:
                    unit = run.unit(self._wiring, conn, now)
                    result = self._decide(handler, unit, command)
                unit.prepare(self._db.db.dialect, type(command).__name__, actor)
            finally:
                self._beside.deciding = False
        except FlowledgerError as exc:
            if unit is not None:
                unit.discard()
            self._reject(cid, command, exc, now, actor, via)
            raise
        except BaseException:
            if unit is not None:
                unit.discard()
            raise
        decided = unit

        def append(conn: Connection) -> list[StoredCommit]:
            return self._commit(decided, conn, command, payload, result, actor, check_heads=True)

        try:
            stored = groups.run(append)
        except ConcurrencyError:
            decided.discard()
            return _DECIDE_AGAIN
        except IntegrityError as exc:
            decided.discard()
            if self._lost_race(exc, decided, cid) is not None:
                return _DECIDE_AGAIN
            return self._recorded_outcome(cid, handler, exc)
        except BaseException:
            decided.discard()
            raise
        self._published(decided, stored)
        return result

    def _execute_in_group(
        self, groups: CommitGroups, run: _Run, event_limit: int | None = None
    ) -> Any:
        """Decide and append inside a shared write transaction (SQLite): the command sees every
        commit before it, those of its group included, so it never loses a race. With
        `event_limit`, a decision that emits more events raises DecisionTooLarge, undone."""
        handler, command, cid, payload, actor, _ = run.unpacked()
        unit: UnitOfWork | None = None  # made by `work`, which the group runs once

        def work(conn: Connection) -> tuple[Any, list[StoredCommit]]:
            nonlocal unit
            # The clock is read in the group's order: recorded times rise with positions.
            unit = run.unit(self._wiring, conn, self._clock.now(), event_limit)
            if payload is not None:
                refuse_nul_in_ids(payload, command)
            result = self._decide(handler, unit, command)
            stored = self._commit(unit, conn, command, payload, result, actor, check_heads=False)
            return result, stored

        def undo(conn: Connection, exc: BaseException) -> None:
            if isinstance(exc, FlowledgerError) and unit is not None:
                # IntegrityError: the same command id was recorded by an earlier attempt.
                with suppress(IntegrityError):
                    self._record_rejection(conn, cid, command, exc, unit.ctx.now, actor, unit.via)

        try:
            result, stored = groups.run(work, undo)
        except IntegrityError as exc:
            if unit is not None:
                unit.discard()
            return self._recorded_outcome(cid, handler, exc)
        except BaseException:
            if unit is not None:
                unit.discard()
            raise
        assert unit is not None  # work ran: the group committed it
        self._published(unit, stored)
        return result

    def _recorded_outcome(self, cid: str, handler: Handler[Any, Any], error: IntegrityError) -> Any:
        """After an integrity error: the outcome of the command recorded under the same id (a
        concurrent attempt won), or the error itself when no command holds the id."""
        with self._db.read() as conn:
            record = self._store.find_command(conn, cid)
        if record is None:
            raise error
        return _stored_outcome(record, handler.result)

    def _lost_race(
        self, exc: DBAPIError, unit: UnitOfWork | None, cid: str
    ) -> ConcurrencyError | None:
        """The ConcurrencyError a failed transaction stands for (decide again), or None when the
        error is not about a concurrent writer.

        On PostgreSQL and MariaDB commands write their rows before the log head lock: two
        writers of one stream may deadlock on those rows (the database picks one to fail) or
        collide on a unique key of a row they both insert, before one of them loses on the
        log's UNIQUE(stream_id, first_version) as the loser always did."""
        if unit is None:
            return None
        stream, version = next(iter(unit.appends()), (cid, 0))
        if deadlock_or_serialization_failure(exc):
            log.info("command %s: the database undid its transaction, deciding again: %s", cid, exc)
            return ConcurrencyError(stream, version)
        if not isinstance(exc, IntegrityError):
            return None
        with self._db.read() as conn:
            # A repeated command id is the caller's integrity error, answered by the caller.
            if self._store.find_command(conn, cid) is None and unit.moved(conn):
                return ConcurrencyError(stream, version)
        return None

    def _commit(
        self,
        unit: UnitOfWork,
        conn: Connection,
        command: Command,
        payload: bytes | None,
        result: Any,
        actor: str | None,
        *,
        check_heads: bool,
    ) -> list[StoredCommit]:
        """Append the command's commits, write its rows and its command-log entry."""
        command_type = type(command).__name__
        stored = unit.flush(conn, command_type, actor, check_heads)
        self._store.record_command(
            conn,
            CommandRecord(
                command_id=unit.command_id,
                command_type=command_type,
                payload=unit.seal_record(
                    payload if payload is not None else encode_command(command)
                ),
                status="accepted",
                received_at=unit.ctx.now,
                result=unit.seal_record(encode_result(result)),
                first_position=stored[0].first_position if stored else None,
                last_position=stored[-1].last_position if stored else None,
                actor=actor,
                via=unit.via,
            ),
        )
        return stored

    def _reject(
        self,
        cid: str,
        command: Command,
        exc: Exception,
        now: datetime,
        actor: str | None,
        via: str | None,
    ) -> None:
        """A rejected command leaves exactly one trace: its row in the command log."""
        try:
            with self._db.write() as conn:
                self._record_rejection(conn, cid, command, exc, now, actor, via)
        except IntegrityError:
            pass  # the same command id was recorded by a concurrent attempt

    def _record_rejection(
        self,
        conn: Connection,
        cid: str,
        command: Command,
        exc: Exception,
        now: datetime,
        actor: str | None,
        via: str | None,
    ) -> None:
        """The rejected command's row in the command log, in `conn`'s transaction."""
        try:
            payload = encode_command(command)
        except RecursionError:
            payload = msgspec.json.encode(
                {"type": type(command).__name__, "unrecorded": "input nested too deeply to record"}
            )
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
                via=via,
            ),
        )


def _stored_outcome(record: CommandRecord, result_type: Any) -> Any:
    """A repeated command id answers what the command answered the first time."""
    if record.status != "accepted":
        raise Rejected(f"command {record.command_id} was rejected before: {record.reason}")
    if result_type is None or record.result is None:
        return None
    return msgspec.json.decode(record.result, type=result_type)


# SQLSTATEs (PostgreSQL; psycopg's `sqlstate`) and MySQL/MariaDB error numbers (the driver's first
# argument) of a transaction the database undid because of a concurrent one.
_RETRY_SQLSTATES = frozenset({"40001", "40P01"})  # serialization failure, deadlock detected
_RETRY_MYSQL_ERRORS = frozenset({1213})  # ER_LOCK_DEADLOCK


def deadlock_or_serialization_failure(exc: DBAPIError) -> bool:
    orig = exc.orig
    if getattr(orig, "sqlstate", None) in _RETRY_SQLSTATES:
        return True
    args: tuple[Any, ...] = getattr(orig, "args", ())
    return bool(args) and args[0] in _RETRY_MYSQL_ERRORS
