"""Camunda 7.24's last batch types: removal times set after the fact on historic process
instances, decision instances and batches (process-, decision-, batch-set-removal-time), and
historic decision instances deleted as a batch (historic-decision-instance-deletion).

Each batch job appends one event per target, in the job's unit of work: the removal time as
decided (absolute, cleared = None, or calculated here from what the log recorded), never left to
the projector. Registered in batch_registry when this module is imported (handlers/__init__).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from flowledger.core import commands as cmd
from flowledger.core import events as ev
from flowledger.core.batches import model
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.state import InstanceState
from flowledger.engine import lookups
from flowledger.engine.commands.batch_registry import BatchOperation, LogOperations, register
from flowledger.engine.commands.handlers import decisions
from flowledger.engine.commands.unit_of_work import UnitOfWork

ABSOLUTE = model.ABSOLUTE_REMOVAL_TIME
CALCULATED = model.CALCULATED_REMOVAL_TIME
MODES = (ABSOLUTE, CALCULATED, model.CLEARED_REMOVAL_TIME)


def _given(p: Mapping[str, Any]) -> datetime | None:
    """The absolute removal time of the batch's parameters (None when cleared)."""
    text = p.get("removalTime")
    return None if text is None else datetime.fromisoformat(text)


def _check_mode(_unit: UnitOfWork, _targets: list[str], p: Mapping[str, Any]) -> None:
    if p.get("mode") not in MODES:
        raise Rejected("removalTime is null")
    if p.get("mode") == ABSOLUTE and p.get("removalTime") is None:
        raise Rejected("removalTime is null")


