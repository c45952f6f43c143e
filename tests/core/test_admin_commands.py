"""Administrative commands, each an event in the log like every other command:
deleteDeployment (with and without cascade), deleteHistoricProcessInstance, removing task
variables, and setting an external task's retries and priority; plus its error details.

What a user notices: which rows appear, change or disappear in the ACT_* tables, which calls are
refused and how; and that the log still holds everything (`events`, `replay`), `verify()` stays
clean and `rebuild_projections()` reproduces the tables.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import Table

from flowledger import ControllableClock, Engine, NotFound, Rejected
from flowledger.engine.storage.streams import Repository
from flowledger.engine.workers.history_worker import HistoryProcess
from flowledger.projections.changes import ChangeSet, MemoryRowStore, Purge, SqlRowStore, blank_row
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_ACTINST,
    ACT_HI_DETAIL,
    ACT_HI_PROCINST,
    ACT_HI_TASKINST,
    ACT_HI_VARINST,
    ACT_RE_DEPLOYMENT,
    ACT_RE_PROCDEF,
    ACT_RU_EXECUTION,
    ACT_RU_EXT_TASK,
    ACT_RU_TASK,
    ACT_RU_VARIABLE,
)
from tests.projections.test_rebuild import assert_same_tables, capture
from tests.support import bpmn, event_types, fresh_database, selected_kind, task_named

BLOB = b"\x00\x01 bytes \xfe"
HISTORY = (ACT_HI_PROCINST, ACT_HI_ACTINST, ACT_HI_TASKINST, ACT_HI_VARINST, ACT_HI_DETAIL)
INSTANCE_TABLES = (ACT_RU_EXECUTION, ACT_RU_TASK, ACT_RU_VARIABLE, ACT_RU_EXT_TASK, *HISTORY)


def rows(engine: Engine, table: Table, **where: Any) -> list[dict[str, Any]]:
    with engine.reading() as conn:
        stmt = sa.select(table).where(*(table.c[k] == v for k, v in where.items()))
        return [dict(r._mapping) for r in conn.execute(stmt)]


def count(engine: Engine, table: Table, **where: Any) -> int:
    return len(rows(engine, table, **where))


def rows_of_instance(engine: Engine, instance_id: str) -> dict[str, int]:
    """How many rows each runtime and history table holds for the instance."""
    return {t.name: count(engine, t, PROC_INST_ID_=instance_id) for t in INSTANCE_TABLES}


def history_blobs(engine: Engine, instance_id: str) -> int:
    """Byte array rows of the instance's history (variable values and details)."""
    return count(engine, ACT_GE_BYTEARRAY, ROOT_PROC_INST_ID_=instance_id, TYPE_=3)


def assert_log_and_tables_agree(engine: Engine) -> None:
    """verify() is clean, and a rebuild from the log writes exactly the live tables again."""
    report = engine.verify()
    assert report.ok, report.problems
    before = capture(engine)
    engine.rebuild_projections()
    assert_same_tables(before, capture(engine))
    assert capture(engine).keys() == before.keys()
    assert engine.verify().ok


def finished_order(engine: Engine, order: str) -> str:
    """A userTaskAssignment instance run to its end: tasks, variables (one of them bytes)."""
    pid = engine.start_process_instance(
        "userTaskAssignment", order_variables(order), business_key=order
    ).id
    review = task_named(engine, pid, f"Review order {order}")
    engine.task_service.set_variables(review, {"note": "ok"}, local=True)
    engine.complete_task(review, {"approved": True, "blob": BLOB + b"2"})
    engine.complete_task(task_named(engine, pid, "Approve"))
    return pid


def order_variables(order: str) -> dict[str, Any]:
    return {
        "initiator": "kermit",
        "extraUser": "gonzo",
        "priority": 60,
        "orderId": order,
        "due": None,
        "blob": BLOB,
    }


# -- deleteDeployment ----------------------------------------------------------------------------


