"""Process instance migration, following Camunda's MigrationTestRule scenarios: instances waiting
at a user task whose id changed, in a subprocess, at a timer (kept, or due anew with
updateEventTrigger), at a message catch, at an asynchronous continuation; a boundary event the
target adds starts waiting, one it drops goes; an instance that cannot move changes nothing.
Replay and time travel show the old definition before the move and the new one after, and a
rebuild from the log gives the same tables."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.instance_migration.instance_validation import MigratingInstanceInvalid
from flowledger.core.instance_migration.plan import MigrationInstruction, MigrationPlan
from flowledger.projections.tables import (
    ACT_HI_ACTINST,
    ACT_HI_OP_LOG,
    ACT_HI_PROCINST,
    ACT_HI_TASKINST,
    ACT_RU_EVENT_SUBSCR,
    ACT_RU_EXECUTION,
    ACT_RU_JOB,
    ACT_RU_JOBDEF,
)
from tests.core.test_admin_commands import assert_log_and_tables_agree
from tests.support import fresh_database, selected_kind

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">'
)


def process(body: str, key: str = "p") -> bytes:
    return (
        HEAD + f'<process id="{key}" isExecutable="true">{body}</process></definitions>'
    ).encode()


def task_process(task_id: str = "userTask", extra: str = "") -> bytes:
    return process(
        f"""<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="{task_id}"/>
        <userTask id="{task_id}" name="Review"/>{extra}
        <sequenceFlow id="f2" sourceRef="{task_id}" targetRef="e"/><endEvent id="e"/>"""
    )


def subprocess_process(inner: str = "userTask") -> bytes:
    return process(
        f"""<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="subProcess"/>
        <subProcess id="subProcess">
          <startEvent id="ss"/><sequenceFlow id="g1" sourceRef="ss" targetRef="{inner}"/>
          <userTask id="{inner}"/><sequenceFlow id="g2" sourceRef="{inner}" targetRef="se"/>
          <endEvent id="se"/>
        </subProcess>
        <sequenceFlow id="f2" sourceRef="subProcess" targetRef="e"/><endEvent id="e"/>"""
    )


def timer_catch_process(duration: str) -> bytes:
    return process(
        f"""<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="timer"/>
        <intermediateCatchEvent id="timer"><timerEventDefinition>
          <timeDuration>{duration}</timeDuration></timerEventDefinition></intermediateCatchEvent>
        <sequenceFlow id="f2" sourceRef="timer" targetRef="after"/><userTask id="after"/>
        <sequenceFlow id="f3" sourceRef="after" targetRef="e"/><endEvent id="e"/>"""
    )


def message_catch_process(message: str) -> bytes:
    return (
        HEAD
        + f"""<message id="m" name="{message}"/>
        <process id="p" isExecutable="true">
        <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="catch"/>
        <intermediateCatchEvent id="catch"><messageEventDefinition messageRef="m"/>
        </intermediateCatchEvent>
        <sequenceFlow id="f2" sourceRef="catch" targetRef="after"/><userTask id="after"/>
        <sequenceFlow id="f3" sourceRef="after" targetRef="e"/><endEvent id="e"/>
        </process></definitions>"""
    ).encode()


BOUNDARY_TIMER = """<boundaryEvent id="boundary" attachedToRef="userTask">
  <timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
  <sequenceFlow id="f3" sourceRef="boundary" targetRef="e2"/><endEvent id="e2"/>"""


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    with (
        fresh_database(selected_kind(), tmp_path) as url,
        Engine(url, clock=ControllableClock(), history_level="full") as engine,
    ):
        yield engine.acting_as("demo")


def deploy(engine: Engine, model: bytes) -> str:
    deployment = engine.deploy({"p.bpmn": model})
    return deployment.process_definitions[0].id


def plan(source: str, target: str, *pairs: tuple[str, str], update: bool = False) -> MigrationPlan:
    return MigrationPlan(
        source,
        target,
        tuple(MigrationInstruction(a, b, update) for a, b in pairs),
    )


def rows(engine: Engine, table: sa.Table, **where: str) -> list[dict[str, object]]:
    with engine.reading() as conn:
        query = sa.select(table)
        for column, value in where.items():
            query = query.where(table.c[column] == value)
        return [dict(r._mapping) for r in conn.execute(query)]


def test_user_task_with_changed_id_moves_and_keeps_its_task(engine: Engine) -> None:
    v1 = deploy(engine, task_process("userTask"))
    v2 = deploy(engine, task_process("approve"))
    pi = engine.start_process_instance(definition_id=v1, business_key="order-1")
    [task_before] = engine.tasks()
    engine.runtime_service.migrate_process_instances(plan(v1, v2, ("userTask", "approve")), [pi.id])
    [task] = engine.tasks()
    assert task.id == task_before.id  # the same task, now of the target's activity
    assert task.task_definition_key == "approve"
    assert task.process_definition_id == v2
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    assert [child.activity_id for child in tree.child_activity_instances] == ["approve"]
    [hi] = rows(engine, ACT_HI_PROCINST, ID_=pi.id)
    assert hi["PROC_DEF_ID_"] == v2
    [hi_task] = rows(engine, ACT_HI_TASKINST, ID_=task.id)
    assert (hi_task["TASK_DEF_KEY_"], hi_task["PROC_DEF_ID_"]) == ("approve", v2)
    acts = {
        r["ACT_ID_"]: r["PROC_DEF_ID_"] for r in rows(engine, ACT_HI_ACTINST, PROC_INST_ID_=pi.id)
    }
    assert acts["approve"] == v2
    [execution] = rows(engine, ACT_RU_EXECUTION, PROC_INST_ID_=pi.id)
    assert (execution["PROC_DEF_ID_"], execution["ACT_ID_"]) == (v2, "approve")
    # it goes on in version 2
    engine.complete_task(task.id)
    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    [op] = [
        r
        for r in rows(engine, ACT_HI_OP_LOG)
        if r["OPERATION_TYPE_"] == "Migrate" and r["PROPERTY_"] == "processDefinitionId"
    ]
    assert (op["ORG_VALUE_"], op["NEW_VALUE_"], op["USER_ID_"]) == (v1, v2, "demo")
    assert_log_and_tables_agree(engine)


def test_instance_in_a_subprocess_moves(engine: Engine) -> None:
    v1 = deploy(engine, subprocess_process("userTask"))
    v2 = deploy(engine, subprocess_process("userTask2"))
    pi = engine.start_process_instance(definition_id=v1)
    built = (
        engine.runtime_service.create_migration_plan(v1, v2)
        .map_equal_activities()
        .map_activities("userTask", "userTask2")
        .build()
    )
    # Camunda's fluent execution: the instances by query
    engine.runtime_service.new_migration(built).process_instance_query(
        {"processDefinitionId": v1}
    ).execute()
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    [sub] = tree.child_activity_instances
    assert sub.activity_id == "subProcess"
    assert [c.activity_id for c in sub.child_activity_instances] == ["userTask2"]
    [task] = engine.tasks()
    engine.complete_task(task.id)
    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert_log_and_tables_agree(engine)


def test_timer_keeps_its_due_date_or_is_due_anew_with_update_event_trigger(engine: Engine) -> None:
    v1 = deploy(engine, timer_catch_process("PT1H"))
    v2 = deploy(engine, timer_catch_process("PT5H"))
    kept = engine.start_process_instance(definition_id=v1)
    updated = engine.start_process_instance(definition_id=v1)
    [job_before] = rows(engine, ACT_RU_JOB, PROCESS_INSTANCE_ID_=kept.id)
    engine.clock.advance(minutes=30)  # type: ignore[attr-defined]
    engine.runtime_service.migrate_process_instances(plan(v1, v2, ("timer", "timer")), [kept.id])
    engine.runtime_service.migrate_process_instances(
        plan(v1, v2, ("timer", "timer"), update=True), [updated.id]
    )
    [job_kept] = rows(engine, ACT_RU_JOB, PROCESS_INSTANCE_ID_=kept.id)
    [job_updated] = rows(engine, ACT_RU_JOB, PROCESS_INSTANCE_ID_=updated.id)
    assert job_kept["ID_"] == job_before["ID_"]
    assert job_kept["DUEDATE_"] == job_before["DUEDATE_"]
    assert job_kept["PROCESS_DEF_ID_"] == v2
    # Camunda: the target's timer, from the moment of the migration (30 min + 5 h)
    assert job_updated["DUEDATE_"] - job_before["DUEDATE_"] == timedelta(hours=4, minutes=30)
    jobdefs = {r["ID_"] for r in rows(engine, ACT_RU_JOBDEF, PROC_DEF_ID_=v2)}
    assert job_kept["JOB_DEF_ID_"] in jobdefs
    engine.clock.advance(hours=1)  # type: ignore[attr-defined]
    engine.run_due_jobs()
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=kept.id)] == ["after"]
    assert engine.tasks(process_instance_id=updated.id) == []
    assert_log_and_tables_agree(engine)


def test_message_catch_keeps_or_updates_its_message(engine: Engine) -> None:
    v1 = deploy(engine, message_catch_process("order-paid"))
    v2 = deploy(engine, message_catch_process("payment-received"))
    kept = engine.start_process_instance(definition_id=v1)
    updated = engine.start_process_instance(definition_id=v1)
    engine.runtime_service.migrate_process_instances(plan(v1, v2, ("catch", "catch")), [kept.id])
    engine.runtime_service.migrate_process_instances(
        plan(v1, v2, ("catch", "catch"), update=True), [updated.id]
    )
    names = {r["PROC_INST_ID_"]: r["EVENT_NAME_"] for r in rows(engine, ACT_RU_EVENT_SUBSCR)}
    assert names == {kept.id: "order-paid", updated.id: "payment-received"}
    engine.runtime_service.correlate_message("payment-received")
    assert [t.process_instance_id for t in engine.tasks()] == [updated.id]
    assert_log_and_tables_agree(engine)


def test_boundary_timer_added_by_the_target_starts_waiting(engine: Engine) -> None:
    v1 = deploy(engine, task_process())
    v2 = deploy(engine, task_process(extra=BOUNDARY_TIMER))
    pi = engine.start_process_instance(definition_id=v1)
    [task_before] = engine.tasks()
    engine.runtime_service.migrate_process_instances(
        plan(v1, v2, ("userTask", "userTask")), [pi.id]
    )
    [job] = rows(engine, ACT_RU_JOB, PROCESS_INSTANCE_ID_=pi.id)
    assert job["HANDLER_CFG_"] == "boundary"
    # the task now runs on a scope execution of its own, as if it had started in version 2
    executions = rows(engine, ACT_RU_EXECUTION, PROC_INST_ID_=pi.id)
    assert len(executions) == 2
    # the same rows a fresh version-2 instance has: the task's scope execution is at it, active
    [scope] = [x for x in executions if x["PARENT_ID_"] == pi.id]
    assert (scope["ACT_ID_"], scope["IS_ACTIVE_"], scope["IS_SCOPE_"]) == ("userTask", True, True)
    [task] = engine.tasks()
    assert task.id == task_before.id
    assert task.execution_id != pi.id
    engine.clock.advance(hours=2)  # type: ignore[attr-defined]
    engine.run_due_jobs()
    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert_log_and_tables_agree(engine)


def test_boundary_timer_the_target_drops_goes(engine: Engine) -> None:
    v1 = deploy(engine, task_process(extra=BOUNDARY_TIMER))
    v2 = deploy(engine, task_process())
    pi = engine.start_process_instance(definition_id=v1)
    engine.runtime_service.migrate_process_instances(
        plan(v1, v2, ("userTask", "userTask")), [pi.id]
    )
    assert rows(engine, ACT_RU_JOB, PROCESS_INSTANCE_ID_=pi.id) == []
    [execution] = rows(engine, ACT_RU_EXECUTION, PROC_INST_ID_=pi.id)
    assert execution["ACT_ID_"] == "userTask"
    [task] = engine.tasks()
    assert task.execution_id == pi.id
    engine.complete_task(task.id)
    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert_log_and_tables_agree(engine)


def test_async_continuation_stuck_in_an_incident_moves(engine: Engine) -> None:
    failing = process(
        """<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
        <serviceTask id="work" camunda:asyncBefore="true" camunda:expression="${missing.call()}"/>
        <sequenceFlow id="f2" sourceRef="work" targetRef="e"/><endEvent id="e"/>"""
    )
    fixed = process(
        """<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
        <serviceTask id="work" camunda:asyncBefore="true" camunda:expression="${1+1}"/>
        <sequenceFlow id="f2" sourceRef="work" targetRef="e"/><endEvent id="e"/>"""
    )
    v1 = deploy(engine, failing)
    v2 = deploy(engine, fixed)
    pi = engine.start_process_instance(definition_id=v1)
    for _ in range(3):
        engine.run_due_jobs()
        engine.clock.advance(minutes=10)  # type: ignore[attr-defined]
    [job] = rows(engine, ACT_RU_JOB, PROCESS_INSTANCE_ID_=pi.id)
    assert job["RETRIES_"] == 0, job
    assert job["RETRIES_"] == 0
    engine.runtime_service.migrate_process_instances(plan(v1, v2, ("work", "work")), [pi.id])
    [job] = rows(engine, ACT_RU_JOB, PROCESS_INSTANCE_ID_=pi.id)
    assert job["PROCESS_DEF_ID_"] == v2
    [incident] = engine.runtime_service.incidents(process_instance_id=pi.id)
    assert incident.process_definition_id == v2
    engine.management_service.set_job_retries(job["ID_"], 1)
    engine.run_due_jobs()
    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert_log_and_tables_agree(engine)


def test_an_instance_that_cannot_move_changes_nothing(engine: Engine) -> None:
    v1 = deploy(engine, task_process("userTask"))
    v2 = deploy(engine, task_process("approve"))
    ok = engine.start_process_instance(definition_id=v1)
    engine.start_process_instance(definition_id=v1)
    other = engine.start_process_instance(definition_id=v1)
    before = engine.events(other.id)
    with pytest.raises(MigratingInstanceInvalid) as refused:
        # no instruction for userTask: the instance's task has nowhere to go
        engine.runtime_service.migrate_process_instances(plan(v1, v2), [ok.id, other.id])
    report = refused.value.report
    [ai_report] = report.activity_instance_validation_reports
    assert ai_report.failures == ["There is no migration instruction for this instance's activity"]
    assert ai_report.source_scope_id == "userTask"
    assert engine.events(other.id) == before
    assert {t.process_definition_id for t in engine.tasks()} == {v1}


def test_wrong_source_definition_and_ended_instances_are_refused(engine: Engine) -> None:
    v1 = deploy(engine, task_process("userTask"))
    v2 = deploy(engine, task_process("approve"))
    pi = engine.start_process_instance(definition_id=v1)
    with pytest.raises(Rejected, match="not applicable to process instance"):
        engine.runtime_service.migrate_process_instances(
            plan(v2, v1, ("approve", "userTask")), [pi.id]
        )
    with pytest.raises(NotFound):
        engine.runtime_service.migrate_process_instances(
            plan(v1, "nope:1:x", ("userTask", "userTask")), [pi.id]
        )
    with pytest.raises(Rejected, match="cannot empty"):
        engine.runtime_service.migrate_process_instances(plan(v1, v2), [])


def test_time_travel_crosses_the_move(engine: Engine) -> None:
    v1 = deploy(engine, task_process("userTask"))
    v2 = deploy(engine, task_process("approve"))
    pi = engine.start_process_instance(definition_id=v1)
    engine.clock.advance(minutes=5)  # type: ignore[attr-defined]
    engine.runtime_service.migrate_process_instances(plan(v1, v2, ("userTask", "approve")), [pi.id])
    events = engine.events(pi.id)
    moved_at = next(e.position for e in events if e.type == "ProcessInstanceMigrated")
    before = engine.replay(pi.id, until_position=moved_at - 1)
    after = engine.replay(pi.id)
    assert before.definition_id == v1
    assert [a.activity_id for a in before.activity_instances.values()] == ["userTask"]
    assert after.definition_id == v2
    assert [a.activity_id for a in after.activity_instances.values()] == ["approve"]
    # the trail says who moved it, from where to where and by which instructions
    [entry] = [t for t in engine.audit_service.timeline(pi.id) if "migrated" in t.what]
    assert entry.what == f"instance migrated from {v1} to {v2}"
    assert (entry.actor, entry.instructions) == ("demo", ["userTask -> approve"])
    # time travel by moment: five minutes in it was still on version 1
    started = engine.events(pi.id)[0].recorded_at
    assert engine.audit_service.state_at(pi.id, moment=started).state.definition_id == v1
    moved = engine.events(pi.id)[-1].recorded_at
    assert engine.audit_service.state_at(pi.id, moment=moved).state.definition_id == v2


def wrapped_process(extra: str = "") -> bytes:
    """The task inside a subprocess (with an input mapping, and a boundary timer on it)."""
    return process(
        f"""<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
        <subProcess id="sub">
          <extensionElements><camunda:inputOutput>
            <camunda:inputParameter name="local">inside</camunda:inputParameter>
          </camunda:inputOutput></extensionElements>
          <startEvent id="ss"/><sequenceFlow id="g1" sourceRef="ss" targetRef="userTask"/>
          <userTask id="userTask" name="Review"/>
          <sequenceFlow id="g2" sourceRef="userTask" targetRef="se"/><endEvent id="se"/>
        </subProcess>{extra}
        <sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><endEvent id="e"/>"""
    )


SUB_TIMER = """<boundaryEvent id="late" attachedToRef="sub">
  <timerEventDefinition><timeDuration>PT2H</timeDuration></timerEventDefinition></boundaryEvent>
  <sequenceFlow id="f3" sourceRef="late" targetRef="e2"/><endEvent id="e2"/>"""


def test_a_subprocess_the_target_adds_is_created_around_the_task(engine: Engine) -> None:
    v1 = deploy(engine, task_process())
    v2 = deploy(engine, wrapped_process(SUB_TIMER))
    pi = engine.start_process_instance(definition_id=v1, variables={"order": 7})
    [task_before] = engine.tasks()
    engine.runtime_service.migrate_process_instances(
        plan(v1, v2, ("userTask", "userTask")), [pi.id]
    )
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    [sub] = tree.child_activity_instances
    assert sub.activity_id == "sub"
    assert [c.activity_id for c in sub.child_activity_instances] == ["userTask"]
    [task] = engine.tasks()
    assert task.id == task_before.id
    # the new scope started as Camunda's instantiateScopes starts it: its input mapping ran,
    # its boundary timer waits, its history row begins now
    assert engine.runtime_service.get_variables(task.execution_id) == {
        "order": 7,
        "local": "inside",
    }
    [job] = rows(engine, ACT_RU_JOB, PROCESS_INSTANCE_ID_=pi.id)
    assert job["HANDLER_CFG_"] == "late"
    [hi_sub] = [
        r for r in rows(engine, ACT_HI_ACTINST, PROC_INST_ID_=pi.id) if r["ACT_ID_"] == "sub"
    ]
    assert hi_sub["END_TIME_"] is None and hi_sub["PROC_DEF_ID_"] == v2
    engine.complete_task(task.id)
    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert_log_and_tables_agree(engine)


def test_a_subprocess_the_target_drops_ends_and_its_task_moves_up(engine: Engine) -> None:
    v1 = deploy(engine, wrapped_process(SUB_TIMER))
    v2 = deploy(engine, task_process())
    pi = engine.start_process_instance(definition_id=v1, variables={"order": 7})
    engine.runtime_service.migrate_process_instances(
        plan(v1, v2, ("userTask", "userTask")), [pi.id]
    )
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    assert [c.activity_id for c in tree.child_activity_instances] == ["userTask"]
    [task] = engine.tasks()
    assert task.execution_id == pi.id
    # the subprocess's own variable went with it; the boundary timer too
    assert engine.runtime_service.get_variables(pi.id) == {"order": 7}
    assert rows(engine, ACT_RU_JOB, PROCESS_INSTANCE_ID_=pi.id) == []
    [hi_sub] = [
        r for r in rows(engine, ACT_HI_ACTINST, PROC_INST_ID_=pi.id) if r["ACT_ID_"] == "sub"
    ]
    assert hi_sub["END_TIME_"] is not None and hi_sub["ACT_INST_STATE_"] == 2  # canceled
    engine.complete_task(task.id)
    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert_log_and_tables_agree(engine)


def test_one_of_two_concurrent_tasks_moves_into_a_new_subprocess(engine: Engine) -> None:
    def parallel(second: str) -> bytes:
        return process(
            f"""<startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="fork"/>
            <parallelGateway id="fork"/>
            <sequenceFlow id="f1" sourceRef="fork" targetRef="a"/><userTask id="a"/>
            <sequenceFlow id="f2" sourceRef="fork" targetRef="{second[0]}"/>{second[1]}
            <sequenceFlow id="f3" sourceRef="a" targetRef="join"/>
            <sequenceFlow id="f4" sourceRef="{second[0]}" targetRef="join"/>
            <parallelGateway id="join"/>
            <sequenceFlow id="f5" sourceRef="join" targetRef="e"/><endEvent id="e"/>"""
        )

    v1 = deploy(engine, parallel(("b", '<userTask id="b"/>')))
    v2 = deploy(
        engine,
        parallel(
            (
                "sub",
                """<subProcess id="sub"><startEvent id="ss"/>
                <sequenceFlow id="g1" sourceRef="ss" targetRef="b"/><userTask id="b"/>
                <sequenceFlow id="g2" sourceRef="b" targetRef="se"/><endEvent id="se"/>
                </subProcess>""",
            )
        ),
    )
    pi = engine.start_process_instance(definition_id=v1)
    engine.runtime_service.migrate_process_instances(
        plan(v1, v2, ("a", "a"), ("b", "b"), ("join", "join")), [pi.id]
    )
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    shape = sorted(
        (c.activity_id, [g.activity_id for g in c.child_activity_instances])
        for c in tree.child_activity_instances
    )
    assert shape == [("a", []), ("sub", ["b"])]
    for task in engine.tasks():
        engine.complete_task(task.id)
    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert_log_and_tables_agree(engine)


def test_external_task_call_activity_and_event_based_gateway_move(engine: Engine) -> None:
    body = """<startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="fork"/>
        <parallelGateway id="fork"/>
        <sequenceFlow id="f1" sourceRef="fork" targetRef="ext"/>
        <serviceTask id="ext" camunda:type="external" camunda:topic="{topic}"/>
        <sequenceFlow id="f2" sourceRef="fork" targetRef="call"/>
        <callActivity id="call" calledElement="child"/>
        <sequenceFlow id="f3" sourceRef="fork" targetRef="gw"/>
        <eventBasedGateway id="gw"/>
        <sequenceFlow id="f4" sourceRef="gw" targetRef="msg"/>
        <intermediateCatchEvent id="msg"><messageEventDefinition messageRef="m"/>
        </intermediateCatchEvent>
        <sequenceFlow id="f5" sourceRef="gw" targetRef="wait"/>
        <intermediateCatchEvent id="wait"><timerEventDefinition>
          <timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
        <sequenceFlow id="f6" sourceRef="ext" targetRef="join"/>
        <sequenceFlow id="f7" sourceRef="call" targetRef="join"/>
        <sequenceFlow id="f8" sourceRef="msg" targetRef="join"/>
        <sequenceFlow id="f9" sourceRef="wait" targetRef="join"/>
        <inclusiveGateway id="join"/>
        <sequenceFlow id="f10" sourceRef="join" targetRef="e"/><endEvent id="e"/>"""

    def model(topic: str) -> bytes:
        return (
            HEAD
            + '<message id="m" name="go"/><process id="p" isExecutable="true">'
            + body.replace("{topic}", topic)
            + "</process></definitions>"
        ).encode()

    engine.deploy({"child.bpmn": task_process().replace(b'id="p"', b'id="child"')})
    v1 = deploy(engine, model("old-topic"))
    pi = engine.start_process_instance(definition_id=v1)
    v2 = deploy(engine, model("new-topic"))
    built = engine.runtime_service.create_migration_plan(v1, v2).map_equal_activities().build()
    engine.runtime_service.migrate_process_instances(built, [pi.id])
    [ext] = engine.external_task_service.external_tasks(process_instance_id=pi.id)
    assert ext.process_definition_id == v2
    assert ext.topic_name == "old-topic"  # Camunda keeps the topic the task was created with
    [child] = rows(engine, ACT_HI_PROCINST, PROC_DEF_KEY_="child")
    assert child["SUPER_PROCESS_INSTANCE_ID_"] == pi.id  # the called instance stays as it is
    engine.runtime_service.correlate_message("go")
    [task] = engine.tasks(process_instance_id=child["ID_"])
    engine.complete_task(task.id)
    assert_log_and_tables_agree(engine)


def test_a_parallel_multi_instance_task_moves_with_its_body(engine: Engine) -> None:
    def model(name: str) -> bytes:
        return process(
            f"""<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="review"/>
            <userTask id="review" name="{name}"><multiInstanceLoopCharacteristics>
              <loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
            <sequenceFlow id="f2" sourceRef="review" targetRef="e"/><endEvent id="e"/>"""
        )

    v1 = deploy(engine, model("Review"))
    pi = engine.start_process_instance(definition_id=v1)
    [first, *_] = engine.tasks()
    engine.complete_task(first.id)  # one of three done before the move
    v2 = deploy(engine, model("Review v2"))
    built = engine.runtime_service.create_migration_plan(v1, v2).map_equal_activities().build()
    engine.runtime_service.migrate_process_instances(built, [pi.id])
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    [body] = tree.child_activity_instances
    assert body.activity_id == "review#multiInstanceBody"
    assert len(body.child_activity_instances) == 2
    for task in engine.tasks():
        assert task.process_definition_id == v2
        engine.complete_task(task.id)
    assert engine.runtime_service.process_instance(pi.id).ended  # type: ignore[union-attr]
    assert_log_and_tables_agree(engine)


def test_the_timeline_names_the_target_activity_after_the_move(engine: Engine) -> None:
    v1 = deploy(engine, task_process())
    pi = engine.start_process_instance(definition_id=v1)
    v2 = deploy(
        engine, task_process(extra=BOUNDARY_TIMER).replace(b'name="Review"', b'name="Check"')
    )
    engine.runtime_service.migrate_process_instances(
        plan(v1, v2, ("userTask", "userTask")), [pi.id]
    )
    timeline = engine.audit_service.timeline(pi.id)
    [started] = [t for t in timeline if t.what.startswith("userTask started")]
    assert started.activity_name == "Review"  # as it was then
    [timer] = [t for t in timeline if t.what.startswith("timer job created")]
    assert (timer.activity_id, timer.activity_name) == ("userTask", "Check")
