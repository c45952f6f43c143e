"""Query parameters as Camunda reads them: typed query Structs, paging, sorting.

GET lists take their filters from the query string (first value of a repeated key, as Camunda's
AbstractSearchQueryDto does; comma-separated lists; Java booleans); POST lists take the same
Struct as a JSON body, where null means "no filter".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import cache
from typing import Any, NamedTuple, TypeVar

import msgspec

from flowledger.core.limits import MAX_LIST_FILTER
from flowledger.projections.queries.variables import OPERATORS, VariableComparison

from .errors import invalid
from .formats import parse_bool, parse_date, split_list

S = TypeVar("S", bound=msgspec.Struct)
MAX_INT = 2**31 - 1  # Camunda's paging parameters are Java ints
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


class Sort(NamedTuple):
    by: str
    descending: bool


class SortingDto(msgspec.Struct, rename="camel"):
    """One entry of a JSON query's `sorting` list."""

    sort_by: str | None = None
    sort_order: str | None = None


def _kind(t: msgspec.inspect.Type) -> str:
    """'list', 'bool' or 'scalar' for a (possibly optional) field type."""
    if isinstance(t, msgspec.inspect.UnionType):
        inner = [x for x in t.types if not isinstance(x, msgspec.inspect.NoneType)]
        return _kind(inner[0]) if len(inner) == 1 else "scalar"
    if isinstance(t, msgspec.inspect.ListType | msgspec.inspect.SetType):
        return "list"
    if isinstance(t, msgspec.inspect.BoolType):
        return "bool"
    return "scalar"


@cache
def _field_kinds(cls: type[msgspec.Struct]) -> tuple[tuple[str, str], ...]:
    """(wire name, kind) of every field; inspecting a Struct costs milliseconds, so once."""
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return tuple((field.encode_name, _kind(field.type)) for field in info.fields)


def query_from_params(params: Mapping[str, str], cls: type[S]) -> S:
    """Fill the query Struct `cls` from GET parameters; unknown parameters are ignored."""
    raw: dict[str, Any] = {}
    for name, kind in _field_kinds(cls):
        text = params.get(name)
        if text is None:
            continue
        if kind == "list":
            raw[name] = split_list(text)
        elif kind == "bool":
            raw[name] = parse_bool(text)
        else:
            raw[name] = text
    try:
        query = msgspec.convert(raw, cls, strict=False)
    except msgspec.ValidationError as exc:
        raise invalid(f"Invalid query parameter: {exc}") from None
    check_query_limits(query)
    return query


def check_query_limits(query: msgspec.Struct) -> None:
    """Refuse, naming the parameter, what no database can bind: a list filter longer than
    MAX_LIST_FILTER values (each is one bind parameter; PostgreSQL takes at most 65,535 per
    statement, SQLite 32,766: a documented limit answers alike on every database, where
    binding them all would fail on one; one array parameter would work on PostgreSQL only),
    and an integer beyond 64 bits (SQLite's driver raises OverflowError binding it)."""
    pending: list[msgspec.Struct] = [query]
    while pending:
        struct = pending.pop()
        names = _field_names(type(struct))
        for (_name, wire_name), value in zip(names, msgspec.structs.astuple(struct), strict=True):
            if value is None:  # most filters of a query are unset
                continue
            if isinstance(value, int) and not isinstance(value, bool):
                _refuse_out_of_range(wire_name, value)
            elif isinstance(value, msgspec.Struct):
                pending.append(value)
            elif isinstance(value, list):
                _refuse_long_list(wire_name, value)
                for index, item in enumerate(value):
                    if isinstance(item, VariableComparison):
                        check_operator(f"{wire_name}[{index}].operator", item.operator)
                    if isinstance(item, msgspec.Struct):
                        pending.append(item)
                    elif isinstance(item, int) and not isinstance(item, bool):
                        _refuse_out_of_range(wire_name, item)


