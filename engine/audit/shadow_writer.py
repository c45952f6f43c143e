"""A rebuild's shadow-table writes, in this process or in a writer process of their own.

Projecting a batch is Python on one core; writing the one before it is mostly the database's
work. Past `PIPELINE_FROM_EVENTS` a rebuild hands each projected batch to a child process
(`python -m flowledger.engine.audit.shadow_writer`) that writes it and moves the checkpoint in
one transaction, while the rebuild projects the next batch: at most one batch is in flight, and
progress reports only what the child committed. The child is a plain subprocess speaking
length-prefixed pickles on its stdin and stdout (never `multiprocessing`, which would import
the caller's `__main__` again); it is the rebuild's own program, so the pickles are trusted.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import struct
import subprocess
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import IO, Any

import msgspec
from sqlalchemy.engine import Connection

from flowledger.core.errors import ProcessEngineError
from flowledger.eventlog import EventStore
from flowledger.projections.changes import ChangeSet, Purge, TableChanges
from flowledger.projections.compare import ShadowTables
from flowledger.projections.tables import metadata

log = logging.getLogger("flowledger.engine.rebuild")

CHECKPOINT = "rebuild"
SHADOW_PREFIX = "rb_"
# Below this many events to project a rebuild writes in its own process: starting the child
# (about half a second to import) would cost more than the overlap saves.
PIPELINE_FROM_EVENTS = 100_000
_HEADER = struct.Struct("<Q")
_MESSAGE_LIMIT = 2000  # characters of a child's error passed on


class Settings(msgspec.Struct, frozen=True):
    """What the child needs to open the database and the shadows (sent, not put in argv: a
    URL may hold a password)."""

    url: str
    tables: list[str]
    sqlite_synchronous: str = "NORMAL"
    sqlite_autocheckpoint: bool = True


def write_batch(
    conn: Connection,
    store: EventStore,
    shadows: ShadowTables,
    changes: ChangeSet,
    after: int,
    last: int,
    now: datetime,
) -> None:
    """Write one projected batch (the commits after `after` up to `last`) into the shadows and
    move the checkpoint to `last`, in `conn`'s write transaction."""
    found = store.checkpoint(conn, CHECKPOINT, lock=True)
    if found is None:
        raise ProcessEngineError(
            "this rebuild's checkpoint is gone: another rebuild finished or replaced it "
            "meanwhile (run one rebuild at a time)"
        )
    if found != after:
        raise ProcessEngineError(
            f"this rebuild's checkpoint moved to {found} while it projected from {after}: "
            "another rebuild runs (run one rebuild at a time)"
        )
    shadows.apply(conn, changes)
    store.move_checkpoint(conn, CHECKPOINT, last, now)


# -- a change set across the pipe: tables by name --------------------------------------------

_Purged = tuple[str, str, str, str | None, str | None, str | None, str | None]
_Packed = list[tuple[list[_Purged], list[Any]]]


def pack(changes: ChangeSet) -> _Packed:
    """`changes` with table names for tables (a SQLAlchemy table does not travel)."""
    return [
        (
            [
                (
                    str(p.table.name),
                    p.column,
                    p.value,
                    str(p.via.name) if p.via is not None else None,
                    p.ref,
                    p.owner,
                    str(p.through.name) if p.through is not None else None,
                )
                for p in purges
            ],
            [(t.name, c.inserts, c.updates, c.bump, c.deletes) for t, c in tables.items() if c],
        )
        for purges, tables in changes.segments()
    ]


def unpack(packed: _Packed) -> ChangeSet:
    tables = metadata.tables
    changes = ChangeSet()
    for purges, rows in packed:
        for name, column, value, via, ref, owner, through in purges:
            via_table = tables[via] if via is not None else None
            through_table = tables[through] if through is not None else None
            changes.purge(Purge(tables[name], column, value, via_table, ref, owner, through_table))
        for name, inserts, updates, bump, deletes in rows:
            tc = TableChanges()
            tc.inserts, tc.updates, tc.bump, tc.deletes = inserts, updates, bump, deletes
            changes.tables[tables[name]] = tc
    return changes


def _send(stream: IO[bytes], message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    size = _HEADER.unpack(header)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)  # our own child's messages, on its own pipe


# -- the parent's side ----------------------------------------------------------------------


