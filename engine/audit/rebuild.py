"""Rebuild projection tables from the log beside the live ones, then swap them in.

The log is streamed in batches into shadow tables (`rb_<table>`, primary keys only); each batch
commits with a checkpoint (`projection_checkpoint` row `rebuild`), so an interrupted rebuild goes
on from where it stopped. Commands keep running meanwhile. The swap takes the log head's lock,
projects the commits that arrived since the last batch, keeps the live rows in `old_<table>`
(until `drop_old`), and replaces the live rows by the rebuilt ones, all in one transaction: no
command is lost, and readers see the old tables or the new, never a mix.

On SQLite the shadows are made with the live tables' own DDL and the swap renames: the live
table becomes `old_<table>` (its secondary indexes dropped), the shadow takes its name and the
live indexes are built on it once, after loading. SQLite's DDL is transactional and a rename
moves no row. Other databases copy the rows (MariaDB commits at every DDL statement, and a
PostgreSQL rename would change what sessions' prepared statements point at).

Runtime and history share `ACT_GE_BYTEARRAY`; its `TYPE_` says whose a row is (1 repository,
2 runtime, 3 history), so a rebuild of one projection replaces only its own byte arrays.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import msgspec
from sqlalchemy import MetaData, Table, delete, insert, inspect, not_, or_, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from flowledger import migrations
from flowledger.core import views
from flowledger.core.errors import InvalidValue, ProcessEngineError
from flowledger.core.state import InstanceState
from flowledger.engine.audit.gc_batches import fewer_collections
from flowledger.engine.audit.shadow_writer import (
    CHECKPOINT,
    PIPELINE_FROM_EVENTS,
    SHADOW_PREFIX,
    Settings,
    ShadowWriter,
    write_batch,
)
from flowledger.engine.commands.bus import deadlock_or_serialization_failure
from flowledger.engine.storage.connections import Connections
from flowledger.engine.storage.streams import CACHE_SIZE, Repository
from flowledger.engine.workers.history_lifecycle import HistoryLifecycle, wall_clock
from flowledger.eventlog import EventStore
from flowledger.eventlog.records import LogEntry
from flowledger.projections.changes import ChangeSet, pk_name
from flowledger.projections.compare import ShadowTables, shadow_table
from flowledger.projections.follower import CHECKPOINT as HISTORY_CHECKPOINT
from flowledger.projections.follower import SCHEMA_VERSION as HISTORY_SCHEMA
from flowledger.projections.history import HistoryProjector
from flowledger.projections.properties import save_history_level
from flowledger.projections.replay import Replayer, begin_and_end
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    HISTORY_TABLES,
    REPOSITORY_TABLES,
    RUNTIME_TABLES,
    UNPROJECTED_COLUMNS,
)

log = logging.getLogger("flowledger.engine.rebuild")

OLD_PREFIX = "old_"
BATCH_EVENTS = 20_000
SWAP_ATTEMPTS = 5
CHASE_ROUNDS = 3
PROJECTIONS: dict[str, tuple[Table, ...]] = {
    "runtime": (*RUNTIME_TABLES, *REPOSITORY_TABLES),
    "history": (*HISTORY_TABLES, ACT_GE_BYTEARRAY),
    "all": (*HISTORY_TABLES, *RUNTIME_TABLES, *REPOSITORY_TABLES),
}
# ACT_GE_BYTEARRAY.TYPE_ of the rows each projection owns (None: every row).
_BYTEARRAY_TYPES: dict[str, tuple[int, ...] | None] = {
    "runtime": (1, 2),
    "history": (3,),
    "all": None,
}

Progress = Callable[[int, int], None]


class Plan(msgspec.Struct, frozen=True):
    """What a rebuild builds, kept with its checkpoint so that a resumed run builds the same."""

    projection: str
    history_level: str
    reason: str = "operator"  # or "migration": a schema revision invalidated the projection
    # The schema revision the shadow tables were made at: shadows of an older one lack columns.
    revision: str = ""


class Rebuild:
    """`AuditService.rebuild`: shadow tables, checkpointed batches, catch-up, a swap in one
    transaction."""

    def __init__(
        self,
        db: Connections,
        store: EventStore,
        repository: Repository,
        history: HistoryLifecycle,
    ) -> None:
        self._db = db
        self._store = store
        self._repository = repository
        self._history = history

    def after_migration(self, invalidated: set[str]) -> views.RebuildReport | None:
        """Rebuild what the schema revisions just applied invalidated, or finish such a rebuild
        an earlier start left unfinished; None when there is nothing to do."""
        with self._db.read() as conn:
            row = self._store.checkpoint_row(conn, CHECKPOINT)
        owed = _plan(row[3]) if row is not None else None
        if owed is not None and owed.reason == "migration":
            invalidated = invalidated | {owed.projection}
        if not invalidated:
            return None
        projection = "all" if len(invalidated) > 1 else next(iter(invalidated))
        log.warning("the schema revisions applied invalidate %s: rebuilding it", projection)
        return self.run(projection, reason="migration")

    @fewer_collections()
    def run(
        self,
        projection: str = "all",
        history_level: str | None = None,
        progress: Progress | None = None,
        batch_events: int = BATCH_EVENTS,
        *,
        reason: str = "operator",
    ) -> views.RebuildReport:
        """Rebuild `projection` (see `AuditService.rebuild`); `reason` is kept with the checkpoint
        so that a rebuild a migration owes is finished by the next start if interrupted."""
        if projection not in PROJECTIONS:
            raise InvalidValue(
                f"projection {projection!r}: expected one of {', '.join(PROJECTIONS)}",
                "projection",
            )
        if history_level is not None and projection == "runtime":
            raise InvalidValue(
                "a history level applies to the history tables: rebuild `history` or `all`",
                "history_level",
            )
        level = history_level or self._history.level
        projector = HistoryProjector(level)  # refuses an unknown level
        plan = Plan(projection, level, reason, migrations.head_revision())
        tables = PROJECTIONS[projection]
        shadows = ShadowTables(tables, prefix=SHADOW_PREFIX, temporary=False)
        resumed_from = self._prepare(plan, shadows)
        conn_box: list[Connection] = []

        def load(stream_id: str, version: int) -> InstanceState | None:
            return self._repository.state_at(conn_box[0], stream_id, version)

        replayer = Replayer(
            load,
            history=projector if projection != "runtime" else None,
            runtime=projection != "history",
            repository=projection != "history",
            keep=CACHE_SIZE,
        )
        counts = [0, 0, 0]  # commits, events, rows
        self._build(shadows, replayer, conn_box, counts, resumed_from, batch_events, progress)
        self._swap(plan, shadows, replayer, conn_box, counts)
        if history_level is not None:
            self._history.use_level(history_level)
        if progress is not None:
            with self._db.read() as conn:
                head = self._store.head_position(conn)
            progress(head, head)
        return views.RebuildReport(
            commits=counts[0],
            events=counts[1],
            rows_written=counts[2],
            resumed_from=resumed_from,
            tables=[t.name for t in tables],
        )

    def drop_old(self) -> list[str]:
        """Drop the tables the last swaps kept (`old_<table>`); the names of those dropped."""
        with self._db.write() as conn:
            present = set(inspect(conn).get_table_names())
            dropped = []
            for table in PROJECTIONS["all"]:
                name = f"{OLD_PREFIX}{table.name.lower()}"
                if name in present:
                    conn.execute(text(f"DROP TABLE {name}"))
                    dropped.append(name)
        return dropped

    # -- steps -------------------------------------------------------------------------------

    def _prepare(self, plan: Plan, shadows: ShadowTables) -> int:
        """The position to go on from: a checkpoint of the same plan, or 0 on fresh shadows."""
        with self._db.write() as conn:
            row = self._store.checkpoint_row(conn, CHECKPOINT)
            if row is not None:
                earlier = _plan(row[3])
                if earlier is not None and (
                    earlier.projection,
                    earlier.history_level,
                    earlier.revision,
                ) == (plan.projection, plan.history_level, plan.revision):
                    _create_shadows(conn, shadows, checkfirst=True)
                    if earlier.reason == "migration":  # still owed by the migration
                        plan = msgspec.structs.replace(plan, reason="migration")
                    self._store.set_checkpoint_status(
                        conn, CHECKPOINT, "building", _encoded(plan), wall_clock()
                    )
                    log.info("rebuild of %s goes on from position %d", plan.projection, row[0])
                    return row[0]
                log.warning(
                    "an unfinished rebuild (%s) is discarded for a new one (%s)", earlier, plan
                )
        with self._db.write() as conn:
            shadows.drop(conn)
        with self._db.write() as conn:
            _create_shadows(conn, shadows)
            self._save(conn, 0, plan)
        return 0

    def _save(self, conn: Connection, position: int, plan: Plan) -> None:
        self._store.save_checkpoint(conn, CHECKPOINT, position, HISTORY_SCHEMA, wall_clock())
        self._store.set_checkpoint_status(
            conn, CHECKPOINT, "building", _encoded(plan), wall_clock()
        )

    def _build(
        self,
        shadows: ShadowTables,
        replayer: Replayer,
        conn_box: list[Connection],
        counts: list[int],
        position: int,
        batch_events: int,
        progress: Progress | None,
    ) -> None:
        """Project the log into the shadows up to its head, a batch at a time: each read in a
        read transaction, written with the checkpoint in a write transaction of its own, here
        or in a writer process while the next batch is projected (`shadow_writer`)."""
        with self._db.read() as conn:
            head = self._store.head_position(conn)
        writer = self._writer(shadows) if head - position >= PIPELINE_FROM_EVENTS else None
        # Commands go on meanwhile and may outrun the batches: each round chases the head seen
        # when it began, until a round ends no nearer than the last (or after CHASE_ROUNDS);
        # what is left, the swap catches up while commands wait for it.
        target, rounds, chased = head, 1, head - position

        def report(done: int) -> None:
            if progress is not None:
                progress(done, head)

        try:
            while True:
                with self._db.read() as conn:
                    conn_box[:] = [conn]
                    changes, last = self._project(conn, replayer, position, batch_events, counts)
                    head = self._store.head_position(conn)
                if writer is not None and writer.in_flight:
                    report(writer.committed())
                if (
                    last > position
                    and writer is not None
                    and not writer.submit(changes, position, last)
                ):
                    writer = None  # it never got ready (logged): this process writes
                if writer is None:
                    if last > position:
                        with self._db.write() as conn:
                            write_batch(
                                conn, self._store, shadows, changes, position, last, wall_clock()
                            )
                    report(last)
                position = last
                if last >= target:
                    gap = head - last
                    if gap <= batch_events or gap >= chased or rounds == CHASE_ROUNDS:
                        break
                    target, rounds, chased = head, rounds + 1, gap
            if writer is not None and writer.in_flight:
                report(writer.committed())
        finally:
            if writer is not None:
                writer.close()

    def _writer(self, shadows: ShadowTables) -> ShadowWriter | None:
        if self._db.memory:
            return None  # no other process sees an in-memory database
        url = self._db.db.url.render_as_string(hide_password=False)
        synchronous, autocheckpoint = "NORMAL", True
        if self._db.db.dialect.name == "sqlite":
            with self._db.read() as conn:
                level = conn.exec_driver_sql("PRAGMA synchronous").scalar_one()
                autocheckpoint = bool(conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar())
            synchronous = ("OFF", "NORMAL", "FULL", "EXTRA")[int(level)]
        return ShadowWriter.start(
            Settings(url, [str(t.name) for t in shadows.of], synchronous, autocheckpoint)
        )

    def _project(
        self,
        conn: Connection,
        replayer: Replayer,
        position: int,
        batch_events: int,
        counts: list[int],
    ) -> tuple[ChangeSet, int]:
        """Project up to `batch_events` events after `position`: the batch's changes and the
        position reached."""
        changes = ChangeSet()
        events = 0
        batch: list[LogEntry] = []
        stored = 0
        for entry in self._store.entries(conn, position):
            batch.append(entry)
            stored += entry.last_version - entry.first_version + 1
            if stored >= batch_events:
                break
        # Instances that start and end in this batch write no runtime row: not projected.
        decode = self._repository.decode
        brief = begin_and_end(((e.stream_id, e.first_version, e.events) for e in batch), decode)
        for entry in batch:
            decoded = decode(entry.events)
            replayer.project_commit(entry, decoded, changes, runtime=entry.stream_id not in brief)
            position = entry.last_position
            events += len(decoded)
        counts[0] += len(batch)
        counts[1] += events
        counts[2] += changes.row_count()
        return changes, position

    def _catch_up(
        self, conn: Connection, replayer: Replayer, shadows: ShadowTables, counts: list[int]
    ) -> None:
        """Project and write what arrived since the last batch, in the swap's transaction."""
        while True:
            position = self._store.checkpoint(conn, CHECKPOINT) or 0
            changes, last = self._project(conn, replayer, position, BATCH_EVENTS, counts)
            if last == position:
                return
            write_batch(conn, self._store, shadows, changes, position, last, wall_clock())

    def _swap(
        self,
        plan: Plan,
        shadows: ShadowTables,
        replayer: Replayer,
        conn_box: list[Connection],
        counts: list[int],
    ) -> None:
        olds = _tables(shadows.of, OLD_PREFIX)
        with self._db.write() as conn:
            renames = conn.dialect.name == "sqlite"
            # DDL first and alone: MariaDB commits a transaction at every DDL statement.
            for old in olds.values():
                old.drop(conn, checkfirst=True)
                if not renames:
                    old.create(conn)
        before = list(counts)
        for attempt in range(SWAP_ATTEMPTS):
            counts[:] = before  # an undone attempt's commits are counted again by the next
            try:
                with self._db.lock, self._db.write() as conn:
                    conn_box[:] = [conn]
                    self._store.lock_head(conn)
                    if plan.projection != "runtime":
                        self._store.checkpoint(conn, HISTORY_CHECKPOINT, lock=True)
                    self._catch_up(conn, replayer, shadows, counts)
                    if self._history.deferred is not None:
                        # Deferred rows up to the head first: the tables this swap keeps (a
                        # rebuild of one projection) must reach the head with the rebuilt ones.
                        self._history.deferred.within(conn)
                    swap_in = _rename_in if renames else _replace
                    for live, shadow in shadows.of.items():
                        swap_in(conn, live, shadow, olds[live], _BYTEARRAY_TYPES[plan.projection])
                    if plan.projection != "runtime":
                        save_history_level(conn, plan.history_level)
                        if self._store.checkpoint(conn, HISTORY_CHECKPOINT) is not None:
                            self._store.save_checkpoint(
                                conn,
                                HISTORY_CHECKPOINT,
                                self._store.head_position(conn),
                                HISTORY_SCHEMA,
                                wall_clock(),
                            )
                    self._store.drop_checkpoint(conn, CHECKPOINT)
                break
            except DBAPIError as exc:
                # A command that wrote a row this swap deletes, then waited for the log head we
                # hold: the database undoes one of us. The command decides again; so do we.
                if attempt == SWAP_ATTEMPTS - 1 or not deadlock_or_serialization_failure(exc):
                    raise
                log.info("rebuild swap undone by the database, again: %s", exc)
        with self._db.write() as conn:
            shadows.drop(conn)


