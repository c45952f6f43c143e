"""The EL value model (``Long``) and the EL 2.2 type coercions (spec section 1.18).

Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from enum import Enum
from typing import Final

from .errors import ExpressionEvaluationError

__all__ = [
    "NUMBER_TYPES",
    "Long",
    "describe",
    "is_number",
    "java_double_str",
    "to_bool",
    "to_int",
    "to_number",
    "to_str",
    "type_name",
]


class Long(int):
    """A JUEL/Java ``Long``: integer literals and integer arithmetic results have this type."""

    __slots__ = ()


# Exact types for the evaluator's fast paths; bool is deliberately absent (it is an int subclass).
NUMBER_TYPES: Final = frozenset({int, Long, float})

LONG_TEXT: Final = re.compile(r"[+-]?[0-9]+\Z")
_DOUBLE_TEXT: Final = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
# Java's Double.valueOf trims every char <= ' ' (String.trim semantics).
JAVA_WHITESPACE: Final = "".join(chr(c) for c in range(33))


def type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def describe(value: object) -> str:
    """Short rendering of a value for error messages; never calls user ``__repr__``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    if isinstance(value, (int, float)) and not isinstance(value, Enum):
        return to_str(value)
    return f"a value of type {type(value).__name__}"


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _parse_number(text: str) -> int | float:
    if LONG_TEXT.match(text):
        try:
            return Long(text)
        except ValueError:  # more digits than Python's int/str conversion limit
            pass
    elif ("." in text or "e" in text or "E" in text) and _DOUBLE_TEXT.match(
        text.strip(JAVA_WHITESPACE)
    ):
        return float(text)
    raise ExpressionEvaluationError(f"Cannot coerce {describe(text)} to a number")


def to_number(value: object) -> int | float:
    """EL coercion to a number: null is 0, strings are parsed, booleans are refused."""
    if value is None:
        return Long(0)
    if isinstance(value, bool):
        raise ExpressionEvaluationError(f"Cannot coerce {describe(value)} to a number")
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        return _parse_number(value)
    raise ExpressionEvaluationError(f"Cannot coerce {describe(value)} to a number")


def to_int(value: object) -> int:
    """EL coercion to a Java int/long parameter (floats truncate, like Java's intValue)."""
    number = to_number(value)
    if isinstance(number, float):
        if not math.isfinite(number):
            raise ExpressionEvaluationError(f"Cannot coerce {describe(value)} to an integer")
        return int(number)
    return number


def to_bool(value: object) -> bool:
    """EL coercion to boolean: null is false, strings are true iff equal to 'true' ignoring case."""
    if value is True:
        return True
    if value is False or value is None:
        return False
    if isinstance(value, str):
        return value.lower() == "true"
    raise ExpressionEvaluationError(f"Cannot coerce {describe(value)} to a boolean")


def java_double_str(value: float) -> str:
    """Render a float like Java's ``Double.toString`` (1.0, 1.0E10, NaN, Infinity)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    magnitude = abs(value)
    if magnitude == 0.0 or 1e-3 <= magnitude < 1e7:
        # Python's repr is positional and shortest in this range, which is what Java prints.
        return repr(value)
    sign = "-" if value < 0 else ""
    digits_tuple = Decimal(repr(magnitude)).normalize().as_tuple()
    digits = "".join(map(str, digits_tuple.digits))
    exponent = int(digits_tuple.exponent) + len(digits) - 1
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def to_str(value: object) -> str:
    """EL coercion to String (null is the empty string), as used for composite text."""
    if type(value) is str:
        return value
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Enum):
        # Java coerces an enum to its name(); checked before str/int so str/int enums agree.
        return value.name
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        try:
            return int.__repr__(value)
        except ValueError:  # more digits than Python's int/str conversion limit
            raise ExpressionEvaluationError(
                f"Number of {value.bit_length():,} bits has too many digits to become text"
            ) from None
    if isinstance(value, float):
        return java_double_str(value)
    return str(value)
