"""Process instance modification, following Camunda's ProcessInstanceModificationTest: start
before or after an activity or a transition (missing flow scopes created), cancel activity and
transition instances or every instance of an activity, skip listeners and I/O mappings; what it
did is recorded as the operator's own events, in history as Camunda writes it, and a rebuild from
the log gives the same tables. Bad instructions change nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.core import commands as cmd
from flowledger.core import views
from flowledger.core.errors import NotFound, Rejected
from flowledger.projections.tables import (
    ACT_HI_ACTINST,
    ACT_HI_OP_LOG,
    ACT_HI_PROCINST,
    ACT_HI_VARINST,
)
from tests.core.test_admin_commands import assert_log_and_tables_agree
from tests.support import fresh_database, selected_kind

HEAD = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    b'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">'
)

# s -> a -> sub(ss -> inner -> se) -> e
SUBPROCESS = (
    HEAD
    + b"""<process id="sub" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="a"/>
  <userTask id="a"/><sequenceFlow id="f2" sourceRef="a" targetRef="subProcess"/>
  <subProcess id="subProcess">
    <startEvent id="ss"/><sequenceFlow id="g1" sourceRef="ss" targetRef="inner"/>
    <userTask id="inner"/><sequenceFlow id="g2" sourceRef="inner" targetRef="se"/>
    <endEvent id="se"/>
  </subProcess>
  <sequenceFlow id="f3" sourceRef="subProcess" targetRef="e"/>
  <endEvent id="e"/>
</process></definitions>"""
)

# s -> fork -> (t1, t2) -> join -> after -> e
PARALLEL = (
    HEAD
    + b"""<process id="parallel" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="fork"/>
  <parallelGateway id="fork"/>
  <sequenceFlow id="f1" sourceRef="fork" targetRef="t1"/>
  <sequenceFlow id="f2" sourceRef="fork" targetRef="t2"/>
  <userTask id="t1"/><userTask id="t2"/>
  <sequenceFlow id="f3" sourceRef="t1" targetRef="join"/>
  <sequenceFlow id="f4" sourceRef="t2" targetRef="join"/>
  <parallelGateway id="join"/><sequenceFlow id="f5" sourceRef="join" targetRef="after"/>
  <userTask id="after"/><sequenceFlow id="f6" sourceRef="after" targetRef="e"/>
  <endEvent id="e"/>
</process></definitions>"""
)

# s -> first -> second (start listener sets `heard`, an input mapping sets `mapped`) -> e
LISTENED = (
    HEAD
    + b"""<process id="listened" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="first"/>
  <userTask id="first"/><sequenceFlow id="f2" sourceRef="first" targetRef="second"/>
  <userTask id="second">
    <extensionElements>
      <camunda:executionListener event="start"
        expression="${execution.setVariable('heard', true)}"/>
      <camunda:inputOutput><camunda:inputParameter name="mapped">in</camunda:inputParameter>
      </camunda:inputOutput>
    </extensionElements>
  </userTask>
  <sequenceFlow id="f3" sourceRef="second" targetRef="e"/><endEvent id="e"/>
</process></definitions>"""
)

# s -> items (parallel multi-instance user task, 3 instances) -> e
MULTI = (
    HEAD
    + b"""<process id="multi" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="items"/>
  <userTask id="items">
    <multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality>
    </multiInstanceLoopCharacteristics>
  </userTask>
  <sequenceFlow id="f2" sourceRef="items" targetRef="e"/><endEvent id="e"/>
</process></definitions>"""
)

# s -> later (asyncBefore) -> e
ASYNC = (
    HEAD
    + b"""<process id="async" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="later"/>
  <userTask id="later" camunda:asyncBefore="true"/>
  <sequenceFlow id="f2" sourceRef="later" targetRef="e"/><endEvent id="e"/>
