"""Whether one instance can move by a plan that is valid for both models (Camunda's migrating
instance validators), and the report that says why not, shaped as Camunda's
MigratingProcessInstanceValidationReport: failures per activity instance and per transition
instance (a token waiting in an asynchronous continuation).

Pure. `parse` reads the instance's activity and transition instances and what the plan makes of
each; `validate` checks them; `execute` moves only an instance whose report is empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from ..behaviors.jobs import AFTER_TAKE, ASYNC, PROCESS_START
from ..errors import Rejected
from ..model import Activity, ProcessModel
from ..parsing.multi_instance import BODY_SUFFIX
from ..state import InstanceState, Job
from .activities import has_supported_behavior
from .plan import MigrationInstruction, MigrationPlan
from .scopes import emerging_chain, nearest_moving

NO_INSTRUCTION = "There is no migration instruction for this instance's activity"
UNSUPPORTED = "The type of the source activity is not supported for activity instance migration"


class InstructionDescription(msgspec.Struct, frozen=True, omit_defaults=True):
    """A migration instruction as Camunda's reports show it."""

    source_activity_ids: list[str]
    target_activity_ids: list[str]
    update_event_trigger: bool = False


class ActivityInstanceReport(msgspec.Struct, frozen=True, omit_defaults=True):
    activity_instance_id: str
    source_scope_id: str
    failures: list[str]
    migration_instruction: InstructionDescription | None = None


class TransitionInstanceReport(msgspec.Struct, frozen=True, omit_defaults=True):
    transition_instance_id: str
    source_scope_id: str
    failures: list[str]
    migration_instruction: InstructionDescription | None = None


class InstanceReport(msgspec.Struct, frozen=True, omit_defaults=True):
    """Camunda's MigratingProcessInstanceValidationReport."""

    process_instance_id: str
    failures: list[str] = []
    activity_instance_validation_reports: list[ActivityInstanceReport] = []
    transition_instance_validation_reports: list[TransitionInstanceReport] = []

    @property
    def has_failures(self) -> bool:
        return bool(
            self.failures
            or self.activity_instance_validation_reports
            or self.transition_instance_validation_reports
        )

    def describe(self) -> str:
        """Camunda's message: each failing instance with its failures."""
        lines = [f"Cannot migrate process instance '{self.process_instance_id}':"]
        lines += [f"\t{failure}" for failure in self.failures]
        for ai in self.activity_instance_validation_reports:
            lines.append(f"\tCannot migrate activity instance '{ai.activity_instance_id}':")
            lines += [f"\t\t{failure}" for failure in ai.failures]
        for ti in self.transition_instance_validation_reports:
            lines.append(f"\tCannot migrate transition instance '{ti.transition_instance_id}':")
            lines += [f"\t\t{failure}" for failure in ti.failures]
        return "\n".join(lines)


class MigratingInstanceInvalid(Rejected):
    """An instance cannot move by the plan (Camunda's MigratingProcessInstanceValidation-
    Exception): nothing of it moved; `report` says which of its parts fail and why."""

    def __init__(self, report: InstanceReport) -> None:
        self.report = report
        super().__init__(report.describe())


def describe(instruction: MigrationInstruction | None) -> InstructionDescription | None:
    if instruction is None:
        return None
    return InstructionDescription(
        [instruction.source_activity_id],
        [instruction.target_activity_id],
        instruction.update_event_trigger,
    )


# -- the instance as the plan sees it ------------------------------------------------------------


@dataclass
class MigratingActivityInstance:
    """An activity instance with its source activity, and the target the plan maps it to."""

    id: str
    source: Activity
    parent_id: str  # the parent activity instance (the instance id at the process level)
    instruction: MigrationInstruction | None
    target: Activity | None
    children: list[str] = field(default_factory=list)
    transitions: list[str] = field(default_factory=list)


@dataclass
class MigratingTransitionInstance:
    """A token waiting in an asynchronous continuation before or after an activity."""

    job: Job
    source: Activity
    parent_id: str
    instruction: MigrationInstruction | None
    target: Activity | None

    @property
    def after(self) -> bool:
        return self.job.handler_configuration not in _BEFORE


_BEFORE = {"transition-create-scope", PROCESS_START}


@dataclass
class MigratingInstance:
    """Camunda's MigratingProcessInstance: the activity and transition instances, keyed by id."""

    activity_instances: dict[str, MigratingActivityInstance]
    transitions: dict[str, MigratingTransitionInstance]


def instruction_for(plan: MigrationPlan, activity_id: str) -> MigrationInstruction | None:
    """The instruction mapping the activity; a multi-instance body moves with its inner
    activity's instruction, as Camunda's."""
    if activity_id.endswith(BODY_SUFFIX):
        inner = plan.instruction_for(activity_id.removesuffix(BODY_SUFFIX))
        if inner is None:
            return None
        return MigrationInstruction(
            activity_id,
            inner.target_activity_id + BODY_SUFFIX,
            inner.update_event_trigger,
        )
    return plan.instruction_for(activity_id)


def parse(
    state: InstanceState, source: ProcessModel, target: ProcessModel, plan: MigrationPlan
) -> MigratingInstance:
    activity_instances: dict[str, MigratingActivityInstance] = {}
    for ai in state.activity_instances.values():
        instruction = instruction_for(plan, ai.activity_id)
        found = (
            None if instruction is None else target.activities.get(instruction.target_activity_id)
        )
        activity_instances[ai.id] = MigratingActivityInstance(
            ai.id, source.activities[ai.activity_id], ai.parent_id, instruction, found
        )
    for migrating in activity_instances.values():
        parent = activity_instances.get(migrating.parent_id)
        if parent is not None:
            parent.children.append(migrating.id)
    transitions: dict[str, MigratingTransitionInstance] = {}
    for job in state.jobs.values():
        if job.handler_type != ASYNC:
            continue
        instruction = instruction_for(plan, job.activity_id)
        found = (
            None if instruction is None else target.activities.get(instruction.target_activity_id)
        )
        parent_id = _enclosing_instance(state, job.execution_id)
        transitions[job.id] = MigratingTransitionInstance(
            job, source.activities[job.activity_id], parent_id, instruction, found
        )
        parent = activity_instances.get(parent_id)
        if parent is not None:
            parent.transitions.append(job.id)
    return MigratingInstance(activity_instances, transitions)


