"""What the benchmark times for the web cockpit: the requests each of its pages makes.

Declarations only, as `pages` is for the list pages: the requests the UI's pages send (ui/src:
the dashboard, a definition, the instance search, one instance and its time slider), grouped
by page, and the ids they name (`CockpitSample`, read from the database). Each says how the
server answers it (`Shape`): none of them reads all instances of anything into Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from flowledger.projections.tables import ACT_HI_PROCINST, ACT_HI_VARINST

from ..errors import BenchError
from .pages import Page, Sample
from .scenario import LONG_BUSINESS_KEY

DEFINITION_PAGE = 20  # ui/src/pages/Definition.tsx
SEARCH_PAGE = 25  # ui/src/lib/instanceSearch.ts
EXTENSIONS = "/flowledger/v1"


class Shape(StrEnum):
    """How the server answers a request: what its time grows with."""

    AGGREGATE = "aggregate in SQL"  # GROUP BY/COUNT over the rows; a row per activity or key
    PAGE = "page in SQL"  # ORDER BY ... LIMIT: one page of rows
    COUNT = "count in SQL"
    ONE = "one instance"  # an instance's rows, or its log folded up to a position


@dataclass(frozen=True)
class CockpitSample:
    """Ids the cockpit's pages name, read from the database."""

    definition_id: str  # the definition with the most instances
    definition_instances: int
    instance: str  # an invoice waiting for approval: a typical instance page
    instance_position: int  # the middle of its log
    long_instance: str  # the invoice with 10,000 events and some: the slider over a long past
    long_position: int  # the middle of its log
    long_events: int
    variable: str  # Camunda's name_eq_value for a variable value some instances share


def _page(
    view: str,
    label: str,
    path: str,
    shape: Shape,
    params: dict[str, str] | None = None,
    ids: dict[str, str] | None = None,
) -> Page:
    """A GET of `path`, a template whose `{name}`s `ids` fill (the report shows the template)."""
    actual = path.format(**(ids or {}))
    prefix = EXTENSIONS if actual.startswith(EXTENSIONS) else "/engine-rest"
    return Page(
        label,
        "GET",
        actual[len(EXTENSIONS) :] if prefix == EXTENSIONS else actual,
        params or {},
        prefix=prefix,
        view=view,
        shape=shape.value,
        shown=path,
    )


def _search(state: str, filters: dict[str, str]) -> list[Page]:
    """The instance search's two requests for one state (`/cockpit/instances?state=...`)."""
    view = "instance search"
    newest = {"sortBy": "startTime", "sortOrder": "desc"}
    paged = {**filters, **newest, "firstResult": "0", "maxResults": str(SEARCH_PAGE)}
    return [
        _page(view, state, "/history/process-instance", Shape.PAGE, paged),
        _page(view, state, "/history/process-instance/count", Shape.COUNT, filters),
    ]


def _instance(view: str, instance: str, position: int) -> list[Page]:
    """One instance's page (`/cockpit/instances/{id}`): what it loads, then the slider's step."""
    at = {"at": str(position), "position": str(position)}  # the UI sends both names
    ids = {"id": instance}
    ext = EXTENSIONS + "/process-instance/{id}"
    return [
        _page(view, "instance", "/history/process-instance/{id}", Shape.ONE, ids=ids),
        _page(
            view,
            "called instances",
            "/history/process-instance",
            Shape.PAGE,
            {"superProcessInstanceId": instance},
        ),
        _page(
            view, "activity tree", "/process-instance/{id}/activity-instances", Shape.ONE, ids=ids
        ),
        _page(
            view,
            "variables",
            "/process-instance/{id}/variables",
            Shape.ONE,
            {"deserializeValues": "false"},
            ids,
        ),
        _page(view, "timeline (every event)", ext + "/timeline", Shape.ONE, ids=ids),
        _page(view, "slider: state at the middle", ext + "/state", Shape.ONE, at, ids),
        _page(
            view,
            "slider: trail to the middle",
            ext + "/trail",
            Shape.ONE,
            {"position": str(position)},
            ids,
        ),
    ]


