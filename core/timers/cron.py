"""Quartz cron expressions as Camunda 7 evaluates them in `timeCycle` values.

Camunda 7 hands every `timeCycle` that does not start with `R` to
`org.camunda.bpm.engine.impl.calendar.CronExpression`, its copy of Quartz's `CronExpression`.
This module reads the same language and gives the same fire times:

    seconds minutes hours day-of-month month day-of-week [year]

with `*`, `?`, lists `a,b`, ranges `a-b` (a reversed range wraps: hours `22-2`), increments
`a/n`, `*/n`, `/n`, `a-b/n`, month and day names (case-insensitive), and the day specials
`L`, `L-n`, `nW`, `LW`, `L-nW` (day-of-month) and `L`, `nL`, `n#k` (day-of-week).

Days of the week are numbered the Quartz way: 1 = SUNDAY, 2 = MONDAY ... 7 = SATURDAY,
not Unix cron's 0/7 = Sunday, 1 = Monday. Exactly one of day-of-month and day-of-week must be
`?`, as in Quartz (`0 0 12 * * MON` is refused there too).

Where Quartz accepts text it then ignores (`MON-FRI/2` as `MON-FRI`, `15W,20` as `15W`,
`*/0` as `*`) or that breaks its own evaluation, this module refuses with a CronError instead
of guessing; the docstrings of `parse_cron` and `Cron.next_after` list those cases.

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

__all__ = ["MAX_YEAR", "MIN_YEAR", "Cron", "CronError", "parse_cron"]

# Quartz documents years 1970-2199. (Camunda's copy stops searching at the current year + 100,
# which would make the answer depend on the clock; the documented bound does not.)
MIN_YEAR = 1970
MAX_YEAR = 2199

_FIELDS_HINT = "seconds minutes hours day-of-month month day-of-week [year]"
_ONE_SECOND = timedelta(seconds=1)
_SATURDAY = 5  # date.weekday()
_SUNDAY = 6

DayField = Literal["day-of-month", "day-of-week"]


class _CommonFields(TypedDict):
    text: str
    seconds: frozenset[int]
    minutes: frozenset[int]
    hours: frozenset[int]
    months: frozenset[int]
    years: frozenset[int]


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

    def span(self) -> str:
        hint = " (1 = SUN ... 7 = SAT)" if self.name == "day-of-week" else ""
        return f"{self.low}-{self.high}{hint}"


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
_DAY_OF_WEEK = _Field("day-of-week", 1, 7, 7, names=_DAY_NAMES)
_YEAR = _Field("year", MIN_YEAR, MAX_YEAR, MAX_YEAR - MIN_YEAR, wraps=False)

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


@dataclass(frozen=True)
class Cron:
    """A parsed cron expression; build it with `parse_cron`.

    Each plain field is the frozenset of the values it allows. Of the two day fields the one in
    force is `day_field`; the other was `?` and its set is empty. Day-of-week values use
    Quartz's numbering, 1 = Sunday ... 7 = Saturday.
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
        """The days of the month that match the day field in force, in order."""
        last = calendar.monthrange(year, month)[1]
        if self.day_field == "day-of-month":
            if self.last_day_offset is not None:
                day = last - self.last_day_offset
                if self.nearest_weekday:
                    return _just(_nearest_weekday(year, month, day, last))
                return (day,) if day >= 1 else ()
            if self.nearest_weekday:
                (day,) = self._days_of_month
                if quartz_skips and day > last:
                    return ()
                return _just(_nearest_weekday(year, month, day, last))
            return tuple(day for day in self._days_of_month if day <= last)
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
        if self.day_field != "day-of-month" or not self.nearest_weekday:
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
    """Parse or raise CronError.

    Refused although Quartz accepts it (it would ignore part of the text, or misbehave):
    more than 7 fields, trailing text after a value (`5X`, `MONDAY`, `?X`), an increment
    after a name (`MON-FRI/2`), names mixed with numbers in a range (`MON-5`, Quartz refuses
    it too), an increment of 0 or larger than the field (`0/0`, `0/75`), `?` or a day special
    inside a list (`15W,20`, `6#3,2`), `W` after a range, values out of range in `nW`/`n#k`,
    empty list items (`1,,2`), and years outside 1970-2199.
    """
    try:
        return _parse(text)
    except _Refusal as refusal:
        raise CronError(f"cron expression '{text}': {refusal}") from None


def _parse(text: str) -> Cron:
    # Quartz separates fields by spaces and tabs; other whitespace only around the whole text,
    # where XML indentation puts it, is let go.
    stripped = text.strip().upper()
    parts = _FIELD_SEPARATOR.split(stripped) if stripped else []
    if len(parts) not in (6, 7):
        raise _Refusal(f"expected 6 or 7 fields ({_FIELDS_HINT}), got {len(parts)}")
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
        text=text, seconds=seconds, minutes=minutes, hours=hours, months=months, years=years
    )
    if dow_text == "?":
        return _day_of_month_cron(dom_text, common)
    return _day_of_week_cron(dow_text, common)


