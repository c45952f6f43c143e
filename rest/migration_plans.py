"""Camunda's migration instruction DTO and validation report DTOs (MigrationPlanReportDto), and
how the engine's report becomes them.

Below `errors`, which answers MigrationPlanInvalid with the report; the plan DTOs, which carry
variables, are the migration resource's (`resources/migration.py`). It raises nothing itself.
"""

from __future__ import annotations

from typing import Any

import msgspec

from flowledger.core.instance_migration.instance_validation import (
    InstanceReport,
    InstructionDescription,
)
from flowledger.core.instance_migration.plan import MigrationInstruction
from flowledger.core.instance_migration.plan_validation import MigrationPlanReport


class MigrationInstructionDto(msgspec.Struct, rename="camel"):
    """One instruction: Camunda's lists hold one source and one target activity id each."""

    source_activity_ids: list[str | None] | None = None
    target_activity_ids: list[str | None] | None = None
    update_event_trigger: bool | None = None


class MigrationInstructionValidationReportDto(msgspec.Struct, rename="camel"):
    instruction: MigrationInstructionDto | None
    failures: list[str]


class MigrationVariableValidationReportDto(msgspec.Struct, rename="camel"):
    """Camunda's MigrationVariableValidationReportDto: the VariableValueDto and its failures."""

    value: Any
    type: str | None
    value_info: dict[str, Any]
    failures: list[str]


class MigrationPlanReportDto(msgspec.Struct, rename="camel"):
    instruction_reports: list[MigrationInstructionValidationReportDto]
    variable_reports: dict[str, MigrationVariableValidationReportDto]  # Camunda 7.17+


def instruction_to_dto(instruction: MigrationInstruction) -> MigrationInstructionDto:
    return MigrationInstructionDto(
        source_activity_ids=[instruction.source_activity_id],
        target_activity_ids=[instruction.target_activity_id],
        update_event_trigger=instruction.update_event_trigger,
    )


def report_to_dto(report: MigrationPlanReport) -> MigrationPlanReportDto:
    """Camunda's MigrationPlanReportDto.form (an empty report: empty list and map)."""
    return MigrationPlanReportDto(
        instruction_reports=[
            MigrationInstructionValidationReportDto(
                instruction_to_dto(r.instruction), list(r.failures)
            )
            for r in report.instruction_reports
        ],
        variable_reports={
            name: MigrationVariableValidationReportDto(
                r.value, r.type, dict(r.value_info), list(r.failures)
            )
            for name, r in report.variable_reports.items()
        },
    )


class MigratingActivityInstanceValidationReportDto(msgspec.Struct, rename="camel"):
    migration_instruction: MigrationInstructionDto | None
    activity_instance_id: str
    failures: list[str]
    source_scope_id: str


class MigratingTransitionInstanceValidationReportDto(msgspec.Struct, rename="camel"):
    migration_instruction: MigrationInstructionDto | None
    transition_instance_id: str
    failures: list[str]
    source_scope_id: str


class MigratingProcessInstanceValidationReportDto(msgspec.Struct, rename="camel"):
    """Camunda's report on an instance that cannot move."""

    process_instance_id: str
    failures: list[str]
    activity_instance_validation_reports: list[MigratingActivityInstanceValidationReportDto]
    transition_instance_validation_reports: list[MigratingTransitionInstanceValidationReportDto]


def _described(described: InstructionDescription | None) -> MigrationInstructionDto | None:
    if described is None:
        return None
    return MigrationInstructionDto(
        source_activity_ids=list(described.source_activity_ids),
        target_activity_ids=list(described.target_activity_ids),
        update_event_trigger=described.update_event_trigger,
    )


def instance_report_to_dto(report: InstanceReport) -> MigratingProcessInstanceValidationReportDto:
    return MigratingProcessInstanceValidationReportDto(
        process_instance_id=report.process_instance_id,
        failures=list(report.failures),
        activity_instance_validation_reports=[
            MigratingActivityInstanceValidationReportDto(
                _described(r.migration_instruction),
                r.activity_instance_id,
                list(r.failures),
                r.source_scope_id,
            )
            for r in report.activity_instance_validation_reports
        ],
        transition_instance_validation_reports=[
            MigratingTransitionInstanceValidationReportDto(
                _described(r.migration_instruction),
                r.transition_instance_id,
                list(r.failures),
                r.source_scope_id,
            )
            for r in report.transition_instance_validation_reports
        ],
    )
