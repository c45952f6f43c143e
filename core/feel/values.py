"""FEEL value types that Python lacks (years-and-months durations, ranges) and the
conversion of values between Python callers and the evaluator.

Pure: no I/O. Inside the evaluator every number is a ``decimal.Decimal``.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Final

from .errors import FeelEvaluationError

__all__ = [
    "DECIMAL_CONTEXT",
    "MAX_LIST_LENGTH",
    "MAX_STRING_LENGTH",
    "FeelFunction",
    "Range",
    "YearsMonthsDuration",
    "check_list",
    "check_string",
    "from_python",
    "kind_of",
    "to_python",
]

# feel-scala computes with Java's MathContext.DECIMAL128: 34 significant digits. The
# exponent bound keeps `10 ** 999999999` from building an enormous number.
DECIMAL_CONTEXT: Final = decimal.Context(
    prec=34,
    rounding=decimal.ROUND_HALF_EVEN,
    Emax=6144,
    Emin=-6143,
    traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow],
)
MAX_STRING_LENGTH: Final = 1_000_000
MAX_LIST_LENGTH: Final = 100_000


@dataclass(frozen=True, slots=True, order=True)
class YearsMonthsDuration:
    """A FEEL years-and-months duration, counted in months (may be negative)."""

    months: int

    @property
    def years(self) -> int:
        return int(self.months / 12)

    @property
    def month_part(self) -> int:
        return self.months - self.years * 12

    def __str__(self) -> str:
        if self.months == 0:
            return "P0M"
        sign = "-" if self.months < 0 else ""
        years, months = divmod(abs(self.months), 12)
        body = (f"{years}Y" if years else "") + (f"{months}M" if months else "")
        return f"{sign}P{body}"


@dataclass(frozen=True, slots=True)
class Range:
    """A FEEL range such as ``[1..10)``; an end may be None (unbounded, from ``< 10``)."""

    start: object
    end: object
    start_included: bool
    end_included: bool


@dataclass(frozen=True, slots=True)
class FeelFunction:
    """A function value (a ``function(a, b) ...`` literal), callable with positional arguments."""

    parameters: tuple[str, ...]
    invoke: Callable[[list[object]], object]


# FEEL type names, as `instance of` spells them.
_KIND_BY_TYPE: Final[dict[type, str]] = {
    bool: "boolean",
    Decimal: "number",
    str: "string",
    datetime: "date and time",
    date: "date",
    time: "time",
    timedelta: "days and time duration",
    YearsMonthsDuration: "years and months duration",
    list: "list",
    dict: "context",
    Range: "range",
    FeelFunction: "function",
}


def kind_of(value: object) -> str:
    """The FEEL type name of an internal value ('null' for None)."""
    if value is None:
        return "null"
    # Exact type first: datetime is a subclass of date and bool of int.
    kind = _KIND_BY_TYPE.get(type(value))
    if kind is not None:
        return kind
    for python_type, name in _KIND_BY_TYPE.items():
        if isinstance(value, python_type):
            return name
    return "unknown"


def check_string(value: str) -> str:
    if len(value) > MAX_STRING_LENGTH:
        raise FeelEvaluationError(
            f"string result longer than {MAX_STRING_LENGTH:,} characters refused"
        )
    return value


def check_list(value: list[object]) -> list[object]:
    if len(value) > MAX_LIST_LENGTH:
        raise FeelEvaluationError(f"list longer than {MAX_LIST_LENGTH:,} elements refused")
    return value


def from_python(value: object) -> object:
    """Convert a caller's value to the evaluator's form (numbers become Decimal)."""
    if value is None or isinstance(value, (bool, str, Decimal, date, time, timedelta)):
        if isinstance(value, str):
            check_string(value)
        if isinstance(value, Decimal) and not value.is_finite():
            return None
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        # repr gives the shortest text that round-trips, so 0.1 stays 0.1.
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, (YearsMonthsDuration, Range, FeelFunction)):
        return value
    if isinstance(value, Mapping):
        return {str(key): from_python(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return check_list([from_python(item) for item in value])
    raise FeelEvaluationError(f"a value of Python type {type(value).__name__} cannot enter FEEL")


def to_python(value: object) -> object:
    """Convert an evaluator result for the caller: integral numbers become int."""
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return int(value)
        return value.normalize(DECIMAL_CONTEXT)
    if isinstance(value, list):
        return [to_python(item) for item in value]
    if isinstance(value, dict):
        return {key: to_python(item) for key, item in value.items()}
    return value
