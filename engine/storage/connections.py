"""The engine's connections to its database and the lock that orders its commands.

SQLite has one writer at a time: the engine runs one command at a time, on one writer and one
decider connection kept open. PostgreSQL and MariaDB run several commands of one engine at once
(`SERVER_COMMANDS`), each on kept connections of its own; the database orders their appends.
Reads take a pooled connection. Opens no tables; the only statement of its own takes a read
transaction's snapshot (`take_snapshot`).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.exc import DBAPIError

# Commands of one engine in flight at once on a server database. Each holds at most one
# connection at a time (deciding, then writing); the pool's default 5 + 10 leaves room for reads.
SERVER_COMMANDS = 4
# Read connections kept open between reads on SQLite; more readers at once take pooled ones. On a
# server database the kept writers and deciders hold enough of the pool's 15 already.
KEPT_READERS = 4


class _Waiter:
    __slots__ = ("alone", "granted", "thread")

    def __init__(self, thread: int, alone: bool) -> None:
        self.thread = thread
        self.alone = alone
        self.granted = False


class CommandLock:
    """Commands of one engine: up to `slots` at once in `shared()`, or one thread alone while it
    holds the lock itself (`with lock:`, re-entrant; it waits for the commands in flight, and new
    ones wait for it). Whoever holds it alone sees no command between two of its reads. Waiters
    are served in the order they came, so a thread that takes the lock again and again (verify
    in a loop) does not starve the commands, nor they it."""

    def __init__(self, slots: int) -> None:
        self._slots = slots
        self._mutex = threading.Lock()  # entered directly: Condition's own __enter__ is Python
        self._changed = threading.Condition(self._mutex)
        self._owner: int | None = None  # the thread holding the lock alone
        self._depth = 0
        self._shared: dict[int, int] = {}  # thread -> depth of its shared holds
        self._queue: deque[_Waiter] = deque()

    def _grant(self) -> None:
        """Let in the waiters at the head of the queue that may hold the lock now."""
        granted = False
        while self._queue:
            head = self._queue[0]
            if self._owner is not None:
                break
            if head.alone:
                if self._shared:
                    break
                self._owner, self._depth = head.thread, 1
            elif len(self._shared) < self._slots:
                self._shared[head.thread] = 1
            else:
                break
            head.granted = granted = True
            self._queue.popleft()
        if granted:
            self._changed.notify_all()

    def _wait_in_line(self, me: int, alone: bool) -> None:
        waiter = _Waiter(me, alone)
        self._queue.append(waiter)
        self._grant()
        while not waiter.granted:
            self._changed.wait()

    def acquire(self) -> None:
        me = threading.get_ident()
        with self._mutex:
            if self._owner == me:
                self._depth += 1
                return
            if me in self._shared:
                raise RuntimeError(
                    "a command of this engine waits for all its commands to finish: it would "
                    "wait for itself (a commit listener must not call back into the engine)"
                )
            if self._owner is None and not self._shared and not self._queue:
                self._owner, self._depth = me, 1
                return
            self._wait_in_line(me, alone=True)

    def release(self) -> None:
        with self._mutex:
            if self._owner != threading.get_ident():
                raise RuntimeError("release of an engine lock this thread does not hold")
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                if self._queue:
                    self._grant()

    def __enter__(self) -> CommandLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    @contextmanager
    def shared(self) -> Iterator[None]:
        """One command's hold: beside other commands, never beside a holder of the lock."""
        me = threading.get_ident()
        with self._mutex:
            counted = self._owner != me  # the lock's own holder runs commands uncounted
            if counted:
                if me in self._shared:
                    self._shared[me] += 1
                elif self._owner is None and not self._queue and len(self._shared) < self._slots:
                    self._shared[me] = 1
                else:
                    self._wait_in_line(me, alone=False)
        try:
            yield
        finally:
            if counted:
                with self._mutex:
                    depth = self._shared[me] - 1
                    if depth:
                        self._shared[me] = depth
                    else:
                        del self._shared[me]
                        if self._queue:
                            self._grant()


# The connection this thread works on, for a reader that has none handed to it (the codec's
# opener of sealed values): in-memory SQLite is one connection, a second one would undo the first.
_CURRENT: ContextVar[Connection | None] = ContextVar("flowledger_connection", default=None)


def current_connection() -> Connection | None:
    """The connection of the transaction this thread is in, if it took one from `Connections`."""
    return _CURRENT.get()


