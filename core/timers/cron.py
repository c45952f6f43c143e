"""Cron expressions as Camunda 7 evaluates them in `timeCycle` values: Quartz and Spring 5.3.

Camunda up to 7.23 hands every `timeCycle` that does not start with `R` to its copy of Quartz's
`CronExpression`; from 7.24 on, cron-utils reads it with the Spring 5.3 definition
(`org.springframework.scheduling.support.CronExpression`). The two languages share most of their
text but not its meaning, so this module reads both and tells them apart by one rule:

    7 fields, or a `?` anywhere              -> Quartz   (`Cron.dialect == "quartz"`)
    6 fields without `?`, or an `@` macro    -> Spring   (`Cron.dialect == "spring"`)

Every valid Quartz expression holds exactly one `?` (one of the day fields must be `?`), and a
Spring expression normally holds none, so every model written for Camunda <= 7.23 keeps its
meaning, and the modern forms (`0 0 9 * * MON-FRI`, `0 */5 * * * *`) now work. A Spring
expression that uses `?` as its synonym of `*` is read as Quartz (and refused if it is not valid
Quartz); write `*` instead.

Quartz: `seconds minutes hours day-of-month month day-of-week [year]`, with `*`, `?`, lists
`a,b`, ranges `a-b` (a reversed range wraps: hours `22-2`), increments `a/n`, `*/n`, `/n`,
`a-b/n`, month and day names (case-insensitive), and the day specials `L`, `L-n`, `nW`, `LW`,
`L-nW` (day-of-month) and `L`, `nL`, `n#k` (day-of-week). Days of the week are numbered
1 = SUNDAY, 2 = MONDAY ... 7 = SATURDAY. Exactly one of day-of-month and day-of-week must be `?`.

Spring 5.3: `seconds minutes hours day-of-month month day-of-week`, no year. Days of the week are
numbered 0 or 7 = SUNDAY, 1 = MONDAY ... 6 = SATURDAY (names MON-SUN), a range starting at 7
starts at Sunday 0 (`SUN-SAT` is every day), and `*/n` counts from Monday. Ranges do not wrap
(`FRI-MON` is refused, as Spring does), names may mix with numbers (`MON-5`) and take increments
(`MON-FRI/2`). Both day fields may be restricted, and a day must then match both (Spring matches
every field: `0 0 12 13 * FRI` is Friday the 13th). Day specials: `L`, `L-n`, `nW`, `LW`
(day-of-month) and `nL` / `DDDL` (the last such day, `5L` = last Friday), `n#k` / `DDD#k` (the
k-th such day, `FRI#2`). Macros: `@yearly`/`@annually` (`0 0 0 1 1 *`), `@monthly`
(`0 0 0 1 * *`), `@weekly` (`0 0 0 * * 0`), `@daily`/`@midnight` (`0 0 0 * * *`) and `@hourly`
(`0 0 * * * *`).

Both dialects are stored alike: `Cron.days_of_week` always uses Quartz's numbering (1 = Sunday),
so a Spring `MON` and a Quartz `2` are the same value there.

Where Quartz or Spring accepts text it then ignores (`MON-FRI/2` in Quartz as `MON-FRI`, `15W,20`
as `15W`, `*/0` as `*`) or that breaks its own evaluation, this module refuses with a CronError
instead of guessing; the docstrings of `parse_cron` and `Cron.next_after` list those cases.
A 5-field Unix expression is refused with a hint to put the seconds first.

Pure: nothing here reads a clock; `next_after` takes the moment it starts from.
"""

from __future__ import annotations

import calendar
import re
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Literal, TypedDict

__all__ = ["MAX_YEAR", "MIN_YEAR", "Cron", "CronError", "Dialect", "parse_cron"]

# Quartz documents years 1970-2199. (Camunda's copy stops searching at the current year + 100,
# which would make the answer depend on the clock; the documented bound does not.)
MIN_YEAR = 1970
MAX_YEAR = 2199

_FIELDS_HINT = "seconds minutes hours day-of-month month day-of-week [year]"
_ONE_SECOND = timedelta(seconds=1)
_SATURDAY = 5  # date.weekday()
_SUNDAY = 6

# "both" only in Spring, where a day must match a restricted day-of-month and day-of-week.
DayField = Literal["day-of-month", "day-of-week", "both"]
Dialect = Literal["quartz", "spring"]


class _CommonFields(TypedDict):
    text: str
    seconds: frozenset[int]
    minutes: frozenset[int]
    hours: frozenset[int]
    months: frozenset[int]
    years: frozenset[int]
    dialect: Dialect


class _MonthDays(TypedDict):
    """What a day-of-month field sets on a Cron."""

    days_of_month: frozenset[int]
    last_day_offset: int | None
    nearest_weekday: bool