</process></definitions>"""
)

OPERATOR = "demo"


@pytest.fixture
def engine(tmp_path: Any, clock: ControllableClock) -> Iterator[Engine]:
    with (
        fresh_database(selected_kind(), tmp_path) as url,
        Engine(url, clock=clock, history_level="full") as engine,
    ):
        engine.deploy(
            {
                "sub.bpmn": SUBPROCESS,
                "parallel.bpmn": PARALLEL,
                "listened.bpmn": LISTENED,
                "multi.bpmn": MULTI,
                "async.bpmn": ASYNC,
            }
        )
        yield engine


def tree(engine: Engine, instance: str) -> list[str]:
    """The activity instance tree as indented activity ids (transition instances marked)."""

    def walk(node: views.ActivityInstanceNode, depth: int) -> list[str]:
        lines = [f"{'  ' * depth}{node.activity_id}"]
        for t in node.child_transition_instances:
            lines.append(f"{'  ' * (depth + 1)}{t.activity_id} (waiting)")
        for child in sorted(node.child_activity_instances, key=lambda c: c.activity_id):
            lines += walk(child, depth + 1)
        return lines

    root = engine.runtime_service.activity_instance_tree(instance)
    return [line[2:] for line in walk(root, 0)[1:]]


def instances_of(engine: Engine, instance: str, activity_id: str) -> list[str]:
    found: list[str] = []

    def walk(node: views.ActivityInstanceNode) -> None:
        if node.activity_id == activity_id:
            found.append(node.id)
        for child in node.child_activity_instances:
            walk(child)

    walk(engine.runtime_service.activity_instance_tree(instance))
    return found


def task_keys(engine: Engine, instance: str) -> list[str]:
    return sorted(t.task_definition_key for t in engine.tasks(process_instance_id=instance))


def history_rows(engine: Engine, table: sa.Table, **where: Any) -> list[dict[str, Any]]:
    with engine.reading() as conn:
        stmt = sa.select(table).where(*(table.c[k] == v for k, v in where.items()))
        return [dict(r._mapping) for r in conn.execute(stmt)]


def modification(engine: Engine, instance: str) -> Any:
    return engine.runtime_service.create_process_instance_modification(instance)


# -- starting -------------------------------------------------------------------------------------


def test_start_before_an_activity_in_a_subprocess_that_is_not_active_creates_its_scope(
    engine: Engine,
) -> None:
    pid = engine.start_process_instance("sub").id
    modification(engine, pid).start_before_activity("inner").set_variable("fixed", 1).execute(
        actor=OPERATOR
    )
    assert tree(engine, pid) == ["a", "subProcess", "  inner"]
    assert task_keys(engine, pid) == ["a", "inner"]
    assert engine.runtime_service.get_variable(pid, "fixed") == 1
    # the new branch runs on: finishing it leaves the instance with `a` only
    inner = next(
        t for t in engine.tasks(process_instance_id=pid) if t.task_definition_key == "inner"
    )
    engine.complete_task(inner.id)
    assert tree(engine, pid) == ["a"]
    assert_log_and_tables_agree(engine)


def test_start_before_with_an_ancestor_picks_one_of_two_subprocess_instances(
    engine: Engine,
) -> None:
    pid = engine.start_process_instance("sub").id
    modification(engine, pid).start_before_activity("subProcess").start_before_activity(
        "subProcess"
    ).execute()
    first, second = instances_of(engine, pid, "subProcess")
    with pytest.raises(Rejected, match="ambiguous for activity 'subProcess'"):
        modification(engine, pid).start_before_activity("inner").execute()
    modification(engine, pid).start_before_activity("inner", second).execute()
    inners = instances_of(engine, pid, "inner")
    assert len(inners) == 3
    tree_now = engine.runtime_service.activity_instance_tree(pid)
    by_id = {c.id: c for c in tree_now.child_activity_instances}
    assert len(by_id[second].child_activity_instances) == 2
    assert len(by_id[first].child_activity_instances) == 1


def test_start_after_an_activity_takes_its_one_outgoing_flow(engine: Engine) -> None:
    pid = engine.start_process_instance("sub").id
    modification(engine, pid).start_after_activity("a").execute()
    assert tree(engine, pid) == ["a", "subProcess", "  inner"]
    started = [e.payload for e in engine.events(pid) if e.type == "ActivityStarted"]
    entered = [p["flow_id"] for p in started if p["activity_id"] == "subProcess"]
    assert entered == ["f2"]  # the subprocess, entered through f2


def test_start_a_transition(engine: Engine) -> None:
    pid = engine.start_process_instance("sub").id
    modification(engine, pid).start_transition("g2").execute()  # into the subprocess's end
    # the new subprocess instance ends at once (its token reached `se`) and the flow goes on to
    # the process's end: the instance ends there (completed, since it reached an end event)
    assert tree(engine, pid) == ["a"]
    history = history_rows(engine, ACT_HI_ACTINST, PROC_INST_ID_=pid, ACT_ID_="se")
    assert len(history) == 1 and history[0]["END_TIME_"] is not None


def test_start_after_an_activity_with_two_outgoing_flows_is_refused(engine: Engine) -> None:
    pid = engine.start_process_instance("parallel").id
    before = len(engine.events(pid))
    with pytest.raises(Rejected, match="more than one outgoing sequence flow"):
        modification(engine, pid).start_after_activity("fork").execute()
    assert len(engine.events(pid)) == before


def test_a_token_started_before_an_async_activity_waits_for_its_job(engine: Engine) -> None:
    pid = engine.start_process_instance("async").id
    assert tree(engine, pid) == ["later (waiting)"]
    modification(engine, pid).start_before_activity("later").execute()
    assert tree(engine, pid) == ["later (waiting)", "later (waiting)"]
    waiting = engine.runtime_service.activity_instance_tree(pid).child_transition_instances
    modification(engine, pid).cancel_transition_instance(waiting[0].id).execute()
    assert tree(engine, pid) == ["later (waiting)"]
    assert len(engine.management_service.jobs(process_instance_id=pid)) == 1


# -- cancelling -----------------------------------------------------------------------------------


def test_cancel_one_branch_of_a_parallel_join_and_start_after_the_join(engine: Engine) -> None:
    pid = engine.start_process_instance("parallel").id
    (t2,) = instances_of(engine, pid, "t2")
    modification(engine, pid).cancel_activity_instance(t2).start_after_activity("join").execute(
        annotation="t2 was a mistake"
    )
    assert tree(engine, pid) == ["after", "t1"]
    # t1 goes on to the join and waits there for a branch that will never come
    t1 = next(t for t in engine.tasks(process_instance_id=pid) if t.task_definition_key == "t1")
    engine.complete_task(t1.id)
    assert tree(engine, pid) == ["after", "join"]
    cancelled = history_rows(engine, ACT_HI_ACTINST, ID_=t2)
    assert cancelled[0]["ACT_INST_STATE_"] == 2 and cancelled[0]["END_TIME_"] is not None


def test_cancel_every_instance_of_an_activity(engine: Engine) -> None:
    pid = engine.start_process_instance("multi").id
    assert len(instances_of(engine, pid, "items")) == 3
    modification(engine, pid).cancel_all_for_activity("items").start_after_activity(
        "items#multiInstanceBody"
    ).execute()
    ended = history_rows(engine, ACT_HI_PROCINST, ID_=pid)[0]
    assert ended["STATE_"] == "COMPLETED"
    cancelled = history_rows(engine, ACT_HI_ACTINST, PROC_INST_ID_=pid, ACT_ID_="items")
    assert [r["ACT_INST_STATE_"] for r in cancelled] == [2, 2, 2]


def test_cancelling_one_inner_instance_of_a_parallel_multi_instance_counts_it_out(
    engine: Engine,
) -> None:
    pid = engine.start_process_instance("multi").id
    first = instances_of(engine, pid, "items")[0]
    modification(engine, pid).cancel_activity_instance(first).execute()
    counts = [
        values
        for execution in engine.runtime_service.executions(pid)
        if "nrOfInstances"
        in (values := engine.runtime_service.get_variables(execution.id, local=True))
    ]
    assert [(v["nrOfInstances"], v["nrOfActiveInstances"]) for v in counts] == [(2, 2)]
    for task in engine.tasks(process_instance_id=pid):
        engine.complete_task(task.id)
    assert history_rows(engine, ACT_HI_PROCINST, ID_=pid)[0]["STATE_"] == "COMPLETED"


def test_cancelling_the_last_activity_in_a_subprocess_cancels_the_subprocess(
    engine: Engine,
) -> None:
    pid = engine.start_process_instance("sub").id
    modification(engine, pid).start_before_activity("inner").execute()
    (inner,) = instances_of(engine, pid, "inner")
    (sub,) = instances_of(engine, pid, "subProcess")
    modification(engine, pid).cancel_activity_instance(inner).execute()
    assert tree(engine, pid) == ["a"]
    assert history_rows(engine, ACT_HI_ACTINST, ID_=sub)[0]["ACT_INST_STATE_"] == 2


def test_an_instance_left_with_nothing_running_ends_externally_terminated(
    engine: Engine,
) -> None:
    pid = engine.start_process_instance("sub").id
    modification(engine, pid).cancel_all_for_activity("a").execute(actor=OPERATOR)
    instance = engine.runtime_service.process_instance(pid)
    assert instance is None or instance.ended
    row = history_rows(engine, ACT_HI_PROCINST, ID_=pid)[0]
    assert row["STATE_"] == "EXTERNALLY_TERMINATED"
    assert row["END_TIME_"] is not None


def test_cancel_everything_then_start_elsewhere_keeps_the_instance(engine: Engine) -> None:
    pid = engine.start_process_instance("sub").id
    modification(engine, pid).cancel_all_for_activity("a").start_before_activity("inner").execute()
    assert tree(engine, pid) == ["subProcess", "  inner"]
    assert history_rows(engine, ACT_HI_PROCINST, ID_=pid)[0]["END_TIME_"] is None


def test_cancel_current_active_instances_only_spares_what_the_modification_started(
    engine: Engine,
) -> None:
    pid = engine.start_process_instance("parallel").id
    engine.runtime_service.modify_process_instance(
        pid,
        [
            cmd.StartBeforeActivity(activity_id="t1"),
            cmd.CancelAllForActivity(
                activity_id="t1", cancel_current_active_activity_instances_only=True
            ),
        ],
    )
    assert tree(engine, pid) == ["t1", "t2"]  # the old t1 gone, the new one kept


# -- skipping listeners and mappings --------------------------------------------------------------


def test_start_listeners_and_input_mappings_run_unless_skipped(engine: Engine) -> None:
    heard = engine.start_process_instance("listened").id
    modification(engine, heard).start_before_activity("second").execute()
    assert engine.runtime_service.get_variable(heard, "heard") is True
    second = engine.tasks(process_instance_id=heard, task_definition_key="second")[0]
    assert engine.runtime_service.get_variables(second.execution_id, local=True) == {"mapped": "in"}

    skipped = engine.start_process_instance("listened").id
    modification(engine, skipped).start_before_activity("second").execute(
        skip_custom_listeners=True, skip_io_mappings=True
    )
    assert "heard" not in engine.runtime_service.get_variables(skipped)
    second = engine.tasks(process_instance_id=skipped, task_definition_key="second")[0]
    assert engine.runtime_service.get_variables(second.execution_id, local=True) == {}
    modified = [e for e in engine.events(skipped) if e.type == "ProcessInstanceModified"]
    assert modified[0].payload["skip_custom_listeners"] is True


# -- the record -----------------------------------------------------------------------------------


def test_the_modification_is_recorded_with_the_operator_and_annotation(engine: Engine) -> None:
    pid = engine.start_process_instance("sub").id
    (a,) = instances_of(engine, pid, "a")
    modification(engine, pid).start_before_activity("inner").cancel_activity_instance(a).execute(
        annotation="INC-42: a was stuck", actor=OPERATOR
    )
    events = engine.events(pid)
    record = next(e for e in events if e.type == "ProcessInstanceModified")
    assert record.payload["instructions"] == [
        "Start before activity 'inner'",
        f"Cancel activity instance '{a}'",
    ]
    assert record.payload["annotation"] == "INC-42: a was stuck"
    same_commit = [e for e in events if e.position > record.position and e.actor == OPERATOR]
    assert {"ActivityStarted", "ActivityCanceled", "TaskDeleted"} <= {e.type for e in same_commit}
    (entry,) = history_rows(engine, ACT_HI_OP_LOG, PROC_INST_ID_=pid)[-1:]
    assert entry["OPERATION_TYPE_"] == "ModifyProcessInstance"
    assert entry["ENTITY_TYPE_"] == "ProcessInstance"
    assert entry["USER_ID_"] == OPERATOR
    assert entry["ANNOTATION_"] == "INC-42: a was stuck"
    assert_log_and_tables_agree(engine)


def test_time_travel_shows_the_instance_before_and_after_the_modification(
    engine: Engine,
) -> None:
    pid = engine.start_process_instance("sub").id
    modification(engine, pid).cancel_all_for_activity("a").start_before_activity("inner").execute(
        actor=OPERATOR
    )
    record = next(e for e in engine.events(pid) if e.type == "ProcessInstanceModified")
    before = engine.replay(pid, until_position=record.position - 1)
    after = engine.replay(pid)
    assert before is not None and after is not None
    assert {ai.activity_id for ai in before.activity_instances.values()} == {"a"}
    assert {ai.activity_id for ai in after.activity_instances.values()} == {"subProcess", "inner"}


def test_modifying_many_instances_of_a_definition_logs_one_entry(engine: Engine) -> None:
    ids = [engine.start_process_instance("sub").id for _ in range(3)]
    definition = engine.runtime_service.process_instance(ids[0])
    assert definition is not None
    engine.runtime_service.modify_process_instances(
        definition.definition_id,
        ids,
        [cmd.CancelAllForActivity(activity_id="a"), cmd.StartBeforeActivity(activity_id="inner")],
        actor=OPERATOR,
        annotation="bulk",
    )
    for pid in ids:
        assert tree(engine, pid) == ["subProcess", "  inner"]
    entries = history_rows(engine, ACT_HI_OP_LOG, OPERATION_TYPE_="ModifyProcessInstance")
    assert {(e["PROPERTY_"], e["NEW_VALUE_"]) for e in entries} == {
        ("nrOfInstances", "3"),
        ("async", "false"),
    }
    assert {e["ANNOTATION_"] for e in entries} == {"bulk"}
    assert_log_and_tables_agree(engine)


# -- bad input changes nothing --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instruction", "message"),
    [
        (
            cmd.StartBeforeActivity(activity_id="nowhere"),
            "Start before activity 'nowhere'; Element 'nowhere' does not exist in process 'sub'",
        ),
        (
            cmd.StartTransition(transition_id="f9"),
            "Element 'f9' does not exist",
        ),
        (
            cmd.CancelActivityInstance(activity_instance_id="a:missing"),
            "Activity instance 'a:missing' does not exist",
        ),
        (
            cmd.StartBeforeActivity(activity_id="inner", ancestor_activity_instance_id="x:1"),
            "Ancestor activity instance 'x:1' does not exist",
        ),
        (
            cmd.CancelTransitionInstance(transition_instance_id="t-9"),
            "Transition instance 't-9' does not exist",
        ),
    ],
)
def test_a_bad_instruction_names_the_problem_and_changes_nothing(
    engine: Engine, instruction: cmd.ModificationInstruction, message: str
) -> None:
    pid = engine.start_process_instance("sub").id
    before = engine.events(pid)
    with pytest.raises(Rejected, match=message.replace("(", r"\(")):
        engine.runtime_service.modify_process_instance(
            pid, [cmd.StartBeforeActivity(activity_id="inner"), instruction]
        )
    assert engine.events(pid) == before
    assert tree(engine, pid) == ["a"]


def test_an_ancestor_outside_the_targets_scopes_is_refused(engine: Engine) -> None:
    pid = engine.start_process_instance("sub").id
    (a,) = instances_of(engine, pid, "a")
    with pytest.raises(Rejected, match=f"Scope execution for '{a}' cannot be found"):
        modification(engine, pid).start_before_activity("inner", a).execute()


def test_a_missing_or_ended_instance_is_named(engine: Engine) -> None:
    with pytest.raises(NotFound, match="nope"):
        modification(engine, "nope").start_before_activity("a").execute()
    pid = engine.start_process_instance("sub").id
    engine.runtime_service.delete_process_instance(pid)
    with pytest.raises(NotFound, match=pid):
        modification(engine, pid).start_before_activity("a").execute()


def test_a_suspended_instance_is_not_modified(engine: Engine) -> None:
    pid = engine.start_process_instance("sub").id
    engine.runtime_service.suspend_process_instance(pid)
    with pytest.raises(Rejected, match="suspended"):
        modification(engine, pid).start_before_activity("inner").execute()


# -- the element kinds a modification meets ------------------------------------------------------

# s -> work (boundary timer `late` -> lateEnd; interrupting) -> e; an interrupting message event
# subprocess `escalate` (msgStart -> handle -> escEnd) and a non-interrupting one `notify`
# (noteStart -> note -> noteEnd); a message catch `waitMsg` after `work`.
EVENTS = (
    HEAD
    + b"""<message id="m1" name="escalate"/><message id="m2" name="note"/>