def test_deleting_a_deployment_removes_its_repository_rows_and_keeps_its_log(
    engine: Engine,
) -> None:
    first = engine.deploy(bpmn("pass_through_activities.bpmn"), name="orders")
    second = engine.deploy(bpmn("pass_through_activities.bpmn"), name="orders")
    [v2] = second.process_definitions

    engine.repository_service.delete_deployment(second.id, actor="admin")

    assert engine.repository_service.deployment(second.id) is None
    assert count(engine, ACT_RE_DEPLOYMENT, ID_=second.id) == 0
    assert count(engine, ACT_RE_PROCDEF, DEPLOYMENT_ID_=second.id) == 0
    assert count(engine, ACT_GE_BYTEARRAY, DEPLOYMENT_ID_=second.id) == 0
    assert count(engine, ACT_GE_BYTEARRAY, DEPLOYMENT_ID_=first.id) == 1
    assert [d.version for d in engine.repository_service.process_definitions("passThrough")] == [1]
    deleted = engine.events(second.id)
    assert [e.type for e in deleted] == ["DeploymentCreated", "DeploymentDeleted"]
    assert deleted[-1].actor == "admin"
    assert deleted[-1].payload["process_definition_ids"] == [v2.id]
    assert deleted[-1].payload["cascade"] is False

    # Starting by key falls back to the latest remaining version; the deleted one is gone, also
    # from the engine's model cache (deploy put it there).
    assert engine.start_process_instance("passThrough").definition_id == (
        first.process_definitions[0].id
    )
    with pytest.raises(NotFound, match="Process definition"):
        engine.start_process_instance(definition_id=v2.id)
    # Camunda numbers the next version after the latest remaining one.
    third = engine.deploy(bpmn("pass_through_activities.bpmn"), name="orders")
    assert third.process_definitions[0].version == 2
    assert third.process_definitions[0].id != v2.id
    assert_log_and_tables_agree(engine)


def test_deleting_the_only_deployment_of_a_key_leaves_nothing_to_start(engine: Engine) -> None:
    only = engine.deploy(bpmn("pass_through_activities.bpmn"))
    engine.repository_service.delete_deployment(only.id)
    with pytest.raises(NotFound, match="passThrough"):
        engine.start_process_instance("passThrough")
    assert engine.deploy(bpmn("pass_through_activities.bpmn")).process_definitions[0].version == 1
    assert engine.verify().ok


def test_duplicate_filtering_ignores_a_deleted_deployment(engine: Engine) -> None:
    first = engine.deploy(bpmn("pass_through_activities.bpmn"), name="d", duplicate_filtering=True)
    engine.repository_service.delete_deployment(first.id)
    again = engine.deploy(bpmn("pass_through_activities.bpmn"), name="d", duplicate_filtering=True)
    assert again.id != first.id


def test_deleting_an_unknown_deployment_is_not_found(engine: Engine) -> None:
    with pytest.raises(NotFound, match="Deployment 'nope'"):
        engine.repository_service.delete_deployment("nope")
    deployment = engine.deploy(bpmn("pass_through_activities.bpmn"))
    engine.repository_service.delete_deployment(deployment.id)
    with pytest.raises(NotFound, match="Deployment"):
        engine.repository_service.delete_deployment(deployment.id)  # twice
    engine.deploy(bpmn("pass_through_activities.bpmn"))
    pid = engine.start_process_instance("passThrough").id
    with pytest.raises(NotFound, match="Deployment"):
        engine.repository_service.delete_deployment(pid)  # an instance's stream is no deployment
    assert engine.verify().ok


