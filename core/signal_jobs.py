"""Asynchronous signal receipt (`camunda:async="true"` on a throwing signalEventDefinition): an
intermediate signal catch event the signal reaches gets a job (ACT_RU_JOB, handler type `event`,
its configuration the subscription) instead of going on inside the throwing command; running
the job delivers the signal to the subscription.

As Camunda's EventSubscriptionJobDeclaration, only intermediate catch events declare such a job;
boundary events and event subprocess starts receive synchronously even then. Like Camunda's
job (ProcessEventJobHandler), it carries no payload. Decide-side: pure.
"""

from __future__ import annotations

from . import element_kinds as kinds
from . import events as ev
from .behaviors.jobs import DEFAULT_RETRIES, PROCESS_EVENT, job_definition_id
from .correlation import receive_signal
from .session import InstanceSession
from .state import Job

__all__ = ["PROCESS_EVENT", "receives_in_a_job", "run_signal_job", "schedule_signal_job"]


def receives_in_a_job(session: InstanceSession, subscription_id: str) -> bool:
    """Does an asynchronous signal reach this subscription through a job?"""
    subscription = session.state.subscriptions.get(subscription_id)
    if subscription is None:
        return False
    activity = session.model.activities.get(subscription.activity_id)
    return activity is not None and activity.type == kinds.SIGNAL_CATCH_EVENT.type


def schedule_signal_job(session: InstanceSession, subscription_id: str) -> None:
    """The asynchronous signal reached the subscription: a job will deliver it."""
    subscription = session.state.subscriptions[subscription_id]
    activity = session.model.activities[subscription.activity_id]
    ctx = session.ctx
    session.emit(
        ev.JobCreated(
            job_id=ctx.new_id(),
            job_type="message",
            handler_type=PROCESS_EVENT,
            handler_configuration=subscription_id,
            # Camunda keeps no job definition for these jobs; a derived id names the kind.
            job_definition_id=job_definition_id(
                session.state.definition_id, activity.id, PROCESS_EVENT
            ),
            execution_id=subscription.execution_id,
            activity_id=activity.id,
            # it ends with the catch event's instance (another path may end it first)
            activity_instance_id=subscription.activity_instance_id,
            due_date=None,
            retries=DEFAULT_RETRIES,
            priority=0,
            exclusive=activity.jobs.exclusive,
            time=ctx.now,
        )
    )


def run_signal_job(session: InstanceSession, job: Job) -> None:
    """Deliver the signal the job waited with; a subscription gone meanwhile (a synchronous
    signal reached it first) is no work."""
    subscription = session.state.subscriptions.get(job.handler_configuration)
    if subscription is None:
        return
    receive_signal(session, subscription.id, subscription.event_name, {})
