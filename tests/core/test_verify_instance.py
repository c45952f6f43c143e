"""`verify(instance=...)`: one instance's chain, commands, state and rows, without the rest."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.core.errors import InvalidValue, NotFound
from tests.support import deferred_rows_written

INVOICE = Path(__file__).resolve().parents[2] / "tools" / "examples" / "invoice.bpmn"


@pytest.fixture
def two(engine: Engine) -> tuple[str, str]:
    engine.deploy(INVOICE)
    ids = []
    for n in (1, 2):
        instance = engine.start_process_instance(
            "invoice", {"amount": 2000 + n, "invoiceNumber": f"INV-{n}"}
        )
        (task,) = engine.tasks(process_instance_id=instance.id)
        engine.claim(task.id, "kermit")
        ids.append(instance.id)
    engine.complete_task(engine.tasks(process_instance_id=ids[0])[0].id, {"ok": True})
    deferred_rows_written(engine)  # the tests edit the tables past the engine
    return ids[0], ids[1]


def _sql(url: str, statement: str, **values: object) -> None:
    sql = sa.create_engine(url)
    try:
        with sql.begin() as conn:
            conn.execute(sa.text(statement), values)
    finally:
        sql.dispose()


def test_an_untouched_instance_verifies(engine: Engine, two: tuple[str, str]) -> None:
    for instance in two:
        report = engine.verify(instance=instance)
        assert report.ok, report.problems
        assert report.streams_checked == 1 and report.rows_compared > 0


def test_an_edited_row_is_reported_for_its_instance_only(
    engine: Engine, two: tuple[str, str], db_url: str
) -> None:
    done, waiting = two
    _sql(db_url, "UPDATE ACT_RU_TASK SET ASSIGNEE_ = 'mallory' WHERE PROC_INST_ID_ = :i", i=waiting)
    _sql(db_url, "DELETE FROM ACT_HI_ACTINST WHERE PROC_INST_ID_ = :i AND ACT_ID_ = 'book'", i=done)

    waiting_problems = engine.verify(instance=waiting).problems
    done_problems = engine.verify(instance=done).problems

    assert any("ACT_RU_TASK" in p and "mallory" in p for p in waiting_problems), waiting_problems
    assert not any("ACT_HI_ACTINST" in p for p in waiting_problems)
    assert any("ACT_HI_ACTINST" in p for p in done_problems), done_problems


def test_an_edited_commit_breaks_its_instance_chain(
    engine: Engine, two: tuple[str, str], db_url: str
) -> None:
    done, waiting = two
    _sql(db_url, "UPDATE event_log SET actor = 'mallory' WHERE stream_id = :i", i=waiting)

    assert any(p.startswith("hash:") for p in engine.verify(instance=waiting).problems)
    assert engine.verify(instance=done).ok


def test_an_unknown_instance_or_an_anchor_is_refused(engine: Engine, two: tuple[str, str]) -> None:
    with pytest.raises(NotFound):
        engine.verify(instance="no-such-instance")
    deployment = engine.repository_service.process_definitions()[0].deployment_id
    with pytest.raises(NotFound, match="deployment"):
        engine.verify(instance=deployment)
    with pytest.raises(InvalidValue, match="whole log"):
        engine.verify(instance=two[0], expect_anchor="1:" + "0" * 64)
