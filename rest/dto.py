"""DTOs shared by several resources, and how a resource's result DTO is derived from the read
model's row: each resource module declares its DTOs beside its handlers.

A derived DTO has the fields of its row, in the row's order and named camelCase on the wire,
with dates as Camunda writes them and a stored variable value as Camunda's `type`, `value` and
`valueInfo`; a declaration only says which row fields Camunda's DTO lacks (`omit`), which it
names otherwise (`rename`), and which it has beside the row's (`add`, with their defaults).
Type checkers see the declared class only: code that reads a field of a derived DTO declares
it under `if TYPE_CHECKING:` in the class body.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple, TypeVar, Union, cast, get_args, get_origin

import msgspec

from flowledger.core.variables import StoredValue

from .formats import format_date
from .variables import value_dto

D = TypeVar("D", bound=msgspec.Struct)


class CountResultDto(msgspec.Struct):
    count: int


class LinkDto(msgspec.Struct):
    method: str
    href: str
    rel: str


def self_link(base_url: str, path: str) -> list[LinkDto]:
    return [LinkDto("GET", f"{base_url.rstrip('/')}{path}", "self")]


class Added(NamedTuple):
    """A field of a DTO that its row does not have: placed after the field `after` (at the end
    when None, at the start when `FIRST`), `default` when the caller gives no value."""

    name: str
    type: Any
    default: Any = None
    after: str | None = None


FIRST = ""  # `Added.after` for a field that comes first


# The three wire fields of a stored variable value (the first is `variableType` for details).
VALUE_FIELDS = ("type", "value", "value_info")


class _Field(NamedTuple):
    """How a DTO field is read from its row: the row attribute and the kind of conversion:
    "copy", "date", "given" (an added field), or the part of a stored value it is ("type",
    "value", "info")."""

    name: str
    source: str
    kind: str


_VALUE_PARTS = ("type", "value", "info")


def _is_date(annotation: Any) -> bool:
    if annotation is datetime:
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        return datetime in get_args(annotation)
    return False


def _row_fields(
    row: type[msgspec.Struct],
    omit: Collection[str],
    rename: Mapping[str, str],
    value_as: Sequence[str],
) -> list[tuple[_Field, Any]]:
    out: list[tuple[_Field, Any]] = []
    for field in msgspec.structs.fields(row):
        if field.name in omit:
            continue
        if field.type is StoredValue:
            types_ = (str | None, Any, dict[str, Any] | None)
            for name, part, annotation in zip(value_as, _VALUE_PARTS, types_, strict=True):
                out.append((_Field(name, field.name, part), annotation))
        elif _is_date(field.type):
            out.append((_Field(rename.get(field.name, field.name), field.name, "date"), str | None))
        else:
            out.append((_Field(rename.get(field.name, field.name), field.name, "copy"), field.type))
    return out


_PLANS: dict[type[msgspec.Struct], tuple[_Field, ...]] = {}


def derived(
    row: type[msgspec.Struct],
    *,
    omit: Collection[str] = (),
    rename: Mapping[str, str] | None = None,
    add: Sequence[Added] = (),
    value_as: Sequence[str] = VALUE_FIELDS,
) -> Callable[[type[D]], type[D]]:
    """Class decorator: the DTO declared (its name, docstring and base) gets the fields of
    `row` (see the module docstring); `value_as` names the wire fields of a stored value.
    The fields are keyword-only (an added one with its default may come first): a subclass that
    adds fields declares `kw_only=True` too, so that they follow these on the wire."""

    def make(declared: type[D]) -> type[D]:
        fields = _row_fields(row, omit, rename or {}, value_as)
        for extra in add:
            if extra.after is None:
                at = len(fields)
            elif extra.after == FIRST:
                at = 0
            else:
                at = 1 + next(i for i, (f, _t) in enumerate(fields) if f.name == extra.after)
            fields.insert(at, (_Field(extra.name, extra.name, "given"), extra.type))
        defaults = {extra.name: extra.default for extra in add}
        # (msgspec copies an empty list or dict default for every instance.)
        spec = [
            (f.name, annotation, defaults[f.name]) if f.kind == "given" else (f.name, annotation)
            for f, annotation in fields
        ]
        cls = msgspec.defstruct(
            declared.__name__,
            spec,
            bases=(declared,),
            module=declared.__module__,
            kw_only=True,
            rename="camel",
        )
        cls.__doc__ = declared.__doc__
        cls.__qualname__ = declared.__qualname__
        _PLANS[cls] = tuple(f for f, _t in fields if f.kind != "given")
        return cast(type[D], cls)

    return make


def to_dto(cls: type[D], row: msgspec.Struct, *, deserialize: bool = True, **given: Any) -> D:
    """The derived DTO `cls` of `row`; `given` are the added fields' values (their defaults
    when absent), `deserialize` Camunda's `deserializeValues` for a stored value."""
    values: dict[str, Any] = {}
    stored: dict[str, dict[str, Any]] = {}
    for field in _plan(cls):
        value = getattr(row, field.source)
        if field.kind == "copy":
            values[field.name] = value
        elif field.kind == "date":
            values[field.name] = format_date(value)
        else:
            if field.source not in stored:
                stored[field.source] = _stored(value, deserialize)
            values[field.name] = stored[field.source][field.kind]
    return cls(**values, **given)


def build(cls: type[D], **fields: Any) -> D:
    """A derived DTO from its fields by name, for answers that are not a row (a start's)."""
    return cls(**fields)


@cache
def _plan(cls: type[msgspec.Struct]) -> tuple[_Field, ...]:
    # A subclass of a derived DTO (one with more fields) reads its row as its base does.
    for base in cls.__mro__:
        if base in _PLANS:
            return _PLANS[base]
    raise TypeError(f"{cls.__name__} is not a DTO derived from a row")


def _stored(stored: StoredValue, deserialize: bool) -> dict[str, Any]:
    """The parts of a stored value on the wire, by `_VALUE_PARTS`."""
    dto = value_dto(stored, deserialize=deserialize)
    return {"type": dto.type, "value": dto.value, "info": dto.value_info}
