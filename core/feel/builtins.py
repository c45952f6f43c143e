"""FEEL built-in functions (DMN 1.3 §10.3.4) and the table the parser and evaluator use.

Pure: no I/O. A function answers None (FEEL null) for arguments of the wrong type or
value, as Camunda 7 does with feel-scala's failures; only limits raise.
"""

from __future__ import annotations

import decimal
import functools
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Final

from flowledger.core.budget import spend

from .errors import FeelEvaluationError
from .operators import DECIMAL_CONTEXT, compare, equal
from .regex import MAX_PATTERN_LENGTH, compile_regex, parse_replacement, replace_all, split_all
from .temporal import parse_date, parse_date_time, parse_duration, parse_time
from .values import (
    MAX_STRING_LENGTH,
    FeelFunction,
    Range,
    YearsMonthsDuration,
    check_list,
    check_string,
)

__all__ = [
    "BUILTINS",
    "CLOCK_FUNCTIONS",
    "MAX_PATTERN_LENGTH",
    "Signature",
    "feel_string",
    "select_signature",
]

BuiltinFunction = Callable[..., object]


@dataclass(frozen=True, slots=True)
class Signature:
    """One overload: parameter names (DMN spelling), how many are required, and whether
    the last parameter takes any number of values (``min(1, 2, 3)``)."""

    parameters: tuple[str, ...]
    required: int
    variadic: bool
    function: BuiltinFunction


BUILTINS: dict[str, list[Signature]] = {}


def _builtin(
    name: str, *parameters: str, required: int | None = None, variadic: bool = False
) -> Callable[[BuiltinFunction], BuiltinFunction]:
    def register(function: BuiltinFunction) -> BuiltinFunction:
        needed = len(parameters) if required is None else required
        signature = Signature(parameters, needed, variadic, function)
        BUILTINS.setdefault(name, []).append(signature)
        return function

    return register


def select_signature(name: str, count: int, names: tuple[str, ...] | None) -> Signature | None:
    """The overload of ``name`` that takes ``count`` positional arguments, or these names."""
    for signature in BUILTINS.get(name, ()):
        if names is not None:
            given = set(names)
            if (
                given <= set(signature.parameters)
                and set(signature.parameters[: signature.required]) <= given
            ):
                return signature
        elif signature.required <= count and (
            signature.variadic or count <= len(signature.parameters)
        ):
            return signature
    return None


# -- helpers --------------------------------------------------------------------------------


def _integer(value: object) -> int | None:
    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    return None


def _items(arguments: tuple[object, ...]) -> list[object] | None:
    """The list of a list-or-varargs function: ``max([1, 2])`` and ``max(1, 2)`` alike."""
    if len(arguments) == 1 and isinstance(arguments[0], list):
        return arguments[0]
    if len(arguments) == 1 and arguments[0] is None:
        return None
    return list(arguments)


def _numbers(arguments: tuple[object, ...]) -> list[Decimal] | None:
    items = _items(arguments)
    if items is None or not all(isinstance(item, Decimal) for item in items):
        return None
    return [item for item in items if isinstance(item, Decimal)]


