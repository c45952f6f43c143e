"""A process instance as a person debugging it reads it, and what changed between two moments.

Pure: turns an `InstanceState` (live or replayed up to a position) into plain views; no I/O.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import msgspec

from .state import InstanceState, UserTask, Variable
from .variables import StoredValue, from_stored, rest_type_name

ROOT_SCOPE = "process instance"
_View = TypeVar("_View", bound=msgspec.Struct)


class ActivityView(msgspec.Struct, frozen=True):
    activity_instance_id: str
    activity_id: str
    activity_name: str | None
    activity_type: str
    execution_id: str
    parent_activity_instance_id: str
    start_time: dt.datetime


class TaskView(msgspec.Struct, frozen=True):
    id: str
    name: str | None
    task_definition_key: str
    assignee: str | None
    owner: str | None
    candidate_users: list[str]
    candidate_groups: list[str]
    created: dt.datetime
    due_date: dt.datetime | None
    priority: int


class VariableView(msgspec.Struct, frozen=True):
    """`value` is plain JSON-able Python; `scope` says where the variable lives (ROOT_SCOPE,
    the activity id of a sub-scope, or "task <id>"). `id` pairs a variable across two views."""

    id: str
    name: str
    type: str
    value: Any
    scope: str


class JobView(msgspec.Struct, frozen=True):
    id: str
    job_type: str
    activity_id: str
    due_date: dt.datetime | None
    retries: int
    suspended: bool
    error_message: str | None


class ExternalTaskView(msgspec.Struct, frozen=True):
    id: str
    topic: str
    activity_id: str
    worker_id: str | None
    lock_expiration: dt.datetime | None
    retries: int | None
    error_message: str | None


class SubscriptionView(msgspec.Struct, frozen=True):
    id: str
    event_type: str
    event_name: str
    activity_id: str


class IncidentView(msgspec.Struct, frozen=True):
    id: str
    incident_type: str
    activity_id: str | None
    message: str | None


class InstanceView(msgspec.Struct, frozen=True):
    """The instance after `events` events; each list in a deterministic order."""

    id: str
    definition_id: str
    definition_key: str
    definition_version: int
    business_key: str | None
    status: str
    suspended: bool
    start_time: dt.datetime
    end_time: dt.datetime | None
    end_activity_id: str | None
    events: int
    activities: list[ActivityView]
    tasks: list[TaskView]
    variables: list[VariableView]
    jobs: list[JobView]
    external_tasks: list[ExternalTaskView]
    subscriptions: list[SubscriptionView]
    incidents: list[IncidentView]
    # call activity instance id -> the process instance it called
    called_instances: dict[str, str]


class Change(msgspec.Struct, frozen=True):
    """One difference between two views.

    `kind` is "added", "removed" or "changed". For "changed", `before`/`after` map only the
    fields that differ to their values; otherwise the one side holds the whole item as a dict
    and the other None. Datetimes stay datetimes (msgspec's encoders write them as ISO text),
    so a renderer can format them as it likes.
    """

    section: str
    key: str
    kind: str
    before: Any
    after: Any


def instance_view(
    state: InstanceState, variables_at_end: Sequence[VariableView] | None = None
) -> InstanceView:
    """The view of `state`. An ended instance's state holds no variables any more (its runtime
    is cleared): `variables_at_end`, what `variables_view` gave right before its end event,
    are its variables then, so that a diff across its end does not call them removed."""
    activities = (
        _copy(ActivityView, a, activity_instance_id=a.id, parent_activity_instance_id=a.parent_id)
        for a in state.activity_instances.values()
    )
    if state.ended and variables_at_end is not None:
        variables = list(variables_at_end)
    else:
        variables = variables_view(state)
    return _copy(
        InstanceView,
        state,
        events=state.version,
        activities=sorted(activities, key=lambda a: (a.start_time, a.activity_instance_id)),
        tasks=sorted((_task(t) for t in state.tasks.values()), key=_by_id),
        variables=variables,
        jobs=_views(JobView, state.jobs),
        external_tasks=_views(ExternalTaskView, state.external_tasks),
        subscriptions=_views(SubscriptionView, state.subscriptions),
        incidents=_views(IncidentView, state.incidents),
        called_instances=dict(sorted(state.calls.items())),
    )


def variables_view(state: InstanceState) -> list[VariableView]:
    """The instance's variables as the view lists them."""
    variables = (_variable(state, v) for v in state.variables.values())
    return sorted(variables, key=lambda v: (v.scope, v.name, v.id))


def _copy(view: type[_View], source: msgspec.Struct, **given: Any) -> _View:
    """A view of `source`: the fields `given`, the others read from the source's same-named
    fields."""
    fields = view.__struct_fields__
    return view(**{f: given[f] if f in given else getattr(source, f) for f in fields})


