"""A list query declared once, and the generic reads that run any of them.

A `Search` says what a list reads (its FROM and columns), which conditions a query Struct turns
into, Camunda's sort keys, the order that breaks ties, and how a row becomes its result Struct;
`find`, `count`, `first` and `first_where` run every declaration the same way. Reads only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import msgspec
from sqlalchemy import ColumnElement, FromClause, Select, func, literal, select
from sqlalchemy.engine import Connection, RowMapping
from sqlalchemy.sql.util import find_tables

from .filters import Condition, Sorting, never_null, order, page

Q = TypeVar("Q")
R = TypeVar("R")


@dataclass(frozen=True)
class Search(Generic[Q, R]):
    """One list query over the ACT_* tables.

    `query` is its query Struct (Camunda's query DTO: every field optional, null = no filter);
    `source` is the FROM (joins included) and `columns` the SELECT list; `filters` turns a query
    into WHERE conditions; `sorts` maps Camunda's `sortBy` values to what they order by,
    and `then` orders after the requested sorting, ending with the key (one row of `source`
    per key) so that pages never overlap; `nulls` places nulls alike on every database (see
    `filters.order`); `row` builds the result Struct from one row. A count reads `counted`
    (the main table alone, when the joins of `source` only add columns, and the conditions read
    nothing else) or else `source`. `filled` names nullable columns (Camunda's schema) that
    this engine's projectors always write: sorting by them needs no place for nulls, so an
    index on them gives the order."""

    query: type[Q]
    source: FromClause
    columns: tuple[Any, ...]
    filters: Callable[[Q], Iterable[Condition]]
    sorts: Mapping[str, ColumnElement[Any]]
    then: tuple[ColumnElement[Any], ...]
    row: Callable[[RowMapping], R]
    nulls: Literal["high", "low"] | None = None
    counted: FromClause | None = None
    filled: tuple[ColumnElement[Any], ...] = ()

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
    conditions = list(search.filters(query))
    terms = ordering(search, sorting, never_null(conditions))
    if maximum is not None:
        return _rows(conn, search, _page(search, conditions, terms, first, maximum))
    stmt = search.select().where(*conditions).order_by(*terms)
    return _rows(conn, search, page(stmt, first, maximum))


def _page(
    search: Search[Any, Any],
    conditions: list[Condition],
    terms: list[Any],
    first: int,
    maximum: int,
) -> Select[Any]:
    """One page: the keys of its rows (from the list's index, touching no row it skips or
    filters out when the index holds the filtered columns, nor the tables `source` joins), then
    those rows. Read at once, every row skipped (`first` of them) or filtered out on the way
    would be fetched, and joined, only to be dropped."""
    key = search.then[-1]
    keys = (
        select(key.label("PAGE_KEY_"))
        .select_from(_narrowest(search, conditions, terms))
        .where(*conditions)
        .order_by(*terms)
        .offset(first)
        .limit(maximum)
        .subquery("PAGE")
    )
    rows = search.source.join(keys, keys.c.PAGE_KEY_ == key)
    return select(*search.columns).select_from(rows).order_by(*terms)


def ordering(
    search: Search[Any, Any], sorting: Sorting, not_null: Iterable[ColumnElement[Any]] = ()
) -> list[Any]:
    """The ORDER BY of a page: the requested sorting, then the search's own order (ascending)
    without the columns already sorted by, which would only hide the order from an index."""
    filled = (*search.filled, *not_null)
    terms = order(search.sorts, sorting, search.nulls, filled)
    sorted_by = [search.sorts[by] for by, _descending in sorting]
    for column in search.then:
        if not any(column.compare(other) for other in sorted_by):
            terms.append(column)
    return terms


def count(conn: Connection, search: Search[Q, R], query: Q) -> int:
    conditions = list(search.filters(query))
    source = _narrowest(search, conditions)
    return int(
        conn.execute(select(func.count()).select_from(source).where(*conditions)).scalar_one()
    )


def _narrowest(
    search: Search[Any, Any], conditions: list[Condition], terms: Sequence[Any] = ()
) -> FromClause:
    """The main table alone (`counted`) when the conditions and the ORDER BY `terms` read
    nothing else, else `source`: a planner may not see that a join adds no row (MariaDB then
    sorts the whole table rather than read an index in order)."""
    main = search.counted
    if main is None:
        return search.source
    froms = select(literal(1)).select_from(main).where(*conditions).get_final_froms()
    ordered = {t for term in terms for t in find_tables(term, check_columns=True)}
    if len(froms) == 1 and froms[0] is main and ordered <= {main}:
        return main
    return search.source


def first(conn: Connection, search: Search[Q, R], query: Q) -> R | None:
    """The first row matching `query` in the search's order, or None."""
    found = find(conn, search, query, (), 0, 1)
    return found[0] if found else None


def first_where(conn: Connection, search: Search[Q, R], *conditions: Condition) -> R | None:
    """The first row of the search meeting `conditions` (a lookup by key), or None."""
    stmt = search.select().where(*conditions).order_by(*search.then).limit(1)
    found = _rows(conn, search, stmt)
    return found[0] if found else None


V = TypeVar("V", bound=msgspec.Struct)


def view(cls: type[V], row: object) -> V:
    """The view of a search row: the view's fields, which the row has under the same names."""
    return cls(**{name: getattr(row, name) for name in cls.__struct_fields__})


def _rows(conn: Connection, search: Search[Any, R], stmt: Select[Any]) -> list[R]:
    return [search.row(m) for m in conn.execute(stmt).mappings()]
