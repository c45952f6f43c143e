"""Camunda 7 variable values: the value types, inference from Python values, and storage columns.

Pure: no I/O. Events carry `StoredValue`s; projections turn them into TYPE_/TEXT_/... columns.
"""

from __future__ import annotations

import base64
import math
from datetime import UTC, date, datetime, timedelta
from typing import Any

import msgspec

from .errors import Rejected
from .expressions import Long

__all__ = [
    "StoredValue",
    "TypedValue",
    "from_stored",
    "rest_type_name",
    "storage_columns",
    "to_stored",
    "typed",
]

MAX_TEXT = 4000
EMPTY_STRING_MARKER = "!emptyString!"
JSON_OBJECT_SERIALIZER = "spin://application/json"

# REST type name -> serializer name stored in TYPE_ / VAR_TYPE_.
SERIALIZERS = {
    "Null": "null",
    "String": "string",
    "Boolean": "boolean",
    "Short": "short",
    "Integer": "integer",
    "Long": "long",
    "Double": "double",
    "Date": "date",
    "Bytes": "bytes",
    "Json": "json",
    "Object": JSON_OBJECT_SERIALIZER,
}
_REST_NAMES = {v: k for k, v in SERIALIZERS.items()}
_INT_RANGES = {"short": (-(2**15), 2**15), "integer": (-(2**31), 2**31), "long": (-(2**63), 2**63)}
_json_encoder = msgspec.json.Encoder()
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class TypedValue(msgspec.Struct, frozen=True):
    """A value with an explicit Camunda type: TypedValue("Long", 5), TypedValue("Json", {...})."""

    type: str
    value: Any
    value_info: dict[str, Any] | None = None


class StoredValue(msgspec.Struct, frozen=True, omit_defaults=True):
    """A variable value as recorded in events: serializer name plus a JSON-safe value.

    dates are epoch milliseconds, bytes are base64 text, Json/Object values are JSON text.
    """

    type: str
    value: str | int | float | bool | None = None
    info: dict[str, str] | None = None


def typed(type_name: str, value: Any, **value_info: Any) -> TypedValue:
    return TypedValue(type_name, value, value_info or None)


def rest_type_name(serializer: str) -> str:
    return _REST_NAMES.get(serializer, serializer.capitalize())


def _epoch_ms(value: datetime | date) -> int:
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day, tzinfo=UTC)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return (value - _EPOCH) // timedelta(milliseconds=1)


def _parse_date(text: str) -> datetime:
    # Camunda's REST date format has an offset without colon: 2026-12-02T16:31:40.000+0000
    s = text.strip()
    if len(s) >= 5 and s[-5] in "+-" and s[-4:].isdigit() and ":" not in s[-5:]:
        s = s[:-2] + ":" + s[-2:]
    s = s.replace("Z", "+00:00")
    parsed = datetime.fromisoformat(s)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _check_text(name: str, text: str) -> str:
    if "\x00" in text:
        # PostgreSQL's text columns cannot hold NUL: refused alike on every database
        raise Rejected(f"Variable '{name}': a String value must not contain NUL characters")
    if len(text) > MAX_TEXT:
        raise Rejected(
            f"Variable '{name}': a String value may hold at most {MAX_TEXT} characters "
            f"(got {len(text)}); store long text as Json or Bytes"
        )
    return text


def _finite(name: str, value: float) -> float:
    # JSON (the log) and MySQL's DOUBLE cannot hold them; refusing beats storing a silent null.
    if not math.isfinite(value):
        raise Rejected(f"Variable '{name}': a Double must be a finite number, not {value!r}")
    return value


