"""The behaviours Camunda 7's own engine tests assert, re-proved on the project's own models.

Each test covers one row of ../shared/conformance/README.md (its number is in the test's name and
docstring) with a model of tests/bpmn/conformance/, so a fresh clone, which has no Camunda files,
still proves that flowledger speaks Camunda 7. Public Engine API only; the clock is controlled
and jobs run by hand. Rows whose constructs flowledger does not run yet skip, as they do in
test_camunda_conformance.py.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from flowledger import ControllableClock, Engine, ModelError
from tests.conformance.camunda_idioms import (
    Directory,
    assert_deleted,
    assert_process_ended,
    assert_verified,
    by_name,
    child_activity_ids,
    historic_activity_ids,
    historic_state,
    names,
    single_task,
)
from tests.support import BPMN_DIR, fresh_database, selected_kind

MODELS = BPMN_DIR / "conformance"
NOT_IMPLEMENTED = pytest.mark.skip(reason="not implemented yet")
WORKER = "worker-7"
TOPIC = "invoicing"
LOCK_MS = 10_000


def model(name: str) -> Path:
    """A model of tests/bpmn/conformance/ by its file name without `.bpmn`."""
    path = MODELS / f"{name}.bpmn"
    assert path.is_file(), f"conformance model missing: {path}"
    return path


def deploy(engine: Engine, name: str) -> None:
    engine.deploy(model(name))


# -- rows 1-8: gateways -----------------------------------------------------------------------


def test_row_01_diverging_exclusive_gateway(engine: Engine) -> None:
    """Row 1: with `lane` 1, 2, 3 exactly one task is active, named "Route {lane}"."""
    deploy(engine, "exclusive_gateway_diverging")
    keys = {1: "laneOne", 2: "laneTwo", 3: "laneThree"}
    for lane, key in keys.items():
        pi = engine.start_process_instance("laneRouting", {"lane": lane})
        task = single_task(engine)
        assert task.name == f"Route {lane}"
        assert task.task_definition_key == key
        assert task.process_instance_id == pi.id
        engine.runtime_service.delete_process_instance(pi.id, "routed elsewhere")
        assert_deleted(engine, pi.id, "routed elsewhere")
    assert engine.tasks() == []
    assert_verified(engine)


def test_row_02_default_sequence_flow(engine: Engine) -> None:
    """Row 2: priority 1 takes its condition; priority 5 matches none and takes the default."""
    deploy(engine, "exclusive_gateway_default_sequence_flow")
    urgent = engine.start_process_instance("priorityTriage", {"priority": 1})
    assert single_task(engine).name == "Handle urgently"
    engine.runtime_service.delete_process_instance(urgent.id, None)
    assert_deleted(engine, urgent.id, None)

    other = engine.start_process_instance("priorityTriage", {"priority": 5})
    task = single_task(engine)
    assert task.name == "Handle when there is time"
    assert task.task_definition_key == "handleWhenever"
    engine.complete_task(task.id)
    assert_process_ended(engine, other.id, "handled")
    history = historic_activity_ids(engine, other.id)
    assert "handleUrgent" not in history
    assert "handleSoon" not in history
    assert_verified(engine)


def test_row_03_loop_with_many_iterations(db_url: str, clock: ControllableClock) -> None:
    """Row 3: a 1000-lap loop of synchronous juel script tasks completes in one command (given
    time: 1000 laps in the default 1 s command budget is a matter of the machine's load, and the
    budget has its own tests)."""
    with Engine(db_url, clock=clock, command_budget_seconds=60) as engine:
        _loop_with_many_iterations(engine)


def _loop_with_many_iterations(engine: Engine) -> None:
    deploy(engine, "exclusive_gateway_loop_many_iterations")
    laps = 1000
    pi = engine.start_process_instance("counterLoop", {"laps": laps})
    assert pi.ended
    assert_process_ended(engine, pi.id, "done")
    variables = {v.name: v for v in engine.history_service.historic_variable_instances(pi.id)}
    assert variables["counter"].value == laps
    assert variables["counter"].type == "Long"  # juel integer arithmetic yields Long
    assert historic_activity_ids(engine, pi.id).count("lap") == laps
    assert_verified(engine)


def test_row_04_parallel_fork_join(engine: Engine) -> None:
    """Row 4: two tasks after the fork; completing both joins into the single "Close order"."""
    deploy(engine, "parallel_gateway_fork_join")
    pi = engine.start_process_instance("fulfilOrder")
    tasks = by_name(engine.tasks(process_instance_id=pi.id))
    assert [t.name for t in tasks] == ["Pack goods", "Send invoice"]

    engine.complete_task(tasks[0].id)
    assert names(engine.tasks(process_instance_id=pi.id)) == ["Send invoice"]
    engine.complete_task(tasks[1].id)
    tasks = engine.tasks(process_instance_id=pi.id)
    assert names(tasks) == ["Close order"]

    engine.complete_task(tasks[0].id)
    assert_process_ended(engine, pi.id, "fulfilled")
    assert historic_activity_ids(engine, pi.id).count("merge") == 2  # one per arriving token
    assert_verified(engine)


def test_row_05_unbalanced_fork_join(engine: Engine) -> None:
    """Row 5: three tasks; the first join needs two of them, the second the rest."""
    deploy(engine, "parallel_gateway_unbalanced_fork_join")
    pi = engine.start_process_instance("unbalancedApproval")
    tasks = by_name(engine.tasks(process_instance_id=pi.id))
    assert [t.name for t in tasks] == ["Check credit", "Check stock", "Notify customer"]

    # One of the first join's two tasks: nothing joins yet.
    engine.complete_task(tasks[0].id)
    assert names(engine.tasks(process_instance_id=pi.id)) == ["Check stock", "Notify customer"]

    # The other one fires the first join.
    engine.complete_task(tasks[1].id)
    tasks = by_name(engine.tasks(process_instance_id=pi.id))
    assert [t.name for t in tasks] == ["Approve order", "Notify customer"]

    # Both remaining tasks fire the second join, which ends the instance.
    engine.complete_task(tasks[0].id)
    assert historic_state(engine, pi.id) == "ACTIVE"
    engine.complete_task(tasks[1].id)
    assert_process_ended(engine, pi.id, "closed")
    assert_verified(engine)


def test_row_06_nested_fork_join(engine: Engine) -> None:
    """Row 6: a fork inside one branch of another; child activity instances 1, 2, 2, 3, 1."""
    deploy(engine, "parallel_gateway_nested_fork_join")
    pid = engine.start_process_instance("nestedChecks").id

    def children() -> int:
        return len(engine.runtime_service.activity_instance_tree(pid).child_activity_instances)

    tasks = by_name(engine.tasks())
    assert [t.name for t in tasks] == ["Prepare file"]
    assert children() == 1

    engine.complete_task(tasks[0].id)
    tasks = by_name(engine.tasks())
    assert [t.name for t in tasks] == ["Legal review", "Technical review"]
    assert children() == 2

    # Legal review alone adds nothing: its token waits in the outer join.
    engine.complete_task(tasks[0].id)
    tasks = by_name(engine.tasks())
    assert [t.name for t in tasks] == ["Technical review"]
    assert children() == 2
    assert child_activity_ids(engine.runtime_service.activity_instance_tree(pid)) == [
        "outerJoin",
        "technical",
    ]

    # Technical review forks again.
    engine.complete_task(tasks[0].id)
    tasks = by_name(engine.tasks())
    assert [t.name for t in tasks] == [
        "Technical review: performance",
        "Technical review: security",
    ]
    assert children() == 3

    # Both inner tasks fire the inner join, whose token fires the outer one.
    engine.complete_task(tasks[0].id)
    engine.complete_task(tasks[1].id)
    tasks = by_name(engine.tasks())
    assert [t.name for t in tasks] == ["Sign off"]
    assert children() == 1

    engine.complete_task(tasks[0].id)
    assert_process_ended(engine, pid, "finish")
    assert_verified(engine)


def test_row_07_diverging_inclusive_gateway(engine: Engine) -> None:
    """Row 7: conditions `size <= 1/2/3`: size i activates 4 - i tasks."""
    deploy(engine, "inclusive_gateway_diverging")
    boxes = {1: "Offer small box", 2: "Offer medium box", 3: "Offer large box"}
    for size in (1, 2, 3):
        pi = engine.start_process_instance("boxSizes", {"size": size})
        tasks = engine.tasks(process_instance_id=pi.id)
        assert len(tasks) == 4 - size
        assert names(tasks) == sorted(name for limit, name in boxes.items() if size <= limit)
        engine.runtime_service.delete_process_instance(pi.id, "measured again")
        assert_deleted(engine, pi.id, "measured again")
    assert_verified(engine)


def test_row_08_partial_merging_inclusive_gateway(engine: Engine) -> None:
    """Row 8: a merging inclusive gateway waits only for tokens that can still arrive."""
    deploy(engine, "inclusive_gateway_partial_merge")
    pi = engine.start_process_instance("partialMerge", {"level": 2})
    # The shortcut join got one of its two flows and fired at once (the other was not taken);
    # the final join waits for the token in Review.
    review = single_task(engine)
    assert review.task_definition_key == "review"
    assert child_activity_ids(engine.runtime_service.activity_instance_tree(pi.id)) == [
        "finalJoin",
        "review",
    ]
    assert "shortcutJoin" in historic_activity_ids(engine, pi.id)

    engine.complete_task(review.id)
    archive = single_task(engine)
    assert archive.task_definition_key == "archive"

    engine.complete_task(archive.id)
    assert_process_ended(engine, pi.id, "closed")
    assert_verified(engine)


# -- rows 9-19: timers, messages, signals, event subprocesses ---------------------------------


def test_row_09_event_based_gateway(engine: Engine) -> None:
    """Row 9: after start one message and one signal subscription and one timer job; the message
    removes the others and the task after it is active."""
    deploy(engine, "event_based_gateway_message_signal_timer")
    pi = engine.start_process_instance("awaitFirstEvent")
    subscriptions = {
        (s.event_type, s.event_name) for s in engine.runtime_service.event_subscriptions()
    }
    assert subscriptions == {("message", "paymentReceived"), ("signal", "productRecall")}
    assert len(engine.management_service.jobs(process_instance_id=pi.id)) == 1
    engine.runtime_service.correlate_message("paymentReceived")
    assert engine.runtime_service.event_subscriptions() == []
    assert engine.management_service.jobs(process_instance_id=pi.id) == []
    assert single_task(engine, pi.id).name == "Ship goods"
    assert_verified(engine)


def test_row_10_multiple_boundary_timers(engine: Engine, clock: ControllableClock) -> None:
    """Row 10: three boundary timers (PT2H, PT1H, PT3H) -> three jobs; at +1h05s only the PT1H
    one fires, every job is gone and the task after it is active."""
    deploy(engine, "boundary_timers_several_on_user_task")
    pi = engine.start_process_instance("ticketTimers")
    assert single_task(engine, pi.id).name == "Answer ticket"
    due = sorted(job.due_date for job in engine.management_service.jobs(process_instance_id=pi.id))
    assert due == [clock.now() + timedelta(hours=h) for h in (1, 2, 3)]
    clock.advance(hours=1, seconds=5)
    assert engine.run_due_jobs() == 1
    assert engine.management_service.jobs(process_instance_id=pi.id) == []
    assert single_task(engine, pi.id).name == "Send reminder"
    assert_verified(engine)


def test_row_11_non_interrupting_timer_cycle(engine: Engine, clock: ControllableClock) -> None:
    """Row 11: an `R/PT1H` non-interrupting boundary timer: +1h -> one task after it, +2h -> two;
    once the task it sits on completes no more fire."""
    deploy(engine, "boundary_timer_non_interrupting_cycle")
    pi = engine.start_process_instance("hourlyReminder")

    def nudges() -> int:
        return len(engine.tasks(process_instance_id=pi.id, task_definition_key="nudge"))

    assert len(engine.management_service.jobs(process_instance_id=pi.id)) == 1
    clock.advance(hours=1)
    engine.run_due_jobs()
    assert nudges() == 1
    clock.advance(hours=1)
    engine.run_due_jobs()
    assert nudges() == 2
    (review,) = engine.tasks(process_instance_id=pi.id, task_definition_key="review")
    engine.complete_task(review.id)
    assert engine.management_service.jobs(process_instance_id=pi.id) == []
    clock.advance(hours=1)
    assert engine.run_due_jobs() == 0
    assert nudges() == 2
    assert_verified(engine)


def test_row_12_intermediate_timer(engine: Engine, clock: ControllableClock) -> None:
    """Row 12: a PT5M catch event -> one job; once the clock passes it and jobs run, ended."""
    deploy(engine, "intermediate_timer_catch")
    pi = engine.start_process_instance("coolingOff")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.due_date == clock.now() + timedelta(minutes=5)
    clock.advance(minutes=4)
    assert engine.run_due_jobs() == 0
    clock.advance(minutes=1, seconds=1)
    assert engine.run_due_jobs() == 1
    assert_process_ended(engine, pi.id, "binding")
    assert_verified(engine)


def test_row_13_start_timer_cycle_with_limit(engine: Engine, clock: ControllableClock) -> None:
    """Row 13: an `R2/PT5M` start timer: after deploy one job and no instance; +5 min -> one
    instance and a new job; +5 min -> two instances and no job."""
    deploy(engine, "start_timer_cycle_with_limit")
    assert len(engine.management_service.jobs()) == 1
    assert engine.history_service.historic_process_instances() == []
    clock.advance(minutes=5)
    assert engine.run_due_jobs() == 1
    assert len(engine.history_service.historic_process_instances()) == 1
    assert len(engine.management_service.jobs()) == 1
    clock.advance(minutes=5)
    assert engine.run_due_jobs() == 1
    started = engine.history_service.historic_process_instances()
    assert len(started) == 2
    assert engine.management_service.jobs() == []
    for instance in started:
        assert instance.start_activity_id == "tick"
        tree = engine.runtime_service.activity_instance_tree(instance.id)
        assert child_activity_ids(tree) == ["awaitReply"]
    assert_verified(engine)


def test_row_14_message_start_event(engine: Engine) -> None:
    """Row 14: the message starts an instance with one task; starting by key works too;
    completing the task ends it; the definition's subscription stays."""
    deploy(engine, "message_start_event")
    (subscription,) = engine.runtime_service.event_subscriptions()
    assert (subscription.event_name, subscription.execution_id) == ("orderPlaced", None)
    (result,) = engine.runtime_service.correlate_message("orderPlaced")
    by_message = result.process_instance_id
    assert single_task(engine, by_message).task_definition_key == "confirm"
    by_key = engine.start_process_instance("orderIntake")
    assert single_task(engine, by_key.id).task_definition_key == "confirm"
    for instance_id in (by_message, by_key.id):
        engine.complete_task(single_task(engine, instance_id).id)
        assert_process_ended(engine, instance_id, "takenIn")
    assert len(engine.runtime_service.event_subscriptions()) == 1
    assert_verified(engine)


