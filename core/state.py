"""The state of one process instance, as folded from its events by `core.evolve`.

Pure data (msgspec Structs, so equality and snapshots come for free). Only evolve mutates it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import msgspec

from .events import IdentityLink
from .variables import StoredValue

# Bump when the shape or the meaning of the state changes: stored snapshots are then ignored.
# 2: `history_deleted`; a failure report without details keeps the earlier details (Camunda's).
# 3: jobs and incidents.
# 4: event subscriptions.
# 5: call activities (calls, super_execution_id).
# 6: suspension.
# 8: compensation (retained scopes, compensating executions, reopened scopes).
STATE_SCHEMA = 8


class Execution(msgspec.Struct):
    """A token or a scope, as Camunda's ACT_RU_EXECUTION row sees it."""

    id: str
    parent_id: str | None
    is_scope: bool
    is_concurrent: bool
    is_active: bool = True
    activity_id: str | None = None
    activity_instance_id: str | None = None
    # The activity instance of the scope this execution stands for (process, subprocess, ...).
    scope_activity_instance_id: str | None = None
    scope_activity_id: str | None = None
    children: list[str] = []


class ActivityInstance(msgspec.Struct):
    id: str
    activity_id: str
    activity_type: str
    activity_name: str | None
    execution_id: str
    parent_id: str
    start_time: datetime


class Variable(msgspec.Struct):
    id: str
    name: str
    execution_id: str
    value: StoredValue
    created: datetime
    task_id: str | None = None
    revision: int = 0


class UserTask(msgspec.Struct):
    id: str
    execution_id: str
    activity_instance_id: str
    task_definition_key: str
    name: str | None
    created: datetime
    last_updated: datetime | None = None
    description: str | None = None
    assignee: str | None = None
    owner: str | None = None
    candidates: list[IdentityLink] = []
    due_date: datetime | None = None
    follow_up_date: datetime | None = None
    priority: int = 50
    form_key: str | None = None


class ExternalTask(msgspec.Struct):
    id: str
    execution_id: str
    activity_instance_id: str
    activity_id: str
    topic: str
    priority: int
    created: datetime
    worker_id: str | None = None
    lock_expiration: datetime | None = None
    retries: int | None = None
    error_message: str | None = None
    error_details: str | None = None


class Job(msgspec.Struct):
    """A timer or asynchronous continuation waiting for the job executor (ACT_RU_JOB)."""

    id: str
    job_type: str
    handler_type: str
    handler_configuration: str
    job_definition_id: str
    execution_id: str
    activity_id: str
    activity_instance_id: str | None
    due_date: datetime | None
    retries: int
    priority: int
    exclusive: bool
    created: datetime
    repeat: str | None = None
    error_message: str | None = None
    stacktrace: str | None = None
    failed_activity_id: str | None = None
    suspended: bool = False


class Incident(msgspec.Struct):
    id: str
    incident_type: str
    configuration: str
    execution_id: str
    activity_id: str | None
    failed_activity_id: str | None
    message: str | None
    created: datetime
    job_definition_id: str | None = None


class EventSubscription(msgspec.Struct):
    """A catch event waiting for a message (ACT_RU_EVENT_SUBSCR)."""

    id: str
    event_type: str
    event_name: str
    execution_id: str
    activity_id: str
    activity_instance_id: str
    created: datetime


class RetainedScope(msgspec.Struct):
    """A completed scope kept for its compensation (Camunda's event-scope execution): the
    activity instance that completed and its local variables as they were then."""

    activity_instance_id: str
    variables: dict[str, StoredValue] = {}


