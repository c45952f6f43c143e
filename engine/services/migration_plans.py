"""The fluent form of a migration plan, as Camunda's MigrationPlanBuilder: generated and explicit
instructions gathered, then built into a plan checked against both definitions.

It decides nothing: the models come from the repository, generation and validation from the
domain (`core.instance_migration`); nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from flowledger.core.errors import NotFound, Rejected
from flowledger.core.instance_migration.generate import map_equal_activities
from flowledger.core.instance_migration.plan import MigrationInstruction, MigrationPlan
from flowledger.core.instance_migration.plan_validation import (
    MigrationPlanReport,
    validate_plan,
    validate_plan_or_raise,
)
from flowledger.core.model import ProcessModel
from flowledger.projections.queries import reads

if TYPE_CHECKING:
    from flowledger.engine.services.base import EngineParts


class MigrationPlanBuilder:
    """`runtime_service.create_migration_plan(source_id, target_id)`: `.map_equal_activities()`
    (`.update_event_triggers()` for what it generates), `.map_activities(a, b)`
    (`.update_event_trigger()` for the instruction given last), `.set_variables({...})`, then
    `.build()`: the plan, or MigrationPlanInvalid with Camunda's report. The generated
    instructions come first, the explicit ones after them, as Camunda's."""

    def __init__(
        self, parts: EngineParts, source_definition_id: str, target_definition_id: str
    ) -> None:
        self._parts = parts
        self._source_id = source_definition_id
        self._target_id = target_definition_id
        self._map_equal = False
        self._update_generated = False
        self._explicit: list[MigrationInstruction] = []
        self._variables: dict[str, Any] = {}

    def map_equal_activities(self) -> MigrationPlanBuilder:
        self._map_equal = True
        return self

    def update_event_triggers(self) -> MigrationPlanBuilder:
        """The generated instructions' events take the target's triggers."""
        self._update_generated = True
        return self

    def map_activities(
        self, source_activity_id: str, target_activity_id: str
    ) -> MigrationPlanBuilder:
        self._explicit.append(MigrationInstruction(source_activity_id, target_activity_id))
        return self

    def update_event_trigger(self) -> MigrationPlanBuilder:
        """The instruction given last takes the target's event trigger."""
        if not self._explicit:
            raise ValueError("update_event_trigger goes with an instruction: map_activities first")
        self._explicit[-1] = msgspec.structs.replace(self._explicit[-1], update_event_trigger=True)
        return self

    def set_variables(self, variables: Mapping[str, Any]) -> MigrationPlanBuilder:
        """Variables set on each migrated process instance (Camunda 7.17's setVariables)."""
        self._variables = dict(variables)
        return self

    def build(self) -> MigrationPlan:
        """The plan, checked against both definitions (MigrationPlanInvalid when it fails;
        NotFound naming the Source or Target definition that does not exist)."""
        plan, source, target = self._plan()
        return validate_plan_or_raise(plan, source, target)

    def report(self) -> MigrationPlanReport:
        """The plan's validation report, empty when it is valid (REST's /migration/validate)."""
        plan, source, target = self._plan()
        return validate_plan(plan, source, target)

    def _plan(self) -> tuple[MigrationPlan, ProcessModel, ProcessModel]:
        source = self._model(self._source_id, "Source")
        target = self._model(self._target_id, "Target")
        generated = (
            map_equal_activities(source, target, update_event_triggers=self._update_generated)
            if self._map_equal
            else []
        )
        plan = MigrationPlan(
            source_definition_id=self._source_id,
            target_definition_id=self._target_id,
            instructions=(*generated, *self._explicit),
            variables=self._variables,
        )
        return plan, source, target

    def _model(self, definition_id: str | None, role: str) -> ProcessModel:
        if definition_id is None:
            raise Rejected(f"{role} process definition id is null")
        with self._parts.db.read() as conn:
            if reads.process_definition(conn, definition_id) is None:
                raise NotFound(f"{role} process definition", definition_id)
            return self._parts.streams.model(conn, definition_id)
