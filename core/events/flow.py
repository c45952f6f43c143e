"""Events of the token flow inside an instance: executions (tokens and scopes) created, removed
and replaced, tokens waiting at a join, activity instances started, completed or cancelled, and
BPMN errors thrown.

Pure data.
"""

from __future__ import annotations

from datetime import datetime

from .base import Event


class ExecutionCreated(Event, tag=True, frozen=True):
    """A child execution: a scope for a scope activity, or a concurrent token.

    `replaces` names the scope execution whose place the new concurrent execution takes when
    a compacted scope first forks (Camunda's tree expansion).
    """

    execution_id: str
    parent_id: str
    is_scope: bool
    is_concurrent: bool
    replaces: str | None = None


class ExecutionRemoved(Event, tag=True, frozen=True):
    execution_id: str


class ExecutionReplaced(Event, tag=True, frozen=True):
    """The last concurrent child of a scope is folded back into the scope (tree compaction)."""

    execution_id: str
    by_execution_id: str


class TokenWaitingAtJoin(Event, tag=True, frozen=True):
    execution_id: str
    activity_instance_id: str


class ActivityStarted(Event, tag=True, frozen=True):
    activity_instance_id: str
    activity_id: str
    activity_type: str
    activity_name: str | None
    execution_id: str
    parent_activity_instance_id: str
    time: datetime
    flow_id: str | None = None  # the sequence flow the token arrived by


class ActivityCompleted(Event, tag=True, frozen=True):
    activity_instance_id: str
    time: datetime
    completes_scope: bool = False


class ActivityCanceled(Event, tag=True, frozen=True):
    activity_instance_id: str
    time: datetime


class BpmnErrorThrown(Event, tag=True, frozen=True):
    """A BPMN error was raised at an activity; `caught_by` is the boundary event that caught it."""

    activity_instance_id: str
    error_code: str | None
    error_message: str | None
    caught_by: str | None
    time: datetime
