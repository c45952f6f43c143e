"""Long polling: requests that wait until the engine's state may let them answer.

One `LongPoll` per application wakes every waiting request when the event log may have moved:
at once when this process commits (an engine commit listener), and within ~150 ms when another
process sharing the database commits (one background task compares `engine.log_position()`, and
only while someone waits). Waiters also re-check once a second, for what becomes possible by
time alone (an expired lock, a retry timeout that passed).

A waiter's attempt runs in a worker thread and must not write unless it can answer: the caller
checks cheaply first and commits only when there is something to hand over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

import anyio.to_thread
from litestar.types import Receive

from flowledger.engine import Engine
from flowledger.engine.storage.database import is_memory_url

log = logging.getLogger("flowledger.rest.longpoll")

T = TypeVar("T")

LOG_POLL_SECONDS = 0.15
RECHECK_SECONDS = 1.0


class _Handoff(Generic[T]):
    """The result of an attempt running in a worker thread, which the waiting request may
    abandon (client gone, server stopping) while the thread still runs."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.abandoned = False
        self.result: T | None = None


async def attempt_once(attempt: Callable[[], T | None], release: Callable[[T], None]) -> T | None:
    """Run `attempt` in a worker thread; whatever it acquired for a request that is no longer
    waiting for it is handed to `release` instead of being lost."""
    handoff: _Handoff[T] = _Handoff()

    def work() -> T | None:
        result = attempt()
        with handoff.lock:
            if not handoff.abandoned:
                handoff.result = result
                return result
        if result is not None:
            release(result)
        return None

    try:
        return await anyio.to_thread.run_sync(work)
    except BaseException:
        with handoff.lock:
            handoff.abandoned = True
            taken, handoff.result = handoff.result, None
        if taken is not None:
            # The thread finished just before the cancellation: nobody will answer with it.
            threading.Thread(target=release, args=(taken,), daemon=True).start()
        raise


async def _disconnected(receive: Receive) -> None:
    """Returns when the client closes the connection (the body was read already, so the
    server's next message for this request is the disconnect)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


def _uncancel() -> None:
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


class LongPoll:
    """Wakes this application's waiting requests; start it on startup, stop it on shutdown."""

    def __init__(
        self,
        engine: Engine,
        *,
        log_poll_seconds: float = LOG_POLL_SECONDS,
        recheck_seconds: float = RECHECK_SECONDS,
    ) -> None:
        self._engine = engine
        self._log_poll = log_poll_seconds
        self._recheck = recheck_seconds
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self._someone_waits = asyncio.Event()
        self._waiting = 0
        self._stopping = False
        self._watcher: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._engine.add_commit_listener(self._committed)
        # Nobody else can open an in-memory database: this process's commits are all there is.
        if not is_memory_url(self._engine.url):
            self._watcher = asyncio.create_task(self._watch_log(), name="longpoll-log-watcher")

    async def stop(self) -> None:
        """Stop watching; waiters still waiting answer as if their timeout had passed."""
        self._stopping = True
        self._wake_all()
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
            self._watcher = None

    def _committed(self) -> None:
        # On the committing thread, engine lock held: hand over to the loop and nothing else.
        loop = self._loop
        if loop is None or self._stopping:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: the server is gone
            loop.call_soon_threadsafe(self._wake_all)

    def _wake_all(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    async def _watch_log(self) -> None:
        """Wake the waiters when another process moved the log; polls only while some wait."""
        last: int | None = None
        failing = False
        while True:
            await self._someone_waits.wait()
            try:
                position = await anyio.to_thread.run_sync(self._engine.log_position)
            except Exception as exc:  # the database may come back: keep watching
                if not failing:
                    log.warning("long poll: cannot read the log position: %s", exc)
                failing = True
            else:
                failing = False
                # `last` survives idle spells: a move meanwhile costs one spurious re-check.
                if position != last:
                    if last is not None:
                        self._wake_all()
                    last = position
            await asyncio.sleep(self._log_poll)

    async def until(
        self,
        attempt: Callable[[], T | None],
        release: Callable[[T], None],
        timeout: float,
        receive: Receive,
    ) -> T | None:
        """`attempt()` now and after every wake-up until it returns a result; None when
        `timeout` seconds pass, the client disconnects or the server stops first."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        gone: asyncio.Task[None] | None = None
        try:
            while True:
                wake = self._wake  # taken before the attempt: a commit during it still wakes us
                result = await attempt_once(attempt, release)
                remaining = deadline - loop.time()
                if result is not None or remaining <= 0 or self._stopping:
                    return result
                if gone is None:
                    gone = asyncio.create_task(_disconnected(receive))
                try:
                    left = await self._sleep(wake, gone, min(remaining, self._recheck))
                except asyncio.CancelledError:
                    # The server stopping cuts waits short (uvicorn cancels what outlives its
                    # graceful shutdown): nothing is held, so answer as if the time was up.
                    _uncancel()
                    return None
                if left or self._stopping:
                    return None
        finally:
            if gone is not None:
                gone.cancel()

    async def _sleep(self, wake: asyncio.Event, gone: asyncio.Task[None], seconds: float) -> bool:
        """Wait for a wake-up, the client leaving or `seconds`; True when the client left."""
        self._waiting += 1
        self._someone_waits.set()
        woken = asyncio.create_task(wake.wait())
        try:
            await asyncio.wait({woken, gone}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            woken.cancel()
            self._waiting -= 1
            if not self._waiting:
                self._someone_waits.clear()
        return gone.done()
