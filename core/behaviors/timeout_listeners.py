"""Timeout task listeners (`camunda:taskListener event="timeout"` with a timerEventDefinition):
while a user task is open, each such listener has a timer job of its own (handler type
`timer-task-listener`, configuration `<task id>$taskListener~<listener id>`, Camunda's). The
jobs are created when the task's scope starts and end with it; a firing calls that listener
only (the task stays open) and a cycle schedules its next firing first.

Decide-side: due dates are decided here once and recorded in JobCreated.
"""

from __future__ import annotations

from ..errors import ProcessEngineError
from ..model import Activity, UserTaskSpec
from ..state import Job
from .jobs import create_timer_job, job_definition_id, schedule_follow_up
from .listeners import notify
from .operations import FlowOperations

TIMER_TASK_LISTENER = "timer-task-listener"  # Camunda's TimerTaskListenerJobHandler.TYPE
_PREFIX = "$taskListener~"  # between the task's id and the listener's in the configuration


def job_kind(listener_id: str) -> str:
    """What names a timeout listener's job definition among its task's."""
    return f"{TIMER_TASK_LISTENER}{_PREFIX}{listener_id}"


def schedule_timeout_listeners(flow: FlowOperations, execution_id: str, activity: Activity) -> None:
    """The user task's scope started on `execution_id`: a timer per timeout listener."""
    spec = activity.spec
    if not isinstance(spec, UserTaskSpec) or not spec.timeout_listeners:
        return
    activity_instance_id = flow.execution(execution_id).activity_instance_id
    for listener in spec.timeout_listeners:
        assert listener.timer is not None and listener.id is not None
        create_timer_job(
            flow,
            execution_id=execution_id,
            activity=activity,
            handler=TIMER_TASK_LISTENER,
            configuration=f"{activity.id}{_PREFIX}{listener.id}",
            activity_instance_id=activity_instance_id,
            timer=listener.timer,
            job_definition=job_definition_id(
                flow.session.state.definition_id, activity.id, job_kind(listener.id)
            ),
        )


def fire_timeout(flow: FlowOperations, job: Job) -> None:
    """The listener's timer is due: call that listener on the open task (a cycle's next firing
    is scheduled first, as Camunda's timer does before its handler runs)."""
    schedule_follow_up(flow, job)
    session = flow.session
    listener_id = job.handler_configuration.partition(_PREFIX)[2]
    task = next(
        (
            t
            for t in session.state.tasks.values()
            if t.execution_id == job.execution_id and t.task_definition_key == job.activity_id
        ),
        None,
    )
    if task is None:
        raise ProcessEngineError(
            f"Error while triggering timeout task listener '{listener_id}': cannot find task "
            f"for activity id '{job.activity_id}'"
        )
    activity = flow.model.activities[job.activity_id]
    spec = activity.spec
    assert isinstance(spec, UserTaskSpec)
    chosen = [listener for listener in spec.timeout_listeners if listener.id == listener_id]
    notify(session, chosen, "timeout", task.execution_id, activity.id, task.id)
