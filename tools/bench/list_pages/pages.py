"""What the list-pages benchmark times: every list page a Camunda client reads, and its ids.

Declarations only: the requests (`Page`) and the ids their filters name (`Sample`, read from
the database); timing them is `timing`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from flowledger.projections.tables import ACT_HI_PROCINST, ACT_RU_TASK

from ..errors import BenchError


@dataclass(frozen=True)
class Sample:
    """Ids the filtered pages ask for, read from the database."""

    running_instance: str  # an invoice instance waiting in its user task
    finished_instance: str
    running_business_key: str
    finished_business_key: str


@dataclass(frozen=True)
class Page:
    """One request: `label` says what a client asks; `deep` also times `firstResult=5000`. A
    cockpit page's request (`cockpit_pages`) names its `view`, how it is answered (`shape`) and
    its path as the report shows it (`shown`, ids left out)."""

    label: str
    method: str
    path: str  # under `prefix`
    params: Mapping[str, str] = field(default_factory=dict)
    body: Mapping[str, Any] | None = None
    deep: bool = False
    prefix: str = "/engine-rest"
    view: str | None = None
    shape: str | None = None
    shown: str | None = None

    @property
    def is_count(self) -> bool:
        return self.path.endswith("/count")


DEEP_FIRST = 5000
PAGE_SIZE = 50


def _desc(by: str) -> dict[str, str]:
    return {"sortBy": by, "sortOrder": "desc"}


def _sorting(by: str, order: str = "desc") -> list[dict[str, str]]:
    return [{"sortBy": by, "sortOrder": order}]


def pages(s: Sample) -> list[Page]:
    """Every list a Camunda client pages through, in the sort orders Cockpit and Tasklist use,
    with the counts they ask for beside them."""
    running, finished = s.running_instance, s.finished_instance
    return [
        # runtime process instances (Cockpit's definition view: by definition, by id)
        Page("all", "GET", "/process-instance", deep=True),
        Page(
            "by definition key",
            "GET",
            "/process-instance",
            {"processDefinitionKey": "invoice"},
            deep=True,
        ),
        Page(
            "by business key", "GET", "/process-instance", {"businessKey": s.running_business_key}
        ),
        Page("all", "GET", "/process-instance/count"),
        Page(
            "by definition key",
            "POST",
            "/process-instance",
            body={"processDefinitionKey": "invoice", "sorting": _sorting("instanceId", "asc")},
            deep=True,
        ),
        Page(
            "by definition key",
            "POST",
            "/process-instance/count",
            body={"processDefinitionKey": "invoice"},
        ),
        Page("of an instance", "GET", "/execution", {"processInstanceId": running}),
        # tasks (Tasklist: newest first; its filters are assignee and candidate groups)
        Page("all, created desc", "GET", "/task", _desc("created"), deep=True),
        Page(
            "candidateGroup, created desc",
            "GET",
            "/task",
            {"candidateGroup": "accounting", **_desc("created")},
            deep=True,
        ),
        Page(
            "assignee, created desc",
            "GET",
            "/task",
            {"assignee": "demo", **_desc("created")},
            deep=True,
        ),
        Page(
            "candidateGroups, created desc",
            "POST",
            "/task",
            body={"candidateGroups": ["accounting", "sales"], "sorting": _sorting("created")},
            deep=True,
        ),
        Page(
            "assignee, created desc",
            "POST",
            "/task",
            body={"assignee": "demo", "sorting": _sorting("created")},
            deep=True,
        ),
        Page("of an instance", "GET", "/task", {"processInstanceId": running}),
        Page(
            "candidateGroup of an instance",
            "GET",
            "/task",
            {"processInstanceId": running, "candidateGroup": "accounting"},
        ),
        Page("all", "GET", "/task/count"),
        Page("candidateGroup", "GET", "/task/count", {"candidateGroup": "accounting"}),
        Page(
            "candidateGroups",
            "POST",
            "/task/count",
            body={"candidateGroups": ["accounting", "sales"]},
        ),
        Page("assignee", "GET", "/task/count", {"assignee": "demo"}),
        # historic process instances (Cockpit's history: newest first)
        Page(
            "all, startTime desc", "GET", "/history/process-instance", _desc("startTime"), deep=True
        ),
        Page(
            "finished, startTime desc",
            "GET",
            "/history/process-instance",
            {"finished": "true", **_desc("startTime")},
            deep=True,
        ),
        Page(
            "unfinished, startTime desc",
            "GET",
            "/history/process-instance",
            {"unfinished": "true", **_desc("startTime")},
            deep=True,
        ),
        Page(
            "finished, endTime desc",
            "GET",
            "/history/process-instance",
            {"finished": "true", **_desc("endTime")},
            deep=True,
        ),
        Page(
            "definition key, startTime desc",
            "GET",
            "/history/process-instance",
            {"processDefinitionKey": "invoice", **_desc("startTime")},
            deep=True,
        ),
        Page(
            "by business key",
            "GET",
            "/history/process-instance",
            {"processInstanceBusinessKey": s.finished_business_key},
        ),
        # A selective filter beside one an index is led by: the planner must pick the first.
        Page(
            "definition key and business key",
            "GET",
            "/history/process-instance",
            {
                "processDefinitionKey": "invoice",
                "processInstanceBusinessKey": s.finished_business_key,
            },
        ),
        Page(
            "unfinished, by business key",
            "GET",
            "/history/process-instance",
            {"unfinished": "true", "processInstanceBusinessKey": s.running_business_key},
        ),
        Page(
            "finished, startTime desc",
            "POST",
            "/history/process-instance",
            body={"finished": True, "sorting": _sorting("startTime")},
            deep=True,
        ),
        Page("all", "GET", "/history/process-instance/count"),
        Page("finished", "GET", "/history/process-instance/count", {"finished": "true"}),
        Page("unfinished", "POST", "/history/process-instance/count", body={"unfinished": True}),
        # historic activity instances
        Page(
            "all, startTime desc",
            "GET",
            "/history/activity-instance",
            _desc("startTime"),
            deep=True,
        ),
        Page(
            "finished, endTime desc",
            "GET",
            "/history/activity-instance",
            {"finished": "true", **_desc("endTime")},
            deep=True,
        ),
        Page(
            "of an instance, startTime asc",
            "GET",
            "/history/activity-instance",
            {"processInstanceId": finished, "sortBy": "startTime", "sortOrder": "asc"},
        ),
        Page(
            "of an instance",
            "POST",
            "/history/activity-instance",
            body={"processInstanceId": finished, "sorting": _sorting("occurrence", "asc")},
        ),
        Page("all", "GET", "/history/activity-instance/count"),
        # historic task instances
        Page("all, startTime desc", "GET", "/history/task", _desc("startTime"), deep=True),
        Page(
            "finished, endTime desc",
            "GET",
            "/history/task",
            {"finished": "true", **_desc("endTime")},
            deep=True,
        ),
        Page("of an instance", "GET", "/history/task", {"processInstanceId": finished}),
        Page(
            "unfinished, startTime desc",
            "POST",
            "/history/task",
            body={"unfinished": True, "sorting": _sorting("startTime")},
            deep=True,
        ),
        Page("all", "GET", "/history/task/count"),
        # historic variables and details
        Page("all", "GET", "/history/variable-instance", deep=True),
        Page(
            "by name", "GET", "/history/variable-instance", {"variableName": "customer"}, deep=True
        ),
        Page(
            "of an instance", "GET", "/history/variable-instance", {"processInstanceId": finished}
        ),
        Page(
            "of instances",
            "POST",
            "/history/variable-instance",
            body={"processInstanceIdIn": [finished, running]},
        ),
        Page("all", "GET", "/history/variable-instance/count"),
        Page("all", "GET", "/history/detail", deep=True),
        Page("of an instance", "GET", "/history/detail", {"processInstanceId": finished}),
        Page("all", "GET", "/history/detail/count"),
        # external tasks
        Page("all", "GET", "/external-task", deep=True),
        Page("by topic", "GET", "/external-task", {"topicName": "archive"}, deep=True),
        Page(
            "by topic, createTime asc",
            "POST",
            "/external-task",
            body={"topicName": "shipping", "sorting": _sorting("createTime", "asc")},
            deep=True,
        ),
        Page("all", "GET", "/external-task/count"),
        # repository
        Page(
            "latest, by name",
            "GET",
            "/process-definition",
            {"latestVersion": "true", "sortBy": "name", "sortOrder": "asc"},
        ),
        Page("all", "GET", "/process-definition/count"),
        Page("deploymentTime desc", "GET", "/deployment", _desc("deploymentTime")),
        Page("all", "GET", "/deployment/count"),
        # runtime variables
        Page("all", "GET", "/variable-instance", deep=True),
        Page("by name", "GET", "/variable-instance", {"variableName": "customer"}, deep=True),
        Page("of an instance", "GET", "/variable-instance", {"processInstanceIdIn": running}),
        Page("of instances", "POST", "/variable-instance", body={"processInstanceIdIn": [running]}),
        Page("all", "GET", "/variable-instance/count"),
    ]


def sample(conn: Connection) -> Sample:
    t, p = ACT_RU_TASK, ACT_HI_PROCINST
    waiting = conn.execute(
        sa.select(t.c.PROC_INST_ID_).where(t.c.TASK_DEF_KEY_ == "approve").order_by(t.c.ID_)
    ).scalar()
    if waiting is None:
        raise BenchError("the database holds no invoice waiting for approval: rebuild it")
    ended = conn.execute(
        sa.select(p.c.PROC_INST_ID_, p.c.BUSINESS_KEY_)
        .where(p.c.END_TIME_.is_not(None), p.c.PROC_DEF_KEY_ == "invoice")
        .order_by(p.c.ID_)
        .limit(1)
    ).one()
    running_key = conn.execute(
        sa.select(p.c.BUSINESS_KEY_).where(p.c.PROC_INST_ID_ == waiting)
    ).scalar_one()
    return Sample(waiting, ended[0], running_key, ended[1])
