"""Events of a process instance's lifecycle: started, completed, terminated, its history
deleted, suspended and activated, and a called instance started by one of its call activities.

Pure data.
"""

from __future__ import annotations

from datetime import datetime

from .base import Event


class ProcessInstanceStarted(Event, tag=True, frozen=True):
    process_instance_id: str
    definition_id: str
    definition_key: str
    definition_version: int
    deployment_id: str
    business_key: str | None
    start_activity_id: str | None
    time: datetime
    start_user_id: str | None = None
    super_process_instance_id: str | None = None
    root_process_instance_id: str | None = None
    super_execution_id: str | None = None  # the caller's execution waiting in a call activity
    # Days its history is kept after it ends: the definition's camunda:historyTimeToLive, else
    # the engine's default when it started (None: kept until deleted). Decided once, here.
    history_ttl_days: int | None = None
    # Started by a message, signal or timer its start event caught, not by a call to start it:
    # no user operation of its own.
    triggered: bool = False
    # How many call activities it is nested under (0: a root instance), so that a call can be
    # refused past the limit from the caller's own state, without walking its callers.
    call_depth: int = 0
    # Camunda's removal-time strategy start: when its history may be removed (its root's start
    # plus the root's time to live; a called instance copies its root's), written on every
    # history row of it as the row is written. None under strategy end, where the root's end
    # stamps its hierarchy. Decided once, here, so that a rebuild writes the same.
    removal_time: datetime | None = None
    # Restarted from this ended instance (Camunda's restartedProcessInstanceId), by a restart
    # of `restarted_count` instances in one call.
    restarted_from: str | None = None
    restarted_count: int = 0
    # The first instance its restart call started: the call's one operation-log entry is
    # written with it (a rebuild projects the call's streams apart, in any batches).
    first_restarted: bool = False


class ProcessInstanceCompleted(Event, tag=True, frozen=True):
    end_activity_id: str | None
    time: datetime


class ProcessInstanceTerminated(Event, tag=True, frozen=True):
    """Ended before reaching an end: deleted through the API (externally) or by the engine."""

    reason: str | None
    externally: bool
    time: datetime
    # A called instance deleted because its calling activity was cancelled (its caller was
    # deleted, or left the activity): part of that operation, not one of its own.
    by_caller: bool = False


class ProcessInstanceModified(Event, tag=True, frozen=True):
    """An operator repaired the running instance (Camunda's process instance modification):
    the events after it in the same commit are what the instructions did. Recorded so that the
    trail says who moved which token, how and why, whatever the instructions left behind."""

    instructions: list[str]  # each instruction as Camunda describes it
    time: datetime
    annotation: str | None = None
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False
    # A modification of many instances of one definition in one call: how many (0: this one),
    # and whether this is the first of them (the one the call's operation log entry goes with).
    together: int = 0
    first_of_many: bool = False


class HistoricProcessInstanceDeleted(Event, tag=True, frozen=True):
    """The finished instance's history rows were deleted (historyService.deleteHistoricProcess-
    Instance, or a cascading deployment deletion). Only the projection forgets: the log keeps
    every event of the instance, this one included."""

    time: datetime
    # Removed by history cleanup (its time to live passed), not by a user: the cleanup takes
    # the instance's user operation log entries along, as Camunda's does by removal time.
    cleanup: bool = False


class ProcessInstanceSuspended(Event, tag=True, frozen=True):
    """Nothing of the instance moves until it is activated: its tasks, external tasks and jobs
    refuse work, messages and signals pass it by."""

    time: datetime


class ProcessInstanceActivated(Event, tag=True, frozen=True):
    time: datetime


class CalledInstanceStarted(Event, tag=True, frozen=True):
    """The call activity (its instance `activity_instance_id`) started the called instance
    `called_process_instance_id` and waits for it."""

    activity_instance_id: str
    called_process_instance_id: str
    time: datetime
