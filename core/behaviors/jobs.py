"""Jobs a flow creates and ends: timers of timer events and boundary timers, and asynchronous
continuations before and after activities.

Decide-side: due dates, priorities and retries are decided here, once, and recorded in
`JobCreated`; replay never recomputes them. A job of an activity instance ends with it (its
timers); a continuation ends with its execution.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from .. import element_kinds as kinds
from .. import events as ev
from ..errors import ProcessEngineError
from ..ids import derived_id
from ..model import Activity, EventSpec, ProcessModel, TimerEventDefinition, UserTaskSpec
from ..scope import evaluate
from ..state import Job
from ..timers import TimerDefinition, TimerError, parse_retry_cycle, parse_timer
from .incidents import close_incidents
from .operations import FlowOperations

DEFAULT_RETRIES = 3  # Camunda's, without a failedJobRetryTimeCycle

# Handler types (ACT_RU_JOB.HANDLER_TYPE_) and the configurations of continuations.
TIMER_TRANSITION = "timer-transition"
TIMER_INTERMEDIATE = "timer-intermediate-transition"
ASYNC = "async-continuation"
TIMER_START = "timer-start-event"
TIMER_EVENT_SUBPROCESS = "timer-start-event-subprocess"
PROCESS_EVENT = "event"  # Camunda's ProcessEventJobHandler: an asynchronous signal (signal_jobs)
BEFORE = "transition-create-scope"
PROCESS_START = "process-start"  # asyncBefore on the start event the instance began at
AFTER_END = "activity-end"
AFTER_TAKE = "transition-notify-listener-take$"  # + the id of the flow to take
# The job definitions' configurations of continuations (ACT_RU_JOBDEF.JOB_CONFIGURATION_).
ASYNC_BEFORE, ASYNC_AFTER = "async-before", "async-after"
_TIMER_HANDLERS = {
    kinds.BOUNDARY_TIMER.type: TIMER_TRANSITION,
    kinds.TIMER_CATCH_EVENT.type: TIMER_INTERMEDIATE,
    kinds.START_TIMER_EVENT.type: TIMER_START,
}


def timer_handler(model: ProcessModel, event: Activity) -> str:
    """The handler type of the timer of `event`: a start timer in an event subprocess starts
    that subprocess, not an instance."""
    if event.type == kinds.START_TIMER_EVENT.type and event.scope_id != model.id:
        return TIMER_EVENT_SUBPROCESS
    return _TIMER_HANDLERS[event.type]


def timer_of(activity: Activity) -> TimerEventDefinition | None:
    spec = activity.spec
    if isinstance(spec, EventSpec) and isinstance(spec.definition, TimerEventDefinition):
        return spec.definition
    return None


def job_definition_id(definition_id: str, activity_id: str, kind: str) -> str:
    """ACT_RU_JOBDEF's id: one per activity and kind of job of a definition (a timer's handler
    type, or `async-before` / `async-after`), derived so that each job names its definition
    without a lookup."""
    return derived_id(definition_id, f"jobdef:{activity_id}:{kind}")


def _kind(handler: str, configuration: str) -> str:
    if handler != ASYNC:
        return handler
    return ASYNC_BEFORE if configuration in (BEFORE, PROCESS_START) else ASYNC_AFTER


def job_declarations(definition_id: str, model: ProcessModel) -> list[ev.DeployedJobDefinition]:
    """The kinds of job a definition's activities make, as Camunda declares them at deployment
    (ACT_RU_JOBDEF rows), in the model's order."""
    declared: list[ev.DeployedJobDefinition] = []

    def declare(activity: Activity, kind: str, handler: str, configuration: str) -> None:
        declared.append(
            ev.DeployedJobDefinition(
                id=job_definition_id(definition_id, activity.id, kind),
                activity_id=activity.id,
                job_type=handler,
                configuration=configuration,
            )
        )

    for activity in model.activities.values():
        if activity.async_before:
            declare(activity, ASYNC_BEFORE, ASYNC, ASYNC_BEFORE)
        if activity.async_after:
            declare(activity, ASYNC_AFTER, ASYNC, ASYNC_AFTER)
        prefix = {"timeDate": "DATE", "timeDuration": "DURATION", "timeCycle": "CYCLE"}
        timer = timer_of(activity)
        if timer is not None:
            handler = timer_handler(model, activity)
            declare(activity, handler, handler, f"{prefix[timer.kind]}: {timer.text}"[:255])
        spec = activity.spec
        for listener in spec.timeout_listeners if isinstance(spec, UserTaskSpec) else ():
            # one per timeout task listener, named as timeout_listeners.job_kind names it
            assert listener.timer is not None and listener.id is not None
            timeout = listener.timer
            declare(
                activity,
                f"timer-task-listener$taskListener~{listener.id}",
                "timer-task-listener",
                f"{prefix[timeout.kind]}: {timeout.text}"[:255],
            )
    return declared


