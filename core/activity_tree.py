"""Camunda's activity instance tree of a running instance (runtimeService.getActivityInstance):
its activity instances nested by scope, the tokens waiting for a continuation job as transition
instances, and the incidents at each. A pure function of the instance's state and its model.
"""

from __future__ import annotations

from flowledger.core import views
from flowledger.core.model import ProcessModel
from flowledger.core.state import InstanceState


def activity_tree(state: InstanceState, model: ProcessModel) -> views.ActivityInstanceNode:
    children: dict[str, list[str]] = {}
    for ai in state.activity_instances.values():
        children.setdefault(ai.parent_id, []).append(ai.id)
    transitions, incidents = _transitions_and_incidents(state, model)

    def executions_of(ai_id: str) -> list[str]:
        return sorted(
            e.id
            for e in state.executions.values()
            if e.activity_instance_id == ai_id or e.scope_activity_instance_id == ai_id
        )

    def node(ai_id: str) -> views.ActivityInstanceNode:
        ai = state.activity_instances[ai_id]
        return views.ActivityInstanceNode(
            id=ai.id,
            activity_id=ai.activity_id,
            activity_type=ai.activity_type,
            activity_name=ai.activity_name,
            parent_activity_instance_id=ai.parent_id,
            execution_ids=executions_of(ai.id),
            child_activity_instances=[node(c) for c in children.get(ai.id, [])],
            child_transition_instances=transitions.get(ai.id, []),
            incident_ids=incidents.get(ai.id, []),
        )

    return views.ActivityInstanceNode(
        id=state.id,
        activity_id=state.definition_id,  # Camunda: the root stands for the process definition
        activity_type="processDefinition",
        activity_name=model.name,
        parent_activity_instance_id=None,
        execution_ids=executions_of(state.id),
        child_activity_instances=[node(c) for c in children.get(state.id, [])],
        child_transition_instances=transitions.get(state.id, []),
    )


def _transitions_and_incidents(
    state: InstanceState, model: ProcessModel
) -> tuple[dict[str, list[views.TransitionInstanceNode]], dict[str, list[str]]]:
    """The tokens waiting for a continuation job, by the activity instance of their flow scope,
    and the incidents, by the activity instance they concern (a failed continuation's go to its
    transition instance, keyed by the transition's id)."""
    by_owner: dict[str, list[str]] = {}  # job or external task id -> incident ids
    for incident in state.incidents.values():
        by_owner.setdefault(incident.configuration, []).append(incident.id)
    incidents: dict[str, list[str]] = {}
    for ext in state.external_tasks.values():
        if ext.id in by_owner:
            incidents.setdefault(ext.activity_instance_id, []).extend(by_owner[ext.id])
    transitions: dict[str, list[views.TransitionInstanceNode]] = {}
    for job in state.jobs.values():
        if job.activity_instance_id is not None:
            if job.id in by_owner:
                incidents.setdefault(job.activity_instance_id, []).extend(by_owner[job.id])
            continue
        execution = state.executions[job.execution_id]
        scope = execution
        if execution.is_concurrent and execution.parent_id is not None:
            scope = state.executions[execution.parent_id]
        activity = model.activities.get(job.activity_id)
        parent = scope.scope_activity_instance_id or state.id
        transitions.setdefault(parent, []).append(
            views.TransitionInstanceNode(
                id=execution.id,
                activity_id=job.activity_id,
                activity_type=activity.type if activity else "",
                activity_name=activity.name if activity else None,
                parent_activity_instance_id=parent,
                execution_id=execution.id,
                incident_ids=by_owner.get(job.id, []),
            )
        )
    return transitions, incidents
