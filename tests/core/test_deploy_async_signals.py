"""Deploy what Camunda deploys (5): asynchronous signals. `camunda:asyncBefore`/`asyncAfter` on a
signal throw or end event are normal continuations (the signal is sent inside the job);
`camunda:async="true"` on a throwing signalEventDefinition gives every intermediate signal catch
event it reaches a job (handler type `event`) that delivers it, while boundary events receive
at once (Camunda's SignalEventTest.testSignalCatchIntermediateActsAsync and
EventSubscriptionJobDeclaration).
"""

from __future__ import annotations

from flowledger import Engine
from tests.core.test_jobs import chain
from tests.core.test_signals import CATCH, model, task_keys

ASYNC_THROW = model(
    chain(
        '<intermediateThrowEvent id="raise"><signalEventDefinition signalRef="Alert" '
        'camunda:async="true"/></intermediateThrowEvent>',
        '<userTask id="raised"/>',
    ),
    "thrower",
)
BOUNDARY = model(
    chain('<userTask id="work"/>')
    + '<boundaryEvent id="alerted" attachedToRef="work"><signalEventDefinition signalRef="Alert"/>'
    '</boundaryEvent><sequenceFlow id="toHandled" sourceRef="alerted" targetRef="handled"/>'
    '<userTask id="handled"/>',
    "guarded",
)


def test_an_async_signal_reaches_a_catch_event_through_a_job(engine: Engine) -> None:
    engine.deploy({"catch.bpmn": CATCH.encode(), "throw.bpmn": ASYNC_THROW.encode()})
    catcher = engine.start_process_instance("catcher")
    assert len(engine.runtime_service.event_subscriptions()) == 1
    thrower = engine.start_process_instance("thrower")
    # the thrower went on at once; the catcher still waits, with a job to deliver the signal
    assert task_keys(engine, thrower.id) == ["raised"]
    assert task_keys(engine, catcher.id) == []
    assert len(engine.runtime_service.event_subscriptions()) == 1
    (job,) = engine.management_service.jobs(process_instance_id=catcher.id)
    assert (job.job_type, job.handler_type, job.activity_id) == ("message", "event", "wait")
    assert engine.run_due_jobs() == 1
    assert task_keys(engine, catcher.id) == ["after"]
    assert engine.runtime_service.event_subscriptions() == []
    assert engine.management_service.jobs() == []
    types = {a.activity_id: a.activity_type for a in engine.historic_activity_instances(catcher.id)}
    assert types["wait"] == "intermediateSignalCatch"
    assert engine.verify().problems == []


def test_a_boundary_event_receives_an_async_signal_at_once(engine: Engine) -> None:
    engine.deploy({"guarded.bpmn": BOUNDARY.encode(), "throw.bpmn": ASYNC_THROW.encode()})
    guarded = engine.start_process_instance("guarded")
    engine.start_process_instance("thrower")
    assert task_keys(engine, guarded.id) == ["handled"]
    assert engine.management_service.jobs(process_instance_id=guarded.id) == []


def test_a_job_whose_catch_event_already_received_does_nothing(engine: Engine) -> None:
    engine.deploy({"catch.bpmn": CATCH.encode(), "throw.bpmn": ASYNC_THROW.encode()})
    catcher = engine.start_process_instance("catcher")
    engine.start_process_instance("thrower")
    engine.runtime_service.signal("alert")  # a synchronous one gets there first
    assert task_keys(engine, catcher.id) == ["after"]
    # the job ended with the catch event
    assert engine.management_service.jobs(process_instance_id=catcher.id) == []


def test_an_async_before_signal_end_event_sends_in_its_job(engine: Engine) -> None:
    thrower = model(
        '<startEvent id="start"/><sequenceFlow id="f" sourceRef="start" targetRef="done"/>'
        '<endEvent id="done" camunda:asyncBefore="true"><signalEventDefinition '
        'signalRef="Alert"/></endEvent>',
        "thrower",
    )
    engine.deploy({"catch.bpmn": CATCH.encode(), "throw.bpmn": thrower.encode()})
    catcher = engine.start_process_instance("catcher")
    sender = engine.start_process_instance("thrower")
    assert task_keys(engine, catcher.id) == []  # not sent yet
    (job,) = engine.management_service.jobs(process_instance_id=sender.id)
    assert (job.handler_type, job.activity_id) == ("async-continuation", "done")
    assert engine.run_due_jobs() == 1
    assert task_keys(engine, catcher.id) == ["after"]
    historic = engine.history_service.historic_process_instance(sender.id)
    assert (historic.state, historic.end_activity_id) == ("COMPLETED", "done")


def test_an_async_after_signal_throw_event_sends_before_its_job(engine: Engine) -> None:
    thrower = model(
        chain(
            '<intermediateThrowEvent id="raise" camunda:asyncAfter="true">'
            '<signalEventDefinition signalRef="Alert"/></intermediateThrowEvent>',
            '<userTask id="raised"/>',
        ),
        "thrower",
    )
    engine.deploy({"catch.bpmn": CATCH.encode(), "throw.bpmn": thrower.encode()})
    catcher = engine.start_process_instance("catcher")
    sender = engine.start_process_instance("thrower")
    assert task_keys(engine, catcher.id) == ["after"]
    assert task_keys(engine, sender.id) == []
    assert engine.run_due_jobs() == 1
    assert task_keys(engine, sender.id) == ["raised"]


STARTED_BY_ALERT = model(
    '<startEvent id="onAlert"><signalEventDefinition signalRef="Alert"/></startEvent>'
    '<sequenceFlow id="f" sourceRef="onAlert" targetRef="assess"/><userTask id="assess"/>',
    "triage",
)


def test_an_async_signal_starts_a_signal_start_event_in_a_job(engine: Engine) -> None:
    engine.deploy({"triage.bpmn": STARTED_BY_ALERT.encode(), "throw.bpmn": ASYNC_THROW.encode()})
    engine.start_process_instance("thrower")
    # no instance of `triage` yet: a job of the definition (no instance) will start it
    assert engine.history_service.historic_process_instances(process_definition_key="triage") == []
    (job,) = [j for j in engine.management_service.jobs() if j.process_instance_id is None]
    assert (job.job_type, job.handler_type, job.activity_id) == ("message", "event", "onAlert")
    assert job.due_date is None
    assert engine.run_due_jobs() == 1
    (started,) = engine.history_service.historic_process_instances(process_definition_key="triage")
    assert started.start_activity_id == "onAlert"
    assert task_keys(engine, started.id) == ["assess"]
    assert engine.management_service.jobs() == []
    assert engine.verify().problems == []
