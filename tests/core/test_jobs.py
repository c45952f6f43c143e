"""Timers, asynchronous continuations, retries and incidents through the public Engine API, on
the controllable clock: what a user sees in jobs, tasks, incidents and history after each step.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from flowledger import ControllableClock, Engine, InvalidValue, JobFailure, NotFound, Rejected


def process(body: str, process_id: str = "p", attributes: str = "") -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
<process id="{process_id}" isExecutable="true" {attributes}>
{body}
</process>
</definitions>
"""


def chain(*elements: str) -> str:
    """`start -> elements... -> end`, each element given with its id first (`<tag id=...`)."""
    ids = ["start"] + [e.split('id="')[1].split('"')[0] for e in elements] + ["end"]
    flows = "".join(
        f'<sequenceFlow id="f{i}" sourceRef="{a}" targetRef="{b}"/>'
        for i, (a, b) in enumerate(itertools.pairwise(ids), 1)
    )
    return '<startEvent id="start"/>' + "".join(elements) + '<endEvent id="end"/>' + flows


class Boom:
    """A delegate that fails `times` times, then works."""

    def __init__(self, times: int = 1_000) -> None:
        self.left = times
        self.calls = 0

    def __call__(self, execution: Any) -> None:
        self.calls += 1
        if self.left > 0:
            self.left -= 1
            raise ValueError("the payment service is down")
        execution.set_variable("paid", True)


def test_a_timer_date_fires_at_its_date(engine: Engine, clock: ControllableClock) -> None:
    engine.deploy(
        process(
            chain(
                '<intermediateCatchEvent id="at"><timerEventDefinition>'
                "<timeDate>2026-03-02T10:00:00Z</timeDate></timerEventDefinition>"
                "</intermediateCatchEvent>",
                '<userTask id="after"/>',
            )
        )
    )
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert (job.handler_type, job.handler_configuration) == ("timer-intermediate-transition", "at")
    assert job.due_date == datetime(2026, 3, 2, 10, tzinfo=UTC)
    assert job.job_type == "timer"
    clock.set(datetime(2026, 3, 2, 9, 59, 59, tzinfo=UTC))
    assert engine.run_due_jobs() == 0
    clock.advance(seconds=1)
    assert engine.run_due_jobs() == 1
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["after"]


def test_a_cron_cycle_on_a_boundary_fires_at_each_match(
    engine: Engine, clock: ControllableClock
) -> None:
    # Every day at 18:00 (Quartz form), non-interrupting: a reminder task each evening.
    engine.deploy(
        process(
            chain('<userTask id="review"/>')
            + '<boundaryEvent id="evening" attachedToRef="review" cancelActivity="false">'
            "<timerEventDefinition><timeCycle>0 0 18 * * ?</timeCycle></timerEventDefinition>"
            '</boundaryEvent><sequenceFlow id="r" sourceRef="evening" targetRef="remind"/>'
            '<userTask id="remind"/>'
        )
    )
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.due_date == datetime(2026, 3, 1, 18, tzinfo=UTC)
    assert job.repeat == "0 0 18 * * ?"
    clock.set(datetime(2026, 3, 1, 18, tzinfo=UTC))
    engine.run_due_jobs()
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.due_date == datetime(2026, 3, 2, 18, tzinfo=UTC)
    clock.set(datetime(2026, 3, 2, 18, 30, tzinfo=UTC))
    engine.run_due_jobs()
    reminders = engine.tasks(process_instance_id=pi.id, task_definition_key="remind")
    assert len(reminders) == 2


