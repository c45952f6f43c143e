"""What an expression may do with a value (anything not an application bean): one allow-list
per type, of the Java methods Camunda models call on it.

Values of builtin and standard-library types never expose their Python attributes to
expressions (`str.format` and friends leak interpreter internals, `datetime.replace` builds
values the model has no business building), yet models written for Camunda 7 routinely say
`${list.size() > 0}`, `${status.equals('OK')}` or `${dueDate.before(now())}`. `VALUE_TYPES`
lists, per type, the Java methods (and Java bean properties) re-implemented for it; nothing
here reaches a Python attribute of the value. Methods that go through or build a string or a
list spend steps and check sizes (`bounds`) before they build anything.

Pure: no I/O.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from decimal import Decimal
from types import MappingProxyType, ModuleType
from typing import Any, Final, NamedTuple

from .bounds import charge, charge_chars, check_length
from .coercion import JAVA_WHITESPACE, Long, describe, is_number, to_int, to_str
from .errors import ExpressionEvaluationError

__all__ = [
    "VALUE_TYPES",
    "ValueType",
    "call_java_method",
    "get_value_property",
    "value_row",
]

# implementation taking the receiver first, minimum and maximum argument count
_Method = tuple[Callable[..., object], int, int]


def _java_equals(a: object, b: object) -> bool:
    # Java's equals never converts between types: Long(1).equals(1.0) is false.
    if is_number(a) and is_number(b):
        return isinstance(a, float) == isinstance(b, float) and a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, date) or isinstance(b, date):
        return isinstance(a, date) and isinstance(b, date) and _epoch_ms(a) == _epoch_ms(b)
    return bool(a == b)


def _to_string(value: object) -> str:
    # A container's text is as long as its contents: bounded by the input, measured all the same.
    text = to_str(value)
    charge_chars(len(text), "toString()")
    check_length(len(text), "toString()")
    return text


# --- String ---------------------------------------------------------------------------------


def _substring(text: str, begin: object, *rest: object) -> str:
    start = to_int(begin)
    end = to_int(rest[0]) if rest else len(text)
    if start < 0 or end > len(text) or start > end:
        raise ExpressionEvaluationError(
            f"substring({start}, {end}) is out of range for a string of length {len(text)}"
        )
    charge_chars(end - start, "String.substring()")
    return text[start:end]


def _searched(text: str, other: object, what: str) -> str:
    needle = to_str(other)
    charge_chars(len(text) + len(needle), what)
    return needle


def _equals_ignore_case(text: str, other: object) -> bool:
    if other is None:
        return False
    return text.lower() == _searched(text, other, "String.equalsIgnoreCase()").lower()


def _contains(text: str, other: object) -> bool:
    return _searched(text, other, "String.contains()") in text


def _starts_with(text: str, other: object) -> bool:
    return text.startswith(_searched(text, other, "String.startsWith()"))


def _ends_with(text: str, other: object) -> bool:
    return text.endswith(_searched(text, other, "String.endsWith()"))


def _index_of_text(text: str, other: object) -> Long:
    return Long(text.find(_searched(text, other, "String.indexOf()")))


def _change_case(text: str, upper: bool) -> str:
    what = "String.toUpperCase()" if upper else "String.toLowerCase()"
    charge_chars(len(text), what)
    # A character may change into up to three ('ß' -> 'SS'): measure the bound before building.
    check_length(len(text), what)
    changed = text.upper() if upper else text.lower()
    check_length(len(changed), what)
    return changed


def _trim(text: str) -> str:
    charge_chars(len(text), "String.trim()")
    return text.strip(JAVA_WHITESPACE)


def _replace(text: str, old: object, new: object) -> str:
    # Literal (not regex) replacement, as Java's replace(CharSequence, CharSequence).
    target = to_str(old)
    replacement = to_str(new)
    charge_chars(len(text), "String.replace()")
    # Java and Python agree: an empty target matches before every character and at the end.
    count = len(text) + 1 if not target else text.count(target)
    length = len(text) + count * (len(replacement) - len(target))
    check_length(length, "String.replace()")
    charge_chars(length, "String.replace()")
    return text.replace(target, replacement)


def _concat(text: str, other: object) -> str:
    tail = to_str(other)
    check_length(len(text) + len(tail), "String.concat()")
    charge_chars(len(text) + len(tail), "String.concat()")
    return text + tail


# --- List, Map, Set ---------------------------------------------------------------------------


def _list_get(items: Sequence[object], index: object) -> object:
    position = to_int(index)
    if not 0 <= position < len(items):
        raise ExpressionEvaluationError(
            f"Index {position} is out of bounds for a list of size {len(items)}"
        )
    return items[position]


def _index_of(items: Sequence[object], item: object) -> Long:
    charge(len(items), "List.indexOf()")
    for position, candidate in enumerate(items):
        if _java_equals(candidate, item):
            return Long(position)
    return Long(-1)


def _map_get(mapping: Mapping[object, object], key: object) -> object:
    try:
        return mapping.get(key)
    except TypeError:  # unhashable key: Java's HashMap would simply not find it
        return None


def _map_contains_key(mapping: Mapping[object, object], key: object) -> bool:
    try:
        return key in mapping
    except TypeError:
        return False


def _map_contains_value(mapping: Mapping[object, object], value: object) -> bool:
    charge(len(mapping), "Map.containsValue()")
    return any(_java_equals(v, value) for v in mapping.values())


def _set_contains(items: set[object] | frozenset[object], value: object) -> bool:
    charge(len(items), "Set.contains()")
    return any(_java_equals(v, value) for v in items)


# --- Date -------------------------------------------------------------------------------------

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_DAYS: Final = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS: Final = (
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
)


def _epoch_ms(value: date) -> int:
    # As variables store dates: a day is its midnight, a naive date-time is UTC.
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day, tzinfo=UTC)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return (value - _EPOCH) // timedelta(milliseconds=1)


def _date_argument(value: object, method: str) -> int:
    if not isinstance(value, date):
        raise ExpressionEvaluationError(f"Date.{method}() takes a Date, not {describe(value)}")
    return _epoch_ms(value)


def _date_to_string(value: date) -> str:
    # Java's Date.toString ("EEE MMM dd HH:mm:ss zzz yyyy") in the engine's zone, UTC.
    try:
        moment = _EPOCH + timedelta(milliseconds=_epoch_ms(value))
    except OverflowError:  # year 1 with a positive offset is before year 1 in UTC
        raise ExpressionEvaluationError(
            "Date is out of the range Date.toString() can render"
        ) from None
    return (
        f"{_DAYS[moment.weekday()]} {_MONTHS[moment.month - 1]} {moment.day:02d} "
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d} UTC {moment.year:04d}"
    )


def _compare(a: int, b: int) -> Long:
    return Long((a > b) - (a < b))


# --- the table ------------------------------------------------------------------------------


class ValueType(NamedTuple):
    """What an expression may call and read on values of `types`, named as Java names them."""

    name: str
    types: tuple[type, ...]
    methods: Mapping[str, _Method]
    properties: Mapping[str, Callable[[Any], object]]


_NO_PROPERTIES: Final[Mapping[str, Callable[[Any], object]]] = MappingProxyType({})

_OBJECT: Final[Mapping[str, _Method]] = MappingProxyType(
    {
        "equals": (_java_equals, 1, 1),
        "toString": (_to_string, 0, 0),
    }
)

_STRING: Final[Mapping[str, _Method]] = MappingProxyType(
    {
        **_OBJECT,
        "length": (lambda s: Long(len(s)), 0, 0),
        "isEmpty": (lambda s: len(s) == 0, 0, 0),
        "equalsIgnoreCase": (_equals_ignore_case, 1, 1),
        "contains": (_contains, 1, 1),
        "startsWith": (_starts_with, 1, 1),
        "endsWith": (_ends_with, 1, 1),
        "indexOf": (_index_of_text, 1, 1),
        "toUpperCase": (lambda s: _change_case(s, True), 0, 0),
        "toLowerCase": (lambda s: _change_case(s, False), 0, 0),
        "trim": (_trim, 0, 0),
        "substring": (_substring, 1, 2),
        "replace": (_replace, 2, 2),
        "concat": (_concat, 1, 1),
    }
)

_LIST: Final[Mapping[str, _Method]] = MappingProxyType(
    {
        **_OBJECT,
        "size": (lambda s: Long(len(s)), 0, 0),
        "isEmpty": (lambda s: len(s) == 0, 0, 0),
        "contains": (lambda s, o: _index_of(s, o) >= 0, 1, 1),
        "indexOf": (_index_of, 1, 1),
        "get": (_list_get, 1, 1),
    }
)

_MAP: Final[Mapping[str, _Method]] = MappingProxyType(
    {
        **_OBJECT,
        "size": (lambda m: Long(len(m)), 0, 0),
        "isEmpty": (lambda m: len(m) == 0, 0, 0),
        "containsKey": (_map_contains_key, 1, 1),
        "containsValue": (_map_contains_value, 1, 1),
        "get": (_map_get, 1, 1),
    }
)

_SET: Final[Mapping[str, _Method]] = MappingProxyType(
    {
        **_OBJECT,
        "size": (lambda s: Long(len(s)), 0, 0),
        "isEmpty": (lambda s: len(s) == 0, 0, 0),
        "contains": (_set_contains, 1, 1),
    }
)

# java.util.Date: what Camunda users call on one; Python's datetime stays out of reach.
_DATE: Final[Mapping[str, _Method]] = MappingProxyType(
    {
        "getTime": (lambda d: Long(_epoch_ms(d)), 0, 0),
        "before": (lambda d, o: _epoch_ms(d) < _date_argument(o, "before"), 1, 1),
        "after": (lambda d, o: _epoch_ms(d) > _date_argument(o, "after"), 1, 1),
        "compareTo": (lambda d, o: _compare(_epoch_ms(d), _date_argument(o, "compareTo")), 1, 1),
        "equals": (_java_equals, 1, 1),
        "toString": (_date_to_string, 0, 0),
    }
)

# First match wins: bool before int (bool is an int), datetime is a date.
VALUE_TYPES: Final[tuple[ValueType, ...]] = (
    ValueType("Boolean", (bool,), _OBJECT, _NO_PROPERTIES),
    ValueType("String", (str,), _STRING, _NO_PROPERTIES),
    ValueType("Long", (int,), _OBJECT, _NO_PROPERTIES),
    ValueType("Double", (float,), _OBJECT, _NO_PROPERTIES),
    ValueType("BigDecimal", (Decimal,), _OBJECT, _NO_PROPERTIES),
    ValueType("List", (list, tuple), _LIST, _NO_PROPERTIES),
    ValueType("Map", (dict,), _MAP, _NO_PROPERTIES),
    ValueType("Set", (set, frozenset), _SET, _NO_PROPERTIES),
    # Java bean property `time` is getTime(), as ${date.time} reads in Camunda.
    ValueType("Date", (date,), _DATE, MappingProxyType({"time": lambda d: Long(_epoch_ms(d))})),
    ValueType("byte[]", (bytes, bytearray, memoryview), _OBJECT, _NO_PROPERTIES),
)

# Values of no row above that are still values, never beans: anything whose type the
# interpreter or the standard library defines (types, modules, functions, frames, times,
# durations, compiled patterns, ...). They get the methods every Java Object has.
_OTHER_VALUE_TYPES: Final = (complex, range, slice, type, ModuleType, time, timedelta, tzinfo)
_STDLIB: Final = frozenset(sys.stdlib_module_names) | {"builtins"}


def _classify(kind: type) -> ValueType | None:
    for row in VALUE_TYPES:
        if issubclass(kind, row.types):
            return row
    module = getattr(kind, "__module__", None)
    if issubclass(kind, _OTHER_VALUE_TYPES) or (
        not isinstance(module, str) or module.partition(".")[0] in _STDLIB
    ):
        return ValueType(kind.__name__, (kind,), _OBJECT, _NO_PROPERTIES)
    return None  # an application bean


# type -> its row, or None for a bean: one dict lookup on the path of every method call
_ROWS: Final[dict[type, ValueType | None]] = {}
_MAX_ROWS: Final = 1024  # classes made on the fly must not grow it without end


def value_row(value: object) -> ValueType | None:
    """What an expression may do with `value` (its VALUE_TYPES row, or an Object's named by
    its type), or None when it is an application bean."""
    kind = type(value)
    try:
        return _ROWS[kind]
    except KeyError:
        row = _classify(kind)
        if len(_ROWS) < _MAX_ROWS:
            _ROWS[kind] = row
        return row


def _offer(row: ValueType) -> str:
    return ", ".join(sorted(row.methods))


def get_value_property(value: object, key: object, row: ValueType) -> object:
    """`value.key` on a value: only the Java bean properties its row lists."""
    getter = row.properties.get(key) if isinstance(key, str) else None
    if getter is None:
        if row.properties:
            readable = f"its only property is {', '.join(row.properties)}"
        else:
            readable = "it has no properties"
        raise ExpressionEvaluationError(
            f"{row.name} has no property {describe(key)} ({readable}; "
            f"its methods are {_offer(row)})"
        )
    return getter(value)


def call_java_method(receiver: object, name: str, args: list[object], row: ValueType) -> object:
    """Call an emulated Java method on a value, or refuse naming the type and the method."""
    method = row.methods.get(name)
    if method is None:
        raise ExpressionEvaluationError(
            f"{row.name} has no method {describe(name)} (its methods are {_offer(row)})"
        )
    implementation, min_args, max_args = method
    if not min_args <= len(args) <= max_args:
        expected = str(min_args) if min_args == max_args else f"{min_args} to {max_args}"
        raise ExpressionEvaluationError(
            f"Method '{name}' of {row.name} takes {expected} argument(s), got {len(args)}"
        )
    return implementation(receiver, *args)
