"""An instance's log read as a person reads it: a timeline of what happened, when and by whom,
and the chain of causes behind any one event.

Pure: it reads the commits and events an instance stream holds and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import msgspec

from flowledger.core import events as ev
from flowledger.core.instance_view import readable_value
from flowledger.core.why_conditions import ConditionCheck

# Bookkeeping of executions and joins: no person asked for them, and the timeline omits them.
_QUIET = (ev.ExecutionCreated, ev.ExecutionRemoved, ev.ExecutionReplaced, ev.TokenWaitingAtJoin)
# Payload fields that name an entity an earlier commit of the stream created.
_REFERENCES = ("job_id", "task_id", "external_task_id", "subscription_id", "incident_id")
_CREATES = {
    ev.JobCreated: "job_id",
    ev.UserTaskCreated: "task_id",
    ev.ExternalTaskCreated: "external_task_id",
    ev.EventSubscriptionCreated: "subscription_id",
    ev.IncidentCreated: "incident_id",
}


class Commit(msgspec.Struct, frozen=True):
    """What the timeline needs of one commit: where it is, when, by whom, and its events."""

    first_position: int
    recorded_at: datetime
    command_id: str
    command_type: str
    actor: str | None
    via: str | None
    events: Sequence[ev.Event]
    chain: str = "verified"  # its hash link in the stream: "verified" or "damaged"


class TimelineEntry(msgspec.Struct, frozen=True):
    """One thing that happened to an instance."""

    position: int
    time: datetime
    activity_id: str | None
    activity_name: str | None
    what: str
    actor: str | None
    via: str | None
    command_type: str
    variables: dict[str, Any] = {}  # name -> new value (None when deleted)
    chain: str = "verified"  # the hash link of its commit: "verified" or "damaged"
    # An operator's repair (ProcessInstanceModified): why, in their words, and what they asked
    # for, instruction by instruction; the events after it in the commit are its effects.
    annotation: str | None = None
    instructions: list[str] = []


class Cause(msgspec.Struct, frozen=True):
    """One link of the chain behind an event: the command that made it, and by whom."""

    position: int  # the first position of the command's commit on this stream
    recorded_at: datetime
    command_id: str
    command_type: str
    actor: str | None
    via: str | None
    events: list[str]  # the types of the commit's events
    because_of: str | None  # what the command acted on that an earlier commit created
    # the conditions its token moves were chosen by (core.why_conditions), when explained
    conditions: list[ConditionCheck] = []


def timeline(commits: Sequence[Commit]) -> list[TimelineEntry]:
    """Every event a person would name, in order; variable changes join the line of the step
    that made them (same commit), or stand on their own line."""
    where = _Whereabouts()
    out: list[TimelineEntry] = []
    for commit in commits:
        entry: TimelineEntry | None = None
        for i, event in enumerate(commit.events):
            where.learn(event)
            if isinstance(event, _QUIET):
                continue
            if isinstance(event, ev.VariableSet | ev.VariableDeleted):
                name, value = where.variable(event)
                if entry is not None:
                    entry.variables[name] = value
                    continue
                entry = _entry(commit, i, event, where, "variables changed")
                entry.variables[name] = value
                out.append(entry)
                continue
            entry = _entry(commit, i, event, where, _describe(event))
            out.append(entry)
    return out


def causes(commits: Sequence[Commit], position: int) -> list[Cause]:
    """The commit holding the event at `position`, then the commit that created what it acted
    on, and so on back to the instance's start. Empty when no commit holds `position`."""
    created: dict[str, int] = {}  # entity id -> index of the commit that created it
    index: int | None = None
    for n, commit in enumerate(commits):
        if commit.first_position > position:
            break
        index = n
        for event in commit.events:
            field = _CREATES.get(type(event))
            if field is not None:
                created.setdefault(getattr(event, field), n)
    if index is None or position >= commits[index].first_position + len(commits[index].events):
        return []
    chain: list[Cause] = []
    seen: set[int] = set()
    current: int | None = index
    while current is not None and current not in seen:
        seen.add(current)
        commit = commits[current]
        earlier, reason = _trigger(commit, created, current)
        chain.append(
            Cause(
                position=commit.first_position,
                recorded_at=commit.recorded_at,
                command_id=commit.command_id,
                command_type=commit.command_type,
                actor=commit.actor,
                via=commit.via,
                events=[type(e).__name__ for e in commit.events],
                because_of=reason,
            )
        )
        current = earlier
    return chain


