"""Typed variables on the wire: `{"value", "type", "valueInfo"}` to engine values and back.

An untyped value (no type, or null) is inferred as Camunda does: bool → Boolean, int →
Integer/Long, float → Double, str → String, null → Null (lists and objects become Json).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import msgspec
from litestar import Request, Response

from flowledger.core import NotFound, TypedValue
from flowledger.core.variables import JSON_OBJECT_SERIALIZER, StoredValue, rest_type_name
from flowledger.engine import Engine
from flowledger.projections.queries import reads as queries

from .errors import RestError, invalid
from .formats import format_date


class VariableValueDto(msgspec.Struct, rename="camel"):
    value: Any = None
    type: str | None = None
    value_info: dict[str, Any] | None = None


Variables = dict[str, VariableValueDto]


class PatchVariablesDto(msgspec.Struct, rename="camel"):
    """Camunda's `{modifications, deletions}` of `POST .../variables`."""

    modifications: dict[str, VariableValueDto] | None = None
    deletions: list[str] | None = None


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


def wire_variables(dtos: Mapping[str, VariableValueDto] | None) -> dict[str, Any]:
    """`engine_variables`, refusing NUL characters in names and in text values (PostgreSQL's
    text columns cannot hold them)."""
    for name, dto in (dtos or {}).items():
        if "\x00" in name or (isinstance(dto.value, str) and "\x00" in dto.value):
            raise invalid(
                f"Cannot set variable {name!r}: names and String values cannot contain NUL "
                "characters"
            )
    return engine_variables(dtos)


def decoded_size(*maps: Mapping[str, VariableValueDto] | None) -> int:
    """An upper bound of the bytes the variables' names and text values take once decoded
    (Bytes are base64 text: their decoded size is at most the text's length)."""
    return sum(
        len(name) + (len(dto.value) if isinstance(dto.value, str) else 0)
        for dtos in maps
        for name, dto in (dtos or {}).items()
    )


def check_decoded_size(
    request: Request[Any, Any, Any], *maps: Mapping[str, VariableValueDto] | None
) -> None:
    """The request body limit (`flowledger serve --max-body-mb`) holds for what the variables
    become too, not only for the JSON that carries them: no typed value may grow when decoded
    (a Bytes value is base64 text, never a length to allocate)."""
    limit = request.app.request_max_body_size
    size = decoded_size(*maps)
    if isinstance(limit, int) and size > limit:
        raise RestError(
            413,
            "InvalidRequestException",
            f"The variables of the request take {size} bytes once decoded, more than the "
            f"request body limit of {limit} bytes (flowledger serve --max-body-mb)",
        )


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


def binary_response(stored: StoredValue, not_binary: str) -> Response[bytes]:
    """A Bytes value as `application/octet-stream`; any other type is a 400 (as Camunda)."""
    if stored.type != "bytes":
        raise invalid(not_binary)
    data = base64.b64decode(str(stored.value)) if stored.value is not None else b""
    return Response(content=data, media_type="application/octet-stream", status_code=200)


def instance_variables_after(
    engine: Engine, instance_id: str, *, running: bool = True
) -> dict[str, StoredValue]:
    """A process instance's own variables once a command is done (what Camunda returns with
    `withVariablesInReturn`): live while it runs, else (or when `running` is false) their last
    values from history (ACT_HI_VARINST; empty at history level none)."""
    if running:
        try:
            return engine.runtime_service.get_variable_values(instance_id, local=True)
        except NotFound:
            pass
    if engine.history_mode == "async":
        engine.flush_history()
    with engine.reading() as conn:
        rows = queries.historic_variable_rows(conn, instance_id)
    return {
        m["NAME_"]: stored
        for m, stored in rows
        if m["EXECUTION_ID_"] == instance_id and m["TASK_ID_"] is None and m["STATE_"] != "DELETED"
    }
