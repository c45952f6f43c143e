"""Batches that carry variables (issue 37), as Camunda 7.24 runs them: `setVariablesAsync`
(type set-variables) and `createMessageCorrelationAsync(...).correlateAllAsync()` (type
correlate-message). The variables are stored once with the batch (ACT_RU_VARIABLE rows with its
BATCH_ID_, byte arrays for Json and Bytes), read by each job, and gone with the batch."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from flowledger import ControllableClock, Engine, TypedValue
from flowledger.core import commands as cmd
from flowledger.core.errors import InvalidValue, Rejected
from flowledger.engine.workers.job_executor import JobExecutorSettings
from flowledger.projections.queries.declaration import find
from flowledger.projections.queries.runtime import VARIABLE_INSTANCES, VariableInstanceQuery
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_OP_LOG,
    ACT_RU_EXECUTION,
    ACT_RU_VARIABLE,
)
from tests.core.test_admin_commands import assert_log_and_tables_agree
from tests.engine.test_batches import rows, running
from tests.support import bpmn

MESSAGES = bpmn("rest_messages.bpmn")
TASKS = bpmn("user_task_assignment.bpmn")
VARIABLES = {"initiator": "kermit", "extraUser": "gonzo", "priority": 60, "orderId": "o"}
VARIABLES["due"] = None


@pytest.fixture
def batches(db_url: str, clock: ControllableClock) -> Iterator[Engine]:
    """Level full; two targets per batch job."""
    settings = JobExecutorSettings(invocations_per_batch_job=2)
    with Engine(
        db_url, clock=clock, history_level="full", job_executor_settings=settings
    ) as engine:
        engine.deploy(MESSAGES)
        engine.deploy(TASKS)
        yield engine


def value_of(engine: Engine, instance_id: str, name: str) -> object:
    return engine.runtime_service.get_variables(instance_id).get(name)


def batch_variable_rows(engine: Engine, batch_id: str) -> list[dict[str, object]]:
    return rows(engine, ACT_RU_VARIABLE, ACT_RU_VARIABLE.c.BATCH_ID_ == batch_id)


def op_log(engine: Engine, operation: str) -> set[tuple[object, object, object]]:
    entries = rows(engine, ACT_HI_OP_LOG, ACT_HI_OP_LOG.c.OPERATION_TYPE_ == operation)
    return {(e["ENTITY_TYPE_"], e["PROPERTY_"], e["NEW_VALUE_"]) for e in entries}


def test_set_variables_async_sets_them_on_every_instance_and_drops_them_with_the_batch(
    batches: Engine, clock: ControllableClock
) -> None:
    engine = batches
    ids = [engine.start_process_instance("userTaskAssignment", VARIABLES).id for _ in range(3)]
    ended = engine.start_process_instance("userTaskAssignment", VARIABLES).id
    engine.runtime_service.delete_process_instance(ended)
    payload = {
        "approved": True,
        "order": {"lines": [1, 2]},
        "count": TypedValue("Long", 7),
        "scan": b"\x00\x01",
        "when": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    }
    batch = engine.acting_as("kermit").runtime_service.set_variables_async(ids, variables=payload)
    assert (batch.type, batch.total_jobs) == ("set-variables", 2)

    # Camunda's batch variables: one row each, scoped by the batch, Json and Bytes in byte arrays
    held = {r["NAME_"]: r for r in batch_variable_rows(engine, batch.id)}
    assert sorted(held) == sorted(payload)
    assert {r["VAR_SCOPE_"] for r in held.values()} == {batch.id}
    assert {r["PROC_INST_ID_"] for r in held.values()} == {None}
    assert held["count"]["TYPE_"] == "long" and held["count"]["LONG_"] == 7
    blobs = {held[n]["BYTEARRAY_ID_"] for n in ("order", "scan")}
    assert len(rows(engine, ACT_GE_BYTEARRAY, ACT_GE_BYTEARRAY.c.ID_.in_(blobs))) == 2
    # ... and the variable-instance query shows them, as Camunda's does
    with engine.reading() as conn:
        listed = find(conn, VARIABLE_INSTANCES, VariableInstanceQuery(batch_id_in=[batch.id]))
    assert sorted((v.name, v.batch_id) for v in listed) == sorted(
        (name, batch.id) for name in payload
    )
    # nothing is set before the jobs run
    assert value_of(engine, ids[0], "approved") is None

    engine.run_due_jobs()
    for instance_id in ids:
        assert value_of(engine, instance_id, "approved") is True
        assert value_of(engine, instance_id, "order") == {"lines": [1, 2]}
        assert value_of(engine, instance_id, "count") == 7
        assert value_of(engine, instance_id, "scan") == b"\x00\x01"
    # its monitor job found no job left and completed it: its variables and byte arrays went
    assert engine.management_service.batches() == []
    [historic] = engine.history_service.historic_batches()
    assert historic.end_time is not None
    assert batch_variable_rows(engine, batch.id) == []
    assert rows(engine, ACT_GE_BYTEARRAY, ACT_GE_BYTEARRAY.c.ID_.in_(blobs)) == []
    assert op_log(engine, "SetVariables") == {
        ("ProcessInstance", "nrOfInstances", "3"),
        ("ProcessInstance", "nrOfVariables", "5"),
        ("ProcessInstance", "async", "true"),
    }
    assert_log_and_tables_agree(engine)


def test_a_set_variables_job_fails_on_an_ended_instance_and_deleting_the_batch_drops_them(
    batches: Engine,
) -> None:
    engine = batches
    alive = engine.start_process_instance("userTaskAssignment", VARIABLES).id
    gone = engine.start_process_instance("userTaskAssignment", VARIABLES).id
    batch = engine.runtime_service.set_variables_async([gone, alive], variables={"x": 1})
    engine.runtime_service.delete_process_instance(gone)
    engine.run_due_jobs()
    # the one job of both instances fails until its retries are spent: neither instance gets
    # the variable (one command, all or none)
    stats = engine.management_service.batch_statistics()[0]
    assert (stats.failed_jobs, stats.remaining_jobs) == (1, 1)
    assert value_of(engine, alive, "x") is None
    engine.management_service.delete_batch(batch.id, cascade=True)
    assert batch_variable_rows(engine, batch.id) == []
    assert_log_and_tables_agree(engine)


def test_set_variables_async_refuses_what_camunda_refuses(batches: Engine) -> None:
    engine = batches
    instance = engine.start_process_instance("userTaskAssignment", VARIABLES).id
    service = engine.runtime_service
    with pytest.raises(Rejected, match="variables is empty"):
        service.set_variables_async([instance], variables={})
    with pytest.raises(Rejected, match="variables is null"):
        service.set_variables_async([instance])
    with pytest.raises(Rejected, match="No process instances found"):
        service.set_variables_async(variables={"x": 1})
    with pytest.raises(Rejected, match="processInstanceIds is empty"):
        service.set_variables_async([], variables={"x": 1})
    transient = TypedValue("String", "t", {"transient": True})
    with pytest.raises(Rejected, match="transient variable 'x' asynchronously"):
        service.set_variables_async([instance], variables={"x": transient})
    personal = TypedValue("String", "ann@example.com", {"personalData": True})
    with pytest.raises(Rejected, match="marked personal data"):
        service.set_variables_async([instance], variables={"email": personal})
    with pytest.raises(InvalidValue, match="'n'"):
        service.set_variables_async([instance], variables={"n": TypedValue("Integer", 2**40)})
    assert engine.management_service.batches() == []


def test_correlate_message_async_reaches_the_waiting_instances_and_passes_over_the_rest(
    batches: Engine,
) -> None:
    engine = batches
    waiting = [engine.start_process_instance("restMessages").id for _ in range(3)]
    other = engine.start_process_instance("userTaskAssignment", VARIABLES).id
    batch = engine.acting_as("kermit").runtime_service.correlate_message_async(
        "restPaymentReceived", [*waiting, other], variables={"paid": 12.5}
    )
    assert batch.type == "correlate-message"
    engine.run_due_jobs()
    assert engine.management_service.batches() == []  # done
    for instance_id in waiting:
        assert [t.task_definition_key for t in engine.tasks(process_instance_id=instance_id)] == [
            "ship"
        ]
        assert value_of(engine, instance_id, "paid") == 12.5
    # the instance that waits for no such message is passed over, untouched
    assert value_of(engine, other, "paid") is None
    assert op_log(engine, "CorrelateMessage") == {
        ("ProcessInstance", "messageName", "restPaymentReceived"),
        ("ProcessInstance", "nrOfInstances", "4"),
        ("ProcessInstance", "nrOfVariables", "1"),
        ("ProcessInstance", "async", "true"),
    }
    # a message start event is never started by the batch: the targets are instances only
    assert len(running(engine, [*waiting, other])) == 4
    assert len(rows(engine, ACT_RU_EXECUTION, ACT_RU_EXECUTION.c.PARENT_ID_.is_(None))) == 4
    assert_log_and_tables_agree(engine)


def test_correlate_message_async_refusals(batches: Engine) -> None:
    service = batches.runtime_service
    instance = batches.start_process_instance("restMessages").id
    with pytest.raises(Rejected, match="messageName is null"):
        service.correlate_message_async("", [instance])
    with pytest.raises(Rejected, match="No process instances found"):
        service.correlate_message_async("restPaymentReceived")
    with pytest.raises(Rejected, match="Process instance ids cannot be empty"):
        service.correlate_message_async("restPaymentReceived", [])


def test_a_modification_batch_sets_typed_variables_with_their_types(batches: Engine) -> None:
    engine = batches
    [instance] = [engine.start_process_instance("userTaskAssignment", VARIABLES).id]
    definition = engine.history_service.historic_process_instance(instance).process_definition_id
    due = datetime(2027, 5, 1, 8, 0, tzinfo=UTC)
    start = cmd.StartBeforeActivity(
        activity_id="approve",
        variables={"limit": TypedValue("Long", 5), "due": due, "tags": ["a", "b"]},
        local_variables={"code": TypedValue("Short", 3)},
    )
    engine.runtime_service.modify_process_instances_async(definition, [instance], [start])
    engine.run_due_jobs()
    typed = engine.runtime_service.get_variables_typed(instance)
    assert typed["limit"] == (5, "Long")
    assert typed["due"] == (due, "Date")
    assert typed["tags"] == (["a", "b"], "Json")
    [approve] = [t for t in engine.tasks() if t.task_definition_key == "approve"]
    local = engine.runtime_service.get_variables_typed(approve.execution_id, local=True)
    assert local["code"] == (3, "Short")
    personal = cmd.StartBeforeActivity(
        activity_id="approve",
        variables={"email": TypedValue("String", "a@b.c", {"personalData": True})},
    )
    with pytest.raises(Rejected, match="marked personal data"):
        engine.runtime_service.modify_process_instances_async(definition, [instance], [personal])