def _trigger(commit: Commit, created: dict[str, int], index: int) -> tuple[int | None, str | None]:
    """The earlier commit that created the first entity this commit's events refer to."""
    for event in commit.events:
        for field in _REFERENCES:
            entity = getattr(event, field, None)
            if isinstance(entity, str):
                origin = created.get(entity)
                if origin is not None and origin < index:
                    return origin, f"{field.removesuffix('_id').replace('_', ' ')} {entity}"
    return None, None


def _entry(
    commit: Commit, i: int, event: ev.Event, where: _Whereabouts, what: str
) -> TimelineEntry:
    activity_id, activity_name = where.activity_of(event)
    moment = getattr(event, "time", None)
    modified = event if isinstance(event, ev.ProcessInstanceModified) else None
    migrated = event if isinstance(event, ev.ProcessInstanceMigrated) else None
    return TimelineEntry(
        position=commit.first_position + i,
        time=moment if isinstance(moment, datetime) else commit.recorded_at,
        activity_id=activity_id,
        activity_name=activity_name,
        what=what,
        actor=commit.actor,
        via=commit.via,
        command_type=commit.command_type,
        variables={},
        chain=commit.chain,
        annotation=modified.annotation if modified else None,
        instructions=(
            list(modified.instructions)
            if modified
            else list(migrated.instructions)
            if migrated
            else []
        ),
    )


def _describe(event: ev.Event) -> str:
    """The event as a short phrase, with the facts that matter to a reader."""
    match event:
        case ev.ProcessInstanceStarted():
            key = f" (business key {event.business_key})" if event.business_key else ""
            again = f" as a restart of {event.restarted_from}" if event.restarted_from else ""
            return f"instance started{key}{again}"
        case ev.ProcessInstanceModified():
            skipped = [
                what
                for what, skip in (
                    ("custom listeners", event.skip_custom_listeners),
                    ("IO mappings", event.skip_io_mappings),
                )
                if skip
            ]
            skipping = f" (skipping {' and '.join(skipped)})" if skipped else ""
            return f"instance modified{skipping}: {'; '.join(event.instructions)}"
        case ev.ProcessInstanceMigrated():
            by = f" by batch {event.batch_id}" if event.batch_id else ""
            return (
                f"instance migrated{by} from {event.source_definition_id} to {event.definition_id}"
            )
        case ev.ProcessInstanceCompleted():
            return "instance completed"
        case ev.ProcessInstanceTerminated():
            return f"instance terminated: {event.reason}" if event.reason else "instance terminated"
        case ev.ActivityStarted():
            return f"{event.activity_type} started"
        case ev.ActivityCompleted():
            return "completed"
        case ev.ActivityCanceled():
            return "canceled"
        case ev.UserTaskCreated():
            return f"task created{_people(event.assignee, event.candidates)}"
        case ev.TaskAssigned():
            return f"task assigned to {event.assignee}" if event.assignee else "task unassigned"
        case ev.TaskClaimed():
            return f"task claimed by {event.assignee}"
        case ev.TaskCompleted():
            return "task completed"
        case ev.TaskCommentAdded():
            author = f" by {event.user_id}" if event.user_id else ""
            return f"comment{author}: {_short(event.message)}"
        case ev.TaskDeleted():
            return f"task deleted: {event.reason}" if event.reason else "task deleted"
        case ev.ActivityDecisionEvaluated():
            root = event.root
            rules = ", ".join(root.matched_rules) or "none"
            return f"decision {root.definition_key} evaluated (rules matched: {rules})"
        case ev.ExternalTaskCreated():
            return f"external task on topic {event.topic}"
        case ev.ExternalTaskLocked():
            return f"external task locked by {event.worker_id}"
        case ev.ExternalTaskFailed():
            return f"external task failed ({event.retries} retries left): {event.error_message}"
        case ev.JobCreated():
            due = f" due {event.due_date:%Y-%m-%d %H:%M:%S}" if event.due_date else ""
            return f"{event.job_type} job created{due}"
        case ev.JobFailed():
            return f"job failed ({event.retries} retries left): {event.error_message}"
        case ev.IncidentCreated():
            return f"{event.incident_type} incident: {event.message}"
        case ev.BpmnErrorThrown():
            return f"BPMN error {event.error_code} thrown"
        case ev.EscalationThrown():
            caught = f", caught by {event.caught_by}" if event.caught_by else ", not caught here"
            return f"escalation {event.escalation_code} raised{caught}"
        case ev.MessageCorrelated():
            return f"message {event.message_name} received"
        case ev.SignalReceived():
            return f"signal {event.signal_name} received"
        case ev.ConditionalEventOccurred() if event.variable_name is None:
            return f"condition of {event.activity_id} held as it started"
        case ev.ConditionalEventOccurred():
            return (
                f"condition of {event.activity_id} held on "
                f"{event.variable_event} of {event.variable_name}"
            )
        case ev.SignalThrown():
            return f"signal {event.signal_name} thrown"
        case ev.EventSubscriptionCreated() if event.event_type == "compensate":
            return f"compensable (handler {event.activity_id})"
        case ev.EventSubscriptionCreated() if event.event_type == "conditional":
            return f"waits for the condition of {event.activity_id}"
        case ev.EventSubscriptionCreated():
            return f"waits for {event.event_type} {event.event_name}"
        case ev.CompensationStarted():
            return f"compensation runs {event.activity_id}"
        case ev.CompensationScopeReopened():
            return f"{event.activity_type} reopened for compensation"
        case ev.CalledInstanceStarted():
            return f"called instance {event.called_process_instance_id}"
    return _words(type(event).__name__)


