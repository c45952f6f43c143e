"""Incidents: opened when a job or an external task runs out of retries, resolved when it gets
retries again (or ends by its work), deleted when its activity goes.

Decide-side: every change is an event on the instance's session.
"""

from __future__ import annotations

from .. import events as ev
from ..session import InstanceSession

FAILED_JOB = "failedJob"
FAILED_EXTERNAL_TASK = "failedExternalTask"


def open_incident(
    session: InstanceSession,
    incident_type: str,
    configuration: str,
    *,
    execution_id: str,
    activity_id: str | None,
    failed_activity_id: str | None,
    message: str | None,
    job_definition_id: str | None = None,
) -> None:
    """Open one incident for what `configuration` names (a job or external task id), unless one
    is open already."""
    if any(i.configuration == configuration for i in session.state.incidents.values()):
        return
    session.emit(
        ev.IncidentCreated(
            incident_id=session.ctx.new_id(),
            incident_type=incident_type,
            configuration=configuration,
            execution_id=execution_id,
            activity_id=activity_id,
            failed_activity_id=failed_activity_id,
            message=message,
            time=session.ctx.now,
            job_definition_id=job_definition_id,
        )
    )


def close_incidents(session: InstanceSession, configuration: str, *, resolved: bool) -> None:
    """End the incidents of a job or external task: resolved (its cause is gone), or deleted
    (it went away with its activity)."""
    now = session.ctx.now
    for incident in [
        i for i in session.state.incidents.values() if i.configuration == configuration
    ]:
        if resolved:
            session.emit(ev.IncidentResolved(incident_id=incident.id, time=now))
        else:
            session.emit(ev.IncidentDeleted(incident_id=incident.id, time=now))
