"""The engine's notion of time: a protocol, the wall clock, and a clock tests can move.

Only the engine facade reads a clock, once per command; decide and evolve receive the value.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol


def truncate_ms(moment: datetime) -> datetime:
    """Camunda stores milliseconds; keeping the same precision makes replay and tables agree."""
    return moment.replace(microsecond=(moment.microsecond // 1000) * 1000)


class Clock(Protocol):
    def now(self) -> datetime:
        """Current time, timezone-aware UTC, millisecond precision."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return truncate_ms(datetime.now(UTC))


class ControllableClock:
    """A clock that only moves when told to: `advance(minutes=5)`, `set(datetime(...))`."""

    def __init__(self, start: datetime | None = None) -> None:
        self._lock = threading.Lock()
        initial = start or datetime(2026, 1, 1, tzinfo=UTC)
        if initial.tzinfo is None:
            initial = initial.replace(tzinfo=UTC)
        self._now = truncate_ms(initial.astimezone(UTC))

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def set(self, moment: datetime) -> None:
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        with self._lock:
            self._now = truncate_ms(moment.astimezone(UTC))

    def advance(
        self,
        *,
        days: float = 0,
        hours: float = 0,
        minutes: float = 0,
        seconds: float = 0,
        milliseconds: float = 0,
    ) -> datetime:
        delta = timedelta(
            days=days, hours=hours, minutes=minutes, seconds=seconds, milliseconds=milliseconds
        )
        with self._lock:
            self._now = truncate_ms(self._now + delta)
            return self._now
