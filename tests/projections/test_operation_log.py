"""The user operation log (ACT_HI_OP_LOG): at history level full, every operation a person issues
(a command with an actor) is logged with Camunda's operation type, entity type, category and
property changes; the rows are projected from the log, so a rebuild writes them again, and an
asynchronous follower writes the same rows as inline history."""

from __future__ import annotations

import calendar
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.projections.tables import ACT_HI_OP_LOG, ACT_HI_PROCINST
from tests.core.test_admin_commands import assert_log_and_tables_agree
from tests.support import bpmn, fresh_database, selected_kind

MODEL = "rest_task_steps.bpmn"  # prepare (a user task) -> serve (a user task)
KEY = "restTaskSteps"

Entry = tuple[str, str, str | None, str | None, str | None]


def entries(engine: Engine, **where: Any) -> list[dict[str, Any]]:
    with engine.reading() as conn:
        stmt = sa.select(ACT_HI_OP_LOG).where(*(ACT_HI_OP_LOG.c[k] == v for k, v in where.items()))
        stmt = stmt.order_by(ACT_HI_OP_LOG.c.TIMESTAMP_, ACT_HI_OP_LOG.c.PROPERTY_)
        return [dict(r._mapping) for r in conn.execute(stmt)]


def summary(engine: Engine, **where: Any) -> list[Entry]:
    """(operation type, entity type, property, value before, value after) of each entry."""
    return [
        (r["OPERATION_TYPE_"], r["ENTITY_TYPE_"], r["PROPERTY_"], r["ORG_VALUE_"], r["NEW_VALUE_"])
        for r in entries(engine, **where)
    ]


@pytest.fixture
def full(tmp_path: Any, clock: ControllableClock) -> Iterator[Engine]:
    with (
        fresh_database(selected_kind(), tmp_path) as url,
        Engine(url, clock=clock, history_level="full") as engine,
    ):
        engine.deploy(bpmn(MODEL))
        yield engine


def instances_of(engine: Engine, key: str, **where: Any) -> list[str]:
    """The ids of the key's instances (from history, which the tests write at level full)."""
    table = ACT_HI_PROCINST
    with engine.reading() as conn:
        stmt = sa.select(table.c.ID_).where(
            table.c.PROC_DEF_KEY_ == key, *(table.c[k] == v for k, v in where.items())
        )
        return [r[0] for r in conn.execute(stmt)]


def _tick(clock: ControllableClock) -> None:
    clock.advance(seconds=1)  # one moment per operation: the log reads in their order


def test_a_users_task_work_is_logged_with_camundas_types(
    full: Engine, clock: ControllableClock
) -> None:
    kermit = full.acting_as("kermit", via="rest")
    started = kermit.start_process_instance(KEY, {"order": 1})
    [task] = full.tasks(process_instance_id=started.id)
    _tick(clock)
    kermit.claim(task.id, "kermit")
    _tick(clock)
    kermit.task_service.set_assignee(task.id, "gonzo")
    _tick(clock)
    kermit.runtime_service.set_variables(started.id, {"a": 1, "b": 2})
    _tick(clock)
    completed_at = clock.now()
    kermit.complete_task(task.id)

    assert summary(full, PROC_INST_ID_=started.id) == [
        ("Create", "ProcessInstance", None, None, None),
        ("Claim", "Task", "assignee", None, "kermit"),
        ("Assign", "Task", "assignee", "kermit", "gonzo"),
        ("SetVariable", "Variable", None, None, None),  # one entry for the call, not per variable
        ("Complete", "Task", "delete", "false", "true"),
    ]
    rows = entries(full, PROC_INST_ID_=started.id)
    assert rows[3]["EXECUTION_ID_"] is None  # Camunda names the instance, not its execution
    assert {r["USER_ID_"] for r in rows} == {"kermit"}
    assert [r["CATEGORY_"] for r in rows] == [
        "Operator",
        "TaskWorker",
        "TaskWorker",
        "Operator",
        "TaskWorker",
    ]
    completed = rows[-1]
    assert completed["TASK_ID_"] == task.id
    assert completed["EXECUTION_ID_"] == task.execution_id
    assert completed["PROC_DEF_ID_"] == started.definition_id
    assert completed["PROC_DEF_KEY_"] == KEY
    assert completed["ROOT_PROC_INST_ID_"] == started.id
    assert completed["DEPLOYMENT_ID_"] is not None
    # the command's moment, as naive UTC like every timestamp column
    assert completed["TIMESTAMP_"] == completed_at.astimezone(UTC).replace(tzinfo=None)
    # Each call is one operation: its rows share an id of their own, the command's.
    assert len({r["OPERATION_ID_"] for r in rows}) == len(rows)
    assert len({r["ID_"] for r in rows}) == len(rows)
    assert_log_and_tables_agree(full)


