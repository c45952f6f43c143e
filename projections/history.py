"""Projector of instance events onto ACT_HI_PROCINST, _ACTINST, _TASKINST, _VARINST, _DETAIL,
_COMMENT, _INCIDENT and _JOB_LOG (the last two at level full, as Camunda writes them; rows built
in `jobs`).
ACT_HI_OP_LOG has a projector of its own (`operation_log`): it reads the commit's command too.

Event (with the state before it) in, row changes out; the history level filters what is written,
never what the log keeps. Rebuilding at a higher level fills history for the past too. Deleting
history (an instance's, or a deleted deployment's with cascade) purges rows; the log keeps all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, ClassVar

from flowledger.core import element_kinds as kinds
from flowledger.core import events as ev
from flowledger.core.ids import derived_id
from flowledger.core.state import InstanceState
from flowledger.core.variables import storage_columns

from .batches import BATCH_HISTORY_EVENTS, project_batch_history
from .changes import ChangeSet, Purge, Row, UnhandledEvent, blank_row, db_time, duration_ms
from .decision_history import (
    ERASED_COLUMNS,
    project_decision_removal_time,
    project_decision_values_erased,
    project_decisions_deleted,
    project_evaluation,
    project_evaluation_deleted,
    purge_decision_history,
)
from .jobs import (
    JOB_EXCEPTION_NAME,
    historic_incident_row,
    job_log_id,
    job_log_row,
)
from .runtime import BYTEARRAY_HISTORY, bytearray_row, sync_bytearray
from .start_timers import project_start_timer_history
from .tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_ACTINST,
    ACT_HI_COMMENT,
    ACT_HI_DEC_IN,
    ACT_HI_DEC_OUT,
    ACT_HI_DECINST,
    ACT_HI_DETAIL,
    ACT_HI_INCIDENT,
    ACT_HI_JOB_LOG,
    ACT_HI_OP_LOG,
    ACT_HI_PROCINST,
    ACT_HI_TASKINST,
    ACT_HI_VARINST,
)
from .tables.history import (
    INCIDENT_DELETED,
    INCIDENT_RESOLVED,
    JOB_CREATED,
    JOB_DELETED,
    JOB_FAILED,
    JOB_SUCCESSFUL,
)


def removal_time(s: InstanceState, end: datetime) -> datetime | None:
    """REMOVAL_TIME_ (Camunda's removal-time strategy `end`): when history cleanup may remove
    the instance's history, its time to live after it ended; None keeps it. Only a root
    instance's end sets one: a called instance gets its root's (`stamp_removal_time`). Under
    strategy start, the one its start recorded."""
    if s.removal_time is not None:
        return db_time(s.removal_time)
    if s.history_ttl_days is None or not is_root(s):
        return None
    return db_time(end + timedelta(days=s.history_ttl_days))


def is_root(s: InstanceState) -> bool:
    return s.root_process_instance_id in (None, s.id)


def written(row: Row, s: InstanceState) -> Row:
    """`row` of instance `s` as it is written: under removal-time strategy start, with the
    removal time the instance's start recorded (strategy end stamps its rows later)."""
    if s.removal_time is not None:
        row["REMOVAL_TIME_"] = db_time(s.removal_time)
    return row


HISTORY_LEVELS = {"none": 0, "activity": 1, "audit": 2, "full": 3}
ACTIVITY_STATE_DEFAULT, ACTIVITY_STATE_SCOPE_COMPLETE, ACTIVITY_STATE_CANCELED = 0, 1, 2


# (event, state before it, changes): each handler knows its event type, the state is None
# only before ProcessInstanceStarted.
Handler = Callable[[Any, Any, ChangeSet], None]

_PROCINST_ROW = blank_row(ACT_HI_PROCINST)
_ACTINST_ROW = blank_row(ACT_HI_ACTINST)
_TASKINST_ROW = blank_row(ACT_HI_TASKINST)
_VARINST_ROW = blank_row(ACT_HI_VARINST)
_DETAIL_ROW = blank_row(ACT_HI_DETAIL)
_COMMENT_ROW = blank_row(ACT_HI_COMMENT)


def comment_event_message(message: str) -> str:
    """ACT_HI_COMMENT.MESSAGE_ as Camunda's CommentEntity.toEventMessage makes it: whitespace runs
    as one space, cut to 160 characters and "..." when longer than 163."""
    text = re.sub(r"[ \t\n\x0b\f\r]+", " ", message)  # Java's \s: ASCII whitespace
    return text[:160] + "..." if len(text) > 163 else text


def history_bytearray_id(variable_id: str) -> str:
    return derived_id(variable_id, "history-value")


# The job log names the instance and definition as ACT_RU_JOB does, not PROC_INST_ID_/_DEF_ID_.
_JOB_LOG_COLUMNS = {"PROC_INST_ID_": "PROCESS_INSTANCE_ID_", "PROC_DEF_ID_": "PROCESS_DEF_ID_"}


def purge_history(
    changes: ChangeSet,
    column: str,
    value: str,
    values: tuple[tuple[str, Any], ...] = (),
    *,
    hierarchy: bool = False,
) -> None:
    """Delete every history row whose `column` is `value` (PROC_INST_ID_: one instance's,
    PROC_DEF_ID_: a definition's), with the byte arrays of its variable values, details and job
    failures: Camunda's deleteHistoricProcessInstanceByIds, table by table. With `values`, set
    those columns of the same rows instead (`stamp_removal_time`). With `hierarchy`, `value`
    names a root instance and the rows are those of every instance of its hierarchy (found
    through ACT_HI_PROCINST's ROOT_PROC_INST_ID_, then by each instance's indexed id)."""
    job_log_column = _JOB_LOG_COLUMNS[column]
    roots = ACT_HI_PROCINST if hierarchy else None
    # First: the byte arrays are found through the rows that name them.
    for owner in (ACT_HI_VARINST, ACT_HI_DETAIL):
        changes.purge(
            Purge(
                ACT_GE_BYTEARRAY,
                column,
                value,
                via=owner,
                ref="BYTEARRAY_ID_",
                values=values,
                roots=roots,
            )
        )
    changes.purge(
        Purge(
            ACT_GE_BYTEARRAY,
            job_log_column,
            value,
            via=ACT_HI_JOB_LOG,
            ref="JOB_EXCEPTION_STACK_ID_",
            values=values,
            roots=roots,
        )
    )
    changes.purge(Purge(ACT_HI_JOB_LOG, job_log_column, value, values=values, roots=roots))
    # Comments name their instance, not its definition: found through the instances' rows.
    changes.purge(
        Purge(
            ACT_HI_COMMENT,
            column,
            value,
            via=ACT_HI_PROCINST,
            owner="PROC_INST_ID_",
            values=values,
            roots=roots,
        )
    )
    for table in (
        ACT_HI_INCIDENT,
        ACT_HI_DETAIL,
        ACT_HI_VARINST,
        ACT_HI_TASKINST,
        ACT_HI_ACTINST,
    ):
        changes.purge(Purge(table, column, value, values=values, roots=roots))
    if hierarchy:
        # Found by its own root column: MariaDB refuses an update reading its own table.
        changes.purge(Purge(ACT_HI_PROCINST, "ROOT_PROC_INST_ID_", value, values=values))
    else:
        changes.purge(Purge(ACT_HI_PROCINST, column, value, values=values))
    purge_decision_history(changes, column, value, values, roots=roots)


# The tables only history level full writes rows to.
_FULL_LEVEL_TABLES = frozenset(
    {
        ACT_HI_JOB_LOG,
        ACT_HI_INCIDENT,
        ACT_HI_DETAIL,
        ACT_HI_DECINST,
        ACT_HI_DEC_IN,
        ACT_HI_DEC_OUT,
        ACT_HI_OP_LOG,
    }
)


def stamp_removal_time(
    changes: ChangeSet,
    s: InstanceState,
    removal: datetime | None,
    level: int,
    *,
    hierarchy: bool = True,
    in_order: bool = False,
) -> None:
    """Camunda's removal-time strategy `end`: when a root instance ends, every history row of
    it and of the instances it called (transitively: its hierarchy) gets its removal time
    (PROCINST's, set with its end), found as their deletion finds them (by each instance's
    indexed id), so that history cleanup removes the hierarchy whole. A called instance ends
    before its root and gets nothing at its end. No history row of the hierarchy is written
    after the root's end (the operation log's entry of its deletion is written with the
    stamp's value: `operation_log`).
    A removal time set later (`HistoricRemovalTimeSet`) stamps the same rows, of the hierarchy
    or (without `hierarchy`) of the instance alone, `in_order` with the changes around it.
    """
    stamp = (("REMOVAL_TIME_", removal),)
    stamps = ChangeSet()
    purge_history(stamps, "PROC_INST_ID_", s.id, stamp, hierarchy=hierarchy)
    roots = ACT_HI_PROCINST if hierarchy else None
    stamps.purge(Purge(ACT_HI_OP_LOG, "PROC_INST_ID_", s.id, values=stamp, roots=roots))
    for purge in stamps.stamps:
        if in_order:
            purge = replace(purge, in_order=True)
        # Below level full those tables hold no row (a level change rebuilds history whole):
        # an UPDATE that can find nothing is one statement fewer at every instance's end.
        if level >= HISTORY_LEVELS["full"] or _FULL_LEVEL_TABLES.isdisjoint(
            (purge.table, purge.via, purge.through)
        ):
            changes.purge(purge)


def history_level(name: str) -> int:
    try:
        return HISTORY_LEVELS[name]
    except KeyError:
        raise ValueError(
            f"unknown history level {name!r}; use one of {', '.join(HISTORY_LEVELS)}"
        ) from None


# Activities Camunda writes no ACT_HI_ACTINST row for (HistoryParseListener): a link catch event
# is a hop in the flow, not a step of it. Its later updates then find no row and do nothing.
_NO_HISTORY = kinds.types_of(kinds.LINK_CATCH_EVENT)


class HistoryProjector:
    # Events that write no history row at any level, on purpose; every other event type has a
    # handler at level full (tests/projections check that each is in exactly one of the two).
    IGNORED: ClassVar[frozenset[type[ev.Event]]] = frozenset(
        {
            # the execution tree is runtime structure; activity instances carry its history
            ev.ExecutionCreated,
            ev.ExecutionRemoved,
            ev.ExecutionReplaced,
            ev.TokenWaitingAtJoin,
            ev.EscalationThrown,  # an audit record, as BpmnErrorThrown
            ev.BpmnErrorThrown,  # an audit record: what it caused is events of their own
            ev.MessageCorrelated,  # likewise
            ev.SignalThrown,
            ev.SignalReceived,
            ev.ConditionalEventOccurred,  # an audit record, as MessageCorrelated
            ev.ProcessInstanceModified,  # an audit record: the operation log writes it
            # Camunda keeps no history of event subscriptions
            ev.EventSubscriptionCreated,
            ev.EventSubscriptionDeleted,
            # compensation's bookkeeping: what it runs is activity instances and variables; a
            # reopened scope's activity instance has no history row (Camunda's has none)
            ev.CompensationScopeRetained,
            ev.CompensationStarted,
            ev.CompensationScopeReopened,
            ev.CompensationScopeClosed,
            # ACT_HI_EXT_TASK_LOG is not projected yet
            ev.ExternalTaskCreated,
            ev.ExternalTaskLocked,
            ev.ExternalTaskLockExtended,
            ev.ExternalTaskUnlocked,
            ev.ExternalTaskFailed,
            ev.ExternalTaskCompleted,
            ev.ExternalTaskBpmnErrorReported,
            ev.ExternalTaskRetriesSet,
            ev.ExternalTaskPrioritySet,
            ev.ExternalTaskCanceled,
            ev.DeploymentCreated,  # the repository projector's
            ev.StartTimerDueDateSet,  # the job log has no state for it (as JobDueDateSet)
            *ev.START_SUBSCRIPTION_EVENTS,
            ev.ProcessDefinitionSuspended,  # the repository projector's
            ev.ProcessDefinitionActivated,
            # Camunda's job log has no state for these: the next failure or run logs the job
            # with its retries and due date as they then are
            ev.JobRetriesSet,
            ev.JobDueDateSet,
            ev.JobPrioritySet,
            ev.JobSuspended,
            ev.JobActivated,
            ev.SigningKeyIntroduced,  # the log's own record: no table holds it
            # a batch's job retries and suspension: its runtime rows only (the job log has no
            # state for them, as for an instance's jobs)
            ev.BatchJobRetriesSet,
            ev.BatchSuspended,
            ev.BatchActivated,
        }
    )

    def __init__(self, level: str = "full") -> None:
        self.level = history_level(level)
        self._handlers = self._dispatch(self.level)
        # below level full some handled events write nothing: skipped by level, not unknown
        self._known = self.handled_events() | self.IGNORED

    def handled_events(self) -> frozenset[type[ev.Event]]:
        """The event types that write history at the highest level."""
        return frozenset(self._dispatch(HISTORY_LEVELS["full"]))

    def observe(self, event: ev.Event, s: InstanceState | None, changes: ChangeSet) -> None:
        """Project one event; `s` is the instance state before it."""
        handler = self._handlers.get(type(event))
        if handler is not None:
            handler(event, s, changes)
        elif type(event) not in self._known:
            raise UnhandledEvent("HistoryProjector", type(event))

    def _dispatch(self, level: int) -> dict[type[ev.Event], Handler]:
        """Which events a history level writes anything for, and how (one lookup per event
        instead of a chain of type tests: this runs for every event of every command)."""
        if level == 0:
            return {}
        handlers: dict[type[ev.Event], Handler] = {
            ev.ProcessInstanceStarted: self._started,
            ev.ActivityStarted: self._activity_started,
            ev.CalledInstanceStarted: self._called_instance_started,
            ev.ProcessInstanceSuspended: self._suspended,
            ev.ProcessInstanceActivated: self._activated,
            ev.ProcessInstanceMigrated: self._migrated,
            ev.ActivityCompleted: self._activity_completed,
            ev.ActivityCanceled: self._activity_canceled,
            ev.ProcessInstanceCompleted: self._instance_completed,
            ev.ProcessInstanceTerminated: self._instance_terminated,
            ev.UserTaskCreated: self._task_created,
            ev.TaskAssigned: self._task_assigned,
            ev.TaskClaimed: self._task_claimed,
            ev.TaskUnclaimed: self._task_unclaimed,
            ev.TaskCommentAdded: self._task_comment_added,
            ev.TaskCompleted: self._task_completed,
            ev.TaskDeleted: self._task_deleted,
            ev.HistoricProcessInstanceDeleted: self._history_deleted,
            ev.HistoricRemovalTimeSet: self._removal_time_set,
            ev.DeploymentDeleted: self._deployment_deleted,
        }
        if level >= 2:
            handlers[ev.VariableSet] = self._variable_set
            handlers[ev.VariableDeleted] = self._variable_deleted
            handlers[ev.PersonalDataErased] = self._personal_data_erased
        if level >= 3:
            handlers[ev.JobCreated] = self._job_created
            handlers[ev.JobFailed] = self._job_failed
            handlers[ev.JobExecuted] = self._job_executed
            handlers[ev.JobDeleted] = self._job_deleted
            handlers[ev.IncidentCreated] = self._incident_created
            handlers[ev.IncidentResolved] = self._incident_resolved
            handlers[ev.IncidentDeleted] = self._incident_deleted
            for start_timer_event in ev.START_TIMER_EVENTS:
                if start_timer_event is not ev.StartTimerDueDateSet:
                    handlers[start_timer_event] = self._start_timer
            # Camunda writes decision history at level full only
            handlers[ev.DecisionEvaluated] = project_evaluation
            handlers[ev.ActivityDecisionEvaluated] = project_evaluation
            handlers[ev.HistoricDecisionInstanceDeleted] = project_evaluation_deleted
            handlers[ev.HistoricDecisionRemovalTimeSet] = project_decision_removal_time
            handlers[ev.InstanceDecisionRemovalTimeSet] = project_decision_removal_time
            handlers[ev.HistoricDecisionInstancesDeleted] = project_decisions_deleted
            # Camunda writes batch history at level full only
            for batch_event in BATCH_HISTORY_EVENTS:
                handlers[batch_event] = self._batch
        return handlers

    def _batch(self, e: ev.Event, _s: None, changes: ChangeSet) -> None:
        project_batch_history(e, changes)

    def _start_timer(self, e: ev.Event, _s: None, changes: ChangeSet) -> None:
        project_start_timer_history(e, changes)

    # -- jobs and incidents (level full) ---------------------------------------------------

    def _job_created(self, e: ev.JobCreated, s: InstanceState, changes: ChangeSet) -> None:
        log_id = job_log_id(e.job_id, s)
        row = job_log_row(s, log_id, e, JOB_CREATED, e.time)
        changes.insert(ACT_HI_JOB_LOG, log_id, written(row, s))

    def _job_failed(self, e: ev.JobFailed, s: InstanceState, changes: ChangeSet) -> None:
        log_id = job_log_id(e.job_id, s)
        row = job_log_row(s, log_id, s.jobs[e.job_id], JOB_FAILED, e.time, failure=e)
        changes.insert(ACT_HI_JOB_LOG, log_id, written(row, s))
        stack_id = row["JOB_EXCEPTION_STACK_ID_"]
        if stack_id is not None and e.stacktrace is not None:
            data = e.stacktrace.encode()
            blob = bytearray_row(
                stack_id, JOB_EXCEPTION_NAME, data, BYTEARRAY_HISTORY, s.root_process_instance_id
            )
            changes.insert(ACT_GE_BYTEARRAY, stack_id, written(blob, s))

    def _job_executed(self, e: ev.JobExecuted, s: InstanceState, changes: ChangeSet) -> None:
        log_id = job_log_id(e.job_id, s)
        row = job_log_row(s, log_id, s.jobs[e.job_id], JOB_SUCCESSFUL, e.time)
        changes.insert(ACT_HI_JOB_LOG, log_id, written(row, s))

    def _job_deleted(self, e: ev.JobDeleted, s: InstanceState, changes: ChangeSet) -> None:
        log_id = job_log_id(e.job_id, s)
        row = job_log_row(s, log_id, s.jobs[e.job_id], JOB_DELETED, e.time)
        changes.insert(ACT_HI_JOB_LOG, log_id, written(row, s))

    def _incident_created(
        self, e: ev.IncidentCreated, s: InstanceState, changes: ChangeSet
    ) -> None:
        changes.insert(ACT_HI_INCIDENT, e.incident_id, written(historic_incident_row(s, e), s))

    def _incident_resolved(self, e: Any, s: Any, changes: ChangeSet) -> None:
        self._incident_ended(s, e.incident_id, e.time, INCIDENT_RESOLVED, changes)

    def _incident_deleted(self, e: Any, s: Any, changes: ChangeSet) -> None:
        self._incident_ended(s, e.incident_id, e.time, INCIDENT_DELETED, changes)

    def _incident_ended(
        self, s: InstanceState, incident_id: str, time: Any, state: int, changes: ChangeSet
    ) -> None:
        incident = s.incidents[incident_id]
        changes.update(
            ACT_HI_INCIDENT,
            incident_id,
            {
                "END_TIME_": db_time(time),
                "INCIDENT_STATE_": state,
                # its execution may have moved since (tree expansion or compaction)
                "EXECUTION_ID_": incident.execution_id,
            },
        )

    def _activity_completed(self, e: Any, s: Any, changes: ChangeSet) -> None:
        state = ACTIVITY_STATE_SCOPE_COMPLETE if e.completes_scope else ACTIVITY_STATE_DEFAULT
        self._activity_ended(s, e.activity_instance_id, e.time, state, changes)

    def _activity_canceled(self, e: Any, s: Any, changes: ChangeSet) -> None:
        self._activity_ended(s, e.activity_instance_id, e.time, ACTIVITY_STATE_CANCELED, changes)

    def _instance_completed(self, e: Any, s: Any, changes: ChangeSet) -> None:
        changes.update(
            ACT_HI_PROCINST,
            s.id,
            {
                "END_TIME_": db_time(e.time),
                "DURATION_": duration_ms(s.start_time, e.time),
                "END_ACT_ID_": e.end_activity_id,
                "STATE_": "COMPLETED",
                "EVENT_COUNT_": s.version + 1,
                **self._removal(s, e.time),
            },
        )
        self._stamp(s, e.time, changes)

    def _instance_terminated(self, e: Any, s: Any, changes: ChangeSet) -> None:
        changes.update(
            ACT_HI_PROCINST,
            s.id,
            {
                "END_TIME_": db_time(e.time),
                "DURATION_": duration_ms(s.start_time, e.time),
                "DELETE_REASON_": e.reason,
                "STATE_": "EXTERNALLY_TERMINATED" if e.externally else "INTERNALLY_TERMINATED",
                "EVENT_COUNT_": s.version + 1,
                **self._removal(s, e.time),
            },
        )
        self._stamp(s, e.time, changes)

    @staticmethod
    def _removal(s: InstanceState, end: datetime) -> dict[str, Any]:
        # A called instance's row keeps what its root's end stamped, were it projected after.
        return {"REMOVAL_TIME_": removal_time(s, end)} if is_root(s) else {}

    def _stamp(self, s: InstanceState, end: datetime, changes: ChangeSet) -> None:
        removal = removal_time(s, end)
        if removal is not None and s.removal_time is None:  # strategy start wrote it already
            stamp_removal_time(changes, s, removal, self.level)

    def _removal_time_set(
        self, e: ev.HistoricRemovalTimeSet, s: InstanceState, changes: ChangeSet
    ) -> None:
        """A removal time set after the fact: the rows its end would stamp, as they stand now
        (of the hierarchy, the event being on its root's stream, or of the instance alone)."""
        removal = db_time(e.removal_time)
        hierarchy = e.hierarchical
        stamp_removal_time(changes, s, removal, self.level, hierarchy=hierarchy, in_order=True)

    def _history_deleted(self, e: Any, s: Any, changes: ChangeSet) -> None:
        purge_history(changes, "PROC_INST_ID_", s.id)
        if e.cleanup and self.level >= HISTORY_LEVELS["full"]:
            # History cleanup takes the instance's user operation log along (Camunda's removes
            # it by removal time); a user's deletion keeps it, as Camunda's does.
            changes.purge(Purge(ACT_HI_OP_LOG, "PROC_INST_ID_", s.id))

    def _deployment_deleted(self, e: Any, _s: Any, changes: ChangeSet) -> None:
        # Camunda's cascade deletes the historic instances of every definition of the deployment,
        # finished ones too (deleteHistoricProcessInstanceByProcessDefinitionId).
        if e.cascade:
            for definition_id in e.process_definition_ids:
                purge_history(changes, "PROC_DEF_ID_", definition_id)
            for definition_id in e.decision_definition_ids:
                purge_decision_history(changes, "DEC_DEF_ID_", definition_id)

    def _task_assigned(self, e: Any, s: Any, changes: ChangeSet) -> None:
        self._assignee(s, e.task_id, e.assignee, changes)

    def _task_claimed(self, e: Any, s: Any, changes: ChangeSet) -> None:
        self._assignee(s, e.task_id, e.assignee, changes)

    def _task_unclaimed(self, e: Any, s: Any, changes: ChangeSet) -> None:
        self._assignee(s, e.task_id, None, changes)

    def _task_completed(self, e: Any, s: Any, changes: ChangeSet) -> None:
        self._task_ended(s, e.task_id, e.time, "completed", "Completed", changes)

    def _task_deleted(self, e: Any, s: Any, changes: ChangeSet) -> None:
        self._task_ended(s, e.task_id, e.time, e.reason, "Deleted", changes)

    def _variable_deleted(self, e: Any, s: Any, changes: ChangeSet) -> None:
        var = s.variables[e.variable_id]
        changes.update(
            ACT_HI_VARINST, e.variable_id, {"STATE_": "DELETED", "REV_": var.revision + 2}
        )

    def _started(self, e: Any, _s: Any, changes: ChangeSet) -> None:
        row = dict(_PROCINST_ROW)
        row.update(
            ID_=e.process_instance_id,
            PROC_INST_ID_=e.process_instance_id,
            BUSINESS_KEY_=e.business_key,
            PROC_DEF_KEY_=e.definition_key,
            PROC_DEF_ID_=e.definition_id,
            START_TIME_=db_time(e.time),
            START_USER_ID_=e.start_user_id,
            START_ACT_ID_=e.start_activity_id,
            SUPER_PROCESS_INSTANCE_ID_=e.super_process_instance_id,
            ROOT_PROC_INST_ID_=e.root_process_instance_id or e.process_instance_id,
            STATE_="ACTIVE",
            REMOVAL_TIME_=db_time(e.removal_time),
            RESTARTED_PROC_INST_ID_=e.restarted_from,
        )
        changes.insert(ACT_HI_PROCINST, e.process_instance_id, row)

    def _suspended(self, _e: Any, s: InstanceState, changes: ChangeSet) -> None:
        changes.update(ACT_HI_PROCINST, s.id, {"STATE_": "SUSPENDED"})

    def _activated(self, _e: Any, s: InstanceState, changes: ChangeSet) -> None:
        changes.update(ACT_HI_PROCINST, s.id, {"STATE_": "ACTIVE"})

    def _migrated(
        self, e: ev.ProcessInstanceMigrated, s: InstanceState, changes: ChangeSet
    ) -> None:
        """Camunda's migrate history events: the instance, its activity instances, tasks,
        variables and incidents name the target definition (and their new activity)."""
        definition = {"PROC_DEF_ID_": e.definition_id, "PROC_DEF_KEY_": e.definition_key}
        changes.update(ACT_HI_PROCINST, s.id, definition)
        for n, new in enumerate(e.emerged):
            row = {
                **_ACTINST_ROW,
                **definition,
                "ID_": new.id,
                "PARENT_ACT_INST_ID_": new.parent_id,
                "ROOT_PROC_INST_ID_": s.root_process_instance_id,
                "PROC_INST_ID_": s.id,
                "EXECUTION_ID_": new.execution_id,
                "ACT_ID_": new.activity_id,
                "ACT_NAME_": new.activity_name,
                "ACT_TYPE_": new.activity_type,
                "START_TIME_": db_time(e.time),
                "ACT_INST_STATE_": ACTIVITY_STATE_DEFAULT,
                "SEQUENCE_COUNTER_": s.version + 1 + n,
            }
            changes.insert(ACT_HI_ACTINST, new.id, written(row, s))
        for ai in e.activity_instances:
            if s.activity_instances[ai.id].activity_type in _NO_HISTORY:
                continue
            changes.update(
                ACT_HI_ACTINST,
                ai.id,
                {
                    **definition,
                    "EXECUTION_ID_": ai.execution_id,
                    "ACT_ID_": ai.activity_id,
                    "ACT_NAME_": ai.activity_name,
                    "ACT_TYPE_": ai.activity_type,
                    "PARENT_ACT_INST_ID_": ai.parent_id,
                },
            )
        for task in e.tasks:
            changes.update(
                ACT_HI_TASKINST,
                task.id,
                {
                    **definition,
                    "EXECUTION_ID_": task.execution_id,
                    "TASK_DEF_KEY_": task.task_definition_key,
                },
            )
        if self.level >= HISTORY_LEVELS["audit"]:
            moved = {v.id: v.execution_id for v in e.moved_variables}
            for var in s.variables.values():
                values = {**definition}
                if var.id in moved:
                    values["EXECUTION_ID_"] = moved[var.id]
                changes.update(ACT_HI_VARINST, var.id, values)
        if self.level >= HISTORY_LEVELS["full"]:
            for incident in e.incidents:
                changes.update(
                    ACT_HI_INCIDENT,
                    incident.id,
                    {
                        **definition,
                        "EXECUTION_ID_": incident.execution_id,
                        "ACTIVITY_ID_": incident.activity_id,
                        "FAILED_ACTIVITY_ID_": incident.failed_activity_id,
                        "JOB_DEF_ID_": incident.job_definition_id,
                    },
                )

    def _called_instance_started(
        self, e: ev.CalledInstanceStarted, _s: InstanceState, changes: ChangeSet
    ) -> None:
        changes.update(
            ACT_HI_ACTINST,
            e.activity_instance_id,
            {"CALL_PROC_INST_ID_": e.called_process_instance_id},
        )

    def _activity_started(
        self, e: ev.ActivityStarted, s: InstanceState, changes: ChangeSet
    ) -> None:
        if e.activity_type in _NO_HISTORY:
            return
        # One dict display per row: this runs for every activity of every instance.
        row = {
            **_ACTINST_ROW,
            "ID_": e.activity_instance_id,
            "PARENT_ACT_INST_ID_": e.parent_activity_instance_id,
            "PROC_DEF_KEY_": s.definition_key,
            "PROC_DEF_ID_": s.definition_id,
            "ROOT_PROC_INST_ID_": s.root_process_instance_id,
            "PROC_INST_ID_": s.id,
            "EXECUTION_ID_": e.execution_id,
            "ACT_ID_": e.activity_id,
            "ACT_NAME_": e.activity_name,
            "ACT_TYPE_": e.activity_type,
            "START_TIME_": db_time(e.time),
            "ACT_INST_STATE_": ACTIVITY_STATE_DEFAULT,
            "SEQUENCE_COUNTER_": s.version + 1,
        }
        changes.insert(ACT_HI_ACTINST, e.activity_instance_id, written(row, s))

    def _activity_ended(
        self, s: InstanceState, ai_id: str, time: Any, state: int, changes: ChangeSet
    ) -> None:
        ai = s.activity_instances[ai_id]
        changes.update(
            ACT_HI_ACTINST,
            ai_id,
            {
                "END_TIME_": db_time(time),
                "DURATION_": duration_ms(ai.start_time, time),
                "ACT_INST_STATE_": state,
                # the token may have moved to another execution (tree compaction) meanwhile
                "EXECUTION_ID_": ai.execution_id,
            },
        )

    def _task_created(self, e: ev.UserTaskCreated, s: InstanceState, changes: ChangeSet) -> None:
        row = dict(_TASKINST_ROW)
        row.update(
            ID_=e.task_id,
            TASK_DEF_KEY_=e.task_definition_key,
            PROC_DEF_KEY_=s.definition_key,
            PROC_DEF_ID_=s.definition_id,
            ROOT_PROC_INST_ID_=s.root_process_instance_id,
            PROC_INST_ID_=s.id,
            EXECUTION_ID_=e.execution_id,
            ACT_INST_ID_=e.activity_instance_id,
            NAME_=e.name,
            DESCRIPTION_=e.description,
            OWNER_=e.owner,
            ASSIGNEE_=e.assignee,
            START_TIME_=db_time(e.time),
            PRIORITY_=e.priority,
            DUE_DATE_=db_time(e.due_date),
            FOLLOW_UP_DATE_=db_time(e.follow_up_date),
            TASK_STATE_="Created",
        )
        changes.insert(ACT_HI_TASKINST, e.task_id, written(row, s))
        changes.update(
            ACT_HI_ACTINST, e.activity_instance_id, {"TASK_ID_": e.task_id, "ASSIGNEE_": e.assignee}
        )

    def _task_comment_added(
        self, e: ev.TaskCommentAdded, s: InstanceState, changes: ChangeSet
    ) -> None:
        row = {
            **_COMMENT_ROW,
            "ID_": e.comment_id,
            "TYPE_": "comment",
            "TIME_": db_time(e.time),
            "USER_ID_": e.user_id,
            "TASK_ID_": e.task_id,
            "ROOT_PROC_INST_ID_": s.root_process_instance_id,
            "PROC_INST_ID_": s.id,
            "ACTION_": "AddComment",
            "MESSAGE_": comment_event_message(e.message),
            "FULL_MSG_": e.message.encode(),
            "REV_": 1,
        }
        changes.insert(ACT_HI_COMMENT, e.comment_id, written(row, s))

    def _assignee(
        self, s: InstanceState, task_id: str, assignee: str | None, changes: ChangeSet
    ) -> None:
        task = s.tasks[task_id]
        changes.update(ACT_HI_TASKINST, task_id, {"ASSIGNEE_": assignee, "TASK_STATE_": "Updated"})
        changes.update(ACT_HI_ACTINST, task.activity_instance_id, {"ASSIGNEE_": assignee})

    def _task_ended(
        self,
        s: InstanceState,
        task_id: str,
        time: Any,
        reason: str,
        task_state: str,
        changes: ChangeSet,
    ) -> None:
        task = s.tasks[task_id]
        changes.update(
            ACT_HI_TASKINST,
            task_id,
            {
                "END_TIME_": db_time(time),
                "DURATION_": duration_ms(task.created, time),
                "DELETE_REASON_": reason,
                "TASK_STATE_": task_state,
                "EXECUTION_ID_": task.execution_id,
            },
        )

    def _personal_data_erased(
        self, e: ev.PersonalDataErased, s: InstanceState, changes: ChangeSet
    ) -> None:
        """Sealed values whose keys were destroyed: their history rows hold nothing any more."""
        for variable_id in e.variable_ids:
            changes.update(ACT_HI_VARINST, variable_id, ERASED_COLUMNS)
            variable = s.variables.get(variable_id)
            if variable is not None and storage_columns(variable.value).data is not None:
                changes.delete(ACT_GE_BYTEARRAY, history_bytearray_id(variable_id))
        if self.level < 3:
            return
        for detail_id in e.detail_ids:
            changes.update(ACT_HI_DETAIL, detail_id, ERASED_COLUMNS)
            changes.delete(ACT_GE_BYTEARRAY, derived_id(detail_id, "detail-value"))
        project_decision_values_erased(e.decisions, changes)

    def _variable_set(self, e: ev.VariableSet, s: InstanceState, changes: ChangeSet) -> None:
        cols = storage_columns(e.value)
        existing = s.variables.get(e.variable_id)
        revision = 0 if existing is None else existing.revision + 1
        owner = s.executions.get(e.execution_id)
        scope_ai = (owner.scope_activity_instance_id if owner else None) or s.id
        blob_id = history_bytearray_id(e.variable_id) if cols.data is not None else None
        values = {
            "VAR_TYPE_": e.value.type,
            "REV_": revision + 1,
            "BYTEARRAY_ID_": blob_id,
            "DOUBLE_": cols.double,
            "LONG_": cols.long,
            "TEXT_": cols.text,
            "TEXT2_": cols.text2,
        }
        if existing is None:
            row = dict(_VARINST_ROW)
            row.update(
                ID_=e.variable_id,
                PROC_DEF_KEY_=s.definition_key,
                PROC_DEF_ID_=s.definition_id,
                ROOT_PROC_INST_ID_=s.root_process_instance_id,
                PROC_INST_ID_=s.id,
                EXECUTION_ID_=e.execution_id,
                ACT_INST_ID_=scope_ai,
                TASK_ID_=e.task_id,
                NAME_=e.name,
                CREATE_TIME_=db_time(e.time),
                STATE_="CREATED",
                **values,
            )
            changes.insert(ACT_HI_VARINST, e.variable_id, written(row, s))
        else:
            changes.update(ACT_HI_VARINST, e.variable_id, values)
        had_data = existing is not None and storage_columns(existing.value).data is not None
        if cols.data is not None or had_data:
            sync_bytearray(
                changes,
                history_bytearray_id(e.variable_id),
                e.name,
                cols.data,
                had_data,
                BYTEARRAY_HISTORY,
                s.root_process_instance_id,
                s.removal_time,
            )
        if self.level < 3:
            return
        detail_blob = derived_id(e.detail_id, "detail-value") if cols.data is not None else None
        detail = {
            **_DETAIL_ROW,
            "ID_": e.detail_id,
            "TYPE_": "VariableUpdate",
            "PROC_DEF_KEY_": s.definition_key,
            "PROC_DEF_ID_": s.definition_id,
            "ROOT_PROC_INST_ID_": s.root_process_instance_id,
            "PROC_INST_ID_": s.id,
            "EXECUTION_ID_": e.execution_id,
            "TASK_ID_": e.task_id,
            "ACT_INST_ID_": scope_ai,
            "VAR_INST_ID_": e.variable_id,
            "NAME_": e.name,
            "VAR_TYPE_": e.value.type,
            "REV_": revision,
            "TIME_": db_time(e.time),
            "BYTEARRAY_ID_": detail_blob,
            "DOUBLE_": cols.double,
            "LONG_": cols.long,
            "TEXT_": cols.text,
            "TEXT2_": cols.text2,
            "SEQUENCE_COUNTER_": s.version + 1,
            "INITIAL_": existing is None,
        }
        changes.insert(ACT_HI_DETAIL, e.detail_id, written(detail, s))
        if cols.data is not None and detail_blob is not None:
            changes.insert(
                ACT_GE_BYTEARRAY,
                detail_blob,
                written(
                    bytearray_row(
                        detail_blob,
                        e.name,
                        cols.data,
                        BYTEARRAY_HISTORY,
                        s.root_process_instance_id,
                    ),
                    s,
                ),
            )
