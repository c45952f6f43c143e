"""Group commit: commands waiting for SQLite's one writer share the transaction ahead of them.

A SQLite commit writes every page the transaction changed to the WAL; commands that commit one
by one write the pages they share (the log's tail, each table's last index leaf) once each. In
a server, requests arrive while a command runs: the first waiting one becomes the next leader,
takes every command waiting then (up to MAX_GROUP), runs each in a savepoint of its own inside
one write transaction, commits once and wakes them. A command that fails rolls back to its
savepoint alone (its `undo` may then write what a failure leaves behind, such as a rejection
record, in the same transaction); a commit that fails fails every command of the group (none of
them happened). A lone command is a group of one: it costs one savepoint more than running alone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Connection

log = logging.getLogger("flowledger.engine")

MAX_GROUP = 64  # commands in one transaction: bounds the latency of the first of them

Work = Callable[[Connection], Any]
Undo = Callable[[Connection, BaseException], None]


@dataclass(eq=False)
class _Waiting:
    work: Work
    undo: Undo | None = None
    done: threading.Event = field(default_factory=threading.Event)
    lead: bool = False  # woken to lead the next group, not with a result
    value: Any = None
    error: BaseException | None = None


class CommitGroups:
    """Runs units of work in shared write transactions, one group at a time."""

    def __init__(self, write: Callable[[], AbstractContextManager[Connection]]) -> None:
        self._write = write
        self._mutex = threading.Lock()
        self._queue: list[_Waiting] = []
        self._leading = False  # a thread runs a group now, or is about to
        self.groups = 0  # groups committed, and the commands in them (tests read how it grouped)
        self.commands = 0
        self._inside = threading.local()

    def inside(self) -> bool:
        """Whether this thread runs a command of a group now (its transaction is open)."""
        return bool(getattr(self._inside, "work", False))

    def run(self, work: Work, undo: Undo | None = None) -> Any:
        """`work(conn)`'s value once the transaction it ran in has committed; its exception
        (its savepoint rolled back, then `undo(conn, exception)` run), or the commit's,
        otherwise."""
        if getattr(self._inside, "work", False):
            # It would wait for the group it runs in to commit: for itself.
            raise RuntimeError("a command cannot run inside another command of the same engine")
        me = _Waiting(work, undo)
        with self._mutex:
            self._queue.append(me)
            lead = not self._leading
            self._leading = True
        if not lead:
            me.done.wait()
            if not me.lead:
                return _outcome(me)
        while True:
            with self._mutex:
                group = self._queue[:MAX_GROUP]
                del self._queue[:MAX_GROUP]
            self._commit(group)
            if me.done.is_set() and not me.lead:
                break
        self._hand_over()
        return _outcome(me)

    def _hand_over(self) -> None:
        """The next waiting command leads the next group; nobody leads when none waits."""
        with self._mutex:
            if not self._queue:
                self._leading = False
                return
            following = self._queue[0]
        following.lead = True
        following.done.set()

    def _commit(self, group: list[_Waiting]) -> None:
        if len(group) == 1:
            self._commit_alone(group[0])
            return
        try:
            with self._write() as conn:
                # On the DBAPI connection: SQLAlchemy's savepoint objects cost more than the
                # savepoints themselves, and nothing else here uses them.
                raw: Any = conn.connection.dbapi_connection
                for waiting in group:
                    raw.execute("SAVEPOINT command")
                    self._inside.work = True
                    try:
                        waiting.value = waiting.work(conn)
                    except BaseException as exc:  # handed to its own thread, raised there
                        waiting.error = exc
                        raw.execute("ROLLBACK TO SAVEPOINT command")
                        if waiting.undo is not None:
                            _undo(waiting.undo, conn, exc)
                    finally:
                        self._inside.work = False
                    raw.execute("RELEASE SAVEPOINT command")
        except BaseException as exc:
            log.debug("a group of %d commands failed to commit: %s", len(group), exc)
            for waiting in group:
                if waiting.error is None:
                    waiting.error = exc
                    waiting.value = None
        else:
            self.groups += 1
            self.commands += len(group)
        for waiting in group:
            waiting.lead = False
            waiting.done.set()

    def _commit_alone(self, waiting: _Waiting) -> None:
        """A group of one needs no savepoint (SQLite copies every page a savepoint changes):
        its failure rolls back the whole transaction, and its `undo` runs in a new one."""
        failed: BaseException | None = None  # the command's own failure, not its commit's
        try:
            with self._write() as conn:
                self._inside.work = True
                try:
                    waiting.value = waiting.work(conn)
                except BaseException as exc:
                    failed = exc
                    raise
                finally:
                    self._inside.work = False
        except BaseException as exc:
            waiting.error, waiting.value = exc, None
            if failed is not None and waiting.undo is not None:
                try:
                    with self._write() as conn:
                        _undo(waiting.undo, conn, exc)
                except Exception:
                    log.exception("recording the failure of a command failed (its error: %s)", exc)
        else:
            self.groups += 1
            self.commands += 1
        waiting.lead = False
        waiting.done.set()


def _undo(undo: Undo, conn: Connection, exc: BaseException) -> None:
    try:
        undo(conn, exc)
    except Exception:  # the command's own error is what its caller must see
        log.exception("recording the failure of a command failed (the command's error: %s)", exc)


def _outcome(waiting: _Waiting) -> Any:
    if waiting.error is not None:
        raise waiting.error
    return waiting.value