def test_commands_without_an_actor_log_nothing(full: Engine) -> None:
    started = full.start_process_instance(KEY)
    [task] = full.tasks(process_instance_id=started.id)
    full.claim(task.id, "kermit")
    full.complete_task(task.id)
    assert summary(full, PROC_INST_ID_=started.id) == []


def test_below_level_full_nothing_is_logged(engine: Engine) -> None:
    engine.deploy(bpmn(MODEL))
    kermit = engine.acting_as("kermit")
    started = kermit.start_process_instance(KEY)
    [task] = engine.tasks(process_instance_id=started.id)
    kermit.complete_task(task.id)
    assert entries(engine) == []


def test_repository_operations(full: Engine, clock: ControllableClock) -> None:
    admin = full.acting_as("admin", via="cli")
    deployment = admin.deploy(bpmn("rest_repo_straight.bpmn"), name="straight")
    definition = next(d for d in full.repository_service.process_definitions() if d.key == KEY)
    _tick(clock)
    admin.repository_service.suspend_process_definition(definition_id=definition.id)
    _tick(clock)
    admin.repository_service.activate_process_definition(
        definition_id=definition.id, include_instances=True
    )
    _tick(clock)
    admin.repository_service.delete_deployment(deployment.id, cascade=True)

    assert summary(full, DEPLOYMENT_ID_=deployment.id) == [
        ("Create", "Deployment", "duplicateFilterEnabled", None, "false"),
        ("Delete", "Deployment", "cascade", None, "true"),
    ]
    assert sorted(summary(full, PROC_DEF_ID_=definition.id)) == [
        ("ActivateProcessDefinition", "ProcessDefinition", "includeProcessInstances", None, "true"),
        ("ActivateProcessDefinition", "ProcessDefinition", "suspensionState", None, "active"),
        ("SuspendProcessDefinition", "ProcessDefinition", "includeProcessInstances", None, "false"),
        ("SuspendProcessDefinition", "ProcessDefinition", "suspensionState", None, "suspended"),
    ]
    assert {r["USER_ID_"] for r in entries(full)} == {"admin"}
    # A deployment with duplicate filtering says so; one that changes nothing deploys nothing.
    _tick(clock)
    filtered = admin.deploy(
        bpmn("rest_repo_straight.bpmn"), duplicate_filtering=True, deploy_changed_only=True
    )
    assert sorted(summary(full, DEPLOYMENT_ID_=filtered.id)) == [
        ("Create", "Deployment", "deployChangedOnly", None, "true"),
        ("Create", "Deployment", "duplicateFilterEnabled", None, "true"),
    ]
    assert_log_and_tables_agree(full)


def test_operations_on_an_instance_and_its_history(full: Engine, clock: ControllableClock) -> None:
    operator = full.acting_as("operator")
    started = operator.start_process_instance(KEY)
    _tick(clock)
    operator.runtime_service.suspend_process_instance(started.id)
    _tick(clock)
    operator.runtime_service.activate_process_instance(started.id)
    _tick(clock)
    operator.runtime_service.delete_process_instance(started.id, reason="not needed")
    assert summary(full, PROC_INST_ID_=started.id) == [
        ("Create", "ProcessInstance", None, None, None),
        ("Suspend", "ProcessInstance", "suspensionState", None, "suspended"),
        ("Activate", "ProcessInstance", "suspensionState", None, "active"),
        ("Delete", "ProcessInstance", None, None, None),
    ]
    assert_log_and_tables_agree(full)

    # Deleting the instance's history keeps its entries, and is an operation of its own
    # (naming no instance: Camunda's call takes a list).
    _tick(clock)
    operator.history_service.delete_historic_process_instance(started.id)
    assert len(summary(full, PROC_INST_ID_=started.id)) == 4
    assert sorted(summary(full, OPERATION_TYPE_="DeleteHistory")) == [
        ("DeleteHistory", "ProcessInstance", "async", None, "false"),
        ("DeleteHistory", "ProcessInstance", "nrOfInstances", None, "1"),
    ]
    assert_log_and_tables_agree(full)


def test_history_cleanup_removes_the_entries_of_the_instances_it_removes(
    tmp_path: Any, clock: ControllableClock
) -> None:
    with (
        fresh_database(selected_kind(), tmp_path) as url,
        Engine(url, clock=clock, history_level="full", history_time_to_live=1) as engine,
    ):
        engine.deploy(bpmn(MODEL))
        kermit = engine.acting_as("kermit")
        done = kermit.start_process_instance(KEY)
        kermit.runtime_service.delete_process_instance(done.id)
        running = kermit.start_process_instance(KEY)
        clock.advance(days=2)
        assert kermit.history_service.cleanup_history().removed == 1
        assert summary(engine, PROC_INST_ID_=done.id) == []
        assert summary(engine, OPERATION_TYPE_="DeleteHistory") == []  # not a user's deletion
        assert summary(engine, PROC_INST_ID_=running.id) == [
            ("Create", "ProcessInstance", None, None, None)
        ]
        assert_log_and_tables_agree(engine)


