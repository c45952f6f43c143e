"""Deploy what Camunda deploys (1): a `timeDate` written as a duration (`PT5M`) counts from the
timer's creation, as Camunda's DueDateBusinessCalendar reads it; `camunda:asyncAfter` (and
`asyncBefore`) on a boundary event makes a job once the event fired (Camunda's AsyncAfterTest
.testAsyncAfterBoundaryEvent); `camunda:decisionRefTenantId` deploys, and finds a decision only
when it names no tenant (flowledger deploys every definition without one).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from flowledger import ControllableClock, Engine, ProcessEngineError
from tests.core.test_jobs import chain, process
from tests.dmn.models import dish


def test_a_time_date_that_is_a_duration_counts_from_the_timers_creation(
    engine: Engine, clock: ControllableClock
) -> None:
    engine.deploy(
        process(
            chain(
                '<intermediateCatchEvent id="wait"><timerEventDefinition>'
                "<timeDate>PT5M</timeDate></timerEventDefinition></intermediateCatchEvent>",
                '<userTask id="after"/>',
            )
        )
    )
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.due_date == datetime(2026, 3, 1, 9, 5, tzinfo=UTC)
    clock.advance(minutes=4)
    assert engine.run_due_jobs() == 0
    clock.advance(minutes=1)
    assert engine.run_due_jobs() == 1
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["after"]


def test_a_time_date_expression_giving_a_duration_counts_from_now(
    engine: Engine, clock: ControllableClock
) -> None:
    engine.deploy(
        process(
            chain(
                '<userTask id="task"/>',
            )
            + '<boundaryEvent id="late" attachedToRef="task"><timerEventDefinition>'
            "<timeDate>${wait}</timeDate></timerEventDefinition></boundaryEvent>"
            '<sequenceFlow id="toLate" sourceRef="late" targetRef="escalated"/>'
            '<userTask id="escalated"/>'
        )
    )
    pi = engine.start_process_instance("p", variables={"wait": "P1D"})
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.due_date == datetime(2026, 3, 1, 9, tzinfo=UTC) + timedelta(days=1)
    clock.advance(days=1)
    assert engine.run_due_jobs() == 1
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["escalated"]


def _boundary_process(attribute: str) -> str:
    """Camunda's AsyncAfterTest.testAsyncAfterBoundaryEvent: a message boundary event on a user
    task, asynchronous as `attribute` says, leading to a second user task."""
    return (
        process(
            chain('<userTask id="task"/>')
            + f'<boundaryEvent id="received" {attribute} attachedToRef="task">'
            '<messageEventDefinition messageRef="m"/></boundaryEvent>'
            '<sequenceFlow id="toNext" sourceRef="received" targetRef="next"/>'
            '<userTask id="next"/><sequenceFlow id="toDone" sourceRef="next" targetRef="done"/>'
            '<endEvent id="done"/>'
        )
        .replace("</definitions>", '<message id="m" name="foo"/></definitions>')
        .encode()
    )


@pytest.mark.parametrize(
    ("attribute", "configuration"),
    [
        ('camunda:asyncAfter="true"', "transition-notify-listener-take$toNext"),
        ('camunda:asyncBefore="true"', "transition-create-scope"),
    ],
)
def test_an_asynchronous_boundary_event_continues_in_a_job(
    engine: Engine, attribute: str, configuration: str
) -> None:
    engine.deploy({"boundary.bpmn": _boundary_process(attribute)})
    pi = engine.start_process_instance("p")
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["task"]
    engine.runtime_service.correlate_message("foo")
    # the attached task is gone, the boundary event's job waits
    assert engine.tasks(process_instance_id=pi.id) == []
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert (job.activity_id, job.handler_type, job.handler_configuration) == (
        "received",
        "async-continuation",
        configuration,
    )
    assert engine.run_due_jobs() == 1
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["next"]
    engine.complete_task(engine.tasks(process_instance_id=pi.id)[0].id)
    assert engine.runtime_service.process_instance(pi.id).ended
    types = {a.activity_id: a.activity_type for a in engine.historic_activity_instances(pi.id)}
    assert types["received"] == "boundaryMessage"


def _decision_process(tenant: str) -> bytes:
    return process(
        chain(
            f'<businessRuleTask id="brt" camunda:decisionRef="dish" {tenant} '
            'camunda:resultVariable="meal" camunda:mapDecisionResult="singleEntry"/>',
            '<userTask id="wait"/>',
        )
    ).encode()


@pytest.mark.parametrize("tenant", ["", 'camunda:decisionRefTenantId="${tenant}"'])
def test_a_decision_without_a_tenant_is_evaluated(engine: Engine, tenant: str) -> None:
    engine.deploy({"dish.dmn": dish(), "p.bpmn": _decision_process(tenant)})
    pi = engine.start_process_instance(
        "p", variables={"season": "Fall", "guestCount": 4, "tenant": None}
    )
    assert engine.runtime_service.get_variable(pi.id, "meal") == "Spareribs"


def test_a_decision_of_a_named_tenant_is_not_found(engine: Engine) -> None:
    engine.deploy(
        {
            "dish.dmn": dish(),
            "p.bpmn": _decision_process('camunda:decisionRefTenantId="tenant1"'),
        }
    )
    with pytest.raises(
        ProcessEngineError, match=r"'brt' evaluates the decision 'dish' of tenant 'tenant1'"
    ):
        engine.start_process_instance("p", variables={"season": "Fall", "guestCount": 4})
