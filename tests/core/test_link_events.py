"""Link events through the public Engine API: a link throw continues at the link catch of its
name in the same scope, recording nothing for the throw and, as Camunda, no history row for the
catch either; bad links are deploy problems naming the element. Scenarios ported from Camunda's
LinkEventTest.
"""

from __future__ import annotations

import pytest

from flowledger import Engine, ModelError
from tests.core.test_jobs import process


def link_throw(event_id: str, name: str) -> str:
    return (
        f'<intermediateThrowEvent id="{event_id}" name="{name}">'
        f'<linkEventDefinition name="{name}"/></intermediateThrowEvent>'
    )


def link_catch(event_id: str, name: str) -> str:
    return (
        f'<intermediateCatchEvent id="{event_id}" name="{name}">'
        f'<linkEventDefinition name="{name}"/></intermediateCatchEvent>'
    )


def flow(flow_id: str, source: str, target: str) -> str:
    return f'<sequenceFlow id="{flow_id}" sourceRef="{source}" targetRef="{target}"/>'


# LinkEventTest.testValidEventLink: two links in a row, a wait state after each catch.
VALID = (
    '<startEvent id="StartEvent_1"/>'
    + link_throw("IntermediateThrowEvent_1", "LinkA")
    + link_catch("IntermediateCatchEvent_1", "LinkA")
    + '<userTask id="waitAfterLink1"/>'
    + link_throw("IntermediateThrowEvent_2", "B")
    + link_catch("IntermediateCatchEvent_2", "B")
    + '<userTask id="waitAfterLink2"/><endEvent id="EndEvent_1"/>'
    + flow("f1", "StartEvent_1", "IntermediateThrowEvent_1")
    + flow("f2", "IntermediateCatchEvent_1", "waitAfterLink1")
    + flow("f3", "waitAfterLink1", "IntermediateThrowEvent_2")
    + flow("f4", "IntermediateCatchEvent_2", "waitAfterLink2")
    + flow("f5", "waitAfterLink2", "EndEvent_1")
)


def open_keys(engine: Engine, instance_id: str) -> list[str]:
    return sorted(t.task_definition_key for t in engine.tasks(process_instance_id=instance_id))


