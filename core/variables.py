"""Camunda 7 variable values: the value types, inference from Python values, and storage columns.

Pure: no I/O. Events carry `StoredValue`s; projections turn them into TYPE_/TEXT_/... columns.
"""

from __future__ import annotations

import base64
import math
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

import msgspec

from .errors import InvalidValue
from .expressions import Long
from .limits import MAX_JSON_NESTING, MAX_TEXT, MAX_VARIABLE_NAME, check_text, json_nesting_exceeds

__all__ = [
    "StoredValue",
    "TypedValue",
    "from_stored",
    "rest_type_name",
    "storage_columns",
    "to_stored",
    "typed",
]

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


def _plain(value: Any) -> Any:
    # A JUEL Long (an int subclass msgspec does not encode) inside a list or map, e.g. an
    # arithmetic result in a mapped camunda:map, is a JSON number as any int.
    if isinstance(value, int):
        return int(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


_json_encoder = msgspec.json.Encoder(enc_hook=_plain)
# What Jackson reads as a number from JSON text; Python's int()/float() also take "1_000",
# " 12 " or "infinity", which Camunda does not.
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_DATE_TEXT = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?"
    r"(Z|[+-][0-9]{2}:?[0-9]{2})?"
)
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


def _shown(name: str) -> str:
    """A variable name for a message: quoted, escaped (a NUL stays visible), and cut short."""
    return repr(name if len(name) <= 60 else name[:60] + "...")


def _refuse(name: str, problem: str) -> InvalidValue:
    return InvalidValue(f"Variable {_shown(name)}: {problem}")


def _check_name(name: Any) -> str:
    if not isinstance(name, str):
        raise InvalidValue(f"A variable name must be text, not {type(name).__name__}")
    check_text("Variable name", name)
    if len(name) > MAX_VARIABLE_NAME:
        raise InvalidValue(
            f"Variable name {_shown(name)} is too long: at most {MAX_VARIABLE_NAME} characters "
            f"(got {len(name)})",
            "variable name",
            MAX_VARIABLE_NAME,
        )
    return name


def _check_text(name: str, text: str) -> str:
    if "\x00" in text:
        # PostgreSQL's text columns cannot hold NUL: refused alike on every database
        raise _refuse(name, "a String value must not contain NUL characters")
    if len(text) > MAX_TEXT:
        raise InvalidValue(
            f"Variable {_shown(name)}: a String value may hold at most {MAX_TEXT} characters "
            f"(got {len(text)}); store long text as Json or Bytes",
            "String value",
            MAX_TEXT,
        )
    return text


def _finite(name: str, value: float) -> float:
    # JSON (the log) and MySQL's DOUBLE cannot hold them; refusing beats storing a silent null.
    if not math.isfinite(value):
        raise _refuse(name, f"a Double must be a finite number, not {value!r}")
    return value


def _value_shown(value: Any) -> str:
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    if isinstance(value, int | float | bool | None):
        return repr(value)
    return _kind(value)


def _not_a(name: str, value: Any, type_name: str) -> InvalidValue:
    return _refuse(name, f"{_value_shown(value)} is not a valid {type_name}")


def _int(name: str, serializer: str, value: Any) -> int:
    """Integer/Short/Long: an integral number, or its decimal text (Jackson, which Camunda's
    REST converts with, reads "12" too). 1.5 is refused where Jackson would cut it to 1."""
    type_name = rest_type_name(serializer)
    if isinstance(value, bool):
        raise _not_a(name, value, type_name)
    if isinstance(value, float):
        if not value.is_integer():
            raise _not_a(name, value, type_name)
        value = int(value)
    elif isinstance(value, str):
        if not _INTEGER_TEXT.fullmatch(value):
            raise _not_a(name, value, type_name)
        value = int(value)
    elif not isinstance(value, int):
        raise _not_a(name, value, type_name)
    number = int(value)
    low, high = _INT_RANGES[serializer]
    if not low <= number < high:
        raise _refuse(name, f"{number} is out of range for {type_name} ({low} to {high - 1})")
    return number


def _double(name: str, value: Any) -> float:
    """Double: a number, or its decimal text (as Jackson reads it)."""
    if isinstance(value, bool):
        raise _not_a(name, value, "Double")
    if isinstance(value, str):
        if not _NUMBER_TEXT.fullmatch(value):
            raise _not_a(name, value, "Double")
    elif not isinstance(value, int | float):
        raise _not_a(name, value, "Double")
    try:
        number = float(value)
    except OverflowError:
        raise _refuse(name, "the number is too large for a Double") from None
    return _finite(name, number)


