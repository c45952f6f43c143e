"""Move one instance by a valid plan: the events of Camunda's MigrateProcessInstanceCmd.

In order: the jobs and subscriptions of events the plan does not map are deleted (as their
activity ended); `ProcessInstanceMigrated` states every remaining part on the target (activity
ids, job definitions, an updated event trigger's new due date or name, the execution a task that
became a scope, or stopped being one, now runs on); then the target's events that had no source
(a boundary timer added in version 2) start waiting, and the plan's variables are set.

Pure: the caller hands over the target model and definition; ids and time come from the
session's context.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import msgspec

from .. import events as ev
from ..behaviors import jobs as job_kinds
from ..behaviors.conditions import subscribe as subscribe_conditional
from ..behaviors.io import map_inputs
from ..behaviors.listeners import notify
from ..behaviors.subscriptions import (
    COMPENSATE,
    drop_subscriptions,
    resolved_name,
    subscribe,
    waits_for,
)
from ..behaviors.timeout_listeners import TIMER_TASK_LISTENER, job_kind
from ..errors import NotFound, Rejected
from ..flow import Flow
from ..model import Activity, ConditionalEventDefinition, EventSpec, ProcessModel, UserTaskSpec
from ..parsing.multi_instance import BODY_TYPE
from ..scope import set_variable
from ..session import InstanceSession
from ..state import EventSubscription, Execution, InstanceState, Job
from .instance_validation import (
    InstanceReport,
    MigratingInstance,
    MigratingInstanceInvalid,
    instruction_for,
    parse,
    validate,
)
from .plan import MigrationInstruction, MigrationPlan
from .tree import Carrier, TargetTree, executions

_LISTENER = "$taskListener~"


@dataclass(frozen=True)
class TargetDefinition:
    """The definition the instance moves to, as its stream records it."""

    id: str
    key: str
    version: int
    deployment_id: str


def describe(instruction: MigrationInstruction) -> str:
    """An instruction as the trail shows it."""
    text = f"{instruction.source_activity_id} -> {instruction.target_activity_id}"
    return text + (" (update event trigger)" if instruction.update_event_trigger else "")


def check(
    session: InstanceSession, plan: MigrationPlan, target_model: ProcessModel
) -> InstanceReport:
    """The instance's report for the plan (no failures: it can move)."""
    state = session.state
    _ensure_migratable(state, plan)
    instance = parse(state, session.model, target_model, plan)
    report = validate(state, instance, session.model, target_model)
    failures = _unmapped_compensation(state, plan)
    if not report.has_failures and not failures:
        failures += _not_reshaped_yet(state, TargetTree(state, instance, target_model, _Dry()))
    if failures:
        report = msgspec.structs.replace(report, failures=[*report.failures, *failures])
    return report


class _Dry:
    """Ids for a dry run of the tree (the check draws none from the command)."""

    def __init__(self) -> None:
        self._n = 0

    def __call__(self) -> str:
        self._n += 1
        return f"dry-{self._n}"


def _not_reshaped_yet(state: InstanceState, tree: TargetTree) -> list[str]:
    """What flowledger does not reshape yet (Camunda does): a tree with a multi-instance
    body, or with compensation kept for completed scopes, whose shape the move changes."""
    if not tree.reshaped:
        return []
    if any(ai.activity_type == BODY_TYPE for ai in state.activity_instances.values()):
        return [
            "The migration adds or removes a flow scope (or makes an activity a scope or a "
            "non-scope) in an instance running a multi-instance activity: flowledger does not "
            "reshape such an instance yet; map it to the same structure"
        ]
    if state.retained_scopes or state.compensating or state.reopened_scopes:
        return [
            "The migration adds or removes a flow scope (or makes an activity a scope or a "
            "non-scope) in an instance holding compensation of completed scopes: flowledger "
            "does not reshape such an instance yet; map it to the same structure"
        ]
    return []