def _encoded(plan: Plan) -> str:
    return msgspec.json.encode(plan).decode()


def _plan(detail: str | None) -> Plan | None:
    try:
        return None if detail is None else msgspec.json.decode(detail, type=Plan)
    except msgspec.DecodeError:
        return None


def _tables(of: dict[Table, Table], prefix: str) -> dict[Table, Table]:
    metadata = MetaData()
    return {live: shadow_table(live, metadata, prefix) for live in of}


def _create_shadows(conn: Connection, shadows: ShadowTables, *, checkfirst: bool = False) -> None:
    """The shadow tables; on SQLite made by the live tables' own DDL (constraints, defaults,
    column order), as `_rename_in` makes them the live tables."""
    if conn.dialect.name != "sqlite":
        shadows.create(conn, checkfirst=checkfirst)
        return
    present = set(inspect(conn).get_table_names()) if checkfirst else set()
    for live, shadow in shadows.of.items():
        if shadow.name in present:
            continue
        ddl, _indexes = _sqlite_schema(conn, live.name)
        renamed, found = _CREATE_TABLE.subn(f"CREATE TABLE {shadow.name} ", ddl, count=1)
        if not found:
            raise ProcessEngineError(f"cannot read the definition of {live.name}: {ddl[:80]!r}")
        conn.execute(text(renamed))