def test_row_15_intermediate_message_event(engine: Engine) -> None:
    """Row 15: waits at the catch event with one subscription; the message leads to the task."""
    deploy(engine, "intermediate_message_catch")
    pi = engine.start_process_instance("awaitConfirmation")
    assert [e.activity_id for e in engine.runtime_service.executions(pi.id)] == ["confirmation"]
    (subscription,) = engine.runtime_service.event_subscriptions(process_instance_id=pi.id)
    assert (subscription.event_type, subscription.event_name) == ("message", "bookingConfirmed")
    engine.runtime_service.message_event_received("bookingConfirmed", subscription.execution_id)
    assert single_task(engine, pi.id).task_definition_key == "printTickets"
    assert engine.runtime_service.event_subscriptions() == []
    engine.complete_task(single_task(engine, pi.id).id)
    assert_process_ended(engine, pi.id, "travelReady")
    assert_verified(engine)


def test_row_16_boundary_message_event(engine: Engine) -> None:
    """Row 16: the message cancels the task and takes the boundary's path; completing the task
    instead removes the subscription and takes the normal path."""
    deploy(engine, "boundary_message_on_user_task")
    withdrawn = engine.start_process_instance("cancellableReview")
    assert single_task(engine, withdrawn.id).task_definition_key == "assess"
    (subscription,) = engine.runtime_service.event_subscriptions(process_instance_id=withdrawn.id)
    assert (subscription.activity_id, subscription.event_name) == ("withdrawn", "claimWithdrawn")
    engine.runtime_service.correlate_message("claimWithdrawn", process_instance_id=withdrawn.id)
    assert single_task(engine, withdrawn.id).task_definition_key == "archiveWithdrawn"
    assert engine.runtime_service.event_subscriptions(process_instance_id=withdrawn.id) == []
    engine.complete_task(single_task(engine, withdrawn.id).id)
    assert_process_ended(engine, withdrawn.id, "closedWithdrawn")

    assessed = engine.start_process_instance("cancellableReview")
    engine.complete_task(single_task(engine, assessed.id).id)
    assert engine.runtime_service.event_subscriptions(process_instance_id=assessed.id) == []
    assert single_task(engine, assessed.id).task_definition_key == "pay"
    engine.complete_task(single_task(engine, assessed.id).id)
    assert_process_ended(engine, assessed.id, "closedPaid")
    assert_verified(engine)


