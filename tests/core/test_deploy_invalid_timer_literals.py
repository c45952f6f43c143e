"""Deploy what Camunda deploys (2): a timer whose literal is no ISO 8601 value deploys, as
Camunda's does (it reads the value only when the timer is created), with a warning in the
deployment's answer and in its DeploymentCreated event; the timer then fails when it is created:
the command is refused naming the event, or, inside a job, the job fails into an incident. A
process's timer start event is the exception: Camunda creates its job at deployment, where the
value fails, so it is refused there.
"""

from __future__ import annotations

import pytest

from flowledger import Engine, ModelError, ProcessEngineError
from tests.core.test_jobs import chain, process

BAD_DATE = "<timerEventDefinition><timeDate>next monday</timeDate></timerEventDefinition>"


def _waiting_on_a_bad_timer() -> str:
    return process(
        chain(
            f'<intermediateCatchEvent id="wait">{BAD_DATE}</intermediateCatchEvent>',
            '<userTask id="after"/>',
        )
    )


def test_a_bad_timer_literal_deploys_with_a_warning_naming_the_event(engine: Engine) -> None:
    deployment = engine.deploy({"waits.bpmn": _waiting_on_a_bad_timer().encode()})
    (definition,) = deployment.process_definitions
    (warning,) = deployment.warnings
    assert (warning.resource, warning.element_id, warning.line) == ("waits.bpmn", "wait", 5)
    assert "timeDate 'next monday' is not an ISO 8601 date" in warning.message
    assert "will fail when it is created" in warning.message
    # the log says it too: the deployment's event carries the warning
    (created, *_) = engine.events(deployment.id)
    assert created.type == "DeploymentCreated"
    assert created.payload["warnings"] == [
        {"message": warning.message, "resource": "waits.bpmn", "element_id": "wait", "line": 5}
    ]
    assert definition.key == "p"


def test_a_clean_deployment_has_no_warnings(engine: Engine) -> None:
    deployment = engine.deploy(process(chain('<userTask id="t"/>')))
    assert deployment.warnings == []


def test_the_bad_timer_fails_when_it_is_created_naming_the_event(engine: Engine) -> None:
    engine.deploy(_waiting_on_a_bad_timer())
    with pytest.raises(ProcessEngineError, match=r"timer of 'wait'.*'next monday'"):
        engine.start_process_instance("p")
    # nothing was started: the whole command was refused
    assert engine.history_service.historic_process_instances(process_definition_key="p") == []


def test_a_bad_boundary_timer_inside_a_job_fails_the_job_into_an_incident(
    engine: Engine,
) -> None:
    engine.deploy(
        process(
            chain('<userTask id="t" camunda:asyncBefore="true"/>')
            + f'<boundaryEvent id="late" attachedToRef="t">{BAD_DATE}</boundaryEvent>'
            '<sequenceFlow id="toLate" sourceRef="late" targetRef="lateEnd"/>'
            '<endEvent id="lateEnd"/>'
        )
    )
    pi = engine.start_process_instance("p")
    for _ in range(3):  # Camunda's three tries
        engine.run_due_jobs()
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.retries == 0
    assert "timer of 'late'" in (job.exception_message or "")
    (incident,) = engine.runtime_service.incidents(process_instance_id=pi.id)
    assert incident.incident_type == "failedJob"
    assert engine.tasks(process_instance_id=pi.id) == []


def test_a_bad_timer_in_an_event_subprocess_fails_when_its_scope_starts(engine: Engine) -> None:
    deployment = engine.deploy(
        process(
            chain('<userTask id="t"/>') + '<subProcess id="reminder" triggeredByEvent="true">'
            f'<startEvent id="remind" isInterrupting="false">{BAD_DATE}</startEvent>'
            '<sequenceFlow id="r1" sourceRef="remind" targetRef="rEnd"/><endEvent id="rEnd"/>'
            "</subProcess>"
        )
    )
    assert [w.element_id for w in deployment.warnings] == ["remind"]
    with pytest.raises(ProcessEngineError, match="timer of 'remind'"):
        engine.start_process_instance("p")


def test_a_bad_literal_on_a_process_timer_start_event_is_refused_at_deploy(
    engine: Engine,
) -> None:
    source = process(
        f'<startEvent id="daily">{BAD_DATE}</startEvent>'
        '<sequenceFlow id="f" sourceRef="daily" targetRef="end"/><endEvent id="end"/>'
    )
    with pytest.raises(ModelError) as refused:
        engine.deploy(source)
    (problem,) = refused.value.problems
    assert problem.element_id == "daily"
    assert "timeDate 'next monday' is not an ISO 8601 date" in problem.message
