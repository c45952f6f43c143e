"""Signs the log's tree head at an interval and appends it to a file of published heads, or
publishes it to a NATS JetStream stream (`flowledger serve --signing-key KEY --publish-heads
FILE|nats://HOST:PORT/STREAM[/subject]`, `head_targets`), so that a rewrite of the log after
any published head is caught (`flowledger verify --against-published`).

A thread of the server: every `interval` seconds it signs the head over every commit when the log
grew since the last one it published (a head only over commits on disk, see
`AuditService.signed_head`). A failure is logged and kept for `/actuator/health` (component
`heads`, DOWN while the last try failed); the thread goes on trying.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from . import head_targets

log = logging.getLogger("flowledger.heads")

MIN_INTERVAL = 1.0  # seconds: a head is a full read of the log (until stored levels land)


@dataclass(frozen=True)
class HeadPublisherHealth:
    status: str  # UP | DOWN
    target: str
    interval: float
    published: int  # heads published since the server started
    last_size: int | None  # commits the last published head covers
    last_at: datetime | None
    last_error: str | None


class HeadPublisher:
    """Publishes a signed head at an interval; `publish_now` does one round at once."""

    def __init__(
        self,
        sign: Callable[[], str],
        target: Path | str,
        interval: float,
        log_position: Callable[[], int],
    ) -> None:
        if interval < MIN_INTERVAL:
            raise ValueError(f"heads are published at most every {MIN_INTERVAL:g} s")
        self._sign = sign
        self._log_position = log_position
        self._last_position: int | None = None
        self.target = target
        self.interval = interval
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="flowledger-heads", daemon=True)
        self._lock = threading.Lock()
        self.published = 0
        self.last_size: int | None = None
        self.last_at: datetime | None = None
        self.last_error: str | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)

    def publish_now(self) -> bool:
        """Sign and publish the head when the log grew since the last one; True when it did."""
        with self._lock:
            try:
                if self._last_position is not None and (
                    self._log_position() == self._last_position
                ):
                    return False  # nothing committed since the last head
                note = self._sign()
                head_targets.publish(self.target, note)
                lines = note.split("\n")
                size, position = int(lines[1]), int(lines[3].removeprefix("position "))
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
                # logged before health shows it: whoever sees DOWN finds the cause in the log
                log.error("cannot publish the log's head to %s: %s", self.target, error)
                self.last_error = error
                return False
            self.last_error = None
            self.last_size, self._last_position = size, position
            self.last_at = datetime.now(UTC)
            self.published += 1
            return True

    def health(self) -> HeadPublisherHealth:
        return HeadPublisherHealth(
            status="DOWN" if self.last_error is not None else "UP",
            target=str(self.target),
            interval=self.interval,
            published=self.published,
            last_size=self.last_size,
            last_at=self.last_at,
            last_error=self.last_error,
        )

    def _run(self) -> None:
        self.publish_now()
        while not self._stopping.wait(self.interval):
            self.publish_now()
