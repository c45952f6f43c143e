"""ISO 8601 as Camunda 7 reads it in timer definitions: dates, durations and repeating intervals.

Camunda parses durations with `javax.xml.datatype.Duration` and adds them field by field to a
calendar (years, then months, clamping the day to the month's length, then days and time), and
reads a cycle `R[n]/...` with its `DurationHelper`; this module mirrors both, in UTC, the one
zone the engine's clock and tables use. A date without an offset is taken as UTC (Camunda takes
the JVM's default zone, which a deployment that follows Camunda's advice also sets to UTC).

Pure: every function takes the moment it needs; nothing here reads a clock.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation

# The lexical form of xs:duration, plus weeks (Joda and ISO 8601 accept `P2W`; javax does not,
# and refusing what the standard allows would only surprise). A fraction only on the seconds,
# as in xs:duration: a fraction of a month has no calendar meaning.
_DURATION = re.compile(
    r"(?P<sign>-)?P"
    r"(?:(?P<years>\d+)Y)?(?:(?P<months>\d+)M)?(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:[.,]\d+)?)S)?)?"
)
# Beyond this a due date leaves what a datetime (and every database's timestamp) can hold.
_MAX_FIELD = 10**6


class TimerError(ValueError):
    """A timer value Camunda would refuse, with a message naming the value and the problem."""


@dataclass(frozen=True)
class Duration:
    """A calendar duration: years and months keep the day of the month where they can."""

    years: int = 0
    months: int = 0
    days: int = 0  # weeks are folded in: seven days each
    seconds: Decimal = Decimal(0)  # hours, minutes and seconds, with the fraction
    negative: bool = False

    def negated(self) -> Duration:
        return Duration(self.years, self.months, self.days, self.seconds, not self.negative)

    def is_fixed(self) -> bool:
        """Without years or months every step has the same length."""
        return not (self.years or self.months)

    def fixed(self) -> timedelta:
        """The length of a fixed duration, unsigned."""
        return timedelta(days=self.days, microseconds=int(self.seconds * 1_000_000))

    def is_zero(self) -> bool:
        return not (self.years or self.months or self.days or self.seconds)

    def added_to(self, moment: datetime) -> datetime:
        """`moment` moved by this duration: months first (Jan 31 + P1M is Feb 28 or 29), then
        days and time, as `Duration.addTo(Calendar)` does. OverflowError past year 9999."""
        sign = -1 if self.negative else 1
        months = moment.year * 12 + (moment.month - 1) + sign * (self.years * 12 + self.months)
        year, month = divmod(months, 12)
        if not 1 <= year <= 9999:
            raise OverflowError("date out of range")
        day = min(moment.day, calendar.monthrange(year, month + 1)[1])
        shifted = moment.replace(year=year, month=month + 1, day=day)
        micros = int(self.seconds * 1_000_000)
        return shifted + sign * timedelta(days=self.days, microseconds=micros)


def parse_duration(text: str) -> Duration:
    """`P1Y2M3DT4H5M6.5S`, `PT10M`, `P2W`, `-PT1H`; TimerError for anything else, including
    `P` and `PT` alone."""
    match = _DURATION.fullmatch(text.strip())
    fields = match.groupdict() if match else {}
    if not match or not any(fields[f] for f in fields if f != "sign") or text.strip()[-1] == "T":
        raise TimerError(
            f"'{text}' is not an ISO 8601 duration (expected e.g. PT10M, P1DT12H or P2W)"
        )
    numbers = {k: int(v) for k, v in fields.items() if v and k not in ("sign", "seconds")}
    if any(value > _MAX_FIELD for value in numbers.values()):
        raise TimerError(f"duration '{text}' is too long")
    try:
        seconds = Decimal((fields["seconds"] or "0").replace(",", "."))
    except InvalidOperation:  # the pattern admits only digits; kept for safety
        raise TimerError(f"'{text}' is not an ISO 8601 duration") from None
    if seconds > _MAX_FIELD * 86_400:
        raise TimerError(f"duration '{text}' is too long")
    return Duration(
        years=numbers.get("years", 0),
        months=numbers.get("months", 0),
        days=numbers.get("days", 0) + 7 * numbers.get("weeks", 0),
        seconds=seconds + 3600 * numbers.get("hours", 0) + 60 * numbers.get("minutes", 0),
        negative=fields["sign"] == "-",
    )


def parse_date(text: str) -> datetime:
    """An ISO 8601 date or date-time (`2026-12-24`, `2026-12-24T18:00`, `...:00.000+01:00`,
    `...Z`), in UTC; without an offset it is UTC."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise TimerError(
            f"'{text}' is not an ISO 8601 date (expected e.g. 2026-12-24T18:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


