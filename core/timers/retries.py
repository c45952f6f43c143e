"""`camunda:failedJobRetryTimeCycle`: how often a failing job is retried and how long it waits.

Pure. Two notations, as Camunda reads them: a repeating interval `R5/PT5M` (five retries, five
minutes apart) and a list of durations `PT1M,PT5M,PT10M` (one retry per entry, waiting each in
turn; Camunda's incremental intervals). A count before a list (`R5/PT1M,PT10M`) sets the
retries, the last interval serving the retries beyond the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .iso import Duration, TimerError, parse_duration

# A retry count beyond this is a typo, not a policy (and RETRIES_ is a Java int).
MAX_RETRIES = 1_000_000


@dataclass(frozen=True)
class RetryCycle:
    retries: int
    intervals: tuple[Duration, ...]

    def wait_until(self, retries_left: int, now: datetime) -> datetime:
        """When a job that failed with `retries_left` retries (before this failure) may run
        again: the first interval after the first failure, the next after the second, …"""
        failed_before = max(self.retries - retries_left, 0)
        interval = self.intervals[min(failed_before, len(self.intervals) - 1)]
        return interval.added_to(now)


def parse_retry_cycle(text: str) -> RetryCycle:
    """The cycle `text` names; TimerError says what is wrong with it."""
    value = text.strip()
    count: int | None = None
    rest = value
    if value.startswith("R"):
        head, _, rest = value.partition("/")
        if not rest or not head[1:].isdigit():
            raise TimerError(
                f"failedJobRetryTimeCycle '{value}' must be R<retries>/<duration> (e.g. R5/PT5M) "
                "or a list of durations (e.g. PT1M,PT5M,PT10M)"
            )
        count = int(head[1:])
    parts = [part.strip() for part in rest.split(",")]
    if not value or any(not part for part in parts):
        raise TimerError(f"failedJobRetryTimeCycle '{value}' has an empty interval")
    try:
        intervals = tuple(parse_duration(part) for part in parts)
    except TimerError as exc:
        raise TimerError(f"failedJobRetryTimeCycle '{value}': {exc}") from None
    if any(interval.negative for interval in intervals):
        raise TimerError(f"failedJobRetryTimeCycle '{value}': an interval is negative")
    if count is None:
        if len(parts) == 1:
            raise TimerError(
                f"failedJobRetryTimeCycle '{value}' names no retry count: write R<retries>/"
                f"{parts[0]}"
            )
        count = len(parts)
    if count > MAX_RETRIES:
        raise TimerError(f"failedJobRetryTimeCycle '{value}': at most {MAX_RETRIES} retries")
    return RetryCycle(count, intervals)
