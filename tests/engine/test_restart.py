"""Restarting ended instances (Camunda's RestartProcessInstanceSyncTest): a new instance of the
same definition started by instructions, with the ended one's last (or initial) variables and
business key read from the log, at every history level; refusals change nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine
from flowledger.core import commands as cmd
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.variables import StoredValue, typed
from flowledger.projections.tables import ACT_HI_OP_LOG, ACT_HI_PROCINST
from tests.core.test_admin_commands import assert_log_and_tables_agree
from tests.support import bpmn, fresh_database, selected_kind

MODEL = bpmn("restart_two_tasks.bpmn")
KEY = "restartTwoTasks"


@pytest.fixture
def deployed(engine: Engine) -> Engine:
    engine.deploy(MODEL)
    return engine


def cancelled(engine: Engine, variables: dict[str, Any], business_key: str | None = None) -> str:
    """An instance started with `variables`, changed (amount 20, note added), then deleted
    while it waited at its first task (whose listener set listenerRan)."""
    pi = engine.start_process_instance(KEY, variables, business_key=business_key)
    engine.runtime_service.set_variables(pi.id, {"amount": 20, "note": "changed"})
    engine.runtime_service.delete_process_instance(pi.id, "cancelled by mistake")
    return pi.id


def definition_of(engine: Engine, instance_id: str) -> str:
    return engine.history_service.historic_process_instance(instance_id).process_definition_id


def tasks_of(engine: Engine, instance_id: str) -> list[str]:
    return [t.task_definition_key for t in engine.tasks(process_instance_id=instance_id)]


def procinst(engine: Engine, instance_id: str) -> dict[str, Any]:
    with engine.reading() as conn:
        row = conn.execute(
            sa.select(ACT_HI_PROCINST).where(ACT_HI_PROCINST.c.ID_ == instance_id)
        ).one()
    return dict(row._mapping)


def instance_count(engine: Engine) -> int:
    with engine.reading() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(ACT_HI_PROCINST)).scalar_one()


def before(activity_id: str) -> list[cmd.StartInstruction]:
    return [cmd.StartBeforeActivity(activity_id=activity_id)]


def test_a_cancelled_instance_restarted_before_an_activity_waits_there_with_its_last_variables(
    deployed: Engine,
) -> None:
    engine = deployed
    old = cancelled(engine, {"amount": 10, "when": typed("Short", 3)}, business_key="order-1")
    definition = definition_of(engine, old)

    [new] = engine.runtime_service.restart_process_instances(definition, [old], before("user2"))

    assert new != old
    assert tasks_of(engine, new) == ["user2"]
    # the ones it had when it was deleted (its first task's listener had run)
    assert engine.runtime_service.get_variables(new) == {
        "amount": 20,
        "note": "changed",
        "when": 3,
        "listenerRan": True,
    }
    # as recorded: the Short is no Integer now
    assert engine.runtime_service.get_variables_typed(new)["when"] == (3, "Short")
    row = procinst(engine, new)
    assert row["BUSINESS_KEY_"] == "order-1"
    assert row["RESTARTED_PROC_INST_ID_"] == old
    assert row["START_ACT_ID_"] == "user2"  # Camunda's: the first instruction's activity
    assert row["STATE_"] == "ACTIVE"
    # its event subprocess waits, as at a start
    [subscription] = engine.runtime_service.event_subscriptions(process_instance_id=new)
    assert subscription.event_name == "cancelRequest"
    # the old instance is left as it was
    assert procinst(engine, old)["STATE_"] == "EXTERNALLY_TERMINATED"


def test_with_initial_variables_the_ones_it_was_started_with(deployed: Engine) -> None:
    engine = deployed
    old = cancelled(engine, {"amount": 10})

    [new] = engine.runtime_service.restart_process_instances(
        definition_of(engine, old), [old], before("user1"), initial_variables=True
    )

    variables = engine.runtime_service.get_variables(new)
    assert variables["amount"] == 10
    assert "note" not in variables


def test_without_business_key(deployed: Engine) -> None:
    engine = deployed
    old = cancelled(engine, {}, business_key="order-2")

    [kept] = engine.runtime_service.restart_process_instances(
        definition_of(engine, old), [old], before("user2")
    )
    [dropped] = engine.runtime_service.restart_process_instances(
        definition_of(engine, old), [old], before("user2"), without_business_key=True
    )

    assert procinst(engine, kept)["BUSINESS_KEY_"] == "order-2"
    assert procinst(engine, dropped)["BUSINESS_KEY_"] is None


def test_a_completed_instance_restarted_after_an_activity_and_at_a_transition(
    deployed: Engine,
) -> None:
    engine = deployed
    pi = engine.start_process_instance(KEY, {"amount": 1})
    for key in ("user1", "user2"):
        [task] = engine.tasks(process_instance_id=pi.id)
        assert task.task_definition_key == key
        engine.complete_task(task.id)
    assert procinst(engine, pi.id)["STATE_"] == "COMPLETED"
    definition = definition_of(engine, pi.id)

    [after] = engine.runtime_service.restart_process_instances(
        definition, [pi.id], [cmd.StartAfterActivity(activity_id="user1")]
    )
    [transition] = engine.runtime_service.restart_process_instances(
        definition, [pi.id], [cmd.StartTransition(transition_id="f2")]
    )

    assert tasks_of(engine, after) == ["user2"]
    assert tasks_of(engine, transition) == ["user2"]
    assert procinst(engine, after)["START_ACT_ID_"] == "user2"
    # listeners and mappings of the first task ran in the original instance: its variables
    assert engine.runtime_service.get_variables(after) == {"amount": 1, "listenerRan": True}


def test_listeners_and_input_mappings_run_unless_skipped(deployed: Engine) -> None:
    engine = deployed
    old = cancelled(engine, {})
    definition = definition_of(engine, old)

    # with the variables it started with (none): listenerRan only if the listener runs now
    [plain] = engine.runtime_service.restart_process_instances(
        definition, [old], before("user1"), initial_variables=True
    )
    [skipped] = engine.runtime_service.restart_process_instances(
        definition,
        [old],
        before("user1"),
        initial_variables=True,
        skip_custom_listeners=True,
        skip_io_mappings=True,
    )

    [plain_task] = engine.tasks(process_instance_id=plain)
    assert engine.runtime_service.get_variable(plain, "listenerRan") is True
    assert engine.runtime_service.get_variables(plain_task.execution_id, local=True) == {
        "mapped": "yes"
    }
    [skipped_task] = engine.tasks(process_instance_id=skipped)
    assert "listenerRan" not in engine.runtime_service.get_variables(skipped)
    assert engine.runtime_service.get_variables(skipped_task.execution_id, local=True) == {}


def test_several_instances_in_one_call_each_with_its_own_variables(deployed: Engine) -> None:
    engine = deployed
    first = engine.start_process_instance(KEY, {"n": 1}, business_key="a").id
    second = engine.start_process_instance(KEY, {"n": 2}, business_key="b").id
    for pi in (first, second):
        engine.runtime_service.delete_process_instance(pi)

    new = engine.runtime_service.restart_process_instances(
        definition_of(engine, first), [first, second, first], before("user2")
    )

    assert len(new) == 2  # named twice, restarted once (Camunda collects the ids in a set)
    assert [engine.runtime_service.get_variable(i, "n") for i in new] == [1, 2]
    assert [procinst(engine, i)["RESTARTED_PROC_INST_ID_"] for i in new] == [first, second]
    assert [procinst(engine, i)["BUSINESS_KEY_"] for i in new] == ["a", "b"]


def test_a_running_instance_is_refused_and_nothing_is_restarted(deployed: Engine) -> None:
    engine = deployed
    ended = cancelled(engine, {})
    running = engine.start_process_instance(KEY).id
    count = instance_count(engine)

    with pytest.raises(Rejected, match=f"'{running}' cannot be restarted. It is not completed"):
        engine.runtime_service.restart_process_instances(
            definition_of(engine, ended), [ended, running], before("user2")
        )

    assert instance_count(engine) == count
    assert tasks_of(engine, running) == ["user1"]


@pytest.mark.parametrize(
    ("ids", "instructions", "message"),
    [
        (["nope"], before("user2"), "Historic process instance 'nope' cannot be found"),
        ([], before("user2"), "Process instance ids cannot be empty"),
        (["OLD"], [], "Restart instructions cannot be empty"),
        (["OLD"], before("noSuchTask"), "Element 'noSuchTask' does not exist in process"),
        (
            ["OLD"],
            [*before("end"), *before("user2")],
            "Start before activity 'user2'; the instance ended with instruction 1 of",
        ),
    ],
    ids=["unknown", "no ids", "no instructions", "unknown activity", "ended on the way"],
)
def test_bad_requests_are_refused_naming_the_problem(
    deployed: Engine, ids: list[str], instructions: list[cmd.StartInstruction], message: str
) -> None:
    engine = deployed
    old = cancelled(engine, {})
    count = instance_count(engine)

    with pytest.raises(Rejected, match=message):
        engine.runtime_service.restart_process_instances(
            definition_of(engine, old), [old if i == "OLD" else i for i in ids], instructions
        )

    assert instance_count(engine) == count


def test_an_instance_whose_history_was_deleted_cannot_be_found(deployed: Engine) -> None:
    engine = deployed
    old = cancelled(engine, {})
    definition = definition_of(engine, old)
    engine.history_service.delete_historic_process_instance(old)

    with pytest.raises(Rejected, match=f"Historic process instance '{old}' cannot be found"):
        engine.runtime_service.restart_process_instances(definition, [old], before("user2"))


def test_an_instance_of_another_definition_or_an_unknown_definition_is_refused(
    deployed: Engine,
) -> None:
    engine = deployed
    old = cancelled(engine, {})
    engine.deploy(bpmn("rest_pi_wait.bpmn"))
    other = engine.start_process_instance("restPiWait").id
    other_definition = definition_of(engine, other)

    with pytest.raises(
        Rejected, match=f"does not match given process definition '{other_definition}'"
    ):
        engine.runtime_service.restart_process_instances(other_definition, [old], before("review"))
    with pytest.raises(NotFound, match="Process definition 'nope:1:x' not found"):
        engine.runtime_service.restart_process_instances("nope:1:x", [old], before("user2"))


@pytest.fixture
def without_history(tmp_path: Any, clock: ControllableClock) -> Iterator[Engine]:
    with (
        fresh_database(selected_kind(), tmp_path) as url,
        Engine(url, clock=clock, history_level="none") as engine,
    ):
        engine.deploy(MODEL)
        yield engine


def test_at_history_level_none_the_variables_come_from_the_log(without_history: Engine) -> None:
    engine = without_history
    old = engine.start_process_instance(KEY, {"amount": 10}).id
    definition = engine.runtime_service.process_instance(old)
    assert definition is not None
    engine.runtime_service.set_variables(old, {"amount": 20})
    engine.runtime_service.delete_process_instance(old)

    [last] = engine.runtime_service.restart_process_instances(
        definition.definition_id, [old], before("user2")
    )
    [initial] = engine.runtime_service.restart_process_instances(
        definition.definition_id, [old], before("user2"), initial_variables=True
    )

    assert engine.runtime_service.get_variables(last) == {"amount": 20, "listenerRan": True}
    assert engine.runtime_service.get_variables(initial) == {"amount": 10}
    assert tasks_of(engine, last) == ["user2"]


@pytest.fixture
def full(tmp_path: Any, clock: ControllableClock) -> Iterator[Engine]:
    with (
        fresh_database(selected_kind(), tmp_path) as url,
        Engine(url, clock=clock, history_level="full") as engine,
    ):
        engine.deploy(MODEL)
        yield engine


def test_one_operation_log_entry_per_call_and_a_create_per_new_instance(full: Engine) -> None:
    engine = full
    first, second = (cancelled(engine, {"n": n}) for n in (1, 2))
    definition = definition_of(engine, first)

    new = engine.acting_as("kermit").runtime_service.restart_process_instances(
        definition, [first, second], before("user2")
    )

    with engine.reading() as conn:
        rows = [
            dict(r._mapping)
            for r in conn.execute(
                sa.select(ACT_HI_OP_LOG).where(ACT_HI_OP_LOG.c.USER_ID_ == "kermit")
            )
        ]
    restart = sorted(
        (r["PROPERTY_"], r["ORG_VALUE_"], r["NEW_VALUE_"])
        for r in rows
        if r["OPERATION_TYPE_"] == "RestartProcessInstance"
    )
    assert restart == [("async", None, "false"), ("nrOfInstances", None, "2")]
    for r in rows:
        if r["OPERATION_TYPE_"] == "RestartProcessInstance":
            assert r["ENTITY_TYPE_"] == "ProcessInstance"
            assert r["CATEGORY_"] == "Operator"
            assert r["PROC_INST_ID_"] is None
            assert r["PROC_DEF_ID_"] == definition
            assert r["PROC_DEF_KEY_"] == KEY
    created = sorted(r["PROC_INST_ID_"] for r in rows if r["OPERATION_TYPE_"] == "Create")
    assert created == sorted(new)
    assert len({r["OPERATION_ID_"] for r in rows}) == 1  # one command
    # the entries, the new instances and their history are the log's: a rebuild writes them again
    assert_log_and_tables_agree(engine)


def test_initial_and_last_variables_read_the_stream_not_the_state() -> None:
    """The domain's readers of an ended instance's stream, on events alone."""
    from datetime import UTC, datetime

    from flowledger.core import events as ev
    from flowledger.core.restart import initial_variables, last_variables

    t = datetime(2026, 1, 1, tzinfo=UTC)

    def var(vid: str, name: str, value: int, execution: str = "pi") -> ev.VariableSet:
        return ev.VariableSet(
            variable_id=vid,
            name=name,
            execution_id=execution,
            value=StoredValue("integer", value),
            time=t,
            detail_id=f"d-{vid}-{value}",
        )

    started = ev.ProcessInstanceStarted(
        process_instance_id="pi",
        definition_id="d:1:x",
        definition_key="d",
        definition_version=1,
        deployment_id="dep",
        business_key=None,
        start_activity_id="start",
        time=t,
    )
    first_commit = [started, var("a", "a", 1), var("a", "a", 2)]
    later = [var("b", "b", 3), var("a", "a", 4)]
    ended = ev.ProcessInstanceTerminated(time=t, reason="x", externally=True)

    assert initial_variables(first_commit) == {"a": StoredValue("integer", 1)}
    assert last_variables([*first_commit, *later, ended]) == {
        "a": StoredValue("integer", 4),
        "b": StoredValue("integer", 3),
    }


def test_a_restart_of_more_instances_than_one_command_holds_is_refused(
    deployed: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    import flowledger.engine.commands.handlers.restart as handler

    monkeypatch.setattr(handler, "MAX_INSTANCES_PER_COMMAND", 2)
    engine = deployed
    ended = [cancelled(engine, {}) for _ in range(3)]
    count = instance_count(engine)
    with pytest.raises(Rejected, match="3 process instances in one restart; at most 2"):
        engine.runtime_service.restart_process_instances(
            definition_of(engine, ended[0]), ended, before("user2")
        )
    assert instance_count(engine) == count