def test_a_boundary_timer_on_a_subprocess_interrupts_everything_inside(
    engine: Engine, clock: ControllableClock
) -> None:
    inner = chain('<userTask id="a"/>')
    engine.deploy(
        process(
            f'<startEvent id="s"/><subProcess id="sub">{inner}</subProcess>'
            '<boundaryEvent id="late" attachedToRef="sub"><timerEventDefinition>'
            "<timeDuration>P1D</timeDuration></timerEventDefinition></boundaryEvent>"
            '<userTask id="escalated"/><endEvent id="e"/>'
            '<sequenceFlow id="x1" sourceRef="s" targetRef="sub"/>'
            '<sequenceFlow id="x2" sourceRef="sub" targetRef="e"/>'
            '<sequenceFlow id="x3" sourceRef="late" targetRef="escalated"/>'
        )
    )
    pi = engine.start_process_instance("p")
    clock.advance(days=1)
    assert engine.run_due_jobs() == 1
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["escalated"]
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    assert [c.activity_id for c in tree.child_activity_instances] == ["escalated"]
    assert engine.verify().problems == []


def test_async_before_commits_the_start_and_the_job_runs_the_task(engine: Engine) -> None:
    calls: list[str] = []
    engine.register_delegate("charge", lambda execution: calls.append("charged"))
    engine.deploy(
        process(
            chain(
                '<serviceTask id="pay" camunda:delegateExpression="${charge}" '
                'camunda:asyncBefore="true" camunda:jobPriority="7"/>'
            )
        )
    )
    pi = engine.start_process_instance("p")
    assert calls == []
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert (job.handler_type, job.handler_configuration) == (
        "async-continuation",
        "transition-create-scope",
    )
    assert (job.job_type, job.retries, job.priority, job.due_date) == ("message", 3, 7, None)
    assert job.exclusive is True
    assert [e.activity_id for e in engine.runtime_service.executions(pi.id)] == ["pay"]
    engine.management_service.execute_job(job.id)
    assert calls == ["charged"]
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"


def test_async_after_on_a_parallel_gateway_makes_one_job_per_flow(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="s"/><parallelGateway id="fork" camunda:asyncAfter="true"/>'
            '<userTask id="a"/><userTask id="b"/>'
            '<sequenceFlow id="x1" sourceRef="s" targetRef="fork"/>'
            '<sequenceFlow id="toA" sourceRef="fork" targetRef="a"/>'
            '<sequenceFlow id="toB" sourceRef="fork" targetRef="b"/>'
        )
    )
    pi = engine.start_process_instance("p")
    configurations = sorted(
        j.handler_configuration for j in engine.management_service.jobs(process_instance_id=pi.id)
    )
    assert configurations == [
        "transition-notify-listener-take$toA",
        "transition-notify-listener-take$toB",
    ]
    assert engine.tasks(process_instance_id=pi.id) == []
    assert engine.run_due_jobs() == 2
    keys = sorted(t.task_definition_key for t in engine.tasks(process_instance_id=pi.id))
    assert keys == ["a", "b"]


def test_async_after_an_end_event_ends_the_instance_in_the_job(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="s"/><endEvent id="e" camunda:asyncAfter="true"/>'
            '<sequenceFlow id="x" sourceRef="s" targetRef="e"/>'
        )
    )
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.handler_configuration == "activity-end"
    assert pi.ended is False
    engine.management_service.execute_job(job.id)
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"