def test_row_17_interrupting_message_event_subprocess(engine: Engine) -> None:
    """Row 17: no message -> completing the task ends the instance and cleans the subscription;
    with the message -> the task is cancelled, the event subprocess's task is alone, and
    completing it ends the instance."""
    deploy(engine, "message_event_subprocess_interrupting")
    quiet = engine.start_process_instance("withdrawableApplication")
    (subscription,) = engine.runtime_service.event_subscriptions(process_instance_id=quiet.id)
    assert subscription.event_name == "applicationWithdrawn"
    engine.complete_task(single_task(engine, quiet.id).id)
    assert_process_ended(engine, quiet.id, "decided")
    assert engine.runtime_service.event_subscriptions() == []

    interrupted = engine.start_process_instance("withdrawableApplication")
    engine.runtime_service.correlate_message("applicationWithdrawn")
    task = single_task(engine, interrupted.id)
    assert task.task_definition_key == "confirmWithdrawal"
    assert engine.runtime_service.event_subscriptions() == []
    tasks = {
        t.task_definition_key: t
        for t in engine.history_service.historic_task_instances(interrupted.id)
    }
    assert tasks["evaluate"].end_time is not None  # cancelled by the interrupting start
    engine.complete_task(task.id)
    assert_process_ended(engine, interrupted.id)
    assert_verified(engine)


def test_row_18_non_interrupting_message_event_subprocess(engine: Engine) -> None:
    """Row 18: the message adds the event subprocess's task beside the main one; both must
    complete, in either order, before the instance ends."""
    deploy(engine, "message_event_subprocess_non_interrupting")
    for order in (("repair", "answerInquiry"), ("answerInquiry", "repair")):
        pi = engine.start_process_instance("inquiryDuringWork")
        engine.runtime_service.correlate_message("customerInquiry", process_instance_id=pi.id)
        tasks = {t.task_definition_key: t for t in engine.tasks(process_instance_id=pi.id)}
        assert sorted(tasks) == ["answerInquiry", "repair"]
        engine.complete_task(tasks[order[0]].id)
        assert historic_state(engine, pi.id) == "ACTIVE"
        engine.complete_task(tasks[order[1]].id)
        assert_process_ended(engine, pi.id)
    assert engine.runtime_service.event_subscriptions() == []
    assert_verified(engine)


def test_row_19_signal_broadcast(engine: Engine) -> None:
    """Row 19: the catching instance has one signal subscription; starting the throwing process
    broadcasts the signal: no subscription and no running instance is left."""
    deploy(engine, "signal_broadcast")
    listener = engine.start_process_instance("signalListener")
    (subscription,) = engine.runtime_service.event_subscriptions()
    assert (subscription.event_type, subscription.event_name) == ("signal", "storeClosing")
    sender = engine.start_process_instance("signalSender")
    assert engine.runtime_service.event_subscriptions() == []
    assert_process_ended(engine, listener.id, "left")
    assert_process_ended(engine, sender.id, "announced")
    assert_verified(engine)