def timer_definition(
    flow: FlowOperations, execution_id: str, event: Activity, timer: TimerEventDefinition
) -> TimerDefinition:
    if timer.timer is not None:
        return timer.timer
    if timer.expression is None:
        # A literal that deployed with a warning: the timer fails now, as Camunda's does when
        # it resolves the due date.
        raise ProcessEngineError(
            f"Cannot create the timer of '{event.id}': {timer.invalid or 'it has no value'}"
        )
    value = evaluate(
        flow.session, timer.expression, execution_id, element_id=event.id, what=f"the {timer.kind}"
    )
    if isinstance(value, datetime) and timer.kind == "timeDate":
        return TimerDefinition("timeDate", value.isoformat(), value)
    try:
        return parse_timer(timer.kind, "" if value is None else str(value))
    except TimerError as exc:
        raise ProcessEngineError(
            f"The {timer.kind} of '{event.id}' ({timer.expression.source}) gave {value!r}: {exc}"
        ) from None


def _priority(flow: FlowOperations, execution_id: str, activity: Activity) -> int:
    expression = activity.jobs.priority or flow.model.job_priority
    if expression is None:
        return 0
    value = evaluate(
        flow.session, expression, execution_id, element_id=activity.id, what="camunda:jobPriority"
    )
    try:
        return int(str(value))
    except ValueError:
        raise ProcessEngineError(
            f"camunda:jobPriority of '{activity.id}' evaluated to {value!r}, not a number"
        ) from None


def retry_due(
    activity: Activity | None, retries_left: int, due: datetime | None, now: datetime
) -> datetime | None:
    """When a job of `activity` that failed with `retries_left` may run again: as its
    failedJobRetryTimeCycle says, or at its due date (Camunda's DefaultJobRetryCmd: at once)."""
    text = None if activity is None else activity.jobs.retry_cycle
    if text is None:
        return due
    return parse_retry_cycle(text).wait_until(retries_left, now)  # checked at deployment


def _retries(activity: Activity) -> int:
    # Camunda 7.24 applies a configured cycle's count when the job is created.
    text = activity.jobs.retry_cycle
    return DEFAULT_RETRIES if text is None else parse_retry_cycle(text).retries


def _create(
    flow: FlowOperations,
    *,
    execution_id: str,
    activity: Activity,
    handler: str,
    configuration: str,
    activity_instance_id: str | None,
    due_date: datetime | None,
    repeat: str | None = None,
    job_definition: str | None = None,
) -> None:
    """`job_definition`: the job definition's id when the handler type alone does not name it
    (a follow-up keeps its first job's; a timeout listener's timer is one per listener)."""
    ctx = flow.session.ctx
    flow.emit(
        ev.JobCreated(
            job_id=ctx.new_id(),
            job_type="message" if handler == ASYNC else "timer",
            handler_type=handler,
            handler_configuration=configuration,
            job_definition_id=job_definition
            or job_definition_id(
                flow.session.state.definition_id, activity.id, _kind(handler, configuration)
            ),
            execution_id=execution_id,
            activity_id=activity.id,
            activity_instance_id=activity_instance_id,
            due_date=due_date,
            retries=_retries(activity),
            priority=_priority(flow, execution_id, activity),
            exclusive=activity.jobs.exclusive,
            time=ctx.now,
            repeat=repeat,
        )
    )