class ShadowWriter:
    """The rebuild's handle on its writer process."""

    def __init__(self, child: subprocess.Popen[bytes]) -> None:
        self._child = child
        self._in_flight: int | None = None  # the last position of the batch being written
        self._ready = False

    @classmethod
    def start(cls, settings: Settings) -> ShadowWriter | None:
        """A running writer, or None (logged) when no child could be started: the rebuild then
        writes in its own process."""
        try:
            child = subprocess.Popen(
                [sys.executable, "-m", __name__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        except OSError as exc:
            log.warning("no writer process for the rebuild (%s): writing in this one", exc)
            return None
        writer = cls(child)
        try:
            assert child.stdin is not None
            _send(child.stdin, msgspec.json.encode(settings))
        except OSError as exc:
            writer.close()
            log.warning("no writer process for the rebuild (%s): writing in this one", exc)
            return None
        except BaseException:
            writer.close()
            raise
        return writer

    def submit(self, changes: ChangeSet, after: int, last: int) -> bool:
        """Hand over a batch; the one before must have been `committed()`. False (logged, the
        child ended) when the child never got ready: the caller writes the batch itself."""
        assert self._in_flight is None, "one batch in flight at a time"
        assert self._child.stdin is not None
        if not self._ready and not self._handshake():
            return False
        try:
            _send(self._child.stdin, (after, last, pack(changes)))
        except OSError:
            self._failed()
        self._in_flight = last
        return True

    def _handshake(self) -> bool:
        """Wait for the child to have opened the database (it imports meanwhile the first
        batch is projected)."""
        assert self._child.stdout is not None
        try:
            reply = _receive(self._child.stdout)
        except (EOFError, OSError, pickle.UnpicklingError):
            reply = ("failed", "it ended before it was ready")
        if reply == ("ready",):
            self._ready = True
            return True
        self.close()
        reason = reply[1] if isinstance(reply, tuple) and len(reply) == 2 else repr(reply)
        log.warning("no writer process for the rebuild (%s): writing in this one", reason)
        return False

    @property
    def in_flight(self) -> bool:
        return self._in_flight is not None

    def committed(self) -> int:
        """Wait for the batch in flight; the position its commit moved the checkpoint to."""
        assert self._in_flight is not None and self._child.stdout is not None
        try:
            reply = _receive(self._child.stdout)
        except (EOFError, OSError, pickle.UnpicklingError):
            self._failed()
        if reply[0] == "failed":
            self.close()
            log.error("the rebuild's writer process failed: %s", reply[1])
            raise ProcessEngineError(f"the rebuild's writer process failed: {reply[1]}")
        position = int(reply[1])
        if position != self._in_flight:
            self._failed()
        self._in_flight = None
        return position

    def close(self) -> None:
        """End the child: after its batch in flight, which it commits or rolls back whole."""
        child = self._child
        if child.stdin is not None and not child.stdin.closed:
            with contextlib.suppress(OSError):
                child.stdin.close()  # the child stops at the end of its input
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        if child.stdout is not None:
            child.stdout.close()

    def _failed(self) -> Any:
        self.close()
        code = self._child.returncode
        log.error("the rebuild's writer process stopped (exit status %s)", code)
        raise ProcessEngineError(
            f"the rebuild's writer process stopped (exit status {code}); the checkpoint holds "
            "what it committed: run the rebuild again to go on"
        )


# -- the child's side ------------------------------------------------------------------------


def _serve(settings: Settings, source: IO[bytes], replies: IO[bytes]) -> int:
    from flowledger.engine.storage.connections import (
        Connections,  # the child's imports, not the parent's
    )
    from flowledger.engine.storage.database import create_database
    from flowledger.engine.workers.history_lifecycle import wall_clock

    db = create_database(settings.url, settings.sqlite_synchronous)
    if not settings.sqlite_autocheckpoint and db.dialect.name == "sqlite":
        from sqlalchemy import event as sa_event

        @sa_event.listens_for(db, "connect")
        def _leave_checkpoints(dbapi_connection: Any, _record: Any) -> None:
            # the parent's checkpoint thread folds the log in; two would only contend
            dbapi_connection.execute("PRAGMA wal_autocheckpoint=0")

    connections = Connections(db, memory=False)
    try:
        store = EventStore(db.dialect.name)
        shadows = ShadowTables(
            [metadata.tables[n] for n in settings.tables], prefix=SHADOW_PREFIX, temporary=False
        )
        with connections.read() as conn:
            store.head_position(conn)
    except Exception as exc:  # the parent writes itself, and says why
        connections.close()
        _send(replies, ("failed", _describe(exc)))
        return 1
    _send(replies, ("ready",))
    try:
        while True:
            try:
                after, last, packed = _receive(source)
            except EOFError:
                return 0
            try:
                with connections.write() as conn:
                    write_batch(conn, store, shadows, unpack(packed), after, last, wall_clock())
            except Exception as exc:  # reported to the parent, which raises it
                _send(replies, ("failed", _describe(exc)))
                return 1
            _send(replies, ("written", last))
    finally:
        connections.close()


def _describe(exc: BaseException) -> str:
    text = str(exc) if isinstance(exc, ProcessEngineError) else f"{type(exc).__name__}: {exc}"
    return text[:_MESSAGE_LIMIT]


def main(argv: Sequence[str] | None = None) -> int:
    # Ctrl-C reaches the whole process group: the rebuild decides, and ends this process by
    # closing its input (a batch being written is committed whole or not at all).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    source = sys.stdin.buffer
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not break the pipe
    try:
        settings = msgspec.json.decode(_receive(source), type=Settings)
    except EOFError:
        return 0
    return _serve(settings, source, replies)


if __name__ == "__main__":
    sys.exit(main())