class InstanceState(msgspec.Struct, dict=True):
    """Everything the engine knows about one running (or ended) process instance.

    `dict=True` gives room for derived caches (`variable_index`) beside the fields: equality,
    encoding (snapshots) and copies see the fields only, so a cache never changes what is stored.
    """

    id: str
    definition_id: str
    definition_key: str
    definition_version: int
    deployment_id: str
    business_key: str | None
    start_time: datetime
    start_activity_id: str | None = None
    start_user_id: str | None = None
    root_process_instance_id: str | None = None
    super_process_instance_id: str | None = None
    super_execution_id: str | None = None
    status: str = "ACTIVE"  # ACTIVE | COMPLETED | EXTERNALLY_TERMINATED | INTERNALLY_TERMINATED
    end_time: datetime | None = None
    end_activity_id: str | None = None
    delete_reason: str | None = None
    # Its ACT_HI_* rows were deleted (the log keeps its events): a second deletion finds nothing.
    history_deleted: bool = False
    suspended: bool = False
    history_ttl_days: int | None = None  # days its history is kept after it ends
    call_depth: int = 0  # call activities it is nested under (0: a root instance)
    removal_time: datetime | None = None  # its history's, decided at its start (strategy start)
    executions: dict[str, Execution] = {}
    activity_instances: dict[str, ActivityInstance] = {}
    variables: dict[str, Variable] = {}
    tasks: dict[str, UserTask] = {}
    external_tasks: dict[str, ExternalTask] = {}
    jobs: dict[str, Job] = {}
    incidents: dict[str, Incident] = {}
    subscriptions: dict[str, EventSubscription] = {}
    # call activity instance id -> the called process instance it waits for
    calls: dict[str, str] = {}
    # compensate subscription id -> the completed scope it compensates (its retained copy)
    retained_scopes: dict[str, RetainedScope] = {}
    # execution running a compensation -> the activity instance waiting for it to end
    compensating: dict[str, str] = {}
    # activity instance of a reopened scope -> the completed one it stands for
    reopened_scopes: dict[str, str] = {}
    version: int = 0  # number of events folded into this state

    @property
    def ended(self) -> bool:
        return self.status != "ACTIVE"


# Where `variable_index` keeps the index in the state's instance dict (not a Struct field).
_INDEX_ATTRIBUTE = "variable_index"


class VariableIndex:
    """Where each variable of an instance is: a scope lookup is one dict access, not a scan.

    Derived from `InstanceState.variables`, built on first use and kept up to date by evolve
    (the only writer of the variables). Orders follow the variables dict's insertion order, so
    a reader that walks the variables of some executions sees them as a scan would.
    """

    __slots__ = ("_local", "_next", "_of_execution", "_task_local")

    def __init__(self, variables: Mapping[str, Variable]) -> None:
        # execution id -> {variable id: its position in the variables dict}, task-local ones
        # too. Positions come from a counter: a removal leaves a gap, which keeps the order.
        self._of_execution: dict[str, dict[str, int]] = {}
        self._next = 0
        # execution id -> {name: id} of its own variables. A scope holds one variable per name,
        # but compacting executions (ExecutionReplaced) can bring two together: then a list of
        # ids, first in order first, as the first hit of a scan.
        self._local: dict[str, dict[str, str | list[str]]] = {}
        # task id -> {name: id}, in order (a task keeps its id, so its names never collide)
        self._task_local: dict[str, dict[str, str]] = {}
        for var in variables.values():
            self.add(var)

    def local(self, execution_id: str, name: str) -> str | None:
        """The id of the execution's own variable `name` (not a task's local one)."""
        held = self._local.get(execution_id, {}).get(name)
        return held[0] if isinstance(held, list) else held

    def task_local(self, task_id: str, name: str) -> str | None:
        return self._task_local.get(task_id, {}).get(name)

    def of_execution(self, execution_id: str) -> Iterable[str]:
        """The ids of the variables at the execution (task-local ones too), in order."""
        return self._of_execution.get(execution_id, {}).keys()

    def of_task(self, task_id: str) -> Iterable[str]:
        return self._task_local.get(task_id, {}).values()

    def of_executions(self, execution_ids: Iterable[str]) -> list[str]:
        """The ids of the variables at any of the executions, in the variables dict's order."""
        found: list[tuple[int, str]] = []
        for execution_id in execution_ids:
            found += ((at, vid) for vid, at in self._of_execution.get(execution_id, {}).items())
        found.sort()
        return [vid for _at, vid in found]

    def add(self, var: Variable) -> None:
        """A variable appended to the variables dict."""
        self._of_execution.setdefault(var.execution_id, {})[var.id] = self._next
        self._next += 1
        if var.task_id is None:
            _file(self._local.setdefault(var.execution_id, {}), var.name, var.id)
        else:
            self._task_local.setdefault(var.task_id, {})[var.name] = var.id

    def remove(self, var: Variable) -> None:
        """A variable deleted from the variables dict."""
        _drop(self._of_execution, var.execution_id, var.id)
        if var.task_id is None:
            _unfile(self._local, var.execution_id, var.name, var.id)
        else:
            _drop(self._task_local, var.task_id, var.name)

    def move(self, variables: Mapping[str, Variable], source: str, target: str) -> list[str]:
        """The variables of execution `source` go to `target`: the ids to re-point, in order.

        The caller sets their `execution_id`; the index is ready for that already."""
        moved = self._of_execution.pop(source, {})
        if not moved:
            return []
        merged = {**self._of_execution.get(target, {}), **moved}
        positions = self._of_execution[target] = dict(sorted(merged.items(), key=lambda i: i[1]))
        names = self._local.setdefault(target, {})
        for vid in moved:
            var = variables[vid]
            if var.task_id is None:
                _unfile(self._local, source, var.name, vid)
                _file(names, var.name, vid, positions)
        if not names:
            del self._local[target]
        return list(moved)


