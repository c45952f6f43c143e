"""A list query declared once, and the generic reads that run any of them.

A `Search` says what a list reads (its FROM and columns), which conditions a query Struct turns
into, Camunda's sort keys, the order that breaks ties, and how a row becomes its result Struct;
`find`, `count`, `first` and `first_where` run every declaration the same way. Reads only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from sqlalchemy import ColumnElement, FromClause, Select, func, select
from sqlalchemy.engine import Connection, RowMapping

from .filters import Condition, Sorting, order, page

Q = TypeVar("Q")
R = TypeVar("R")


@dataclass(frozen=True)
class Search(Generic[Q, R]):
    """One list query over the ACT_* tables.

    `query` is its query Struct (Camunda's query DTO: every field optional, null = no filter);
    `source` is the FROM (joins included) and `columns` the SELECT list; `filters` turns a query
    into WHERE conditions; `sorts` maps Camunda's `sortBy` values to what they order by,
    and `then` orders after the requested sorting, ending with a key so that pages never
    overlap; `nulls` places nulls alike on every database (see `filters.order`); `row` builds
    the result Struct from one row. A count reads `counted` (the main table alone, when the
    joins of `source` only add columns) or else `source`."""

    query: type[Q]
    source: FromClause
    columns: tuple[Any, ...]
    filters: Callable[[Q], Iterable[Condition]]
    sorts: Mapping[str, ColumnElement[Any]]
    then: tuple[ColumnElement[Any], ...]
    row: Callable[[RowMapping], R]
    nulls: Literal["high", "low"] | None = None
    counted: FromClause | None = None

    def select(self) -> Select[Any]:
        """The rows of the search, unfiltered and unordered."""
        return select(*self.columns).select_from(self.source)


def find(
    conn: Connection,
    search: Search[Q, R],
    query: Q,
    sorting: Sorting = (),
    first: int = 0,
    maximum: int | None = None,
) -> list[R]:
    """The rows matching `query`, ordered by `sorting` ((sortBy, descending) pairs) and then by
    the search's own order, from row `first` on, at most `maximum` of them."""
    stmt = search.select().where(*search.filters(query))
    stmt = stmt.order_by(*order(search.sorts, sorting, search.nulls), *search.then)
    return _rows(conn, search, page(stmt, first, maximum))


def count(conn: Connection, search: Search[Q, R], query: Q) -> int:
    source = search.source if search.counted is None else search.counted
    stmt = select(func.count()).select_from(source).where(*search.filters(query))
    return int(conn.execute(stmt).scalar_one())


def first(conn: Connection, search: Search[Q, R], query: Q) -> R | None:
    """The first row matching `query` in the search's order, or None."""
    found = find(conn, search, query, (), 0, 1)
    return found[0] if found else None


def first_where(conn: Connection, search: Search[Q, R], *conditions: Condition) -> R | None:
    """The first row of the search meeting `conditions` (a lookup by key), or None."""
    stmt = search.select().where(*conditions).order_by(*search.then).limit(1)
    found = _rows(conn, search, stmt)
    return found[0] if found else None


def _rows(conn: Connection, search: Search[Any, R], stmt: Select[Any]) -> list[R]:
    return [search.row(m) for m in conn.execute(stmt).mappings()]