def migrate(
    session: InstanceSession,
    plan: MigrationPlan,
    target_model: ProcessModel,
    target: TargetDefinition,
    *,
    skip_custom_listeners: bool = False,
    skip_io_mappings: bool = False,
    batch_id: str | None = None,
    together: int = 0,
    first_of_many: bool = False,
) -> None:
    """Move the instance onto `target`; MigratingInstanceInvalid (nothing emitted) when a part
    of it cannot move."""
    report = check(session, plan, target_model)
    if report.has_failures:
        raise MigratingInstanceInvalid(report)
    source_model = session.model
    instance = parse(session.state, source_model, target_model, plan)
    session.skip_custom_listeners = skip_custom_listeners
    session.skip_io_mappings = skip_io_mappings
    tree = TargetTree(session.state, instance, target_model, session.ctx.new_id)
    source_flow = Flow(session)
    mover = _Mover(session, plan, instance, tree, target)
    gone_jobs, gone_subscriptions = mover.unmapped()
    job_kinds.drop_jobs(source_flow, lambda job: job.id in gone_jobs)
    drop_subscriptions(source_flow, lambda sub: sub.id in gone_subscriptions)
    _remove_scopes(source_flow, tree)
    migrated = mover.migrated()
    session.emit(
        msgspec.structs.replace(
            migrated,
            skip_custom_listeners=skip_custom_listeners,
            skip_io_mappings=skip_io_mappings,
            batch_id=batch_id,
            together=together,
            first_of_many=first_of_many,
            set_variables=sorted(plan.variables),
        )
    )
    session.model = target_model
    target_flow = Flow(session)
    for node in tree.emerged:
        # a scope the target adds starts as Camunda's instantiateScopes starts it
        assert node.activity is not None
        token = mover.carrier.of_instance[node.id]
        map_inputs(target_flow, token, node.activity)
        notify(session, node.activity.listeners, "start", token, node.activity.id)
    _arm_emerging(target_flow, tree)
    for name, value in plan.variables.items():
        set_variable(session, session.state.id, name, value)


def _ensure_migratable(state: InstanceState, plan: MigrationPlan) -> None:
    if state.ended:
        raise NotFound("Process instance", state.id, "it has ended: only running instances move")
    if state.definition_id != plan.source_definition_id:
        raise Rejected(
            f"Migration plan for process definition '{plan.source_definition_id}' is not "
            f"applicable to process instance '{state.id}' of process definition "
            f"'{state.definition_id}'"
        )


def _unmapped_compensation(state: InstanceState, plan: MigrationPlan) -> list[str]:
    return [
        f"Cannot migrate subscription for compensation handler '{sub.activity_id}'. There is no "
        "migration instruction for the compensation boundary event"
        for sub in state.subscriptions.values()
        if sub.event_type == COMPENSATE and instruction_for(plan, sub.activity_id) is None
    ]


