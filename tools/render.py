"""Rich renderings for the command line: an instance as of a position, and the changes between two.

Layout and markup styles only; the Console that prints them decides whether colour is emitted.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flowledger.core.audit_trail import TimelineEntry
from flowledger.core.instance_view import Change, InstanceView, TaskView

from .output import Output, when

# Longer values are cut: a table row stays one glance wide.
VALUE_WIDTH = 60

_STATUS_STYLES = {"ACTIVE": "bold green", "COMPLETED": "bold blue"}
_KIND_STYLES = {"added": "green", "removed": "red", "changed": "yellow"}
_Cell = str | Text | None


def compact(value: Any) -> str:
    """A value as compact JSON (times as `when` writes them), cut with "…" past VALUE_WIDTH."""
    text = when(value) if isinstance(value, datetime) else msgspec.json.encode(value).decode()
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 1] + "…"


def instance_panel(
    view: InstanceView, *, position: int | None, recorded_at: datetime | None
) -> RenderableType:
    """The header line, then one table per non-empty section of the view."""
    activities = _table(
        "Active activities",
        ["activity", "name", "type", "activity instance", "started"],
        [
            (
                a.activity_id,
                a.activity_name,
                a.activity_type,
                a.activity_instance_id,
                when(a.start_time),
            )
            for a in view.activities
        ],
    )
    sections = [
        _tasks(view),
        _table(
            "Variables",
            ["scope", "name", "type", "value"],
            [(v.scope, v.name, v.type, compact(v.value)) for v in view.variables],
        ),
        _table(
            "Jobs",
            ["job", "type", "activity", "due", "retries", "suspended", "error"],
            [
                (
                    j.id,
                    j.job_type,
                    j.activity_id,
                    when(j.due_date),
                    str(j.retries),
                    "yes" if j.suspended else "",
                    j.error_message,
                )
                for j in view.jobs
            ],
        ),
        _table(
            "External tasks",
            ["external task", "topic", "activity", "worker", "locked until", "retries", "error"],
            [
                (
                    t.id,
                    t.topic,
                    t.activity_id,
                    t.worker_id,
                    when(t.lock_expiration),
                    "" if t.retries is None else str(t.retries),
                    t.error_message,
                )
                for t in view.external_tasks
            ],
        ),
        _table(
            "Event subscriptions",
            ["subscription", "type", "event", "activity"],
            [(s.id, s.event_type, s.event_name, s.activity_id) for s in view.subscriptions],
        ),
        _table(
            "Incidents",
            ["incident", "type", "activity", "message"],
            [(i.id, i.incident_type, i.activity_id, i.message) for i in view.incidents],
            style="red",
        ),
        _table(
            "Called instances",
            ["call activity instance", "called process instance"],
            list(view.called_instances.items()),
        ),
    ]
    return Group(
        _header(view, position, recorded_at),
        activities or Text("no active activities", style="dim"),
        *(table for table in sections if table is not None),
    )


def _tasks(view: InstanceView) -> Table | None:
    # a due column only when some task has a due date: most have none
    due = any(t.due_date for t in view.tasks)
    return _table(
        "Open tasks",
        ["task", "name", "assignee", "candidates", "created", *(["due"] if due else [])],
        [
            (
                t.id,
                t.name or t.task_definition_key,
                t.assignee,
                _candidates(t),
                when(t.created),
                *([when(t.due_date)] if due else []),
            )
            for t in view.tasks
        ],
    )


def diff_table(changes: list[Change], *, a: int, b: int) -> RenderableType:
    """The changes from position `a` to position `b`, one row each."""
    if not changes:
        return Text(f"no differences between position {a} and {b}", style="dim")
    table = _new_table(f"Changes from position {a} to {b}")
    for header in ("section", "key", "change", "before", "after"):
        # the key is what a reader searches for next: kept whole while the values can wrap
        table.add_column(header, no_wrap=header in ("section", "key", "change"), overflow="fold")
    for change in changes:
        table.add_row(
            Text(change.section),
            Text(change.key),
            Text(change.kind, style=_KIND_STYLES.get(change.kind, "")),
            _fields(change.section, change.before, whole=change.kind == "removed"),
            _fields(change.section, change.after, whole=change.kind == "added"),
        )
    return table


def _header(view: InstanceView, position: int | None, recorded_at: datetime | None) -> Text:
    """Two lines: which instance, then its status as of the position."""
    header = Text.assemble(
        ("Process instance ", "bold"),
        (view.id, "bold cyan"),
        f"  {view.definition_key}:{view.definition_version}",
    )
    if view.business_key is not None:
        header.append(f"  business key {view.business_key}")
    header.append("\n")
    header.append(view.status, style=_STATUS_STYLES.get(view.status, "bold red"))
    header.append("  suspended" if view.suspended else "  not suspended")
    if view.suspended:
        header.stylize("bold yellow", len(header) - len("suspended"))
    if view.end_time is not None:
        ended_at = f" at {view.end_activity_id}" if view.end_activity_id else ""
        header.append(f"  ended {when(view.end_time)}{ended_at}")
    if position is not None:
        at = f" ({when(recorded_at)})" if recorded_at is not None else ""
        header.append(f"  as of position {position}{at}", style="dim")
    return header


def _candidates(task: TaskView) -> str:
    users = f"users {', '.join(task.candidate_users)}" if task.candidate_users else ""
    groups = f"groups {', '.join(task.candidate_groups)}" if task.candidate_groups else ""
    return "; ".join(part for part in (users, groups) if part)


def _table(
    title: str,
    headers: list[str],
    rows: list[tuple[_Cell, ...]],
    *,
    style: str = "",
) -> Table | None:
    """A table of plain cells (data is never read as markup), or None without rows."""
    if not rows:
        return None
    table = _new_table(title)
    for header in headers:
        table.add_column(header, no_wrap=header in _UNBROKEN, style=style)
    for row in rows:
        table.add_row(*(c if isinstance(c, Text) else Text(c or "") for c in row))
    return table


# ids and times stay on one line, so they can be copied and searched for whole
_UNBROKEN = {"task", "job", "external task", "subscription", "incident", "activity instance"}
_UNBROKEN |= {"started", "created", "due", "locked until"}
_UNBROKEN |= {"call activity instance", "called process instance"}
# What an added or removed item need not repeat: its change's key names it already, and the
# execution ids mean nothing to a reader without the execution tree.
_IN_KEY = {"activities": {"activity_id", "activity_instance_id"}, "variables": {"name", "scope"}}
_UNSHOWN = {"id", "execution_id", "parent_activity_instance_id"}


def _new_table(title: str) -> Table:
    return Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD)


def _fields(section: str, value: Any, *, whole: bool) -> Text:
    """A side of a change: one "field: value" line per field. A whole item (added/removed)
    leaves out its empty fields and those its key says; a changed field shows even if empty."""
    if not isinstance(value, dict):
        return Text("" if value is None else compact(value))
    hidden = _UNSHOWN | _IN_KEY.get(section, set()) if whole else set()
    lines = [
        f"{field}: {compact(item)}"
        for field, item in value.items()
        if field not in hidden and not (whole and (item is False or item in (None, [], {})))
    ]
    return Text("\n".join(lines))


def who(actor: str | None, via: str | None) -> str:
    """`kermit (rest)`, `job-executor`, `alice (cli)`: who issued a command, through what."""
    if actor and via:
        return f"{actor} ({via})"
    return actor or via or ""


def print_timeline(out: Output, instance_id: str, entries: list[TimelineEntry]) -> None:
    out.table(
        ["position", "time", "activity", "what happened", "who", "variables changed"],
        [
            (
                e.position,
                when(e.time),
                e.activity_id if not e.activity_name else f"{e.activity_id} ({e.activity_name})",
                e.what,
                who(e.actor, e.via),
                ", ".join(f"{k}={compact(v)}" for k, v in e.variables.items()),
            )
            for e in entries
        ],
        title=f"process instance {instance_id}",
    )
