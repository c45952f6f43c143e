"""External tasks in the domain alone: created, locked, completed, failed with retries, and a
BPMN error reported by the worker caught on the task's boundary. No database.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from flowledger.core import events as ev
from flowledger.core.commands import (
    CompleteExternalTask,
    FetchAndLock,
    HandleExternalTaskBpmnError,
    HandleExternalTaskFailure,
    StartProcessInstance,
    TopicRequest,
)
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.variables import StoredValue
from tests.domain.harness import NOW, Scenario, bpmn, like

INVOICE = bpmn(
    "invoicing",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="createInvoice"/>
    <serviceTask id="createInvoice" camunda:type="external" camunda:topic="invoice"
                 camunda:taskPriority="${priority}"/>
    <boundaryEvent id="onRejected" attachedToRef="createInvoice">
      <errorEventDefinition errorRef="rejected" camunda:errorCodeVariable="errorCode"/>
    </boundaryEvent>
    <sequenceFlow id="f2" sourceRef="createInvoice" targetRef="check"/>
    <sequenceFlow id="f3" sourceRef="onRejected" targetRef="fix"/>
    <userTask id="check"/>
    <userTask id="fix"/>
    """,
    errors={"rejected": "REJECTED"},
)
MINUTE_MS = 60_000


def fetch(worker: str, lock_ms: int = MINUTE_MS) -> FetchAndLock:
    return FetchAndLock(worker_id=worker, topics=[TopicRequest("invoice", lock_ms)])


@pytest.fixture
def waiting(scenario: Scenario) -> Scenario:
    """An instance whose token waits in the external task, not locked yet."""
    start = StartProcessInstance(key="invoicing", variables={"priority": 7})
    return scenario.given(INVOICE, *scenario.recorded(INVOICE, start))


@pytest.fixture
def locked(waiting: Scenario) -> Scenario:
    """As `waiting`, locked by worker w1 for a minute."""
    return waiting.when(fetch("w1")).then(like(ev.ExternalTaskLocked, worker_id="w1"))


def test_reaching_the_task_creates_it_for_its_topic(scenario: Scenario) -> None:
    scenario.given(INVOICE).when(
        StartProcessInstance(key="invoicing", variables={"priority": 7})
    ).then(
        like(ev.ExternalTaskCreated, activity_id="createInvoice", topic="invoice", priority=7)
    ).then_activities(started=["start", "createInvoice"], completed=["start"])


def test_a_locked_task_is_not_fetched_again_until_its_lock_expires(waiting: Scenario) -> None:
    task = waiting.external_task("createInvoice")
    waiting.when(fetch("w1")).then_exactly(
        ev.ExternalTaskLocked(
            external_task_id=task,
            worker_id="w1",
            lock_expiration=NOW + timedelta(minutes=1),
            time=NOW,
        )
    )
    waiting.when(fetch("w2")).then_exactly()
    waiting.advance(minutes=2).when(fetch("w2")).then(
        like(ev.ExternalTaskLocked, worker_id="w2", lock_expiration=NOW + timedelta(minutes=3))
    )


def test_completing_the_task_moves_on_with_the_worker_variables(locked: Scenario) -> None:
    task = locked.external_task("createInvoice")
    locked.when(
        CompleteExternalTask(external_task_id=task, worker_id="w1", variables={"invoice": "I-9"})
    ).then(like(ev.VariableSet, name="invoice", value=StoredValue("string", "I-9"))).then(
        like(ev.ExternalTaskCompleted, external_task_id=task, worker_id="w1")
    ).then_activities(started=["check"], completed=["createInvoice"])


def test_only_the_worker_holding_the_lock_may_complete(waiting: Scenario) -> None:
    task = waiting.external_task("createInvoice")
    waiting.when(CompleteExternalTask(external_task_id=task, worker_id="w1"))
    waiting.then_raises(Rejected, "It is not locked")
    waiting.when(fetch("w1")).when(CompleteExternalTask(external_task_id=task, worker_id="w2"))
    waiting.then_raises(Rejected, "locked by worker 'w1'")


def test_completing_an_unknown_external_task_is_refused(waiting: Scenario) -> None:
    waiting.when(CompleteExternalTask(external_task_id="nope", worker_id="w1"))
    waiting.then_raises(NotFound, "External task 'nope'")


def test_a_failure_with_retries_left_is_fetchable_after_the_retry_timeout(locked: Scenario) -> None:
    task = locked.external_task("createInvoice")
    locked.when(
        HandleExternalTaskFailure(
            external_task_id=task,
            worker_id="w1",
            error_message="printer jammed",
            retries=2,
            retry_timeout=30_000,
        )
    ).then_exactly(
        ev.ExternalTaskFailed(
            external_task_id=task,
            worker_id="w1",
            error_message="printer jammed",
            error_details=None,
            retries=2,
            retry_at=NOW + timedelta(seconds=30),
            time=NOW,
        )
    )
    locked.advance(seconds=10).when(fetch("w2")).then_exactly()
    locked.advance(seconds=30).when(fetch("w2")).then(like(ev.ExternalTaskLocked, worker_id="w2"))


def test_a_failure_without_retries_left_is_never_fetched_again(locked: Scenario) -> None:
    task = locked.external_task("createInvoice")
    locked.when(HandleExternalTaskFailure(external_task_id=task, worker_id="w1", retries=0)).then(
        like(ev.ExternalTaskFailed, retries=0)
    ).then_no(ev.ActivityCompleted, ev.ActivityCanceled)
    locked.advance(days=1).when(fetch("w2")).then_exactly()


def test_negative_retries_are_refused(locked: Scenario) -> None:
    task = locked.external_task("createInvoice")
    locked.when(HandleExternalTaskFailure(external_task_id=task, worker_id="w1", retries=-1))
    locked.then_raises(Rejected, "retries must not be negative")


def test_a_bpmn_error_from_the_worker_is_caught_by_the_boundary_event(locked: Scenario) -> None:
    task = locked.external_task("createInvoice")
    locked.when(
        HandleExternalTaskBpmnError(
            external_task_id=task, worker_id="w1", error_code="REJECTED", error_message="no VAT id"
        )
    ).then(
        like(ev.ExternalTaskBpmnErrorReported, external_task_id=task, error_code="REJECTED")
    ).then(
        like(
            ev.BpmnErrorThrown,
            error_code="REJECTED",
            error_message="no VAT id",
            caught_by="onRejected",
        )
    ).then(
        like(ev.VariableSet, name="errorCode", value=StoredValue("string", "REJECTED"))
    ).then_activities(
        started=["onRejected", "fix"], completed=["onRejected"], canceled=["createInvoice"]
    ).then(like(ev.UserTaskCreated, task_definition_key="fix"))
    assert locked.state.external_tasks == {}
