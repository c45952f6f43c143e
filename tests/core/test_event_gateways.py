"""Event-based gateways through the public Engine API: the token waits at the gateway for the
first of the message, signal and timer catch events after it; the first to occur is taken, the
others' subscriptions and timers end with the gateway.
"""

from __future__ import annotations

import pytest

from flowledger import ControllableClock, Engine, ModelError
from tests.core.test_jobs import process

DECLARED = '<message id="Paid" name="paid"/><signal id="Stop" name="stop"/>'
RACE = """
<startEvent id="start"/>
<eventBasedGateway id="race"/>
<intermediateCatchEvent id="onPaid"><messageEventDefinition messageRef="Paid"/>
</intermediateCatchEvent>
<intermediateCatchEvent id="onStop"><signalEventDefinition signalRef="Stop"/>
</intermediateCatchEvent>
<intermediateCatchEvent id="onTimeout"><timerEventDefinition>
<timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
<userTask id="ship"/><userTask id="stopped"/><userTask id="remind"/>
<sequenceFlow id="f0" sourceRef="start" targetRef="race"/>
<sequenceFlow id="f1" sourceRef="race" targetRef="onPaid"/>
<sequenceFlow id="f2" sourceRef="race" targetRef="onStop"/>
<sequenceFlow id="f3" sourceRef="race" targetRef="onTimeout"/>
<sequenceFlow id="f4" sourceRef="onPaid" targetRef="ship"/>
<sequenceFlow id="f5" sourceRef="onStop" targetRef="stopped"/>
<sequenceFlow id="f6" sourceRef="onTimeout" targetRef="remind"/>
"""


def model(body: str) -> str:
    return process(body).replace("</definitions>", DECLARED + "</definitions>")


def waiting(engine: Engine, instance_id: str) -> tuple[list[str], int]:
    subscriptions = sorted(s.event_name or "" for s in engine.runtime_service.event_subscriptions())
    return subscriptions, len(engine.management_service.jobs(process_instance_id=instance_id))


def task_keys(engine: Engine, instance_id: str) -> list[str]:
    return sorted(t.task_definition_key for t in engine.tasks(process_instance_id=instance_id))


def test_the_token_waits_at_the_gateway_for_all_events(engine: Engine) -> None:
    engine.deploy(model(RACE))
    pi = engine.start_process_instance("p")
    assert waiting(engine, pi.id) == (["paid", "stop"], 1)
    assert [e.activity_id for e in engine.runtime_service.executions(pi.id)] == ["race"]
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.activity_id == "onTimeout"


def test_a_message_wins_and_the_other_events_end(engine: Engine) -> None:
    engine.deploy(model(RACE))
    pi = engine.start_process_instance("p")
    engine.runtime_service.correlate_message("paid")
    assert task_keys(engine, pi.id) == ["ship"]
    assert waiting(engine, pi.id) == ([], 0)
    history = [a.activity_id for a in engine.historic_activity_instances(pi.id)]
    assert history == ["start", "race", "onPaid", "ship"]
    assert engine.verify().problems == []


def test_a_signal_wins(engine: Engine) -> None:
    engine.deploy(model(RACE))
    pi = engine.start_process_instance("p")
    engine.runtime_service.signal("stop")
    assert task_keys(engine, pi.id) == ["stopped"]
    assert waiting(engine, pi.id) == ([], 0)


def test_the_timer_wins_when_nothing_arrives_in_time(
    engine: Engine, clock: ControllableClock
) -> None:
    engine.deploy(model(RACE))
    pi = engine.start_process_instance("p")
    clock.advance(hours=1)
    assert engine.run_due_jobs() == 1
    assert task_keys(engine, pi.id) == ["remind"]
    assert waiting(engine, pi.id) == ([], 0)
    assert engine.verify().problems == []


F1 = '<sequenceFlow id="f1" sourceRef="race" targetRef="onPaid"/>'
F2 = '<sequenceFlow id="f2" sourceRef="race" targetRef="onStop"/>'
F0 = '<sequenceFlow id="f0" sourceRef="start" targetRef="race"/>'
CONDITION = "<conditionExpression>${true}</conditionExpression>"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ((F2, F2.replace("onStop", "stopped")), "it can only lead to message, signal or timer"),
        ((F1, F1.replace("/>", f">{CONDITION}</sequenceFlow>")), "it cannot have a condition"),
        (
            (F0, F0 + '<sequenceFlow id="f9" sourceRef="start" targetRef="onPaid"/>'),
            "may have no other incoming sequence flow",
        ),
    ],
)
def test_what_cannot_follow_an_event_based_gateway_is_refused_at_deploy(
    engine: Engine, change: tuple[str, str], problem: str
) -> None:
    with pytest.raises(ModelError, match=problem):
        engine.deploy(model(RACE.replace(*change)))
    assert engine.repository_service.process_definitions() == []