def _millis(moment: datetime | None) -> str | None:
    """A date as Camunda's PropertyChange logs it: its epoch milliseconds. Recorded as text, so
    that the entry reads the same from the stored event (JSON has no date)."""
    if moment is None:
        return None
    moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return str((moment - _EPOCH) // timedelta(milliseconds=1))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _logged(entity_type: str, *, hierarchical: bool, chunks: bool) -> LogOperations:
    """Camunda's writeUserOperationLog of the command: SetRemovalTime, properties in its order."""

    def logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
        properties: list[tuple[str, Any]] = [("mode", p.get("mode"))]
        properties.append(("removalTime", _millis(_given(p))))
        if hierarchical:
            properties.append(("hierarchical", bool(p.get("hierarchical"))))
        properties += [("nrOfInstances", len(targets)), ("async", True)]
        if chunks:
            properties += [("updateInChunks", False), ("chunkSize", None)]
        return [ev.LoggedOperation("SetRemovalTime", entity_type, properties)]

    return logged


# -- process-set-removal-time: historyService.setRemovalTimeToHistoricProcessInstances() ---------


def calculated_removal_time(s: InstanceState, strategy: str) -> datetime | None:
    """Camunda's ProcessSetRemovalTimeJobHandler.getOrCalculateRemovalTime of a calculated mode:
    strategy start, the start plus the time to live; strategy end, the end plus it (a running
    instance has none yet); an instance without a time to live, none."""
    if s.history_ttl_days is None:
        return None
    if strategy == "start":
        return s.start_time + timedelta(days=s.history_ttl_days)
    if s.end_time is None:
        return None
    return s.end_time + timedelta(days=s.history_ttl_days)


def _set_process_removal_time(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    """Each instance's history rows (with `hierarchical`, its root's whole hierarchy) get the
    removal time; an instance without history (never there, or deleted) is skipped, as
    Camunda's handler skips one it cannot find."""
    hierarchical = bool(p.get("hierarchical"))
    for instance_id in targets:
        try:
            session = unit.instance(instance_id, ended_ok=True)
            if hierarchical and session.state.root_process_instance_id not in (None, instance_id):
                session = unit.instance(str(session.state.root_process_instance_id), ended_ok=True)
        except NotFound:
            continue
        state = session.state
        if state.history_deleted:
            continue
        if p.get("mode") == CALCULATED:
            removal = calculated_removal_time(state, unit.ctx.removal_time_strategy)
        else:
            removal = _given(p)
        session.emit(
            ev.HistoricRemovalTimeSet(
                removal_time=removal, time=session.ctx.now, hierarchical=hierarchical
            )
        )


PROCESS_SET_REMOVAL_TIME = register(
    BatchOperation(
        model.PROCESS_SET_REMOVAL_TIME,
        _set_process_removal_time,
        _logged("ProcessInstance", hierarchical=True, chunks=True),
        check=_check_mode,
    )
)


# -- decisions: over the API (their evaluation's stream) or by an instance (its stream) ----------


def _stream_events(unit: UnitOfWork, stream_id: str) -> list[ev.Event]:
    if unit.store.stream_head(unit.conn, stream_id) is None:
        return []
    return [e for _commit, events in unit.repository.stream(unit.conn, stream_id) for e in events]


def _decision_row(unit: UnitOfWork, decision_instance_id: str) -> Any:
    return lookups.decision_instance_origin(unit.conn, decision_instance_id)


def _evaluation_of(unit: UnitOfWork, decision_instance_id: str) -> str | None:
    """The stream of the evaluation over the API the decision instance belongs to (its own id
    for the evaluated decision, its root's for a required one); None when there is none."""
    events = _stream_events(unit, decision_instance_id)
    if events and isinstance(events[0], ev.DecisionEvaluated):
        return decision_instance_id
    row = _decision_row(unit, decision_instance_id)
    if row is None or row.PROC_INST_ID_ is not None or row.ROOT_DEC_INST_ID_ is None:
        return None
    return str(row.ROOT_DEC_INST_ID_)


def _live(events: list[ev.Event]) -> ev.DecisionEvaluated | None:
    """The evaluation, unless its history was deleted."""
    if any(isinstance(e, ev.HistoricDecisionInstanceDeleted) for e in events):
        return None
    first = events[0] if events else None
    return first if isinstance(first, ev.DecisionEvaluated) else None


def _in_instance(unit: UnitOfWork, decision_instance_id: str) -> tuple[Any, Any] | None:
    """(the session of the instance that evaluated it, its ACT_HI_DECINST row) for a decision
    a process instance evaluated and whose history is there; else None."""
    row = _decision_row(unit, decision_instance_id)
    if row is None or row.PROC_INST_ID_ is None:
        return None
    try:
        session = unit.instance(str(row.PROC_INST_ID_), ended_ok=True)
    except NotFound:
        return None
    return None if session.state.history_deleted else (session, row)


def _evaluated_with_ttl(unit: UnitOfWork, row: Any) -> datetime | None:
    """Camunda's calculateRemovalTime of a decision instance: its evaluation time plus its
    decision definition's time to live (else the engine's default, as an evaluation over the
    API records it); none without one."""
    definition = lookups.decision_definition(unit.conn, str(row.DEC_DEF_ID_))
    ttl = None if definition is None else definition.history_time_to_live
    if ttl is None:
        ttl = unit.ctx.history_ttl_days
    if ttl is None:
        return None
    evaluated = row.EVAL_TIME_ if row.EVAL_TIME_.tzinfo else row.EVAL_TIME_.replace(tzinfo=UTC)
    return cast(datetime, evaluated + timedelta(days=ttl))


def _set_in_instance(
    unit: UnitOfWork, decision_instance_id: str, hierarchical: bool, p: Mapping[str, Any]
) -> None:
    found = _in_instance(unit, decision_instance_id)
    if found is None:
        return
    session, row = found
    root_id = str(row.ROOT_DEC_INST_ID_ or decision_instance_id)
    if p.get("mode") == CALCULATED:
        basis = _decision_row(unit, root_id) if hierarchical else row
        removal = None if basis is None else _evaluated_with_ttl(unit, basis)
    else:
        removal = _given(p)
    session.emit(
        ev.InstanceDecisionRemovalTimeSet(
            decision_instance_id=decision_instance_id,
            root_decision_instance_id=root_id,
            removal_time=removal,
            time=session.ctx.now,
            hierarchical=hierarchical,
        )
    )


def _set_decision_removal_time(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    """Camunda's DecisionSetRemovalTimeJobHandler: the decision instance's rows, or with
    `hierarchical` its whole evaluation's; calculated = the evaluation's time plus its decision's
    time to live (over the API: as the evaluation recorded it). One commit per evaluation's
    stream; a decision an instance evaluated gets its event in the instance's stream."""
    hierarchical = bool(p.get("hierarchical"))
    pending: dict[str, list[ev.Event]] = {}
    for decision_instance_id in targets:
        stream_id = _evaluation_of(unit, decision_instance_id)
        if stream_id is None:
            _set_in_instance(unit, decision_instance_id, hierarchical, p)
            continue
        evaluated = _live(_stream_events(unit, stream_id))
        if evaluated is None:
            continue
        removal = evaluated.removal_time if p.get("mode") == CALCULATED else _given(p)
        pending.setdefault(stream_id, []).append(
            ev.HistoricDecisionRemovalTimeSet(
                decision_instance_id=decision_instance_id,
                root_decision_instance_id=stream_id,
                removal_time=removal,
                time=unit.ctx.now,
                hierarchical=hierarchical,
            )
        )
    for stream_id, events in pending.items():
        head = unit.store.stream_head(unit.conn, stream_id)
        assert head is not None
        unit.append(stream_id, head[0], head[1], events)


DECISION_SET_REMOVAL_TIME = register(
    BatchOperation(
        model.DECISION_SET_REMOVAL_TIME,
        _set_decision_removal_time,
        _logged("DecisionInstance", hierarchical=True, chunks=False),
        check=_check_mode,
    )
)


# -- historic-decision-instance-deletion: historyService.deleteHistoricDecisionInstancesAsync ----


def _delete_decisions(unit: UnitOfWork, targets: list[str], _p: Mapping[str, Any]) -> None:
    """An evaluation over the API is deleted whole (a required decision's instance with the
    decision that required it), once; decisions an instance evaluated are deleted by id, as
    Camunda's DeleteHistoricDecisionInstancesBulkCmd does, one event per instance. One already
    deleted is skipped."""
    done: set[str] = set()
    in_instances: dict[str, tuple[Any, list[str]]] = {}
    for decision_instance_id in targets:
        stream_id = _evaluation_of(unit, decision_instance_id)
        if stream_id is None:
            found = _in_instance(unit, decision_instance_id)
            if found is not None:
                session, row = found
                entry = in_instances.setdefault(str(row.PROC_INST_ID_), (session, []))
                entry[1].append(decision_instance_id)
            continue
        if stream_id in done:
            continue
        done.add(stream_id)
        if _live(_stream_events(unit, stream_id)) is None:
            continue
        command = cmd.DeleteHistoricDecisionInstance(decision_instance_id=stream_id, cleanup=False)
        decisions.delete_history(unit, command)
    for session, ids in in_instances.values():
        session.emit(
            ev.HistoricDecisionInstancesDeleted(decision_instance_ids=ids, time=unit.ctx.now)
        )


def _deletion_logged(targets: list[str], p: Mapping[str, Any]) -> list[ev.LoggedOperation]:
    properties: list[tuple[str, Any]] = [
        ("nrOfInstances", len(targets)),
        ("async", True),
        ("deleteReason", p.get("deleteReason")),
    ]
    return [ev.LoggedOperation("DeleteHistory", "DecisionInstance", properties)]


HISTORIC_DECISION_INSTANCE_DELETION = register(
    BatchOperation(
        model.HISTORIC_DECISION_INSTANCE_DELETION,
        _delete_decisions,
        _deletion_logged,
    )
)


# -- batch-set-removal-time: historyService.setRemovalTimeToHistoricBatches() -------------------


def _set_batch_removal_time(unit: UnitOfWork, targets: list[str], p: Mapping[str, Any]) -> None:
    """Camunda's BatchSetRemovalTimeJobHandler: each historic batch's removal time. Calculated
    is none: flowledger has no batch operation history time to live (Camunda's
    batchOperationHistoryTimeToLive), so its calculation finds no base."""
    removal = None if p.get("mode") == CALCULATED else _given(p)
    for batch_id in targets:
        events = _stream_events(unit, batch_id)
        if not events or any(isinstance(e, ev.HistoricBatchDeleted) for e in events):
            continue
        if any(isinstance(e, ev.BatchDeleted) and e.cascade for e in events):
            continue
        head = unit.store.stream_head(unit.conn, batch_id)
        assert head is not None
        event = ev.HistoricBatchRemovalTimeSet(
            batch_id=batch_id, removal_time=removal, time=unit.ctx.now
        )
        unit.append(batch_id, head[0], head[1], [event])


BATCH_SET_REMOVAL_TIME = register(
    BatchOperation(
        model.BATCH_SET_REMOVAL_TIME,
        _set_batch_removal_time,
        _logged("Batch", hierarchical=False, chunks=False),
        check=_check_mode,
    )
)

REGISTERED = (
    PROCESS_SET_REMOVAL_TIME,
    DECISION_SET_REMOVAL_TIME,
    HISTORIC_DECISION_INSTANCE_DELETION,
    BATCH_SET_REMOVAL_TIME,
)
