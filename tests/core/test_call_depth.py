"""A process calling itself is stopped at a bounded depth of nested call activities, however
each call is made: in one command, or as a job of its own (asyncBefore), where the refusal is
the job's failure and, after its retries, an incident naming the limit."""

from __future__ import annotations

import pytest

from flowledger import Engine, JobFailure, ProcessEngineError
from flowledger.core.behaviors import calls
from tests.core.test_jobs import chain, process

LIMIT = 5


def recursive(attributes: str = "") -> str:
    return process(chain(f'<callActivity id="recurse" calledElement="loop" {attributes}/>'), "loop")


@pytest.fixture(autouse=True)
def small_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(calls, "MAX_CALL_DEPTH", LIMIT)


def test_an_asynchronous_call_of_its_own_process_stops_at_the_limit_with_an_incident(
    engine: Engine,
) -> None:
    engine.deploy(recursive('camunda:asyncBefore="true"'))
    engine.start_process_instance("loop")
    failures: list[str] = []
    # Without a limit every job starts one more instance with one more job: never done.
    for _step in range(10 * LIMIT):
        runnable = [j for j in engine.management_service.jobs() if j.retries > 0]
        if not runnable:
            break
        try:
            engine.management_service.execute_job(runnable[0].id)
        except JobFailure as failure:
            failures.append(str(failure))
    else:
        pytest.fail("the jobs of the self-calling process never ran out")
    instances = engine.history_service.historic_process_instances()
    assert len(instances) == LIMIT + 1  # the root and one instance per nested call
    (incident,) = engine.runtime_service.incidents()
    assert incident.activity_id == "recurse"
    message = incident.incident_message or ""
    assert f"limit of {LIMIT}" in message
    assert f"depth {LIMIT + 1}" in message
    assert "'recurse'" in message
    assert len(failures) == 3  # the job's retries, as Camunda counts them


def test_a_synchronous_call_of_its_own_process_is_refused_at_the_limit(engine: Engine) -> None:
    engine.deploy(recursive())
    with pytest.raises(ProcessEngineError, match=rf"'recurse'.*depth {LIMIT + 1}.*{LIMIT}"):
        engine.start_process_instance("loop")
    assert (
        engine.history_service.historic_process_instances() == []
    )  # nothing of the refused start is kept


def test_calls_nested_up_to_the_limit_run(engine: Engine) -> None:
    # Each instance calls the next with n + 1 until n reaches the limit: the deepest call is at
    # the limit itself, and is not refused.
    body = (
        '<startEvent id="start"/><exclusiveGateway id="deeper" default="done"/>'
        '<callActivity id="recurse" calledElement="loop"><extensionElements>'
        '<camunda:in sourceExpression="${n + 1}" target="n"/></extensionElements></callActivity>'
        '<endEvent id="end"/><endEvent id="bottom"/>'
        '<sequenceFlow id="f1" sourceRef="start" targetRef="deeper"/>'
        '<sequenceFlow id="again" sourceRef="deeper" targetRef="recurse">'
        f"<conditionExpression>${{n &lt; {LIMIT}}}</conditionExpression></sequenceFlow>"
        '<sequenceFlow id="done" sourceRef="deeper" targetRef="bottom"/>'
        '<sequenceFlow id="f2" sourceRef="recurse" targetRef="end"/>'
    )
    engine.deploy(process(body, "loop"))
    engine.start_process_instance("loop", variables={"n": 0})
    instances = engine.history_service.historic_process_instances()
    assert len(instances) == LIMIT + 1
    assert {i.state for i in instances} == {"COMPLETED"}