def check_operator(parameter: str, operator: str | None) -> None:
    """A variable filter's comparator: absent means `eq`; an empty or unknown one is refused
    naming where it was (Camunda's message, which alone does not say which filter)."""
    if operator is not None and operator not in OPERATORS:
        shown = operator or "'' (empty)"
        raise invalid(
            f"Invalid variable comparator specified: {shown} ({parameter} must be one of "
            f"{', '.join(OPERATORS)})"
        )


@cache
def _field_names(cls: type[msgspec.Struct]) -> tuple[tuple[str, str], ...]:
    """(attribute, wire name) of every field: `msgspec.structs.fields` resolves the type hints
    again on every call (a sixth of a REST server's time went there, measured with py-spy)."""
    return tuple((f.name, f.encode_name) for f in msgspec.structs.fields(cls))


def _refuse_long_list(name: str, values: list[Any]) -> None:
    if len(values) > MAX_LIST_FILTER:
        raise invalid(
            f"Cannot set query parameter '{name}': at most {MAX_LIST_FILTER} values are "
            f"allowed (got {len(values)})"
        )


def _refuse_out_of_range(name: str, value: int) -> None:
    if not LONG_MIN <= value <= LONG_MAX:
        raise invalid(
            f"Cannot set query parameter '{name}' to value '{value}': out of range of a "
            "64-bit integer"
        )


def flag(params: Mapping[str, str], name: str, default: bool = True) -> bool:
    """A boolean query parameter read as Java's Boolean.parseBoolean, `default` when absent."""
    text = params.get(name)
    return default if text is None else parse_bool(text)


def with_dates(params: Mapping[str, str], names: Collection[str]) -> dict[str, str]:
    """The first value of every query parameter, the date ones rewritten as ISO 8601 so that
    the query Struct reads them (Camunda writes `+0200`, without the colon)."""
    first = {key: params[key] for key in params}
    for name in names:
        text = first.get(name)
        if text:
            first[name] = parse_date(text, name).isoformat()
        elif text is not None:
            del first[name]
    return first


def _int_param(params: Mapping[str, str], name: str) -> int | None:
    text = params.get(name)
    if text is None:
        return None
    try:
        number = int(text)
    except ValueError:
        raise invalid(
            f"Cannot set query parameter '{name}' to value '{text}': not an integer"
        ) from None
    if not 0 <= number <= MAX_INT:
        raise invalid(
            f"Cannot set query parameter '{name}' to value '{text}': "
            f"must be between 0 and {MAX_INT}"
        )
    return number


def paging(params: Mapping[str, str]) -> tuple[int, int | None]:
    """`firstResult` and `maxResults` (always query parameters, also for POST queries)."""
    return _int_param(params, "firstResult") or 0, _int_param(params, "maxResults")


def _sort(by: str | None, order: str | None, allowed: Collection[str]) -> Sort:
    if by is None or order is None:
        raise invalid("Only a single sorting parameter specified. sortBy and sortOrder required")
    if by not in allowed:
        raise invalid(f"Cannot set query parameter 'sortBy' to value '{by}'")
    if order not in ("asc", "desc"):
        raise invalid(f"Cannot set query parameter 'sortOrder' to value '{order}'")
    return Sort(by, order == "desc")


def sorting_from_params(params: Mapping[str, str], allowed: Collection[str]) -> list[Sort]:
    by, order = params.get("sortBy"), params.get("sortOrder")
    if by is None and order is None:
        return []
    return [_sort(by, order, allowed)]


def sorting_from_body(
    sorting: list[SortingDto] | SortingDto | None, allowed: Collection[str]
) -> list[Sort]:
    """A JSON query's `sorting`: a list of {sortBy, sortOrder} (camunda-client sends one
    object instead of a list; accepted too)."""
    if sorting is None:
        return []
    items = [sorting] if isinstance(sorting, SortingDto) else sorting
    return [_sort(s.sort_by, s.sort_order, allowed) for s in items]


def page(items: list[Any], first: int, maximum: int | None) -> list[Any]:
    """Paging applied in Python, for lists the query did not page itself."""
    return items[first : None if maximum is None else first + maximum]
