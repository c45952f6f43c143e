"""Camunda's modification instructions as the REST API writes them (ProcessInstanceModification-
InstructionDto), checked as Camunda's REST layer checks them and turned into the engine's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from flowledger.core import commands as cmd

from .errors import invalid
from .variables import VariableValueDto, wire_variables


class TriggerVariableValueDto(VariableValueDto, rename="camel"):
    local: bool = False


class InstructionDto(msgspec.Struct, rename="camel"):
    type: str | None = None
    activity_id: str | None = None
    transition_id: str | None = None
    activity_instance_id: str | None = None
    transition_instance_id: str | None = None
    ancestor_activity_instance_id: str | None = None
    variables: dict[str, TriggerVariableValueDto] | None = None
    cancel_current_active_activity_instances: bool = False


STARTS = ("startBeforeActivity", "startAfterActivity", "startTransition")
TYPES = ("cancel", *STARTS)


def _required(dto: InstructionDto, field: str, value: str | None) -> str:
    if value is None:
        raise invalid(f"For instruction type '{dto.type}': '{field}' must be set")
    return value


def _variables(dto: InstructionDto) -> tuple[dict[str, Any], dict[str, Any]]:
    every = dto.variables or {}
    shared = {n: v for n, v in every.items() if not v.local}
    local = {n: v for n, v in every.items() if v.local}
    return wire_variables(shared), wire_variables(local)


def instruction(dto: InstructionDto, *, starts_only: bool = False) -> cmd.ModificationInstruction:
    """One instruction; `starts_only`: a restart's, which starts and cancels nothing."""
    allowed = STARTS if starts_only else TYPES
    if dto.type not in allowed:
        raise invalid(
            f"Instruction type '{dto.type}' is not one of {', '.join(allowed)}"
            if dto.type
            else f"Every instruction needs a type: one of {', '.join(allowed)}"
        )
    if dto.type == "cancel":
        named = [
            v for v in (dto.activity_id, dto.activity_instance_id, dto.transition_instance_id) if v
        ]
        if len(named) != 1:
            raise invalid(
                "For instruction type 'cancel': exactly one, 'activityId', "
                "'activityInstanceId', or 'transitionInstanceId', is required"
            )
        if dto.activity_instance_id is not None:
            return cmd.CancelActivityInstance(activity_instance_id=dto.activity_instance_id)
        if dto.transition_instance_id is not None:
            return cmd.CancelTransitionInstance(transition_instance_id=dto.transition_instance_id)
        return cmd.CancelAllForActivity(
            activity_id=_required(dto, "activityId", dto.activity_id),
            cancel_current_active_activity_instances_only=dto.cancel_current_active_activity_instances,
        )
    variables, local = _variables(dto)
    ancestor = dto.ancestor_activity_instance_id
    if dto.type == "startTransition":
        return cmd.StartTransition(
            transition_id=_required(dto, "transitionId", dto.transition_id),
            ancestor_activity_instance_id=ancestor,
            variables=variables,
            local_variables=local,
        )
    start = cmd.StartBeforeActivity if dto.type == "startBeforeActivity" else cmd.StartAfterActivity
    return start(
        activity_id=_required(dto, "activityId", dto.activity_id),
        ancestor_activity_instance_id=ancestor,
        variables=variables,
        local_variables=local,
    )


def instructions(
    dtos: Sequence[InstructionDto] | None, *, starts_only: bool = False
) -> list[cmd.ModificationInstruction]:
    return [instruction(dto, starts_only=starts_only) for dto in dtos or ()]


def start_instructions(dtos: Sequence[InstructionDto] | None) -> list[cmd.StartInstruction]:
    """A restart's instructions (starts only)."""
    found = instructions(dtos, starts_only=True)
    return [i for i in found if isinstance(i, cmd.StartInstruction)]