def schedule_timer(
    flow: FlowOperations, execution_id: str, event: Activity, activity_instance_id: str
) -> None:
    """The timer of a timer event: an intermediate catch event waiting (its own instance), or a
    boundary event of the activity instance `activity_instance_id`."""
    timer = timer_of(event)
    assert timer is not None
    definition = timer_definition(flow, execution_id, event, timer)
    now = flow.session.ctx.now
    due = definition.first_due(now)
    if due is None:
        return  # a cycle with no firing left (its end or year is past): Camunda makes no job
    handler = timer_handler(flow.model, event)
    _create(
        flow,
        execution_id=execution_id,
        activity=event,
        handler=handler,
        configuration=event.id,
        activity_instance_id=activity_instance_id,
        due_date=due,
        repeat=definition.anchored_text(now),
    )


def schedule_boundary_timers(
    flow: FlowOperations, execution_id: str, activity: Activity, activity_instance_id: str
) -> None:
    for boundary_id in activity.boundary_events:
        boundary = flow.model.activities[boundary_id]
        if timer_of(boundary) is not None:
            schedule_timer(flow, execution_id, boundary, activity_instance_id)


def schedule_follow_up(flow: FlowOperations, job: Job) -> None:
    """A repeating timer fires: its next firing is scheduled first (Camunda's follow-up job),
    on the grid of its anchored cycle, unless the cycle is over."""
    if job.repeat is None:
        return
    definition = parse_timer("timeCycle", job.repeat)
    now = flow.session.ctx.now
    due = definition.next_due(job.created, max(now, job.due_date or now))
    if due is None:
        return
    event = flow.model.activities[job.activity_id]
    _create(
        flow,
        execution_id=job.execution_id,
        activity=event,
        handler=job.handler_type,
        configuration=job.handler_configuration,
        activity_instance_id=job.activity_instance_id,
        due_date=due,
        repeat=job.repeat,
        job_definition=job.job_definition_id,
    )


def create_timer_job(
    flow: FlowOperations,
    *,
    execution_id: str,
    activity: Activity,
    handler: str,
    configuration: str,
    activity_instance_id: str | None,
    timer: TimerEventDefinition,
    job_definition: str,
) -> None:
    """A timer job of a kind the flow's own timers do not cover (a timeout task listener's):
    due as `timer` says from now, a cycle anchored now; none when a cycle has no firing left."""
    definition = timer_definition(flow, execution_id, activity, timer)
    now = flow.session.ctx.now
    due = definition.first_due(now)
    if due is None:
        return
    _create(
        flow,
        execution_id=execution_id,
        activity=activity,
        handler=handler,
        configuration=configuration,
        activity_instance_id=activity_instance_id,
        due_date=due,
        repeat=definition.anchored_text(now),
        job_definition=job_definition,
    )


def continue_async(
    flow: FlowOperations, execution_id: str, activity: Activity, configuration: str
) -> None:
    """The flow stops here and a job continues it: before the activity (`BEFORE`), or after
    it, ending the path (`AFTER_END`) or taking one flow (`AFTER_TAKE` + flow id)."""
    _create(
        flow,
        execution_id=execution_id,
        activity=activity,
        handler=ASYNC,
        configuration=configuration,
        activity_instance_id=None,
        due_date=None,
    )


def drop_jobs(flow: FlowOperations, ends: Callable[[Job], bool]) -> None:
    """Delete the jobs `ends` picks (their activity or execution went), with their incidents."""
    session = flow.session
    for job in [j for j in session.state.jobs.values() if ends(j)]:
        close_incidents(session, job.id, resolved=False)
        flow.emit(ev.JobDeleted(job_id=job.id, time=session.ctx.now))