def _boolean(name: str, value: Any) -> bool:
    """Boolean: true/false, or the text "true"/"false" (any case, as Jackson reads it)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise _not_a(name, value, "Boolean")


def _date(name: str, value: Any) -> int:
    """Date: a date-time text in Camunda's format (2026-12-02T16:31:40.000+0000; a colon in
    the offset, `Z` or no offset are read too), or a Python date/datetime."""
    if isinstance(value, str):
        if not _DATE_TEXT.fullmatch(value):
            raise _refuse(
                name,
                f"{_value_shown(value)} is not a valid Date (expected yyyy-MM-dd'T'HH:mm:ss.SSSZ)",
            )
        try:
            value = _parse_date(value)
        except ValueError:
            raise _not_a(name, value, "Date") from None
    if not isinstance(value, date):
        raise _not_a(name, value, "Date")
    return _epoch_ms(value)


def _bytes(name: str, value: Any) -> str:
    """Bytes: base64 text (the wire), or bytes/bytearray/memoryview (Python). Numbers, lists
    and objects are refused: bytes(100000000) would be 100 MB of zeros."""
    if isinstance(value, str):
        try:
            data = base64.b64decode(value, validate=True)
        except ValueError:
            raise _refuse(name, "a Bytes value must be base64 text") from None
        return base64.b64encode(data).decode()
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode()
    raise _refuse(
        name, f"a Bytes value must be base64 text (or bytes in Python), not {_kind(value)}"
    )


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", bool: "a boolean", float: "a number"}
    if isinstance(value, int) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)


def _json_text(name: str, tv: TypedValue) -> str:
    """Json/Object: valid JSON text, or a value that encodes as JSON, nested at most
    MAX_JSON_NESTING levels (deeper would exhaust Python's recursion limit on the way)."""
    value = tv.value
    if isinstance(value, str):
        try:
            decoded = msgspec.json.decode(value)
        except RecursionError:  # msgspec counts nesting against Python's recursion limit
            raise _too_deep(name) from None
        except msgspec.DecodeError:
            raise _refuse(name, f"{tv.type} value is not valid JSON") from None
        if json_nesting_exceeds(decoded):
            raise _too_deep(name)
        return value
    return _encoded_json(name, value)


def _encoded_json(name: str, value: Any) -> str:
    if json_nesting_exceeds(value):
        raise _too_deep(name)
    try:
        return _json_encoder.encode(value).decode()
    except TypeError:
        raise _refuse(name, "value is not JSON-serializable") from None


def _too_deep(name: str) -> InvalidValue:
    return InvalidValue(
        f"Variable {_shown(name)}: the value nests lists/objects deeper than "
        f"{MAX_JSON_NESTING} levels",
        "nesting",
        MAX_JSON_NESTING,
    )


def _explicit(name: str, tv: TypedValue) -> StoredValue:
    stored = _explicit_value(name, tv)
    if tv.value_info and tv.value_info.get("personalData") in (True, "true"):
        # Marked personal through the API: sealed in the log (core.personal_data.flagged).
        return StoredValue(
            stored.type, stored.value, {**(stored.info or {}), "personalData": "true"}
        )
    return stored


def _explicit_value(name: str, tv: TypedValue) -> StoredValue:
    serializer = SERIALIZERS.get(tv.type) or SERIALIZERS.get(tv.type.capitalize())
    if serializer is None:
        raise _refuse(name, f"unsupported value type '{tv.type}'")
    value = tv.value
    if value is None:
        return StoredValue(serializer)
    if serializer == "null":
        raise _refuse(name, "a Null value must be null")
    if serializer in _INT_RANGES:
        return StoredValue(serializer, _int(name, serializer, value))
    if serializer == "string":
        if not isinstance(value, str):
            raise _refuse(name, f"a String value must be text, not {_kind(value)}")
        return StoredValue("string", _check_text(name, value))
    if serializer == "boolean":
        return StoredValue("boolean", _boolean(name, value))
    if serializer == "double":
        return StoredValue("double", _double(name, value))
    if serializer == "date":
        return StoredValue("date", _date(name, value))
    if serializer == "bytes":
        return StoredValue("bytes", _bytes(name, value))
    # json and object: keep the JSON text exactly as given when it is text already
    text = _json_text(name, tv)
    info = None
    if serializer == JSON_OBJECT_SERIALIZER:
        vi = tv.value_info or {}
        info = {
            "objectTypeName": str(vi.get("objectTypeName") or "java.util.LinkedHashMap"),
            "serializationDataFormat": "application/json",
        }
        check_text("valueInfo.objectTypeName", info["objectTypeName"], MAX_TEXT)
    return StoredValue(serializer, text, info)


def to_stored(name: str, value: Any) -> StoredValue:
    """Infer the Camunda type of a Python value (or honour a TypedValue) and encode it; a
    StoredValue is taken as it is."""
    _check_name(name)
    if isinstance(value, TypedValue):
        return _explicit(name, value)
    if isinstance(value, StoredValue):
        return value  # stored already (a batch's variables, checked when the batch was made)
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
        return StoredValue("json", _encoded_json(name, value))
    raise InvalidValue(
        f"Variable {_shown(name)}: cannot store a value of Python type {type(value).__name__}; "
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