def test_without_cascade_a_running_instance_refuses_the_deletion(engine: Engine) -> None:
    deployment = engine.deploy(bpmn("pass_through_activities.bpmn"))
    [definition] = deployment.process_definitions
    pid = engine.start_process_instance("passThrough").id
    engine.start_process_instance("passThrough")

    with pytest.raises(Rejected) as refused:
        engine.repository_service.delete_deployment(deployment.id, command_id="refused-1")

    assert str(refused.value) == (
        "Deletion of process definition without cascading failed. Process definition with id: "
        f"{definition.id} can't be deleted, since there exists 2 dependening process instances."
    )
    assert engine.repository_service.deployment(deployment.id) is not None
    assert event_types(engine, deployment.id) == ["DeploymentCreated"]
    assert engine.tasks(process_instance_id=pid) != []
    # the refusal is an audit fact too: a repeated command id gets the same answer
    with pytest.raises(Rejected, match="rejected before"):
        engine.repository_service.delete_deployment(deployment.id, command_id="refused-1")
    # a finished instance does not block it (and keeps its history: no cascade)
    engine.complete_task(task_named(engine, pid, "Wait here"))
    engine.runtime_service.delete_process_instance(engine.tasks()[0].process_instance_id)
    engine.repository_service.delete_deployment(deployment.id)
    assert engine.history_service.historic_process_instance(pid).state == "COMPLETED"
    assert count(engine, ACT_HI_ACTINST, PROC_INST_ID_=pid) > 0
    assert_log_and_tables_agree(engine)


def test_cascade_deletes_running_instances_and_the_history_of_all_instances(
    engine: Engine, clock: ControllableClock
) -> None:
    two_processes = {
        "user_task_assignment.bpmn": bpmn("user_task_assignment.bpmn").read_bytes(),
        "pass_through_activities.bpmn": bpmn("pass_through_activities.bpmn").read_bytes(),
    }
    deployment = engine.deploy(two_processes, name="both")
    other = engine.deploy(bpmn("external_task.bpmn"))
    done = finished_order(engine, "A-1")
    clock.advance(seconds=1)
    running = engine.start_process_instance("userTaskAssignment", order_variables("B-2")).id
    waiting = engine.start_process_instance("passThrough").id
    untouched = engine.start_process_instance("externalInvoice", {"priority": 1}).id
    untouched_rows = rows_of_instance(engine, untouched)
    assert history_blobs(engine, done) > 0 and history_blobs(engine, running) > 0
    clock.advance(seconds=1)

    engine.repository_service.delete_deployment(deployment.id, cascade=True, actor="admin")

    for pid in (done, running, waiting):
        assert set(rows_of_instance(engine, pid).values()) == {0}, pid
        assert history_blobs(engine, pid) == 0
    assert count(engine, ACT_GE_BYTEARRAY, TYPE_=2, ROOT_PROC_INST_ID_=running) == 0
    assert rows_of_instance(engine, untouched) == untouched_rows
    assert engine.repository_service.deployment(other.id) is not None
    assert engine.repository_service.deployment(deployment.id) is None
    assert engine.history_service.historic_process_instances() == [
        engine.history_service.historic_process_instance(untouched)
    ]

    # The log keeps all of it: the running ones were deleted like delete_process_instance.
    for pid in (running, waiting):
        types = event_types(engine, pid)
        assert types[-2:] == ["ProcessInstanceTerminated", "HistoricProcessInstanceDeleted"]
        assert engine.events(pid)[-2].payload["reason"] == "deleted deployment"
        assert engine.replay(pid).status == "EXTERNALLY_TERMINATED"
    assert event_types(engine, done)[-1] == "ProcessInstanceCompleted"
    assert event_types(engine, deployment.id)[-1] == "DeploymentDeleted"
    assert engine.events(deployment.id)[-1].payload["cascade"] is True
    for pid in (done, running):  # their history went with the deployment
        with pytest.raises(NotFound, match="Historic process instance"):
            engine.history_service.delete_historic_process_instance(pid)
    with pytest.raises(NotFound):
        engine.start_process_instance("userTaskAssignment", order_variables("C-3"))
    assert_log_and_tables_agree(engine)


