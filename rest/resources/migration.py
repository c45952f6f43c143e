"""engine-rest: process instance migration plans — `POST /migration/generate` (Camunda's
mapEqualActivities), `POST /migration/validate` (the plan's report, 200 even when it fails) and
`POST /migration/execute` (every named instance moved in one command, or none) and
`POST /migration/executeAsync` (a batch of type instance-migration).

As Camunda's MigrationRestServiceImpl: a definition that does not exist or a null id is a 400
InvalidRequestException; a generated plan that fails (its variables) is Camunda's 400
MigrationPlanValidationException with the report (rest/errors.py). `/migration/execute` reads
its plan with `valid_plan` (built on `plan_from_dto`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from litestar import Request, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from flowledger.core.batches.model import MAX_BATCH_TARGETS
from flowledger.core.errors import NotFound
from flowledger.core.instance_migration.plan import MigrationInstruction, MigrationPlan
from flowledger.core.instance_migration.plan_validation import JAVA_SERIALIZATION
from flowledger.core.limits import MAX_INSTANCES_PER_COMMAND
from flowledger.core.variables import TypedValue, to_stored
from flowledger.engine import Engine
from flowledger.engine.services.migration_plans import MigrationPlanBuilder

from ..errors import RestError, invalid
from ..migration_plans import (
    MigrationInstructionDto,
    MigrationPlanReportDto,
    instruction_to_dto,
    report_to_dto,
)
from ..selection import matching_instances
from ..variables import VariableValueDto, check_decoded_size, value_dto, wire_variables
from .batch import BatchDto, batch_dto

__all__ = [
    "MigrationExecutionDto",
    "MigrationPlanDto",
    "MigrationPlanGenerationDto",
    "builder_from_dto",
    "execution_plan",
    "plan_from_dto",
    "plan_to_dto",
    "plan_variables",
    "report_to_dto",
    "routes",
    "valid_plan",
]

AnyRequest = Request[Any, Any, Any]


class MigrationPlanDto(msgspec.Struct, rename="camel"):
    source_process_definition_id: str | None = None
    target_process_definition_id: str | None = None
    instructions: list[MigrationInstructionDto] | None = None
    variables: dict[str, VariableValueDto] | None = None  # Camunda 7.17+


class MigrationPlanGenerationDto(msgspec.Struct, rename="camel"):
    source_process_definition_id: str | None = None
    target_process_definition_id: str | None = None
    update_event_triggers: bool = False
    variables: dict[str, VariableValueDto] | None = None  # Camunda 7.17+


def plan_to_dto(plan: MigrationPlan) -> MigrationPlanDto:
    """Camunda's MigrationPlanDto.from: `variables` null when the plan sets none."""
    variables = (
        {name: value_dto(to_stored(name, value)) for name, value in plan.variables.items()}
        if plan.variables
        else None
    )
    return MigrationPlanDto(
        source_process_definition_id=plan.source_definition_id,
        target_process_definition_id=plan.target_definition_id,
        instructions=[instruction_to_dto(i) for i in plan.instructions],
        variables=variables,
    )


def plan_variables(dtos: Mapping[str, VariableValueDto] | None) -> dict[str, Any]:
    """The plan's variables as the engine takes them. A Java-serialized Object is kept as
    given, for the plan's validation to report as Camunda does; every other value is refused
    here as everywhere (wire_variables)."""
    java = {
        name: TypedValue("Object", dto.value, dto.value_info)
        for name, dto in (dtos or {}).items()
        if (dto.type or "").lower() == "object"
        and (dto.value_info or {}).get("serializationDataFormat") == JAVA_SERIALIZATION
    }
    others = {name: dto for name, dto in (dtos or {}).items() if name not in java}
    return {**wire_variables(others), **java}


def _one(ids: list[str | None] | None, field: str, index: int) -> str:
    if not ids or len(ids) != 1 or ids[0] is None:
        raise invalid(
            f"Migration instruction {index}: {field} must hold exactly one activity id, "
            f"found {ids!r}"
        )
    return ids[0]


def instruction_from_dto(dto: MigrationInstructionDto, index: int = 0) -> MigrationInstruction:
    """One instruction: exactly one source and one target activity id (Camunda reads the
    first of each list; flowledger refuses a list that is missing, empty, null or longer)."""
    return MigrationInstruction(
        source_activity_id=_one(dto.source_activity_ids, "sourceActivityIds", index),
        target_activity_id=_one(dto.target_activity_ids, "targetActivityIds", index),
        update_event_trigger=dto.update_event_trigger is True,
    )


def _ids(source: str | None, target: str | None) -> tuple[str, str]:
    if source is None:
        raise invalid("Source process definition id is null")
    if target is None:
        raise invalid("Target process definition id is null")
    return source, target


def plan_from_dto(dto: MigrationPlanDto) -> MigrationPlan:
    """The plan a MigrationPlanDto describes, not yet validated (`builder_from_dto(...).build()`
    validates it against the definitions)."""
    source, target = _ids(dto.source_process_definition_id, dto.target_process_definition_id)
    return MigrationPlan(
        source_definition_id=source,
        target_definition_id=target,
        instructions=tuple(
            instruction_from_dto(instruction, index)
            for index, instruction in enumerate(dto.instructions or ())
        ),
        variables=plan_variables(dto.variables),
    )


