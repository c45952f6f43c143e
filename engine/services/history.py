"""Camunda's HistoryService: the ACT_HI_* tables as lists (instances, activities, tasks,
variables, incidents, job logs, decisions) and per-activity statistics of a definition, the
deletion and cleanup of history, and the history projection itself: its level, its lag behind
the log, its health. Also the cockpit's dashboard (what runs and what failed lately)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Connection

from flowledger.core import commands as cmd
from flowledger.core import views
from flowledger.core.batches.model import HISTORIC_INSTANCE_DELETION
from flowledger.core.clock import truncate_ms
from flowledger.core.errors import InvalidValue, NotFound, Rejected
from flowledger.core.variables import from_stored, rest_type_name
from flowledger.engine.lookups import expired_decisions, expired_instances
from flowledger.engine.services.history_removal import HistoryRemoval
from flowledger.engine.services.management import ManagementService
from flowledger.projections.queries import activity_statistics, dashboard, decision_reads, reads
from flowledger.projections.queries import batches as batch_queries
from flowledger.projections.queries.activity_statistics import (
    ActivityDuration,
    ActivityStatisticsQuery,
    HistoricActivityStatistics,
)
from flowledger.projections.queries.dashboard import DefinitionLoad, RecentFailure
from flowledger.projections.queries.decisions import HistoricDecisionInstanceQuery
from flowledger.projections.queries.declaration import find


class HistoryService(HistoryRemoval):
    def historic_process_instances(self, **filters: Any) -> list[views.HistoricProcessInstance]:
        """Filters: process_instance_id, process_definition_key, finished."""
        with self._parts.db.read() as conn:
            return reads.historic_process_instances(conn, **filters)

    def historic_process_instance(self, process_instance_id: str) -> views.HistoricProcessInstance:
        found = self.historic_process_instances(process_instance_id=process_instance_id)
        if not found:
            raise NotFound("Historic process instance", process_instance_id)
        return found[0]

    def historic_activity_instances(
        self, process_instance_id: str
    ) -> list[views.HistoricActivityInstance]:
        with self._parts.db.read() as conn:
            return reads.historic_activity_instances(conn, process_instance_id)

    def historic_activity_statistics(
        self,
        definition_id: str,
        query: ActivityStatisticsQuery | None = None,
        *,
        descending: bool = False,
    ) -> list[HistoricActivityStatistics]:
        """Camunda's createHistoricActivityStatisticsQuery(definition_id): per activity its
        running instances and, as `query` asks, finished, canceled, scope-completing ones and
        incidents; ordered by activity id."""
        with self._parts.db.read() as conn:
            return activity_statistics.historic_activity_statistics(
                conn, definition_id, query or ActivityStatisticsQuery(), descending=descending
            )

    def activity_durations(self, definition_id: str) -> list[ActivityDuration]:
        """Per activity of the definition: how often it ran, how often it finished, and the
        average, shortest and longest duration of its finished runs (milliseconds)."""
        with self._parts.db.read() as conn:
            return activity_statistics.activity_durations(conn, definition_id)

    def dashboard(self) -> tuple[list[DefinitionLoad], list[RecentFailure]]:
        """What runs per definition (instances, open incidents, open tasks) and the incidents
        created in the last hour of the engine's clock."""
        since = self._parts.clock.now() - timedelta(hours=1)
        with self._parts.db.read() as conn:
            return dashboard.definition_loads(conn), dashboard.failures_since(conn, since)

    def historic_task_instances(
        self, process_instance_id: str | None = None
    ) -> list[views.HistoricTaskInstance]:
        with self._parts.db.read() as conn:
            return reads.historic_task_instances(conn, process_instance_id)

    def historic_variable_instances(
        self, process_instance_id: str | None = None
    ) -> list[views.HistoricVariableInstance]:
        with self._parts.db.read() as conn:
            rows = reads.historic_variable_rows(conn, process_instance_id)
        return [
            views.HistoricVariableInstance(
                id=m["ID_"],
                name=m["NAME_"],
                type=rest_type_name(stored.type),
                value=from_stored(stored),
                process_instance_id=m["PROC_INST_ID_"],
                execution_id=m["EXECUTION_ID_"],
                activity_instance_id=m["ACT_INST_ID_"],
                task_id=m["TASK_ID_"],
                state=m["STATE_"],
                create_time=reads.utc(m["CREATE_TIME_"]),
            )
            for m, stored in rows
        ]

    def historic_decision_instances(
        self, *, include_inputs: bool = False, include_outputs: bool = False, **filters: Any
    ) -> list[views.HistoricDecisionInstance]:
        """Filters: the snake_case names of Camunda's historic decision instance query
        (decision_definition_key, process_instance_id, root_decision_instances_only, ...);
        oldest evaluation first."""
        query = HistoricDecisionInstanceQuery(**filters)
        with self._parts.db.read() as conn:
            return decision_reads.historic_decision_instances(
                conn,
                query,
                include_inputs=include_inputs,
                include_outputs=include_outputs,
                sorting=[("evaluationTime", False)],
            )

    def historic_incidents(self, **filters: Any) -> list[views.HistoricIncident]:
        with self._parts.db.read() as conn:
            return reads.historic_incidents(conn, **filters)

    def historic_job_logs(self, **filters: Any) -> list[views.HistoricJobLog]:
        with self._parts.db.read() as conn:
            return reads.historic_job_logs(conn, **filters)

    def cleanup_history(self, *, batch_size: int = 500) -> views.CleanupReport:
        """Camunda's history cleanup: the history of every instance whose removal time (its end
        plus its time to live, `camunda:historyTimeToLive` or `Engine(history_time_to_live=)`)
        has passed is deleted, `batch_size` instances per query; then every decision evaluated
        over the API whose removal time (its evaluation plus its decision's time to live) has
        passed. Each deletion is a command in the log like `delete_historic_process_instance`,
        so a rebuild leaves them deleted and the events themselves stay."""
        if batch_size < 1:
            raise InvalidValue("batch_size must be at least 1", "batch_size")
        now = self._parts.clock.now()
        removed = self._clean(
            now,
            batch_size,
            expired_instances,
            lambda i: cmd.DeleteHistoricProcessInstance(process_instance_id=i, cleanup=True),
        )
        decisions = self._clean(
            now,
            batch_size,
            expired_decisions,
            lambda i: cmd.DeleteHistoricDecisionInstance(decision_instance_id=i, cleanup=True),
        )
        return views.CleanupReport(
            removed=removed, at=truncate_ms(now), decisions_removed=decisions
        )

    def _clean(
        self,
        now: datetime,
        batch_size: int,
        expired: Callable[[Connection, datetime, int], list[str]],
        command: Callable[[str], cmd.Command],
    ) -> int:
        removed = 0
        refused: set[str] = set()  # found again by the query, but not removable: skip them
        while True:
            # Asynchronous history must show the removals of the batch before: the next query
            # would find the same ones again.
            self._parts.history.flush()
            with self._parts.db.read() as conn:
                found = expired(conn, now, batch_size + len(refused))
            due = [i for i in found if i not in refused][:batch_size]
            for entity_id in due:
                try:
                    self._run(command(entity_id), None, None)
                    removed += 1
                except NotFound:
                    refused.add(entity_id)
            if len(due) < batch_size:
                # the rows are gone when it returns, history async or not
                self._parts.history.flush()
                return removed

    def delete_historic_process_instance(
        self,
        process_instance_id: str,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's historyService.deleteHistoricProcessInstance: the finished instance's
        ACT_HI_* rows (instance, activities, tasks, variables, details) are deleted.

        The log keeps every event of the instance and appends this deletion to it: `events(id)`
        and `replay(id)` still show everything, and a rebuild leaves the rows deleted."""
        command = cmd.DeleteHistoricProcessInstance(process_instance_id=process_instance_id)
        self._run(command, command_id, actor)

    def historic_batches(self, **filters: Any) -> list[batch_queries.HistoricBatch]:
        """Batches' history (ACT_HI_BATCH, level full). Filters (HistoricBatchQuery): batch_id,
        type, completed, tenant_id_in, without_tenant_id."""
        with self._parts.db.read() as conn:
            query = batch_queries.HistoricBatchQuery(**filters)
            return find(conn, batch_queries.HISTORIC_BATCHES, query)

    def historic_batch(self, batch_id: str) -> batch_queries.HistoricBatch:
        found = self.historic_batches(batch_id=batch_id)
        if not found:
            raise NotFound("Historic batch", batch_id)
        return found[0]

    def delete_historic_batch(
        self, batch_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        """The history of an ended batch (historyService.deleteHistoricBatch)."""
        self.historic_batch(batch_id)
        self._run(cmd.DeleteHistoricBatch(batch_id=batch_id), command_id, actor)

    def delete_historic_process_instances_async(
        self,
        process_instance_ids: Sequence[str],
        delete_reason: str | None = None,
        *,
        fail_if_not_exists: bool = True,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> batch_queries.Batch:
        """historyService.deleteHistoricProcessInstancesAsync: a batch deleting each ended
        instance's history as `delete_historic_process_instance` does."""
        if not process_instance_ids:
            raise Rejected("historicProcessInstanceIds is empty")
        management = ManagementService(self._parts, self._caller)
        parameters = {"deleteReason": delete_reason, "failIfNotExists": fail_if_not_exists}
        return management.create_batch(
            HISTORIC_INSTANCE_DELETION,
            process_instance_ids,
            parameters,
            command_id=command_id,
            actor=actor,
        )

    def flush_history(self) -> None:
        """Bring asynchronous history up to the end of the log now (a no-op for inline).

        Raises ProcessEngineError naming the commit when one cannot be projected, or the
        database error when it failed for a passing reason (nothing moved then)."""
        self._parts.history.flush()

    def history_lag(self) -> int:
        """Events committed to the log but not yet projected into ACT_HI_* (0 when inline)."""
        return self._parts.history.lag()

    def history_health(self) -> views.HistoryHealth:
        """Is history being written? For the REST health endpoint and operators' probes."""
        return self._parts.history.health()

    @property
    def history_level(self) -> str:
        """The level the history tables are built at ('none', 'activity', 'audit', 'full'),
        recorded in the database (ACT_GE_PROPERTY historyLevel)."""
        return self._parts.history.level

    def set_history_level(self, level: str) -> views.RebuildReport:
        """Build history at `level` from now on, and for the past: every table is rebuilt from
        the log at the new level, in one transaction, and the level recorded with it. Raising
        it loses nothing (the log holds every change); lowering it drops the rows above it.

        Other engines on the database should be stopped first, as for a schema migration: an
        engine with inline history keeps writing at the level it opened with until it is
        started again (`verify` would report its rows). Asynchronous followers switch by
        themselves with their next batch."""
        return self._parts.audit.rebuild_projections(history_level=level)
