"""Rebuilt projection tables beside the live ones, and a row-for-row comparison of the two.

`verify` rebuilds every ACT_* table into temporary shadow tables on its own connection and
compares them with the live tables by reading both in primary-key order, a batch at a time:
memory stays flat however large the database. Writes nothing but those temporary tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Column, Index, LargeBinary, MetaData, Table, bindparam, cast, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.elements import ColumnElement

from .changes import ChangeSet, Purge, SqlRowStore, normalise, pk_name
from .tables import UNPROJECTED_COLUMNS

DIFF_LIMIT = 20  # differences shown per table
READ_BATCH = 5000


class ShadowTables:
    """Temporary copies of the given tables (primary keys only: a rebuild writes faster
    without secondary indexes), written with the same statements as the live tables."""

    def __init__(
        self, tables: Sequence[Table], *, prefix: str = "vfy_", temporary: bool = True
    ) -> None:
        metadata = MetaData()
        self.temporary = temporary
        self.of: dict[Table, Table] = {
            t: shadow_table(t, metadata, prefix, temporary) for t in tables
        }
        self._rows = SqlRowStore()  # its statements die with these tables
        self._indexed: set[tuple[str, str]] = set()

    def create(self, conn: Connection, *, checkfirst: bool = False) -> None:
        for shadow in self.of.values():
            shadow.create(conn, checkfirst=checkfirst)

    def drop(self, conn: Connection) -> None:
        mysql = conn.dialect.name in ("mysql", "mariadb")
        temporary = "TEMPORARY " if mysql and self.temporary else ""
        try:
            for shadow in self.of.values():
                conn.execute(text(f"DROP {temporary}TABLE IF EXISTS {shadow.name}"))
        except DBAPIError:
            # A transaction that failed on PostgreSQL refuses every statement: its rollback
            # drops the tables, and the error that failed it is the one worth reporting.
            if not conn.in_transaction():
                raise

    def apply(self, conn: Connection, changes: ChangeSet) -> None:
        """Write a change set the projectors made for the live tables into the shadows."""
        out = ChangeSet()
        for purges, tables in changes.segments():
            for purge in purges:
                out.purge(self._purge(conn, purge))
            for table, table_changes in tables.items():
                out.tables[self.of[table]] = table_changes
        self._rows.apply(conn, out)

    def _purge(self, conn: Connection, purge: Purge) -> Purge:
        # A purge finds rows by what they belong to: index that column at its first use only.
        target = self.of[purge.table]
        via = None if purge.via is None else self.of[purge.via]
        self._index(conn, via if via is not None else target, purge.column)
        through = None if purge.through is None else self.of[purge.through]
        if purge.owner is not None:  # the owned rows are found by their owner's key
            self._index(conn, through if through is not None else target, purge.owner)
        roots = None if purge.roots is None else self.of[purge.roots]
        if roots is not None:  # a root's hierarchy is found by its instances' root
            self._index(conn, roots, "ROOT_PROC_INST_ID_")
        return replace(purge, table=target, via=via, through=through, roots=roots)

    def _index(self, conn: Connection, table: Table, column: str) -> None:
        if (table.name, column) in self._indexed:
            return
        self._indexed.add((table.name, column))
        # Named by table and column, and made only if missing: a rebuild's shadows outlive the
        # process (a resumed rebuild, its writer process and its swap each make this call).
        index = Index(f"{table.name}_by_{column.lower().rstrip('_')}", table.c[column])
        index.create(conn, checkfirst=not self.temporary)


def shadow_table(table: Table, metadata: MetaData, prefix: str, temporary: bool = False) -> Table:
    """A copy of `table`'s columns and primary key (no other index) named `prefix` + its name."""
    columns = [Column(c.name, c.type, primary_key=c.primary_key) for c in table.columns]
    prefixes = ["TEMPORARY"] if temporary else []
    return Table(f"{prefix}{table.name.lower()}", metadata, *columns, prefixes=prefixes)


