"""Typed variables on the wire: `{"value", "type", "valueInfo"}` to engine values and back.

An untyped value (no type, or null) is inferred as Camunda does: bool → Boolean, int →
Integer/Long, float → Double, str → String, null → Null (lists and objects become Json).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import msgspec

from core import TypedValue
from core.variables import JSON_OBJECT_SERIALIZER, StoredValue, rest_type_name

from .errors import invalid
from .formats import format_date


class VariableValueDto(msgspec.Struct, rename="camel"):
    value: Any = None
    type: str | None = None
    value_info: dict[str, Any] | None = None


Variables = dict[str, VariableValueDto]


def engine_value(name: str, dto: VariableValueDto) -> Any:
    """The value to hand to the engine: the plain value, or a TypedValue when typed."""
    if not dto.type:
        return dto.value
    kind = dto.type[:1].upper() + dto.type[1:]
    if kind == "Object":
        fmt = (dto.value_info or {}).get("serializationDataFormat") or "application/json"
        if fmt != "application/json":
            raise invalid(
                f"Cannot put variable '{name}': serialization data format '{fmt}' is not "
                "supported (only application/json)"
            )
    elif kind in ("File", "Xml"):
        raise invalid(f"Cannot put variable '{name}': value type '{dto.type}' is not supported")
    return TypedValue(kind, dto.value, dto.value_info)


def engine_variables(dtos: Mapping[str, VariableValueDto] | None) -> dict[str, Any]:
    return {name: engine_value(name, dto) for name, dto in (dtos or {}).items()}


def value_dto(stored: StoredValue, *, deserialize: bool = True) -> VariableValueDto:
    """A stored value as Camunda's VariableValueDto (deserializeValues=false keeps Object
    values as their serialized JSON text)."""
    t = stored.type
    value: Any = stored.value
    info: dict[str, Any] = {}
    if t == "date" and value is not None:
        value = format_date(datetime.fromtimestamp(int(value) / 1000, tz=UTC))
    elif t == JSON_OBJECT_SERIALIZER:
        info = dict(stored.info or {})
        if deserialize and value is not None:
            value = msgspec.json.decode(str(value))
    return VariableValueDto(value=value, type=rest_type_name(t), value_info=info)


def variables_dto(
    values: Mapping[str, StoredValue], *, deserialize: bool = True
) -> dict[str, VariableValueDto]:
    return {name: value_dto(v, deserialize=deserialize) for name, v in values.items()}