<message id="m3" name="go"/>
<process id="events" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <userTask id="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="waitMsg"/>
  <boundaryEvent id="late" attachedToRef="work">
    <timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>
  </boundaryEvent>
  <sequenceFlow id="f3" sourceRef="late" targetRef="lateTask"/>
  <userTask id="lateTask"/><sequenceFlow id="f3b" sourceRef="lateTask" targetRef="lateEnd"/>
  <endEvent id="lateEnd"/>
  <intermediateCatchEvent id="waitMsg"><messageEventDefinition messageRef="m3"/>
  </intermediateCatchEvent>
  <sequenceFlow id="f4" sourceRef="waitMsg" targetRef="e"/><endEvent id="e"/>
  <subProcess id="escalate" triggeredByEvent="true">
    <startEvent id="msgStart"><messageEventDefinition messageRef="m1"/></startEvent>
    <sequenceFlow id="g1" sourceRef="msgStart" targetRef="handle"/>
    <userTask id="handle"/><sequenceFlow id="g2" sourceRef="handle" targetRef="escEnd"/>
    <endEvent id="escEnd"/>
  </subProcess>
  <subProcess id="notify" triggeredByEvent="true">
    <startEvent id="noteStart" isInterrupting="false"><messageEventDefinition messageRef="m2"/>
    </startEvent>
    <sequenceFlow id="h1" sourceRef="noteStart" targetRef="note"/>
    <userTask id="note"/><sequenceFlow id="h2" sourceRef="note" targetRef="noteEnd"/>
    <endEvent id="noteEnd"/>
  </subProcess>
