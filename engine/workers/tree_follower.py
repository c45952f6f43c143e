"""Keeps the Merkle tree's stored tiles (`merkle_tile`) up to the log, so that a proof reads
O(log n) tiles instead of the log: a thread of the server (`flowledger serve`,
`Engine.start_tree_follower`).

It wakes on commits (at most every MIN_INTERVAL seconds: tiles are written in batches, not per
command) and extends the tiles in short write transactions of at most BATCH commits, never on
the command path. Several engine processes may each run one: `tile_store.extend` locks the
`merkle` checkpoint row, so they take turns. A failure is logged and kept for
`/actuator/health` (component `tree`, DOWN while the last round failed); the thread goes on.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import UTC, datetime

from flowledger.engine.storage.connections import Connections
from flowledger.eventlog import EventStore, tile_store

log = logging.getLogger("flowledger.tree")

BATCH = 5_000  # commits tiled per write transaction
MIN_INTERVAL = 0.5  # seconds between rounds while commits arrive
IDLE_POLL = 5.0  # seconds between rounds without a commit of this engine (others may commit)


@dataclass(frozen=True)
class TreeHealth:
    status: str  # UP | DOWN
    size: int  # commits in the tree (the log head's frontier)
    tiled: int  # commits the stored tiles hold
    lag: int  # size - tiled
    last_error: str | None


class TreeFollower:
    def __init__(self, db: Connections, store: EventStore) -> None:
        self._db = db
        self._store = store
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="flowledger-tree", daemon=True)
        self.tiled = 0
        self.last_error: str | None = None

    def start(self) -> None:
        self._thread.start()

    def committed(self) -> None:
        """Commit listener: runs under the engine's lock, so it only sets a flag."""
        self._wake.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)

    def catch_up(self) -> int:
        """Tile every commit of the log now; the tree's size tiled."""
        while True:
            with self._db.write() as conn:
                size, added = tile_store.extend(self._store, conn, datetime.now(UTC), limit=BATCH)
            self.tiled = size
            if added < BATCH:
                return size

    def health(self) -> TreeHealth:
        with self._db.read_unchecked() as conn:
            _position, frontier = self._store.tree(conn)
        lag = max(0, frontier.size - self.tiled)
        return TreeHealth(
            "DOWN" if self.last_error is not None else "UP",
            frontier.size,
            self.tiled,
            lag,
            self.last_error,
        )

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self.catch_up()
                if self.last_error is not None:
                    log.info("the Merkle tree's tiles follow the log again")
                self.last_error = None
            except Exception as exc:  # waited out, never the end of the thread
                error = f"{type(exc).__name__}: {exc}"
                # logged before health shows it: whoever sees DOWN finds the cause in the log
                log.error("cannot extend the Merkle tree's tiles: %s", error)
                self.last_error = error
            self._wake.wait(IDLE_POLL)
            self._wake.clear()
            self._stopping.wait(MIN_INTERVAL)