def test_claim_unclaim_and_unchanged_assignees(full: Engine, clock: ControllableClock) -> None:
    kermit = full.acting_as("kermit")
    started = full.start_process_instance(KEY)
    [task] = full.tasks(process_instance_id=started.id)
    kermit.claim(task.id, "kermit")
    _tick(clock)
    kermit.task_service.set_assignee(task.id, "kermit")  # no change: no entry, as in Camunda
    _tick(clock)
    kermit.task_service.unclaim(task.id)  # engine-rest's unclaim is setAssignee(null): an Assign
    assert summary(full, TASK_ID_=task.id) == [
        ("Claim", "Task", "assignee", None, "kermit"),
        ("Assign", "Task", "assignee", "kermit", None),
    ]
    assert_log_and_tables_agree(full)


def test_job_operations(full: Engine, clock: ControllableClock) -> None:
    full.register_delegate("booker", lambda execution: None)
    full.deploy(bpmn("timers_and_async.bpmn"))
    operator = full.acting_as("operator")
    started = full.start_process_instance("timersAndAsync")
    [job] = full.management_service.jobs(process_instance_id=started.id)
    due = datetime(2030, 1, 2, 3, 4, 5, 678_000, tzinfo=UTC)
    for change in (
        lambda: operator.management_service.set_job_retries(job.id, 5),
        lambda: operator.management_service.set_job_priority(job.id, 42),
        lambda: operator.management_service.set_job_due_date(job.id, due),
        lambda: operator.management_service.suspend_job(job.id),
        lambda: operator.management_service.activate_job(job.id),
        lambda: operator.management_service.execute_job(job.id),
    ):
        _tick(clock)
        change()
    # epoch milliseconds, as Java's Date.getTime
    due_ms = str(calendar.timegm(due.utctimetuple()) * 1000 + 678)
    assert job.due_date is None  # an asynchronous continuation is due at once
    logged = summary(full, JOB_ID_=job.id)
    assert logged == [
        ("SetJobRetries", "Job", "retries", str(job.retries), "5"),
        ("SetPriority", "Job", "priority", str(job.priority), "42"),
        ("SetDueDate", "Job", "duedate", None, due_ms),
        ("SuspendJob", "Job", "suspensionState", None, "suspended"),
        ("ActivateJob", "Job", "suspensionState", None, "active"),
        ("Execute", "Job", None, None, None),
    ]
    rows = entries(full, JOB_ID_=job.id)
    assert {(r["JOB_DEF_ID_"], r["PROC_INST_ID_"], r["EXECUTION_ID_"]) for r in rows} == {
        (job.job_definition_id, started.id, None)
    }
    # The job executor's runs are no user's operations, whoever started it.
    clock.advance(hours=2)
    assert operator.run_due_jobs() > 0
    assert summary(full, OPERATION_TYPE_="Execute") == [("Execute", "Job", None, None, None)]
    assert_log_and_tables_agree(full)


def test_an_asynchronous_follower_writes_the_rows_inline_history_writes(tmp_path: Any) -> None:
    def run(engine: Engine, clock: ControllableClock) -> list[dict[str, Any]]:
        engine.deploy(bpmn(MODEL))
        kermit = engine.acting_as("kermit")
        started = kermit.start_process_instance(KEY, command_id="start-1")
        [task] = engine.tasks(process_instance_id=started.id)
        _tick(clock)
        kermit.claim(task.id, "kermit", command_id="claim-1")
        _tick(clock)
        kermit.complete_task(task.id, command_id="complete-1")
        engine.flush_history()
        return [
            {k: v for k, v in row.items() if k not in ("PROC_INST_ID_", "ROOT_PROC_INST_ID_")}
            for row in entries(engine)
        ]

    for name in ("inline", "async"):
        (tmp_path / name).mkdir()
    clocks = ControllableClock(), ControllableClock()
    with (
        fresh_database(selected_kind(), tmp_path / "inline") as url,
        Engine(url, clock=clocks[0], history_level="full") as inline,
    ):
        expected = run(inline, clocks[0])
    with (
        fresh_database(selected_kind(), tmp_path / "async") as url,
        Engine(url, clock=clocks[1], history_level="full", history_mode="async") as follows,
    ):
        actual = run(follows, clocks[1])
    assert [r["OPERATION_TYPE_"] for r in expected] == ["Create", "Claim", "Complete"]
    strip = ("ID_", "TASK_ID_", "EXECUTION_ID_", "PROC_DEF_ID_", "DEPLOYMENT_ID_")
    assert [{k: v for k, v in r.items() if k not in strip} for r in actual] == [
        {k: v for k, v in r.items() if k not in strip} for r in expected
    ]