# -- rows 20-26: errors, escalation, terminate end events, embedded subprocesses --------------


def test_row_20_boundary_error_on_embedded_subprocess(engine: Engine) -> None:
    """Row 20: an error end event inside the subprocess is caught by the subprocess's boundary."""
    deploy(engine, "error_boundary_on_embedded_subprocess")
    pi = engine.start_process_instance("failingSubprocess")
    task = single_task(engine)
    assert task.name == "Pick items"

    engine.complete_task(task.id)
    task = single_task(engine)
    assert task.name == "Place backorder"
    assert child_activity_ids(engine.runtime_service.activity_instance_tree(pi.id)) == ["backorder"]
    history = historic_activity_ids(engine, pi.id)
    assert "outOfStock" in history
    assert "pickingFailed" in history
    assert "shipped" not in history

    engine.complete_task(task.id)
    assert_process_ended(engine, pi.id, "waitingForStock")
    assert_verified(engine)


def test_row_21_error_code_and_message_variables(engine: Engine) -> None:
    """Row 21: `camunda:errorCodeVariable` gets the error's code; `errorMessageVariable` stays
    null as the error end event carries no message."""
    deploy(engine, "error_boundary_code_and_message_variables")
    pi = engine.start_process_instance("errorDetails")
    variables = engine.runtime_service.get_variables(pi.id)
    assert variables.get("failureCode") == "CARD_DECLINED"
    assert variables.get("failureMessage") is None
    typed = engine.runtime_service.get_variables_typed(pi.id)
    assert typed["failureCode"] == ("CARD_DECLINED", "String")

    task = single_task(engine, pi.id)
    assert task.task_definition_key == "callCustomer"
    engine.complete_task(task.id)
    assert_process_ended(engine, pi.id, "resolved")
    assert_verified(engine)


def test_row_22_error_event_subprocess_in_embedded_subprocess(engine: Engine) -> None:
    """Row 22: the error event subprocess inside the embedded subprocess catches the error ->
    one task; completing it ends the subprocess and the instance."""
    deploy(engine, "error_event_subprocess_in_embedded_subprocess")
    pi = engine.start_process_instance("localErrorHandler")
    task = single_task(engine, pi.id)
    assert task.name == "Fix the data by hand"
    (validation,) = engine.runtime_service.activity_instance_tree(pi.id).child_activity_instances
    assert validation.activity_id == "validation"  # caught inside: the subprocess lives on
    engine.complete_task(task.id)
    assert_process_ended(engine, pi.id, "validated")
    assert_verified(engine)


def test_row_23_escalation_event_subprocess(engine: Engine) -> None:
    """Row 23: a non-interrupting escalation event subprocess catches the throw -> two tasks,
    the escalated one beside the thrower's next one; both must complete before the end."""
    deploy(engine, "escalation_event_subprocess_non_interrupting")
    pi = engine.start_process_instance("orderWithEscalation")
    tasks = engine.tasks(process_instance_id=pi.id)
    assert names(tasks) == ["Approve the big order", "Pack the goods"]
    assert engine.runtime_service.get_variables(pi.id)["escalation"] == "BIG_ORDER"
    history = historic_activity_ids(engine, pi.id)
    assert "bigOrderNoticed" in history
    assert "flagBigOrder" in history
    (pack,) = [t for t in tasks if t.name == "Pack the goods"]
    engine.complete_task(pack.id)
    assert historic_state(engine, pi.id) == "ACTIVE"  # the review still runs
    (approve,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(approve.id)
    assert_process_ended(engine, pi.id, "shipped")
    assert_verified(engine)


def test_row_24_terminate_end_event_ends_process(engine: Engine) -> None:
    """Row 24: reaching the terminate end event ends the whole instance though another branch
    still waits."""
    deploy(engine, "terminate_end_event_process")
    pi = engine.start_process_instance("raceToTerminate")
    # The process instance and its two concurrent children.
    assert len(engine.runtime_service.executions(pi.id)) == 3
    assert sorted(t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)) == [
        "collectDocuments",
        "screen",
    ]
    (screen,) = engine.tasks(process_instance_id=pi.id, task_definition_key="screen")
    engine.complete_task(screen.id)
    assert_process_ended(engine, pi.id, "rejected")
    assert "collected" not in historic_activity_ids(engine, pi.id)
    tasks = {
        t.task_definition_key: t for t in engine.history_service.historic_task_instances(pi.id)
    }
    assert tasks["collectDocuments"].end_time is not None
    assert_verified(engine)


def test_row_25_terminate_end_event_in_subprocess(engine: Engine) -> None:
    """Row 25: a terminate end event inside a subprocess ends only that scope; the parent goes
    on, and the other branch's task ends the instance."""
    deploy(engine, "terminate_end_event_in_subprocess")
    pi = engine.start_process_instance("terminateInnerScope")
    assert len(engine.runtime_service.executions(pi.id)) == 1
    running = engine.runtime_service.process_instance(pi.id)
    assert running is not None and not running.ended
    history = historic_activity_ids(engine, pi.id)
    assert "innerTerminated" in history
    assert "innerDone" in history
    assert child_activity_ids(engine.runtime_service.activity_instance_tree(pi.id)) == ["sign"]

    (sign,) = engine.tasks(process_instance_id=pi.id, task_definition_key="sign")
    engine.complete_task(sign.id)
    assert_process_ended(engine, pi.id, "signed")
    assert_verified(engine)


def test_row_26_simple_subprocess(engine: Engine, clock: ControllableClock) -> None:
    """Row 26: the task inside; activity instance tree process -> subprocess -> task; completing
    the task ends the instance."""
    deploy(engine, "embedded_subprocess_simple")
    pi = engine.start_process_instance("wrappedTask")
    task = single_task(engine, pi.id)
    assert task.name == "Work inside the subprocess"

    root = engine.runtime_service.activity_instance_tree(pi.id)
    assert root.id == pi.id
    assert root.activity_id == pi.definition_id
    assert root.activity_type == "processDefinition"
    (wrapper,) = root.child_activity_instances
    assert wrapper.activity_id == "wrapper"
    assert wrapper.parent_activity_instance_id == root.id
    (inside,) = wrapper.child_activity_instances
    assert inside.activity_id == "inside"
    assert inside.parent_activity_instance_id == wrapper.id

    engine.complete_task(task.id)
    assert_process_ended(engine, pi.id, "finished")
    assert_verified(engine)


# -- rows 27-35: call activities, multi-instance, async continuations --------------------------