_CREATE_TABLE = re.compile(
    r'^\s*CREATE\s+TABLE\s+(?:"[^"]+"|`[^`]+`|\[[^\]]+\]|\S+?)\s*(?=\()', re.I
)


def _sqlite_schema(conn: Connection, name: str) -> tuple[str, dict[str, str]]:
    """A SQLite table's CREATE TABLE statement and its explicit indexes' (name -> CREATE INDEX);
    primary keys and unique constraints are part of the first (SQLite's automatic indexes)."""
    rows = conn.execute(
        text(
            "SELECT type, name, sql FROM sqlite_master "
            "WHERE tbl_name = :name AND sql IS NOT NULL ORDER BY name"
        ),
        {"name": name},
    ).all()
    ddl = next((sql for kind, _n, sql in rows if kind == "table"), None)
    if ddl is None:
        raise ProcessEngineError(f"table {name} is missing: run `flowledger migrate`")
    return ddl, {index: sql for kind, index, sql in rows if kind == "index"}


def _rename_in(
    conn: Connection, live: Table, shadow: Table, old: Table, types: tuple[int, ...] | None
) -> None:
    """`_replace` by renaming (SQLite): the live table becomes `old` without its secondary
    indexes, the shadow takes the live name and then the live indexes."""
    if live is ACT_GE_BYTEARRAY and types is not None:
        others = or_(not_(live.c.TYPE_.in_(types)), live.c.TYPE_.is_(None))
        names = [c.name for c in live.columns]
        conn.execute(
            insert(shadow).from_select(names, select(*[live.c[n] for n in names]).where(others))
        )
    _ddl, indexes = _sqlite_schema(conn, live.name)
    # Indexes a purge added to the shadow (`ShadowTables._purge`) are the rebuild's own.
    for name in _sqlite_schema(conn, shadow.name)[1]:
        conn.execute(text(f'DROP INDEX "{name}"'))
    for name in indexes:
        conn.execute(text(f'DROP INDEX "{name}"'))
    conn.execute(text(f'ALTER TABLE "{live.name}" RENAME TO "{old.name}"'))
    conn.execute(text(f'ALTER TABLE "{shadow.name}" RENAME TO "{live.name}"'))
    for sql in indexes.values():
        conn.execute(text(sql))
    kept = UNPROJECTED_COLUMNS.get(live.name, frozenset())
    _carry_over(conn, live, old, kept)


