"""The database under test: the cached rows put into the database a run names, or refused.

A server database gets the cached SQLite rows copied in at the revision that wrote them; one
that holds anything but this benchmark's data for the same scenario is never written.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from flowledger import migrations
from flowledger.eventlog import tables as log_tables
from flowledger.projections.tables import ACT_RE_DEPLOYMENT
from flowledger.projections.tables import metadata as act_metadata
from flowledger.tools.progress import Progress

from ..errors import BenchError
from .build import ensure_cached, marker
from .scenario import MARKER

COPY_BATCH = 5_000


def _held_marker(db: sa.Engine) -> str | None:
    """The benchmark marker the database holds, "" when it holds other data, None when empty."""
    inspector = sa.inspect(db)
    names = {n.upper() for n in inspector.get_table_names()}
    if "EVENT_LOG" not in names:
        return None
    with db.connect() as conn:
        if conn.execute(sa.select(log_tables.event_log.c.first_position).limit(1)).first() is None:
            return None
        d = ACT_RE_DEPLOYMENT
        found = conn.execute(
            sa.select(d.c.NAME_).where(d.c.NAME_.like(f"{MARKER} %")).limit(1)
        ).scalar()
    return found or ""


def _copy_rows(source: Path, target: sa.Engine, progress: Progress) -> None:
    """Every row of the cached SQLite file into the (migrated, empty) server database."""
    tables = [*log_tables.metadata.sorted_tables, *act_metadata.sorted_tables]
    src = sa.create_engine(f"sqlite:///{source}")
    try:
        with src.connect() as read, target.begin() as write:
            for table in tables:
                write.execute(sa.delete(table))  # the rows migrations seed (the log head)
                rows = read.execute(sa.select(table)).mappings()
                copied = 0
                while batch := [dict(r) for r in rows.fetchmany(COPY_BATCH)]:
                    write.execute(sa.insert(table), batch)
                    copied += len(batch)
                progress.note(f"copied {copied:,} rows of {table.name}")
    finally:
        src.dispose()
    with target.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        if target.dialect.name == "postgresql":
            conn.exec_driver_sql("VACUUM ANALYZE")
        else:
            for table in tables:
                conn.exec_driver_sql(f"ANALYZE TABLE {table.name}")


def prepare(url: str, cache_dir: Path, instances: int, seed: int, progress: Progress) -> None:
    """Make the database at `url` hold the benchmark's data for N instances."""
    wanted = marker(instances, seed)
    db = sa.create_engine(url)
    try:
        held = _held_marker(db)
        if held == wanted:
            return
        if held is not None:
            what = f"the benchmark's data of another run ({held!r})" if held else "other data"
            raise BenchError(
                f"{redacted(url)} holds {what}; give an empty database or one this benchmark "
                f"filled for --instances {instances} --seed {seed}"
            )
        cached = ensure_cached(cache_dir, instances, seed, progress)
        if db.dialect.name == "sqlite":
            database = db.url.database
            if not database or database == ":memory:":
                raise BenchError("--db: an SQLite database must be a file")
            db.dispose()
            target = Path(database)
            for suffix in ("-wal", "-shm", "-journal"):  # of an empty database
                target.with_name(target.name + suffix).unlink(missing_ok=True)
            shutil.copyfile(cached, target)
            return
        progress.note(f"copying {cached.name} into {redacted(url)}")
        revision = _revision_of(cached)
        with db.connect() as conn:
            current = migrations.current_revision(conn)
        if current not in (None, revision):
            raise BenchError(
                f"{redacted(url)} is empty but at schema revision {current}, the cached rows "
                f"at {revision}: give a database no flowledger has opened yet"
            )
        # The rows go in at the revision that wrote them; opening the engine migrates them.
        migrations.upgrade(db, revision)
        _copy_rows(cached, db, progress)
    finally:
        db.dispose()


def _revision_of(path: Path) -> str:
    with closing(sqlite3.connect(path)) as conn:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    return str(row[0])


def redacted(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)