@dataclass(frozen=True)
class Cycle:
    """A repeating interval `R[n]/[start/]period[/end]` or `R[n]/start/end`, as Camunda's
    `DurationHelper` reads it. `repetitions` is None for `R` without a count (no limit).

    It fires on a grid: `start + k·period` for k = 0..n going forward from a start, or
    `end - k·period` going back from an end, each step added to the last (so month steps keep
    Camunda's drift: Jan 31, Feb 28, Mar 28). A cycle with neither date is anchored at its
    creation (`anchored`), whose own moment is not a firing: `R3/PT10M` created at 10:00 fires
    at 10:10, 10:20 and 10:30. With an explicit start Camunda fires at the start too, n + 1
    times in all; this mirrors it."""

    repetitions: int | None
    period: Duration
    start: datetime | None = None
    end: datetime | None = None

    def anchored(self, created: datetime) -> Cycle:
        """The cycle with its grid fixed: a cycle without dates starts at `created`."""
        if self.start is not None or self.end is not None:
            return self
        return Cycle(self.repetitions, self.period, start=created)

    def next_after(self, moment: datetime) -> datetime | None:
        """The first grid point strictly after `moment`, or None when the grid has none left.
        The cycle must be anchored."""
        if self.start is not None:
            return self._forward(self.start, moment)
        if self.end is None:
            raise ValueError("a cycle without start or end must be anchored first")
        return self._backward(self.end, moment)

    def _forward(self, start: datetime, moment: datetime) -> datetime | None:
        step = 0
        point: datetime | None = start
        if start <= moment and self.period.is_fixed():
            # Whole steps at once: a per-second cycle started years ago is a jump, not a loop.
            step = (moment - start) // self.period.fixed()
            point = _step(self.period, start, step)
        while point is not None and point <= moment:
            step += 1
            point = _step(self.period, point)
        if point is None or (self.repetitions is not None and step > self.repetitions):
            return None
        return point

    def _backward(self, end: datetime, moment: datetime) -> datetime | None:
        if end <= moment:
            return None
        limit = self.repetitions
        back = self.period.negated()
        if self.period.is_fixed():
            steps = (end - moment - _TICK) // self.period.fixed()  # points strictly after
            steps = steps if limit is None else min(steps, limit)
            # Never off the calendar: the point lies between `moment` and `end`.
            return end - steps * self.period.fixed()
        earliest, step = end, 0
        while limit is None or step < limit:
            before = _step(back, earliest)
            if before is None or before <= moment:
                break
            earliest, step = before, step + 1
        return earliest


_TICK = timedelta(microseconds=1)


def _step(period: Duration, point: datetime, times: int = 1) -> datetime | None:
    """`point` moved `times` periods (at once for a fixed period), or None off the calendar."""
    try:
        if times != 1:
            return point + (-1 if period.negative else 1) * times * period.fixed()
        return period.added_to(point)
    except OverflowError:
        return None


def parse_cycle(text: str) -> Cycle:
    """A `timeCycle` in ISO 8601 form: `R[n]/period`, `R[n]/start/period`,
    `R[n]/period/end` or `R[n]/start/end`."""
    parts = text.strip().split("/")
    count = parts[0][1:] if parts[0].startswith("R") else None
    if count is None or not 2 <= len(parts) <= 3:
        raise TimerError(f"'{text}' is not an ISO 8601 repeating interval (e.g. R3/PT10M)")
    if count and not count.isdigit():
        raise TimerError(f"'{text}': the repetitions '{parts[0]}' must be R or R<count>")
    repetitions = int(count) if count else None
    if repetitions is not None and repetitions > _MAX_FIELD:
        raise TimerError(f"'{text}': at most {_MAX_FIELD} repetitions")
    first, *rest = parts[1:]
    start = end = None
    if first.startswith(("P", "-P")):
        period = parse_duration(first)
        end = parse_date(rest[0]) if rest else None
    elif not rest:
        raise TimerError(f"'{text}': a start date must be followed by a period or an end")
    else:
        start = parse_date(first)
        if rest[0].startswith(("P", "-P")):
            period = parse_duration(rest[0])
        else:
            # Camunda counts a start/end interval forward from its start, the length its period.
            until = parse_date(rest[0])
            if until <= start:
                raise TimerError(f"'{text}': the end {rest[0]} is not after the start")
            micros = (until - start) // timedelta(microseconds=1)
            period = Duration(seconds=Decimal(micros) / 1_000_000)
    if period.is_zero() or period.negative:
        raise TimerError(f"'{text}': the period of a repeating interval must be positive")
    return Cycle(repetitions, period, start, end)