</process></definitions>"""
)

# s -> call (calls `sub`) -> e
CALLER = (
    HEAD
    + b"""<process id="caller" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="call"/>
  <callActivity id="call" calledElement="sub"/>
  <sequenceFlow id="f2" sourceRef="call" targetRef="done"/>
  <userTask id="done"/><sequenceFlow id="f3" sourceRef="done" targetRef="e"/><endEvent id="e"/>
</process></definitions>"""
)


@pytest.fixture
def events_engine(engine: Engine) -> Engine:
    engine.deploy({"events.bpmn": EVENTS, "caller.bpmn": CALLER})
    return engine


def test_starting_before_an_activity_with_a_boundary_timer_schedules_the_timer(
    events_engine: Engine,
) -> None:
    engine = events_engine
    pid = engine.start_process_instance("events").id
    modification(engine, pid).start_before_activity("work").execute()
    jobs = engine.management_service.jobs(process_instance_id=pid)
    assert sorted(j.activity_id for j in jobs) == ["late", "late"]
    # cancelling both takes their timers along, and the instance ends with nothing left
    modification(engine, pid).cancel_all_for_activity("work").start_before_activity(
        "waitMsg"
    ).execute()
    assert engine.management_service.jobs(process_instance_id=pid) == []
    assert tree(engine, pid) == ["waitMsg"]
    subscriptions = engine.runtime_service.event_subscriptions(process_instance_id=pid)
    assert {s.event_name for s in subscriptions} == {"go", "escalate", "note"}


def test_starting_an_interrupting_boundary_event_cancels_the_activity_it_sits_on(
    events_engine: Engine,
) -> None:
    engine = events_engine
    pid = engine.start_process_instance("events").id
    modification(engine, pid).start_before_activity("late").execute()
    assert tree(engine, pid) == ["lateTask"]
    assert engine.management_service.jobs(process_instance_id=pid) == []


def test_starting_an_interrupting_event_subprocess_takes_the_scope_over(
    events_engine: Engine,
) -> None:
    engine = events_engine
    pid = engine.start_process_instance("events").id
    modification(engine, pid).start_before_activity("msgStart").execute()
    assert tree(engine, pid) == ["escalate", "  handle"]


def test_starting_a_non_interrupting_event_subprocess_runs_beside(events_engine: Engine) -> None:
    engine = events_engine
    pid = engine.start_process_instance("events").id
    modification(engine, pid).start_before_activity("notify").execute()
    assert tree(engine, pid) == ["notify", "  note", "work"]


def test_starting_inside_an_event_subprocess_does_not_interrupt(events_engine: Engine) -> None:
    engine = events_engine
    pid = engine.start_process_instance("events").id
    modification(engine, pid).start_before_activity("handle").execute()
    assert tree(engine, pid) == ["escalate", "  handle", "work"]


def test_cancelling_a_call_activity_cancels_the_called_instance(events_engine: Engine) -> None:
    engine = events_engine
    pid = engine.start_process_instance("caller").id
    (called,) = [
        r["ID_"]
        for r in history_rows(engine, ACT_HI_PROCINST, PROC_DEF_KEY_="sub")
        if r["SUPER_PROCESS_INSTANCE_ID_"] == pid
    ]
    modification(engine, pid).cancel_all_for_activity("call").start_before_activity(
        "done"
    ).execute()
    assert tree(engine, pid) == ["done"]
    row = history_rows(engine, ACT_HI_PROCINST, ID_=called)[0]
    assert row["END_TIME_"] is not None


def test_starting_an_inner_multi_instance_activity_without_its_body_creates_one(
    engine: Engine,
) -> None:
    pid = engine.start_process_instance("sub").id
    engine.deploy({"multi2.bpmn": MULTI.replace(b'id="multi"', b'id="multi2"')})
    other = engine.start_process_instance("multi2").id
    modification(engine, other).cancel_all_for_activity(
        "items#multiInstanceBody"
    ).start_before_activity("items").execute()
    assert tree(engine, other) == ["items#multiInstanceBody", "  items"]
    (task,) = engine.tasks(process_instance_id=other)
    engine.complete_task(task.id)  # the one instance was all: the body completes
    assert history_rows(engine, ACT_HI_PROCINST, ID_=other)[0]["STATE_"] == "COMPLETED"
    del pid


def test_starting_one_more_parallel_instance_counts_it_in(engine: Engine) -> None:
    pid = engine.start_process_instance("multi").id
    modification(engine, pid).start_before_activity("items").execute()
    assert len(instances_of(engine, pid, "items")) == 4
    for task in engine.tasks(process_instance_id=pid):
        engine.complete_task(task.id)
    assert history_rows(engine, ACT_HI_PROCINST, ID_=pid)[0]["STATE_"] == "COMPLETED"


def test_an_instruction_after_the_instance_ended_is_refused_whole(engine: Engine) -> None:
    pid = engine.start_process_instance("sub").id
    before = engine.events(pid)
    with pytest.raises(
        Rejected, match=r"ended with instruction 2 of 3 \(Start before activity 'e'\)"
    ):
        modification(engine, pid).cancel_all_for_activity("a").start_before_activity(
            "e"
        ).start_before_activity("a").execute()
    assert engine.events(pid) == before


ENDING = (
    HEAD
    + b"""<process id="ending" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
  <userTask id="t">
    <extensionElements>
      <camunda:executionListener event="end"
        expression="${execution.setVariable('said', 'goodbye')}"/>
    </extensionElements>
  </userTask>
  <sequenceFlow id="f2" sourceRef="t" targetRef="e"/><endEvent id="e"/>