def _int(name: str, serializer: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise Rejected(f"Variable '{name}': {value!r} is not a valid {rest_type_name(serializer)}")
    try:
        number = int(value)
    except ValueError:
        raise Rejected(
            f"Variable '{name}': {value!r} is not a valid {rest_type_name(serializer)}"
        ) from None
    low, high = _INT_RANGES[serializer]
    if not low <= number < high:
        raise Rejected(
            f"Variable '{name}': {number} is out of range for {rest_type_name(serializer)}"
        )
    return number


def _explicit(name: str, tv: TypedValue) -> StoredValue:
    serializer = SERIALIZERS.get(tv.type) or SERIALIZERS.get(tv.type.capitalize())
    if serializer is None:
        raise Rejected(f"Variable '{name}': unsupported value type '{tv.type}'")
    value = tv.value
    if value is None:
        return StoredValue(serializer if serializer != "null" else "null")
    if serializer in _INT_RANGES:
        return StoredValue(serializer, _int(name, serializer, value))
    if serializer == "string":
        return StoredValue("string", _check_text(name, str(value)))
    if serializer == "boolean":
        if isinstance(value, str):
            if value.lower() not in ("true", "false"):
                raise Rejected(f"Variable '{name}': {value!r} is not a valid Boolean")
            value = value.lower() == "true"
        return StoredValue("boolean", bool(value))
    if serializer == "double":
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise Rejected(f"Variable '{name}': {value!r} is not a valid Double") from None
        return StoredValue("double", _finite(name, number))
    if serializer == "date":
        if isinstance(value, str):
            try:
                value = _parse_date(value)
            except ValueError:
                raise Rejected(f"Variable '{name}': {value!r} is not a valid Date") from None
        if not isinstance(value, date):
            raise Rejected(f"Variable '{name}': {value!r} is not a valid Date")
        return StoredValue("date", _epoch_ms(value))
    if serializer == "bytes":
        if isinstance(value, str):
            try:
                value = base64.b64decode(value, validate=True)
            except ValueError:
                raise Rejected(f"Variable '{name}': Bytes must be base64 text") from None
        return StoredValue("bytes", base64.b64encode(bytes(value)).decode())
    # json and object: keep the JSON text exactly as given when it is text already
    if isinstance(value, str):
        try:
            msgspec.json.decode(value)
        except msgspec.DecodeError:
            raise Rejected(f"Variable '{name}': {tv.type} value is not valid JSON") from None
        text = value
    else:
        try:
            text = _json_encoder.encode(value).decode()
        except TypeError:
            raise Rejected(f"Variable '{name}': value is not JSON-serializable") from None
    info = None
    if serializer == JSON_OBJECT_SERIALIZER:
        vi = tv.value_info or {}
        info = {
            "objectTypeName": str(vi.get("objectTypeName") or "java.util.LinkedHashMap"),
            "serializationDataFormat": "application/json",
        }
    return StoredValue(serializer, text, info)


def to_stored(name: str, value: Any) -> StoredValue:
    """Infer the Camunda type of a Python value (or honour a TypedValue) and encode it."""
    if isinstance(value, TypedValue):
        return _explicit(name, value)
    if value is None:
        return StoredValue("null")
    if isinstance(value, bool):
        return StoredValue("boolean", value)
    if isinstance(value, Long):
        return StoredValue("long", _int(name, "long", value))
    if isinstance(value, int):
        return StoredValue(
            "integer" if -(2**31) <= value < 2**31 else "long", _int(name, "long", value)
        )
    if isinstance(value, float):
        return StoredValue("double", _finite(name, value))
    if isinstance(value, str):
        return StoredValue("string", _check_text(name, value))
    if isinstance(value, datetime | date):
        return StoredValue("date", _epoch_ms(value))
    if isinstance(value, bytes | bytearray | memoryview):
        return StoredValue("bytes", base64.b64encode(bytes(value)).decode())
    if isinstance(value, dict | list | tuple):
        try:
            return StoredValue("json", _json_encoder.encode(value).decode())
        except TypeError:
            raise Rejected(f"Variable '{name}': value is not JSON-serializable") from None
    raise Rejected(
        f"Variable '{name}': cannot store a value of Python type {type(value).__name__}; "
        "use str, int, float, bool, datetime, bytes, dict/list (Json) or a TypedValue"
    )


def from_stored(stored: StoredValue) -> Any:
    """The Python value of a stored variable."""
    t = stored.type
    v = stored.value
    if v is None:
        return None
    if t == "long":
        return Long(int(v))
    if t in ("short", "integer"):
        return int(v)
    if t == "date":
        return datetime.fromtimestamp(int(v) / 1000, tz=UTC)
    if t == "bytes":
        return base64.b64decode(str(v))
    if t in ("json", JSON_OBJECT_SERIALIZER):
        return msgspec.json.decode(str(v))
    return v


class Columns(msgspec.Struct, frozen=True):
    """The storage columns of one value in ACT_RU_VARIABLE / ACT_HI_VARINST / ACT_HI_DETAIL."""

    text: str | None = None
    text2: str | None = None
    long: int | None = None
    double: float | None = None
    data: bytes | None = None  # goes to ACT_GE_BYTEARRAY, referenced by BYTEARRAY_ID_


def storage_columns(stored: StoredValue) -> Columns:
    t = stored.type
    v = stored.value
    if v is None:
        return Columns()
    if t == "string":
        text = str(v)
        return Columns(text2=EMPTY_STRING_MARKER) if text == "" else Columns(text=text)
    if t == "boolean":
        return Columns(long=1 if v else 0)
    if t in _INT_RANGES:
        return Columns(long=int(v), text=str(int(v)))
    if t == "double":
        return Columns(double=float(v))
    if t == "date":
        return Columns(long=int(v))
    if t == "bytes":
        return Columns(data=base64.b64decode(str(v)))
    if t == JSON_OBJECT_SERIALIZER:
        info = stored.info or {}
        return Columns(data=str(v).encode(), text2=info.get("objectTypeName"))
    return Columns(data=str(v).encode())


def stored_from_columns(
    serializer: str,
    *,
    text: str | None = None,
    text2: str | None = None,
    long: int | None = None,
    double: float | None = None,
    data: bytes | None = None,
) -> StoredValue:
    """The inverse of `storage_columns`: read a value back from its table columns."""
    if serializer == "string":
        if text is None:
            return StoredValue("string", "" if text2 == EMPTY_STRING_MARKER else None)
        return StoredValue("string", text)
    if serializer == "boolean":
        return StoredValue("boolean", None if long is None else bool(long))
    if serializer in _INT_RANGES or serializer == "date":
        return StoredValue(serializer, long)
    if serializer == "double":
        return StoredValue("double", double)
    if serializer == "bytes":
        return StoredValue("bytes", None if data is None else base64.b64encode(data).decode())
    if serializer == JSON_OBJECT_SERIALIZER:
        info = {"objectTypeName": text2 or "", "serializationDataFormat": "application/json"}
        return StoredValue(serializer, None if data is None else data.decode(), info)
    if serializer == "json":
        return StoredValue("json", None if data is None else data.decode())
    return StoredValue(serializer)