class _Mover:
    """Works out where each part of the instance goes."""

    def __init__(
        self,
        session: InstanceSession,
        plan: MigrationPlan,
        instance: MigratingInstance,
        tree: TargetTree,
        target: TargetDefinition,
    ) -> None:
        self.session = session
        self.plan = plan
        self.instance = instance
        self.tree = tree
        self.model = tree.model
        self.target = target
        self.carrier = Carrier()

    # -- what goes ---------------------------------------------------------------------------

    def unmapped(self) -> tuple[set[str], set[str]]:
        """The jobs and subscriptions of events the target has no counterpart of."""
        state = self.session.state
        removed = set(self.tree.removed)
        jobs = {
            job.id
            for job in state.jobs.values()
            if self._job_target(job) is None or job.activity_instance_id in removed
        }
        subscriptions = {
            sub.id
            for sub in state.subscriptions.values()
            if self._event_target(sub) is None or sub.activity_instance_id in removed
        }
        return jobs, subscriptions

    def _event_target(self, sub: EventSubscription) -> Activity | None:
        instruction = instruction_for(self.plan, sub.activity_id)
        if instruction is None:
            return None
        return self.model.activities.get(instruction.target_activity_id)

    def _job_target(self, job: Job) -> Activity | None:
        """The target activity the job belongs to after the move (None: the job goes)."""
        if job.handler_type == job_kinds.ASYNC:
            return self.instance.transitions[job.id].target
        if job.handler_type == TIMER_TASK_LISTENER:
            host = self.instance.activity_instances.get(job.activity_instance_id or "")
            listener = job.handler_configuration.partition(_LISTENER)[2]
            if host is None or host.target is None or not _has_listener(host.target, listener):
                return None
            return host.target
        instruction = instruction_for(self.plan, job.activity_id)
        if instruction is None:
            return None
        return self.model.activities.get(instruction.target_activity_id)

    # -- the event ---------------------------------------------------------------------------

    def migrated(self) -> ev.ProcessInstanceMigrated:
        state = self.session.state
        executions = self._executions(state)
        emerged = [
            ev.MigratedActivityInstance(
                id=node.id,
                activity_id=node.activity.id,
                activity_type=node.activity.type,
                activity_name=node.activity.name,
                execution_id=self.carrier.of_instance[node.id],
                parent_id=node.parent or state.id,
            )
            for node in self.tree.emerged
            if node.activity is not None
        ]
        return ev.ProcessInstanceMigrated(
            emerged=emerged,
            source_definition_id=state.definition_id,
            definition_id=self.target.id,
            definition_key=self.target.key,
            definition_version=self.target.version,
            deployment_id=self.target.deployment_id,
            instructions=[describe(i) for i in self.plan.instructions],
            time=self.session.ctx.now,
            executions=executions,
            activity_instances=self._activity_instances(state),
            tasks=[
                ev.MigratedTask(
                    task.id,
                    self._target_of_instance(task.activity_instance_id).id,
                    self._execution_of(task.activity_instance_id, task.execution_id),
                )
                for task in state.tasks.values()
            ],
            jobs=[self._job(job) for job in state.jobs.values()],
            subscriptions=[self._subscription(sub) for sub in state.subscriptions.values()],
            external_tasks=[
                ev.MigratedExternalTask(
                    ext.id,
                    self._target_of_instance(ext.activity_instance_id).id,
                    self._execution_of(ext.activity_instance_id, ext.execution_id),
                )
                for ext in state.external_tasks.values()
            ],
            incidents=[self._incident(state, incident_id) for incident_id in state.incidents],
            moved_variables=self._moved_variables(state),
        )

    def _target_of_instance(self, activity_instance_id: str) -> Activity:
        target = self.instance.activity_instances[activity_instance_id].target
        assert target is not None, "validated: every waiting activity instance is mapped"
        return target

    def _execution_of(self, activity_instance_id: str | None, execution_id: str) -> str:
        carrier = self.carrier
        if activity_instance_id is not None and activity_instance_id in carrier.of_instance:
            return carrier.of_instance[activity_instance_id]
        if execution_id in carrier.of_token:
            return carrier.of_token[execution_id]
        return carrier.of_execution.get(execution_id) or execution_id

    def _executions(self, state: InstanceState) -> list[ev.MigratedExecution]:
        """The execution tree after the move: relabelled when its shape stays, else built anew
        in the target's shape (`tree`)."""
        if self.tree.reshaped:
            self.tree.state = state
            tree, self.carrier = executions(self.tree, self.session.ctx.new_id)
        else:
            tree = {eid: _copy(x) for eid, x in state.executions.items()}
            self._relabel(state, tree)
        return [ev.MigratedExecution(**msgspec.structs.asdict(x)) for x in tree.values()]

    def _relabel(self, state: InstanceState, tree: dict[str, Execution]) -> None:
        for x in tree.values():
            if x.activity_instance_id is not None:
                found = self.instance.activity_instances.get(x.activity_instance_id)
                x.activity_id = None if found is None or found.target is None else found.target.id
            elif x.activity_id is not None:
                instruction = instruction_for(self.plan, x.activity_id)
                x.activity_id = None if instruction is None else instruction.target_activity_id
            if x.scope_activity_instance_id is not None and x.scope_activity_id is not None:
                found = self.instance.activity_instances.get(x.scope_activity_instance_id)
                if found is not None and found.target is not None:
                    x.scope_activity_id = found.target.id
                elif x.scope_activity_instance_id == state.id:
                    x.scope_activity_id = self.model.id

    def _activity_instances(self, state: InstanceState) -> list[ev.MigratedActivityInstance]:
        moved: list[ev.MigratedActivityInstance] = []
        for ai in state.activity_instances.values():
            target = self._target_of_instance(ai.id)
            moved.append(
                ev.MigratedActivityInstance(
                    id=ai.id,
                    activity_id=target.id,
                    activity_type=target.type,
                    activity_name=target.name,
                    execution_id=self._execution_of(ai.id, ai.execution_id),
                    parent_id=self.tree.nodes[ai.id].parent or state.id,
                )
            )
        return moved

    def _job(self, job: Job) -> ev.MigratedJob:
        target = self._job_target(job)
        assert target is not None, "unmapped jobs were deleted first"
        due, repeat = job.due_date, job.repeat
        configuration = job.handler_configuration
        if job.handler_type == job_kinds.ASYNC:
            kind = job_kinds.ASYNC_BEFORE
            if configuration not in (job_kinds.BEFORE, job_kinds.PROCESS_START):
                kind = job_kinds.ASYNC_AFTER
            activity_id = target.id
        elif job.handler_type == TIMER_TASK_LISTENER:
            listener = configuration.partition(_LISTENER)[2]
            kind = job_kind(listener)
            configuration = f"{target.id}{_LISTENER}{listener}"
            activity_id = target.id
        else:
            kind = job_kinds.timer_handler(self.model, target)
            configuration = target.id
            activity_id = target.id
            instruction = instruction_for(self.plan, job.activity_id)
            if instruction is not None and instruction.update_event_trigger:
                due, repeat = self._new_due(job, target)
        return ev.MigratedJob(
            id=job.id,
            activity_id=activity_id,
            job_definition_id=job_kinds.job_definition_id(self.target.id, target.id, kind),
            execution_id=self._execution_of(job.activity_instance_id, job.execution_id),
            handler_configuration=configuration,
            due_date=due,
            repeat=repeat,
        )

    def _new_due(self, job: Job, event: Activity) -> tuple[datetime | None, str | None]:
        """Camunda's TimerDeclarationImpl.updateJob: due by the target's timer, from now."""
        timer = job_kinds.timer_of(event)
        if timer is None:
            return job.due_date, job.repeat
        flow = Flow(self.session)
        flow.model = self.model
        definition = job_kinds.timer_definition(flow, job.execution_id, event, timer)
        now = self.session.ctx.now
        due = definition.first_due(now)
        return (job.due_date, job.repeat) if due is None else (due, definition.anchored_text(now))

    def _subscription(self, sub: EventSubscription) -> ev.MigratedSubscription:
        target = self._event_target(sub)
        assert target is not None, "unmapped subscriptions were deleted first"
        name = sub.event_name
        instruction = instruction_for(self.plan, sub.activity_id)
        waiting = waits_for(target)
        if instruction is not None and instruction.update_event_trigger and waiting is not None:
            flow = Flow(self.session)
            flow.model = self.model
            name = resolved_name(flow, sub.execution_id, target, waiting[0], waiting[1])
        return ev.MigratedSubscription(
            id=sub.id,
            activity_id=target.id,
            event_name=name,
            execution_id=self._execution_of(sub.activity_instance_id, sub.execution_id),
            activity_instance_id=sub.activity_instance_id,
        )

    def _incident(self, state: InstanceState, incident_id: str) -> ev.MigratedIncident:
        incident = state.incidents[incident_id]
        job = state.jobs.get(incident.configuration)
        job_definition = incident.job_definition_id
        if job is not None:
            target_job = self._job(job)
            job_definition = target_job.job_definition_id
        return ev.MigratedIncident(
            id=incident.id,
            execution_id=self._incident_execution(
                state, incident.configuration, incident.execution_id
            ),
            activity_id=self._mapped(incident.activity_id),
            failed_activity_id=self._mapped(incident.failed_activity_id),
            job_definition_id=job_definition,
        )

    def _incident_execution(self, state: InstanceState, configuration: str, old: str) -> str:
        job = state.jobs.get(configuration)
        if job is not None:
            return self._execution_of(job.activity_instance_id, job.execution_id)
        ext = state.external_tasks.get(configuration)
        if ext is not None:
            return self._execution_of(ext.activity_instance_id, ext.execution_id)
        return self._execution_of(None, old)

    def _mapped(self, activity_id: str | None) -> str | None:
        if activity_id is None:
            return None
        instruction = instruction_for(self.plan, activity_id)
        return activity_id if instruction is None else instruction.target_activity_id

    def _moved_variables(self, state: InstanceState) -> list[ev.MovedVariable]:
        """Variables of a removed scope execution go to the token above it; a task's local
        variables follow the task to its new execution."""
        moved: list[ev.MovedVariable] = []
        task_executions = {
            task.id: self._execution_of(task.activity_instance_id, task.execution_id)
            for task in state.tasks.values()
        }
        for var in state.variables.values():
            if var.task_id is not None and var.task_id in task_executions:
                new = task_executions[var.task_id]
            else:
                new = self.carrier.of_execution.get(var.execution_id) or var.execution_id
            if new != var.execution_id:
                moved.append(ev.MovedVariable(var.id, new))
        return moved


