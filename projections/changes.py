"""The net row changes of one batch of events, and the stores that apply them (database or memory).

A row created and removed within one batch never reaches the store; a row inserted and then
updated within one batch is inserted once, complete. One executemany per table and column set.
Deleting history deletes rows by what they belong to (`Purge`), applied in log order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import Table, bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.dml import Delete, Insert, Update
from sqlalchemy.sql.elements import ColumnElement

from flowledger.eventlog.fastsql import Prepared, PreparedCache

from .tables import UNPROJECTED_COLUMNS

Row = dict[str, Any]
WritePlan = list[tuple[Prepared, list[Any]]]
REV = "REV_"


_last_time: tuple[datetime | None, datetime | None] = (None, None)


class UnhandledEvent(LookupError):
    """A projector met an event type it neither handles nor lists as ignored on purpose: a new
    event type reached the projections before anyone decided what it means for their rows."""

    def __init__(self, projector: str, event_type: type) -> None:
        super().__init__(
            f"{projector} does not know the event type {event_type.__name__}: handle it, or "
            f"list it in {projector}.IGNORED if it changes none of its rows"
        )
        self.event_type = event_type


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


class TableChanges:
    # A plain class with slots: one is made per table a command touches (each commit a
    # rebuild replays has its own change set), and a dataclass's default factories cost more.
    __slots__ = ("bump", "deletes", "inserts", "updates")

    def __init__(self) -> None:
        self.inserts: dict[str, Row] = {}
        self.updates: dict[str, Row] = {}
        # rows whose REV_ goes up, by how much: one per command that changed the row
        self.bump: dict[str, int] = {}
        self.deletes: set[str] = set()

    def __repr__(self) -> str:
        return (
            f"TableChanges(inserts={self.inserts!r}, updates={self.updates!r}, "
            f"bump={self.bump!r}, deletes={self.deletes!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TableChanges):
            return NotImplemented
        return (self.inserts, self.updates, self.bump, self.deletes) == (
            other.inserts,
            other.updates,
            other.bump,
            other.deletes,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was

    def __bool__(self) -> bool:
        return bool(self.inserts or self.updates or self.deletes)


@dataclass(frozen=True, slots=True)
class Purge:
    """Delete the rows of `table` whose `column` equals `value`: rows found by what they belong
    to (an instance, a definition, a deployment) rather than by primary key, as Camunda deletes
    history. With `via`: the rows of `table` whose primary key a row of `via` names in its column
    `ref`, among the rows of `via` whose `column` equals `value` (the byte arrays of history
    variables, found through the history rows that point at them; run it before purging `via`).
    With `via` and `owner`: the rows of `table` whose column `owner` names the primary key of such
    a row of `via` (the inputs of historic decision instances, found through the instances).
    With `through` as well: the rows of `table` whose primary key the rows of `through` found so
    name in their column `ref` (the byte arrays of those inputs' values).
    With `values`: the rows so found are not deleted but set to these (column, value) pairs (an
    instance's history stamped with its removal time, found as its deletion would find it).
    With `roots` (ACT_HI_PROCINST): `value` names a root instance, and `column` matches each
    instance of its hierarchy, the PROC_INST_ID_ of every row of `roots` whose
    ROOT_PROC_INST_ID_ is `value` (a root's removal time stamped on its called instances too).
    """

    table: Table
    column: str
    value: str
    via: Table | None = None
    ref: str | None = None
    owner: str | None = None
    through: Table | None = None
    values: tuple[tuple[str, Any], ...] = ()
    roots: Table | None = None
    # A stamp of `values` that must not move (a removal time set after the fact, which may
    # overwrite an earlier stamp and be overwritten by a later change): it runs where it stands,
    # after every change and stamp before it.
    in_order: bool = False


Tables = dict[Table, TableChanges]
# Purges, then the row changes after them: a change set is a sequence of these.
Segment = tuple[list[Purge], Tables]


class ChangeSet:
    """Row operations keyed by primary key, merged to their net effect.

    A purge cannot merge with the row changes before it (which rows it hits depends on them), so
    it closes a segment: the changes so far are written first, then the purge, then what comes
    after it. Without purges (every command but history deletions) there is one segment.
    """

    def __init__(self) -> None:
        self.tables: Tables = {}
        self.purges: list[Purge] = []  # run before `tables`, after every earlier segment
        self.earlier: list[Segment] = []
        # Purges that set values (an ended hierarchy's removal time) rather than delete: they run
        # after everything else. A row of the hierarchy written after the stamp carries its value
        # already, a deletion before or after it leaves nothing to stamp, and runtime rows are
        # never stamped — so a stamp commutes with every change, and does not cut the batch into
        # segments (which would keep a task created and completed in one batch from folding away).
        self.stamps: list[Purge] = []

    def segments(self) -> list[Segment]:
        """The change set in the order it must be applied."""
        segments = [*self.earlier, (self.purges, self.tables)]
        if self.stamps:
            segments.append((self.stamps, {}))
        return segments

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

    def purge(self, purge: Purge) -> None:
        if purge.values and not purge.in_order:
            self.stamps.append(purge)
            return
        if self.stamps:
            # Stamps waiting for the end of the change set were set before this purge: a rebuild
            # projects an instance's end (its removal time stamped) and a later deletion of its
            # history in one change set, and the stamp must find the rows the deletion removes.
            self.earlier += [(self.purges, self.tables), (self.stamps, {})]
            self.tables, self.purges, self.stamps = {}, [], []
        elif any(self.tables.values()):
            self.earlier.append((self.purges, self.tables))
            self.tables, self.purges = {}, []
        self.purges.append(purge)

    def row_count(self) -> int:
        """Rows inserted, updated or deleted by key (purged rows are not counted: unknown)."""
        return sum(
            len(c.inserts) + len(c.updates) + len(c.deletes)
            for _purges, tables in self.segments()
            for c in tables.values()
        )

    def split_off(self, deferred: Callable[[Table], bool]) -> ChangeSet:
        """Move the changes of the tables `deferred` picks into a new change set and return it;
        this one keeps the others. A purge goes with its table, or to the deferred side when it
        finds its rows through a deferred table (the rows it looks for are written there). Each
        side keeps its segments in order; across the sides order does not matter, as no row and
        no purge of one side reads the other's tables."""
        kept, moved = ChangeSet(), ChangeSet()
        for purges, tables in self.segments():
            for purge in purges:
                through = (purge.table, purge.via, purge.through, purge.roots)
                side = moved if any(t is not None and deferred(t) for t in through) else kept
                side.purge(purge)
            for table, changes in tables.items():
                if changes:
                    side = moved if deferred(table) else kept
                    if table in side.tables:
                        side._merge_tables({table: changes})
                    else:  # the usual case: taken over as it is (this change set is emptied)
                        side.tables[table] = changes
        self.tables, self.purges, self.earlier = kept.tables, kept.purges, kept.earlier
        self.stamps = kept.stamps
        return moved

    def merge(self, later: ChangeSet) -> None:
        """Add the changes of a later command: batches of commands then write their net effect
        (revisions count one per command, as if each had been applied on its own)."""
        for purges, tables in later.segments():
            for purge in purges:
                self.purge(purge)
            self._merge_tables(tables)

    def _merge_tables(self, later: Tables) -> None:
        # `delete` and `insert` inlined (this runs for every commit a rebuild projects).
        for table, lc in later.items():
            changes = self._of(table)
            inserts, updates, bump, deletes = (
                changes.inserts,
                changes.updates,
                changes.bump,
                changes.deletes,
            )
            for pk in lc.deletes:
                if inserts.pop(pk, None) is not None:
                    continue
                updates.pop(pk, None)
                bump.pop(pk, None)
                deletes.add(pk)
            if lc.updates:
                later_bump = lc.bump
                for pk, values in lc.updates.items():
                    more = later_bump.get(pk, 0)
                    inserted = inserts.get(pk)
                    if inserted is not None:
                        inserted.update(values)
                        if more:
                            inserted[REV] = (inserted.get(REV) or 0) + more
                    elif pk not in deletes:
                        updates.setdefault(pk, {}).update(values)
                        # An explicit revision replaces earlier increments; later ones add up.
                        earlier = 0 if REV in values else bump.get(pk, 0)
                        if earlier + more:
                            bump[pk] = earlier + more
                        else:
                            bump.pop(pk, None)
            if not deletes:
                inserts.update(lc.inserts)
                continue
            for pk, row in lc.inserts.items():
                if pk in deletes:
                    # deleted and re-created in one batch: the stored row is simply rewritten
                    deletes.discard(pk)
                    updates[pk] = dict(row)
                else:
                    inserts[pk] = row


def _insert(table: Table) -> Insert:
    return insert(table)


# The columns of `Purge.roots` (ACT_HI_PROCINST) that find a root's hierarchy.
_ROOT, _INSTANCE = "ROOT_PROC_INST_ID_", "PROC_INST_ID_"


def _delete(table: Table) -> Delete:
    return delete(table).where(table.c[pk_name(table)] == bindparam("pk_"))


def _purge(
    table: Table,
    column: str,
    via: Table | None,
    ref: str | None,
    owner: str | None,
    through: Table | None,
    columns: tuple[str, ...] = (),
    roots: Table | None = None,
) -> Delete | Update:
    def matched(c: ColumnElement[Any]) -> ColumnElement[bool]:
        if roots is None:
            return c == bindparam("value")
        hierarchy = select(roots.c[_INSTANCE]).where(roots.c[_ROOT] == bindparam("value"))
        return c.in_(hierarchy)

    if via is None:
        found = matched(table.c[column])
    elif owner is not None:
        owners = select(via.c[pk_name(via)]).where(matched(via.c[column]))
        if through is not None and ref is not None:
            named = select(through.c[ref]).where(through.c[owner].in_(owners))
            found = table.c[pk_name(table)].in_(named)
        else:
            found = table.c[owner].in_(owners)
    else:
        assert ref is not None
        owned = select(via.c[ref]).where(matched(via.c[column]))
        found = table.c[pk_name(table)].in_(owned)
    if columns:
        values = {c: bindparam(f"v_{c}", type_=table.c[c].type) for c in columns}
        return update(table).where(found).values(values)
    return delete(table).where(found)


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
        plan: WritePlan = []
        for purges, tables in changes.segments():
            for purge in purges:
                what = (
                    purge.table,
                    purge.column,
                    purge.via,
                    purge.ref,
                    purge.owner,
                    purge.through,
                    tuple(c for c, _ in purge.values),
                    purge.roots,
                )
                stmt = self._prepared.get(dialect, ("purge", *what), partial(_purge, *what))
                params = {"value": purge.value, **{f"v_{c}": v for c, v in purge.values}}
                plan.append((stmt, [stmt.params(params)]))
            self._plan_tables(dialect, tables, plan)
        return plan

    def _plan_tables(self, dialect: Dialect, tables: Tables, plan: WritePlan) -> None:
        prepared = self._prepared
        for table, tc in tables.items():
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

    @staticmethod
    def run(conn: Connection, plan: WritePlan) -> None:
        for stmt, params in plan:
            stmt.run(conn, params)


class MemoryRowStore:
    """The same tables as plain dicts: what a rebuild from the log produces, for comparisons."""

    def __init__(self, tables: Iterable[Table]) -> None:
        self.rows: dict[str, dict[str, Row]] = {t.name: {} for t in tables}
        self._pk = {t.name: pk_name(t) for t in tables}
        # Purges find their rows through indexes (table -> column -> value -> keys), built at
        # the first purge by that column and kept up to date from then on: a log with many
        # history deletions would otherwise scan the whole table for each.
        self._indexes: dict[str, dict[str, dict[Any, set[str]]]] = {}

    def apply(self, changes: ChangeSet) -> None:
        for purges, tables in changes.segments():
            for purge in purges:
                self._purge(purge)
            self._apply_tables(tables)

    def _index(self, table: str, column: str) -> dict[Any, set[str]]:
        indexes = self._indexes.setdefault(table, {})
        index = indexes.get(column)
        if index is None:
            index = indexes[column] = {}
            for pk, row in self.rows.get(table, {}).items():
                index.setdefault(row.get(column), set()).add(pk)
        return index

    def _purge(self, purge: Purge) -> None:
        if purge.roots is None:
            self._purge_value(purge, purge.value)
            return
        roots = self.rows.get(purge.roots.name, {})
        keys = self._index(purge.roots.name, _ROOT).get(purge.value, ())
        for instance in sorted({roots[k][_INSTANCE] for k in keys}):
            self._purge_value(purge, instance)

    def _purge_value(self, purge: Purge, value: Any) -> None:
        table = purge.table.name
        if purge.via is None:
            doomed = list(self._index(table, purge.column).get(value, ()))
        elif purge.owner is not None:
            keys = self._index(purge.via.name, purge.column).get(value, ())
            holder = table if purge.through is None else purge.through.name
            owned = [pk for k in keys for pk in self._index(holder, purge.owner).get(k, ())]
            if purge.through is None or purge.ref is None:
                doomed = owned
            else:
                rows = self.rows.get(holder, {})
                doomed = [rows[pk][purge.ref] for pk in owned]
        else:
            assert purge.ref is not None
            owners = self.rows.get(purge.via.name, {})
            keys = self._index(purge.via.name, purge.column).get(value, ())
            doomed = [owners[k][purge.ref] for k in keys]
        if not purge.values:
            for pk in doomed:
                self._remove(table, pk)
            return
        rows = self.rows.setdefault(table, {})
        indexed = table in self._indexes
        for pk in doomed:
            row = rows.get(pk)
            if row is None:
                continue
            if indexed:
                self._remove(table, pk)
            row.update(purge.values)
            if indexed:
                self._add(table, pk, row)

    def _remove(self, table: str, pk: str) -> None:
        row = self.rows.setdefault(table, {}).pop(pk, None)
        if row is not None:
            for column, index in self._indexes.get(table, {}).items():
                index.get(row.get(column), set()).discard(pk)

    def _apply_tables(self, tables: Tables) -> None:
        for table, tc in tables.items():
            if table.name in self._indexes:
                self._apply_indexed(table.name, tc)
                continue
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

    def _apply_indexed(self, table: str, tc: TableChanges) -> None:
        """`_apply_tables` for a table with indexes: each change keeps them up to date."""
        rows = self.rows.setdefault(table, {})
        for pk in tc.deletes:
            self._remove(table, pk)
        for pk, values in tc.updates.items():
            row = rows.get(pk)
            if row is None:
                continue
            self._remove(table, pk)
            row.update(values)
            if pk in tc.bump:
                row[REV] = (row.get(REV) or 0) + tc.bump[pk]
            self._add(table, pk, row)
        for pk, row in tc.inserts.items():
            self._remove(table, pk)
            self._add(table, pk, dict(row))

    def _add(self, table: str, pk: str, row: Row) -> None:
        self.rows[table][pk] = row
        for column, index in self._indexes[table].items():
            index.setdefault(row.get(column), set()).add(pk)


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
    """Row-for-row differences between a rebuilt and a live table, as readable lines (columns no
    projector writes, a job's lease, are not compared)."""
    skipped = UNPROJECTED_COLUMNS.get(table, frozenset())
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
            cols = [c for c in exp if c not in skipped and normalise(exp[c]) != act.get(c)]
            if cols:
                detail = ", ".join(f"{c}: rebuilt {exp[c]!r} != live {act.get(c)!r}" for c in cols)
                problems.append(f"{table} row {pk}: {detail}")
    return problems
