"""The few ``java.lang.String``/``List``/``Map`` methods Camunda models call on plain values.

Values of builtin Python types never expose their Python methods to expressions (``str.format``
and friends leak interpreter internals), yet models written for Camunda 7 routinely say
``${list.size() > 0}`` or ``${status.equals('OK')}``. This table re-implements those Java
methods explicitly; nothing here reaches a Python attribute of the value.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from .coercion import JAVA_WHITESPACE, Long, is_number, to_int, to_str, type_name
from .errors import ExpressionEvaluationError

__all__ = ["call_java_method"]

# name -> (implementation taking the receiver first, minimum and maximum argument count)
_Method = tuple[Callable[..., object], int, int]


def _java_equals(a: object, b: object) -> bool:
    # Java's equals never converts between types: Long(1).equals(1.0) is false.
    if is_number(a) and is_number(b):
        return isinstance(a, float) == isinstance(b, float) and a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return bool(a == b)


def _substring(text: str, begin: object, *rest: object) -> str:
    start = to_int(begin)
    end = to_int(rest[0]) if rest else len(text)
    if start < 0 or end > len(text) or start > end:
        raise ExpressionEvaluationError(
            f"substring({start}, {end}) is out of range for a string of length {len(text)}"
        )
    return text[start:end]


def _list_get(items: Sequence[object], index: object) -> object:
    position = to_int(index)
    if not 0 <= position < len(items):
        raise ExpressionEvaluationError(
            f"Index {position} is out of bounds for a list of size {len(items)}"
        )
    return items[position]


def _index_of(items: Sequence[object], item: object) -> Long:
    for position, candidate in enumerate(items):
        if _java_equals(candidate, item):
            return Long(position)
    return Long(-1)


def _map_get(mapping: dict[object, object], key: object) -> object:
    try:
        return mapping.get(key)
    except TypeError:  # unhashable key: Java's HashMap would simply not find it
        return None


def _map_contains_key(mapping: dict[object, object], key: object) -> bool:
    try:
        return key in mapping
    except TypeError:
        return False


_COMMON: Final[dict[str, _Method]] = {
    "equals": (_java_equals, 1, 1),
    "toString": (to_str, 0, 0),
}

_STRING: Final[dict[str, _Method]] = {
    "length": (lambda s: Long(len(s)), 0, 0),
    "isEmpty": (lambda s: len(s) == 0, 0, 0),
    "equalsIgnoreCase": (lambda s, o: o is not None and s.lower() == to_str(o).lower(), 1, 1),
    "contains": (lambda s, o: to_str(o) in s, 1, 1),
    "startsWith": (lambda s, o: s.startswith(to_str(o)), 1, 1),
    "endsWith": (lambda s, o: s.endswith(to_str(o)), 1, 1),
    "indexOf": (lambda s, o: Long(s.find(to_str(o))), 1, 1),
    "toUpperCase": (lambda s: s.upper(), 0, 0),
    "toLowerCase": (lambda s: s.lower(), 0, 0),
    "trim": (lambda s: s.strip(JAVA_WHITESPACE), 0, 0),
    "substring": (_substring, 1, 2),
    # Literal (not regex) replacement, as Java's replace(CharSequence, CharSequence).
    "replace": (lambda s, old, new: s.replace(to_str(old), to_str(new)), 2, 2),
}

_SEQUENCE: Final[dict[str, _Method]] = {
    "size": (lambda s: Long(len(s)), 0, 0),
    "isEmpty": (lambda s: len(s) == 0, 0, 0),
    "contains": (lambda s, o: _index_of(s, o) >= 0, 1, 1),
    "indexOf": (_index_of, 1, 1),
    "get": (_list_get, 1, 1),
}

_MAP: Final[dict[str, _Method]] = {
    "size": (lambda m: Long(len(m)), 0, 0),
    "isEmpty": (lambda m: len(m) == 0, 0, 0),
    "containsKey": (_map_contains_key, 1, 1),
    "containsValue": (lambda m, o: any(_java_equals(v, o) for v in m.values()), 1, 1),
    "get": (_map_get, 1, 1),
}

_SET: Final[dict[str, _Method]] = {
    "size": (lambda s: Long(len(s)), 0, 0),
    "isEmpty": (lambda s: len(s) == 0, 0, 0),
    "contains": (lambda s, o: any(_java_equals(v, o) for v in s), 1, 1),
}


def _table_for(value: object) -> dict[str, _Method]:
    if isinstance(value, str):
        return _STRING
    if isinstance(value, (list, tuple)):
        return _SEQUENCE
    if isinstance(value, dict):
        return _MAP
    if isinstance(value, (set, frozenset)):
        return _SET
    return _COMMON


def call_java_method(receiver: object, name: str, args: list[object]) -> object:
    """Call an emulated Java method on a value of a builtin type, or refuse."""
    method = _table_for(receiver).get(name) or _COMMON.get(name)
    if method is None:
        raise ExpressionEvaluationError(
            f"Method '{name}' cannot be called on a value of type {type_name(receiver)}"
        )
    implementation, min_args, max_args = method
    if not min_args <= len(args) <= max_args:
        expected = str(min_args) if min_args == max_args else f"{min_args} to {max_args}"
        raise ExpressionEvaluationError(
            f"Method '{name}' on type {type_name(receiver)} takes {expected} argument(s), "
            f"got {len(args)}"
        )
    return implementation(receiver, *args)