def _copy(execution: Execution) -> Execution:
    return msgspec.structs.replace(execution, children=list(execution.children))


def _has_listener(activity: Activity, listener_id: str) -> bool:
    spec = activity.spec
    return isinstance(spec, UserTaskSpec) and any(
        listener.id == listener_id for listener in spec.timeout_listeners
    )


# -- what the target adds ------------------------------------------------------------------------


def _remove_scopes(flow: Flow, tree: TargetTree) -> None:
    """The scope instances the target has no counterpart of end, deepest first, as Camunda's
    deleteCascade ends them: their end listeners run (unless skipped), their variables go."""
    session = flow.session
    state = session.state
    for ai_id in tree.removed:
        ai = state.activity_instances[ai_id]
        activity = flow.model.activities[ai.activity_id]
        scope = _scope_execution(state, ai_id)
        notify(session, activity.listeners, "end", scope or ai.execution_id, activity.id)
        for var in [v for v in state.variables.values() if v.execution_id == scope]:
            if var.task_id is None:
                session.emit(ev.VariableDeleted(variable_id=var.id, time=session.ctx.now))
        session.emit(ev.ActivityCanceled(activity_instance_id=ai_id, time=session.ctx.now))


def _arm_emerging(flow: Flow, tree: TargetTree) -> None:
    """Boundary events and event subprocess starts of the target that nothing of the source
    became wait from now on, as if their activity or scope had just started."""
    state = flow.session.state
    waiting = {(job.activity_id, job.activity_instance_id) for job in state.jobs.values()}
    waiting |= {(sub.activity_id, sub.activity_instance_id) for sub in state.subscriptions.values()}
    for node in tree.nodes.values():
        if node.activity is None:
            continue
        ai = state.activity_instances[node.id]
        for boundary_id in node.activity.boundary_events:
            if (boundary_id, node.id) not in waiting:
                _arm(flow, ai.execution_id, flow.model.activities[boundary_id], node.id)
    for node in tree.nodes.values():
        scope_id = flow.model.id if node.activity is None else node.activity.id
        scope_execution = _scope_execution(state, node.id)
        if scope_execution is None:
            continue
        for esp in flow.model.event_subprocesses(scope_id):
            start = flow.model.activities[flow.model.start_events[esp.id]]
            if (start.id, node.id) not in waiting:
                _arm(flow, scope_execution, start, node.id)


def _scope_execution(state: InstanceState, activity_instance_id: str) -> str | None:
    for execution in state.executions.values():
        if execution.is_scope and execution.scope_activity_instance_id == activity_instance_id:
            return execution.id
    return None


def _arm(flow: Flow, execution_id: str, event: Activity, activity_instance_id: str) -> None:
    arms: list[Callable[[Flow, str, Activity, str], None]] = []
    if job_kinds.timer_of(event) is not None:
        arms.append(job_kinds.schedule_timer)
    elif waits_for(event) is not None:
        arms.append(subscribe)
    elif isinstance(event.spec, EventSpec) and isinstance(
        event.spec.definition, ConditionalEventDefinition
    ):
        arms.append(subscribe_conditional)
    for arm in arms:
        arm(flow, execution_id, event, activity_instance_id)