def _day_of_month_cron(raw: str, common: _CommonFields) -> Cron:
    fld = _DAY_OF_MONTH
    if match := _LAST_DAY.fullmatch(raw):
        offset = int(match[1] or 0)
        if offset > 30:
            raise _Refusal(f"day-of-month '{raw}': offset {offset} is out of range 0-30")
        return Cron(
            **common,
            days_of_month=frozenset(),
            days_of_week=frozenset(),
            day_field="day-of-month",
            last_day_offset=offset,
            nearest_weekday=bool(match[2]),
        )
    if match := _NEAREST_WEEKDAY.fullmatch(raw):
        day = _number(fld, match[1], raw)
        return Cron(
            **common,
            days_of_month=frozenset({day}),
            days_of_week=frozenset(),
            day_field="day-of-month",
            nearest_weekday=True,
        )
    _refuse_specials_in_list(fld, raw, (_LAST_DAY, _NEAREST_WEEKDAY))
    return Cron(
        **common,
        days_of_month=_parse_plain(fld, raw),
        days_of_week=frozenset(),
        day_field="day-of-month",
    )


def _day_of_week_cron(raw: str, common: _CommonFields) -> Cron:
    fld = _DAY_OF_WEEK
    if raw == "L":  # alone, Quartz's `L` in day-of-week is just 7, Saturday
        days, last, nth = frozenset({7}), False, None
    elif match := _LAST_WEEKDAY.fullmatch(raw):
        days, last, nth = frozenset({_value(fld, match[1], raw)}), True, None
    elif match := _NTH_WEEKDAY.fullmatch(raw):
        days, last = frozenset({_value(fld, match[1], raw)}), False
        nth = int(match[2])
        if not 1 <= nth <= 5:
            raise _Refusal(f"day-of-week '{raw}': occurrence {nth} after '#' is out of range 1-5")
    else:
        _refuse_specials_in_list(fld, raw, (re.compile("L"), _LAST_WEEKDAY, _NTH_WEEKDAY))
        days, last, nth = _parse_plain(fld, raw), False, None
    return Cron(
        **common,
        days_of_month=frozenset(),
        days_of_week=days,
        day_field="day-of-week",
        last_weekday=last,
        nth_weekday=nth,
    )


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


def _diagnose(fld: _Field, item: str) -> str:
    """Why an item matched none of the forms its field takes."""
    day_fields = (_DAY_OF_MONTH, _DAY_OF_WEEK)
    prefix = f"{fld.name} '{item}'"
    if "?" in item:
        if fld in day_fields:
            return f"{prefix}: '?' must be the whole field"
        return f"{prefix}: '?' is only allowed in day-of-month and day-of-week"
    if "W" in item and fld is not _DAY_OF_MONTH and not _has_name(fld, item):
        return f"{prefix}: 'W' (nearest weekday) is only allowed in day-of-month"
    if "#" in item and fld is not _DAY_OF_WEEK:
        return f"{prefix}: '#' (n-th day of the week) is only allowed in day-of-week"
    if "L" in item and fld not in day_fields and not _has_name(fld, item):
        return f"{prefix}: 'L' (last) is only allowed in day-of-month and day-of-week"
    if fld is _DAY_OF_MONTH and "L" in item:
        return f"{prefix}: 'L' in day-of-month must be written 'L', 'L-n', 'LW' or 'L-nW'"
    if fld is _DAY_OF_MONTH and "W" in item:
        return f"{prefix}: 'W' must follow a single day, as in '15W', or 'L', as in 'LW'"
    if fld is _DAY_OF_WEEK and "#" in item:
        return f"{prefix}: '#' must be written 'n#k', the k-th day n of the month"
    if fld is _DAY_OF_WEEK and "L" in item and not _has_name(fld, item):
        return f"{prefix}: 'L' in day-of-week must be 'L' (Saturday) or 'nL' (the last day n)"
    if fld.names is not None and re.fullmatch(r"[A-Z]+(?:-[A-Z]+)?/[0-9]+", item):
        return f"{prefix}: an increment cannot follow a name (Quartz would ignore it); use numbers"
    if fld.names is None and _NAMES.fullmatch(item):
        return f"{prefix}: names are only allowed in month and day-of-week"
    return f"{prefix}: not a value, range, list or increment this field takes"


def _has_name(fld: _Field, item: str) -> bool:
    return fld.names is not None and any(name in item for name in fld.names)