def test_timestamps_are_utc(full: Engine, clock: ControllableClock) -> None:
    clock.set(datetime(2026, 3, 1, 12, 30, tzinfo=UTC))
    full.acting_as("kermit").start_process_instance(KEY)
    [row] = entries(full, OPERATION_TYPE_="Create", ENTITY_TYPE_="ProcessInstance")
    assert row["TIMESTAMP_"] == datetime(2026, 3, 1, 12, 30)


SIGNALS = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <signal id="go" name="go"/>
  <process id="thrower" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="throw"/>
    <endEvent id="throw"><signalEventDefinition signalRef="go"/></endEvent>
  </process>
  <process id="startedBySignal" isExecutable="true">
    <startEvent id="caught"><signalEventDefinition signalRef="go"/></startEvent>
    <sequenceFlow id="g1" sourceRef="caught" targetRef="wait"/>
    <userTask id="wait"/>
  </process>
</definitions>"""


def test_instances_started_by_another_operation_are_not_operations_of_their_own(
    full: Engine, clock: ControllableClock
) -> None:
    full.deploy(SIGNALS)
    full.deploy(bpmn("rest_call.bpmn"))
    kermit = full.acting_as("kermit")
    thrower = kermit.start_process_instance("thrower")
    caller = kermit.start_process_instance("restCaller")
    creations = {r["PROC_INST_ID_"] for r in entries(full, OPERATION_TYPE_="Create")}
    # the signal-started and the called instance have no Create of their own
    assert creations == {thrower.id, caller.id}
    [by_signal] = instances_of(full, "startedBySignal")
    [called] = instances_of(full, "restCalled")
    assert summary(full, PROC_INST_ID_=by_signal) == []

    # Deleting the caller deletes its called instance: one operation, the caller's.
    _tick(clock)
    kermit.runtime_service.delete_process_instance(caller.id)
    deletions = entries(full, OPERATION_TYPE_="Delete")
    assert [r["PROC_INST_ID_"] for r in deletions] == [caller.id]
    assert summary(full, PROC_INST_ID_=called) == []
    # A called instance deleted by a user is that user's operation.
    _tick(clock)
    second = kermit.start_process_instance("restCaller")
    [called_again] = instances_of(full, "restCalled", SUPER_PROCESS_INSTANCE_ID_=second.id)
    kermit.runtime_service.delete_process_instance(called_again)
    assert summary(full, PROC_INST_ID_=called_again) == [
        ("Delete", "ProcessInstance", None, None, None)
    ]
    assert_log_and_tables_agree(full)


LONG_KEY = "a_process_key_longer_than_a_definition_id_keeps"
LONG = f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
  <process id="{LONG_KEY}" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>""".encode()


def test_a_definitions_operations_name_its_key_and_deployment(full: Engine) -> None:
    deployment = full.deploy(LONG)
    [definition] = [d for d in full.repository_service.process_definitions() if d.key == LONG_KEY]
    full.acting_as("admin").repository_service.suspend_process_definition(
        definition_id=definition.id
    )
    [row, _include] = entries(full, PROC_DEF_ID_=definition.id)
    assert (row["PROC_DEF_KEY_"], row["DEPLOYMENT_ID_"]) == (LONG_KEY, deployment.id)


def test_operations_on_a_start_timer_job(full: Engine, clock: ControllableClock) -> None:
    """A timer start event's job lives in its deployment's stream: the operations on it name
    the job, its definition and its deployment, like an instance job's."""
    full.register_delegate("booker", lambda execution: None)
    deployment = full.deploy(bpmn("timers_and_async.bpmn"))
    [job] = [j for j in full.management_service.jobs() if j.process_instance_id is None]
    operator = full.acting_as("operator")
    due = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    _tick(clock)
    operator.management_service.set_job_retries(job.id, 7)
    _tick(clock)
    operator.management_service.set_job_due_date(job.id, due)
    _tick(clock)
    operator.management_service.execute_job(job.id)
    assert summary(full, JOB_ID_=job.id) == [
        ("SetJobRetries", "Job", "retries", str(job.retries), "7"),
        ("SetDueDate", "Job", "duedate", None, str(calendar.timegm(due.utctimetuple()) * 1000)),
        ("Execute", "Job", None, None, None),
    ]
    [retries, _due, executed] = entries(full, JOB_ID_=job.id)
    for row in (retries, executed):
        assert (row["PROC_DEF_KEY_"], row["DEPLOYMENT_ID_"]) == ("hourlyReport", deployment.id)
        assert row["JOB_DEF_ID_"] == job.job_definition_id
    assert_log_and_tables_agree(full)
