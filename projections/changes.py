"""The net row changes of one batch of events, and the stores that apply them (database or memory).

A row created and removed within one batch never reaches the store; a row inserted and then
updated within one batch is inserted once, complete. One executemany per table and column set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Table, bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.sql.dml import Delete, Insert, Update

Row = dict[str, Any]
REV = "REV_"


def db_time(moment: datetime | None) -> datetime | None:
    """Naive UTC, as Camunda's `timestamp without time zone` columns hold it."""
    if moment is None:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def duration_ms(start: datetime, end: datetime) -> int:
    return (end - start) // timedelta(milliseconds=1)


def blank_row(table: Table) -> Row:
    """Every column of the table set to None: the template a projector fills in."""
    return dict.fromkeys(c.name for c in table.columns)


def pk_name(table: Table) -> str:
    return next(iter(table.primary_key.columns)).name


@dataclass
class TableChanges:
    inserts: dict[str, Row] = field(default_factory=dict)
    updates: dict[str, Row] = field(default_factory=dict)
    bump: set[str] = field(default_factory=set)  # rows whose REV_ goes up by one
    deletes: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.inserts or self.updates or self.deletes)


class ChangeSet:
    """Row operations keyed by primary key, merged to their net effect."""

    def __init__(self) -> None:
        self.tables: dict[Table, TableChanges] = {}

    def _of(self, table: Table) -> TableChanges:
        changes = self.tables.get(table)
        if changes is None:
            changes = self.tables[table] = TableChanges()
        return changes

    def insert(self, table: Table, pk: str, row: Row) -> None:
        changes = self._of(table)
        if pk in changes.deletes:
            # deleted and re-created in one batch: the stored row is simply rewritten
            changes.deletes.discard(pk)
            changes.updates[pk] = dict(row)
            return
        changes.inserts[pk] = row

    def update(self, table: Table, pk: str, values: Row, *, bump_revision: bool = False) -> None:
        changes = self._of(table)
        inserted = changes.inserts.get(pk)
        if inserted is not None:
            inserted.update(values)
            return
        if pk in changes.deletes:
            return
        changes.updates.setdefault(pk, {}).update(values)
        if bump_revision:
            changes.bump.add(pk)

    def delete(self, table: Table, pk: str) -> None:
        changes = self._of(table)
        if changes.inserts.pop(pk, None) is not None:
            return
        changes.updates.pop(pk, None)
        changes.bump.discard(pk)
        changes.deletes.add(pk)

    def row_count(self) -> int:
        return sum(len(c.inserts) + len(c.updates) + len(c.deletes) for c in self.tables.values())

    def merge(self, other: ChangeSet) -> None:
        for table, changes in other.tables.items():
            for pk in changes.deletes:
                self.delete(table, pk)
            for pk, values in changes.updates.items():
                self.update(table, pk, values, bump_revision=pk in changes.bump)
            for pk, row in changes.inserts.items():
                self.insert(table, pk, row)


class SqlRowStore:
    """Applies change sets to the live tables with one executemany per table and column set."""

    def __init__(self) -> None:
        self._inserts: dict[Table, Insert] = {}
        self._deletes: dict[Table, Delete] = {}
        self._updates: dict[tuple[Table, tuple[str, ...], bool], Update] = {}

    def _insert(self, table: Table) -> Insert:
        stmt = self._inserts.get(table)
        if stmt is None:
            stmt = self._inserts[table] = insert(table)
        return stmt

    def _delete(self, table: Table) -> Delete:
        stmt = self._deletes.get(table)
        if stmt is None:
            pk = table.c[pk_name(table)]
            stmt = self._deletes[table] = delete(table).where(pk == bindparam("pk_"))
        return stmt

    def _update(self, table: Table, columns: tuple[str, ...], bump: bool) -> Update:
        key = (table, columns, bump)
        stmt = self._updates.get(key)
        if stmt is None:
            pk = table.c[pk_name(table)]
            values: dict[str, Any] = {c: bindparam(f"v_{c}") for c in columns}
            if bump:
                values[REV] = table.c[REV] + 1
            stmt = self._updates[key] = update(table).where(pk == bindparam("pk_")).values(values)
        return stmt

    def apply(self, conn: Connection, changes: ChangeSet) -> None:
        for table, tc in changes.tables.items():
            if tc.deletes:
                conn.execute(self._delete(table), [{"pk_": pk} for pk in sorted(tc.deletes)])
            if tc.updates:
                groups: dict[tuple[tuple[str, ...], bool], list[Row]] = {}
                for pk, values in tc.updates.items():
                    key = (tuple(sorted(values)), pk in tc.bump)
                    params = {f"v_{c}": values[c] for c in key[0]}
                    params["pk_"] = pk
                    groups.setdefault(key, []).append(params)
                for (columns, bump), params_list in groups.items():
                    conn.execute(self._update(table, columns, bump), params_list)
            if tc.inserts:
                conn.execute(self._insert(table), list(tc.inserts.values()))


class MemoryRowStore:
    """The same tables as plain dicts: what a rebuild from the log produces, for comparisons."""

    def __init__(self, tables: Iterable[Table]) -> None:
        self.rows: dict[str, dict[str, Row]] = {t.name: {} for t in tables}
        self._pk = {t.name: pk_name(t) for t in tables}

    def apply(self, changes: ChangeSet) -> None:
        for table, tc in changes.tables.items():
            rows = self.rows.setdefault(table.name, {})
            for pk in tc.deletes:
                rows.pop(pk, None)
            for pk, values in tc.updates.items():
                row = rows.get(pk)
                if row is None:
                    continue
                row.update(values)
                if pk in tc.bump:
                    row[REV] = (row.get(REV) or 0) + 1
            for pk, row in tc.inserts.items():
                rows[pk] = dict(row)


def read_table(conn: Connection, table: Table) -> dict[str, Row]:
    """Every row of a live table keyed by primary key, values normalised for comparison."""
    pk = pk_name(table)
    out: dict[str, Row] = {}
    for row in conn.execute(select(table)):
        values = {c.name: normalise(row._mapping[c]) for c in table.columns}
        out[str(values[pk])] = values
    return out


def normalise(value: Any) -> Any:
    if isinstance(value, datetime):
        return db_time(value)
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def diff_rows(
    table: str, expected: Mapping[str, Row], actual: Mapping[str, Row], limit: int = 20
) -> list[str]:
    """Row-for-row differences between a rebuilt and a live table, as readable lines."""
    problems: list[str] = []
    for pk in sorted(set(expected) | set(actual)):
        if len(problems) >= limit:
            problems.append(f"{table}: more differences not shown")
            break
        exp, act = expected.get(pk), actual.get(pk)
        if exp is None:
            problems.append(f"{table} row {pk}: in the live table but not in the rebuild")
        elif act is None:
            problems.append(f"{table} row {pk}: in the rebuild but missing from the live table")
        else:
            cols = [c for c in exp if normalise(exp[c]) != act.get(c)]
            if cols:
                detail = ", ".join(f"{c}: rebuilt {exp[c]!r} != live {act.get(c)!r}" for c in cols)
                problems.append(f"{table} row {pk}: {detail}")
    return problems
