"""The building blocks every search of this package uses: the error a bad filter raises, query
dates, filter conditions (per column, or per query field from a table of (field, column)),
ordering with a chosen place for nulls, and paging.

Two families of filter builders, because Camunda's queries disagree on what an empty `...In`
list means: `one_of` (runtime, repository, external tasks: an empty list matches nothing) and
`member_fields` (history, tasks: an empty list filters nothing).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from sqlalchemy import ColumnElement, Select, false, or_

# (sortBy, descending) pairs, in order of precedence; rest.params.Sort is one.
Sorting = Sequence[tuple[str, bool]]
Condition = ColumnElement[bool]
# (query attribute, column or condition): a table of filters of one kind.
Spec = Sequence[tuple[str, Any]]

# Camunda's LIKE filters escape with a backslash on every database.
LIKE_ESCAPE = "\\"

# SUSPENSION_STATE_ values.
ACTIVE = 1
SUSPENDED = 2

MILLISECOND = timedelta(milliseconds=1)
_LATEST = datetime.max.replace(tzinfo=UTC) - MILLISECOND


class InvalidQuery(ValueError):
    """A filter the query cannot run as given (unknown comparator, `gt` on a boolean, a bad
    date, ...); the message is meant for the client (a 400 in the REST API)."""


# -- dates ----------------------------------------------------------------------------------------


def utc(moment: datetime | None) -> datetime | None:
    """Table timestamps are naive UTC; results carry aware datetimes."""
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def naive_utc(moment: datetime) -> datetime:
    """Table timestamps are naive UTC; a moment without offset is taken as UTC already."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


def parse_moment(text: str, parameter: str) -> datetime:
    """A query date in Camunda's format (`2026-12-02T16:31:40.000+0000`; `+02:00`, `Z` and no
    offset, meaning UTC, are accepted too), in UTC."""
    s = text.strip()
    if len(s) >= 5 and s[-5] in "+-" and s[-4:].isdigit():
        s = s[:-2] + ":" + s[-2:]
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(s)
        parsed = parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)
        if parsed > _LATEST:
            raise OverflowError  # the end of an `On` millisecond must exist too
    except (ValueError, OverflowError):
        raise InvalidQuery(
            f"Cannot set query parameter '{parameter}' to value '{text}': "
            "expected a date like 2026-12-02T16:31:40.000+0000"
        ) from None
    return parsed


# -- filters on one column: a list of none or one condition, to splat into a WHERE ----------------


def equal(column: ColumnElement[Any], value: object) -> list[Condition]:
    return [] if value is None else [column == value]


def like(column: ColumnElement[Any], pattern: str | None) -> list[Condition]:
    return [] if pattern is None else [column.like(pattern, escape=LIKE_ESCAPE)]


def one_of(column: ColumnElement[Any], values: list[str] | None) -> list[Condition]:
    """An `...In` list; an empty list matches nothing."""
    if values is None:
        return []
    return [column.in_(values) if values else false()]


def suspension(
    column: ColumnElement[Any], active: bool | None, suspended: bool | None
) -> list[Condition]:
    # Camunda: `active=false` / `suspended=false` mean "no filter", not the opposite state.
    out = []
    if active:
        out.append(column == ACTIVE)
    if suspended:
        out.append(column == SUSPENDED)
    return out


def tenants(
    column: ColumnElement[Any],
    tenant_ids: list[str] | None,
    without_tenant: bool | None,
    include_without_tenant: bool | None = None,
) -> list[Condition]:
    """`tenantIdIn` (empty: no tenant matches), optionally `include...WithoutTenantId`, and
    `withoutTenantId`."""
    conditions: list[Condition] = []
    if tenant_ids is not None:
        in_tenants: Condition = column.in_(tenant_ids) if tenant_ids else false()
        if include_without_tenant:
            in_tenants = or_(in_tenants, column.is_(None))
        conditions.append(in_tenants)
    if without_tenant:
        conditions.append(column.is_(None))
    return conditions


def nothing_when_set(*filters: object) -> list[Condition]:
    """Filters on what this engine never records (incidents, jobs, cases, event
    subscriptions): any of them set (not null, false or an empty list) matches nothing."""
    if any(f is not None and f is not False and f != [] for f in filters):
        return [false()]
    return []


# -- filters on the fields of a query Struct, one table of (field, column) per kind --------------


def equal_fields(q: object, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        value = getattr(q, attr)
        if value is not None:
            yield column == value


def member_fields(q: object, spec: Spec) -> Iterator[Condition]:
    """`...In` lists; an empty list filters nothing."""
    for attr, column in spec:
        values = getattr(q, attr)
        if values:
            yield column.in_(list(values))


def like_fields(q: object, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        value = getattr(q, attr)
        if value is not None:
            yield column.like(value, escape=LIKE_ESCAPE)


def flag_fields(q: object, spec: Spec) -> Iterator[Condition]:
    """Boolean filters: only `true` filters ("false is the default behavior" in Camunda)."""
    for attr, condition in spec:
        if getattr(q, attr) is True:
            yield condition


# -- sorting and paging --------------------------------------------------------------------


def order(
    columns: Mapping[str, Any], sorting: Sorting, nulls: Literal["high", "low"] | None = None
) -> list[Any]:
    """ORDER BY terms for the requested sorting. `nulls` places nulls the same on every
    database: "high" sorts them as above every value (last ascending, first descending, as
    PostgreSQL does), "low" as below every value; None leaves it to the database."""
    terms: list[Any] = []
    for by, descending in sorting:
        column = columns.get(by)
        if column is None:
            raise InvalidQuery(f"Cannot set query parameter 'sortBy' to value '{by}'")
        if nulls is not None and getattr(column, "nullable", True):
            missing = column.is_(None)
            terms.append(missing.desc() if descending == (nulls == "high") else missing.asc())
        terms.append(column.desc() if descending else column.asc())
    return terms


def page(stmt: Select[Any], first: int, maximum: int | None) -> Select[Any]:
    if first:
        stmt = stmt.offset(first)
    if maximum is not None:
        stmt = stmt.limit(maximum)
    return stmt