</process></definitions>"""
)


@pytest.mark.parametrize("skip", [False, True])
def test_deleting_an_instance_runs_end_listeners_unless_skipped(engine: Engine, skip: bool) -> None:
    engine.deploy({"ending.bpmn": ENDING})
    pid = engine.start_process_instance("ending").id
    engine.runtime_service.delete_process_instance(pid, "wrong order", skip_custom_listeners=skip)
    said = history_rows(engine, ACT_HI_VARINST, PROC_INST_ID_=pid, NAME_="said")
    assert [r["TEXT_"] for r in said] == ([] if skip else ["goodbye"])


def test_a_non_interrupting_event_subprocess_started_in_an_empty_instance_runs_on_it(
    events_engine: Engine,
) -> None:
    """The stateful test's find: restarting an instance before such an event subprocess's start
    left a token at no activity."""
    engine = events_engine
    old = engine.start_process_instance("events").id
    engine.runtime_service.delete_process_instance(old)
    definition = history_rows(engine, ACT_HI_PROCINST, ID_=old)[0]["PROC_DEF_ID_"]
    (new,) = engine.runtime_service.restart_process_instances(
        definition, [old], [cmd.StartBeforeActivity(activity_id="noteStart")]
    )
    assert tree(engine, new) == ["notify", "  note"]
    (task,) = engine.tasks(process_instance_id=new)
    engine.complete_task(task.id)  # the event subprocess was all: the instance completes
    assert history_rows(engine, ACT_HI_PROCINST, ID_=new)[0]["STATE_"] == "COMPLETED"
    assert_log_and_tables_agree(engine)


# s -> work -> e, beside a non-interrupting conditional event subprocess on ${go}
CONDITIONAL = (
    HEAD
    + b"""<process id="conditional" isExecutable="true">
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <userTask id="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/><endEvent id="e"/>
  <subProcess id="watch" triggeredByEvent="true">
    <startEvent id="held" isInterrupting="false">
      <conditionalEventDefinition><condition>${go}</condition></conditionalEventDefinition>
    </startEvent>
    <sequenceFlow id="h1" sourceRef="held" targetRef="note"/>
    <userTask id="note"/><sequenceFlow id="h2" sourceRef="note" targetRef="noteEnd"/>
    <endEvent id="noteEnd"/>
  </subProcess>
