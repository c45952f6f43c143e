"""Column types, the shared MetaData and unquoted-identifier helpers for the ACT_* table modules.

Declarations only: nothing here creates a table; the revisions in `migrations/` do.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.sql.elements import quoted_name

# One MetaData for every ACT_* table; `projections.tables` re-exports it.
metadata = sa.MetaData()

# Camunda's `timestamp` (no time zone). MySQL's DATETIME drops milliseconds unless asked for them.
Timestamp: sa.types.TypeEngine[datetime] = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=3), "mysql", "mariadb"
)
# Camunda's `bytea`; MySQL's BLOB stops at 64 KB, Camunda uses LONGBLOB there.
Blob: sa.types.TypeEngine[bytes] = sa.LargeBinary().with_variant(
    mysql.LONGBLOB(), "mysql", "mariadb"
)
# Camunda's `boolean`: no CHECK constraint (Camunda has none; MySQL's BOOL is TINYINT(1)).
Bool: sa.types.TypeEngine[bool] = sa.Boolean(create_constraint=False)
# Camunda's `double precision` (DOUBLE on MySQL/MariaDB and SQLite).
Double: sa.types.TypeEngine[float] = sa.Double()


def varchar(length: int) -> sa.String:
    """Camunda's `varchar(n)`."""
    return sa.String(length)


V20 = varchar(20)
V30 = varchar(30)
V64 = varchar(64)
V100 = varchar(100)
V255 = varchar(255)
V300 = varchar(300)
V4000 = varchar(4000)

# Table options for MySQL/MariaDB, as in Camunda's scripts (`ENGINE=InnoDB ... COLLATE utf8_bin`):
# a binary collation keeps comparisons and unique keys case-sensitive (variables `a` and `A`
# may coexist in one scope), as they are on PostgreSQL and SQLite. SQLAlchemy reads `mysql_*`
# only for the "mysql" dialect name and `mariadb_*` only for "mariadb", hence both.
MYSQL_TABLE_OPTIONS: dict[str, Any] = {
    f"{dialect}_{option}": value
    for dialect in ("mysql", "mariadb")
    for option, value in (("engine", "InnoDB"), ("charset", "utf8mb4"), ("collate", "utf8mb4_bin"))
}


def unquoted(name: str) -> quoted_name:
    """`name` rendered without quotes in every dialect.

    Camunda creates its identifiers unquoted: PostgreSQL folds them to lower case, MySQL/MariaDB
    keep the upper-case table names (case-sensitive there on Linux). Users' reports are written
    unquoted too, so quoting an upper-case name (SQLAlchemy's default) would hide it from them.
    """
    return quoted_name(name, False)


def act_table(name: str, *items: sa.schema.SchemaItem) -> sa.Table:
    """A Camunda table on the shared metadata, with its name unquoted."""
    return sa.Table(unquoted(name), metadata, *items, quote=False, **MYSQL_TABLE_OPTIONS)


def column(
    name: str,
    type_: sa.types.TypeEngine[Any] | type[sa.types.TypeEngine[Any]],
    *,
    nullable: bool = True,
    primary_key: bool = False,
    server_default: sa.TextClause | sa.ColumnElement[Any] | None = None,
) -> sa.Column[Any]:
    """A Camunda column, with its name unquoted; nullable unless Camunda says NOT NULL."""
    return sa.Column(
        unquoted(name),
        type_,
        nullable=nullable and not primary_key,
        primary_key=primary_key,
        server_default=server_default,
        quote=False,
    )


def index(name: str, *columns: str) -> sa.Index:
    """A plain (non-unique) index with an unquoted name, columns given by Camunda name."""
    return sa.Index(unquoted(name), *columns, quote=False)


def unique(name: str, *columns: str) -> sa.UniqueConstraint:
    """A named unique constraint with an unquoted name, columns given by Camunda name."""
    return sa.UniqueConstraint(*columns, name=unquoted(name))
