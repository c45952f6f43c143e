"""User tasks in the domain alone: start to a task, complete to the end, claim and assign, refusals.

No database: events in, a command decided, events out (tests/domain/harness.py).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from flowledger.core import events as ev
from flowledger.core.commands import (
    ClaimTask,
    CompleteTask,
    DeleteProcessInstance,
    SetAssignee,
    StartProcessInstance,
    Trigger,
    UnclaimTask,
)
from flowledger.core.errors import InvalidValue, NotFound, Rejected, TaskAlreadyClaimed
from flowledger.core.variables import StoredValue
from tests.domain.harness import DEPLOYMENT_ID, NOW, Scenario, bpmn, definition_id, like

REVIEW = bpmn(
    "orderReview",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="review"/>
    <userTask id="review" name="Review"/>
    <sequenceFlow id="f2" sourceRef="review" targetRef="end"/>
    <endEvent id="end"/>
    """,
)
INSTANCE = "pi-1"
TASK = "task-1"
REVIEW_AI = "review:ai-2"


def waiting_at_review() -> list[ev.Event]:
    """The facts of an instance of REVIEW whose token waits in the user task."""
    return [
        ev.ProcessInstanceStarted(
            process_instance_id=INSTANCE,
            definition_id=definition_id(REVIEW),
            definition_key="orderReview",
            definition_version=1,
            deployment_id=DEPLOYMENT_ID,
            business_key=None,
            start_activity_id="start",
            time=NOW,
        ),
        ev.ActivityStarted(
            activity_instance_id="start:ai-1",
            activity_id="start",
            activity_type="startEvent",
            activity_name=None,
            execution_id=INSTANCE,
            parent_activity_instance_id=INSTANCE,
            time=NOW,
        ),
        ev.ActivityCompleted(activity_instance_id="start:ai-1", time=NOW),
        ev.ActivityStarted(
            activity_instance_id=REVIEW_AI,
            activity_id="review",
            activity_type="userTask",
            activity_name="Review",
            execution_id=INSTANCE,
            parent_activity_instance_id=INSTANCE,
            time=NOW,
            flow_id="f1",
        ),
        ev.UserTaskCreated(
            task_id=TASK,
            execution_id=INSTANCE,
            activity_instance_id=REVIEW_AI,
            task_definition_key="review",
            name="Review",
            time=NOW,
        ),
    ]


def test_start_runs_to_the_user_task_and_waits(scenario: Scenario) -> None:
    (
        scenario.given(REVIEW)
        .when(
            StartProcessInstance(
                key="orderReview", business_key="order-7", variables={"amount": 42}
            )
        )
        .then(
            like(
                ev.ProcessInstanceStarted,
                definition_key="orderReview",
                business_key="order-7",
                start_activity_id="start",
            )
        )
        .then(like(ev.VariableSet, name="amount", value=StoredValue("integer", 42)))
        .then(
            like(ev.ActivityStarted, activity_id="start"),
            like(ev.ActivityCompleted),
            like(ev.ActivityStarted, activity_id="review", activity_type="userTask", flow_id="f1"),
        )
        .then(like(ev.UserTaskCreated, task_definition_key="review", name="Review"))
        .then_no(ev.ProcessInstanceCompleted, ev.TaskCompleted)
    )


def test_completing_the_last_task_ends_the_instance(scenario: Scenario) -> None:
    """Counted ids and a fixed clock make every field known: the whole batch, compared exactly."""
    scenario.given(REVIEW, *waiting_at_review()).when(
        CompleteTask(task_id=TASK, variables={"approved": True})
    ).then_exactly(
        ev.VariableSet(
            variable_id="id-1",
            name="approved",
            execution_id=INSTANCE,
            value=StoredValue("boolean", True),
            time=NOW,
            detail_id="id-2",
        ),
        ev.TaskCompleted(task_id=TASK, time=NOW),
        ev.ActivityCompleted(activity_instance_id=REVIEW_AI, time=NOW),
        ev.ActivityStarted(
            activity_instance_id="end:id-3",
            activity_id="end",
            activity_type="noneEndEvent",
            activity_name=None,
            execution_id=INSTANCE,
            parent_activity_instance_id=INSTANCE,
            time=NOW,
            flow_id="f2",
        ),
        ev.ActivityCompleted(activity_instance_id="end:id-3", time=NOW, completes_scope=True),
        ev.ProcessInstanceCompleted(end_activity_id="end", time=NOW),
    )
    assert scenario.state.status == "COMPLETED"


def test_a_task_cannot_be_completed_twice(scenario: Scenario) -> None:
    scenario.given(REVIEW, *waiting_at_review()).when(CompleteTask(task_id=TASK)).then(
        like(ev.ProcessInstanceCompleted, end_activity_id="end")
    )
    scenario.when(CompleteTask(task_id=TASK)).then_raises(NotFound, f"Task '{TASK}' not found")


def test_completing_an_unknown_task_is_refused(scenario: Scenario) -> None:
    scenario.given(REVIEW, *waiting_at_review()).when(CompleteTask(task_id="nope"))
    error = scenario.then_raises(NotFound, "does not exist or is already completed")
    assert isinstance(error, NotFound)
    assert (error.kind, error.entity_id) == ("Task", "nope")