</process></definitions>"""
)


def test_a_restart_before_a_conditional_event_subprocess_leaves_no_token_idle(
    engine: Engine,
) -> None:
    """The heavy stateful run's find: the restarted instance's conditional event subprocesses
    were evaluated before its first instruction, when nothing ran in it, and a token was left
    at no activity."""
    engine.deploy({"conditional.bpmn": CONDITIONAL})
    old = engine.start_process_instance("conditional", {"go": False}).id
    engine.runtime_service.set_variables(old, {"go": True})  # the event subprocess runs once
    engine.runtime_service.delete_process_instance(old)
    definition = history_rows(engine, ACT_HI_PROCINST, ID_=old)[0]["PROC_DEF_ID_"]
    (new,) = engine.runtime_service.restart_process_instances(
        definition, [old], [cmd.StartBeforeActivity(activity_id="held")]
    )
    state = engine.replay(new)
    assert state is not None
    for execution in state.executions.values():
        if not execution.children:  # every leaf is at an activity
            assert execution.activity_instance_id is not None, execution
    for task in engine.tasks(process_instance_id=new):
        engine.complete_task(task.id)
    assert history_rows(engine, ACT_HI_PROCINST, ID_=new)[0]["STATE_"] == "COMPLETED"
    assert_log_and_tables_agree(engine)


def test_a_modification_of_more_instances_than_one_command_holds_is_refused(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    import flowledger.engine.commands.handlers.modification as handler

    monkeypatch.setattr(handler, "MAX_INSTANCES_PER_COMMAND", 2)
    ids = [engine.start_process_instance("sub").id for _ in range(3)]
    definition = engine.runtime_service.process_instance(ids[0])
    assert definition is not None
    with pytest.raises(Rejected, match="3 process instances in one modification; at most 2"):
        engine.runtime_service.modify_process_instances(
            definition.definition_id, ids, [cmd.StartBeforeActivity(activity_id="inner")]
        )
    for pid in ids:
        assert tree(engine, pid) == ["a"]
