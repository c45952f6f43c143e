"""The engine as an audit log: deployments and versions, recorded events, replay, idempotency.

Also the command log (accepted and rejected commands), instance deletion, variables and snapshots.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import flowledger.engine.storage.streams
from flowledger import ControllableClock, Engine, NotFound, Rejected, TaskAlreadyClaimed, TypedValue
from tests.support import bpmn, open_task_names, sql_rows, task_named


def test_each_deployment_of_a_key_gets_the_next_version(engine: Engine) -> None:
    first = engine.deploy(bpmn("pass_through_activities.bpmn"), name="orders")
    second = engine.deploy(bpmn("pass_through_activities.bpmn"), name="orders")
    assert [d.version for d in first.process_definitions] == [1]
    assert [d.version for d in second.process_definitions] == [2]
    assert second.process_definitions[0].id.startswith("passThrough:2:")
    pi = engine.start_process_instance("passThrough")
    assert pi.definition_id == second.process_definitions[0].id
    old = engine.start_process_instance(definition_id=first.process_definitions[0].id)
    assert old.definition_id == first.process_definitions[0].id


def test_duplicate_filtering_returns_the_existing_deployment_and_writes_nothing(
    engine: Engine, db_url: str
) -> None:
    first = engine.deploy(
        bpmn("pass_through_activities.bpmn"), name="orders", duplicate_filtering=True
    )
    again = engine.deploy(
        bpmn("pass_through_activities.bpmn"), name="orders", duplicate_filtering=True
    )
    assert again.id == first.id
    assert again.process_definitions == first.process_definitions
    assert sql_rows(db_url, "select count(*) from event_log") == [(1,)]
    assert [d.version for d in engine.repository_service.process_definitions("passThrough")] == [1]
    changed = bpmn("pass_through_activities.bpmn").read_text().replace("Wait here", "Wait")
    third = engine.deploy(
        {"pass_through_activities.bpmn": changed}, name="orders", duplicate_filtering=True
    )
    assert third.id != first.id and third.process_definitions[0].version == 2


def test_events_are_recorded_with_positions_times_and_commands(
    engine: Engine, clock: ControllableClock
) -> None:
    engine.deploy(bpmn("pass_through_activities.bpmn"))
    pi = engine.start_process_instance("passThrough", {"amount": 5})
    clock.advance(minutes=2)
    engine.complete_task(task_named(engine, pi.id, "Wait here"))

    events = engine.events(pi.id)
    positions = [e.position for e in events]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    assert [e.stream_version for e in events] == list(range(1, len(events) + 1))
    assert {e.command_type for e in events} == {"StartProcessInstance", "CompleteTask"}
    started = events[0]
    assert started.type == "ProcessInstanceStarted"
    assert started.payload["process_instance_id"] == pi.id
    assert started.payload["time"] == "2026-03-01T09:00:00Z"
    variable = next(e for e in events if e.type == "VariableSet")
    assert variable.payload["value"] == {"type": "integer", "value": 5}
    assert events[-1].type == "ProcessInstanceCompleted"
    assert events[-1].payload["time"] == "2026-03-01T09:02:00Z"


def test_replay_gives_the_state_at_any_position(engine: Engine) -> None:
    engine.deploy(bpmn("parallel_gateway_fork_join.bpmn"))
    pi = engine.start_process_instance("parallelForkJoin")
    engine.complete_task(task_named(engine, pi.id, "Ship"))
    engine.complete_task(task_named(engine, pi.id, "Bill"))

    now = engine.replay(pi.id)
    assert now == engine._repository.cache[pi.id].state
    assert sorted(t.name or "" for t in now.tasks.values()) == ["Archive"]

    completed_ship = next(e for e in engine.events(pi.id) if e.type == "TaskCompleted")
    before = engine.replay(pi.id, until_position=completed_ship.position - 1)
    assert sorted(t.name or "" for t in before.tasks.values()) == ["Bill", "Ship"]
    assert len(before.executions) == 4
    with pytest.raises(NotFound):
        engine.replay("no-such-instance")


def test_a_repeated_command_id_returns_the_first_outcome_and_appends_nothing(
    engine: Engine, db_url: str
) -> None:
    engine.deploy(bpmn("pass_through_activities.bpmn"))
    first = engine.start_process_instance("passThrough", command_id="start-order-1")
    again = engine.start_process_instance("passThrough", command_id="start-order-1")
    assert again == first
    assert len(engine.history_service.historic_process_instances()) == 1
    commits = sql_rows(db_url, "select count(*) from event_log")
    engine.complete_task(task_named(engine, first.id, "Wait here"), command_id="done-1")
    engine.complete_task("whatever-task", command_id="done-1")  # same id: no-op, first outcome
    assert sql_rows(db_url, "select count(*) from event_log") == [(commits[0][0] + 1,)]


def test_a_rejected_command_leaves_only_its_command_log_row(engine: Engine, db_url: str) -> None:
    engine.deploy(bpmn("pass_through_activities.bpmn"))
    pi = engine.start_process_instance("passThrough")
    task_id = task_named(engine, pi.id, "Wait here")
    before = sql_rows(db_url, "select count(*) from event_log")

    with pytest.raises(NotFound, match="Task 'missing'"):
        engine.complete_task("missing", command_id="bad-1")
    engine.complete_task(task_id)
    with pytest.raises(NotFound):
        engine.complete_task(task_id, command_id="bad-2")

    assert sql_rows(db_url, "select count(*) from event_log") == [(before[0][0] + 1,)]
    rejected = sql_rows(
        db_url,
        "select command_id, command_type, status, reason from command_log "
        "where status = 'rejected' order by command_id",
    )
    assert [r[:3] for r in rejected] == [
        ("bad-1", "CompleteTask", "rejected"),
        ("bad-2", "CompleteTask", "rejected"),
    ]
    assert "NotFound" in str(rejected[0][3])
    with pytest.raises(Rejected, match="rejected before"):
        engine.complete_task("missing", command_id="bad-1")


def test_claiming_a_task_claimed_by_someone_else_is_refused(engine: Engine) -> None:
    engine.deploy(bpmn("pass_through_activities.bpmn"))
    pi = engine.start_process_instance("passThrough")
    task_id = task_named(engine, pi.id, "Wait here")
    engine.claim(task_id, "kermit")
    engine.claim(task_id, "kermit")
    with pytest.raises(TaskAlreadyClaimed, match="kermit"):
        engine.claim(task_id, "piggy")
    engine.task_service.unclaim(task_id)
    engine.claim(task_id, "piggy")
    assert engine.task_service.task(task_id).assignee == "piggy"


def test_deleting_an_instance_terminates_it_externally(engine: Engine) -> None:
    engine.deploy(bpmn("parallel_gateway_fork_join.bpmn"))
    pi = engine.start_process_instance("parallelForkJoin")
    engine.runtime_service.delete_process_instance(pi.id, "customer cancelled")

    assert engine.tasks(process_instance_id=pi.id) == []
    assert engine.runtime_service.executions(pi.id) == []
    historic = engine.history_service.historic_process_instance(pi.id)
    assert (historic.state, historic.delete_reason) == (
        "EXTERNALLY_TERMINATED",
        "customer cancelled",
    )
    assert {t.delete_reason for t in engine.history_service.historic_task_instances(pi.id)} == {
        "customer cancelled"
    }
    assert all(a.end_time is not None for a in engine.historic_activity_instances(pi.id))
    with pytest.raises(NotFound, match="ended"):
        engine.runtime_service.delete_process_instance(pi.id)


def test_variables_keep_their_camunda_types_and_scopes(engine: Engine) -> None:
    engine.deploy(bpmn("parallel_gateway_fork_join.bpmn"))
    when = datetime(2026, 5, 1, 12, 30, 15, 250000, tzinfo=UTC)
    pi = engine.start_process_instance(
        "parallelForkJoin",
        {
            "s": "text",
            "empty": "",
            "i": 7,
            "big": 2**40,
            "l": TypedValue("Long", 3),
            "sh": TypedValue("Short", 2),
            "d": 1.5,
            "b": False,
            "when": when,
            "raw": b"\x00\x01",
            "doc": {"items": [1, 2]},
            "nothing": None,
        },
    )
    typed = engine.runtime_service.get_variables_typed(pi.id)
    assert typed == {
        "b": (False, "Boolean"),
        "big": (2**40, "Long"),
        "d": (1.5, "Double"),
        "doc": ({"items": [1, 2]}, "Json"),
        "empty": ("", "String"),
        "i": (7, "Integer"),
        "l": (3, "Long"),
        "logged": (True, "Boolean"),
        "nothing": (None, "Null"),
        "raw": (b"\x00\x01", "Bytes"),
        "s": ("text", "String"),
        "sh": (2, "Short"),
        "when": (when, "Date"),
    }
    ship = engine.task_service.task(task_named(engine, pi.id, "Ship"))
    engine.runtime_service.set_variables(ship.execution_id, {"carrier": "DHL"}, local=True)
    assert engine.runtime_service.get_variables(ship.execution_id, local=True) == {"carrier": "DHL"}
    assert "carrier" not in engine.runtime_service.get_variables(pi.id)
    engine.runtime_service.set_variables(
        ship.execution_id, {"s": "changed"}
    )  # walks up to the instance scope
    assert engine.runtime_service.get_variable(pi.id, "s") == "changed"
    engine.runtime_service.remove_variables(pi.id, ["doc"])
    assert "doc" not in engine.runtime_service.get_variables(pi.id)
    with pytest.raises(Rejected, match="at most 4000"):
        engine.runtime_service.set_variables(pi.id, {"long": "x" * 4001})
    assert engine.verify().problems == []


def test_a_new_engine_loads_state_from_a_snapshot_and_the_tail(
    db_url: str, clock: ControllableClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(flowledger.engine.storage.streams, "SNAPSHOT_EVERY", 5)
    with Engine(db_url, clock=clock) as first:
        first.deploy(bpmn("parallel_gateway_fork_join.bpmn"))
        pi = first.start_process_instance("parallelForkJoin")
        first.complete_task(task_named(first, pi.id, "Ship"))
    assert sql_rows(db_url, "select count(*) from instance_snapshot") == [(1,)]
    with Engine(db_url, clock=clock) as second:
        assert open_task_names(second, pi.id) == ["Bill"]
        second.complete_task(task_named(second, pi.id, "Bill"))
        assert second._repository.cache[pi.id].state == second.replay(pi.id)
        assert second.verify().problems == []


def test_a_stale_cached_state_is_detected_and_the_command_retried(
    db_url: str, clock: ControllableClock
) -> None:
    with Engine(db_url, clock=clock) as a, Engine(db_url, clock=clock) as b:
        a.deploy(bpmn("parallel_gateway_fork_join.bpmn"))
        pi = a.start_process_instance("parallelForkJoin")  # a caches the instance
        ship, bill = task_named(a, pi.id, "Ship"), task_named(a, pi.id, "Bill")
        b.complete_task(ship)  # b moves the stream on; a's cache is now stale
        a.complete_task(bill)  # conflict on append -> reload -> decide again -> join fires
        assert open_task_names(a, pi.id) == ["Archive"]
        with pytest.raises(NotFound):
            b.complete_task(ship)
        assert a.verify().problems == []


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (
            "none",
            {"ACT_HI_PROCINST": 0, "ACT_HI_ACTINST": 0, "ACT_HI_VARINST": 0, "ACT_HI_DETAIL": 0},
        ),
        (
            "activity",
            {"ACT_HI_PROCINST": 1, "ACT_HI_ACTINST": 5, "ACT_HI_VARINST": 0, "ACT_HI_DETAIL": 0},
        ),
        (
            "audit",
            {"ACT_HI_PROCINST": 1, "ACT_HI_ACTINST": 5, "ACT_HI_VARINST": 1, "ACT_HI_DETAIL": 0},
        ),
        (
            "full",
            {"ACT_HI_PROCINST": 1, "ACT_HI_ACTINST": 5, "ACT_HI_VARINST": 1, "ACT_HI_DETAIL": 2},
        ),
    ],
)
def test_the_history_level_filters_history_rows_but_never_the_log(
    db_url: str, clock: ControllableClock, level: str, expected: dict[str, int]
) -> None:
    with Engine(db_url, clock=clock, history_level=level) as engine:
        engine.deploy(bpmn("pass_through_activities.bpmn"))
        pi = engine.start_process_instance("passThrough", {"n": 1})
        engine.runtime_service.set_variables(pi.id, {"n": 2})
        counts = {t: sql_rows(db_url, f"select count(*) from {t}")[0][0] for t in expected}
        assert counts == expected
        assert len(engine.events(pi.id)) == 13  # the same log whatever the level
        assert engine.verify().problems == []


def test_an_unknown_history_level_is_refused(db_url: str) -> None:
    with pytest.raises(ValueError, match="history level"):
        Engine(db_url, history_level="verbose")