def test_claim_unclaim_and_claim_by_someone_else(scenario: Scenario) -> None:
    scenario.given(REVIEW, *waiting_at_review())
    scenario.when(ClaimTask(task_id=TASK, user_id="demo")).then_exactly(
        ev.TaskClaimed(task_id=TASK, assignee="demo", time=NOW)
    )
    scenario.when(ClaimTask(task_id=TASK, user_id="mary")).then_raises(
        TaskAlreadyClaimed, "already claimed by someone else \\('demo'\\)"
    )
    # the refused claim changed nothing: the owner may claim again, and unclaim
    scenario.when(ClaimTask(task_id=TASK, user_id="demo")).then_exactly(
        ev.TaskClaimed(task_id=TASK, assignee="demo", time=NOW)
    )
    scenario.advance(minutes=5).when(UnclaimTask(task_id=TASK)).then_exactly(
        ev.TaskUnclaimed(task_id=TASK, time=NOW + timedelta(minutes=5))
    )
    scenario.when(ClaimTask(task_id=TASK, user_id="mary")).then_exactly(
        ev.TaskClaimed(task_id=TASK, assignee="mary", time=NOW + timedelta(minutes=5))
    )


def test_an_administrator_assigns_over_a_claim(scenario: Scenario) -> None:
    scenario.given(
        REVIEW, *waiting_at_review(), ev.TaskClaimed(task_id=TASK, assignee="demo", time=NOW)
    )
    scenario.when(SetAssignee(task_id=TASK, user_id="mary")).then_exactly(
        ev.TaskAssigned(task_id=TASK, assignee="mary", time=NOW)
    )
    scenario.when(ClaimTask(task_id=TASK, user_id="demo")).then_raises(TaskAlreadyClaimed)


@pytest.mark.parametrize(
    "command",
    [
        ClaimTask(task_id="nope", user_id="demo"),
        UnclaimTask(task_id="nope"),
        SetAssignee(task_id="nope", user_id="demo"),
    ],
    ids=["claim", "unclaim", "assign"],
)
def test_task_commands_on_an_unknown_task_are_refused(
    scenario: Scenario, command: ClaimTask | UnclaimTask | SetAssignee
) -> None:
    scenario.given(REVIEW, *waiting_at_review()).when(command).then_raises(NotFound, "'nope'")


def test_a_user_id_longer_than_its_column_is_refused(scenario: Scenario) -> None:
    scenario.given(REVIEW, *waiting_at_review()).when(ClaimTask(task_id=TASK, user_id="u" * 300))
    scenario.then_raises(InvalidValue, "userId")


def test_commands_on_an_ended_instance_are_refused(scenario: Scenario) -> None:
    ended = [
        *waiting_at_review(),
        ev.TaskCompleted(task_id=TASK, time=NOW),
        ev.ActivityCompleted(activity_instance_id=REVIEW_AI, time=NOW),
        ev.ProcessInstanceCompleted(end_activity_id="review", time=NOW),
    ]
    scenario.given(REVIEW, *ended).when(ClaimTask(task_id=TASK, user_id="demo"))
    scenario.then_raises(NotFound, f"Task '{TASK}'")


def test_deleting_the_instance_cancels_its_task(scenario: Scenario) -> None:
    scenario.given(REVIEW, *waiting_at_review()).when(
        DeleteProcessInstance(process_instance_id=INSTANCE, reason="duplicate order")
    ).then_exactly(
        ev.TaskDeleted(task_id=TASK, reason="duplicate order", time=NOW),
        ev.ActivityCanceled(activity_instance_id=REVIEW_AI, time=NOW),
        ev.ProcessInstanceTerminated(reason="duplicate order", externally=True, time=NOW),
    )
    assert scenario.state.status == "EXTERNALLY_TERMINATED"
    scenario.when(CompleteTask(task_id=TASK)).then_raises(NotFound)


WAIT_FOR_PAYMENT = bpmn(
    "waitForPayment",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="payment"/>
    <receiveTask id="payment"/>
    <sequenceFlow id="f2" sourceRef="payment" targetRef="end"/>
    <endEvent id="end"/>
    """,
)


def test_triggering_a_receive_task_moves_on(scenario: Scenario) -> None:
    scenario.given(WAIT_FOR_PAYMENT).when(StartProcessInstance(key="waitForPayment")).then(
        like(ev.ActivityStarted, activity_id="start"),
        like(ev.ActivityStarted, activity_id="payment", activity_type="receiveTask"),
    ).then_no(ev.ProcessInstanceCompleted)
    instance = scenario.instance_id
    scenario.when(Trigger(execution_id=instance, variables={"paid": 9.5})).then(
        like(ev.VariableSet, name="paid", value=StoredValue("double", 9.5), execution_id=instance)
    ).then(like(ev.ProcessInstanceCompleted, end_activity_id="end"))


def test_only_an_execution_in_a_receive_task_can_be_triggered(scenario: Scenario) -> None:
    scenario.given(REVIEW, *waiting_at_review()).when(Trigger(execution_id=INSTANCE))
    scenario.then_raises(Rejected, "is at 'review'; only executions waiting in a receive task")
    scenario.when(Trigger(execution_id="gone")).then_raises(NotFound, "Execution 'gone'")
