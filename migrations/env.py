"""Alembic runtime environment: runs revisions on the connection `migrations.upgrade` hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        render_as_batch=True,
        transactional_ddl=None,
    )
    with context.begin_transaction():
        context.run_migrations()


config = context.config
connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    url = config.get_main_option("sqlalchemy.url") or "sqlite:///flowledger.db"
    with create_engine(url).begin() as conn:
        _run(conn)
