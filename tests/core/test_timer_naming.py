"""A broken timer is named by its event (the element a modeler clicks on), not by the
timerEventDefinition inside it: in the deployment's warning for a literal, when the timer starts
for an expression, and in the incident its job leaves."""

from __future__ import annotations

import pytest

from flowledger import Engine, JobFailure, ModelError

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">\n'
)


def broken_timer(value: str, *, async_before: bool = False) -> str:
    attributes = ' camunda:asyncBefore="true"' if async_before else ""
    return (
        f'{HEAD}<process id="p" isExecutable="true">'
        '<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="Timer_Broken"/>'
        f'<intermediateCatchEvent id="Timer_Broken"{attributes}>'
        '<timerEventDefinition id="TimerEventDefinition_0x1">'
        f"<timeDuration>{value}</timeDuration>"
        "</timerEventDefinition></intermediateCatchEvent>"
        '<sequenceFlow id="f2" sourceRef="Timer_Broken" targetRef="e"/><endEvent id="e"/>'
        "</process></definitions>\n"
    )


def test_a_bad_timer_expression_at_deployment_names_its_event(engine: Engine) -> None:
    with pytest.raises(ModelError) as refused:
        engine.deploy(broken_timer("${delay"))
    message = "invalid expression in the timeDuration"
    (problem,) = [p for p in refused.value.problems if message in p.message]
    assert problem.element_id == "Timer_Broken"
    assert "TimerEventDefinition_0x1" in problem.message  # the definition is named too


def test_a_bad_timer_literal_is_warned_of_at_deployment_naming_its_event(engine: Engine) -> None:
    # Camunda deploys it (the value is read when the timer is created): a warning, no refusal.
    deployment = engine.deploy(broken_timer("PT5X"))
    (warning,) = deployment.warnings
    assert "timeDuration 'PT5X' is not an ISO 8601 duration" in warning.message
    assert warning.element_id == "Timer_Broken"
    assert "TimerEventDefinition_0x1" in warning.message  # the definition is named too


def test_a_timer_definition_without_a_value_names_its_event(engine: Engine) -> None:
    source = broken_timer("PT5M").replace("<timeDuration>PT5M</timeDuration>", "")
    with pytest.raises(ModelError) as refused:
        engine.deploy(source)
    (problem,) = [p for p in refused.value.problems if "exactly one of" in p.message]
    assert problem.element_id == "Timer_Broken"


def test_a_timer_expression_giving_a_bad_value_names_its_event_in_the_incident(
    engine: Engine,
) -> None:
    engine.deploy(broken_timer("${delay}", async_before=True))
    instance = engine.start_process_instance("p", variables={"delay": "PT5X"})
    for _ in range(3):  # Camunda's default: three tries, then an incident
        (job,) = engine.management_service.jobs(process_instance_id=instance.id)
        with pytest.raises(JobFailure, match=r"'Timer_Broken'.*'PT5X'"):
            engine.management_service.execute_job(job.id)
    (incident,) = engine.runtime_service.incidents(process_instance_id=instance.id)
    assert incident.activity_id == "Timer_Broken"
    assert incident.incident_message is not None
    assert "Timer_Broken" in incident.incident_message
    assert "PT5X" in incident.incident_message