class _WeekDays(TypedDict):
    """What a day-of-week field sets on a Cron (days in Quartz numbering)."""

    days_of_week: frozenset[int]
    last_weekday: bool
    nth_weekday: int | None


_NO_MONTH_DAYS = _MonthDays(days_of_month=frozenset(), last_day_offset=None, nearest_weekday=False)
_NO_WEEK_DAYS = _WeekDays(days_of_week=frozenset(), last_weekday=False, nth_weekday=None)


class CronError(ValueError):
    """An expression Camunda would refuse; the message names the field and the offending text,
    e.g. "cron expression '0 0 25 * * ?': hour 25 is out of range 0-23"."""


class _Refusal(Exception):
    """A problem found while parsing; `parse_cron` prefixes it with the whole expression."""


@dataclass(frozen=True)
class _Field:
    name: str
    low: int
    high: int
    # Quartz's own limits on `*/n` (it takes 31 for day-of-month, 12 for month, 7 for
    # day-of-week, one less than the span for the 0-based fields); the year, which Quartz leaves
    # unchecked, gets the same rule as the 0-based fields.
    max_step: int
    names: Mapping[str, int] | None = None
    wraps: bool = True  # a reversed range runs over the end of the cycle; not for years
    hint: str = ""  # added to the range in messages, for the numbering of the days of the week

    def span(self) -> str:
        return f"{self.low}-{self.high}{self.hint}"


# Spelled out: `calendar.month_abbr` follows the process's locale.
_MONTH_NAMES = {
    "JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6,
    "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12,
}  # fmt: skip
_DAY_NAMES = {"SUN": 1, "MON": 2, "TUE": 3, "WED": 4, "THU": 5, "FRI": 6, "SAT": 7}

_SECOND = _Field("second", 0, 59, 59)
_MINUTE = _Field("minute", 0, 59, 59)
_HOUR = _Field("hour", 0, 23, 23)
_DAY_OF_MONTH = _Field("day-of-month", 1, 31, 31)
_MONTH = _Field("month", 1, 12, 12, names=_MONTH_NAMES)
_DAY_OF_WEEK = _Field("day-of-week", 1, 7, 7, names=_DAY_NAMES, hint=" (1 = SUN ... 7 = SAT)")
_YEAR = _Field("year", MIN_YEAR, MAX_YEAR, MAX_YEAR - MIN_YEAR, wraps=False)

