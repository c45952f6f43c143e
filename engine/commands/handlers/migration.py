"""Handler of process instance migration: the plan checked against both definitions, then each
instance moved by the domain (`core.instance_migration`), all in one command."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flowledger.core import commands as cmd
from flowledger.core import events as ev
from flowledger.core.batches.model import INSTANCE_MIGRATION as INSTANCE_MIGRATION_TYPE
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.instance_migration.execute import TargetDefinition, migrate
from flowledger.core.instance_migration.plan import MigrationPlan, plan_from_batch
from flowledger.core.instance_migration.plan_validation import validate_plan_or_raise
from flowledger.core.limits import MAX_INSTANCES_PER_COMMAND
from flowledger.core.model import ProcessModel
from flowledger.engine import lookups
from flowledger.engine.commands.batch_registry import BatchOperation, register
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.unit_of_work import UnitOfWork


def resolved_plan(unit: UnitOfWork, plan: MigrationPlan) -> tuple[ProcessModel, TargetDefinition]:
    """The target's model and definition, the plan checked against both models (Migration-
    PlanInvalid with the report); NotFound for a definition that does not exist."""
    for definition_id in (plan.source_definition_id, plan.target_definition_id):
        if lookups.process_definition(unit.conn, definition_id) is None:
            raise NotFound("Process definition", definition_id)
    target = lookups.process_definition(unit.conn, plan.target_definition_id)
    assert target is not None
    model = unit.repository.model(unit.conn, target.id, target.deployment_id)
    source = unit.repository.model(unit.conn, plan.source_definition_id)
    validate_plan_or_raise(plan, source, model)
    return model, TargetDefinition(target.id, target.key, target.version, target.deployment_id)


def migrate_many(
    unit: UnitOfWork,
    plan: MigrationPlan,
    instance_ids: list[str],
    *,
    skip_custom_listeners: bool = False,
    skip_io_mappings: bool = False,
    batch_id: str | None = None,
    first_of_many: bool = True,
) -> None:
    """Move each instance by the plan (the batch job's work, too)."""
    model, target = resolved_plan(unit, plan)
    for n, instance_id in enumerate(instance_ids):
        migrate(
            unit.instance(instance_id),
            plan,
            model,
            target,
            skip_custom_listeners=skip_custom_listeners,
            skip_io_mappings=skip_io_mappings,
            batch_id=batch_id,
            together=len(instance_ids),
            first_of_many=first_of_many and n == 0,
        )


def _migrate(unit: UnitOfWork, command: cmd.MigrateProcessInstances) -> None:
    if not command.process_instance_ids:
        raise Rejected("Process instance ids cannot empty: name the instances to migrate")
    if len(command.process_instance_ids) > MAX_INSTANCES_PER_COMMAND:
        raise Rejected(
            f"{len(command.process_instance_ids)} process instances in one migration; at most "
            f"{MAX_INSTANCES_PER_COMMAND} are migrated at once (executeAsync runs more as a batch)"
        )
    migrate_many(
        unit,
        command.plan,
        list(dict.fromkeys(command.process_instance_ids)),
        skip_custom_listeners=command.skip_custom_listeners,
        skip_io_mappings=command.skip_io_mappings,
    )


# -- instance-migration: runtimeService.newMigration(plan).executeAsync() -----------------------


def _run_batch_job(unit: UnitOfWork, targets: list[str], parameters: Mapping[str, Any]) -> None:
    """One batch job: its instances move in its command, as the synchronous migration moves
    them; one that cannot fails the job (nothing of it kept, its retries go down)."""
    migrate_many(
        unit,
        plan_from_batch(parameters),
        targets,
        skip_custom_listeners=bool(parameters.get("skipCustomListeners", False)),
        skip_io_mappings=bool(parameters.get("skipIoMappings", False)),
        batch_id=unit.running_batch,
        first_of_many=False,
    )


def _check_batch(unit: UnitOfWork, _targets: list[str], parameters: Mapping[str, Any]) -> None:
    """Camunda's MigrateProcessInstanceBatchCmd: the plan is checked when the batch is made."""
    resolved_plan(unit, plan_from_batch(parameters))


def _batch_logged(targets: list[str], parameters: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    """Camunda's Migrate entry (AbstractMigrationCmd), `async` true."""
    plan = plan_from_batch(parameters)
    properties: list[tuple[str, Any]] = [
        ("processDefinitionId", plan.target_definition_id),
        ("nrOfInstances", len(targets)),
    ]
    if plan.variables:
        properties.append(("nrOfSetVariables", len(plan.variables)))
    properties.append(("async", True))
    return [
        ev.LoggedOperation(
            "Migrate",
            "ProcessInstance",
            properties,
            {"PROC_DEF_ID_": plan.source_definition_id},
            before={"processDefinitionId": plan.source_definition_id},
        )
    ]


INSTANCE_MIGRATION = register(
    BatchOperation(INSTANCE_MIGRATION_TYPE, _run_batch_job, _batch_logged, check=_check_batch)
)

HANDLERS = (Handler(cmd.MigrateProcessInstances, _migrate),)