def test_a_failing_job_loses_its_work_and_a_retry_then_opens_an_incident(
    full_engine: Engine,
) -> None:
    engine = full_engine
    boom = Boom()
    engine.register_delegate("pay", boom)
    engine.deploy(
        process(
            chain(
                '<scriptTask id="note" scriptFormat="juel" camunda:asyncBefore="true" '
                'camunda:resultVariable="noted"><script>${true}</script></scriptTask>',
                '<serviceTask id="charge" camunda:delegateExpression="${pay}"/>',
            )
        )
    )
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    with pytest.raises(JobFailure, match="the payment service is down") as caught:
        engine.management_service.execute_job(job.id)
    assert caught.value.failed_activity_id == "charge"
    # The script before the failing delegate ran in the job too: rolled back with it.
    assert "noted" not in engine.runtime_service.get_variables(pi.id)
    job = engine.management_service.job(job.id)
    assert (job.retries, job.failed_activity_id) == (2, "charge")
    assert "the payment service is down" in (job.exception_message or "")
    trace = engine.management_service.job_stacktrace(job.id)
    assert trace is not None and "ValueError: the payment service is down" in trace
    assert engine.runtime_service.incidents(process_instance_id=pi.id) == []
    assert engine.run_due_jobs() == 2  # no retry cycle: retried at once, twice more
    assert boom.calls == 3
    job = engine.management_service.job(job.id)
    assert job.retries == 0
    assert engine.management_service.jobs(process_instance_id=pi.id, executable=True) == []
    (incident,) = engine.runtime_service.incidents(process_instance_id=pi.id)
    assert (incident.incident_type, incident.configuration) == ("failedJob", job.id)
    assert (incident.activity_id, incident.failed_activity_id) == ("note", "charge")
    with pytest.raises(Rejected, match="set the retries"):
        engine.runtime_service.resolve_incident(incident.id)
    boom.left = 0
    engine.management_service.set_job_retries(job.id, 1)
    assert engine.runtime_service.incidents(process_instance_id=pi.id) == []
    (historic,) = engine.history_service.historic_incidents(process_instance_id=pi.id)
    assert historic.resolved and historic.end_time is not None
    engine.run_due_jobs()
    assert boom.calls == 4
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    states = [
        (log.creation_log, log.failure_log, log.success_log)
        for log in engine.history_service.historic_job_logs(job_id=job.id)
    ]
    assert states == [(True, False, False)] + [(False, True, False)] * 3 + [(False, False, True)]
    assert engine.verify().problems == []


def test_a_retry_cycle_sets_the_retries_and_the_waits(
    engine: Engine, clock: ControllableClock
) -> None:
    engine.register_delegate("pay", Boom())
    engine.deploy(
        process(
            chain(
                '<serviceTask id="charge" camunda:delegateExpression="${pay}" '
                'camunda:asyncBefore="true"><extensionElements><camunda:failedJobRetryTimeCycle>'
                "R4/PT10M</camunda:failedJobRetryTimeCycle></extensionElements></serviceTask>"
            )
        )
    )
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.retries == 4
    assert engine.run_due_jobs() == 1
    job = engine.management_service.job(job.id)
    assert (job.retries, job.due_date) == (3, clock.now() + timedelta(minutes=10))
    clock.advance(minutes=9)
    assert engine.run_due_jobs() == 0
    clock.advance(minutes=1)
    assert engine.run_due_jobs() == 1
    assert engine.management_service.job(job.id).retries == 2


def test_setting_retries_to_zero_opens_an_incident_and_a_due_date_can_be_moved(
    engine: Engine, clock: ControllableClock
) -> None:
    engine.deploy(
        process(
            chain(
                '<intermediateCatchEvent id="wait"><timerEventDefinition>'
                "<timeDuration>P7D</timeDuration></timerEventDefinition></intermediateCatchEvent>"
            )
        )
    )
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    engine.management_service.set_job_retries(job.id, 0)
    (incident,) = engine.runtime_service.incidents(process_instance_id=pi.id)
    assert incident.configuration == job.id
    engine.management_service.set_job_retries(job.id, 3)
    assert engine.runtime_service.incidents() == []
    with pytest.raises(Rejected, match="non-negative"):
        engine.management_service.set_job_retries(job.id, -1)
    engine.management_service.set_job_due_date(job.id, clock.now() + timedelta(hours=1))
    clock.advance(hours=1)
    assert engine.run_due_jobs() == 1
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    with pytest.raises(NotFound):
        engine.management_service.execute_job(job.id)


def test_deleting_the_instance_deletes_its_jobs_and_incidents(full_engine: Engine) -> None:
    engine = full_engine
    engine.register_delegate("pay", Boom())
    engine.deploy(
        process(
            chain(
                '<serviceTask id="charge" camunda:delegateExpression="${pay}" '
                'camunda:asyncBefore="true"/>'
            )
        )
    )
    pi = engine.start_process_instance("p")
    engine.run_due_jobs()
    assert len(engine.runtime_service.incidents(process_instance_id=pi.id)) == 1
    engine.runtime_service.delete_process_instance(pi.id, reason="cancelled by the customer")
    assert engine.management_service.jobs() == [] and engine.runtime_service.incidents() == []
    (historic,) = engine.history_service.historic_incidents(process_instance_id=pi.id)
    assert historic.deleted
    assert engine.verify().problems == []


