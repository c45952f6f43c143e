"""FEEL's equality, ordering and arithmetic over internal values (DMN 1.3 §10.3.2.*).

Pure: no I/O. Every operator answers None (FEEL null) for null operands and for type
mismatches, as Camunda 7 turns feel-scala's failures into null.
"""

from __future__ import annotations

import decimal
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Final

from .values import DECIMAL_CONTEXT, Range, YearsMonthsDuration, check_string, kind_of

__all__ = [
    "DECIMAL_CONTEXT",
    "add",
    "compare",
    "divide",
    "equal",
    "in_range",
    "less_than",
    "multiply",
    "negate",
    "power",
    "subtract",
]

_MICROSECOND: Final = timedelta(microseconds=1)
_ORDERED: Final = frozenset(
    {
        "number",
        "string",
        "date",
        "time",
        "date and time",
        "days and time duration",
        "years and months duration",
    }
)


# Types whose FEEL equality is Python's between two values of the same type.
_PLAIN = frozenset({str, Decimal, bool})


def equal(left: object, right: object) -> bool | None:
    """FEEL ``=``: null equals only null; values of different types are not comparable."""
    if left is None or right is None:
        return left is None and right is None
    if type(left) is type(right) and type(left) in _PLAIN:
        return left == right  # the common case of a decision table: a string or number entry
    kind = kind_of(left)
    if kind != kind_of(right):
        return None
    if kind == "list":
        assert isinstance(left, list) and isinstance(right, list)
        if len(left) != len(right):
            return False
        return _all_equal(zip(left, right, strict=True))
    if kind == "context":
        assert isinstance(left, dict) and isinstance(right, dict)
        if left.keys() != right.keys():
            return False
        return _all_equal((left[key], right[key]) for key in left)
    if kind in ("date and time", "time") and _awareness_differs(left, right):
        return None
    if kind == "time":
        # Like Java's OffsetTime.equals: 10:00+01:00 is not 11:00+02:00 (feel-scala agrees).
        assert isinstance(left, time) and isinstance(right, time)
        return left.replace(tzinfo=None) == right.replace(tzinfo=None) and (
            left.utcoffset() == right.utcoffset()
        )
    return left == right


def _all_equal(pairs: object) -> bool | None:
    assert hasattr(pairs, "__iter__")
    for a, b in pairs:
        result = equal(a, b)
        if result is not True:
            return result
    return True


def _awareness_differs(left: object, right: object) -> bool:
    assert isinstance(left, (datetime, time)) and isinstance(right, (datetime, time))
    return (left.utcoffset() is None) != (right.utcoffset() is None)


def compare(left: object, right: object) -> int | None:
    """-1, 0 or 1 for two values of one ordered FEEL type; None otherwise."""
    if left is None or right is None:
        return None
    kind = kind_of(left)
    if kind != kind_of(right) or kind not in _ORDERED:
        return None
    if kind in ("date and time", "time") and _awareness_differs(left, right):
        return None
    a: object = left
    b: object = right
    if kind == "time" and left.utcoffset() is not None:  # type: ignore[attr-defined]
        # Python refuses to order aware times with different offsets; compare in UTC.
        a, b = _time_in_utc(left), _time_in_utc(right)
    if a == b:
        return 0
    return -1 if a < b else 1  # type: ignore[operator]


def _time_in_utc(value: object) -> timedelta:
    assert isinstance(value, time)
    offset = value.utcoffset() or timedelta(0)
    return timedelta(hours=value.hour, minutes=value.minute, seconds=value.second,
                     microseconds=value.microsecond) - offset  # fmt: skip


def less_than(left: object, right: object, *, or_equal: bool) -> bool | None:
    order = compare(left, right)
    if order is None:
        return None
    return order < 0 or (or_equal and order == 0)


def in_range(value: object, bounds: Range) -> bool | None:
    """Whether ``value`` lies in ``bounds``; None when an end is not comparable with it."""
    result: bool | None = True
    if bounds.start is not None:
        order = compare(bounds.start, value)
        if order is None:
            return None
        result = order < 0 or (bounds.start_included and order == 0)
    if result and bounds.end is not None:
        order = compare(value, bounds.end)
        if order is None:
            return None
        result = order < 0 or (bounds.end_included and order == 0)
    return result


def _number(operation: str, left: Decimal, right: Decimal) -> Decimal | None:
    try:
        if operation == "+":
            return DECIMAL_CONTEXT.add(left, right)
        if operation == "-":
            return DECIMAL_CONTEXT.subtract(left, right)
        if operation == "*":
            return DECIMAL_CONTEXT.multiply(left, right)
        if operation == "/":
            return DECIMAL_CONTEXT.divide(left, right)
        return DECIMAL_CONTEXT.power(left, right)
    except (decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow):
        return None


def negate(value: object) -> object:
    if isinstance(value, Decimal):
        return DECIMAL_CONTEXT.minus(value)
    if isinstance(value, timedelta):
        return -value
    if isinstance(value, YearsMonthsDuration):
        return YearsMonthsDuration(-value.months)
    return None