def _enclosing_instance(state: InstanceState, execution_id: str) -> str:
    """The activity instance of the scope the token waits in."""
    execution = state.executions[execution_id]
    while execution.scope_activity_instance_id is None or not execution.is_scope:
        if execution.parent_id is None:
            return state.id
        execution = state.executions[execution.parent_id]
    return execution.scope_activity_instance_id


# -- validation ------------------------------------------------------------------------------------


def validate(
    state: InstanceState,
    instance: MigratingInstance,
    source: ProcessModel,
    target: ProcessModel,
) -> InstanceReport:
    """Camunda's instance validators, plus what flowledger does not migrate yet (a flow scope
    the move would add or remove), each named in the report."""
    activity_reports: list[ActivityInstanceReport] = []
    for ai in instance.activity_instances.values():
        failures: list[str] = []
        if not has_supported_behavior(source, ai.source):
            failures.append(UNSUPPORTED)
        if ai.instruction is None:
            if not ai.children and not ai.transitions:
                failures.append(NO_INSTRUCTION)
            # else: a scope the target does not have: it ends, its children move up
        elif ai.target is None:
            failures.append(f"Target activity '{ai.instruction.target_activity_id}' does not exist")
        else:
            above = nearest_moving(instance, state.id, ai.id)
            failures += _scope_failures(instance, above, ai.target, target)
            failures += _variable_conflicts(state, ai)
        if failures:
            activity_reports.append(
                ActivityInstanceReport(ai.id, ai.source.id, failures, describe(ai.instruction))
            )
    transition_reports: list[TransitionInstanceReport] = []
    for job_id, ti in instance.transitions.items():
        failures = []
        if ti.instruction is None:
            failures.append(NO_INSTRUCTION)
        elif ti.target is None:
            failures.append(f"Target activity '{ti.instruction.target_activity_id}' does not exist")
        else:
            failures += _async_failures(ti, target)
            above = ti.parent_id
            if above != state.id and instance.activity_instances[above].instruction is None:
                above = nearest_moving(instance, state.id, above)
            failures += _scope_failures(instance, above, ti.target, target)
        if failures:
            transition_reports.append(
                TransitionInstanceReport(job_id, ti.source.id, failures, describe(ti.instruction))
            )
    return InstanceReport(
        state.id,
        activity_instance_validation_reports=activity_reports,
        transition_instance_validation_reports=transition_reports,
    )


def _scope_failures(
    instance: MigratingInstance, above: str, target_activity: Activity, target: ProcessModel
) -> list[str]:
    """The target activity must lie within the target of its nearest moving ancestor (the
    scopes between are created by the move)."""
    parent = instance.activity_instances.get(above)
    if parent is not None and parent.target is None:
        return []  # the parent's own failure says it
    expected = target.id if parent is None or parent.target is None else parent.target.id
    if emerging_chain(target, target_activity, expected) is not None:
        return []
    return [
        f"The target activity '{target_activity.id}' does not lie within '{expected}', the "
        "target of the nearest instance above it that migrates"
    ]


def _async_failures(ti: MigratingTransitionInstance, target: ProcessModel) -> list[str]:
    """Camunda's AsyncMigrationValidator, AsyncAfterMigrationValidator and
    AsyncProcessStartMigrationValidator."""
    assert ti.target is not None
    failures: list[str] = []
    if ti.after and not ti.target.async_after:
        failures.append("Target activity is not asyncAfter")
    if not ti.after and not ti.target.async_before:
        failures.append("Target activity is not asyncBefore")
    configuration = ti.job.handler_configuration
    if ti.after and len(ti.target.outgoing) > 1:
        if not configuration.startswith(AFTER_TAKE):
            failures.append(
                "Transition instance is assigned to no sequence flow and target activity has "
                "more than one outgoing sequence flow"
            )
        elif configuration.removeprefix(AFTER_TAKE) not in ti.target.outgoing:
            failures.append(
                "Transition instance is assigned to a sequence flow that cannot be matched in "
                "the target activity"
            )
    if configuration == PROCESS_START and ti.target.scope_id != target.id:
        failures.append(
            "A transition instance that instantiates the process can only be migrated to a "
            "process-level flow node"
        )
    return failures


def _variable_conflicts(state: InstanceState, ai: MigratingActivityInstance) -> list[str]:
    """Camunda's VariableConflictActivityInstanceValidator: a scope activity that becomes a
    non-scope one brings its variables to the execution above; a name held on both fails."""
    assert ai.target is not None
    if not (ai.source.is_scope and not ai.target.is_scope):
        return []
    scope = next(
        (x for x in state.executions.values() if x.scope_activity_instance_id == ai.id), None
    )
    if scope is None or scope.parent_id is None:
        return []
    names_here = {v.name for v in state.variables.values() if v.execution_id == scope.id}
    above = {
        v.name
        for v in state.variables.values()
        if v.execution_id == scope.parent_id and v.task_id is None
    }
    return [
        f"The variable '{name}' exists in both, this scope and concurrent local in the parent "
        "scope. Migrating to a non-scope activity would overwrite one of them."
        for name in sorted(names_here & above)
    ]
