"""`eventlog.fastsql.Prepared` on the selected database: rows written through the DBAPI cursor read
back exactly as SQLAlchemy Core writes them (datetimes to the microsecond, NULLs, flags, bytes),
executemany, binds the statement carries itself (LIMIT, defaults), and driver errors surfacing as
SQLAlchemy's exception classes (IntegrityError on a duplicate primary key).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError

from flowledger.engine.storage.database import create_database
from flowledger.eventlog.fastsql import Prepared, PreparedCache

metadata = sa.MetaData()
# A scratch table of this test module only: created and dropped around every test.
PROBE = sa.Table(
    "fastsql_probe",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("n", sa.BigInteger),
    sa.Column("flag", sa.Boolean(create_constraint=False)),
    sa.Column("at", sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")),
    sa.Column("note", sa.Text),
    sa.Column("data", sa.LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")),
    sa.Column("ratio", sa.Double()),
    mysql_engine="InnoDB",
    mariadb_engine="InnoDB",
)
MOMENTS = (
    datetime(2026, 3, 1, 9, 0, 0, 123_456),
    datetime(2026, 3, 1, 9, 0, 0),  # no fraction at all
    datetime(2001, 2, 3, 4, 5, 6, 7_000),  # milliseconds only
    datetime(1999, 12, 31, 23, 59, 59, 999_999),
)


def probe_row(i: int, **values: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": f"row-{i:04d}",
        "n": 2**40 + i,
        "flag": i % 2 == 0,
        "at": MOMENTS[i % len(MOMENTS)],
        "note": f"note {i}: ünïcode ✓",
        "data": bytes([i % 256, 0, 255]),
        "ratio": i / 8,
    }
    row.update(values)
    return row


@pytest.fixture
def db(db_url: str) -> Iterator[sa.Engine]:
    engine = create_database(db_url)
    metadata.create_all(engine)
    try:
        yield engine
    finally:
        metadata.drop_all(engine)
        engine.dispose()


def rows_by_core(conn: Connection) -> dict[str, dict[str, Any]]:
    """The table read through SQLAlchemy Core (result processing on)."""
    result = conn.execute(sa.select(PROBE).order_by(PROBE.c.id))
    return {r.id: dict(r._mapping) for r in result}


def insert(dialect: sa.Dialect) -> Prepared:
    return Prepared(sa.insert(PROBE), dialect)


def test_insert_round_trip_matches_core(db: sa.Engine) -> None:
    rows = [probe_row(i) for i in range(len(MOMENTS))]
    nulls = {
        "id": "nulls",
        "n": None,
        "flag": None,
        "at": None,
        "note": None,
        "data": None,
        "ratio": None,
    }
    with db.begin() as conn:
        stmt = insert(conn.dialect)
        for row in [*rows, nulls]:
            stmt.execute(conn, row).close()
        # the same rows again, written by Core, under other ids
        conn.execute(sa.insert(PROBE), [{**r, "id": "core-" + r["id"]} for r in [*rows, nulls]])

    with db.connect() as conn:
        stored = rows_by_core(conn)
    for row in rows:
        assert stored[row["id"]] == row  # datetimes to the microsecond, flags as bool, bytes
        assert stored["core-" + row["id"]] == {**row, "id": "core-" + row["id"]}
    assert stored["nulls"] == {**dict.fromkeys(c.name for c in PROBE.columns), "id": "nulls"}


def test_a_name_the_row_leaves_out_is_null(db: sa.Engine) -> None:
    with db.begin() as conn:
        insert(conn.dialect).execute(conn, {"id": "partial", "note": "only this"}).close()
    with db.connect() as conn:
        [row] = rows_by_core(conn).values()
    assert row == {**dict.fromkeys(row), "id": "partial", "note": "only this"}


def test_executemany_writes_every_row(db: sa.Engine) -> None:
    rows = [probe_row(i) for i in range(300)]
    with db.begin() as conn:
        stmt = insert(conn.dialect)
        stmt.executemany(conn, rows)
        stmt.executemany(conn, [])  # nothing to do: no statement at all
        update = Prepared(
            sa.update(PROBE)
            .where(PROBE.c.id == sa.bindparam("pk"))
            .values(n=PROBE.c.n + sa.bindparam("by", type_=sa.BigInteger), note=sa.bindparam("t")),
            conn.dialect,
        )
        update.executemany(conn, [{"pk": r["id"], "by": 1, "t": "updated"} for r in rows[:100]])

    with db.connect() as conn:
        stored = rows_by_core(conn)
    assert len(stored) == 300
    for i, row in enumerate(rows):
        expected = {**row, "n": row["n"] + 1, "note": "updated"} if i < 100 else row
        assert stored[row["id"]] == expected


def test_parameters_made_before_the_transaction_run_inside_it(db: sa.Engine) -> None:
    """`SqlRowStore.plan` makes driver parameters before it takes the write lock."""
    stmt = insert(db.dialect)
    params = [stmt.params(probe_row(i)) for i in range(3)]
    with db.begin() as conn:
        stmt.run(conn, params)
        stmt.run(conn, [])
    with db.connect() as conn:
        assert list(rows_by_core(conn).values()) == [probe_row(i) for i in range(3)]


def test_a_select_reads_raw_columns_by_name(db: sa.Engine) -> None:
    with db.begin() as conn:
        insert(conn.dialect).executemany(conn, [probe_row(i) for i in range(5)])
    query = Prepared(
        sa.select(PROBE.c.id, PROBE.c.n, PROBE.c.note).where(PROBE.c.id == sa.bindparam("pk")),
        db.dialect,
    )
    assert query.columns == ("id", "n", "note")
    with db.connect() as conn:
        assert query.first(conn, {"pk": "row-0003"}) == {
            "id": "row-0003",
            "n": 2**40 + 3,
            "note": "note 3: ünïcode ✓",
        }
        assert query.first(conn, {"pk": "missing"}) is None


def test_binds_the_statement_carries_itself(db: sa.Engine) -> None:
    with db.begin() as conn:
        insert(conn.dialect).executemany(conn, [probe_row(i) for i in range(6)])
    limited = Prepared(
        sa.select(PROBE.c.id).order_by(PROBE.c.id.desc()).limit(2).offset(1), db.dialect
    )
    at_least = Prepared(
        sa.select(PROBE.c.id)
        .where(PROBE.c.n >= sa.bindparam("low", value=2**40 + 4, type_=sa.BigInteger))
        .order_by(PROBE.c.id),
        db.dialect,
    )
    with db.connect() as conn:
        cursor = limited.execute(conn, {})  # LIMIT and OFFSET binds are not the caller's
        assert [r[0] for r in cursor.fetchall()] == ["row-0004", "row-0003"]
        cursor.close()
        assert limited.first(conn, {}) == {"id": "row-0004"}
        cursor = at_least.execute(conn, {})
        assert [r[0] for r in cursor.fetchall()] == ["row-0004", "row-0005"]
        cursor.close()
        cursor = at_least.execute(conn, {"low": 2**40 + 1})  # a default can be overridden
        assert [r[0] for r in cursor.fetchall()] == [f"row-000{i}" for i in range(1, 6)]
        cursor.close()


def test_a_duplicate_primary_key_raises_sqlalchemy_integrity_error(db: sa.Engine) -> None:
    row = probe_row(1)
    with pytest.raises(IntegrityError) as caught, db.begin() as conn:
        stmt = insert(conn.dialect)
        stmt.execute(conn, row).close()
        stmt.execute(conn, row)
    error = caught.value
    assert isinstance(error.orig, db.dialect.loaded_dbapi.IntegrityError)
    assert error.statement == stmt.sql
    # the failed transaction rolled back as a whole; the connection pool is still fine
    with db.connect() as conn:
        assert rows_by_core(conn) == {}
    with db.begin() as conn:
        insert(conn.dialect).execute(conn, row).close()
    with db.connect() as conn:
        assert list(rows_by_core(conn)) == [row["id"]]


def test_a_duplicate_within_executemany_raises_integrity_error(db: sa.Engine) -> None:
    with db.begin() as conn:
        insert(conn.dialect).execute(conn, probe_row(7)).close()
    with pytest.raises(IntegrityError), db.begin() as conn:
        insert(conn.dialect).executemany(conn, [probe_row(i) for i in range(10)])
    with db.connect() as conn:
        assert list(rows_by_core(conn)) == [probe_row(7)["id"]]


def test_other_driver_errors_are_sqlalchemy_exceptions_too(db: sa.Engine) -> None:
    missing = sa.Table("fastsql_missing", sa.MetaData(), sa.Column("id", sa.String(10)))
    stmt = Prepared(sa.insert(missing), db.dialect)
    with pytest.raises(DBAPIError) as caught, db.begin() as conn:
        stmt.execute(conn, {"id": "x"})
    assert type(caught.value).__module__ == "sqlalchemy.exc"
    assert isinstance(caught.value.orig, db.dialect.loaded_dbapi.Error)


def test_the_cache_compiles_once_per_dialect_and_key(db: sa.Engine) -> None:
    cache = PreparedCache()
    built: list[str] = []

    def build() -> sa.Insert:
        built.append("insert")
        return sa.insert(PROBE)

    first = cache.get(db.dialect, "insert", build)
    assert cache.get(db.dialect, "insert", build) is first
    assert cache.get(db.dialect, "other", build) is not first
    assert built == ["insert", "insert"]
