"""The building blocks every search of this package uses: the error a bad filter raises, query
dates, filter conditions (per column, or per query field from a table of (field, column)),
ordering with a chosen place for nulls, and paging.

Two families of filter builders, because Camunda's queries disagree on what an empty `...In`
list means: `one_of` (runtime, repository, external tasks: an empty list matches nothing) and
`member_fields` (history, tasks: an empty list filters nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from sqlalchemy import ColumnElement, Select, false, or_
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql import operators
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import BinaryExpression, BooleanClauseList, Null
from sqlalchemy.sql.visitors import InternalTraversal

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


def stored_moment(value: datetime, parameter: str) -> datetime:
    """`value` as the tables hold moments (naive UTC); a date that has none (year 1 east of
    Greenwich, 9999 west of it) is the client's mistake."""
    try:
        return naive_utc(value)
    except OverflowError:
        raise InvalidQuery(
            f"Cannot set query parameter '{parameter}' to value '{value.isoformat()}': "
            "out of the range of dates"
        ) from None


def camel(attribute: str) -> str:
    """A query Struct's attribute as the client named the parameter (`started_before`:
    `startedBefore`)."""
    head, *rest = attribute.split("_")
    return head + "".join(part.capitalize() for part in rest)


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


class _NullsPlaced(ColumnElement[Any]):
    """An ORDER BY term that places nulls the same on every database: "high" (above every
    value) or low. PostgreSQL sorts nulls high by itself and says otherwise in SQL; SQLite and
    MySQL/MariaDB sort them low and need a `column IS NULL` term before the column for "high".
    Where the database's own place is the one asked for, the term is the plain column, so an
    index on it can give the order (a sort of the whole table otherwise)."""

    inherit_cache = True
    _traverse_internals = [
        ("column", InternalTraversal.dp_clauseelement),
        ("descending", InternalTraversal.dp_boolean),
        ("high", InternalTraversal.dp_boolean),
    ]

    def __init__(self, column: ColumnElement[Any], descending: bool, high: bool) -> None:
        self.column = column
        self.descending = descending
        self.high = high

    def plain(self) -> Any:
        return self.column.desc() if self.descending else self.column.asc()


@compiles(_NullsPlaced)
def _nulls_low_natively(element: _NullsPlaced, compiler: SQLCompiler, **kw: Any) -> str:
    plain = compiler.process(element.plain(), **kw)
    if not element.high:
        return plain
    missing = element.column.is_(None)
    # Nulls first when descending, last when ascending: IS NULL (1 for nulls) in the same order.
    placed = missing.desc() if element.descending else missing.asc()
    return f"{compiler.process(placed, **kw)}, {plain}"


@compiles(_NullsPlaced, "postgresql")
def _nulls_high_natively(element: _NullsPlaced, compiler: SQLCompiler, **kw: Any) -> str:
    plain = compiler.process(element.plain(), **kw)
    if element.high:
        return plain
    return f"{plain} NULLS {'LAST' if element.descending else 'FIRST'}"


class NotIndexed(ColumnElement[Any]):
    """`column` as the operand of a condition that SQLite's planner must not look up in an index
    (SQLite's unary `+`; the plain column elsewhere). SQLite plans without statistics and takes
    every `column = x` or `column IS NULL` on an indexed column for a few rows: for a condition
    that holds for a large part of a table (`unfinished`) it would read all of them through that
    index, rather than the few rows of a selective filter beside it (one process instance's
    activities) or the list's order from another index."""

    inherit_cache = True
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement)]

    def __init__(self, column: ColumnElement[Any]) -> None:
        self.column = column
        self.type = column.type


@compiles(NotIndexed)
def _indexable_elsewhere(element: NotIndexed, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.column, **kw)


@compiles(NotIndexed, "sqlite")
def _not_indexed_on_sqlite(element: NotIndexed, compiler: SQLCompiler, **kw: Any) -> str:
    return f"+{compiler.process(element.column, **kw)}"


def never_null(conditions: Iterable[Any]) -> list[ColumnElement[Any]]:
    """The columns that `column IS NOT NULL` among these (AND-ed) conditions rules out nulls of."""
    found: list[ColumnElement[Any]] = []
    for condition in conditions:
        if isinstance(condition, BooleanClauseList) and condition.operator is operators.and_:
            found += never_null(condition.clauses)
        elif (
            isinstance(condition, BinaryExpression)
            and condition.operator is operators.is_not
            and isinstance(condition.right, Null)
        ):
            found.append(condition.left)
    return found


def order(
    columns: Mapping[str, Any],
    sorting: Sorting,
    nulls: Literal["high", "low"] | None = None,
    filled: Sequence[ColumnElement[Any]] = (),
) -> list[Any]:
    """ORDER BY terms for the requested sorting. `nulls` places nulls the same on every
    database: "high" sorts them as above every value (last ascending, first descending, as
    PostgreSQL does), "low" as below every value; None leaves it to the database. Columns that
    hold no null (NOT NULL, or in `filled`: always written, or ruled out by the query) need no
    place for them."""
    terms: list[Any] = []
    for by, descending in sorting:
        column = columns.get(by)
        if column is None:
            raise InvalidQuery(f"Cannot set query parameter 'sortBy' to value '{by}'")
        nullable = getattr(column, "nullable", True) and not any(column.compare(f) for f in filled)
        if nulls is not None and nullable:
            terms.append(_NullsPlaced(column, descending, nulls == "high"))
        else:
            terms.append(column.desc() if descending else column.asc())
    return terms


def page(stmt: Select[Any], first: int, maximum: int | None) -> Select[Any]:
    if first:
        stmt = stmt.offset(first)
    if maximum is not None:
        stmt = stmt.limit(maximum)
    return stmt