def compare_tables(
    conn: Connection,
    live: Table,
    rebuilt: Table,
    limit: int = DIFF_LIMIT,
    rows: Callable[[Table], ColumnElement[bool]] | None = None,
) -> tuple[int, list[str]]:
    """(live rows read, differences) between a live table and its rebuild, as readable lines;
    both are read in primary-key order and merged, so neither is held in memory. Columns no
    projector writes (a job's lease) are not compared. `rows` picks the rows compared (it is
    given each table and returns a condition on it): one instance's, say."""
    problems: list[str] = []
    names = _compared(live)
    if rows is None and conn.dialect.name == "sqlite":
        same = _identical_in_sqlite(conn, live, rebuilt, names)
        if same is not None:
            return same, []
    live_rows = _ordered(conn, live, names, None if rows is None else rows(live))
    rebuilt_rows = _ordered(conn, rebuilt, names, None if rows is None else rows(rebuilt))
    act = next(live_rows, None)
    exp = next(rebuilt_rows, None)
    count = 0
    while act is not None or exp is not None:
        if act is not None and (exp is None or act[0] < exp[0]):
            line = f"{live.name} row {act[0]}: in the live table but not in the rebuild"
            count += 1
            act = next(live_rows, None)
        elif exp is not None and (act is None or exp[0] < act[0]):
            line = f"{live.name} row {exp[0]}: in the rebuild but missing from the live table"
            exp = next(rebuilt_rows, None)
        else:
            assert act is not None and exp is not None
            # Both come from the same database through the same column types: equal rows
            # are equal tuples of what the driver returns, and only a differing row is
            # converted (as a query would give it) and looked at column by column.
            line = "" if act[1] == exp[1] else _differing(live.name, names, exp, act)
            count += 1
            act, exp = next(live_rows, None), next(rebuilt_rows, None)
        if line and len(problems) < limit:
            problems.append(line)
        elif line and len(problems) == limit:
            problems.append(f"{live.name}: more differences not shown")
    return count, problems


def _differing(table: str, names: list[str], exp: _Keyed, act: _Keyed) -> str:
    """`_row_difference` of two rows whose driver values differ, once converted."""
    expected, actual = _converted(exp), _converted(act)
    if expected == actual:
        return ""
    return _row_difference(table, names, (exp[0], expected, exp[2]), (act[0], actual, act[2]))


def _converted(row: _Keyed) -> tuple[Any, ...]:
    """The values of a row read raw by `_ordered`, as SQLAlchemy's result would give them."""
    values = list(row[1])
    for i, process in enumerate(row[2]):
        if process is not None and values[i] is not None:
            values[i] = process(values[i])
    return tuple(values)


def _identical_in_sqlite(
    conn: Connection, live: Table, rebuilt: Table, names: list[str]
) -> int | None:
    """The number of live rows when SQLite finds both tables hold the same rows, None when
    it does not, or cannot tell for sure (then the tables are read and merged in Python).

    One join on the key counts the rows and the rows with any column differing (`IS NOT`:
    NULL-safe). That equals comparing the driver's values in Python when both columns of a
    pair have the same declared type (the same affinity: nothing is converted) and no
    collation (bytes compared as bytes): checked from the schema first. Faster than reading
    both tables into Python: nothing but four numbers leaves SQLite."""
    declared = [_declared(conn, live.name), _declared(conn, rebuilt.name)]
    if any(d is None for d in declared):
        return None
    live_types, rebuilt_types = declared
    assert live_types is not None and rebuilt_types is not None
    if any(live_types.get(n) != rebuilt_types.get(n) or n not in live_types for n in names):
        return None
    q = conn.dialect.identifier_preparer.quote
    a, b, key = q(live.name), q(rebuilt.name), q(pk_name(live))
    differ = " OR ".join(f"l.{q(n)} IS NOT r.{q(n)}" for n in names)
    found = conn.exec_driver_sql(
        f"SELECT (SELECT count(*) FROM {a}), (SELECT count(*) FROM {b}), count(*), "
        f"coalesce(sum(CASE WHEN {differ} THEN 1 ELSE 0 END), 0) "
        f"FROM {a} AS l JOIN {b} AS r ON r.{key} = l.{key}"
    ).one()
    live_count, rebuilt_count, matched, differing = (int(v) for v in found)
    if live_count == rebuilt_count == matched and differing == 0:
        return live_count
    return None