def test_a_start_decided_before_the_deployment_was_deleted_is_not_appended(
    db_url: str, engine: Engine, clock: ControllableClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Starts decide on a snapshot; a deletion committed meanwhile makes the start decide again
    (and find nothing), instead of leaving an instance of a deleted definition behind."""
    if not engine._db.concurrent:
        pytest.skip("SQLite decides inside the write transaction: no deletion commits meanwhile")
    deployment = engine.deploy(bpmn("pass_through_activities.bpmn"))
    other_node = Engine(db_url, clock=clock)
    real_model = Repository.model
    deleted: list[str] = []

    def model_then_delete(self: Repository, *args: Any, **kwargs: Any) -> Any:
        model = real_model(self, *args, **kwargs)
        if self is engine._repository and not deleted:
            deleted.append(deployment.id)
            other_node.repository_service.delete_deployment(deployment.id)
        return model

    monkeypatch.setattr(Repository, "model", model_then_delete)
    try:
        with pytest.raises(NotFound, match="passThrough"):
            engine.start_process_instance("passThrough")
    finally:
        other_node.close()
    assert deleted == [deployment.id]
    assert count(engine, ACT_RU_EXECUTION) == 0
    assert engine.verify().ok


# -- deleteHistoricProcessInstance ---------------------------------------------------------------


def test_deleting_a_historic_instance_removes_its_history_rows_only(full_engine: Engine) -> None:
    engine = full_engine  # every history table holds rows of the instance
    engine.deploy(bpmn("user_task_assignment.bpmn"))
    gone = finished_order(engine, "A-1")
    kept = finished_order(engine, "B-2")
    kept_rows = rows_of_instance(engine, kept)
    assert all(kept_rows[t.name] > 0 for t in HISTORY)
    assert history_blobs(engine, gone) > 0
    logged = engine.events(gone)

    engine.history_service.delete_historic_process_instance(gone, actor="auditor")

    assert set(rows_of_instance(engine, gone).values()) == {0}
    assert history_blobs(engine, gone) == 0
    assert rows_of_instance(engine, kept) == kept_rows
    with pytest.raises(NotFound, match="Historic process instance"):
        engine.history_service.historic_process_instance(gone)
    assert engine.history_service.historic_variable_instances(gone) == []
    assert engine.history_service.historic_task_instances(gone) == []
    # The audit trail is whole: every event is still there, the deletion appended to them.
    after = engine.events(gone)
    assert after[:-1] == logged
    assert after[-1].type == "HistoricProcessInstanceDeleted"
    assert after[-1].actor == "auditor"
    assert engine.replay(gone).status == "COMPLETED"
    assert engine.replay(gone, until_position=logged[-1].position).history_deleted is False
    with pytest.raises(NotFound, match="Historic process instance"):
        engine.history_service.delete_historic_process_instance(gone)  # twice
    assert_log_and_tables_agree(engine)
    assert set(rows_of_instance(engine, gone).values()) == {0}


def test_a_running_or_unknown_instance_has_no_history_to_delete(engine: Engine) -> None:
    deployment = engine.deploy(bpmn("pass_through_activities.bpmn"))
    pid = engine.start_process_instance("passThrough").id

    with pytest.raises(Rejected) as refused:
        engine.history_service.delete_historic_process_instance(pid)
    assert str(refused.value) == (
        f"Process instance is still running, cannot delete historic process instance: {pid}"
    )
    with pytest.raises(NotFound, match="Historic process instance 'nope'"):
        engine.history_service.delete_historic_process_instance("nope")
    with pytest.raises(NotFound, match="Historic process instance"):
        engine.history_service.delete_historic_process_instance(
            deployment.id
        )  # a stream, but no instance
    assert engine.history_service.historic_process_instance(pid).state == "ACTIVE"

    engine.runtime_service.delete_process_instance(
        pid, "not needed"
    )  # a terminated instance has history too
    engine.history_service.delete_historic_process_instance(pid)
    assert set(rows_of_instance(engine, pid).values()) == {0}
    assert_log_and_tables_agree(engine)


def test_history_outlives_a_deployment_deleted_without_cascade_until_deleted(
    engine: Engine,
) -> None:
    """The instance's model then comes from the log: its definition left the repository."""
    deployment = engine.deploy(bpmn("user_task_assignment.bpmn"))
    pid = finished_order(engine, "A-1")
    engine.repository_service.delete_deployment(deployment.id)
    other = engine.deploy(bpmn("user_task_assignment.bpmn"))  # a new version 1 of the key
    assert other.process_definitions[0].version == 1
    assert count(engine, ACT_HI_PROCINST, ID_=pid) == 1

    engine.history_service.delete_historic_process_instance(pid)

    assert set(rows_of_instance(engine, pid).values()) == {0}
    assert_log_and_tables_agree(engine)


@pytest.fixture
def async_engine(
    tmp_path: Path, clock: ControllableClock, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Engine]:
    """History projected from the log by the follower, only when the test flushes it."""
    monkeypatch.setattr(HistoryProcess, "start", lambda self: None)
    with (
        fresh_database(selected_kind(), tmp_path) as url,
        Engine(url, clock=clock, history_mode="async", history_level="full") as flow,
    ):
        yield flow


def test_history_deletion_in_async_history_mode(async_engine: Engine) -> None:
    flow = async_engine
    flow.deploy(bpmn("user_task_assignment.bpmn"))
    flushed = finished_order(flow, "A-1")
    flow.flush_history()
    assert count(flow, ACT_HI_PROCINST, ID_=flushed) == 1
    # Started, finished and deleted before the follower saw any of it: one batch of history
    # holds the rows and, after them, their deletion.
    unseen = finished_order(flow, "B-2")
    kept = finished_order(flow, "C-3")
    assert count(flow, ACT_HI_PROCINST, ID_=unseen) == 0

    flow.history_service.delete_historic_process_instance(flushed)
    flow.history_service.delete_historic_process_instance(unseen)
    flow.flush_history()

    for pid in (flushed, unseen):
        assert set(rows_of_instance(flow, pid).values()) == {0}
        assert history_blobs(flow, pid) == 0
    assert all(rows_of_instance(flow, kept)[t.name] > 0 for t in HISTORY)
    assert_log_and_tables_agree(flow)


def test_cascade_in_async_history_mode(async_engine: Engine) -> None:
    flow = async_engine
    deployment = flow.deploy(bpmn("user_task_assignment.bpmn"))
    done = finished_order(flow, "A-1")
    running = flow.start_process_instance("userTaskAssignment", order_variables("B-2")).id
    flow.repository_service.delete_deployment(deployment.id, cascade=True)
    flow.flush_history()
    for pid in (done, running):
        assert set(rows_of_instance(flow, pid).values()) == {0}
    assert_log_and_tables_agree(flow)


# -- removing task variables ----------------------------------------------------------------------


def test_removing_task_variables_locally_and_where_the_task_sees_them(engine: Engine) -> None:
    engine.deploy(bpmn("embedded_subprocess.bpmn"))
    pid = engine.start_process_instance("embeddedSubprocess", {"shared": 1, "outer": "p"}).id
    task = task_named(engine, pid, "Check A")
    scope = engine.tasks(task_id=task)[0].execution_id
    engine.runtime_service.set_variables(scope, {"inner": "scoped"}, local=True)
    engine.task_service.set_variables(task, {"shared": "task", "mine": BLOB}, local=True)

    # local: the task's own variables only; names it does not have are ignored
    engine.task_service.remove_variables(task, ["mine", "outer", "absent"], local=True)
    assert engine.task_service.get_variables(task, local=True) == {"shared": "task"}
    assert engine.runtime_service.get_variable(pid, "outer") == "p"
    assert count(engine, ACT_GE_BYTEARRAY, TYPE_=2, NAME_="mine") == 0

    # not local: the task's own variable first, then the nearest execution scope that has it
    engine.task_service.remove_variables(task, ["shared", "inner"], actor="clerk")
    assert engine.task_service.get_variables(task, local=True) == {}
    assert engine.runtime_service.get_variables(pid) == {"shared": 1, "outer": "p"}
    engine.task_service.remove_variables(task, ["shared", "outer"])
    assert engine.runtime_service.get_variables(pid) == {}
    assert count(engine, ACT_RU_VARIABLE, PROC_INST_ID_=pid) == 0
    history = rows(engine, ACT_HI_VARINST, PROC_INST_ID_=pid)
    assert sorted(r["NAME_"] for r in history) == ["inner", "mine", "outer", "shared", "shared"]
    assert {r["STATE_"] for r in history} == {"DELETED"}
    assert event_types(engine, pid).count("VariableDeleted") == 5
    assert engine.events(pid)[-1].command_type == "RemoveVariables"

    with pytest.raises(NotFound, match="Task 'nope'"):
        engine.task_service.remove_variables("nope", ["x"])
    assert_log_and_tables_agree(engine)


# -- external tasks: retries, priority, error details ---------------------------------------------


@pytest.fixture
def invoice(engine: Engine) -> str:
    engine.deploy(bpmn("external_task.bpmn"))
    engine.start_process_instance("externalInvoice", {"priority": 7})
    [task] = engine.external_task_service.external_tasks()
    return task.id


def test_setting_retries_decides_whether_the_task_is_fetched(
    engine: Engine, clock: ControllableClock, invoice: str
) -> None:
    with pytest.raises(Rejected, match="retries cannot be negative"):
        engine.external_task_service.set_retries(invoice, -1)
    with pytest.raises(NotFound, match="External task 'nope'"):
        engine.external_task_service.set_retries("nope", 3)

    engine.external_task_service.set_retries(invoice, 0, actor="operator")

    assert rows(engine, ACT_RU_EXT_TASK, ID_=invoice)[0]["RETRIES_"] == 0
    assert engine.external_task_service.external_tasks()[0].retries == 0
    assert engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000}) == []
    engine.external_task_service.set_retries(invoice, 2)
    [fetched] = engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000})
    assert fetched.retries == 2
    # a locked task keeps its lock
    engine.external_task_service.set_retries(invoice, 5)
    assert engine.external_task_service.external_tasks()[0].worker_id == "w1"
    assert event_types(engine, fetched.process_instance_id).count("ExternalTaskRetriesSet") == 3
    assert_log_and_tables_agree(engine)