def _file(
    names: dict[str, str | list[str]],
    name: str,
    vid: str,
    positions: Mapping[str, int] | None = None,
) -> None:
    """Enter `vid` under `name`; beside another id (rare), the ids in the dict's order: a new
    variable comes last, a moved one (`positions` given) may be older than those there."""
    held = names.get(name)
    if held is None:
        names[name] = vid
        return
    ids = [held] if isinstance(held, str) else held
    ids.append(vid)
    if positions is not None:
        ids.sort(key=positions.__getitem__)
    names[name] = ids


def _unfile(local: dict[str, dict[str, str | list[str]]], owner: str, name: str, vid: str) -> None:
    names = local[owner]
    held = names[name]
    if isinstance(held, list):
        held.remove(vid)
        if len(held) == 1:
            names[name] = held[0]
        return
    del names[name]
    if not names:
        del local[owner]


def _drop(nested: dict[str, dict[str, Any]], owner: str, key: str) -> None:
    inner = nested[owner]
    del inner[key]
    if not inner:
        del nested[owner]


def variable_index(state: InstanceState) -> VariableIndex:
    """The state's variable index, built from its variables on first use."""
    index = state.__dict__.get(_INDEX_ATTRIBUTE)
    if index is None:
        index = state.__dict__[_INDEX_ATTRIBUTE] = VariableIndex(state.variables)
    assert isinstance(index, VariableIndex)
    return index


def forget_variable_index(state: InstanceState) -> None:
    """After the variables were cleared wholesale: the next use builds the index anew."""
    state.__dict__.pop(_INDEX_ATTRIBUTE, None)


class DeploymentState(msgspec.Struct):
    id: str
    name: str | None
    source: str | None
    time: datetime
    version: int = 0


_state_encoder = msgspec.msgpack.Encoder()
_state_decoder = msgspec.msgpack.Decoder(InstanceState)


def encode_state(state: InstanceState) -> bytes:
    return _state_encoder.encode(state)


def decode_state(data: bytes) -> InstanceState:
    return _state_decoder.decode(data)


def copy_state(state: InstanceState) -> InstanceState:
    return _state_decoder.decode(_state_encoder.encode(state))