def _declared(conn: Connection, table: str) -> dict[str, str] | None:
    """Column name -> declared type of a SQLite table (main or temporary); None when the
    table is not found or any column has a collation."""
    sql = conn.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ? "
        "UNION ALL SELECT sql FROM sqlite_temp_master WHERE type = 'table' AND name = ?",
        (table, table),
    ).all()
    if len(sql) != 1 or sql[0][0] is None or "COLLATE" in str(sql[0][0]).upper():
        return None
    info = conn.exec_driver_sql("SELECT name, type FROM pragma_table_info(?)", (table,)).all()
    return {str(name): str(kind).upper() for name, kind in info}


def _row_difference(table: str, names: list[str], exp: _Keyed, act: _Keyed) -> str:
    expected = [normalise(v) for v in exp[1]]
    actual = [normalise(v) for v in act[1]]
    cols = [i for i, value in enumerate(expected) if value != actual[i]]
    if not cols:
        return ""
    detail = ", ".join(f"{names[i]}: rebuilt {expected[i]!r} != live {actual[i]!r}" for i in cols)
    return f"{table} row {exp[0]}: {detail}"


# (key, the row's values as the driver returns them, the result processor of each column)
_Keyed = tuple[str, tuple[Any, ...], Sequence[Callable[[Any], Any] | None]]


def _compared(table: Table) -> list[str]:
    """The names of the columns of `table` a rebuild reproduces (shadows have the live names)."""
    skipped = UNPROJECTED_COLUMNS.get(table.name, frozenset())
    return [c.name for c in table.columns if c.name not in skipped]


def _ordered(
    conn: Connection,
    table: Table,
    names: list[str],
    condition: ColumnElement[bool] | None = None,
) -> Iterator[_Keyed]:
    """(key, row of the columns `names`, their converters) in binary key order, which is
    Python's order of the key strings, read in batches by key (no cursor stays open: the caller
    reads another table meanwhile). The rows are the driver's tuples: converting every value
    (SQLite's datetimes are text) cost more than comparing them; `_converted` does it for the
    few rows that differ."""
    pk = table.c[pk_name(table)]
    at = names.index(pk.name)
    key = _binary(conn, pk)
    columns = [table.c[name] for name in names]
    after: Any = None
    dialect = conn.dialect
    processors: list[Callable[[Any], Any] | None] | None = None
    while True:
        stmt = select(*columns).order_by(key).limit(READ_BATCH)
        if condition is not None:
            stmt = stmt.where(condition)
        if after is not None:
            stmt = stmt.where(key > _binary(conn, bindparam("after", after, type_=pk.type)))
        result = conn.execute(stmt)
        try:
            cursor = result.cursor
            rows = cursor.fetchall()
            if processors is None:
                processors = [
                    c.type.dialect_impl(dialect).result_processor(dialect, d[1])
                    for c, d in zip(columns, cursor.description, strict=True)
                ]
        finally:
            result.close()
        if not rows:
            return
        for row in rows:
            values = tuple(row)
            after = values[at]
            yield str(after), values, processors


def _binary(conn: Connection, key: ColumnElement[Any]) -> ColumnElement[Any]:
    """`key` compared byte for byte (code point order for UTF-8), whatever the collation."""
    dialect = conn.dialect.name
    if dialect == "postgresql":
        return key.collate("C")
    if dialect in ("mysql", "mariadb"):
        return cast(key, LargeBinary)
    return key
