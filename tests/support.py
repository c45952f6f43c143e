"""Test support: which databases to run on, and fresh isolated databases on each of them.

SQLite always works; PostgreSQL and MariaDB tests skip when the server is unreachable, except in CI
(CI=true), where an unreachable database is a failure.
"""

from __future__ import annotations

import contextlib
import os
import uuid
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

SERVER_URLS = {
    "postgresql": os.environ.get(
        "FLOWLEDGER_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    ),
    "mariadb": os.environ.get(
        "FLOWLEDGER_TEST_MARIADB", "mysql+pymysql://root@127.0.0.1:3306/test"
    ),
}
KINDS = ("sqlite", "postgresql", "mariadb")
# Camunda's own test models live beside the project, never in it (their README says so).
CONFORMANCE_DIR = Path(
    os.environ.get(
        "FLOWLEDGER_CONFORMANCE_DIR",
        Path(__file__).resolve().parents[2] / "shared" / "conformance",
    )
)
# The part of Camunda's REST contract the REST tests read, kept in the repository (README there).
REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
BPMN_DIR = Path(__file__).resolve().parent / "bpmn"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def selected_kind() -> str:
    """The database the general suite runs on: FLOWLEDGER_TEST_DB=sqlite|postgresql|mariadb."""
    kind = os.environ.get("FLOWLEDGER_TEST_DB", "sqlite").lower()
    if kind not in KINDS:
        raise RuntimeError(f"FLOWLEDGER_TEST_DB must be one of {KINDS}, not {kind!r}")
    return kind


@cache
def _reachable(kind: str) -> str | None:
    try:
        engine = sa.create_engine(SERVER_URLS[kind])
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        engine.dispose()
        return None
    except Exception as exc:  # any driver error means "not here"
        return f"{type(exc).__name__}: {exc}".splitlines()[0]


def require(kind: str) -> None:
    """Skip (or, in CI, fail) when the database server of `kind` cannot be reached."""
    if kind == "sqlite":
        return
    problem = _reachable(kind)
    if problem is not None:
        message = f"{kind} is not reachable at {SERVER_URLS[kind]}: {problem}"
        if in_ci():
            pytest.fail(message + " (CI=true: database tests must not skip)")
        pytest.skip(message)


# Creating and migrating a database costs ~0.5 s on MariaDB; finished tests hand theirs back
# emptied, and the next test reuses it. Everything is dropped when the test session ends.
_POOL: dict[str, list[str]] = {"postgresql": [], "mariadb": []}
_CREATED: dict[str, list[str]] = {"postgresql": [], "mariadb": []}


def _url(kind: str, name: str) -> str:
    base = sa.make_url(SERVER_URLS[kind])
    if kind == "postgresql":
        url = base.update_query_dict({"options": f"-csearch_path={name}"})
    else:
        url = base.set(database=name)
    return url.render_as_string(hide_password=False)


def _create(kind: str) -> str:
    name = f"fl_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(SERVER_URLS[kind], isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        if kind == "postgresql":
            conn.execute(sa.text(f"CREATE SCHEMA {name}"))
        else:
            conn.execute(
                sa.text(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
            )
    admin.dispose()
    _CREATED[kind].append(name)
    return name


# One connection pool per pooled database for emptying it: a new connection costs more than the
# deletes (about 70 ms on MariaDB, run after every test).
_EMPTYING: dict[str, sa.Engine] = {}
# The tables (not views) of the database a pooled URL names, cheaper than SQLAlchemy's reflection.
_TABLES = {
    "postgresql": "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1",
    "mariadb": "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() "
    "AND table_type = 'BASE TABLE' ORDER BY 1",
}


def _empty(kind: str, name: str) -> bool:
    """Delete every row; False when the schema is not at the newest revision any more."""
    from flowledger import migrations

    url = _url(kind, name)
    db = _EMPTYING.get(url)
    if db is None:
        db = _EMPTYING[url] = sa.create_engine(url, pool_size=1)
    try:
        with db.begin() as conn:
            if migrations.current_revision(conn) != migrations.head_revision():
                raise LookupError("not at the newest revision")
            for table in conn.execute(sa.text(_TABLES[kind])).scalars():
                if table != "alembic_version":
                    conn.execute(sa.text(f"DELETE FROM {table}"))
            conn.execute(sa.text("INSERT INTO log_head (id, last_position) VALUES (1, 0)"))
        return True
    except (sa.exc.SQLAlchemyError, LookupError):
        _EMPTYING.pop(url).dispose()
        return False


def drop_pooled_databases() -> None:
    for db in _EMPTYING.values():
        db.dispose()
    _EMPTYING.clear()
    for kind, names in _CREATED.items():
        if not names:
            continue
        admin = sa.create_engine(SERVER_URLS[kind], isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            for name in names:
                drop = "DROP SCHEMA {} CASCADE" if kind == "postgresql" else "DROP DATABASE {}"
                conn.execute(sa.text(drop.format(name)))
        admin.dispose()
        names.clear()
        _POOL[kind].clear()


@contextmanager
def fresh_database(kind: str, tmp_path: Path) -> Iterator[str]:
    """A URL to an empty database of `kind`: a new SQLite file, or an emptied schema/database."""
    require(kind)
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / f'fl_{uuid.uuid4().hex[:12]}.db'}"
        return
    name = _POOL[kind].pop() if _POOL[kind] else _create(kind)
    try:
        yield _url(kind, name)
    finally:
        if _empty(kind, name):
            _POOL[kind].append(name)


def bpmn(name: str) -> Path:
    return BPMN_DIR / name


def event_types(engine: object, stream_id: str) -> list[str]:
    """The recorded event types of a stream, in order."""
    return [e.type for e in engine.events(stream_id)]  # type: ignore[attr-defined]


def open_task_names(engine: object, process_instance_id: str) -> list[str]:
    return sorted(
        t.name or t.task_definition_key
        for t in engine.tasks(process_instance_id=process_instance_id)  # type: ignore[attr-defined]
    )


def history_activities(engine: object, process_instance_id: str) -> list[tuple[str, str, bool]]:
    """(activity id, activity type, ended) of every activity instance, in start order."""
    return [
        (a.activity_id, a.activity_type, a.end_time is not None)
        for a in engine.historic_activity_instances(process_instance_id)  # type: ignore[attr-defined]
    ]


def task_named(engine: object, process_instance_id: str, name: str) -> str:
    for task in engine.tasks(process_instance_id=process_instance_id):  # type: ignore[attr-defined]
        if (task.name or task.task_definition_key) == name:
            return str(task.id)
    raise AssertionError(f"no open task {name!r} in {process_instance_id}")


def sql_rows(url: str, sql: str) -> list[tuple[object, ...]]:
    """The rows of `sql` on the database at `url`, read by a connection of its own."""
    all_deferred_rows_written()
    db = sa.create_engine(url)
    try:
        with db.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        db.dispose()


def deferred_rows_written(engine: Any) -> None:
    """Before a test reads or edits tables past the engine: with a deferred projection, the rows
    behind the log are written first (inline engines, and asynchronous history, left as they
    are: their tests watch what is not written yet)."""
    if engine.projection == "deferred":
        engine.flush_history()


# The engines the tests made, while the deferred pass runs (tests/conftest.py adds them): a read
# past every engine (a raw SQL helper given only a URL) writes their deferred rows first.
ENGINES: weakref.WeakSet[Any] = weakref.WeakSet()


def all_deferred_rows_written() -> None:
    for engine in list(ENGINES):
        with contextlib.suppress(Exception):  # a closed engine wrote its rows when it closed
            deferred_rows_written(engine)
