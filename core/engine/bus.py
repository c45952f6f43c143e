"""The command bus: runs any command through its one handler, in one transaction.

It owns what every command shares: the repeated-command-id answer, the transaction (decide on a
snapshot, append under the write lock), retries on a concurrent change, the command log's
accepted and rejected records, and the commit listeners. What a command does is its handler's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

import msgspec
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from flowledger.core.clock import Clock
from flowledger.core.commands import Command, encode_command, encode_result
from flowledger.core.errors import FlowledgerError, Rejected
from flowledger.core.ids import uuid7
from flowledger.core.limits import MAX_COMMAND_ID, check_text, recordable_actor, refuse_nul_in_ids
from flowledger.eventlog import CommandRecord, ConcurrencyError, StoredCommit

from .connections import Connections
from .unit_of_work import UnitOfWork, Wiring

C = TypeVar("C", bound=Command)
R = TypeVar("R")

MAX_ATTEMPTS = 5  # decisions on moved state before a command gives up


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


class CommandBus:
    """Runs commands: decide, append, project, record, with retries on concurrent change."""

    def __init__(
        self,
        handlers: Mapping[type[Command], Handler[Any, Any]],
        db: Connections,
        wiring: Wiring,
        clock: Clock,
    ) -> None:
        self._handlers = handlers
        self._db = db
        self._wiring = wiring
        self._store = wiring.store
        self._clock = clock
        self._listeners: list[Callable[[], None]] = []

    def add_commit_listener(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def execute(
        self, command: Command, *, command_id: str | None = None, actor: str | None = None
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
        with self._db.lock:
            for attempt in range(MAX_ATTEMPTS):
                now = self._clock.now()
                unit: UnitOfWork | None = None
                try:
                    if payload is not None:
                        refuse_nul_in_ids(payload, command)
                    if handler.exclusive:
                        with self._db.write() as conn:
                            unit = UnitOfWork(self._wiring, conn, now, cid, uuid7)
                            result = handler.handle(unit, command)
                            stored = self._commit(
                                unit, conn, command, payload, result, actor, check_heads=False
                            )
                    else:
                        # Decide on a read snapshot, then append under the write lock; the append
                        # checks every stream's head, so a decision on moved state is retried.
                        with self._db.snapshot() as rconn:
                            unit = UnitOfWork(self._wiring, rconn, now, cid, uuid7)
                            result = handler.handle(unit, command)
                        with self._db.write() as conn:
                            stored = self._commit(
                                unit, conn, command, payload, result, actor, check_heads=True
                            )
                    unit.publish(stored)
                    if stored:
                        for listener in self._listeners:
                            listener()
                    return result
                except ConcurrencyError:
                    if unit is not None:
                        unit.discard()
                    if attempt == MAX_ATTEMPTS - 1:
                        if handler.lost_race is not None:
                            return handler.lost_race()
                        raise
                except IntegrityError:
                    if unit is not None:
                        unit.discard()
                    with self._db.read() as conn:
                        record = self._store.find_command(conn, cid)
                    if record is None:
                        raise
                    return _stored_outcome(record, handler.result)
                except FlowledgerError as exc:
                    if unit is not None:
                        unit.discard()
                    self._reject(cid, command, exc, now, actor)
                    raise
                except BaseException:
                    if unit is not None:
                        unit.discard()
                    raise
        raise AssertionError("unreachable")

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
                payload=payload if payload is not None else encode_command(command),
                status="accepted",
                received_at=unit.ctx.now,
                result=encode_result(result),
                first_position=stored[0].first_position if stored else None,
                last_position=stored[-1].last_position if stored else None,
                actor=actor,
            ),
        )
        return stored

    def _reject(
        self, cid: str, command: Command, exc: Exception, now: datetime, actor: str | None
    ) -> None:
        """A rejected command leaves exactly one trace: its row in the command log."""
        try:
            payload = encode_command(command)
        except RecursionError:
            payload = msgspec.json.encode(
                {"type": type(command).__name__, "unrecorded": "input nested too deeply to record"}
            )
        try:
            with self._db.write() as conn:
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


def _stored_outcome(record: CommandRecord, result_type: Any) -> Any:
    """A repeated command id answers what the command answered the first time."""
    if record.status != "accepted":
        raise Rejected(f"command {record.command_id} was rejected before: {record.reason}")
    if result_type is None or record.result is None:
        return None
    return msgspec.json.decode(record.result, type=result_type)