class _KeptConnections:
    """Connections kept open between transactions (at most `keep` idle), so that a command
    costs no pool checkout, reset and return. Under `lock` (SQLite: one transaction at a time)
    or beside each other (`lock` None)."""

    def __init__(
        self,
        db: SqlEngine,
        keep: int,
        lock: CommandLock | threading.RLock | None,
        **options: Any,
    ) -> None:
        self._db = db
        self._keep = keep
        self._lock = lock
        self._options = options
        self._idle: list[Connection] = []
        self._guard = threading.Lock()
        self._closed = False

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        lock = self._lock
        if lock is not None:
            lock.acquire()
        try:
            with self.connection() as conn, conn.begin():
                yield conn
        finally:
            if lock is not None:
                lock.release()

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """A kept connection as the pool hands one out: it begins on first use (the caller may
        commit), and what is left open is rolled back when it comes back."""
        conn = self._take()
        token = _CURRENT.set(conn)
        try:
            yield conn
        except DBAPIError as exc:
            if exc.connection_invalidated:
                conn.close()
            raise
        finally:
            _CURRENT.reset(token)
            if not conn.closed and conn.in_transaction():
                try:
                    conn.rollback()
                except DBAPIError:
                    conn.close()
                    raise
            self._give_back(conn)

    def _take(self) -> Connection:
        with self._guard:
            conn = self._idle.pop() if self._idle else None
        if conn is None or conn.closed or conn.invalidated:
            conn = self._db.connect()
            if self._options:
                conn = conn.execution_options(**self._options)
        return conn

    def _give_back(self, conn: Connection) -> None:
        if conn.closed:
            return
        if not conn.invalidated:
            with self._guard:
                if not self._closed and len(self._idle) < self._keep:
                    self._idle.append(conn)
                    return
        conn.close()

    def close(self) -> None:
        with self._guard:
            idle, self._idle = self._idle, []
            self._closed = True
        for conn in idle:
            conn.close()


class Connections:
    """Write, decide and read transactions on one database, and the engine's command lock."""

    def __init__(self, db: SqlEngine, memory: bool) -> None:
        self.db = db
        self.memory = memory
        # One writer at a time on SQLite: its commands run one by one under the lock alone.
        self.concurrent = db.dialect.name != "sqlite"
        slots = SERVER_COMMANDS if self.concurrent else 1
        # SQLite needs no shared holds: a plain re-entrant lock wakes one waiter, not all of them.
        self.lock: CommandLock | threading.RLock = (
            CommandLock(slots) if self.concurrent else threading.RLock()
        )
        alone = None if self.concurrent else self.lock
        self._writers = _KeptConnections(db, slots, alone, flowledger_write=True)
        self._deciders = _KeptConnections(db, slots, alone)
        # Write and decide transactions: on SQLite, under the lock (SQLite's write lock is taken
        # at BEGIN); elsewhere beside the other commands' (their number bounded by `command`).
        self.write = self._writers.transaction
        self.snapshot = self._deciders.transaction
        # Reads run beside everything (a snapshot each): kept too, as a pool checkout, its reset
        # and a new Connection object cost a short read more than its query (py-spy).
        self._readers = _KeptConnections(db, 0 if self.concurrent else KEPT_READERS, None)
        # Run on every read connection before it is handed out (the deferred projection's
        # read-your-writes check); None while commands write every row themselves.
        self.barrier: Callable[[Connection], None] | None = None

    @property
    def sqlite_lock(self) -> threading.RLock | None:
        """The engine's lock where every write (and decide) transaction takes it: SQLite."""
        lock = self.lock
        return None if isinstance(lock, CommandLock) else lock

    def command(self) -> AbstractContextManager[Any]:
        """Hold while running one command: beside the engine's other commands on a server
        database, alone on SQLite."""
        lock = self.lock
        return lock.shared() if isinstance(lock, CommandLock) else lock

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read connection; with a `barrier` set (deferred projection), the tables it reads
        hold every commit up to the log head as it was when the read began."""
        barrier = self.barrier
        with self.read_unchecked() as conn:
            if barrier is not None:
                barrier(conn)
            yield conn

    @contextmanager
    def read_unchecked(self) -> Iterator[Connection]:
        """A read connection without the barrier: for readers of the log itself, and of how far
        the projections are behind it."""
        if self.memory:
            # In-memory SQLite is one connection for everyone: a read must not run inside (and
            # on return roll back) a command's or the history thread's transaction.
            with self.lock, self.db.connect() as conn:
                token = _CURRENT.set(conn)
                try:
                    yield conn
                finally:
                    _CURRENT.reset(token)
            return
        with self._readers.connection() as conn:
            yield conn

    @contextmanager
    def repeatable_read(self) -> Iterator[Connection]:
        """A read connection whose transactions each see one snapshot of the database, whatever
        commits while they run: REPEATABLE READ on a server database; on SQLite in WAL mode
        every read transaction is one already. Begin one with `take_snapshot`. Not for in-memory
        SQLite, one connection for everyone: `read` holds the lock while it reads. No barrier:
        its one user, verify, brings the projections up to the log itself and reports what it
        cannot."""
        if self.memory:
            raise RuntimeError("in-memory SQLite has no snapshot of its own: read under the lock")
        with self._readers.connection() as conn:
            if self.concurrent:
                # Set before the transaction begins; the pool resets it when the connection
                # goes back.
                conn.execution_options(isolation_level="REPEATABLE READ")
            yield conn

    def take_snapshot(self, conn: Connection) -> None:
        """Begin a transaction on `conn` (from `repeatable_read`) and fix its snapshot now: the
        database as it is at this call is what all its reads see. The caller ends it."""
        conn.begin()
        dialect = conn.dialect.name
        if dialect in ("mysql", "mariadb"):
            # InnoDB would take it at the first read of a table; this takes it here.
            conn.exec_driver_sql("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        elif dialect == "sqlite":
            # A read transaction starts at its first read of the database file, not at BEGIN
            # (a statement reading no table reads no file).
            conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").all()
        else:
            conn.exec_driver_sql("SELECT 1").all()  # PostgreSQL: at the first statement

    def close(self) -> None:
        """Close the kept connections and release the pool."""
        with self.lock:
            self._writers.close()
            self._deciders.close()
            self._readers.close()
        self.db.dispose()