def cockpit_pages(s: CockpitSample) -> list[Page]:
    """The cockpit's pages in the order a reader opens them, each with the requests it sends."""
    ids = {"id": s.definition_id}
    definition = "definition"
    return [
        _page("dashboard", "per definition", f"{EXTENSIONS}/dashboard", Shape.AGGREGATE),
        _page(
            "dashboard",
            "statistics (its fallback)",
            "/process-definition/statistics",
            Shape.AGGREGATE,
            {"incidents": "true"},
        ),
        _page(
            definition,
            "badges: running, incidents",
            "/process-definition/{id}/statistics",
            Shape.AGGREGATE,
            {"incidents": "true"},
            ids,
        ),
        _page(
            definition,
            "heat map: history statistics",
            "/history/process-definition/{id}/statistics",
            Shape.AGGREGATE,
            {"finished": "true", "canceled": "true", "incidents": "true"},
            ids,
        ),
        _page(
            definition,
            "heat map: durations",
            EXTENSIONS + "/process-definition/{id}/activity-durations",
            Shape.AGGREGATE,
            ids=ids,
        ),
        _page(
            definition,
            "instances, newest first",
            "/history/process-instance",
            Shape.PAGE,
            {
                "processDefinitionId": s.definition_id,
                "sortBy": "startTime",
                "sortOrder": "desc",
                "firstResult": "0",
                "maxResults": str(DEFINITION_PAGE),
            },
        ),
        _page(
            definition,
            "instances",
            "/history/process-instance/count",
            Shape.COUNT,
            {"processDefinitionId": s.definition_id},
        ),
        *_search("running", {"unfinished": "true"}),
        *_search("ended", {"finished": "true"}),
        *_search("incident", {"withIncidents": "true"}),
        *_search("by a variable's value", {"variables": s.variable}),
        *_instance("instance", s.instance, s.instance_position),
        *_instance("long instance", s.long_instance, s.long_position),
    ]


def notes(s: CockpitSample) -> list[str]:
    """What the report says above the cockpit's table: what the ids stand for."""
    return [
        f"definition: {s.definition_id}, {s.definition_instances:,} instances (the most of any)",
        f"variable filter: {s.variable}",
        f"instance: {s.instance} (an invoice waiting for approval), slider at position "
        f"{s.instance_position}",
        f"long instance: {s.long_instance}, {s.long_events:,} events, slider at position "
        f"{s.long_position} (its middle)",
    ]


def rows(body: Any) -> int:
    """What a response holds: a list's items, a count, or an object's lists (at least 1)."""
    if isinstance(body, list):
        return len(body)
    if isinstance(body, dict):
        if isinstance(body.get("count"), int):
            return int(body["count"])
        return max(1, sum(len(v) for v in body.values() if isinstance(v, list | dict)))
    return 1


def cockpit_sample(conn: Connection, lists: Sample, engine: Any) -> CockpitSample:
    p, v = ACT_HI_PROCINST, ACT_HI_VARINST
    definition, instances = conn.execute(
        sa.select(p.c.PROC_DEF_ID_, sa.func.count())
        .group_by(p.c.PROC_DEF_ID_)
        .order_by(sa.func.count().desc(), p.c.PROC_DEF_ID_)
        .limit(1)
    ).one()
    long_instance = conn.execute(
        sa.select(p.c.PROC_INST_ID_).where(p.c.BUSINESS_KEY_ == LONG_BUSINESS_KEY)
    ).scalar()
    if long_instance is None:
        raise BenchError("the database holds no instance with a long past: rebuild it")
    customer = conn.execute(
        sa.select(v.c.TEXT_).where(
            v.c.PROC_INST_ID_ == lists.finished_instance, v.c.NAME_ == "customer"
        )
    ).scalar_one()
    typical = [e.position for e in engine.events(lists.running_instance)]
    long = [e.position for e in engine.events(long_instance)]
    return CockpitSample(
        definition_id=definition,
        definition_instances=int(instances),
        instance=lists.running_instance,
        instance_position=typical[len(typical) // 2],
        long_instance=long_instance,
        long_position=long[len(long) // 2],
        long_events=len(long),
        variable=f"customer_eq_{customer}",
    )
