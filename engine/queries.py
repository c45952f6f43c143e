"""The engine's queries: definitions, instances, variables, tasks and history, read from the
projected tables (and the activity instance tree from the instance's state).

Reads only, each on a connection of its own; never appends, never decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from flowledger.core import views
from flowledger.core.errors import NotFound
from flowledger.core.model import ProcessModel
from flowledger.core.state import InstanceState
from flowledger.core.variables import StoredValue, from_stored, rest_type_name
from flowledger.engine.storage.connections import Connections
from flowledger.engine.storage.streams import Repository
from flowledger.projections.queries import decision_reads as decision_queries
from flowledger.projections.queries import reads as tables
from flowledger.projections.queries import subscription_reads as message_queries
from flowledger.projections.queries.decisions import HistoricDecisionInstanceQuery


class Queries:
    """What `Engine`'s query methods answer."""

    def __init__(self, db: Connections, repository: Repository) -> None:
        self._db = db
        self._repository = repository

    # -- repository ------------------------------------------------------------------------

    def process_definitions(self, key: str | None = None) -> list[views.ProcessDefinition]:
        with self._db.read() as conn:
            return tables.process_definitions(conn, key=key)

    def deployment(self, deployment_id: str) -> views.Deployment | None:
        with self._db.read() as conn:
            return tables.deployment(conn, deployment_id)

    def decision_definitions(self, key: str | None = None) -> list[views.DecisionDefinition]:
        with self._db.read() as conn:
            return decision_queries.decision_definitions(conn, key=key)

    def decision_definition(self, definition_id: str) -> views.DecisionDefinition:
        with self._db.read() as conn:
            found = decision_queries.decision_definition(conn, definition_id)
        if found is None:
            raise NotFound("Decision definition", definition_id)
        return found

    def historic_decision_instances(
        self, *, include_inputs: bool = False, include_outputs: bool = False, **filters: Any
    ) -> list[views.HistoricDecisionInstance]:
        query = HistoricDecisionInstanceQuery(**filters)
        with self._db.read() as conn:
            return decision_queries.historic_decision_instances(
                conn,
                query,
                include_inputs=include_inputs,
                include_outputs=include_outputs,
                sorting=[("evaluationTime", False)],
            )

    # -- process instances -----------------------------------------------------------------

    def process_instance(self, process_instance_id: str) -> views.ProcessInstance | None:
        with self._db.read() as conn:
            return tables.process_instance(conn, process_instance_id)

    def executions(self, process_instance_id: str) -> list[views.Execution]:
        with self._db.read() as conn:
            return tables.executions(conn, process_instance_id)

    def activity_instance_tree(self, process_instance_id: str) -> views.ActivityInstanceNode:
        # Checked out of the cache as a command does: no command evolves it meanwhile (one that
        # wants it reads the log), and the engine's commands do not wait for this read.
        with self._db.read() as conn:
            cached = self._repository.checkout(conn, process_instance_id)
            if cached is None:
                raise NotFound("Process instance", process_instance_id)
            try:
                state = cached.state
                if state.ended:
                    raise NotFound("Process instance", process_instance_id, "it has already ended")
                model = self._repository.model(conn, state.definition_id)
                return _activity_tree(state, model)
            finally:
                self._repository.remember(process_instance_id, cached)

    # -- variables -------------------------------------------------------------------------

    def task_form_keys(self, tasks: Mapping[str, str]) -> dict[str, str | None]:
        """Task id -> its `camunda:formKey` as evaluated when the task was created, for open tasks
        given as {task id: process instance id}. No table holds it (Camunda resolves it from the
        definition on request): it is in the instance's state, cached for active instances."""
        wanted: dict[str, list[str]] = {}
        for task_id, instance_id in tasks.items():
            wanted.setdefault(instance_id, []).append(task_id)
        keys: dict[str, str | None] = {}
        # Not under the engine lock (a task list would wait for a commit group): a command may
        # evolve a state we hold in place, but a task's form key never changes once it exists,
        # and one lookup in the task map sees the task either open or gone.
        stale: dict[str, list[str]] = {}
        for instance_id, task_ids in wanted.items():
            # A cached state holding the task answers without a query, however old it is: the
            # list came from the task table, and a task's form key never changes.
            cached = self._repository.cache.peek(instance_id)
            open_tasks = cached.state.tasks if cached is not None else {}
            # One lookup per task: a command may be ending one of them meanwhile.
            found = {t: task for t in task_ids if (task := open_tasks.get(t)) is not None}
            if len(found) == len(task_ids):
                keys.update((t, task.form_key) for t, task in found.items())
            else:
                stale[instance_id] = task_ids
        if not stale:
            return keys
        with self._db.read() as conn:
            for instance_id, task_ids in stale.items():
                loaded = self._repository.load_fresh(conn, instance_id)
                open_tasks = loaded.state.tasks if loaded is not None else {}
                for task_id in task_ids:
                    task = open_tasks.get(task_id)
                    keys[task_id] = task.form_key if task is not None else None
        return keys

    def variable_values(self, execution_id: str, *, local: bool = False) -> dict[str, StoredValue]:
        with self._db.read() as conn:
            chain = tables.execution_chain(conn, execution_id)
            if not chain:
                raise NotFound("Execution", execution_id, "it does not exist or has ended")
            rows = tables.variable_rows(conn, execution_ids=chain[:1] if local else chain)
        rank = {e: i for i, e in enumerate(chain)}
        best: dict[str, tuple[int, StoredValue]] = {}
        for name, stored, owner, task_id in rows:
            if task_id is not None:
                continue
            r = rank[owner]
            if name not in best or r < best[name][0]:
                best[name] = (r, stored)
        return {n: v for n, (_r, v) in sorted(best.items())}

    def task_variable_values(self, task_id: str, *, local: bool = False) -> dict[str, StoredValue]:
        with self._db.read() as conn:
            task = tables.tasks(conn, task_id=task_id)
            if not task:
                raise NotFound("Task", task_id)
            own = {n: v for n, v, _e, _t in tables.variable_rows(conn, task_id=task_id)}
        if local:
            return dict(sorted(own.items()))
        merged = self.variable_values(task[0].execution_id)
        merged.update(own)
        return dict(sorted(merged.items()))

    # -- user and external tasks -----------------------------------------------------------

    def tasks(self, **filters: Any) -> list[views.Task]:
        with self._db.read() as conn:
            return tables.tasks(conn, **filters)

    def external_tasks(self, **filters: Any) -> list[views.ExternalTask]:
        with self._db.read() as conn:
            return tables.external_tasks(conn, **filters)

    def external_task_error_details(self, external_task_id: str) -> str | None:
        with self._db.read() as conn:
            exists, details = tables.external_task_error_details(conn, external_task_id)
        if not exists:
            raise NotFound("External task", external_task_id)
        return details

    # -- jobs and incidents ----------------------------------------------------------------

    def jobs(self, **filters: Any) -> list[views.Job]:
        """Filters of `projections.job_queries.jobs`; `executable=True` needs `now`."""
        with self._db.read() as conn:
            return tables.jobs(conn, **filters)

    def due_jobs(self, now: datetime, limit: int) -> list[str]:
        """The ids of up to `limit` jobs that may run at `now`, due date first (leases not
        looked at: see `projections.queries.due_jobs`)."""
        with self._db.read() as conn:
            return [job_id for job_id, _instance in tables.due_jobs(conn, now, limit)]

    def job(self, job_id: str) -> views.Job:
        with self._db.read() as conn:
            found = tables.job(conn, job_id)
        if found is None:
            raise NotFound("Job", job_id)
        return found

    def job_stacktrace(self, job_id: str) -> str | None:
        """The stack trace of the job's last failure (None before any failure)."""
        with self._db.read() as conn:
            exists, stacktrace = tables.job_stacktrace(conn, job_id)
        if not exists:
            raise NotFound("Job", job_id)
        return stacktrace

    def job_definitions(self, **filters: Any) -> list[views.JobDefinition]:
        with self._db.read() as conn:
            return tables.job_definitions(conn, **filters)

    def incidents(self, **filters: Any) -> list[views.Incident]:
        with self._db.read() as conn:
            return tables.incidents(conn, **filters)

    def event_subscriptions(self, **filters: Any) -> list[views.EventSubscription]:
        with self._db.read() as conn:
            return message_queries.event_subscriptions(conn, **filters)

    # -- history ---------------------------------------------------------------------------

    def historic_incidents(self, **filters: Any) -> list[views.HistoricIncident]:
        with self._db.read() as conn:
            return tables.historic_incidents(conn, **filters)

    def historic_job_logs(self, **filters: Any) -> list[views.HistoricJobLog]:
        with self._db.read() as conn:
            return tables.historic_job_logs(conn, **filters)

    def historic_process_instances(self, **filters: Any) -> list[views.HistoricProcessInstance]:
        with self._db.read() as conn:
            return tables.historic_process_instances(conn, **filters)

    def historic_activity_instances(
        self, process_instance_id: str
    ) -> list[views.HistoricActivityInstance]:
        with self._db.read() as conn:
            return tables.historic_activity_instances(conn, process_instance_id)

    def historic_task_instances(
        self, process_instance_id: str | None = None
    ) -> list[views.HistoricTaskInstance]:
        with self._db.read() as conn:
            return tables.historic_task_instances(conn, process_instance_id)

    def historic_variable_instances(
        self, process_instance_id: str | None = None
    ) -> list[views.HistoricVariableInstance]:
        with self._db.read() as conn:
            rows = tables.historic_variable_rows(conn, process_instance_id)
        return [
            views.HistoricVariableInstance(
                id=m["ID_"],
                name=m["NAME_"],
                type=rest_type_name(stored.type),
                value=from_stored(stored),
                process_instance_id=m["PROC_INST_ID_"],
                execution_id=m["EXECUTION_ID_"],
                activity_instance_id=m["ACT_INST_ID_"],
                task_id=m["TASK_ID_"],
                state=m["STATE_"],
                create_time=tables.utc(m["CREATE_TIME_"]),
            )
            for m, stored in rows
        ]


def _activity_tree(state: InstanceState, model: ProcessModel) -> views.ActivityInstanceNode:
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