def builder_from_dto(engine: Engine, dto: MigrationPlanDto) -> MigrationPlanBuilder:
    """The runtime service's builder holding the plan the DTO describes: `.build()` gives the
    validated plan (MigrationPlanInvalid), `.report()` its report."""
    plan = plan_from_dto(dto)
    builder = engine.runtime_service.create_migration_plan(
        plan.source_definition_id, plan.target_definition_id
    )
    for instruction in plan.instructions:
        builder.map_activities(instruction.source_activity_id, instruction.target_activity_id)
        if instruction.update_event_trigger:
            builder.update_event_trigger()
    return builder.set_variables(plan.variables)


def missing_definition(exc: NotFound) -> Exception:
    """A missing definition as Camunda's REST layer answers it: 400, in Camunda's words."""
    return invalid(f"{exc.kind} with id '{exc.entity_id}' does not exist")


def valid_plan(engine: Engine, dto: MigrationPlanDto) -> MigrationPlan:
    """The plan the DTO describes, checked against both definitions, as Camunda's
    createMigrationPlan(dto) of /migration/execute: MigrationPlanInvalid (a 400 with the
    report, rest/errors.py), a 400 for a malformed instruction or a missing definition."""
    try:
        return builder_from_dto(engine, dto).build()
    except NotFound as exc:
        raise missing_definition(exc) from None


@post("/migration/generate", status_code=200, sync_to_thread=True)
def generate(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    data: JSONBody[MigrationPlanGenerationDto],
) -> MigrationPlanDto:
    check_decoded_size(request, data.variables)
    source, target = _ids(data.source_process_definition_id, data.target_process_definition_id)
    builder = engine.runtime_service.create_migration_plan(source, target).map_equal_activities()
    if data.update_event_triggers:
        builder.update_event_triggers()
    if data.variables is not None:
        builder.set_variables(plan_variables(data.variables))
    try:
        return plan_to_dto(builder.build())
    except NotFound as exc:
        raise missing_definition(exc) from None


@post("/migration/validate", status_code=200, sync_to_thread=True)
def validate(
    engine: NamedDependency[Engine], request: AnyRequest, data: JSONBody[MigrationPlanDto]
) -> MigrationPlanReportDto:
    check_decoded_size(request, data.variables)
    builder = builder_from_dto(engine, data)
    try:
        return report_to_dto(builder.report())
    except NotFound as exc:
        raise missing_definition(exc) from None


class MigrationExecutionDto(msgspec.Struct, rename="camel"):
    """Camunda's MigrationExecutionDto: the plan, and the instances by id and/or by query."""

    migration_plan: MigrationPlanDto | None = None
    process_instance_ids: list[str] | None = None
    process_instance_query: dict[str, Any] | None = None
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False


def execution_plan(
    engine: Engine, request: AnyRequest, data: MigrationExecutionDto, maximum: int
) -> tuple[MigrationPlan, list[str]]:
    """The valid plan and the instances an execution names (ids, then the query's, once
    each); a 400 for a missing plan or no instance, as Camunda's."""
    if data.migration_plan is None:
        raise invalid("Migration plan cannot be null")
    check_decoded_size(request, data.migration_plan.variables)
    plan = valid_plan(engine, data.migration_plan)
    ids = list(data.process_instance_ids or [])
    if data.process_instance_query is not None:
        ids += matching_instances(engine, data.process_instance_query, maximum)
    if not ids:
        raise RestError(400, "BadUserRequestException", "Process instance ids cannot empty")
    return plan, list(dict.fromkeys(ids))


def _refused(exc: NotFound) -> Exception:
    """A missing definition or instance as Camunda's migration answers it: 400."""
    if exc.kind == "Process definition":
        return missing_definition(exc)
    return RestError(400, "BadUserRequestException", str(exc))


@post("/migration/execute", status_code=204, sync_to_thread=True)
def execute(
    engine: NamedDependency[Engine], request: AnyRequest, data: JSONBody[MigrationExecutionDto]
) -> None:
    """Every instance moves in one command, or none does: a 400
    MigratingProcessInstanceValidationException names the instance that cannot and why."""
    plan, ids = execution_plan(engine, request, data, MAX_INSTANCES_PER_COMMAND + 1)
    try:
        engine.runtime_service.migrate_process_instances(
            plan,
            ids,
            skip_custom_listeners=data.skip_custom_listeners,
            skip_io_mappings=data.skip_io_mappings,
        )
    except NotFound as exc:
        raise _refused(exc) from None


@post("/migration/executeAsync", status_code=200, sync_to_thread=True)
def execute_async(
    engine: NamedDependency[Engine], request: AnyRequest, data: JSONBody[MigrationExecutionDto]
) -> BatchDto:
    """A batch of type instance-migration: its jobs move the instances in the background
    (`GET /batch/statistics` shows how far); the plan is checked now."""
    plan, ids = execution_plan(engine, request, data, MAX_BATCH_TARGETS + 1)
    try:
        batch = engine.runtime_service.migrate_process_instances_async(
            plan,
            ids,
            skip_custom_listeners=data.skip_custom_listeners,
            skip_io_mappings=data.skip_io_mappings,
        )
    except NotFound as exc:
        raise _refused(exc) from None
    return batch_dto(engine, batch.id)


routes: list[Any] = [generate, validate, execute, execute_async]