def called_instance_id(engine: Engine, process_instance_id: str, call_activity_id: str) -> str:
    """The instance the latest run of `call_activity_id` started."""
    calls = [
        a
        for a in engine.historic_activity_instances(process_instance_id)
        if a.activity_id == call_activity_id
    ]
    assert calls and calls[-1].called_process_instance_id is not None
    return calls[-1].called_process_instance_id


def test_row_27_call_simple_subprocess(engine: Engine) -> None:
    """Row 27: task before -> the called instance's task -> task after -> end."""
    deploy(engine, "call_activity_called_process")
    deploy(engine, "call_activity_simple")
    pi = engine.start_process_instance("callerSimple")
    before = single_task(engine, pi.id)
    assert before.name == "Work before the call"
    engine.complete_task(before.id)
    assert engine.tasks(process_instance_id=pi.id) == []

    called = called_instance_id(engine, pi.id, "call")
    historic = engine.history_service.historic_process_instance(called)
    assert historic.process_definition_key == "calledProcess"
    task = single_task(engine, called)
    assert task.name == "Work in the called process"
    engine.complete_task(task.id)
    assert_process_ended(engine, called, "calledEnd")

    task = single_task(engine, pi.id)
    assert task.name == "Work after the call"
    engine.complete_task(task.id)
    assert_process_ended(engine, pi.id, "finished")
    assert_verified(engine)


def test_row_28_call_activity_data_input_output(engine: Engine) -> None:
    """Row 28: `camunda:in` copies a variable into the called instance, the caller keeps its own
    value while the callee changes its copy, `camunda:out` writes the callee's back;
    `sourceExpression` computes them on either side."""
    runtime = engine.runtime_service
    deploy(engine, "call_activity_called_process")
    deploy(engine, "call_activity_variables_in_out")
    pi = engine.start_process_instance("callerWithVariables", {"greeting": "Hello from the caller"})

    called = called_instance_id(engine, pi.id, "copyCall")
    task = single_task(engine, called)
    assert runtime.get_variable(task.execution_id, "calledGreeting") == "Hello from the caller"
    runtime.set_variables(task.execution_id, {"calledGreeting": "Hello from the callee"})
    assert runtime.get_variable(pi.id, "greeting") == "Hello from the caller"
    engine.complete_task(task.id)
    assert runtime.get_variable(pi.id, "greeting") == "Hello from the callee"

    runtime.set_variables(pi.id, {"base": 5})
    engine.complete_task(single_task(engine, pi.id).id)
    called = called_instance_id(engine, pi.id, "expressionCall")
    task = single_task(engine, called)
    assert runtime.get_variable(task.execution_id, "doubled") == 10
    engine.complete_task(task.id)
    assert runtime.get_variable(pi.id, "doubledPlusOne") == 11
    assert "doubled" not in runtime.get_variables(pi.id)

    engine.complete_task(single_task(engine, pi.id).id)
    assert_process_ended(engine, pi.id, "finished")
    assert_verified(engine)


def test_row_29_parallel_multi_instance_user_tasks(engine: Engine) -> None:
    """Row 29: cardinality `${1 + 2}` -> tasks "Review 0..2" assigned `reviewer_${loopCounter}`;
    activity instances 3 -> 2 -> 1 -> ended."""
    deploy(engine, "multi_instance_parallel_user_tasks")
    pi = engine.start_process_instance("parallelReviews")
    tasks = by_name(engine.tasks(process_instance_id=pi.id))
    assert [t.name for t in tasks] == ["Review 0", "Review 1", "Review 2"]
    assert [t.assignee for t in tasks] == ["reviewer_0", "reviewer_1", "reviewer_2"]

    def inner_instances() -> int:
        (body,) = engine.runtime_service.activity_instance_tree(pi.id).child_activity_instances
        assert body.activity_type == "multiInstanceBody"
        return len(body.child_activity_instances)

    assert inner_instances() == 3
    for left, task in zip((2, 1, 0), tasks, strict=True):
        engine.complete_task(task.id)
        assert len(engine.tasks(process_instance_id=pi.id)) == left
        if left:
            assert inner_instances() == left
    assert_process_ended(engine, pi.id, "published")
    types = [a.activity_type for a in engine.historic_activity_instances(pi.id)]
    assert types.count("multiInstanceBody") == 1 and types.count("userTask") == 3
    assert_verified(engine)


def test_row_30_parallel_multi_instance_completion_condition(engine: Engine) -> None:
    """Row 30: cardinality 5, `nrOfCompletedInstances / nrOfInstances >= 0.5`: the third
    completion cancels the other two and ends the instance."""
    deploy(engine, "multi_instance_parallel_completion_condition")
    pi = engine.start_process_instance("halfOfFive")
    tasks = engine.tasks(process_instance_id=pi.id)
    assert len(tasks) == 5
    for task in tasks[:2]:
        engine.complete_task(task.id)
    assert len(engine.tasks(process_instance_id=pi.id)) == 3
    engine.complete_task(tasks[2].id)
    assert engine.tasks(process_instance_id=pi.id) == []
    assert_process_ended(engine, pi.id, "counted")
    history = engine.history_service.historic_task_instances(pi.id)
    assert len(history) == 5 and all(t.end_time is not None for t in history)
    assert_verified(engine)


def test_row_31_parallel_multi_instance_collection(engine: Engine) -> None:
    """Row 31: a collection of 5 approvers -> 5 tasks, one per approver; `>= 0.6` -> after three
    completions no task is left and the instance ended."""
    deploy(engine, "multi_instance_parallel_collection")
    approvers = ["ada", "bob", "cy", "dee", "eve"]
    pi = engine.start_process_instance("votePerApprover", {"approvers": approvers})
    tasks = engine.tasks(process_instance_id=pi.id)
    assert sorted(t.assignee or "" for t in tasks) == approvers
    for task in tasks[:2]:
        engine.complete_task(task.id)
    assert len(engine.tasks(process_instance_id=pi.id)) == 3
    engine.complete_task(tasks[2].id)
    assert engine.tasks(process_instance_id=pi.id) == []
    assert_process_ended(engine, pi.id, "accepted")
    assert_verified(engine)


def test_row_32_sequential_multi_instance_subprocess(engine: Engine) -> None:
    """Row 32: sequential, cardinality 4, `nrOfCompletedInstances == 3`; each round has two
    parallel tasks; the instance ends after three rounds."""
    deploy(engine, "multi_instance_sequential_subprocess_completion")
    pi = engine.start_process_instance("threeRounds")
    for _ in range(3):
        tasks = engine.tasks(process_instance_id=pi.id)
        assert names(tasks) == ["Measure", "Record"]
        for task in tasks:
            engine.complete_task(task.id)
    assert_process_ended(engine, pi.id, "finished")
    rounds = [a for a in engine.historic_activity_instances(pi.id) if a.activity_id == "round"]
    assert len([a for a in rounds if a.activity_type == "subProcess"]) == 3
    assert_verified(engine)


