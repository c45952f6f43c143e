"""Property access (``a.b``, ``a[k]``) and method calls (``a.m()``) under the sandbox rules.

Model content is untrusted, so only data is reachable: values of builtin and standard-library
types (str, numbers, containers, dates, types, modules, functions, frames...) never expose their
Python attributes or methods, only the Java ones `javamethods.VALUE_TYPES` lists for them; on
ordinary objects registered by the application ("beans", the engine's ``execution`` facade),
which may be read and called like Java beans, names starting with ``_`` are refused.

Pure: no I/O (beyond what application objects do when called).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

from .coercion import LONG_TEXT, describe, to_str, type_name
from .errors import ExpressionEvaluationError
from .javamethods import call_java_method, get_value_property, value_row

__all__ = ["call_method", "get_property"]

_MISSING: Final = object()


def _map_get(mapping: Mapping[object, object], key: object) -> object:
    try:
        value = mapping.get(key, _MISSING)
        if value is _MISSING and key is not None and not isinstance(key, str):
            # ${map[1]} must find the key "1": JSON-ish variables have string keys only.
            value = mapping.get(to_str(key), _MISSING)
    except TypeError:  # unhashable key
        raise ExpressionEvaluationError(f"Invalid map key {describe(key)}") from None
    return None if value is _MISSING else value


def _sequence_index(key: object) -> int | None:
    if isinstance(key, bool):
        return None
    if isinstance(key, int) or (isinstance(key, float) and math.isfinite(key)):
        return int(key)
    if isinstance(key, str) and LONG_TEXT.match(key):
        return int(key)
    return None


def _sequence_get(items: Sequence[object], key: object) -> object:
    if key is None:
        return None
    index = _sequence_index(key)
    if index is None:
        if isinstance(key, str) and key in getattr(type(items), "_fields", ()):
            return getattr(items, key)  # a namedtuple field, the only data a tuple has by name
        raise ExpressionEvaluationError(
            f"Property {describe(key)} not found on type {type_name(items)}"
        )
    # Java lists have no negative indexing: out of range reads as null.
    if 0 <= index < len(items):
        return items[index]
    return None


def _bean_property(bean: object, name: str) -> object:
    if name.startswith("_"):
        raise ExpressionEvaluationError(f"Property '{name}' is not accessible")
    if name:
        value = getattr(bean, name, _MISSING)
        if value is not _MISSING and not callable(value):
            return value
        # Java bean conventions, so models written for Camunda work unchanged.
        suffix = name[0].upper() + name[1:]
        for prefix in ("get", "is"):
            getter = getattr(bean, prefix + suffix, _MISSING)
            if getter is not _MISSING and callable(getter):
                return getter()
    raise ExpressionEvaluationError(f"Property '{name}' not found on type {type_name(bean)}")


def get_property(base: object, key: object) -> object:
    """Evaluate ``base.key`` / ``base[key]``; a null base reads as null."""
    if base is None:
        return None
    if isinstance(base, dict):
        return _map_get(base, key)
    if isinstance(base, (list, tuple)):
        return _sequence_get(base, key)
    row = value_row(base)
    if row is not None:
        return get_value_property(base, key, row)
    if isinstance(base, Mapping):
        return _map_get(base, key)
    return _bean_property(base, to_str(key))


def call_method(base: object, name: str, args: list[object]) -> object:
    """Evaluate ``base.name(args)``; only application objects have their methods called."""
    if base is None:
        raise ExpressionEvaluationError(f"Cannot call method '{name}' on null")
    row = value_row(base)
    if row is not None:
        return call_java_method(base, name, args, row)
    if name.startswith("_"):
        raise ExpressionEvaluationError(f"Method '{name}' is not accessible")
    method = getattr(base, name, _MISSING) if name else _MISSING
    if method is _MISSING or not callable(method):
        raise ExpressionEvaluationError(f"Method '{name}' not found on type {type_name(base)}")
    return method(*args)
