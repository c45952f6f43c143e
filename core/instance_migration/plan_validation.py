"""Checks a migration plan against its source and target models as Camunda's
CreateMigrationPlanCmd does: every instruction through Camunda's default instruction validators,
in their order, and every variable; the failures in Camunda's own words.

Pure: reads the two `ProcessModel`s and the plan, returns a report (or raises
`MigrationPlanInvalid`). What a running instance allows is `instance_validation`'s to check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .. import element_kinds as kinds
from ..errors import MigrationPlanInvalid
from ..model import Activity, ProcessModel, UserTaskSpec
from ..variables import TypedValue, to_stored
from . import activities as view
from .plan import MigrationInstruction, MigrationPlan

__all__ = [
    "ALL_VALIDATORS",
    "GENERATION_VALIDATORS",
    "CheckedInstruction",
    "CheckedInstructions",
    "InstructionReport",
    "MigrationPlanReport",
    "VariableReport",
    "describe",
    "validate_plan",
    "validate_plan_or_raise",
]

JAVA_SERIALIZATION = "application/x-java-serialized-object"
# VariableUtil.ERROR_MSG: Camunda refuses Java serialization by default (as flowledger always)
JAVA_SERIALIZATION_PROHIBITED = (
    "Cannot set variable with name {}. Java serialization format is prohibited"
)


class InstructionReport(msgspec.Struct, frozen=True):
    """One instruction and why it is not valid (Camunda's MigrationInstructionValidationReport)."""

    instruction: MigrationInstruction
    failures: tuple[str, ...]


class VariableReport(msgspec.Struct, frozen=True):
    """One plan variable and why it cannot be set (Camunda's MigrationVariableValidationReport):
    its value as given, typed as Camunda's REST API shows it."""

    type: str | None
    value: Any
    value_info: dict[str, Any]
    failures: tuple[str, ...]


class MigrationPlanReport(msgspec.Struct, frozen=True):
    """Camunda's MigrationPlanValidationReport: the instructions that failed (in the plan's
    order), the variables that failed (by name). Empty: the plan is valid."""

    source_definition_id: str
    target_definition_id: str
    instruction_reports: tuple[InstructionReport, ...] = ()
    variable_reports: dict[str, VariableReport] = {}

    @property
    def has_reports(self) -> bool:
        return bool(self.instruction_reports or self.variable_reports)


@dataclass(eq=False)
class CheckedInstruction:
    """An instruction whose activities exist (Camunda's ValidatingMigrationInstruction): compared
    by identity, as Camunda's, so that two equal instructions are two mappings."""

    source: Activity
    target: Activity
    update_event_trigger: bool = False

    def as_instruction(self) -> MigrationInstruction:
        return MigrationInstruction(self.source.id, self.target.id, self.update_event_trigger)

    def __str__(self) -> str:  # Camunda's ValidatingMigrationInstructionImpl.toString
        return (
            f"ValidatingMigrationInstructionImpl{{sourceActivity=Activity({self.source.id}), "
            f"targetActivity=Activity({self.target.id})}}"
        )


@dataclass
class CheckedInstructions:
    """The instructions under validation with their source and target models, indexed by source
    and target activity (Camunda's ValidatingMigrationInstructions)."""

    source_model: ProcessModel
    target_model: ProcessModel
    _all: list[CheckedInstruction] = field(default_factory=list)
    _by_source: dict[str, list[CheckedInstruction]] = field(default_factory=dict)
    _by_target: dict[str, list[CheckedInstruction]] = field(default_factory=dict)
    # changed since the validators last found every instruction valid
    _changed: bool = True
    # the models' facts, found once for all the validators ask
    source: view.ModelView = field(init=False)
    target: view.ModelView = field(init=False)

    def __post_init__(self) -> None:
        self.source = view.ModelView(self.source_model)
        self.target = view.ModelView(self.target_model)

    def __iter__(self) -> Iterator[CheckedInstruction]:
        return iter(list(self._all))

    def __contains__(self, instruction: object) -> bool:
        return any(instruction is i for i in self._by_source.get(_source_id(instruction), ()))

    def add(self, instruction: CheckedInstruction) -> None:
        self._changed = True
        self._all.append(instruction)
        self._by_source.setdefault(instruction.source.id, []).append(instruction)
        self._by_target.setdefault(instruction.target.id, []).append(instruction)

    def add_all(self, instructions: Iterable[CheckedInstruction]) -> None:
        for instruction in instructions:
            self.add(instruction)

    def by_source(self, activity_id: str) -> list[CheckedInstruction]:
        """The instructions mapping the source activity (none for the process: PROCESS)."""
        return self._by_source.get(activity_id, []) if activity_id else []

    def by_target(self, activity_id: str) -> list[CheckedInstruction]:
        return self._by_target.get(activity_id, []) if activity_id else []

    def failures(
        self, instruction: CheckedInstruction, validators: Iterable[Validator]
    ) -> list[str]:
        found: list[str] = []
        for validator in validators:
            found.extend(validator(instruction, self))
        return found

    def filter(self, validators: tuple[Validator, ...]) -> None:
        """Keep the instructions the validators accept, each judged against all of them as they
        were (Camunda's filterWith). Unchanged since a pass that kept them all, they stand: the
        validators would judge the same instructions the same."""
        if not self._changed:
            return
        valid = [i for i in self._all if not self.failures(i, validators)]
        removed = len(valid) != len(self._all)
        self._all, self._by_source, self._by_target = [], {}, {}
        self.add_all(valid)
        self._changed = removed


Validator = Callable[[CheckedInstruction, CheckedInstructions], list[str]]


def _source_id(instruction: object) -> str:
    return instruction.source.id if isinstance(instruction, CheckedInstruction) else ""


# -- Camunda's instruction validators, each a function of (instruction, all instructions) ------

# SameBehaviorInstructionValidator.EQUIVALENT_BEHAVIORS
_EQUIVALENT_BEHAVIORS = (
    frozenset({"CallActivityBehavior", "CaseCallActivityBehavior"}),
    frozenset({"SubProcessActivityBehavior", "EventSubProcessActivityBehavior"}),
)


def same_behavior(i: CheckedInstruction, all_: CheckedInstructions) -> list[str]:
    source = all_.source.behavior(i.source)
    target = all_.target.behavior(i.target)
    if source == target or any({source, target} <= same for same in _EQUIVALENT_BEHAVIORS):
        return []
    return [f"Activities have incompatible types ({source} is not compatible with {target})"]


def same_event_type(i: CheckedInstruction, all_: CheckedInstructions) -> list[str]:
    if not (
        view.is_passive_event(all_.source_model, i.source)
        and view.is_passive_event(all_.target_model, i.target)
    ):
        return []
    if i.source.type != i.target.type:
        return [f"Events are not of the same type ({i.source.type} != {i.target.type})"]
    return []


def only_once_mapped(i: CheckedInstruction, all_: CheckedInstructions) -> list[str]:
    mappings = all_.by_source(i.source.id)
    if len(mappings) > 1:
        listed = ", ".join(str(m) for m in mappings)
        return [f"There are multiple mappings for source activity id '{i.source.id}': {listed}"]
    return []


def cannot_add_multi_instance_body(i: CheckedInstruction, all_: CheckedInstructions) -> list[str]:
    for scope in all_.target.flow_scopes(i.target):
        if scope == view.PROCESS or all_.by_target(scope):
            break
        if view.is_multi_instance_body(all_.target_model.activities[scope]):
            return [
                f"Target activity '{i.target.id}' is a descendant of multi-instance body "
                f"'{scope}' that is not mapped from the source process definition."
            ]
    return []


def cannot_add_multi_instance_inner_activity(
    i: CheckedInstruction, all_: CheckedInstructions
) -> list[str]:
    if view.is_multi_instance_body(i.target):
        inner = view.inner_activity(all_.target_model, i.target)
        if not all_.by_target(inner.id):
            return ["Must map the inner activity of a multi-instance body when the body is mapped"]
    return []


def cannot_remove_multi_instance_inner_activity(
    i: CheckedInstruction, all_: CheckedInstructions
) -> list[str]:
    if view.is_multi_instance_body(i.source):
        inner = view.inner_activity(all_.source_model, i.source)
        if not all_.by_source(inner.id):
            return [
                "Cannot remove the inner activity of a multi-instance body when the body is mapped"
            ]
    return []


def gateway_mapping(i: CheckedInstruction, all_: CheckedInstructions) -> list[str]:
    if not view.is_wait_state_gateway(i.target):
        return []
    found = []
    if len(i.source.incoming) > len(i.target.incoming):
        found.append(
            "The target gateway must have at least the same number of incoming sequence flows "
            "that the source gateway has"
        )
    scope = all_.source.flow_scope(i.source)
    if scope != view.PROCESS and not all_.by_source(scope):
        found.append(f"The gateway's flow scope '{scope}' must be mapped")
    if len(all_.by_target(i.target.id)) > 1:
        found.append(f"Only one gateway can be mapped to gateway '{i.target.id}'")
    return found


def _user_task_with_timeout_listener(activity: Activity) -> bool:
    spec = activity.spec
    return (
        activity.type == kinds.USER_TASK.type
        and isinstance(spec, UserTaskSpec)
        and bool(spec.timeout_listeners)
    )


def same_event_scope(i: CheckedInstruction, all_: CheckedInstructions) -> list[str]:
    if i.source.type == kinds.BOUNDARY_COMPENSATION.type:
        return []  # a compensation boundary event's scope need not be active at runtime
    source_scope = all_.source.event_scope(i.source)
    if source_scope is None or source_scope == all_.source.flow_scope(i.source):
        return []  # only where the event scope is not the flow scope (boundary events)
    target_scope = all_.target.event_scope(i.target)
    shown = source_scope or all_.source_model.id
    if target_scope is None:
        if _user_task_with_timeout_listener(i.source):
            return []  # its timeout listeners may all be gone in the target
        return [
            f"The source activity's event scope ({shown}) must be mapped but the target "
            "activity has no event scope"
        ]
    if source_scope == view.PROCESS:
        mapped: str | None = view.PROCESS
    else:
        mappings = all_.by_source(source_scope)
        mapped = mappings[0].target.id if mappings else None
    if mapped is None or mapped != target_scope:
        return [
            f"The source activity's event scope ({shown}) must be mapped to the target "
            f"activity's event scope ({target_scope or all_.target_model.id})"
        ]
    return []


def update_event_triggers(i: CheckedInstruction, all_: CheckedInstructions) -> list[str]:
    if i.update_event_trigger and not view.defines_persistent_event_trigger(
        all_.source_model, i.source
    ):
        return [
            "Cannot update event trigger because the activity does not define a persistent "
            "event trigger"
        ]
    return []


def closest_mapped_ancestor(
    instruction: CheckedInstruction, all_: CheckedInstructions
) -> CheckedInstruction | None:
    """The first instruction of the closest flow scope of the source activity that the plan
    maps: where the migrated activity's parent instance goes."""
    for scope in all_.source.flow_scopes(instruction.source):
        mappings = all_.by_source(scope)
        if mappings:
            return mappings[0]
    return None


def additional_flow_scope(i: CheckedInstruction, all_: CheckedInstructions) -> list[str]:
    ancestor = closest_mapped_ancestor(i, all_)
    if ancestor is None:
        return []
    if ancestor.target.id not in all_.target.flow_scopes(i.target):
        return [
            f"The closest mapped ancestor '{ancestor.source.id}' is mapped to scope "
            f"'{ancestor.target.id}' which is not an ancestor of target scope '{i.target.id}'"
        ]
    return []


def conditional_event_update_event_trigger(
    i: CheckedInstruction, all_: CheckedInstructions
) -> list[str]:
    conditional = all_.source.behavior(i.source) in view.CONDITIONAL_BEHAVIORS
    if conditional and not i.update_event_trigger:
        return ["Conditional event has to migrate with update event trigger."]
    return []


# ProcessEngineConfigurationImpl.getDefaultMigrationInstructionValidators, in its order.
ALL_VALIDATORS: tuple[Validator, ...] = (
    same_behavior,
    same_event_type,
    only_once_mapped,
    cannot_add_multi_instance_body,
    cannot_add_multi_instance_inner_activity,
    cannot_remove_multi_instance_inner_activity,
    gateway_mapping,
    same_event_scope,
    update_event_triggers,
    additional_flow_scope,
    conditional_event_update_event_trigger,
)
# Generation skips the two inner-activity checks while it walks (a body is mapped before its
# inner activity); the generated plan passes all of them at the end.
GENERATION_VALIDATORS: tuple[Validator, ...] = tuple(
    v
    for v in ALL_VALIDATORS
    if v
    not in (cannot_add_multi_instance_inner_activity, cannot_remove_multi_instance_inner_activity)
)


# -- the plan --------------------------------------------------------------------------------


def _variable_reports(variables: dict[str, Any]) -> dict[str, VariableReport]:
    """Camunda refuses a Java-serialized object; any other value the engine cannot hold is
    refused as everywhere else (InvalidValue)."""
    reports = {}
    for name, value in variables.items():
        if isinstance(value, TypedValue) and value.type.lower() == "object":
            info = value.value_info or {}
            if info.get("serializationDataFormat") == JAVA_SERIALIZATION:
                reports[name] = VariableReport(
                    "Object", value.value, dict(info), (JAVA_SERIALIZATION_PROHIBITED.format(name),)
                )
                continue
        to_stored(name, value)
    return reports


def validate_plan(
    plan: MigrationPlan, source: ProcessModel, target: ProcessModel
) -> MigrationPlanReport:
    """Every failure of the plan against its models: an activity that does not exist, then
    Camunda's instruction validators (an instruction naming a missing activity is not among
    the instructions the others are judged with, as in Camunda)."""
    checked = CheckedInstructions(source, target)
    slots: list[tuple[MigrationInstruction, CheckedInstruction | list[str]]] = []
    for instruction in plan.instructions:
        source_activity = source.activities.get(instruction.source_activity_id)
        target_activity = target.activities.get(instruction.target_activity_id)
        if source_activity is not None and target_activity is not None:
            found = CheckedInstruction(
                source_activity, target_activity, instruction.update_event_trigger
            )
            checked.add(found)
            slots.append((instruction, found))
            continue
        missing = []
        if source_activity is None:
            missing.append(f"Source activity '{instruction.source_activity_id}' does not exist")
        if target_activity is None:
            missing.append(f"Target activity '{instruction.target_activity_id}' does not exist")
        slots.append((instruction, missing))
    reports = []
    for instruction, slot in slots:
        failures = slot if isinstance(slot, list) else checked.failures(slot, ALL_VALIDATORS)
        if failures:
            reports.append(InstructionReport(instruction, tuple(failures)))
    return MigrationPlanReport(
        plan.source_definition_id,
        plan.target_definition_id,
        tuple(reports),
        _variable_reports(plan.variables),
    )


def _java_string(instruction: MigrationInstruction) -> str:
    return (
        f"MigrationInstructionImpl{{sourceActivityId='{instruction.source_activity_id}', "
        f"targetActivityId='{instruction.target_activity_id}', "
        f"updateEventTrigger='{str(instruction.update_event_trigger).lower()}'}}"
    )


def describe(report: MigrationPlanReport) -> str:
    """The report as Camunda's MigrationPlanValidationException words it."""
    lines = [
        f"Migration plan for process definition '{report.source_definition_id}' to "
        f"'{report.target_definition_id}' is not valid:\n"
    ]
    for instruction_report in report.instruction_reports:
        lines.append(
            f"\t Migration instruction {_java_string(instruction_report.instruction)} "
            "is not valid:\n"
        )
        lines.extend(f"\t\t{failure}\n" for failure in instruction_report.failures)
    for name, variable_report in report.variable_reports.items():
        lines.append(f"\t Migration variable {name} is not valid:\n")
        lines.extend(f"\t\t{failure}\n" for failure in variable_report.failures)
    return "".join(lines)


def validate_plan_or_raise(
    plan: MigrationPlan, source: ProcessModel, target: ProcessModel
) -> MigrationPlan:
    """The plan, when valid; else MigrationPlanInvalid with the report."""
    report = validate_plan(plan, source, target)
    if report.has_reports:
        raise MigrationPlanInvalid(describe(report), report)
    return plan
