"""The net row changes of one batch of events, and the stores that apply them (database or memory).

A row created and removed within one batch never reaches the store; a row inserted and then
updated within one batch is inserted once, complete. One executemany per table and column set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import Table, bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.dml import Delete, Insert, Update

from eventlog.fastsql import Prepared, PreparedCache

Row = dict[str, Any]
WritePlan = list[tuple[Prepared, list[Any]]]
REV = "REV_"


_last_time: tuple[datetime | None, datetime | None] = (None, None)


def db_time(moment: datetime | None) -> datetime | None:
    """Naive UTC, as Camunda's `timestamp without time zone` columns hold it."""
    global _last_time
    if moment is None:
        return None
    # Every event of a command carries the command's one timestamp: convert it once.
    last_in, last_out = _last_time
    if moment is last_in or moment == last_in:
        return last_out
    converted = moment
    if moment.tzinfo is not None:
        converted = moment.astimezone(UTC).replace(tzinfo=None)
    _last_time = (moment, converted)
    return converted


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
    # rows whose REV_ goes up, by how much: one per command that changed the row
    bump: dict[str, int] = field(default_factory=dict)
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
        """Within one command a row's revision goes up once, however often it is updated."""
        changes = self._of(table)
        inserted = changes.inserts.get(pk)
        if inserted is not None:
            inserted.update(values)
            return
        if pk in changes.deletes:
            return
        changes.updates.setdefault(pk, {}).update(values)
        if REV in values:
            changes.bump.pop(pk, None)  # an explicit revision replaces earlier increments
        if bump_revision:
            changes.bump[pk] = 1

    def delete(self, table: Table, pk: str) -> None:
        changes = self._of(table)
        if changes.inserts.pop(pk, None) is not None:
            return
        changes.updates.pop(pk, None)
        changes.bump.pop(pk, None)
        changes.deletes.add(pk)

    def row_count(self) -> int:
        return sum(len(c.inserts) + len(c.updates) + len(c.deletes) for c in self.tables.values())

    def merge(self, later: ChangeSet) -> None:
        """Add the changes of a later command: batches of commands then write their net effect
        (revisions count one per command, as if each had been applied on its own)."""
        for table, lc in later.tables.items():
            changes = self._of(table)
            for pk in lc.deletes:
                self.delete(table, pk)
            for pk, values in lc.updates.items():
                bump = lc.bump.get(pk, 0)
                inserted = changes.inserts.get(pk)
                if inserted is not None:
                    inserted.update(values)
                    if bump:
                        inserted[REV] = (inserted.get(REV) or 0) + bump
                elif pk not in changes.deletes:
                    changes.updates.setdefault(pk, {}).update(values)
                    # An explicit revision replaces earlier increments; later ones add up.
                    earlier = 0 if REV in values else changes.bump.get(pk, 0)
                    if earlier + bump:
                        changes.bump[pk] = earlier + bump
                    else:
                        changes.bump.pop(pk, None)
            for pk, row in lc.inserts.items():
                self.insert(table, pk, row)


def _insert(table: Table) -> Insert:
    return insert(table)


def _delete(table: Table) -> Delete:
    return delete(table).where(table.c[pk_name(table)] == bindparam("pk_"))


def _update(table: Table, columns: tuple[str, ...], bump: int) -> Update:
    values: dict[str, Any] = {c: bindparam(f"v_{c}", type_=table.c[c].type) for c in columns}
    if bump:
        # Increments apply after the row's values: onto an explicit REV_, else the stored one.
        base = values[REV] if REV in values else table.c[REV]
        values[REV] = base + bump
    return update(table).where(table.c[pk_name(table)] == bindparam("pk_")).values(values)


class SqlRowStore:
    """Applies change sets to the live tables with one executemany per table and column set,
    through statements compiled once (the command path runs this for every command)."""

    def __init__(self) -> None:
        self._prepared = PreparedCache()

    def apply(self, conn: Connection, changes: ChangeSet) -> None:
        self.run(conn, self.plan(conn.dialect, changes))

    def plan(self, dialect: Dialect, changes: ChangeSet) -> WritePlan:
        """The statements and driver parameters that write `changes`, made without a database
        round trip: a caller can prepare them before it takes the write lock."""
        prepared = self._prepared
        plan: WritePlan = []
        for table, tc in changes.tables.items():
            if tc.deletes:
                stmt = prepared.get(dialect, ("delete", table), partial(_delete, table))
                plan.append((stmt, [stmt.params({"pk_": pk}) for pk in sorted(tc.deletes)]))
            if tc.updates:
                groups: dict[tuple[tuple[str, ...], int], list[Row]] = {}
                for pk, values in tc.updates.items():
                    key = (tuple(sorted(values)), tc.bump.get(pk, 0))
                    params = {f"v_{c}": values[c] for c in key[0]}
                    params["pk_"] = pk
                    groups.setdefault(key, []).append(params)
                for (columns, bump), params_list in groups.items():
                    stmt = prepared.get(
                        dialect,
                        ("update", table, columns, bump),
                        partial(_update, table, columns, bump),
                    )
                    plan.append((stmt, [stmt.params(p) for p in params_list]))
            if tc.inserts:
                stmt = prepared.get(dialect, ("insert", table), partial(_insert, table))
                # In key order: B-tree inserts then walk each index leaf once, not back and forth.
                rows = [tc.inserts[pk] for pk in sorted(tc.inserts)]
                plan.append((stmt, [stmt.params(r) for r in rows]))
        return plan

    @staticmethod
    def run(conn: Connection, plan: WritePlan) -> None:
        for stmt, params in plan:
            stmt.run(conn, params)


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
                    row[REV] = (row.get(REV) or 0) + tc.bump[pk]
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
