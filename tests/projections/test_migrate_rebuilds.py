"""A schema revision that changes a projection table declares what it invalidates, and the
engine that applies it rebuilds exactly that from the log: revision 0011 adds
ACT_HI_PROCINST.EVENT_COUNT_ and fills it for every past instance."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command

from flowledger import Engine, migrations
from tests.support import bpmn

BEFORE = "0010_log_imports"


def _event_counts(url: str) -> dict[str, int | None]:
    sql = sa.create_engine(url)
    try:
        with sql.connect() as conn:
            rows = conn.execute(sa.text("SELECT PROC_INST_ID_, EVENT_COUNT_ FROM ACT_HI_PROCINST"))
            return {r[0]: r[1] for r in rows}
    finally:
        sql.dispose()


def _back_to_before_the_revision(url: str) -> None:
    sql = sa.create_engine(url)
    try:
        with sql.begin() as conn:
            command.downgrade(migrations.alembic_config(conn), BEFORE)
    finally:
        sql.dispose()


def test_applying_a_revision_rebuilds_the_projection_it_invalidates(db_url: str) -> None:
    with Engine(db_url) as engine:
        engine.deploy(bpmn("rest_repo_straight.bpmn"))
        key = engine.repository_service.process_definitions()[0].key
        done = engine.start_process_instance(key)
        assert engine.migration_rebuild is None  # a new database has nothing to rebuild
        produced = len(engine.events(done.id))
    _back_to_before_the_revision(db_url)

    with Engine(db_url) as engine:
        report = engine.migration_rebuild
        assert report is not None and "ACT_HI_PROCINST" in report.tables
        assert "ACT_RU_TASK" not in report.tables  # history only, as the revision declares
        assert _event_counts(db_url)[done.id] == produced
        assert engine.verify().ok

    with Engine(db_url) as engine:
        assert engine.migration_rebuild is None  # done once


def test_a_rebuild_owed_by_a_migration_survives_a_start_that_did_not_finish(db_url: str) -> None:
    with Engine(db_url) as engine:
        engine.deploy(bpmn("rest_repo_straight.bpmn"))
        done = engine.start_process_instance("restRepoStraight")
        produced = len(engine.events(done.id))
    _back_to_before_the_revision(db_url)
    # The schema is upgraded, then the process dies before the rebuild.
    sql = sa.create_engine(db_url)
    try:
        assert migrations.upgrade(sql) == {"history"}
    finally:
        sql.dispose()
    assert _event_counts(db_url)[done.id] is None

    with Engine(db_url) as engine:
        assert engine.migration_rebuild is not None
        assert _event_counts(db_url)[done.id] == produced
        assert engine.verify().ok


def test_the_user_operation_log_revision_fills_the_table_for_the_past(db_url: str) -> None:
    """Revision 0012 creates ACT_HI_OP_LOG: what users did before it is in the table after it."""
    with Engine(db_url, history_level="full") as engine:
        engine.deploy(bpmn("rest_repo_straight.bpmn"))
        kermit = engine.acting_as("kermit", via="cli")
        started = kermit.start_process_instance("restRepoStraight")
    sql = sa.create_engine(db_url)
    try:
        with sql.begin() as conn:
            command.downgrade(migrations.alembic_config(conn), "0011_instance_event_count")
            assert not sa.inspect(conn).has_table("ACT_HI_OP_LOG")
    finally:
        sql.dispose()

    with Engine(db_url, history_level="full") as engine:
        report = engine.migration_rebuild
        assert report is not None and "ACT_HI_OP_LOG" in report.tables
        with engine.reading() as conn:
            rows = conn.execute(
                sa.text("SELECT USER_ID_, OPERATION_TYPE_, PROC_INST_ID_ FROM ACT_HI_OP_LOG")
            ).all()
        assert [tuple(r) for r in rows] == [("kermit", "Create", started.id)]
        assert engine.verify().ok


def test_below_level_full_the_user_operation_log_revision_rebuilds_nothing(db_url: str) -> None:
    """The table stays empty below level full: no rebuild of the whole history for it."""
    with Engine(db_url) as engine:  # level audit, Camunda's default
        engine.deploy(bpmn("rest_repo_straight.bpmn"))
        engine.acting_as("kermit").start_process_instance("restRepoStraight")
    sql = sa.create_engine(db_url)
    try:
        with sql.begin() as conn:
            command.downgrade(migrations.alembic_config(conn), "0011_instance_event_count")
        assert migrations.upgrade(sql) == set()
    finally:
        sql.dispose()
    with Engine(db_url) as engine:
        assert engine.migration_rebuild is None
        assert engine.verify().ok