def _add_months(moment: date, months: int) -> date:
    """Calendar month arithmetic; the day is clamped to the month's end (Jan 31 + 1M = Feb 29)."""
    total = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(total, 12)
    if not 1 <= year <= 9999:
        raise OverflowError("year out of range")
    following = date(year + (month == 11), (month + 1) % 12 + 1, 1)
    last_day = (following - timedelta(days=1)).day
    return moment.replace(year=year, month=month + 1, day=min(moment.day, last_day))


def add(left: object, right: object) -> object:
    try:
        return _add(left, right)
    except (OverflowError, ValueError):
        return None


def _add(left: object, right: object) -> object:
    kinds = (kind_of(left), kind_of(right))
    if kinds == ("number", "number"):
        assert isinstance(left, Decimal) and isinstance(right, Decimal)
        return _number("+", left, right)
    if kinds == ("string", "string"):
        assert isinstance(left, str) and isinstance(right, str)
        return check_string(left + right)
    if kinds[0] in ("days and time duration", "years and months duration") and kinds[1] in (
        "date",
        "date and time",
        "time",
    ):
        return _add(right, left)
    if kinds == ("days and time duration", "days and time duration"):
        assert isinstance(left, timedelta) and isinstance(right, timedelta)
        return left + right
    if kinds == ("years and months duration", "years and months duration"):
        assert isinstance(left, YearsMonthsDuration) and isinstance(right, YearsMonthsDuration)
        return YearsMonthsDuration(left.months + right.months)
    if kinds[1] == "days and time duration":
        assert isinstance(right, timedelta)
        if kinds[0] == "date and time":
            assert isinstance(left, datetime)
            return left + right
        if kinds[0] == "date":
            assert isinstance(left, date)
            # feel-scala moves a date by the duration from midnight and keeps the date.
            return (datetime(left.year, left.month, left.day) + right).date()
        if kinds[0] == "time":
            assert isinstance(left, time)
            moved = datetime(2000, 1, 1, left.hour, left.minute, left.second,
                             left.microsecond) + right  # fmt: skip
            return moved.time().replace(tzinfo=left.tzinfo)
    if kinds[1] == "years and months duration" and kinds[0] in ("date", "date and time"):
        assert isinstance(left, date) and isinstance(right, YearsMonthsDuration)
        return _add_months(left, right.months)
    return None


def subtract(left: object, right: object) -> object:
    kinds = (kind_of(left), kind_of(right))
    try:
        if kinds == ("number", "number"):
            assert isinstance(left, Decimal) and isinstance(right, Decimal)
            return _number("-", left, right)
        if kinds in (("date and time", "date and time"), ("date", "date")):
            assert isinstance(left, date) and isinstance(right, date)
            if isinstance(left, datetime) and _awareness_differs(left, right):
                return None
            return left - right
        if kinds == ("time", "time"):
            if _awareness_differs(left, right):
                return None
            return _time_in_utc(left) - _time_in_utc(right)
        if kinds[1] in ("days and time duration", "years and months duration") and kinds[0] in (
            "date",
            "date and time",
            "time",
            kinds[1],
        ):
            return _add(left, negate(right))
    except (OverflowError, ValueError):
        return None
    return None


def _scale(duration: timedelta, factor: Decimal) -> timedelta | None:
    micros = Decimal(duration // _MICROSECOND)
    try:
        scaled = DECIMAL_CONTEXT.multiply(micros, factor).to_integral_value()
        return timedelta(microseconds=int(scaled))
    except (decimal.InvalidOperation, decimal.Overflow, OverflowError):
        return None


def multiply(left: object, right: object) -> object:
    if isinstance(right, timedelta | YearsMonthsDuration) and isinstance(left, Decimal):
        left, right = right, left
    if not isinstance(right, Decimal) or isinstance(right, bool):
        return None
    if isinstance(left, Decimal):
        return _number("*", left, right)
    if isinstance(left, timedelta):
        return _scale(left, right)
    if isinstance(left, YearsMonthsDuration):
        product = _number("*", Decimal(left.months), right)
        return None if product is None else YearsMonthsDuration(int(product))
    return None


def divide(left: object, right: object) -> object:
    if isinstance(right, Decimal):
        if isinstance(left, Decimal):
            return _number("/", left, right)
        if right == 0:
            return None
        if isinstance(left, timedelta):
            return _scale(left, _number("/", Decimal(1), right) or Decimal(0))
        if isinstance(left, YearsMonthsDuration):
            quotient = _number("/", Decimal(left.months), right)
            return None if quotient is None else YearsMonthsDuration(int(quotient))
        return None
    if isinstance(left, timedelta) and isinstance(right, timedelta):
        return _number("/", Decimal(left // _MICROSECOND), Decimal(right // _MICROSECOND))
    if isinstance(left, YearsMonthsDuration) and isinstance(right, YearsMonthsDuration):
        return _number("/", Decimal(left.months), Decimal(right.months))
    return None


def power(left: object, right: object) -> object:
    if isinstance(left, Decimal) and isinstance(right, Decimal):
        # A huge exponent would take ages even when the result overflows; refuse early.
        if abs(right) > 100_000:
            return None
        return _number("**", left, right)
    return None
