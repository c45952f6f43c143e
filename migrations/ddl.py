"""The DDL helpers every migration uses, portable across SQLite, PostgreSQL and MariaDB/MySQL.

Revisions import these instead of spelling them out. What a helper emits is part of every
revision that already used it: never change its output; a new need gets a new helper, or a
parameter whose default keeps the old output. Tables are never imported from `projections`.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.sql.elements import TextClause, quoted_name
from sqlalchemy.sql.schema import SchemaItem

# Column types that differ by dialect. MySQL/MariaDB's DATETIME keeps no fraction of a second
# unless told (fsp=3: milliseconds, as Camunda's scripts); its TEXT and BLOB stop at 64 KiB.
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=3), "mysql", "mariadb")
LONG_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")
BLOB = sa.LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")
# No CHECK constraint on booleans: Camunda's scripts have none.
BOOLEAN = sa.Boolean(create_constraint=False)
DOUBLE: sa.Double[float] = sa.Double()

# InnoDB with a binary (case-sensitive) collation, as Camunda's MySQL/MariaDB scripts; both
# prefixes because SQLAlchemy reads `mysql_*` for the "mysql" dialect, `mariadb_*` for "mariadb".
TABLE_OPTIONS: dict[str, Any] = {
    f"{dialect}_{option}": value
    for dialect in ("mysql", "mariadb")
    for option, value in (("engine", "InnoDB"), ("charset", "utf8mb4"), ("collate", "utf8mb4_bin"))
}

# (index, table, columns): a secondary index as a revision creates or drops it.
IndexSpec = tuple[str, str, tuple[str, ...]]


def unquoted(name: str) -> quoted_name:
    """An identifier rendered unquoted on every dialect, as in Camunda's scripts: PostgreSQL folds
    it to lower case (`act_hi_actinst`), MySQL/MariaDB keep it upper case (`ACT_HI_ACTINST`)."""
    return quoted_name(name, False)


def column(
    name: str,
    type_: Any,
    *,
    nullable: bool = True,
    primary_key: bool = False,
    server_default: Any = None,
) -> sa.Column[Any]:
    """A column with an unquoted name; a primary key is never nullable."""
    return sa.Column(
        unquoted(name),
        type_,
        nullable=nullable and not primary_key,
        primary_key=primary_key,
        server_default=server_default,
        quote=False,
    )


def create_table(name: str, *items: SchemaItem) -> sa.Table:
    """Create a table with an unquoted name and Camunda's MySQL/MariaDB table options."""
    return op.create_table(unquoted(name), *items, quote=False, **TABLE_OPTIONS)


def drop_table(name: str) -> None:
    op.drop_table(unquoted(name))


def index_column(spec: str) -> quoted_name | TextClause:
    """A column of an index, `NAME_` or `NAME_ DESC` (unquoted either way)."""
    return sa.text(spec) if spec.endswith(" DESC") else unquoted(spec)


def create_index(name: str, table: str, *columns: str) -> None:
    """Create an index over `columns`, each `NAME_` or `NAME_ DESC`, every name unquoted."""
    op.create_index(unquoted(name), unquoted(table), [index_column(c) for c in columns])


def drop_index(name: str, table: str) -> None:
    op.drop_index(unquoted(name), table_name=unquoted(table))


def create_indexes(indexes: tuple[IndexSpec, ...]) -> None:
    for name, table, columns in indexes:
        create_index(name, table, *columns)


def drop_indexes(indexes: tuple[IndexSpec, ...]) -> None:
    for name, table, _columns in indexes:
        drop_index(name, table)
