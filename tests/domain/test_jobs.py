"""Timers and asynchronous continuations in the domain alone: which jobs a flow creates, what
running each does, and how a failure is recorded. No database, no clock but the scenario's.
"""

from __future__ import annotations

from datetime import timedelta

from flowledger.core import events as ev
from flowledger.core.commands import (
    CompleteTask,
    ExecuteJob,
    HandleJobFailure,
    SetJobRetries,
    StartProcessInstance,
)
from tests.domain.harness import NOW, Scenario, bpmn, like

REMINDER = bpmn(
    "reminder",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="review"/>
    <userTask id="review"/>
    <boundaryEvent id="escalate" attachedToRef="review">
      <timerEventDefinition><timeDuration>PT2H</timeDuration></timerEventDefinition>
    </boundaryEvent>
    <boundaryEvent id="remind" attachedToRef="review" cancelActivity="false">
      <timerEventDefinition><timeCycle>R2/PT30M</timeCycle></timerEventDefinition>
    </boundaryEvent>
    <sequenceFlow id="f2" sourceRef="review" targetRef="done"/>
    <sequenceFlow id="f3" sourceRef="escalate" targetRef="manager"/>
    <sequenceFlow id="f4" sourceRef="remind" targetRef="nudge"/>
    <userTask id="manager"/>
    <userTask id="nudge"/>
    <endEvent id="done"/>
    """,
)

WAIT = bpmn(
    "wait",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="pause"/>
    <intermediateCatchEvent id="pause">
      <timerEventDefinition><timeDuration>${delay}</timeDuration></timerEventDefinition>
    </intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="pause" targetRef="end"/>
    <endEvent id="end"/>
    """,
)

ASYNC = bpmn(
    "async",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <scriptTask id="work" scriptFormat="juel" camunda:asyncBefore="true"
                camunda:asyncAfter="true" camunda:resultVariable="r">
      <extensionElements>
        <camunda:failedJobRetryTimeCycle>PT1M,PT5M</camunda:failedJobRetryTimeCycle>
      </extensionElements>
      <script>${1 + 1}</script>
    </scriptTask>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
    """,
)


def _jobs(scenario: Scenario) -> dict[str, str]:
    """{activity id: job id} of the instance's jobs."""
    return {job.activity_id: job.id for job in scenario.state.jobs.values()}


def test_boundary_timers_are_scheduled_when_the_activity_starts(scenario: Scenario) -> None:
    scenario.given(REMINDER).when(StartProcessInstance(key="reminder")).then(
        like(ev.JobCreated, activity_id="escalate", due_date=NOW + timedelta(hours=2)),
        like(ev.JobCreated, activity_id="remind", due_date=NOW + timedelta(minutes=30)),
    )
    remind = scenario.state.jobs[_jobs(scenario)["remind"]]
    assert remind.handler_type == "timer-transition"
    assert remind.repeat == "R2/2026-03-01T09:00:00.000+00:00/PT30M"


def test_a_non_interrupting_cycle_fires_beside_the_activity_until_its_count(
    scenario: Scenario,
) -> None:
    scenario.given(REMINDER, *scenario.recorded(REMINDER, StartProcessInstance(key="reminder")))
    first = _jobs(scenario)["remind"]
    scenario.advance(minutes=30).when(ExecuteJob(job_id=first)).then(
        like(ev.JobCreated, activity_id="remind", due_date=NOW + timedelta(hours=1)),
        like(ev.JobExecuted, job_id=first),
        like(ev.UserTaskCreated, task_definition_key="nudge"),
    )
    assert "review" in scenario.open_activities()
    second = _jobs(scenario)["remind"]
    scenario.advance(minutes=30).when(ExecuteJob(job_id=second)).then_no(ev.JobCreated)
    assert sorted(scenario.open_activities()) == ["nudge", "nudge", "review"]
    assert set(_jobs(scenario)) == {"escalate"}


def test_completing_the_activity_deletes_its_timers(scenario: Scenario) -> None:
    scenario.given(REMINDER, *scenario.recorded(REMINDER, StartProcessInstance(key="reminder")))
    scenario.when(CompleteTask(task_id=scenario.task("review"))).then(
        like(ev.JobDeleted), like(ev.JobDeleted), like(ev.ProcessInstanceCompleted)
    )
    assert scenario.state.jobs == {}


def test_an_interrupting_timer_cancels_the_activity_and_its_other_timers(
    scenario: Scenario,
) -> None:
    scenario.given(REMINDER, *scenario.recorded(REMINDER, StartProcessInstance(key="reminder")))
    escalate = _jobs(scenario)["escalate"]
    scenario.advance(hours=2).when(ExecuteJob(job_id=escalate)).then(
        like(ev.JobExecuted, job_id=escalate),
        like(ev.TaskDeleted),
        like(ev.JobDeleted),
        like(ev.UserTaskCreated, task_definition_key="manager"),
    )
    assert scenario.open_activities() == ["manager"]
    assert scenario.state.jobs == {}


def test_a_job_that_is_gone_is_no_work(scenario: Scenario) -> None:
    scenario.given(REMINDER, *scenario.recorded(REMINDER, StartProcessInstance(key="reminder")))
    escalate = _jobs(scenario)["escalate"]
    scenario.when(ExecuteJob(job_id=escalate))
    scenario.when(ExecuteJob(job_id=escalate)).then_exactly()


def test_an_intermediate_timer_takes_its_duration_from_an_expression(scenario: Scenario) -> None:
    start = StartProcessInstance(key="wait", variables={"delay": "P1D"})
    scenario.given(WAIT).when(start).then(
        like(ev.JobCreated, handler_type="timer-intermediate-transition", activity_id="pause")
    )
    (job,) = scenario.state.jobs.values()
    assert job.due_date == NOW + timedelta(days=1)
    scenario.when(ExecuteJob(job_id=job.id)).then(like(ev.ProcessInstanceCompleted))


def test_async_before_and_after_commit_around_the_activity(scenario: Scenario) -> None:
    scenario.given(ASYNC).when(StartProcessInstance(key="async")).then(
        like(ev.JobCreated, handler_configuration="transition-create-scope", retries=2)
    ).then_no(ev.VariableSet)
    (before,) = scenario.state.jobs.values()
    scenario.when(ExecuteJob(job_id=before.id)).then(
        like(ev.VariableSet, name="r"),
        like(ev.JobCreated, handler_configuration="transition-notify-listener-take$f2"),
    ).then_no(ev.ProcessInstanceCompleted)
    (after,) = scenario.state.jobs.values()
    scenario.when(ExecuteJob(job_id=after.id)).then(like(ev.ProcessInstanceCompleted))


def test_failures_wait_as_the_retry_cycle_says_and_end_in_an_incident(scenario: Scenario) -> None:
    scenario.given(ASYNC, *scenario.recorded(ASYNC, StartProcessInstance(key="async")))
    (job,) = scenario.state.jobs.values()
    failure = HandleJobFailure(job_id=job.id, error_message="boom", stacktrace="trace")
    scenario.when(failure).then_exactly(
        like(ev.JobFailed, retries=1, due_date=NOW + timedelta(minutes=1), error_message="boom")
    )
    scenario.when(failure).then(
        like(ev.JobFailed, retries=0, due_date=NOW + timedelta(minutes=5)),
        like(ev.IncidentCreated, incident_type="failedJob", configuration=job.id),
    )
    (incident,) = scenario.state.incidents.values()
    scenario.when(SetJobRetries(job_id=job.id, retries=1)).then_exactly(
        like(ev.JobRetriesSet, retries=1), like(ev.IncidentResolved, incident_id=incident.id)
    )