def test_setting_the_priority_changes_the_fetch_order(engine: Engine, invoice: str) -> None:
    engine.start_process_instance("externalInvoice", {"priority": 20})
    with pytest.raises(NotFound, match="External task"):
        engine.external_task_service.set_priority("nope", 1)
    with pytest.raises(Rejected, match="64-bit"):
        engine.external_task_service.set_priority(invoice, 2**63)

    engine.external_task_service.set_priority(invoice, 99)

    assert rows(engine, ACT_RU_EXT_TASK, ID_=invoice)[0]["PRIORITY_"] == 99
    [first] = engine.external_task_service.fetch_and_lock(
        "w1", {"invoice": 1000}, use_priority=True
    )
    assert (first.id, first.priority) == (invoice, 99)
    assert_log_and_tables_agree(engine)


def test_error_details_are_kept_in_a_byte_array(engine: Engine, invoice: str) -> None:
    with pytest.raises(NotFound, match="External task 'nope'"):
        engine.external_task_service.error_details("nope")
    assert engine.external_task_service.error_details(invoice) is None
    engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000})
    engine.external_task_service.handle_failure(
        invoice, "w1", "ERP down", error_details="Traceback ...\nTimeoutError: ERP ✗", retries=2
    )

    [row] = rows(engine, ACT_RU_EXT_TASK, ID_=invoice)
    [blob] = rows(engine, ACT_GE_BYTEARRAY, ID_=row["ERROR_DETAILS_ID_"])
    assert (blob["NAME_"], blob["TYPE_"]) == ("externalTask.exceptionByteArray", 2)
    assert bytes(blob["BYTES_"]).decode() == "Traceback ...\nTimeoutError: ERP ✗"
    assert (
        engine.external_task_service.error_details(invoice) == "Traceback ...\nTimeoutError: ERP ✗"
    )

    # A later failure without details keeps them (Camunda's behaviour); one with details
    # replaces them in the same row.
    engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000})
    engine.external_task_service.handle_failure(invoice, "w1", "still down", retries=1)
    assert (
        engine.external_task_service.error_details(invoice) == "Traceback ...\nTimeoutError: ERP ✗"
    )
    engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000})
    engine.external_task_service.handle_failure(
        invoice, "w1", "again", error_details="new", retries=1
    )
    assert engine.external_task_service.error_details(invoice) == "new"
    [blob] = rows(engine, ACT_GE_BYTEARRAY, ID_=row["ERROR_DETAILS_ID_"])
    assert blob["REV_"] == 2
    assert_log_and_tables_agree(engine)

    # The byte array goes with the task.
    engine.external_task_service.fetch_and_lock("w1", {"invoice": 1000})
    engine.external_task_service.complete(invoice, "w1")
    assert count(engine, ACT_GE_BYTEARRAY, ID_=row["ERROR_DETAILS_ID_"]) == 0
    with pytest.raises(NotFound):
        engine.external_task_service.error_details(invoice)
    assert_log_and_tables_agree(engine)