def test_replay_of_a_timer_instance_equals_the_live_state(
    engine: Engine, clock: ControllableClock
) -> None:
    engine.deploy(
        process(
            chain('<userTask id="review"/>')
            + '<boundaryEvent id="nudge" attachedToRef="review" cancelActivity="false">'
            "<timerEventDefinition><timeCycle>R3/PT1H</timeCycle></timerEventDefinition>"
            '</boundaryEvent><sequenceFlow id="n" sourceRef="nudge" targetRef="ping"/>'
            '<userTask id="ping"/>'
        )
    )
    pi = engine.start_process_instance("p")
    for _ in range(4):
        clock.advance(hours=1)
        engine.run_due_jobs()
    assert len(engine.tasks(process_instance_id=pi.id, task_definition_key="ping")) == 3
    assert engine.management_service.jobs(process_instance_id=pi.id) == []  # the count ran out
    state = engine.replay(pi.id)
    assert len([a for a in state.activity_instances.values() if a.activity_id == "ping"]) == 3
    assert engine.verify().problems == []


NIGHTLY = process(
    '<startEvent id="atTwo"><timerEventDefinition><timeCycle>0 0 2 * * ?</timeCycle>'
    '</timerEventDefinition></startEvent><userTask id="check"/><endEvent id="e"/>'
    '<sequenceFlow id="a" sourceRef="atTwo" targetRef="check"/>'
    '<sequenceFlow id="b" sourceRef="check" targetRef="e"/>',
    "nightly",
)


def test_a_timer_start_event_starts_an_instance_at_each_firing(
    engine: Engine, clock: ControllableClock
) -> None:
    deployment = engine.deploy(NIGHTLY)
    (job,) = engine.management_service.jobs()
    assert (job.handler_type, job.handler_configuration) == ("timer-start-event", "nightly")
    assert job.process_instance_id is None and job.execution_id is None
    assert job.process_definition_id == deployment.process_definitions[0].id
    assert job.due_date == datetime(2026, 3, 2, 2, tzinfo=UTC)
    clock.set(datetime(2026, 3, 2, 2, tzinfo=UTC))
    assert engine.run_due_jobs() == 1
    (started,) = engine.history_service.historic_process_instances()
    assert started.start_activity_id == "atTwo"
    assert [t.task_definition_key for t in engine.tasks()] == ["check"]
    (job,) = engine.management_service.jobs()
    assert job.due_date == datetime(2026, 3, 3, 2, tzinfo=UTC)
    assert engine.verify().problems == []


def test_a_new_version_replaces_the_start_timer_and_deletion_removes_it(
    engine: Engine, clock: ControllableClock
) -> None:
    first = engine.deploy(NIGHTLY)
    (old,) = engine.management_service.jobs()
    second = engine.deploy(NIGHTLY.replace("0 0 2 * * ?", "0 30 3 * * ?"))
    (new,) = engine.management_service.jobs()
    assert new.id != old.id
    assert new.process_definition_id == second.process_definitions[0].id
    assert new.due_date == datetime(2026, 3, 2, 3, 30, tzinfo=UTC)
    engine.repository_service.delete_deployment(second.id)
    # Camunda: the version before the deleted latest one runs on its timer again
    (restored,) = engine.management_service.jobs()
    assert restored.process_definition_id == first.process_definitions[0].id
    assert restored.due_date == datetime(2026, 3, 2, 2, tzinfo=UTC)
    engine.repository_service.delete_deployment(first.id)
    assert engine.management_service.jobs() == []
    assert engine.verify().problems == []