def test_a_link_throw_continues_at_its_catch_and_history_shows_neither(engine: Engine) -> None:
    engine.deploy(process(VALID, "linkEventValid"))
    pi = engine.start_process_instance("linkEventValid")
    assert open_keys(engine, pi.id) == ["waitAfterLink1"]
    (task,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(task.id)
    assert open_keys(engine, pi.id) == ["waitAfterLink2"]
    (task,) = engine.tasks(process_instance_id=pi.id)
    engine.complete_task(task.id)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    # Camunda's history: the start, the two waits and the end, no link event at all.
    history = sorted(a.activity_id for a in engine.historic_activity_instances(pi.id))
    assert history == ["EndEvent_1", "StartEvent_1", "waitAfterLink1", "waitAfterLink2"]
    assert engine.verify().problems == []


def test_two_throws_may_lead_to_one_catch(engine: Engine) -> None:
    """LinkEventTest.testEventLinkMultipleSources: both branches of a fork arrive at the one
    catch, so two tokens wait after it."""
    body = (
        '<startEvent id="StartEvent_1"/><manualTask id="ManualTask_1"/>'
        '<parallelGateway id="ParallelGateway_1"/>'
        + link_throw("IntermediateThrowEvent_1", "LinkA")
        + link_throw("IntermediateThrowEvent_2", "LinkA")
        + link_catch("IntermediateCatchEvent_1", "LinkA")
        + '<userTask id="WaitAfterLink"/><endEvent id="EndEvent_1"/>'
        + flow("f1", "StartEvent_1", "ManualTask_1")
        + flow("f2", "ManualTask_1", "ParallelGateway_1")
        + flow("f3", "ParallelGateway_1", "IntermediateThrowEvent_2")
        + flow("f4", "ParallelGateway_1", "IntermediateThrowEvent_1")
        + flow("f5", "IntermediateCatchEvent_1", "WaitAfterLink")
        + flow("f6", "WaitAfterLink", "EndEvent_1")
    )
    engine.deploy(process(body, "linkEventValid"))
    pi = engine.start_process_instance("linkEventValid")
    assert open_keys(engine, pi.id) == ["WaitAfterLink", "WaitAfterLink"]
    engine.runtime_service.delete_process_instance(pi.id, "test done")
    history = sorted(a.activity_id for a in engine.historic_activity_instances(pi.id))
    assert history == [
        "ManualTask_1",
        "ParallelGateway_1",
        "StartEvent_1",
        "WaitAfterLink",
        "WaitAfterLink",
    ]
    assert engine.verify().problems == []


def test_a_link_inside_a_subprocess_stays_there(engine: Engine) -> None:
    body = (
        '<startEvent id="start"/><subProcess id="sub"><startEvent id="subStart"/>'
        + link_throw("jump", "Next")
        + link_catch("landing", "Next")
        + '<userTask id="inside"/><endEvent id="subEnd"/>'
        + flow("s1", "subStart", "jump")
        + flow("s2", "landing", "inside")
        + flow("s3", "inside", "subEnd")
        + '</subProcess><endEvent id="end"/>'
        + flow("f1", "start", "sub")
        + flow("f2", "sub", "end")
    )
    engine.deploy(process(body))
    pi = engine.start_process_instance("p")
    (task,) = engine.tasks(process_instance_id=pi.id)
    assert task.task_definition_key == "inside"
    engine.complete_task(task.id)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"


def _problems(engine: Engine, body: str) -> list[tuple[str | None, str]]:
    with pytest.raises(ModelError) as refused:
        engine.deploy(process(body))
    assert engine.repository_service.process_definitions() == []
    return [(p.element_id, p.message) for p in refused.value.problems]


def test_two_catches_of_one_link_name_are_refused_naming_the_second(engine: Engine) -> None:
    """LinkEventTest.testInvalidEventLinkMultipleTargets."""
    body = (
        '<startEvent id="start"/>'
        + link_throw("IntermediateThrowEvent_1", "LinkA")
        + link_catch("IntermediateCatchEvent_1", "LinkA")
        + link_catch("IntermediateCatchEvent_2", "LinkA")
        + '<endEvent id="end1"/><endEvent id="end2"/>'
        + flow("f1", "start", "IntermediateThrowEvent_1")
        + flow("f2", "IntermediateCatchEvent_1", "end1")
        + flow("f3", "IntermediateCatchEvent_2", "end2")
    )
    ((element, message),) = _problems(engine, body)
    assert element == "IntermediateCatchEvent_2"
    assert "both catch the link 'LinkA'" in message


def test_a_throw_without_its_catch_is_refused_naming_the_throw(engine: Engine) -> None:
    body = '<startEvent id="start"/>' + link_throw("jump", "Nowhere") + flow("f1", "start", "jump")
    ((element, message),) = _problems(engine, body)
    assert element == "jump"
    assert "no link catch event of that name exists" in message


def test_a_throw_into_another_scope_is_refused(engine: Engine) -> None:
    body = (
        '<startEvent id="start"/>'
        + link_throw("jump", "In")
        + '<subProcess id="sub"><startEvent id="subStart"/>'
        + link_catch("landing", "In")
        + '<endEvent id="subEnd"/>'
        + flow("s1", "subStart", "subEnd")
        + flow("s2", "landing", "subEnd")
        + "</subProcess>"
        + flow("f1", "start", "jump")
    )
    ((element, message),) = _problems(engine, body)
    assert element == "jump"
    assert "different scopes" in message


def test_a_throw_with_an_outgoing_flow_is_refused(engine: Engine) -> None:
    body = (
        '<startEvent id="start"/>'
        + link_throw("jump", "A")
        + link_catch("landing", "A")
        + '<endEvent id="end"/>'
        + flow("f1", "start", "jump")
        + flow("f2", "jump", "end")
        + flow("f3", "landing", "end")
    )
    ((element, message),) = _problems(engine, body)
    assert element == "jump"
    assert "cannot have outgoing sequence flows" in message


def test_a_link_catch_after_an_event_based_gateway_is_refused(engine: Engine) -> None:
    """LinkEventTest.testCatchLinkEventAfterEventBasedGatewayNotAllowed."""
    body = (
        '<startEvent id="start"/><eventBasedGateway id="gw"/>'
        '<intermediateCatchEvent id="IntermediateCatchEvent_1"><timerEventDefinition>'
        "<timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>"
        + link_catch("IntermediateCatchEvent_2", "LinkA")
        + '<endEvent id="end"/>'
        + flow("f1", "start", "gw")
        + flow("f2", "gw", "IntermediateCatchEvent_1")
        + flow("f3", "gw", "IntermediateCatchEvent_2")
        + flow("f4", "IntermediateCatchEvent_1", "end")
        + flow("f5", "IntermediateCatchEvent_2", "end")
    )
    problems = _problems(engine, body)
    assert any(
        "IntermediateCatchEvent_2" in message and "intermediateLinkCatch" in message
        for _element, message in problems
    ), problems