def _replace(
    conn: Connection, live: Table, shadow: Table, old: Table, types: tuple[int, ...] | None
) -> None:
    """Keep the live rows in `old`, then put the rebuilt rows in their place (of ACT_GE_BYTEARRAY
    only the projection's own types); columns no projector writes (a job's lease) stay."""
    names = [c.name for c in live.columns]
    kept = UNPROJECTED_COLUMNS.get(live.name, frozenset())
    if kept:
        # Leases taken while we copy must not be lost between the copy and the delete: an
        # executor's lease waits for this transaction instead.
        conn.execute(select(live.c[pk_name(live)]).with_for_update()).all()
    copy = select(*[live.c[n] for n in names])
    emptied = delete(live)
    if live is ACT_GE_BYTEARRAY and types is not None:
        mine = live.c.TYPE_.in_(types)
        copy, emptied = copy.where(mine), emptied.where(mine)
    conn.execute(insert(old).from_select(names, copy))
    # Without a WHERE clause SQLite empties the table at once (its truncate optimisation)
    # instead of deleting row by row and updating every index.
    conn.execute(emptied)
    conn.execute(insert(live).from_select(names, select(*[shadow.c[n] for n in names])))
    _carry_over(conn, live, old, kept)


def _carry_over(conn: Connection, live: Table, old: Table, kept: frozenset[str]) -> None:
    """Put back into the swapped-in rows the columns no projector writes, from `old`."""
    if kept:
        key = pk_name(live)
        values = {
            n: select(old.c[n]).where(old.c[key] == live.c[key]).scalar_subquery()
            for n in sorted(kept)
        }
        conn.execute(update(live).values(values))