def test_row_33_async_after_manual_task(engine: Engine) -> None:
    """Row 33: the task's start and end listeners ran; one job waits after the task; executing
    it ends the instance."""
    deploy(engine, "async_after_manual_task")
    pi = engine.start_process_instance("asyncAfterManual")
    assert engine.runtime_service.get_variables(pi.id) == {"stampStarted": True, "stampEnded": True}
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert historic_state(engine, pi.id) == "ACTIVE"
    engine.management_service.execute_job(job.id)
    assert engine.management_service.jobs(process_instance_id=pi.id) == []
    assert_process_ended(engine, pi.id, "filed")
    assert_verified(engine)


def test_row_34_async_script_task(engine: Engine) -> None:
    """Row 34: after start one job and the script has not run; after the job runs no job, the
    script's variable is set and the instance waits in the receive task."""
    deploy(engine, "async_script_task")
    pi = engine.start_process_instance("asyncScript")
    assert len(engine.management_service.jobs(process_instance_id=pi.id)) == 1
    assert "processed" not in engine.runtime_service.get_variables(pi.id)
    assert engine.run_due_jobs() == 1
    assert engine.management_service.jobs(process_instance_id=pi.id) == []
    assert engine.runtime_service.get_variable(pi.id, "processed") == "yes"
    assert [e.activity_id for e in engine.runtime_service.executions(pi.id)] == ["awaitAck"]
    assert_verified(engine)


def test_row_35_async_start_event(engine: Engine) -> None:
    """Row 35: no task until the job runs (one execution, at the start event); then the user
    task exists. The model's Camunda prefix is `c7:`: extensions are found by namespace URI."""
    deploy(engine, "async_start_event")
    pi = engine.start_process_instance("asyncStart")
    assert engine.tasks(process_instance_id=pi.id) == []
    assert [e.activity_id for e in engine.runtime_service.executions(pi.id)] == ["requested"]
    assert len(engine.management_service.jobs(process_instance_id=pi.id)) == 1
    assert engine.run_due_jobs() == 1
    assert single_task(engine, pi.id).task_definition_key == "handle"
    assert_verified(engine)


# -- rows 36-37: compensation ----------------------------------------------------------------


def _waiting_in(engine: Engine, pid: str, activity_id: str) -> str:
    (execution,) = [
        e for e in engine.runtime_service.executions(pid) if e.activity_id == activity_id
    ]
    return execution.id


def test_row_36_compensate_activity_in_subprocess(engine: Engine) -> None:
    """Row 36: a throw naming a completed subprocess compensates the task inside it: its
    handler runs (once), the throw waits for it, then the flow goes on to the end."""
    deploy(engine, "compensation_activity_in_subprocess")
    pi = engine.start_process_instance("refundOrder")
    engine.complete_task(single_task(engine, pi.id).id)
    engine.runtime_service.trigger(_waiting_in(engine, pi.id, "awaitCancellation"))
    refund = single_task(engine, pi.id)
    assert refund.name == "Refund card"
    assert [e.activity_id for e in engine.runtime_service.executions(pi.id)].count(
        "awaitConfirmation"
    ) == 0
    engine.complete_task(refund.id)
    engine.runtime_service.trigger(_waiting_in(engine, pi.id, "awaitConfirmation"))
    assert_process_ended(engine, pi.id, "refunded")
    assert historic_activity_ids(engine, pi.id).count("refundCard") == 1
    assert_verified(engine)


def test_row_37_compensation_event_subprocess(engine: Engine) -> None:
    """Row 37: the compensation end event compensates the completed subprocess through its
    compensation event subprocess, which releases train, then room (one throw each), then
    informs the traveller; the instance then ends."""
    deploy(engine, "compensation_event_subprocess_order")
    pi = engine.start_process_instance("tripBooking")
    for name in ("Reserve room", "Reserve train"):
        (task,) = [t for t in engine.tasks(process_instance_id=pi.id) if t.name == name]
        engine.complete_task(task.id)
    engine.complete_task(single_task(engine, pi.id).id, {"approved": False})
    for name in ("Release train", "Release room", "Inform traveller"):
        task = single_task(engine, pi.id)
        assert task.name == name
        engine.complete_task(task.id)
    assert_process_ended(engine, pi.id, "cancelTrip")
    types = {a.activity_id: a.activity_type for a in engine.historic_activity_instances(pi.id)}
    assert types["undoStarted"] == "compensationStartEvent"
    assert types["cancelTrip"] == "compensationEndEvent"
    assert_verified(engine)


# -- rows 38-40: conditional events ----------------------------------------------------------


def test_row_38_intermediate_conditional_event(engine: Engine) -> None:
    """Row 38: an intermediate conditional event whose condition is false waits with one
    `conditional` subscription; the variable change that makes it true ends the instance."""
    deploy(engine, "conditional_intermediate_catch")
    pi = engine.start_process_instance("awaitRestock", {"stockLevel": 0})
    (waiting,) = [
        e for e in engine.runtime_service.executions(pi.id) if e.activity_id == "restocked"
    ]
    (subscription,) = engine.runtime_service.event_subscriptions(process_instance_id=pi.id)
    assert (subscription.event_type, subscription.activity_id) == ("conditional", "restocked")
    engine.runtime_service.set_variables(waiting.id, {"stockLevel": 2})
    assert engine.runtime_service.event_subscriptions(process_instance_id=pi.id) != []
    engine.runtime_service.set_variables(waiting.id, {"stockLevel": 1})
    assert_process_ended(engine, pi.id, "shipped")
    assert engine.runtime_service.event_subscriptions(process_instance_id=pi.id) == []
    assert "restocked" in historic_activity_ids(engine, pi.id)
    assert_verified(engine)


def test_row_39_conditional_event_subprocess_start(engine: Engine) -> None:
    """Row 39: a variable set through the user task makes the interrupting conditional start
    true: the handler's task replaces the reviewed one."""
    deploy(engine, "conditional_event_subprocess_interrupting")
    pi = engine.start_process_instance("orderReview")
    task = single_task(engine, pi.id)
    assert task.name == "Review order"
    engine.task_service.set_variables(task.id, {"cancelled": 1})
    refund = single_task(engine, pi.id)
    assert refund.name == "Refund customer"
    types = {
        a.activity_id: (a.activity_type, a.canceled)
        for a in engine.history_service.historic_activity_instances(pi.id)
    }
    assert types["review"] == ("userTask", True)
    assert types["cancelRequested"] == ("conditionalStartEvent", False)
    engine.complete_task(refund.id)
    assert_process_ended(engine, pi.id)
    assert_verified(engine)