def _views(view: type[_View], items: Mapping[str, msgspec.Struct]) -> list[_View]:
    return [_copy(view, items[item_id]) for item_id in sorted(items)]


def _by_id(item: Any) -> str:
    return str(item.id)


def _task(task: UserTask) -> TaskView:
    users = sorted({c.user_id for c in task.candidates if c.type == "candidate" and c.user_id})
    groups = sorted({c.group_id for c in task.candidates if c.type == "candidate" and c.group_id})
    return _copy(TaskView, task, candidate_users=users, candidate_groups=groups)


def _variable(state: InstanceState, var: Variable) -> VariableView:
    return VariableView(
        var.id,
        var.name,
        rest_type_name(var.value.type),
        readable_value(var.value),
        _scope(state, var),
    )


def _scope(state: InstanceState, var: Variable) -> str:
    if var.task_id is not None:
        return f"task {var.task_id}"
    execution = state.executions.get(var.execution_id)
    if execution is None:
        # evolve removes an execution's variables with it; an orphan still gets a readable scope
        return f"execution {var.execution_id}"
    if execution.parent_id is None:
        return ROOT_SCOPE
    # the same rule evolve uses to name what a scope execution stands for
    scope = execution.scope_activity_id if execution.is_scope else execution.activity_id
    return scope or f"execution {execution.id}"


def readable_value(stored: StoredValue) -> Any:
    """The value as JSON-able Python: bytes summarised, dates as ISO text, Longs as ints."""
    value = from_stored(stored)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, dt.datetime):
        return value.isoformat(timespec="milliseconds")
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    return value


# -- differences --------------------------------------------------------------------------------


def _activity_key(activity: ActivityView) -> str:
    # Camunda's activity instance ids start with the activity id already ("check:4f2…")
    instance = activity.activity_instance_id
    if instance.startswith(activity.activity_id + ":"):
        return instance
    return f"{activity.activity_id} {instance}"


def _variable_key(variable: VariableView) -> str:
    return f"{variable.scope}/{variable.name}"


# section -> (what pairs an item across two views, the key a reader sees), in the view's order
_SECTIONS: dict[str, tuple[Callable[[Any], str], Callable[[Any], str]]] = {
    "activities": (lambda a: a.activity_instance_id, _activity_key),
    "tasks": (_by_id, _by_id),
    "variables": (_by_id, _variable_key),
    "jobs": (_by_id, _by_id),
    "external_tasks": (_by_id, _by_id),
    "subscriptions": (_by_id, _by_id),
    "incidents": (_by_id, _by_id),
}
# The instance's own fields compared by `diff`; the event count always differs, so it is left out.
_INSTANCE_FIELDS = tuple(
    f for f in InstanceView.__struct_fields__ if f not in _SECTIONS and f != "events"
)


def diff(before: InstanceView, after: InstanceView) -> list[Change]:
    """What changed from `before` to `after`: the instance's fields first, then each section in
    the view's order; items are paired by their id, so a re-created variable is removed + added."""
    changes: list[Change] = []
    fields = _changed_fields(before, after, _INSTANCE_FIELDS)
    if fields is not None:
        changes.append(Change("instance", after.id, "changed", *fields))
    for section in _SECTIONS:
        changes += _section_diff(section, getattr(before, section), getattr(after, section))
    return changes


def _section_diff(section: str, old: Sequence[Any], new: Sequence[Any]) -> list[Change]:
    identity, key = _SECTIONS[section]
    old_by_id = {identity(item): item for item in old}
    new_by_id = {identity(item): item for item in new}
    changes: list[Change] = []
    for item_id, item in old_by_id.items():
        other = new_by_id.get(item_id)
        if other is None:
            changes.append(Change(section, key(item), "removed", _builtins(item), None))
            continue
        fields = _changed_fields(item, other, item.__struct_fields__)
        if fields is not None:
            changes.append(Change(section, key(other), "changed", *fields))
    for item_id, item in new_by_id.items():
        if item_id not in old_by_id:
            changes.append(Change(section, key(item), "added", None, _builtins(item)))
    return changes


def _changed_fields(
    old: Any, new: Any, fields: Sequence[str]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    differ = [f for f in fields if getattr(old, f) != getattr(new, f)]
    if not differ:
        return None
    return (
        {f: _builtins(getattr(old, f)) for f in differ},
        {f: _builtins(getattr(new, f)) for f in differ},
    )


def _builtins(value: Any) -> Any:
    return msgspec.to_builtins(value, builtin_types=(dt.datetime,))
