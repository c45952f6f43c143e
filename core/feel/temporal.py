"""Reading FEEL temporal strings: dates, times, dates and times, durations (DMN 1.3 §10.3.4.1).

Pure: no I/O. Each reader returns None for text it does not accept, as feel-scala's
conversion functions fail (and Camunda 7 gives null) on bad input.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from decimal import Decimal
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .values import YearsMonthsDuration

__all__ = ["parse_date", "parse_date_time", "parse_duration", "parse_temporal", "parse_time"]

_DATE: Final = re.compile(r"(-?\d{4,9})-(\d{2})-(\d{2})")
_TIME: Final = re.compile(
    r"(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
    r"(?:(Z)|([+-]\d{2}:\d{2})|@([A-Za-z][A-Za-z0-9_+\-/]*))?"
)
_DAY_TIME: Final = re.compile(
    r"(-)?P(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,9})?)S)?)?"
)
_YEAR_MONTH: Final = re.compile(r"(-)?P(?=\d)(?:(\d+)Y)?(?:(\d+)M)?")


def parse_date(text: str) -> date | None:
    match = _DATE.fullmatch(text)
    if not match:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def _zone(match: re.Match[str]) -> tzinfo | None:
    """The zone of a time match; ValueError if it names no known zone or offset."""
    if match[5]:
        return UTC
    if match[6]:
        sign = -1 if match[6][0] == "-" else 1
        hours, minutes = int(match[6][1:3]), int(match[6][4:6])
        if hours > 18 or minutes > 59:
            raise ValueError(f"offset out of range: {match[6]}")
        return timezone(sign * timedelta(hours=hours, minutes=minutes))
    if match[7]:
        try:
            return ZoneInfo(match[7])
        except ZoneInfoNotFoundError as unknown:
            raise ValueError(f"unknown time zone: {match[7]}") from unknown
    return None


def parse_time(text: str) -> time | None:
    match = _TIME.fullmatch(text)
    if not match:
        return None
    micros = int((match[4] or "0").ljust(6, "0")[:6])
    try:
        zone = _zone(match)
        return time(int(match[1]), int(match[2]), int(match[3] or 0), micros,
                    tzinfo=zone)  # fmt: skip
    except ValueError:
        return None


def parse_date_time(text: str) -> datetime | None:
    day_text, separator, time_text = text.partition("T")
    day = parse_date(day_text)
    if day is None:
        return None
    if not separator:
        # feel-scala accepts a bare date as the start of that day.
        return datetime(day.year, day.month, day.day)
    moment = parse_time(time_text)
    if moment is None:
        return None
    return datetime.combine(day, moment)


def parse_duration(text: str) -> timedelta | YearsMonthsDuration | None:
    match = _YEAR_MONTH.fullmatch(text)
    if match and text.rstrip("-P"):
        months = int(match[2] or 0) * 12 + int(match[3] or 0)
        return YearsMonthsDuration(-months if match[1] else months)
    match = _DAY_TIME.fullmatch(text)
    if not match or not any(match.group(2, 3, 4, 5)):
        return None
    try:
        seconds = Decimal(match[5] or 0)
        duration = timedelta(
            days=int(match[2] or 0),
            hours=int(match[3] or 0),
            minutes=int(match[4] or 0),
            seconds=int(seconds),
            microseconds=int((seconds % 1) * 1_000_000),
        )
    except OverflowError:
        return None
    return -duration if match[1] else duration


def parse_temporal(text: str) -> object:
    """The value of an ``@"..."`` literal: whichever temporal type the text spells."""
    if text.startswith(("P", "-P")):
        return parse_duration(text)
    if "T" in text:
        return parse_date_time(text)
    if _DATE.fullmatch(text):
        return parse_date(text)
    return parse_time(text)