def _short(text: str, limit: int = 160) -> str:
    """A comment as a timeline line shows it: one line, cut at `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit] + "..."


def _people(assignee: str | None, candidates: Sequence[ev.IdentityLink]) -> str:
    if assignee:
        return f", assignee {assignee}"
    who = [c.group_id or c.user_id for c in candidates if c.type == "candidate"]
    return f", candidates {', '.join(w for w in who if w)}" if who else ""


def _words(name: str) -> str:
    """`JobRetriesSet` -> `job retries set`."""
    out: list[str] = []
    for ch in name:
        if ch.isupper() and out:
            out.append(" ")
        out.append(ch.lower())
    return "".join(out)


class _Whereabouts:
    """Which activity each task, job, subscription, variable and execution belongs to, learnt
    from the events as they pass."""

    def __init__(self) -> None:
        self._activities: dict[str, tuple[str, str | None]] = {}  # activity instance id
        self._of_execution: dict[str, str] = {}  # execution id -> activity instance id
        self._owned: dict[str, str] = {}  # task/job/... id -> activity instance id
        self._variables: dict[str, str] = {}  # variable id -> name

    def learn(self, event: ev.Event) -> None:
        if isinstance(event, ev.ActivityStarted):
            self._activities[event.activity_instance_id] = (event.activity_id, event.activity_name)
            self._of_execution[event.execution_id] = event.activity_instance_id
            return
        if isinstance(event, ev.ProcessInstanceMigrated):
            # from here on its activity instances are the target's activities
            for moved in [*event.activity_instances, *event.emerged]:
                self._activities[moved.id] = (moved.activity_id, moved.activity_name)
                self._of_execution[moved.execution_id] = moved.id
            return
        field = _CREATES.get(type(event))
        ai = getattr(event, "activity_instance_id", None)
        if field is not None and isinstance(ai, str):
            self._owned[getattr(event, field)] = ai
        if isinstance(event, ev.VariableSet):
            self._variables[event.variable_id] = event.name

    def variable(self, event: ev.VariableSet | ev.VariableDeleted) -> tuple[str, Any]:
        if isinstance(event, ev.VariableSet):
            return event.name, readable_value(event.value)
        return self._variables.get(event.variable_id, event.variable_id), None

    def activity_of(self, event: ev.Event) -> tuple[str | None, str | None]:
        ai = getattr(event, "activity_instance_id", None)
        if not isinstance(ai, str):
            for field in _REFERENCES:
                entity = getattr(event, field, None)
                if isinstance(entity, str) and entity in self._owned:
                    ai = self._owned[entity]
                    break
        if not isinstance(ai, str):
            execution = getattr(event, "execution_id", None)
            ai = self._of_execution.get(execution) if isinstance(execution, str) else None
        if isinstance(ai, str) and ai in self._activities:
            return self._activities[ai]
        activity = getattr(event, "activity_id", None)
        return (activity, None) if isinstance(activity, str) else (None, None)
