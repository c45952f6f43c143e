"""HistoryService's verbs of Camunda 7.24's last batches: removal times set after the fact
(setRemovalTimeToHistoricProcessInstances / …DecisionInstances / …Batches, builders as
Camunda's) and deleteHistoricDecisionInstancesAsync. No decisions here: the batches' jobs act
(engine/commands/handlers/removal_time.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Self

from flowledger.core.batches import model
from flowledger.core.errors import Rejected
from flowledger.engine.services.base import Service
from flowledger.engine.services.management import ManagementService
from flowledger.projections.queries import decisions as decision_search
from flowledger.projections.queries import history_instances
from flowledger.projections.queries.batches import HISTORIC_BATCHES, Batch, HistoricBatchQuery
from flowledger.projections.queries.declaration import find

ABSOLUTE = model.ABSOLUTE_REMOVAL_TIME
CALCULATED = model.CALCULATED_REMOVAL_TIME
CLEARED = model.CLEARED_REMOVAL_TIME

Query = (
    history_instances.HistoricProcessInstanceQuery
    | decision_search.HistoricDecisionInstanceQuery
    | HistoricBatchQuery
)


class SetRemovalTimeBuilder:
    """Camunda's SetRemovalTimeToHistoric…Builder: one mode (absolute, cleared or calculated),
    the targets by ids and/or a query, hierarchical where the type has it; `execute_async`
    makes the batch."""

    def __init__(self, service: HistoryRemoval, batch_type: str, entities: str) -> None:
        self._service = service
        self._batch_type = batch_type
        self._entities = entities  # Camunda's name of the targets in "… is empty"
        self._mode: str | None = None
        self._removal_time: datetime | None = None
        self._ids: list[str] | None = None
        self._query: Query | None = None
        self._hierarchical = False

    def _set_mode(self, mode: str) -> None:
        if self._mode is not None:
            raise Rejected("The removal time modes are mutually exclusive: mode is not null")
        self._mode = mode

    def absolute_removal_time(self, removal_time: datetime | None) -> Self:
        self._set_mode(ABSOLUTE)
        self._removal_time = removal_time
        return self

    def cleared_removal_time(self) -> Self:
        self._set_mode(CLEARED)
        return self

    def calculated_removal_time(self) -> Self:
        self._set_mode(CALCULATED)
        return self

    def by_ids(self, *ids: str) -> Self:
        self._ids = list(ids)
        return self

    def by_query(self, query: Query) -> Self:
        self._query = query
        return self

    def execute_async(self, *, command_id: str | None = None, actor: str | None = None) -> Batch:
        if self._query is None and self._ids is None:
            raise Rejected("Neither query nor ids provided.")
        ids = self._ids or []
        if self._batch_type == model.BATCH_SET_REMOVAL_TIME:
            # Camunda's SetRemovalTimeToHistoricBatchesCmd keeps the ids of batches in history
            ids = self._service.historic_batch_ids(ids)
        targets = [*ids, *self._service.found(self._query)]
        if self._mode is None or (self._mode == ABSOLUTE and self._removal_time is None):
            raise Rejected("removalTime is null")
        if not targets:
            raise Rejected(f"{self._entities} is empty")
        removal = self._removal_time
        if removal is not None and removal.tzinfo is None:
            removal = removal.replace(tzinfo=UTC)
        parameters: dict[str, Any] = {
            "mode": self._mode,
            "removalTime": None if removal is None else removal.isoformat(),
            "hierarchical": self._hierarchical,
        }
        return self._service.create(self._batch_type, targets, parameters, command_id, actor)


class HierarchicalSetRemovalTimeBuilder(SetRemovalTimeBuilder):
    def hierarchical(self) -> Self:
        """The whole hierarchy of each target (from its root) gets the removal time."""
        self._hierarchical = True
        return self


class ProcessSetRemovalTimeBuilder(HierarchicalSetRemovalTimeBuilder):
    def update_in_chunks(self) -> Self:
        raise Rejected(
            "updateInChunks is not supported: flowledger sets an instance's removal time in one "
            "commit"
        )

    def chunk_size(self, _size: int) -> Self:
        raise Rejected(
            "updateChunkSize is not supported: flowledger sets an instance's removal time in "
            "one commit"
        )


class HistoryRemoval(Service):
    """The verbs; HistoryService inherits them."""

    def set_removal_time_to_historic_process_instances(self) -> ProcessSetRemovalTimeBuilder:
        """Camunda's historyService.setRemovalTimeToHistoricProcessInstances(): a
        `process-set-removal-time` batch. Calculated: the end (strategy start: the start) plus
        the instance's time to live; none without one, or while it runs under strategy end."""
        return ProcessSetRemovalTimeBuilder(
            self, model.PROCESS_SET_REMOVAL_TIME, "historicProcessInstances"
        )

    def set_removal_time_to_historic_decision_instances(
        self,
    ) -> HierarchicalSetRemovalTimeBuilder:
        """A `decision-set-removal-time` batch (decisions evaluated over the API). Calculated:
        the evaluation's time plus its decision's time to live."""
        return HierarchicalSetRemovalTimeBuilder(
            self, model.DECISION_SET_REMOVAL_TIME, "historicDecisionInstances"
        )

    def set_removal_time_to_historic_batches(self) -> SetRemovalTimeBuilder:
        """A `batch-set-removal-time` batch. Calculated is none: flowledger has no batch
        operation history time to live."""
        return SetRemovalTimeBuilder(self, model.BATCH_SET_REMOVAL_TIME, "historicBatches")

    def delete_historic_decision_instances_async(
        self,
        decision_instance_ids: Sequence[str] | None = None,
        query: decision_search.HistoricDecisionInstanceQuery | None = None,
        delete_reason: str | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> Batch:
        """historyService.deleteHistoricDecisionInstancesAsync: a
        `historic-decision-instance-deletion` batch deleting each evaluation (over the API) the
        decision instances belong to."""
        targets = [*(decision_instance_ids or ()), *self.found(query)]
        if not targets:
            raise Rejected("historicDecisionInstanceIds is empty")
        parameters = {"deleteReason": delete_reason}
        return self.create(
            model.HISTORIC_DECISION_INSTANCE_DELETION, targets, parameters, command_id, actor
        )

    def found(self, query: Query | None) -> list[str]:
        """The ids a query selects now (at most MAX_BATCH_TARGETS + 1: the batch refuses
        more)."""
        if query is None:
            return []
        maximum = model.MAX_BATCH_TARGETS + 1
        with self._parts.db.read() as conn:
            if isinstance(query, history_instances.HistoricProcessInstanceQuery):
                found: list[Any] = find(
                    conn, history_instances.PROCESS_INSTANCES, query, maximum=maximum
                )
            elif isinstance(query, decision_search.HistoricDecisionInstanceQuery):
                search = decision_search.HISTORIC_DECISION_INSTANCES
                found = find(conn, search, query, maximum=maximum)
            else:
                found = find(conn, HISTORIC_BATCHES, query, maximum=maximum)
        return [row.id for row in found]

    def historic_batch_ids(self, ids: Sequence[str]) -> list[str]:
        """Those of `ids` that name a batch in history (ACT_HI_BATCH)."""
        with self._parts.db.read() as conn:
            return [i for i in ids if find(conn, HISTORIC_BATCHES, HistoricBatchQuery(batch_id=i))]

    def create(
        self,
        batch_type: str,
        targets: list[str],
        parameters: dict[str, Any],
        command_id: str | None,
        actor: str | None,
    ) -> Batch:
        management = ManagementService(self._parts, self._caller)
        return management.create_batch(
            batch_type, targets, parameters, command_id=command_id, actor=actor
        )