# -- purges in batches of commands ----------------------------------------------------------------


def _variable(pk: str, instance: str, blob: str | None = None) -> dict[str, Any]:
    row = blank_row(ACT_HI_VARINST)
    row.update(ID_=pk, PROC_INST_ID_=instance, NAME_=pk, BYTEARRAY_ID_=blob, REV_=1)
    return row


def _blob(pk: str) -> dict[str, Any]:
    row = blank_row(ACT_GE_BYTEARRAY)
    row.update(ID_=pk, REV_=1, NAME_=pk, BYTES_=b"x", TYPE_=3)
    return row


def test_a_purge_applies_after_the_changes_before_it_and_before_those_after_it(
    engine: Engine,
) -> None:
    """Merged into one batch (rebuild, history follower), commands around a purge leave what
    applying them one by one leaves, in memory and in the database alike."""
    stored = ChangeSet()
    stored.insert(ACT_HI_VARINST, "v0", _variable("v0", "p1", "b0"))
    stored.insert(ACT_GE_BYTEARRAY, "b0", _blob("b0"))
    commands = [ChangeSet() for _ in range(4)]
    commands[0].insert(ACT_HI_VARINST, "v1", _variable("v1", "p1", "b1"))
    commands[0].insert(ACT_GE_BYTEARRAY, "b1", _blob("b1"))
    commands[0].insert(ACT_HI_VARINST, "v2", _variable("v2", "p2"))
    commands[1].update(ACT_HI_VARINST, "v0", {"STATE_": "DELETED"})
    for purge in (
        Purge(ACT_GE_BYTEARRAY, "PROC_INST_ID_", "p1", via=ACT_HI_VARINST, ref="BYTEARRAY_ID_"),
        Purge(ACT_HI_VARINST, "PROC_INST_ID_", "p1"),
    ):
        commands[2].purge(purge)
    commands[2].update(ACT_HI_VARINST, "v1", {"STATE_": "late"})  # hits nothing any more
    commands[3].insert(ACT_HI_VARINST, "v3", _variable("v3", "p1"))  # after the purge: stays
    commands[3].update(ACT_HI_VARINST, "v2", {"STATE_": "DELETED"})

    one_by_one = MemoryRowStore([ACT_HI_VARINST, ACT_GE_BYTEARRAY])
    for changes in (stored, *commands):
        one_by_one.apply(changes)
    batch = ChangeSet()
    for changes in commands:
        batch.merge(changes)
    merged = MemoryRowStore([ACT_HI_VARINST, ACT_GE_BYTEARRAY])
    merged.apply(stored)
    merged.apply(batch)

    assert merged.rows == one_by_one.rows
    assert set(merged.rows["ACT_HI_VARINST"]) == {"v2", "v3"}
    assert merged.rows["ACT_HI_VARINST"]["v2"]["STATE_"] == "DELETED"
    assert merged.rows["ACT_GE_BYTEARRAY"] == {}

    sql = SqlRowStore()
    with engine._db.write() as conn:
        sql.apply(conn, stored)
        sql.apply(conn, batch)
    live = {r["ID_"]: r["STATE_"] for r in rows(engine, ACT_HI_VARINST)}
    assert live == {pk: r["STATE_"] for pk, r in merged.rows["ACT_HI_VARINST"].items()}
    assert rows(engine, ACT_GE_BYTEARRAY) == []
