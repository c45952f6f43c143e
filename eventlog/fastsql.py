"""Statements compiled once per dialect and run on the DBAPI cursor of a SQLAlchemy connection.

The command path writes a handful of statements per command; SQLAlchemy's per-call machinery
(cache-key generation, parameter construction, result set-up) cost more than SQLite's own work
for them. A `Prepared` statement keeps the SQL text and the bind processors of a Core statement
and feeds rows straight to the driver, inside the connection's current transaction. Driver
errors come back as SQLAlchemy's exception classes, so callers catch `IntegrityError` as usual.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler


class Prepared:
    """One Core statement, compiled for one dialect; parameters by bind name."""

    __slots__ = (
        "_dbapi_error",
        "_defaults",
        "_dialect",
        "_dict",
        "_names",
        "_pick",
        "_processors",
        "_results",
        "columns",
        "sql",
    )

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        self.sql = str(compiled)
        # A SELECT's result columns, and the converters of those the driver returns raw
        # (SQLite's datetimes are text): `first` and `all` give rows as SQLAlchemy would.
        selected = list(getattr(statement, "selected_columns", ()))
        self.columns = tuple(c.key for c in selected)
        self._results: tuple[tuple[int, Callable[[Any], Any]], ...] = tuple(
            (i, p)
            for i, p in enumerate(
                c.type.dialect_impl(dialect).result_processor(dialect, None) for c in selected
            )
            if p is not None
        )
        self._dialect = dialect
        names: Sequence[str] = (
            list(compiled.positiontup or []) if compiled.positional else list(compiled.binds)
        )
        self._names = tuple(names)
        processors = [
            compiled.binds[n].type.dialect_impl(dialect).bind_processor(dialect) for n in names
        ]
        # Only the binds that convert values (SQLite's datetimes) cost a Python call per row.
        self._processors: tuple[tuple[int, Callable[[Any], Any]], ...] = tuple(
            (i, _faster(p)) for i, p in enumerate(processors) if p is not None
        )
        # Binds the statement carries its own value for (a LIMIT, a literal) unless overridden.
        self._defaults = {
            n: compiled.binds[n].value for n in names if compiled.binds[n].value is not None
        }
        self._dict = not compiled.positional
        self._dbapi_error: type[Exception] = dialect.loaded_dbapi.Error
        # Rows that carry every bound name (the projectors' full rows) take a C-level path.
        pick = operator.itemgetter(*names) if names else None
        self._pick: Callable[[Mapping[str, Any]], Any] | None = (
            (lambda row: (pick(row),)) if pick is not None and len(names) == 1 else pick
        )

    def params(self, values: Mapping[str, Any]) -> Any:
        if self._defaults:
            values = {**self._defaults, **values}
        converted: list[Any]
        try:
            converted = list(self._pick(values)) if self._pick is not None else []
        except KeyError:
            # A name the row leaves out is NULL, as in an INSERT of a partial row.
            converted = list(map(values.get, self._names))
        for i, process in self._processors:
            value = converted[i]
            if value is not None:
                converted[i] = process(value)
        if self._dict:
            return dict(zip(self._names, converted, strict=True))
        return tuple(converted)

    def execute(self, conn: Connection, values: Mapping[str, Any]) -> Any:
        """Run once; returns the DBAPI cursor (for `fetchone`/`fetchall` of a SELECT)."""
        params = self.params(values)
        cursor = conn.connection.cursor()
        try:
            cursor.execute(self.sql, params)
        except self._dbapi_error as exc:
            raise self._wrap(exc, params) from exc
        return cursor

    def first(self, conn: Connection, values: Mapping[str, Any]) -> dict[str, Any] | None:
        """The first row of a SELECT by column name, or None."""
        cursor = self.execute(conn, values)
        try:
            row = cursor.fetchone()
        finally:
            cursor.close()
        return None if row is None else self._row(row)

    def all(self, conn: Connection, values: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Every row of a SELECT by column name."""
        cursor = self.execute(conn, values)
        try:
            rows = cursor.fetchall()
        finally:
            cursor.close()
        return [self._row(r) for r in rows]

    def tuples(self, conn: Connection, values: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Every row of a SELECT as a tuple in column order (converted as `all` converts)."""
        cursor = self.execute(conn, values)
        try:
            rows = cursor.fetchall()
        finally:
            cursor.close()
        results = self._results
        if not results:
            return [tuple(r) for r in rows]
        out = []
        for r in rows:
            row = list(r)
            for i, process in results:
                row[i] = process(row[i])
            out.append(tuple(row))
        return out

    def _row(self, row: Sequence[Any]) -> dict[str, Any]:
        if self._results:
            row = list(row)
            for i, process in self._results:
                row[i] = process(row[i])
        return dict(zip(self.columns, row, strict=True))

    def executemany(self, conn: Connection, rows: Iterable[Mapping[str, Any]]) -> None:
        self.run(conn, [self.params(r) for r in rows])

    def run(self, conn: Connection, params: list[Any]) -> None:
        """Execute with parameters `params()` made earlier (perhaps outside the transaction)."""
        if not params:
            return
        cursor = conn.connection.cursor()
        try:
            if len(params) == 1:
                cursor.execute(self.sql, params[0])
            else:
                cursor.executemany(self.sql, params)
        except self._dbapi_error as exc:
            raise self._wrap(exc, params) from exc
        finally:
            cursor.close()

    def _wrap(self, exc: Exception, params: Any) -> StatementError:
        return DBAPIError.instance(
            self.sql, params, exc, self._dialect.loaded_dbapi.Error, dialect=self._dialect
        )


_SAMPLES = (datetime(2001, 2, 3, 4, 5, 6, 7000), datetime(2001, 2, 3, 4, 5, 6))


def _iso(value: datetime) -> str:
    return value.isoformat(" ", "microseconds")


def _faster(processor: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """SQLite stores datetimes as text; when the dialect's format is ISO with microseconds,
    `datetime.isoformat` (in C) writes the same text several times faster. Checked, not assumed.
    """
    try:
        same = all(processor(sample) == _iso(sample) for sample in _SAMPLES)
    except Exception:
        same = False
    if not same:
        return processor

    def convert(value: Any) -> Any:
        if type(value) is datetime and value.tzinfo is None:
            return value.isoformat(" ", "microseconds")
        return processor(value)

    return convert


class PreparedCache:
    """Prepared statements of one dialect, built on first use and kept for the process."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str, Any], Prepared] = {}

    def get(self, dialect: Dialect, key: Any, build: Callable[[], ClauseElement]) -> Prepared:
        slot = (dialect.name, dialect.driver, key)
        prepared = self._cache.get(slot)
        if prepared is None:
            prepared = self._cache[slot] = Prepared(build(), dialect)
        return prepared
