"""DTOs derived from read model rows: the row's fields camelCase in its order, dates as Camunda
writes them, a stored value as `type`/`value`/`valueInfo`, and only what a declaration says
differs (omitted, renamed, added) differing."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec

from flowledger.core.variables import JSON_OBJECT_SERIALIZER, StoredValue
from flowledger.rest.dto import FIRST, Added, build, derived, to_dto


class Row(msgspec.Struct, frozen=True):
    id: str
    started_at: datetime
    ended_at: datetime | None
    value: StoredValue
    internal_flag: bool
    resource_name: str


@derived(
    Row,
    omit=("internal_flag",),
    rename={"resource_name": "resource"},
    add=(
        Added("links", list[str], [], after=FIRST),
        Added("ended", bool, False, after="ended_at"),
        Added("tenant_id", str | None),
    ),
)
class RowDto(msgspec.Struct):
    """A DTO of Row."""


class RowWithMoreDto(RowDto, kw_only=True):
    more: int


JSON_VALUE = StoredValue(JSON_OBJECT_SERIALIZER, '{"a": [1, 2]}', {"objectTypeName": "Map"})
ROW = Row(
    "r1",
    datetime(2026, 12, 2, 16, 31, 40, 123456, tzinfo=UTC),
    None,
    JSON_VALUE,
    True,
    "model.bpmn",
)


def _wire_names(cls: type[msgspec.Struct]) -> list[str]:
    return [field.encode_name for field in msgspec.structs.fields(cls)]


def test_a_derived_dto_has_its_rows_fields_but_what_its_declaration_changes() -> None:
    assert _wire_names(RowDto) == [
        "links",
        "id",
        "startedAt",
        "endedAt",
        "ended",
        "type",
        "value",
        "valueInfo",
        "resource",
        "tenantId",
    ]
    assert RowDto.__name__ == "RowDto" and RowDto.__doc__ == "A DTO of Row."
    # A subclass adding fields keeps them after the derived ones on the wire.
    assert _wire_names(RowWithMoreDto)[-1] == "more"


def test_a_row_becomes_its_dto_with_dates_and_values_as_camunda_writes_them() -> None:
    dto = to_dto(RowDto, ROW)
    assert msgspec.json.decode(msgspec.json.encode(dto)) == {
        "links": [],
        "id": "r1",
        "startedAt": "2026-12-02T16:31:40.123+0000",
        "endedAt": None,
        "ended": False,
        "type": "Object",
        "value": {"a": [1, 2]},
        "valueInfo": {"objectTypeName": "Map"},
        "resource": "model.bpmn",
        "tenantId": None,
    }


def test_added_fields_take_given_values_and_values_stay_serialized_when_asked() -> None:
    dto = to_dto(RowDto, ROW, deserialize=False, ended=True, links=["self"])
    wire = msgspec.json.decode(msgspec.json.encode(dto))
    assert wire["value"] == '{"a": [1, 2]}'
    assert wire["ended"] is True and wire["links"] == ["self"]
    # A list default is a new list for every DTO.
    assert to_dto(RowDto, ROW).links == []


def test_a_dto_that_is_no_row_is_built_from_its_fields() -> None:
    fields = msgspec.structs.asdict(to_dto(RowDto, ROW))
    more = build(RowWithMoreDto, **fields, more=3)
    assert msgspec.json.decode(msgspec.json.encode(more))["more"] == 3