def test_a_failing_start_timer_opens_an_incident_logged_until_new_retries_resolve_it(
    full_engine: Engine, clock: ControllableClock
) -> None:
    engine = full_engine
    deployment = engine.deploy(
        process(
            '<startEvent id="t"><timerEventDefinition><timeDuration>PT1H</timeDuration>'
            '</timerEventDefinition></startEvent><scriptTask id="s" scriptFormat="juel">'
            '<script>${1 / missing}</script></scriptTask><endEvent id="e"/>'
            '<sequenceFlow id="a" sourceRef="t" targetRef="s"/>'
            '<sequenceFlow id="b" sourceRef="s" targetRef="e"/>',
            "failing",
        )
    )
    definition_id = deployment.process_definitions[0].id
    clock.advance(hours=1)
    assert engine.run_due_jobs() == 3
    (job,) = engine.management_service.jobs()
    assert job.retries == 0 and "missing" in (job.exception_message or "")
    assert "missing" in (engine.management_service.job_stacktrace(job.id) or "")
    assert engine.history_service.historic_process_instances() == []
    (incident,) = engine.runtime_service.incidents()
    assert (incident.incident_type, incident.configuration) == ("failedJob", job.id)
    assert (incident.process_definition_id, incident.process_instance_id) == (definition_id, None)
    assert incident.activity_id == "t" and "missing" in (incident.incident_message or "")
    assert incident.job_definition_id == job.job_definition_id
    log = engine.history_service.historic_job_logs(job_id=job.id)
    assert [(entry.creation_log, entry.failure_log, entry.job_retries) for entry in log] == [
        (True, False, 3),
        (False, True, 3),
        (False, True, 2),
        (False, True, 1),
    ]
    assert {entry.job_definition_type for entry in log} == {"timer-start-event"}
    assert {entry.process_definition_id for entry in log} == {definition_id}

    engine.management_service.set_job_retries(job.id, 1)  # resolves the incident
    assert engine.runtime_service.incidents() == []
    (historic,) = engine.history_service.historic_incidents()
    assert historic.resolved and historic.end_time is not None
    engine.management_service.set_job_due_date(job.id, None)
    with pytest.raises(JobFailure):
        engine.management_service.execute_job(job.id)
    assert engine.management_service.job(job.id).retries == 0
    (again,) = engine.runtime_service.incidents()
    assert again.id != incident.id

    engine.repository_service.delete_deployment(
        deployment.id
    )  # the job goes, its incident is deleted
    assert engine.runtime_service.incidents() == [] and engine.management_service.jobs() == []
    states = {(i.id, i.resolved, i.deleted) for i in engine.history_service.historic_incidents()}
    assert states == {(incident.id, True, False), (again.id, False, True)}
    assert engine.history_service.historic_job_logs(job_id=job.id)[-1].deletion_log
    assert engine.verify().problems == []


def test_an_external_task_out_of_retries_opens_an_incident_until_it_gets_more(
    full_engine: Engine,
) -> None:
    engine = full_engine
    engine.deploy(
        process(chain('<serviceTask id="bill" camunda:type="external" camunda:topic="billing"/>'))
    )
    pi = engine.start_process_instance("p")
    (task,) = engine.external_task_service.fetch_and_lock("worker", {"billing": 60_000})
    engine.external_task_service.handle_failure(task.id, "worker", "printer on fire", retries=0)
    (incident,) = engine.runtime_service.incidents(process_instance_id=pi.id)
    assert (incident.incident_type, incident.configuration) == ("failedExternalTask", task.id)
    assert (incident.activity_id, incident.incident_message) == ("bill", "printer on fire")
    engine.external_task_service.set_retries(task.id, 2)
    assert engine.runtime_service.incidents() == []
    engine.external_task_service.set_retries(task.id, 0)
    assert len(engine.runtime_service.incidents()) == 1
    engine.runtime_service.delete_process_instance(pi.id)
    assert engine.runtime_service.incidents() == []
    states = sorted(
        (h.resolved, h.deleted)
        for h in engine.history_service.historic_incidents(process_instance_id=pi.id)
    )
    assert states == [(False, True), (True, False)]
    assert engine.verify().problems == []


