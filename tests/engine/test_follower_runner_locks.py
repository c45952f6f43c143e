"""A follower's runner takes the engine's lock (SQLite: every transaction takes it) before its
own: a caller that holds the engine's lock (a verify draining) and a thread that steps on its own
(in-memory SQLite's follower thread, a read writing the tail) never wait for each other."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flowledger.engine.workers.history_worker import HistoryRunner


class _Follower:
    """Has nothing to project; the runner's transactions around it take the engine's lock."""

    def prepare(self, _conn: Any, _max_events: int) -> None:
        return None


def test_a_verify_holding_the_engine_lock_drains_while_a_follower_thread_steps() -> None:
    engine_lock = threading.RLock()
    in_transaction = threading.Event()

    @contextmanager
    def transaction() -> Iterator[None]:
        with engine_lock:
            in_transaction.set()
            yield None

    runner = HistoryRunner(
        _Follower(),  # type: ignore[arg-type]
        transaction,
        transaction,
        outer=engine_lock,
    )
    verify_holds_the_lock, verify_done, thread_done = (threading.Event() for _ in range(3))

    def verify() -> None:
        with engine_lock:
            verify_holds_the_lock.set()
            thread.start()
            thread.join(0.2)  # the follower thread tries to step meanwhile
            runner.step()  # the drain
        verify_done.set()

    def follower_thread() -> None:
        runner.step()
        thread_done.set()

    thread = threading.Thread(target=follower_thread, daemon=True)
    threading.Thread(target=verify, daemon=True).start()
    assert verify_done.wait(10), "the drain waited for the follower thread: a deadlock"
    assert thread_done.wait(10), "the follower thread never stepped"