def test_row_40_conditional_start_event(engine: Engine) -> None:
    """Row 40: evaluating the start conditions with a true condition starts exactly one
    instance, which holds the evaluated variables; a false one starts none."""
    deploy(engine, "conditional_start_event")
    assert engine.runtime_service.evaluate_conditions({"alarm": 0}) == []
    (started,) = engine.runtime_service.evaluate_conditions({"alarm": 1}, business_key="a-1")
    assert started.business_key == "a-1"
    assert engine.runtime_service.get_variables(started.id) == {"alarm": 1}
    assert single_task(engine, started.id).name == "Respond to alarm"
    assert "alarmRaised" in historic_activity_ids(engine, started.id)
    assert_verified(engine)


# -- rows 41-44: user task assignment, script and expression results ---------------------------


def test_row_41_multiple_candidate_groups(engine: Engine) -> None:
    """Row 41: `potentialOwner` with two groups: unassigned; each group finds it, a third does
    not; once claimed it leaves the candidate lists and is on the claimer's list."""
    directory = Directory({"ada": ["finance"], "bob": ["travelDesk", "finance", "sales"]})
    deploy(engine, "user_task_candidate_groups_potential_owner")
    pi = engine.start_process_instance("expenseApproval")

    assert engine.tasks(assignee="ada") == []
    assert engine.tasks(assignee="bob") == []
    assert len(directory.candidate_tasks(engine, "ada")) == 1
    assert len(directory.candidate_tasks(engine, "bob")) == 1
    assert len(engine.tasks(candidate_group="finance")) == 1
    assert len(engine.tasks(candidate_group="travelDesk")) == 1
    assert len(engine.tasks(candidate_group="sales")) == 0

    (task,) = directory.candidate_tasks(engine, "bob")
    assert task.name == "Approve travel expenses"
    assert task.assignee is None
    assert sorted(task.candidate_groups) == ["finance", "travelDesk"]
    engine.claim(task.id, "bob")

    assert directory.candidate_tasks(engine, "ada") == []
    assert directory.candidate_tasks(engine, "bob") == []
    assert len(engine.tasks(candidate_group="finance")) == 0
    assert len(engine.tasks(assignee="bob")) == 1
    assert len(engine.tasks(assignee="ada")) == 0

    engine.complete_task(task.id)
    assert_process_ended(engine, pi.id, "reimbursed")
    (historic,) = engine.history_service.historic_task_instances(pi.id)
    assert historic.assignee == "bob"
    assert historic.end_time is not None
    assert_verified(engine)


def test_row_42_candidate_groups_and_assignee_extensions(engine: Engine) -> None:
    """Row 42: `camunda:candidateGroups="finance, board"`: each group finds the task and a member
    of both sees it once; `camunda:assignee="ada"` is found by assignee."""
    directory = Directory({"ada": ["finance", "board"], "cy": ["board"]})
    deploy(engine, "user_task_assignment_extensions")
    groups_pi = engine.start_process_instance("groupsByExtension")

    tasks = directory.candidate_tasks(engine, "ada")
    assert [t.name for t in tasks] == ["Plan the budget"]
    assert sorted(tasks[0].candidate_groups) == ["board", "finance"]
    assert [t.name for t in directory.candidate_tasks(engine, "cy")] == ["Plan the budget"]
    assert len(engine.tasks(candidate_group="finance")) == 1
    assert len(engine.tasks(candidate_group="board")) == 1

    assignee_pi = engine.start_process_instance("assigneeByExtension")
    tasks = engine.tasks(assignee="ada")
    assert [t.name for t in tasks] == ["Write the minutes"]
    assert tasks[0].process_instance_id == assignee_pi.id

    for pi, end in ((groups_pi, "groupsEnd"), (assignee_pi, "assigneeEnd")):
        engine.complete_task(single_task(engine, pi.id).id)
        assert_process_ended(engine, pi.id, end)
    (historic,) = engine.history_service.historic_task_instances(assignee_pi.id)
    assert historic.assignee == "ada"
    assert_verified(engine)


def test_row_43_script_result_to_process_variable(engine: Engine) -> None:
    """Row 43: juel scripts with `camunda:resultVariable`: an existing variable is overwritten, a
    new one holds the execution's id (the process instance's); no result variable, no write."""
    deploy(engine, "script_task_result_variable")
    pi = engine.start_process_instance(
        "scriptResults", {"newStatus": "approved", "status": "draft"}
    )
    variables = engine.runtime_service.get_variables(pi.id)
    assert variables["status"] == "approved"
    assert variables["instanceRef"] == pi.id
    assert sorted(variables) == ["instanceRef", "newStatus", "status"]
    assert engine.runtime_service.get_variables_typed(pi.id)["status"] == ("approved", "String")

    task = single_task(engine, pi.id)
    assert task.name == "Hold the instance open"
    engine.complete_task(task.id)
    assert_process_ended(engine, pi.id, "finished")
    historic = {v.name: v.value for v in engine.history_service.historic_variable_instances(pi.id)}
    assert historic["status"] == "approved"
    assert historic["instanceRef"] == pi.id
    assert_verified(engine)


class Pricing:
    """A bean the expression `#{pricing.quote}` reads a property of."""

    def __init__(self, quote: str) -> None:
        self.quote = quote


def test_row_44_service_result_to_process_variable(engine: Engine) -> None:
    """Row 44: `camunda:expression="#{pricing.quote}"` with a result variable stores the value;
    the same expression without one stores nothing."""
    engine.register_delegate("pricing", Pricing("120 EUR"))
    deploy(engine, "service_task_expression_result_variable")
    pi = engine.start_process_instance("expressionResult")
    assert engine.runtime_service.get_variables(pi.id) == {"price": "120 EUR"}

    task = single_task(engine, pi.id)
    assert task.task_definition_key == "accept"
    engine.complete_task(task.id)
    assert_process_ended(engine, pi.id, "finished")
    assert_verified(engine)


# -- rows 45-48: input/output mappings and execution listeners ----------------------------------


def test_row_45_input_el_value(engine: Engine) -> None:
    """Row 45: an input parameter `${2 * 3}` is a variable local to the activity, a Long 6."""
    deploy(engine, "io_mapping_input_expression")
    pi = engine.start_process_instance("inputMapping")
    (execution,) = [
        e for e in engine.runtime_service.executions(pi.id) if e.activity_id == "awaitParcel"
    ]
    assert execution.id != pi.id  # the mapped activity has an execution of its own
    assert engine.runtime_service.get_variables_typed(execution.id, local=True) == {
        "attempts": (6, "Long")
    }
    assert "attempts" not in engine.runtime_service.get_variables(pi.id, local=True)
    assert_verified(engine)


