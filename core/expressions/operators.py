"""EL 2.2 operators (arithmetic, relational, equality, ``empty``) applied to evaluated values.

Pure: no I/O.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Collection
from datetime import date, time, timedelta
from enum import Enum
from typing import Any, Final

from .coercion import NUMBER_TYPES, Long, describe, is_number, to_bool, to_number, to_str
from .errors import ExpressionEvaluationError

__all__ = [
    "add",
    "div",
    "eq",
    "ge",
    "gt",
    "is_empty",
    "le",
    "lt",
    "mod",
    "mul",
    "ne",
    "neg",
    "sub",
]

# The public operator functions take ``Any``: they are the evaluator's hot path and check exact
# runtime types themselves, so static narrowing would only cost runtime casts.

_INT_TYPES: Final = frozenset({int, Long})
# Orderable like java.lang.Comparable dates/durations; datetime is a subclass of date.
_TEMPORAL_TYPES: Final = (date, time, timedelta)

_Arith = Callable[[Any, Any], Any]


def _to_double(value: int | float) -> float:
    try:
        return float(value)
    except OverflowError:
        raise ExpressionEvaluationError(f"Number {describe(value)} is too large") from None


def _arithmetic(a: object, b: object, op: _Arith) -> object:
    if a is None and b is None:
        return Long(0)
    x = to_number(a)
    y = to_number(b)
    if isinstance(x, float) or isinstance(y, float):
        return op(_to_double(x), _to_double(y))
    return Long(op(x, y))


def add(a: Any, b: Any) -> object:
    if type(a) in _INT_TYPES and type(b) in _INT_TYPES:
        return Long(a + b)
    if type(a) is float and type(b) is float:
        return a + b
    try:
        return _arithmetic(a, b, operator.add)
    except ExpressionEvaluationError as exc:
        if isinstance(a, str) or isinstance(b, str):
            # People coming from Java/JS expect '+' to concatenate; say how EL does it instead.
            raise ExpressionEvaluationError(
                f"{exc.reason} ('+' is numeric only in EL; concatenate with composite text "
                "such as '${a}${b}')"
            ) from None
        raise


def sub(a: Any, b: Any) -> object:
    if type(a) in _INT_TYPES and type(b) in _INT_TYPES:
        return Long(a - b)
    if type(a) is float and type(b) is float:
        return a - b
    return _arithmetic(a, b, operator.sub)


def mul(a: Any, b: Any) -> object:
    if type(a) in _INT_TYPES and type(b) in _INT_TYPES:
        return Long(a * b)
    if type(a) is float and type(b) is float:
        return a * b
    return _arithmetic(a, b, operator.mul)


def div(a: Any, b: Any) -> object:
    """``/`` and ``div``: always Double division, with Java's inf/NaN instead of exceptions."""
    if a is None and b is None:
        return Long(0)
    x = _to_double(to_number(a))
    y = _to_double(to_number(b))
    if y == 0.0:
        if x == 0.0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y


def _java_remainder(x: int, y: int) -> int:
    # Java's % truncates toward zero, so the sign follows the dividend (Python's follows divisor).
    remainder = abs(x) % abs(y)
    return -remainder if x < 0 else remainder


def mod(a: Any, b: Any) -> object:
    """``%`` and ``mod``: Long remainder for integers (error on zero), fmod for doubles."""
    if type(a) in _INT_TYPES and type(b) in _INT_TYPES and b != 0:
        return Long(_java_remainder(a, b))
    if a is None and b is None:
        return Long(0)
    x = to_number(a)
    y = to_number(b)
    if isinstance(x, float) or isinstance(y, float):
        try:
            return math.fmod(_to_double(x), _to_double(y))
        except ValueError:  # fmod(x, 0.0) and fmod(inf, y): Java yields NaN
            return math.nan
    if y == 0:
        raise ExpressionEvaluationError("Division by zero in modulo operation")
    return Long(_java_remainder(x, y))


def neg(a: Any) -> object:
    if type(a) in _INT_TYPES:
        return Long(-a)
    if type(a) is float:
        return -a
    number = to_number(a)
    return -number if isinstance(number, float) else Long(-number)


def _relational(a: object, b: object, op: Callable[[Any, Any], bool], symbol: str) -> bool:
    if a is None or b is None:
        return False
    if is_number(a) or is_number(b):
        return op(to_number(a), to_number(b))
    if isinstance(a, str) and isinstance(b, str):
        return op(a, b)
    if isinstance(a, _TEMPORAL_TYPES) and isinstance(b, _TEMPORAL_TYPES):
        try:
            return bool(op(a, b))
        except TypeError:  # date vs datetime, naive vs aware: not comparable
            pass
    raise ExpressionEvaluationError(
        f"Cannot compare {describe(a)} with {describe(b)} using '{symbol}'"
    )


def lt(a: Any, b: Any) -> object:
    if (type(a) in NUMBER_TYPES and type(b) in NUMBER_TYPES) or (type(a) is str and type(b) is str):
        return a < b
    if a is b:
        return False
    return _relational(a, b, operator.lt, "<")


def gt(a: Any, b: Any) -> object:
    if (type(a) in NUMBER_TYPES and type(b) in NUMBER_TYPES) or (type(a) is str and type(b) is str):
        return a > b
    if a is b:
        return False
    return _relational(a, b, operator.gt, ">")


def le(a: Any, b: Any) -> object:
    if (type(a) in NUMBER_TYPES and type(b) in NUMBER_TYPES) or (type(a) is str and type(b) is str):
        return a <= b
    if a is b:  # JUEL checks identity first, so null <= null is true
        return True
    return _relational(a, b, operator.le, "<=")


def ge(a: Any, b: Any) -> object:
    if (type(a) in NUMBER_TYPES and type(b) in NUMBER_TYPES) or (type(a) is str and type(b) is str):
        return a >= b
    if a is b:
        return True
    return _relational(a, b, operator.ge, ">=")


def _equals(a: object, b: object) -> bool:
    if a is None or b is None:
        return False
    if is_number(a) or is_number(b):
        return to_number(a) == to_number(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return to_bool(a) == to_bool(b)
    # EL coerces a string to the enum's type, i.e. compares by constant name.
    if isinstance(a, Enum) and isinstance(b, str) and not isinstance(b, Enum):
        return a.name == b
    if isinstance(b, Enum) and isinstance(a, str) and not isinstance(a, Enum):
        return b.name == a
    if isinstance(a, str) or isinstance(b, str):
        return to_str(a) == to_str(b)
    return bool(a == b)


def eq(a: Any, b: Any) -> object:
    if a is b:
        return True
    kind = type(a)
    if kind is type(b) and (kind is str or kind in NUMBER_TYPES):
        return a == b
    return _equals(a, b)


def ne(a: Any, b: Any) -> object:
    if a is b:
        return False
    kind = type(a)
    if kind is type(b) and (kind is str or kind in NUMBER_TYPES):
        return a != b
    return not _equals(a, b)


def is_empty(value: object) -> bool:
    """``empty``: null, "" and empty collections/maps are empty; any other value is not."""
    if value is None:
        return True
    if isinstance(value, Collection):
        return len(value) == 0
    return False