# Spring names the days after java.time's DayOfWeek (MONDAY = 1 ... SUNDAY = 7) and also takes
# cron's 0 for Sunday.
_SPRING_DAY_NAMES = {"MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6, "SUN": 7}
_SPRING_DAY_OF_WEEK = _Field(
    "day-of-week",
    0,
    7,
    7,
    names=_SPRING_DAY_NAMES,
    wraps=False,
    hint=" (0 or 7 = SUN, 1 = MON ... 6 = SAT)",
)
_SPRING_WEEK = (1, 7)  # what Spring's `*` in day-of-week covers: `*/2` is MON, WED, FRI, SUN
_SPRING_FIELDS_HINT = "seconds minutes hours day-of-month month day-of-week"
_MACROS = {
    "@YEARLY": "0 0 0 1 1 *",
    "@ANNUALLY": "0 0 0 1 1 *",
    "@MONTHLY": "0 0 0 1 * *",
    "@WEEKLY": "0 0 0 * * 0",
    "@DAILY": "0 0 0 * * *",
    "@MIDNIGHT": "0 0 0 * * *",
    "@HOURLY": "0 0 * * * *",
}

_FIELD_SEPARATOR = re.compile(r"[ \t]+")
# One list item of any field. ASCII digits only: `str.isdigit` and `\d` take other scripts too.
_STEP_FROM_START = re.compile(r"\*?/([0-9]+)")  # `*/n`, and `/n`, which Quartz reads the same
_NUMBERS = re.compile(r"([0-9]+)(?:-([0-9]+))?(?:/([0-9]+))?")
_NAMES = re.compile(r"([A-Z]+)(?:-([A-Z]+))?")
# The day specials; each must be the whole field (Quartz refuses or misreads them in lists).
_LAST_DAY = re.compile(r"L(?:-([0-9]+))?(W?)")
_NEAREST_WEEKDAY = re.compile(r"([0-9]+)W")
_LAST_WEEKDAY = re.compile(r"([0-9]+|[A-Z]{3})L")
_NTH_WEEKDAY = re.compile(r"([0-9]+|[A-Z]{3})#([0-9]+)")
# One Spring list item: a start (`*`, number or name), an optional end, an optional increment.
_SPRING_ITEM = re.compile(r"(\*|[0-9]+|[A-Z]+)(?:-([0-9]+|[A-Z]+))?(?:/([0-9]+))?")


@dataclass(frozen=True)
class Cron:
    """A parsed cron expression; build it with `parse_cron`.

    Each plain field is the frozenset of the values it allows. Of the two day fields the one in
    force is `day_field`; the other was `?` (or, in Spring, `*`) and its set is empty. Only a
    Spring expression can restrict both: `day_field` is then "both" and a day must match both.
    Day-of-week values use Quartz's numbering, 1 = Sunday ... 7 = Saturday, in both dialects.
    `dialect` says which language the text was read in (see the module docstring).
    """

    text: str
    seconds: frozenset[int]
    minutes: frozenset[int]
    hours: frozenset[int]
    days_of_month: frozenset[int]  # plain days, or the single day n of `nW`; empty for `L...`
    months: frozenset[int]
    days_of_week: frozenset[int]  # plain days, or the single day n of `nL` / `n#k`
    years: frozenset[int]
    day_field: DayField
    dialect: Dialect
    last_day_offset: int | None = None  # `L` (0) or `L-n` (n) in day-of-month
    nearest_weekday: bool = False  # `W`: with `last_day_offset` that is `LW` / `L-nW`
    last_weekday: bool = False  # `nL` in day-of-week: the last day n of the month
    nth_weekday: int | None = None  # `n#k` in day-of-week: k, the day n's occurrence

    _seconds: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _minutes: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _hours: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _days_of_month: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _months: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _years: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Sorted copies for bisecting; the frozensets stay the public, comparable form.
        object.__setattr__(self, "_seconds", tuple(sorted(self.seconds)))
        object.__setattr__(self, "_minutes", tuple(sorted(self.minutes)))
        object.__setattr__(self, "_hours", tuple(sorted(self.hours)))
        object.__setattr__(self, "_days_of_month", tuple(sorted(self.days_of_month)))
        object.__setattr__(self, "_months", tuple(sorted(self.months)))
        object.__setattr__(self, "_years", tuple(sorted(self.years)))

    def next_after(self, moment: datetime) -> datetime | None:
        """The first moment strictly after `moment` that the expression matches, at whole
        seconds, or None when there is none (e.g. a year field entirely in the past, or
        past year 2199 as Quartz caps). `moment` must be timezone-aware; the result is
        in the same timezone as `moment` (UTC is what the engine passes).

        Fields are matched against the wall clock of `moment`'s zone, as Quartz matches them
        against its calendar's, with the same outcome around daylight saving changes: a wall
        time the clock skips never fires (`0 30 2 * * ?` skips the day the clocks go forward),
        and a wall time the clock passes twice fires once, at its later, standard-time
        occurrence (java.util.Calendar's reading of an ambiguous time).

        Where Camunda's copy of Quartz (1.8) misbehaves this gives the sane answer instead:
        `L-n` after the day has passed gives next month's day (Quartz 1.8 answers a moment in
        the past, which Quartz 2 fixed); `L-nW` with n >= 28 matches nothing in a month too
        short for it, unless the nearest-weekday rule brings it onto the 1st (Quartz agrees
        where it answers, but from some moments never returns); and at a moment with a
        fraction of a second, `nW`/`LW` on the matching second compare whole seconds (Quartz
        compares the clock's milliseconds at the time of the call).
        """
        if moment.utcoffset() is None:
            raise ValueError(f"next_after needs a timezone-aware moment, got {moment!r}")
        zone = moment.tzinfo
        instant = moment.astimezone(UTC)
        wall = moment.replace(tzinfo=None, microsecond=0, fold=0)
        if wall.year > MAX_YEAR:
            return None
        start = wall + _ONE_SECOND
        while (found := self._next_wall_time(start)) is not None:
            later = found.replace(tzinfo=zone, fold=1).astimezone(UTC)
            if later.astimezone(zone).replace(tzinfo=None) != found:  # in a gap: no such time
                start = _end_of_gap(found, zone)
            elif later > instant:
                result = later.astimezone(zone)
                # fold=1 only where it means something: not on unambiguous (e.g. UTC) times.
                plain = result.replace(fold=0)
                return plain if plain.utcoffset() == result.utcoffset() else result
            else:  # `moment` is in the repeated hour, past this wall time's second occurrence
                start = found + _ONE_SECOND
        return None

    # -- the search, coarse to fine: year, month, day, then the time of day ------------------

    def _next_wall_time(self, start: datetime) -> datetime | None:
        """The first matching wall time at or after `start` (naive, whole seconds)."""
        time_on_start_day = self._first_time_at_or_after(start.hour, start.minute, start.second)
        skipped = self._month_quartz_skips(start, time_on_start_day is not None)
        earliest = (self._hours[0], self._minutes[0], self._seconds[0])
        for year in self._years[bisect_left(self._years, start.year) :]:
            first_month = start.month if year == start.year else 1
            for month in self._months[bisect_left(self._months, first_month) :]:
                in_start_month = (year, month) == (start.year, start.month)
                for day in self._days(year, month, quartz_skips=(year, month) == skipped):
                    if not in_start_month or day > start.day:
                        return datetime(year, month, day, *earliest)
                    if day == start.day and time_on_start_day is not None:
                        return datetime(year, month, day, *time_on_start_day)
        return None

    def _first_time_at_or_after(
        self, hour: int, minute: int, second: int
    ) -> tuple[int, int, int] | None:
        """The first allowed (hour, minute, second) not before the given one on the same day."""
        for h in self._hours[bisect_left(self._hours, hour) :]:
            from_minute = minute if h == hour else 0
            for m in self._minutes[bisect_left(self._minutes, from_minute) :]:
                from_second = second if (h, m) == (hour, minute) else 0
                index = bisect_left(self._seconds, from_second)
                if index < len(self._seconds):
                    return h, m, self._seconds[index]
        return None

    def _days(self, year: int, month: int, *, quartz_skips: bool = False) -> tuple[int, ...]:
        """The days of the month that match the day field(s) in force, in order."""
        last = calendar.monthrange(year, month)[1]
        if self.day_field == "day-of-month":
            return self._month_days(year, month, last, quartz_skips=quartz_skips)
        if self.day_field == "day-of-week":
            return self._week_days(year, month, last)
        weekdays = set(self._week_days(year, month, last))  # Spring: both must match
        return tuple(day for day in self._month_days(year, month, last) if day in weekdays)

    def _month_days(
        self, year: int, month: int, last: int, *, quartz_skips: bool = False
    ) -> tuple[int, ...]:
        if self.last_day_offset is not None:
            day = last - self.last_day_offset
            if self.nearest_weekday:
                return _just(_nearest_weekday(year, month, day, last))
            return (day,) if day >= 1 else ()
        if self.nearest_weekday:
            (day,) = self._days_of_month
            # Quartz works out `31W` in April from the weekday of "April 31" (see
            # `_month_quartz_skips`); Spring only looks at months that have the day.
            if day > last and (quartz_skips or self.dialect == "spring"):
                return ()
            return _just(_nearest_weekday(year, month, day, last))
        return tuple(day for day in self._days_of_month if day <= last)

    def _week_days(self, year: int, month: int, last: int) -> tuple[int, ...]:
        first = _quartz_weekday(date(year, month, 1))
        if self.last_weekday:
            (wanted,) = self.days_of_week
            last_weekday = (first + last - 2) % 7 + 1
            return (last - (last_weekday - wanted) % 7,)
        if self.nth_weekday is not None:
            (wanted,) = self.days_of_week
            day = 1 + (wanted - first) % 7 + 7 * (self.nth_weekday - 1)
            return (day,) if day <= last else ()
        return tuple(
            day for day in range(1, last + 1) if (first + day - 2) % 7 + 1 in self.days_of_week
        )

    def _month_quartz_skips(
        self, start: datetime, time_left_on_start_day: bool
    ) -> tuple[int, int] | None:
        """The month Quartz's `nW` search jumps over from where this search starts, if any.

        `nW` with n beyond a month's length still matches that month's last day when the day
        after it is a Saturday (Quartz asks java.util.Calendar for the weekday of "April 31",
        gets Saturday May 1 and moves back a day to Friday April 30). But when Quartz finds
        the start month's `nW` day already passed, it moves on to "day n of the next month",
        which the calendar rolls over into the month after: that next month is then skipped.
        """
        if self.dialect != "quartz" or self.day_field != "day-of-month":
            return None
        if not self.nearest_weekday:
            return None
        if self.last_day_offset is not None:  # `LW` moves on to the 1st: nothing is skipped
            return None
        (day,) = self._days_of_month
        last = calendar.monthrange(start.year, start.month)[1]
        target = _nearest_weekday(start.year, start.month, day, last)
        # Quartz settles the time of day before the day: with no time left today it looks
        # from tomorrow (and from the 1st of the next month, where nothing is skipped).
        today = start.day if time_left_on_start_day else start.day + 1
        if target is None or today > last or today <= target:
            return None
        return (start.year + 1, 1) if start.month == 12 else (start.year, start.month + 1)


def _end_of_gap(wall: datetime, zone: tzinfo | None) -> datetime:
    """The first wall time after `wall` that exists, `wall` being skipped by a clock change."""
    # PEP 495: in a gap, fold=1 reads the wall time with the offset from after the change,
    # which gives an instant before the change, and fold=0 one after it. Bisect between them.
    before = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    after = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    offset_before = before.astimezone(zone).utcoffset()
    if after <= before:  # a tzinfo without PEP 495 folds: step on by the second
        return wall + _ONE_SECOND
    while after - before > _ONE_SECOND:
        middle = before + (after - before) // 2
        middle -= timedelta(microseconds=middle.microsecond)
        if middle.astimezone(zone).utcoffset() == offset_before:
            before = middle
        else:
            after = middle
    return max(after.astimezone(zone).replace(tzinfo=None), wall + _ONE_SECOND)


def _just(day: int | None) -> tuple[int, ...]:
    return () if day is None else (day,)


def _quartz_weekday(day: date) -> int:
    """1 = Sunday ... 7 = Saturday."""
    return (day.weekday() + 1) % 7 + 1


def _nearest_weekday(year: int, month: int, day: int, last: int) -> int | None:
    """The weekday nearest `day` without leaving the month, the way Quartz works it out.

    `day` may lie outside the month (`31W` in April, `L-30W` in February): Quartz takes the
    weekday of the date the calendar rolls it to, moves off a weekend from there, and only a
    result inside the month counts.
    """
    weekday = (date(year, month, 1) + timedelta(days=day - 1)).weekday()
    if weekday == _SATURDAY:
        day = day + 2 if day == 1 else day - 1
    elif weekday == _SUNDAY:
        day = day - 2 if day == last else day + 1
    return day if 1 <= day <= last else None


# -- parsing -----------------------------------------------------------------------------


def parse_cron(text: str) -> Cron:
    """Parse or raise CronError; Quartz or Spring by the rule in the module docstring.

    Refused although Quartz accepts it (it would ignore part of the text, or misbehave):
    more than 7 fields, trailing text after a value (`5X`, `MONDAY`, `?X`), an increment
    after a name (`MON-FRI/2`), names mixed with numbers in a range (`MON-5`, Quartz refuses
    it too), an increment of 0 or larger than the field (`0/0`, `0/75`), `?` or a day special
    inside a list (`15W,20`, `6#3,2`), `W` after a range, values out of range in `nW`/`n#k`,
    empty list items (`1,,2`), and years outside 1970-2199.

    Refused although Spring accepts it: an increment larger than the field (`*/75`, which
    Spring reads as the start alone), a day special inside a list (`L,15`), `n#k` with k above
    5 (no month has a sixth Friday) and `L-n` with n above 30.
    """
    try:
        return _parse(text)
    except _Refusal as refusal:
        raise CronError(f"cron expression '{text}': {refusal}") from None


def _parse(text: str) -> Cron:
    # Quartz separates fields by spaces and tabs; other whitespace only around the whole text,
    # where XML indentation puts it, is let go.
    stripped = text.strip().upper()
    if stripped.startswith("@"):
        return _parse_spring(text, _expand_macro(text.strip()))
    parts = _FIELD_SEPARATOR.split(stripped) if stripped else []
    if len(parts) not in (6, 7):
        raise _Refusal(_field_count_problem(text, len(parts)))
    # The dialect rule: every valid Quartz expression holds a `?`, a Spring one has no year.
    if len(parts) == 7 or "?" in stripped:
        return _parse_quartz(text, parts)
    return _parse_spring(text, parts)


def _field_count_problem(text: str, count: int) -> str:
    problem = f"expected 6 or 7 fields ({_FIELDS_HINT}), got {count}"
    if count == 5:  # most likely Unix cron, which has no seconds
        return f"{problem}; cron here starts with seconds: did you mean '0 {text.strip()}'?"
    return problem


def _expand_macro(macro: str) -> list[str]:
    expansion = _MACROS.get(macro.upper())
    if expansion is None:
        names = ", ".join(name.lower() for name in _MACROS)
        raise _Refusal(f"unknown macro '{macro}' (expected one of {names})")
    return expansion.split(" ")


# -- parsing Quartz ------------------------------------------------------------------------


def _parse_quartz(text: str, parts: list[str]) -> Cron:
    seconds = _parse_plain(_SECOND, parts[0])
    minutes = _parse_plain(_MINUTE, parts[1])
    hours = _parse_plain(_HOUR, parts[2])
    dom_text, month_text, dow_text = parts[3:6]
    for fld, raw in ((_DAY_OF_MONTH, dom_text), (_DAY_OF_WEEK, dow_text)):
        if "?" in raw and raw != "?":
            raise _Refusal(f"{fld.name} '{raw}': '?' must be the whole field")
    if dom_text == "?" and dow_text == "?":
        raise _Refusal(
            "day-of-month and day-of-week cannot both be '?': give a value in exactly one of them"
        )
    if dom_text != "?" and dow_text != "?":
        raise _Refusal(
            f"specifying both a day-of-month ('{dom_text}') and a day-of-week ('{dow_text}') "
            "is not supported (Camunda/Quartz): put '?' in one of them"
        )
    months = _parse_plain(_MONTH, month_text)
    years = _parse_plain(_YEAR, parts[6]) if len(parts) == 7 else _all(_YEAR)
    common = _CommonFields(
        text=text,
        seconds=seconds,
        minutes=minutes,
        hours=hours,
        months=months,
        years=years,
        dialect="quartz",
    )
    if dow_text == "?":
        return Cron(
            **common, **_month_days(dom_text, "quartz"), **_NO_WEEK_DAYS, day_field="day-of-month"
        )
    return Cron(**common, **_NO_MONTH_DAYS, **_quartz_week_days(dow_text), day_field="day-of-week")


def _month_days(raw: str, dialect: Dialect) -> _MonthDays:
    """A day-of-month field: `L`, `L-n`, `LW` (Quartz also `L-nW`), `nW`, or plain values.
    The dialects differ only in the offsets they take and in how plain values read."""
    fld = _DAY_OF_MONTH
    if match := _LAST_DAY.fullmatch(raw):
        offset = int(match[1] or 0)
        low = 0 if dialect == "quartz" else 1
        if match[1] is not None and not low <= offset <= 30:
            raise _Refusal(f"day-of-month '{raw}': offset {offset} is out of range {low}-30")
        if dialect == "spring" and match[1] is not None and match[2]:
            raise _Refusal(f"day-of-month '{raw}': Spring takes 'L', 'L-n' and 'LW', not 'L-nW'")
        return _MonthDays(
            days_of_month=frozenset(), last_day_offset=offset, nearest_weekday=bool(match[2])
        )
    if match := _NEAREST_WEEKDAY.fullmatch(raw):
        day = _number(fld, match[1], raw)
        return _MonthDays(
            days_of_month=frozenset({day}), last_day_offset=None, nearest_weekday=True
        )
    _refuse_specials_in_list(fld, raw, (_LAST_DAY, _NEAREST_WEEKDAY))
    plain = _parse_plain if dialect == "quartz" else _spring_plain
    return _MonthDays(days_of_month=plain(fld, raw), last_day_offset=None, nearest_weekday=False)


def _quartz_week_days(raw: str) -> _WeekDays:
    fld = _DAY_OF_WEEK
    if raw == "L":  # alone, Quartz's `L` in day-of-week is just 7, Saturday
        days, last, nth = frozenset({7}), False, None
    elif match := _LAST_WEEKDAY.fullmatch(raw):
        days, last, nth = frozenset({_value(fld, match[1], raw)}), True, None
    elif match := _NTH_WEEKDAY.fullmatch(raw):
        days, last, nth = frozenset({_value(fld, match[1], raw)}), False, _occurrence(raw, match[2])
    else:
        _refuse_specials_in_list(fld, raw, (re.compile("L"), _LAST_WEEKDAY, _NTH_WEEKDAY))
        days, last, nth = _parse_plain(fld, raw), False, None
    return _WeekDays(days_of_week=days, last_weekday=last, nth_weekday=nth)


def _occurrence(raw: str, digits: str) -> int:
    """k in `n#k`: no month has a sixth of any day of the week."""
    nth = int(digits)
    if not 1 <= nth <= 5:
        raise _Refusal(f"day-of-week '{raw}': occurrence {nth} after '#' is out of range 1-5")
    return nth


# -- parsing Spring ------------------------------------------------------------------------


def _parse_spring(text: str, parts: list[str]) -> Cron:
    common = _CommonFields(
        text=text,
        seconds=_spring_plain(_SECOND, parts[0]),
        minutes=_spring_plain(_MINUTE, parts[1]),
        hours=_spring_plain(_HOUR, parts[2]),
        months=_spring_plain(_MONTH, parts[4]),
        years=_all(_YEAR),
        dialect="spring",
    )
    month_days = _spring_month_days(parts[3])
    week_days = _spring_week_days(parts[5])
    # A day field that allows every day restricts nothing (Spring ANDs the two), so it is
    # stored the way Quartz's `?` is: `0 0 9 * * MON-FRI` is `0 0 9 ? * MON-FRI`.
    if week_days is None:
        days = month_days or _MonthDays(
            days_of_month=_all(_DAY_OF_MONTH), last_day_offset=None, nearest_weekday=False
        )
        return Cron(**common, **days, **_NO_WEEK_DAYS, day_field="day-of-month")
    if month_days is None:
        return Cron(**common, **_NO_MONTH_DAYS, **week_days, day_field="day-of-week")
    return Cron(**common, **month_days, **week_days, day_field="both")


def _spring_month_days(raw: str) -> _MonthDays | None:
    """The day-of-month field, or None when it allows every day."""
    days = _month_days(raw, "spring")
    if days["last_day_offset"] is None and days["days_of_month"] == _all(_DAY_OF_MONTH):
        return None
    return days


def _spring_week_days(raw: str) -> _WeekDays | None:
    """The day-of-week field in Quartz numbering, or None when it allows every day."""
    fld = _SPRING_DAY_OF_WEEK
    if match := _LAST_WEEKDAY.fullmatch(raw):
        day = _quartz_day(_value(fld, match[1], raw))
        return _WeekDays(days_of_week=frozenset({day}), last_weekday=True, nth_weekday=None)
    if match := _NTH_WEEKDAY.fullmatch(raw):
        day, nth = _quartz_day(_value(fld, match[1], raw)), _occurrence(raw, match[2])
        return _WeekDays(days_of_week=frozenset({day}), last_weekday=False, nth_weekday=nth)
    _refuse_specials_in_list(fld, raw, (_LAST_WEEKDAY, _NTH_WEEKDAY))
    days = frozenset(_quartz_day(day) for day in _spring_plain(fld, raw))
    if len(days) == 7:
        return None
    return _WeekDays(days_of_week=days, last_weekday=False, nth_weekday=None)


def _quartz_day(spring_day: int) -> int:
    """Spring's 0 or 7 = Sunday, 1 = Monday ... 6 = Saturday as Quartz's 1 = Sunday ... 7."""
    return spring_day % 7 + 1


def _spring_plain(fld: _Field, raw: str) -> frozenset[int]:
    values: set[int] = set()
    for item in raw.split(","):
        if not item:
            raise _Refusal(f"{fld.name} '{raw}': empty value in the list")
        values |= _spring_item(fld, item)
    return frozenset(values)


def _spring_item(fld: _Field, item: str) -> set[int]:
    match = _SPRING_ITEM.fullmatch(item)
    if match is None or (match[1] == "*" and match[2] is not None):
        raise _Refusal(_diagnose(fld, item, "spring"))
    first, last, increment = match.groups()
    step = _step(fld, increment, item) if increment is not None else 1
    if first == "*":
        start, end = _SPRING_WEEK if fld is _SPRING_DAY_OF_WEEK else (fld.low, fld.high)
    else:
        start = _spring_value(fld, first, item)
        if last is not None:
            end = _spring_value(fld, last, item)
            if fld is _SPRING_DAY_OF_WEEK and start == 7:
                start = 0  # Spring: Sunday starting a range is 0, so `SUN-SAT` is every day
        else:
            end = fld.high if increment is not None else start  # `a/n` runs to the field's end
    if end < start:
        raise _Refusal(f"{fld.name} '{item}': the range runs backwards (Spring does not wrap)")
    return set(range(start, end + 1, step))


def _spring_value(fld: _Field, token: str, item: str) -> int:
    if token.isdigit():
        return _number(fld, token, item)
    names = fld.names or {}
    if token not in names and any(special in token for special in "LW"):
        raise _Refusal(_diagnose(fld, item, "spring"))  # a misplaced `L`/`W`, not a bad name
    if fld.names is None:
        raise _Refusal(f"{fld.name} '{item}': names are only allowed in month and day-of-week")
    return _name(fld, token)


# -- parsing, both dialects ------------------------------------------------------------------


def _refuse_specials_in_list(fld: _Field, raw: str, specials: tuple[re.Pattern[str], ...]) -> None:
    # Quartz refuses `L` in a list and reads `15W,20` as `15W` and `6#3,2` as "third Monday".
    for item in raw.split(","):
        if any(pattern.fullmatch(item) for pattern in specials):
            raise _Refusal(f"{fld.name} '{raw}': '{item}' must be the whole field, not in a list")


def _parse_plain(fld: _Field, raw: str) -> frozenset[int]:
    values: set[int] = set()
    for item in raw.split(","):
        if not item:
            raise _Refusal(f"{fld.name} '{raw}': empty value in the list")
        values |= _parse_item(fld, item)
    return frozenset(values)


def _all(fld: _Field) -> frozenset[int]:
    return frozenset(range(fld.low, fld.high + 1))


def _parse_item(fld: _Field, item: str) -> set[int]:
    if item == "*":
        return set(_all(fld))
    if match := _STEP_FROM_START.fullmatch(item):
        return _expand(fld, item, fld.low, fld.high, _step(fld, match[1], item))
    if match := _NUMBERS.fullmatch(item):
        start = _number(fld, match[1], item)
        step = _step(fld, match[3], item) if match[3] is not None else 1
        if match[2] is not None:
            end = _number(fld, match[2], item)
        else:
            end = fld.high if match[3] is not None else start  # `a/n` runs to the field's end
        return _expand(fld, item, start, end, step)
    if fld.names is not None and (match := _NAMES.fullmatch(item)):
        start = _name(fld, match[1])
        end = _name(fld, match[2]) if match[2] is not None else start
        return _expand(fld, item, start, end, 1)
    raise _Refusal(_diagnose(fld, item))


def _expand(fld: _Field, item: str, start: int, end: int, step: int) -> set[int]:
    if end < start:
        if not fld.wraps:
            raise _Refusal(f"{fld.name} '{item}': the range runs backwards")
        # Quartz's overflowing range: `22-2` is 22, 23, 0, 1, 2, stepping across the wrap.
        end += fld.high - fld.low + 1
    size = fld.high - fld.low + 1
    return {value if value <= fld.high else value - size for value in range(start, end + 1, step)}


def _number(fld: _Field, digits: str, item: str) -> int:
    value = int(digits)
    if not fld.low <= value <= fld.high:
        where = "" if digits == item else f" in '{item}'"
        raise _Refusal(f"{fld.name} {value}{where} is out of range {fld.span()}")
    return value


def _step(fld: _Field, digits: str, item: str) -> int:
    step = int(digits)
    if not 1 <= step <= fld.max_step:
        raise _Refusal(f"{fld.name} '{item}': increment {step} is out of range 1-{fld.max_step}")
    return step


def _name(fld: _Field, name: str) -> int:
    assert fld.names is not None
    if name not in fld.names:
        first, *_, last = fld.names
        raise _Refusal(f"{fld.name}: unknown name '{name}' (expected {first}-{last})")
    return fld.names[name]


def _value(fld: _Field, text: str, item: str) -> int:
    """A number or a name, as before `L` or `#` in day-of-week."""
    return _number(fld, text, item) if text.isascii() and text.isdigit() else _name(fld, text)


def _diagnose(fld: _Field, item: str, dialect: Dialect = "quartz") -> str:
    """Why an item matched none of the forms its field takes."""
    day_fields = ("day-of-month", "day-of-week")
    prefix = f"{fld.name} '{item}'"
    if "?" in item:
        if fld.name in day_fields:
            return f"{prefix}: '?' must be the whole field"
        return f"{prefix}: '?' is only allowed in day-of-month and day-of-week"
    if "W" in item and fld.name != "day-of-month" and not _has_name(fld, item):
        return f"{prefix}: 'W' (nearest weekday) is only allowed in day-of-month"
    if "#" in item and fld.name != "day-of-week":
        return f"{prefix}: '#' (n-th day of the week) is only allowed in day-of-week"
    if "L" in item and fld.name not in day_fields and not _has_name(fld, item):
        return f"{prefix}: 'L' (last) is only allowed in day-of-month and day-of-week"
    if fld.name == "day-of-month" and "L" in item:
        forms = "'L', 'L-n', 'LW' or 'L-nW'" if dialect == "quartz" else "'L', 'L-n' or 'LW'"
        return f"{prefix}: 'L' in day-of-month must be written {forms}"
    if fld.name == "day-of-month" and "W" in item:
        return f"{prefix}: 'W' must follow a single day, as in '15W', or 'L', as in 'LW'"
    if fld.name == "day-of-week" and "#" in item:
        return f"{prefix}: '#' must be written 'n#k', the k-th day n of the month"
    if fld.name == "day-of-week" and "L" in item and not _has_name(fld, item):
        if dialect == "spring":
            return f"{prefix}: 'L' in day-of-week must follow a day, as in '5L' (the last Friday)"
        return f"{prefix}: 'L' in day-of-week must be 'L' (Saturday) or 'nL' (the last day n)"
    if dialect == "spring" and item.startswith("/"):
        return f"{prefix}: an increment needs a start, as in '*{item}' or '0{item}'"
    if fld.names is not None and re.fullmatch(r"[A-Z]+(?:-[A-Z]+)?/[0-9]+", item):
        return f"{prefix}: an increment cannot follow a name (Quartz would ignore it); use numbers"
    if fld.names is None and _NAMES.fullmatch(item):
        return f"{prefix}: names are only allowed in month and day-of-week"
    return f"{prefix}: not a value, range, list or increment this field takes"


def _has_name(fld: _Field, item: str) -> bool:
    return fld.names is not None and any(name in item for name in fld.names)