def test_a_deployment_declares_its_job_definitions_and_jobs_name_them(engine: Engine) -> None:
    deployment = engine.deploy(
        process(
            chain(
                '<scriptTask id="work" scriptFormat="juel" camunda:asyncBefore="true" '
                'camunda:asyncAfter="true"><script>${1}</script></scriptTask>',
                '<intermediateCatchEvent id="wait"><timerEventDefinition>'
                "<timeCycle>R2/PT1H</timeCycle></timerEventDefinition></intermediateCatchEvent>",
            )
        )
    )
    declared = {
        (d.activity_id, d.job_type, d.job_configuration): d.id
        for d in engine.management_service.job_definitions()
    }
    assert set(declared) == {
        ("work", "async-continuation", "async-before"),
        ("work", "async-continuation", "async-after"),
        ("wait", "timer-intermediate-transition", "CYCLE: R2/PT1H"),
    }
    pi = engine.start_process_instance("p")
    (before,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert before.job_definition_id == declared["work", "async-continuation", "async-before"]
    engine.management_service.execute_job(before.id)
    (after,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert after.job_definition_id == declared["work", "async-continuation", "async-after"]
    engine.repository_service.delete_deployment(deployment.id, cascade=True)
    assert engine.management_service.job_definitions() == []


def test_the_activity_tree_shows_waiting_continuations_and_incidents(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="s"/><parallelGateway id="fork"/>'
            '<scriptTask id="a" scriptFormat="juel" camunda:asyncBefore="true">'
            "<script>${1 / missing}</script></scriptTask>"
            '<serviceTask id="b" camunda:type="external" camunda:topic="t"/>'
            '<endEvent id="e1"/><endEvent id="e2"/>'
            '<sequenceFlow id="x0" sourceRef="s" targetRef="fork"/>'
            '<sequenceFlow id="x1" sourceRef="fork" targetRef="a"/>'
            '<sequenceFlow id="x2" sourceRef="fork" targetRef="b"/>'
            '<sequenceFlow id="x3" sourceRef="a" targetRef="e1"/>'
            '<sequenceFlow id="x4" sourceRef="b" targetRef="e2"/>'
        )
    )
    pi = engine.start_process_instance("p")
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    (waiting,) = tree.child_transition_instances
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert (waiting.activity_id, waiting.activity_type) == ("a", "scriptTask")
    assert waiting.execution_id == job.execution_id and waiting.parent_activity_instance_id == pi.id
    assert [c.activity_id for c in tree.child_activity_instances] == ["b"]
    engine.run_due_jobs()
    (task,) = engine.external_task_service.fetch_and_lock("w", {"t": 60_000})
    engine.external_task_service.handle_failure(task.id, "w", "down", retries=0)
    incidents = {
        i.configuration: i.id for i in engine.runtime_service.incidents(process_instance_id=pi.id)
    }
    tree = engine.runtime_service.activity_instance_tree(pi.id)
    assert tree.child_transition_instances[0].incident_ids == [incidents[job.id]]
    assert tree.child_activity_instances[0].incident_ids == [incidents[task.id]]


def test_a_suspended_job_is_not_run_until_activated(engine: Engine) -> None:
    engine.deploy(process(chain('<manualTask id="m" camunda:asyncBefore="true"/>')))
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    engine.management_service.suspend_job(job.id)
    assert engine.management_service.job(job.id).suspended
    assert engine.run_due_jobs() == 0
    with pytest.raises(Rejected, match="suspended"):
        engine.management_service.execute_job(job.id)
    engine.management_service.activate_job(job.id)
    assert engine.run_due_jobs() == 1
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    assert engine.verify().problems == []


def test_a_job_s_priority_can_be_changed(engine: Engine) -> None:
    engine.deploy(process(chain('<task id="later" camunda:asyncBefore="true"/>')))
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert job.priority == 0
    engine.management_service.set_job_priority(job.id, 2**40)
    assert engine.management_service.job(job.id).priority == 2**40
    with pytest.raises(InvalidValue, match="priority must be between"):
        engine.management_service.set_job_priority(job.id, 2**63)
    assert engine.verify().problems == []