def test_row_46_output_el_value(engine: Engine) -> None:
    """Row 46: an output parameter `${40 + 2}` lands on the process instance's scope, a Long."""
    deploy(engine, "io_mapping_output_expression")
    pi = engine.start_process_instance("outputMapping")
    assert engine.runtime_service.get_variables_typed(pi.id, local=True) == {"total": (42, "Long")}
    assert_verified(engine)


def test_row_47_subprocess_io_support(engine: Engine) -> None:
    """Row 47: the subprocess's input `label=${address}` is its only local variable; after it the
    output `shippedTo=${label}` is on the instance."""
    deploy(engine, "io_mapping_subprocess")
    pi = engine.start_process_instance("subprocessMapping", {"address": "12 Harbour Road"})
    task = single_task(engine, pi.id)
    assert task.task_definition_key == "printLabel"
    assert task.execution_id != pi.id  # the task runs on the subprocess's scope execution
    assert engine.runtime_service.get_variables(task.execution_id, local=True) == {
        "label": "12 Harbour Road"
    }
    assert engine.runtime_service.get_variables(pi.id, local=True) == {"address": "12 Harbour Road"}
    engine.complete_task(task.id)
    assert engine.runtime_service.get_variables(pi.id) == {
        "address": "12 Harbour Road",
        "shippedTo": "12 Harbour Road",
    }
    assert_verified(engine)


def test_row_48_script_execution_listeners(tmp_path: Path) -> None:
    """Row 48: the instance ends at once; exactly five historic variables, `<activity>-<event>`
    for the start event's start and end, the flow's take and the end event's start and end,
    each true.

    The listeners are Groovy, which flowledger does not run: the model as written is refused at
    deploy naming the language; a copy with the same one-line scripts in Python
    (`scriptFormat="python"`, Groovy's `true` spelt `True`, on an engine that allows scripts)
    runs as Camunda's test asserts."""
    groovy = model("execution_listener_scripts").read_text()
    python = groovy.replace('scriptFormat="groovy"', 'scriptFormat="python"')
    python = python.replace(", true)", ", True)")
    with (
        fresh_database(selected_kind(), tmp_path) as url,
        Engine(url, allow_scripts=True, history_level="full") as engine,
    ):
        with pytest.raises(ModelError, match="a script in 'groovy': only juel and python"):
            engine.deploy(groovy)
        engine.deploy(python)
        pi = engine.start_process_instance("listenedProcess")
        assert_process_ended(engine, pi.id, "closed")
        variables = {
            v.name: v.value for v in engine.history_service.historic_variable_instances(pi.id)
        }
        assert variables == {
            "opened-start": True,
            "opened-end": True,
            "opened-take": True,
            "closed-start": True,
            "closed-end": True,
        }
        assert_verified(engine)


# -- rows 49-50: external tasks ---------------------------------------------------------------


def test_row_49_external_task_fetch_failure_extend_lock(
    engine: Engine, clock: ControllableClock
) -> None:
    """Row 49: fetch-and-lock names the activity, topic, worker and a lock until now + duration;
    a failure with retries and a retry timeout hides the task until the timeout passes, then it
    comes back with the error message; extending the lock moves its expiry to now + duration."""
    deploy(engine, "external_task_single")
    pi = engine.start_process_instance("externalSingle")

    (task,) = engine.external_task_service.fetch_and_lock(WORKER, {TOPIC: LOCK_MS}, 1)
    assert task.process_instance_id == pi.id
    assert task.process_definition_id == pi.definition_id
    assert task.process_definition_key == "externalSingle"
    assert task.activity_id == "sendInvoice"
    assert task.topic_name == TOPIC
    assert task.worker_id == WORKER
    assert task.lock_expiration_time == clock.now() + timedelta(milliseconds=LOCK_MS)
    (node,) = engine.runtime_service.activity_instance_tree(pi.id).child_activity_instances
    assert node.activity_id == "sendInvoice"
    assert task.activity_instance_id == node.id
    assert task.execution_id == node.execution_ids[0]
    # Locked: another fetch gets nothing.
    assert engine.external_task_service.fetch_and_lock("worker-8", {TOPIC: LOCK_MS}, 1) == []

    clock.advance(seconds=3)
    engine.external_task_service.handle_failure(
        task.id, WORKER, "mail server down", retries=5, retry_timeout=3000
    )
    assert engine.external_task_service.fetch_and_lock(WORKER, {TOPIC: LOCK_MS}, 5) == []
    clock.advance(seconds=4)
    (task,) = engine.external_task_service.fetch_and_lock(WORKER, {TOPIC: LOCK_MS}, 5)
    assert task.error_message == "mail server down"
    assert task.retries == 5

    engine.external_task_service.extend_lock(task.id, WORKER, 100)
    (locked,) = engine.external_task_service.external_tasks(external_task_id=task.id)
    assert locked.worker_id == WORKER
    assert locked.lock_expiration_time == clock.now() + timedelta(milliseconds=100)

    engine.external_task_service.complete(task.id, WORKER)
    assert engine.external_task_service.external_tasks() == []
    assert_process_ended(engine, pi.id, "finished")
    assert_verified(engine)


def test_row_50_external_task_complete_and_bpmn_error(engine: Engine) -> None:
    """Row 50: completing leaves nothing to fetch and the token in the next task; a BPMN error
    from the worker removes the external task and the error boundary's task is active."""
    deploy(engine, "external_task_with_error_boundary")

    completed = engine.start_process_instance("externalWithError")
    (task,) = engine.external_task_service.fetch_and_lock(WORKER, {TOPIC: LOCK_MS}, 1)
    engine.external_task_service.complete(task.id, WORKER)
    assert engine.external_task_service.fetch_and_lock(WORKER, {TOPIC: LOCK_MS}, 1) == []
    tree = engine.runtime_service.activity_instance_tree(completed.id)
    assert child_activity_ids(tree) == ["ship"]
    assert tree.child_activity_instances[0].child_activity_instances == []

    failed = engine.start_process_instance("externalWithError")
    (task,) = engine.external_task_service.fetch_and_lock(WORKER, {TOPIC: LOCK_MS}, 1)
    assert task.process_instance_id == failed.id
    engine.external_task_service.handle_bpmn_error(task.id, WORKER, "CARD_DECLINED")
    assert engine.external_task_service.fetch_and_lock(WORKER, {TOPIC: LOCK_MS}, 1) == []
    assert engine.external_task_service.external_tasks() == []
    assert single_task(engine, failed.id).task_definition_key == "askForOtherCard"
    assert "declined" in historic_activity_ids(engine, failed.id)

    for pi, key, end in (
        (completed, "ship", "finished"),
        (failed, "askForOtherCard", None),  # no outgoing flow: an implicit end
    ):
        task_view = single_task(engine, pi.id)
        assert task_view.task_definition_key == key
        engine.complete_task(task_view.id)
        assert_process_ended(engine, pi.id, end)
    assert_verified(engine)
