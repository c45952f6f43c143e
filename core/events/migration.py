"""The event of a process instance migration: the instance moved from one definition to another.

Pure data. One event states the instance as it is after the move, for every part the move
relabels (activity instances, executions, tasks, jobs, subscriptions, external tasks, incidents,
moved variables), so replay and time travel cross the move without looking at either model:
before it the stream speaks of the source definition, after it of the target. What the move
removes or adds beside (a boundary timer the target no longer has, a subscription of a new
boundary event) are the ordinary events before and after it in the same commit.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from .base import Event


class MigratedExecution(msgspec.Struct, frozen=True, omit_defaults=True):
    """One execution as it is after the move (new ones included: a task that became a scope
    runs on an execution of its own)."""

    id: str
    parent_id: str | None
    is_scope: bool
    is_concurrent: bool
    is_active: bool
    activity_id: str | None = None
    activity_instance_id: str | None = None
    scope_activity_instance_id: str | None = None
    scope_activity_id: str | None = None
    children: list[str] = []


class MigratedActivityInstance(msgspec.Struct, frozen=True, omit_defaults=True):
    """An activity instance keeps its id and start; its activity, execution and parent are the
    target's."""

    id: str
    activity_id: str
    activity_type: str
    activity_name: str | None
    execution_id: str
    parent_id: str


class MigratedTask(msgspec.Struct, frozen=True):
    id: str
    task_definition_key: str
    execution_id: str


class MigratedJob(msgspec.Struct, frozen=True, omit_defaults=True):
    """A job on the target's activity and job definition; a timer whose trigger was updated
    (`updateEventTrigger`) is due anew by the target's timer."""

    id: str
    activity_id: str
    job_definition_id: str
    execution_id: str
    handler_configuration: str
    due_date: datetime | None = None
    repeat: str | None = None


class MigratedSubscription(msgspec.Struct, frozen=True):
    id: str
    activity_id: str
    event_name: str
    execution_id: str
    activity_instance_id: str


class MigratedExternalTask(msgspec.Struct, frozen=True):
    id: str
    activity_id: str
    execution_id: str


class MigratedIncident(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    execution_id: str
    activity_id: str | None = None
    failed_activity_id: str | None = None
    job_definition_id: str | None = None


class MovedVariable(msgspec.Struct, frozen=True):
    """A variable whose scope went away in the move (a scope activity migrated to a non-scope
    one): it lives on at the execution its activity now runs on."""

    id: str
    execution_id: str


class ProcessInstanceMigrated(Event, tag=True, frozen=True):
    """The instance now runs on `definition_id` (Camunda's process instance migration); the
    lists hold every part it has after the move. `instructions` are the plan's, as Camunda
    describes them (source -> target), for the trail; `batch_id` names the batch that moved it,
    if one did."""

    source_definition_id: str
    definition_id: str
    definition_key: str
    definition_version: int
    deployment_id: str
    instructions: list[str]
    time: datetime
    executions: list[MigratedExecution] = []
    activity_instances: list[MigratedActivityInstance] = []
    # activity instances of the flow scopes the target adds around moved ones (they start now)
    emerged: list[MigratedActivityInstance] = []
    tasks: list[MigratedTask] = []
    jobs: list[MigratedJob] = []
    subscriptions: list[MigratedSubscription] = []
    external_tasks: list[MigratedExternalTask] = []
    incidents: list[MigratedIncident] = []
    moved_variables: list[MovedVariable] = []
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False
    batch_id: str | None = None
    # the names of the plan's variables, set on the instance after the move (their events follow)
    set_variables: list[str] = []
    # A migration of many instances in one call: how many, and whether this is the first (the
    # one the call's operation log entry goes with).
    together: int = 0
    first_of_many: bool = False
