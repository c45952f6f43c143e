"""The fluent form of running a migration plan, as Camunda's MigrationPlanExecutionBuilder:
`runtime_service.new_migration(plan).process_instance_ids(...)
.process_instance_query({"processDefinitionId": ...}).skip_custom_listeners().execute()`.

The query is Camunda's ProcessInstanceQuery (as `GET /process-instance` takes it), resolved
when the migration runs; the instances then move in one command (`execute`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from flowledger.core.batches.model import MAX_BATCH_TARGETS
from flowledger.core.errors import InvalidValue
from flowledger.core.instance_migration.plan import MigrationPlan
from flowledger.core.limits import MAX_INSTANCES_PER_COMMAND
from flowledger.projections.queries import runtime
from flowledger.projections.queries.batches import Batch
from flowledger.projections.queries.declaration import find

if TYPE_CHECKING:
    from flowledger.engine.services.runtime import RuntimeService


class MigrationExecution:
    """The instances a plan moves and how: by id, by query, or both (each once)."""

    def __init__(self, runtime_service: RuntimeService, plan: MigrationPlan) -> None:
        self._runtime = runtime_service
        self._plan = plan
        self._ids: list[str] = []
        self._query: runtime.ProcessInstanceQuery | None = None
        self._skip_custom_listeners = False
        self._skip_io_mappings = False

    def process_instance_ids(self, *ids: str) -> MigrationExecution:
        self._ids.extend(ids)
        return self

    def process_instance_query(self, query: Mapping[str, Any]) -> MigrationExecution:
        """Camunda's ProcessInstanceQuery, in its JSON names (`processDefinitionId`, ...)."""
        try:
            self._query = msgspec.convert(dict(query), runtime.ProcessInstanceQuery)
        except msgspec.ValidationError as exc:
            raise InvalidValue(
                f"processInstanceQuery: {exc}", field="processInstanceQuery"
            ) from None
        return self

    def skip_custom_listeners(self) -> MigrationExecution:
        self._skip_custom_listeners = True
        return self

    def skip_io_mappings(self) -> MigrationExecution:
        self._skip_io_mappings = True
        return self

    def instance_ids(self, maximum: int) -> list[str]:
        """The named instances, then those the query selects (at most `maximum` of them)."""
        ids = list(self._ids)
        if self._query is not None:
            with self._runtime._parts.db.read() as conn:
                rows = find(conn, runtime.PROCESS_INSTANCES, self._query, maximum=maximum)
            ids += [row.id for row in rows]
        return list(dict.fromkeys(ids))

    def execute_async(self, *, actor: str | None = None) -> Batch:
        """A batch moving the selected instances (Camunda's executeAsync)."""
        return self._runtime.migrate_process_instances_async(
            self._plan,
            self.instance_ids(MAX_BATCH_TARGETS + 1),
            skip_custom_listeners=self._skip_custom_listeners,
            skip_io_mappings=self._skip_io_mappings,
            actor=actor,
        )

    def execute(self, *, actor: str | None = None) -> None:
        """Move every selected instance in one command, or none (MigratingInstanceInvalid)."""
        self._runtime.migrate_process_instances(
            self._plan,
            self.instance_ids(MAX_INSTANCES_PER_COMMAND + 1),
            skip_custom_listeners=self._skip_custom_listeners,
            skip_io_mappings=self._skip_io_mappings,
            actor=actor,
        )
