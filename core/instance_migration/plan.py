"""A migration plan: from which definition to which, and which activity of the source becomes
which activity of the target (Camunda's MigrationPlan and MigrationInstruction).

Pure data; commands carry it, `ProcessInstanceMigrated` records it, REST and the services build
it. A plan is checked against both models by `plan_validation` before any instance moves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec


class MigrationInstruction(msgspec.Struct, frozen=True, omit_defaults=True):
    """One source activity maps to one target activity. `update_event_trigger`: a mapped event
    (boundary, intermediate catch, event subprocess start) takes the target's trigger (message
    name, signal name, timer definition) instead of keeping the one it has."""

    source_activity_id: str
    target_activity_id: str
    update_event_trigger: bool = False


class MigrationPlan(msgspec.Struct, frozen=True, omit_defaults=True):
    """Camunda's MigrationPlan: the instructions in the order they were given; `variables` are
    set on each migrated instance's process instance scope (Camunda 7.17's setVariables),
    keyed by name, in the command's value form."""

    source_definition_id: str
    target_definition_id: str
    instructions: tuple[MigrationInstruction, ...] = ()
    variables: dict[str, Any] = {}

    def target_of(self, source_activity_id: str) -> str | None:
        """The target activity of the source activity, None when the plan does not map it."""
        for instruction in self.instructions:
            if instruction.source_activity_id == source_activity_id:
                return instruction.target_activity_id
        return None

    def instruction_for(self, source_activity_id: str) -> MigrationInstruction | None:
        for instruction in self.instructions:
            if instruction.source_activity_id == source_activity_id:
                return instruction
        return None


def batch_parameters(
    plan: MigrationPlan, *, skip_custom_listeners: bool, skip_io_mappings: bool
) -> dict[str, Any]:
    """What an instance-migration batch keeps beside its targets (Camunda's
    MigrationBatchConfiguration): the plan and the skip flags, as plain data."""
    return {
        "migrationPlan": msgspec.to_builtins(plan),
        "skipCustomListeners": skip_custom_listeners,
        "skipIoMappings": skip_io_mappings,
    }


def plan_from_batch(parameters: Mapping[str, Any]) -> MigrationPlan:
    """The plan an instance-migration batch carries."""
    return msgspec.convert(parameters["migrationPlan"], MigrationPlan)