def _dt_duration_text(value: timedelta) -> str:
    micros = abs(value) // timedelta(microseconds=1)
    seconds, micros = divmod(micros, 1_000_000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    second_text = f"{seconds}.{micros:06d}".rstrip("0") if micros else str(seconds)
    time_part = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    time_part += f"{second_text}S" if seconds or micros else ""
    body = (f"{days}D" if days else "") + (f"T{time_part}" if time_part else "")
    sign = "-" if value < timedelta(0) else ""
    return f"{sign}P{body}" if body else "PT0S"


def _number_text(value: Decimal) -> str:
    whole = value.to_integral_value()
    if value == whole:
        # Not str(int(...)): Python refuses to print an int of more than 4,300 digits.
        return format(whole, "f")
    return format(value.normalize(), "f")


def _zone_suffix(value: time | datetime) -> str:
    zone = value.tzinfo
    if zone is None:
        return ""
    key = getattr(zone, "key", None)
    if isinstance(key, str):
        return f"@{key}"
    offset = value.utcoffset() or timedelta(0)
    if offset == timedelta(0):
        return "Z"
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(offset) // timedelta(minutes=1)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def feel_string(value: object, limit: int | None = None) -> str:
    """FEEL's text for a value, as ``string()`` and string concatenation show it. Nested lists
    and contexts are walked without recursion (a loop can nest a list thousands deep); with
    ``limit``, a text longer than it is refused as it is built (a list holding one big string a
    thousand times is cheap to hold, not to print)."""
    if not isinstance(value, list | dict):
        return _scalar_text(value)
    pieces: list[str] = []
    size = 0
    # What is left to write, last first: a text as it is, or a value (quoted when a string).
    pending: list[tuple[bool, object]] = [(False, value)]
    while pending:
        is_text, item = pending.pop()
        if is_text:
            text = item if isinstance(item, str) else ""
        elif isinstance(item, list):
            parts: list[tuple[bool, object]] = [(True, "[")]
            for index, element in enumerate(item):
                parts.extend([(True, ", ")] if index else [])
                parts.append((False, element))
            parts.append((True, "]"))
            pending.extend(reversed(parts))
            continue
        elif isinstance(item, dict):
            parts = [(True, "{")]
            for index, (key, element) in enumerate(item.items()):
                parts.append((True, f"{', ' if index else ''}{key}:"))
                parts.append((False, element))
            parts.append((True, "}"))
            pending.extend(reversed(parts))
            continue
        else:
            text = f'"{item}"' if isinstance(item, str) else _scalar_text(item)
        size += len(text)
        if limit is not None and size > limit:
            raise FeelEvaluationError(f"string result longer than {limit:,} characters refused")
        pieces.append(text)
    return "".join(pieces)


def _scalar_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return _number_text(value)
    if isinstance(value, datetime):
        return value.replace(tzinfo=None).isoformat() + _zone_suffix(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, time):
        return value.replace(tzinfo=None).isoformat() + _zone_suffix(value)
    if isinstance(value, timedelta):
        return _dt_duration_text(value)
    if isinstance(value, Range):
        left = "[" if value.start_included else "("
        right = "]" if value.end_included else ")"
        return f"{left}{feel_string(value.start)}..{feel_string(value.end)}{right}"
    return str(value)


# -- conversion -------------------------------------------------------------------------------


@_builtin("date", "from")
def _date(value: object) -> object:
    if isinstance(value, str):
        return parse_date(value)
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return None


@_builtin("date", "year", "month", "day")
def _date_of(year: object, month: object, day: object) -> object:
    parts = [_integer(year), _integer(month), _integer(day)]
    if None in parts:
        return None
    try:
        return date(*[part for part in parts if part is not None])
    except (ValueError, OverflowError):
        return None


@_builtin("time", "from")
def _time(value: object) -> object:
    if isinstance(value, str):
        return parse_time(value)
    if isinstance(value, datetime):
        return value.timetz()
    if isinstance(value, time):
        return value
    if isinstance(value, date):
        return time(0, 0)
    return None


@_builtin("time", "hour", "minute", "second", "offset", required=3)
def _time_of(hour: object, minute: object, second: object, offset: object = None) -> object:
    parts = [_integer(hour), _integer(minute)]
    if None in parts or not isinstance(second, Decimal):
        return None
    if offset is not None and not isinstance(offset, timedelta):
        return None
    zone = None if offset is None else timezone(offset)
    whole = int(second)
    try:
        micros = int((second - whole) * 1_000_000)
        return time(parts[0] or 0, parts[1] or 0, whole, micros, tzinfo=zone)
    except (ValueError, OverflowError):
        return None


@_builtin("date and time", "from")
def _date_and_time(value: object) -> object:
    if isinstance(value, str):
        return parse_date_time(value)
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    return None


@_builtin("date and time", "date", "time")
def _date_and_time_of(day: object, moment: object) -> object:
    if isinstance(day, date) and isinstance(moment, time):
        base = day.date() if isinstance(day, datetime) else day
        return datetime.combine(base, moment)
    return None


@_builtin("duration", "from")
def _duration(value: object) -> object:
    return parse_duration(value) if isinstance(value, str) else None


@_builtin("years and months duration", "from", "to")
def _years_and_months(start: object, end: object) -> object:
    if not isinstance(start, date) or not isinstance(end, date):
        return None
    months = (end.year - start.year) * 12 + end.month - start.month
    # Whole months only: a month counts once its day (and time) is reached.
    start_rest = (start.day, start.time() if isinstance(start, datetime) else time())
    end_rest = (end.day, end.time() if isinstance(end, datetime) else time())
    if months > 0 and end_rest < start_rest:
        months -= 1
    elif months < 0 and end_rest > start_rest:
        months += 1
    return YearsMonthsDuration(months)


_SEPARATORS: Final = {"grouping": (" ", ",", ".", None), "decimal": (",", ".", None)}
_PLAIN_NUMBER: Final = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


@_builtin("number", "from", "grouping separator", "decimal separator", required=1)
def _number(value: object, grouping: object = None, decimal_separator: object = None) -> object:
    if not isinstance(value, str):
        return None
    if grouping not in _SEPARATORS["grouping"] or decimal_separator not in _SEPARATORS["decimal"]:
        return None
    if grouping is not None and grouping == decimal_separator:
        return None
    text = value
    if isinstance(grouping, str):
        text = text.replace(grouping, "")
    if isinstance(decimal_separator, str):
        text = text.replace(decimal_separator, ".")
    if not _PLAIN_NUMBER.fullmatch(text):
        return None
    try:
        return DECIMAL_CONTEXT.plus(Decimal(text))
    except decimal.Overflow:
        return None


@_builtin("string", "from")
def _string(value: object) -> object:
    return None if value is None else feel_string(value, MAX_STRING_LENGTH)


@_builtin("not", "negand")
def _not(value: object) -> object:
    return (not value) if isinstance(value, bool) else None


# -- strings ----------------------------------------------------------------------------------


@_builtin("substring", "string", "start position", "length", required=2)
def _substring(text: object, start: object, length: object = None) -> object:
    first = _integer(start)
    if not isinstance(text, str) or first is None or first == 0:
        return None
    # FEEL counts characters from 1; negative positions count from the end.
    begin = first - 1 if first > 0 else max(len(text) + first, 0)
    if length is None:
        return text[begin:]
    count = _integer(length)
    if count is None or count < 0:
        return None
    return text[begin : begin + count]


@_builtin("string length", "string")
def _string_length(text: object) -> object:
    return Decimal(len(text)) if isinstance(text, str) else None


@_builtin("upper case", "string")
def _upper_case(text: object) -> object:
    # Upper-casing may lengthen a text ("ß" is "SS").
    return check_string(text.upper()) if isinstance(text, str) else None


@_builtin("lower case", "string")
def _lower_case(text: object) -> object:
    return check_string(text.lower()) if isinstance(text, str) else None


@_builtin("substring before", "string", "match")
def _substring_before(text: object, match: object) -> object:
    if not isinstance(text, str) or not isinstance(match, str):
        return None
    if match == "":
        return ""
    before, found, _ = text.partition(match)
    return before if found else ""


@_builtin("substring after", "string", "match")
def _substring_after(text: object, match: object) -> object:
    if not isinstance(text, str) or not isinstance(match, str):
        return None
    if match == "":
        return text
    _, found, after = text.partition(match)
    return after if found else ""


@_builtin("contains", "string", "match")
def _contains(text: object, match: object) -> object:
    if not isinstance(text, str) or not isinstance(match, str):
        return None
    return match in text


@_builtin("starts with", "string", "match")
def _starts_with(text: object, match: object) -> object:
    if not isinstance(text, str) or not isinstance(match, str):
        return None
    return text.startswith(match)


@_builtin("ends with", "string", "match")
def _ends_with(text: object, match: object) -> object:
    if not isinstance(text, str) or not isinstance(match, str):
        return None
    return text.endswith(match)


# Regular expressions run on RE2 (linear time whatever the pattern): see regex.py.


@_builtin("replace", "input", "pattern", "replacement", "flags", required=3)
def _replace(text: object, pattern: object, replacement: object, flags: object = None) -> object:
    regex = compile_regex("replace", pattern, flags)
    if regex is None or not isinstance(text, str) or not isinstance(replacement, str):
        return None
    literal = isinstance(flags, str) and "q" in flags
    parts = parse_replacement(replacement, regex.groups, literal)
    if parts is None:
        return None
    return replace_all(regex, text, parts)


@_builtin("matches", "input", "pattern", "flags", required=2)
def _matches(text: object, pattern: object, flags: object = None) -> object:
    regex = compile_regex("matches", pattern, flags)
    if regex is None or not isinstance(text, str):
        return None
    return regex.search(text) is not None


@_builtin("split", "string", "delimiter")
def _split(text: object, delimiter: object) -> object:
    regex = compile_regex("split", delimiter, None)
    if regex is None or not isinstance(text, str) or delimiter == "":
        return None
    return split_all(regex, text)


# -- lists ------------------------------------------------------------------------------------


def _contains_item(items: list[object], element: object) -> bool:
    return any(equal(item, element) is True for item in items)


@_builtin("list contains", "list", "element")
def _list_contains(items: object, element: object) -> object:
    return _contains_item(items, element) if isinstance(items, list) else None


@_builtin("count", "list")
def _count(items: object) -> object:
    return Decimal(len(items)) if isinstance(items, list) else None


def _extreme(arguments: tuple[object, ...], wanted: int) -> object:
    items = _items(arguments)
    if not items:
        return None
    best = items[0]
    for item in items[1:]:
        order = compare(item, best)
        if order is None:
            return None
        if order == wanted:
            best = item
    return best


@_builtin("min", "list", variadic=True)
def _min(*arguments: object) -> object:
    return _extreme(arguments, -1)


@_builtin("max", "list", variadic=True)
def _max(*arguments: object) -> object:
    return _extreme(arguments, 1)


@_builtin("sum", "list", variadic=True)
def _sum(*arguments: object) -> object:
    numbers = _numbers(arguments)
    if numbers is None:
        return None
    total = Decimal(0)
    for number in numbers:
        total = DECIMAL_CONTEXT.add(total, number)
    return total


@_builtin("product", "list", variadic=True)
def _product(*arguments: object) -> object:
    numbers = _numbers(arguments)
    if not numbers:
        return None
    result = Decimal(1)
    try:
        for number in numbers:
            result = DECIMAL_CONTEXT.multiply(result, number)
    except decimal.Overflow:
        return None
    return result


@_builtin("mean", "list", variadic=True)
def _mean(*arguments: object) -> object:
    numbers = _numbers(arguments)
    if not numbers:
        return None
    total = _sum(numbers)
    assert isinstance(total, Decimal)
    return DECIMAL_CONTEXT.divide(total, Decimal(len(numbers)))


@_builtin("median", "list", variadic=True)
def _median(*arguments: object) -> object:
    numbers = _numbers(arguments)
    if not numbers:
        return None
    ordered = sorted(numbers)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return DECIMAL_CONTEXT.divide(ordered[middle - 1] + ordered[middle], Decimal(2))


@_builtin("stddev", "list", variadic=True)
def _stddev(*arguments: object) -> object:
    numbers = _numbers(arguments)
    if numbers is None or len(numbers) < 2:
        return None
    try:
        with decimal.localcontext(DECIMAL_CONTEXT):
            return statistics.stdev(numbers)
    except (decimal.Overflow, decimal.InvalidOperation):
        return None


@_builtin("mode", "list", variadic=True)
def _mode(*arguments: object) -> object:
    numbers = _numbers(arguments)
    if numbers is None:
        return None
    counts: dict[Decimal, int] = {}
    for number in numbers:
        counts[number] = counts.get(number, 0) + 1
    top = max(counts.values(), default=0)
    return sorted(number for number, seen in counts.items() if seen == top)


def _booleans(arguments: tuple[object, ...]) -> list[object] | None:
    items = _items(arguments)
    if items is None or not all(item is None or isinstance(item, bool) for item in items):
        return None
    return items


def _all(*arguments: object) -> object:
    items = _booleans(arguments)
    if items is None:
        return None
    if False in items:
        return False
    return None if None in items else True


def _any(*arguments: object) -> object:
    items = _booleans(arguments)
    if items is None:
        return None
    if True in items:
        return True
    return None if None in items else False


for _name in ("all", "and"):
    _builtin(_name, "list", variadic=True)(_all)
for _name in ("any", "or"):
    _builtin(_name, "list", variadic=True)(_any)


@_builtin("sublist", "list", "start position", "length", required=2)
def _sublist(items: object, start: object, length: object = None) -> object:
    first = _integer(start)
    if not isinstance(items, list) or first is None or first == 0 or abs(first) > len(items):
        return None
    begin = first - 1 if first > 0 else len(items) + first
    if length is None:
        return items[begin:]
    count = _integer(length)
    if count is None or count < 0:
        return None
    return items[begin : begin + count]


@_builtin("append", "list", "item", required=1, variadic=True)
def _append(items: object, *new_items: object) -> object:
    return check_list([*items, *new_items]) if isinstance(items, list) else None


@_builtin("concatenate", "lists", variadic=True)
def _concatenate(*lists: object) -> object:
    result: list[object] = []
    for items in lists:
        if not isinstance(items, list):
            return None
        result.extend(items)
        check_list(result)
    return result


def _position(items: list[object], position: object) -> int | None:
    index = _integer(position)
    if index is None or index == 0 or abs(index) > len(items):
        return None
    return index - 1 if index > 0 else len(items) + index


@_builtin("insert before", "list", "position", "newItem")
def _insert_before(items: object, position: object, new_item: object) -> object:
    if not isinstance(items, list):
        return None
    index = _position(items, position)
    if index is None:
        return None
    return check_list([*items[:index], new_item, *items[index:]])


@_builtin("remove", "list", "position")
def _remove(items: object, position: object) -> object:
    if not isinstance(items, list):
        return None
    index = _position(items, position)
    return None if index is None else items[:index] + items[index + 1 :]


@_builtin("reverse", "list")
def _reverse(items: object) -> object:
    return items[::-1] if isinstance(items, list) else None


@_builtin("index of", "list", "match")
def _index_of(items: object, match: object) -> object:
    if not isinstance(items, list):
        return None
    return [Decimal(i + 1) for i, item in enumerate(items) if equal(item, match) is True]


# Kinds whose FEEL equality is Python's (and hash): distinct values finds these by hash, not by
# comparing each item with every kept one (quadratic on a list of 100,000 strings).
_HASHED: Final = (str, Decimal, bool)


def _distinct(items: list[object]) -> list[object]:
    result: list[object] = []
    seen: set[tuple[type, object]] = set()
    for item in items:
        if type(item) in _HASHED:
            key = (type(item), item)  # true is not 1 in FEEL, though equal in Python
            if key not in seen:
                seen.add(key)
                result.append(item)
            continue
        spend(len(result) + 1, "FEEL distinct values()")
        if not _contains_item(result, item):
            result.append(item)
    return result


@_builtin("distinct values", "list")
def _distinct_values(items: object) -> object:
    return _distinct(items) if isinstance(items, list) else None


@_builtin("union", "lists", variadic=True)
def _union(*lists: object) -> object:
    joined = _concatenate(*lists)
    return _distinct(joined) if isinstance(joined, list) else None


@_builtin("flatten", "list")
def _flatten(items: object) -> object:
    if not isinstance(items, list):
        return None
    result: list[object] = []
    pending: list[object] = [items]
    # An explicit stack: nesting depth is bounded by the parser, but keep recursion out.
    while pending:
        current = pending.pop()
        if isinstance(current, list):
            pending.extend(reversed(current))
        else:
            result.append(current)
            check_list(result)
    return result


@_builtin("sort", "list", "precedes", required=1)
def _sort(items: object, precedes: object = None) -> object:
    if not isinstance(items, list):
        return None
    if precedes is None:
        if any(compare(item, items[0]) is None for item in items):
            return None
        return sorted(items, key=functools.cmp_to_key(lambda a, b: compare(a, b) or 0))
    if not isinstance(precedes, FeelFunction) or len(precedes.parameters) != 2:
        return None
    function = precedes

    def order(a: object, b: object) -> int:
        if function.invoke([a, b]) is True:
            return -1
        return 1 if function.invoke([b, a]) is True else 0

    return sorted(items, key=functools.cmp_to_key(order))


# -- numbers ----------------------------------------------------------------------------------


def _rounded(value: object, scale: object, rounding: str) -> object:
    digits = _integer(scale)
    if not isinstance(value, Decimal) or digits is None or abs(digits) > 6000:
        return None
    try:
        return value.quantize(
            Decimal(1).scaleb(-digits), rounding=rounding, context=DECIMAL_CONTEXT
        )
    except decimal.InvalidOperation:
        return None


@_builtin("decimal", "n", "scale")
def _decimal(value: object, scale: object) -> object:
    return _rounded(value, scale, decimal.ROUND_HALF_EVEN)


@_builtin("floor", "n", "scale", required=1)
def _floor(value: object, scale: object = Decimal(0)) -> object:
    return _rounded(value, scale, decimal.ROUND_FLOOR)


@_builtin("ceiling", "n", "scale", required=1)
def _ceiling(value: object, scale: object = Decimal(0)) -> object:
    return _rounded(value, scale, decimal.ROUND_CEILING)


for _name, _mode_name in (
    ("round up", decimal.ROUND_UP),
    ("round down", decimal.ROUND_DOWN),
    ("round half up", decimal.ROUND_HALF_UP),
    ("round half down", decimal.ROUND_HALF_DOWN),
):
    _builtin(_name, "n", "scale")(
        functools.partial(lambda v, s, m: _rounded(v, s, m), m=_mode_name)
    )


@_builtin("abs", "n")
def _abs(value: object) -> object:
    if isinstance(value, (Decimal, timedelta)):
        return abs(value)
    if isinstance(value, YearsMonthsDuration):
        return YearsMonthsDuration(abs(value.months))
    return None


@_builtin("modulo", "dividend", "divisor")
def _modulo(dividend: object, divisor: object) -> object:
    if not isinstance(dividend, Decimal) or not isinstance(divisor, Decimal) or divisor == 0:
        return None
    try:
        quotient = DECIMAL_CONTEXT.divide(dividend, divisor).to_integral_value(decimal.ROUND_FLOOR)
        return DECIMAL_CONTEXT.subtract(dividend, DECIMAL_CONTEXT.multiply(divisor, quotient))
    except (decimal.InvalidOperation, decimal.Overflow):
        return None


@_builtin("sqrt", "number")
def _sqrt(value: object) -> object:
    if not isinstance(value, Decimal) or value < 0:
        return None
    return DECIMAL_CONTEXT.sqrt(value)


@_builtin("log", "number")
def _log(value: object) -> object:
    if not isinstance(value, Decimal) or value <= 0:
        return None
    return DECIMAL_CONTEXT.ln(value)


@_builtin("exp", "number")
def _exp(value: object) -> object:
    if not isinstance(value, Decimal):
        return None
    try:
        return DECIMAL_CONTEXT.exp(value)
    except decimal.Overflow:
        return None


@_builtin("odd", "number")
def _odd(value: object) -> object:
    whole = _integer(value)
    return None if whole is None else whole % 2 == 1


@_builtin("even", "number")
def _even(value: object) -> object:
    whole = _integer(value)
    return None if whole is None else whole % 2 == 0


# -- dates ------------------------------------------------------------------------------------

_DAY_NAMES: Final = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_NAMES: Final = ("January", "February", "March", "April", "May", "June", "July",
                       "August", "September", "October", "November", "December")  # fmt: skip


@_builtin("day of week", "date")
def _day_of_week(value: object) -> object:
    return _DAY_NAMES[value.weekday()] if isinstance(value, date) else None


@_builtin("day of year", "date")
def _day_of_year(value: object) -> object:
    return Decimal(value.timetuple().tm_yday) if isinstance(value, date) else None


@_builtin("week of year", "date")
def _week_of_year(value: object) -> object:
    return Decimal(value.isocalendar()[1]) if isinstance(value, date) else None


@_builtin("month of year", "date")
def _month_of_year(value: object) -> object:
    return _MONTH_NAMES[value.month - 1] if isinstance(value, date) else None


# -- contexts ---------------------------------------------------------------------------------


@_builtin("get value", "m", "key")
def _get_value(context: object, key: object) -> object:
    if not isinstance(context, dict) or not isinstance(key, str):
        return None
    return context.get(key)


@_builtin("get entries", "m")
def _get_entries(context: object) -> object:
    if not isinstance(context, dict):
        return None
    return [{"key": key, "value": value} for key, value in context.items()]


# -- the evaluation's time ------------------------------------------------------------------

# Called with the time the caller gave the evaluation (`Evaluation.now`), never a clock: an
# evaluation in the engine answers the command's time, and a replay the same.
CLOCK_FUNCTIONS: Final = frozenset({"now", "today"})


@_builtin("now")
def _now(moment: datetime) -> object:
    return moment


@_builtin("today")
def _today(moment: datetime) -> object:
    return moment.date()
