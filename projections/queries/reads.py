"""The engine's reads, as `core.views` Structs: its lists from the read model's searches
(`projections.queries`), and the lookups made on every call (a definition, the open tasks of an
instance, variables, due jobs) as statements compiled once (`eventlog.fastsql`): a search builds
its statement per call, ten times the cost of a prepared lookup on the command path.

Reads only. The lookups only commands make (which instance owns an entity, latest versions,
fetchable external tasks, ...) are in `engine.commands.lookups`, which re-exports those of these
that commands make too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy import Integer, Select, and_, bindparam, exists, or_, select
from sqlalchemy.engine import Connection

from flowledger.core import views
from flowledger.core.variables import StoredValue
from flowledger.eventlog.fastsql import PreparedCache

from ..tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_VARINST,
    ACT_RE_PROCDEF,
    ACT_RU_EXECUTION,
    ACT_RU_EXT_TASK,
    ACT_RU_IDENTITYLINK,
    ACT_RU_JOB,
    ACT_RU_TASK,
    ACT_RU_VARIABLE,
)
from . import decision_reads as decision_queries
from . import definitions as repository
from . import external_tasks as external_search
from . import history_instances as historic
from . import history_tasks as historic_tasks
from . import runtime
from .declaration import find, first, view
from .filters import SUSPENDED
from .filters import utc as utc
from .job_reads import due_order, runnable
from .job_reads import historic_incidents as historic_incidents
from .job_reads import historic_job_logs as historic_job_logs
from .job_reads import incidents as incidents
from .job_reads import job as job
from .job_reads import job_definitions as job_definitions
from .job_reads import job_stacktrace as job_stacktrace
from .job_reads import jobs as jobs
from .variables import stored_value

# Lookups made on every call, compiled once: see eventlog.fastsql.
_prepared = PreparedCache()


def _lookup(conn: Connection, name: str, build: Callable[[], Select[Any]], **params: Any) -> Any:
    """The first row of a prepared SELECT as a column-name mapping, or None."""
    return _prepared.get(conn.dialect, name, build).first(conn, params)


def _due_jobs() -> Select[Any]:
    j = ACT_RU_JOB
    return (
        select(j.c.ID_, j.c.PROCESS_INSTANCE_ID_)
        .where(*runnable(bindparam("now", type_=j.c.DUEDATE_.type)))
        .order_by(*due_order())
        .limit(bindparam("limit", type_=Integer))
    )


def due_jobs(conn: Connection, now: datetime, limit: int) -> list[tuple[str, str]]:
    """(job id, process instance id) of up to `limit` jobs (ACT_RU_JOB) the job executor may run
    at `now` (retries left, due, active), due date first (jobs without one first), then id.
    Leases are not looked at: acquiring one is the executor's own statement."""
    rows = _prepared.get(conn.dialect, "due-jobs", _due_jobs).all(
        conn, {"now": now.astimezone(UTC).replace(tzinfo=None), "limit": limit}
    )
    return [(r["ID_"], r["PROCESS_INSTANCE_ID_"]) for r in rows]


def execution_chain(conn: Connection, execution_id: str) -> list[str]:
    """The execution and its ancestors, innermost first (empty when it does not exist)."""
    e = ACT_RU_EXECUTION
    chain: list[str] = []
    current: str | None = execution_id
    while current is not None:
        row = conn.execute(select(e.c.PARENT_ID_).where(e.c.ID_ == current)).first()
        if row is None:
            break
        chain.append(current)
        current = row[0]
    return chain


# -- repository -----------------------------------------------------------------------------------


def process_definition(conn: Connection, definition_id: str) -> views.ProcessDefinition | None:
    """The process definition `definition_id` (ACT_RE_PROCDEF), or None."""
    p = ACT_RE_PROCDEF
    row = _lookup(
        conn,
        "definition",
        lambda: select(p).where(p.c.ID_ == bindparam("id")),
        id=definition_id,
    )
    return None if row is None else repository.definition_row(row)


def latest_process_definition(conn: Connection, key: str) -> views.ProcessDefinition | None:
    """The highest version of the process definitions of `key` (ACT_RE_PROCDEF), or None."""
    p = ACT_RE_PROCDEF
    row = _lookup(
        conn,
        "latest-definition",
        lambda: (
            select(p).where(p.c.KEY_ == bindparam("key")).order_by(p.c.VERSION_.desc()).limit(1)
        ),
        key=key,
    )
    return None if row is None else repository.definition_row(row)


def process_definitions(
    conn: Connection, key: str | None = None, deployment_id: str | None = None
) -> list[views.ProcessDefinition]:
    """The process definitions (ACT_RE_PROCDEF, joined to ACT_RE_DEPLOYMENT) of a key or a
    deployment, by key and version."""
    query = repository.ProcessDefinitionQuery(key=key, deployment_id=deployment_id)
    return find(conn, repository.DEFINITIONS, query, [("key", False), ("version", False)])


def deployment(conn: Connection, deployment_id: str) -> views.Deployment | None:
    """The deployment `deployment_id` (ACT_RE_DEPLOYMENT), or None, with its resources' names
    (ACT_GE_BYTEARRAY) and its definitions (ACT_RE_PROCDEF, ACT_RE_DECISION_DEF,
    ACT_RE_DECISION_REQ_DEF)."""
    found = repository.deployment(conn, deployment_id)
    if found is None:
        return None
    return views.Deployment(
        id=found.id,
        name=found.name,
        source=found.source,
        deployment_time=found.deployment_time,
        process_definitions=process_definitions(conn, deployment_id=deployment_id),
        resource_names=[r.name for r in repository.deployment_resources(conn, deployment_id)],
        decision_definitions=decision_queries.decision_definitions(
            conn, deployment_id=deployment_id
        ),
        decision_requirements_definitions=decision_queries.requirements_definitions(
            conn, deployment_id=deployment_id
        ),
    )


# -- runtime --------------------------------------------------------------------------------------


def process_instance(conn: Connection, process_instance_id: str) -> views.ProcessInstance | None:
    """From history while it has any (it knows ended instances), else from the runtime tables
    (history level none)."""
    query = historic.HistoricProcessInstanceQuery(process_instance_id=process_instance_id)
    past = first(conn, historic.PROCESS_INSTANCES, query)
    if past is not None:
        return views.ProcessInstance(
            id=past.id,
            definition_id=past.process_definition_id,
            definition_key=past.process_definition_key,
            business_key=past.business_key,
            ended=past.end_time is not None,
            suspended=past.state == "SUSPENDED",
        )
    running = runtime.process_instance(conn, process_instance_id)
    if running is None:
        return None
    return views.ProcessInstance(
        id=running.id,
        definition_id=running.definition_id,
        definition_key=running.definition_key,
        business_key=running.business_key,
        ended=False,
        suspended=running.suspended,
    )


def executions(conn: Connection, process_instance_id: str) -> list[views.Execution]:
    query = runtime.ExecutionQuery(process_instance_id=process_instance_id)
    rows = find(conn, runtime.EXECUTIONS, query)
    return [view(views.Execution, row) for row in rows]


def _task_query(
    params: Mapping[str, Any], unassigned: bool, include_assigned_tasks: bool
) -> Select[Any]:
    """The task query for one combination of filters, with bound parameters: built once per
    combination, so SQLAlchemy's compiled cache serves every later call."""
    t, link = ACT_RU_TASK, ACT_RU_IDENTITYLINK
    conditions = []
    for key, column in (
        ("task_id", t.c.ID_),
        ("process_instance_id", t.c.PROC_INST_ID_),
        ("assignee", t.c.ASSIGNEE_),
        ("task_definition_key", t.c.TASK_DEF_KEY_),
        ("name", t.c.NAME_),
    ):
        if params.get(key) is not None:
            conditions.append(column == bindparam(key))
    if unassigned:
        conditions.append(t.c.ASSIGNEE_.is_(None))
    user = params.get("candidate_user") is not None
    groups = "groups" in params
    if user or groups:
        matches = []
        if user:
            matches.append(link.c.USER_ID_ == bindparam("candidate_user"))
        if groups:
            matches.append(link.c.GROUP_ID_.in_(bindparam("groups", expanding=True)))
        conditions.append(
            exists().where(
                and_(link.c.TASK_ID_ == t.c.ID_, link.c.TYPE_ == "candidate", or_(*matches))
            )
        )
        if not include_assigned_tasks:
            conditions.append(t.c.ASSIGNEE_.is_(None))
    stmt = select(t)
    if conditions:
        stmt = stmt.where(and_(*conditions))
    return stmt.order_by(t.c.CREATE_TIME_, t.c.ID_)


_LINK_CHUNK = 32  # task ids per identity-link query: one prepared statement per list length


def _links(count: int) -> Select[Any]:
    link = ACT_RU_IDENTITYLINK
    return (
        select(link.c.TASK_ID_, link.c.USER_ID_, link.c.GROUP_ID_)
        .where(
            link.c.TASK_ID_.in_([bindparam(f"id{i}") for i in range(count)]),
            link.c.TYPE_ == "candidate",
        )
        .order_by(link.c.ID_)
    )


def tasks(
    conn: Connection,
    *,
    task_id: str | None = None,
    process_instance_id: str | None = None,
    assignee: str | None = None,
    candidate_user: str | None = None,
    candidate_group: str | None = None,
    candidate_groups: Sequence[str] | None = None,
    task_definition_key: str | None = None,
    name: str | None = None,
    unassigned: bool | None = None,
    include_assigned_tasks: bool = False,
) -> list[views.Task]:
    """Camunda's task query as `Engine.tasks` takes it: candidate filters match unassigned
    tasks unless told otherwise. Compiled once per combination of filters (the command path
    reads tasks too); engine-rest's `/task` runs the read model's `search.tasks.TASKS`."""
    groups = list(candidate_groups or [])
    if candidate_group is not None:
        groups.append(candidate_group)
    params: dict[str, Any] = {
        "task_id": task_id,
        "process_instance_id": process_instance_id,
        "assignee": assignee,
        "task_definition_key": task_definition_key,
        "name": name,
        "candidate_user": candidate_user,
    }
    if groups:
        params["groups"] = groups
    shape = (
        *(value is not None for value in params.values()),
        bool(unassigned),
        include_assigned_tasks,
    )
    bound = {k: v for k, v in params.items() if v is not None}
    build = partial(_task_query, params, bool(unassigned), include_assigned_tasks)
    rows: Sequence[Mapping[str, Any]]
    if groups:  # a list of groups binds as an expanding IN, which only SQLAlchemy renders
        rows = [dict(r._mapping) for r in conn.execute(build(), bound)]
    else:
        rows = _prepared.get(conn.dialect, ("tasks", shape), build).all(conn, bound)
    if not rows:
        return []
    ids = [r["ID_"] for r in rows]
    users: dict[str, list[str]] = {i: [] for i in ids}
    group_links: dict[str, list[str]] = {i: [] for i in ids}
    for chunk in range(0, len(ids), _LINK_CHUNK):
        some = ids[chunk : chunk + _LINK_CHUNK]
        query = _prepared.get(conn.dialect, ("task-links", len(some)), partial(_links, len(some)))
        for link in query.all(conn, {f"id{i}": task for i, task in enumerate(some)}):
            if link["USER_ID_"] is not None:
                users[link["TASK_ID_"]].append(link["USER_ID_"])
            if link["GROUP_ID_"] is not None:
                group_links[link["TASK_ID_"]].append(link["GROUP_ID_"])
    return task_views(rows, users, group_links)


def task_views(
    rows: Sequence[Mapping[str, Any]],
    users: Mapping[str, list[str]],
    groups: Mapping[str, list[str]],
) -> list[views.Task]:
    """Task views of ACT_RU_TASK rows, with their candidates (ACT_RU_IDENTITYLINK) by task."""
    out = []
    for m in rows:
        created = utc(m["CREATE_TIME_"])
        assert created is not None
        out.append(
            views.Task(
                id=m["ID_"],
                name=m["NAME_"],
                task_definition_key=m["TASK_DEF_KEY_"],
                process_instance_id=m["PROC_INST_ID_"],
                execution_id=m["EXECUTION_ID_"],
                process_definition_id=m["PROC_DEF_ID_"],
                created=created,
                assignee=m["ASSIGNEE_"],
                owner=m["OWNER_"],
                description=m["DESCRIPTION_"],
                priority=m["PRIORITY_"],
                due=utc(m["DUE_DATE_"]),
                follow_up=utc(m["FOLLOW_UP_DATE_"]),
                last_updated=utc(m["LAST_UPDATED_"]),
                candidate_users=users[m["ID_"]],
                candidate_groups=groups[m["ID_"]],
                suspended=m["SUSPENSION_STATE_"] == SUSPENDED,
            )
        )
    return out


def variable_rows(
    conn: Connection,
    *,
    process_instance_id: str | None = None,
    execution_ids: Sequence[str] | None = None,
    task_id: str | None = None,
) -> list[tuple[str, StoredValue, str, str | None]]:
    """(name, value, execution id, task id) of runtime variables: of an instance, scoped to
    some executions (not their tasks' local variables), or local to a task."""
    v, b = ACT_RU_VARIABLE, ACT_GE_BYTEARRAY
    stmt = select(v, b.c.BYTES_).select_from(v.outerjoin(b, b.c.ID_ == v.c.BYTEARRAY_ID_))
    if process_instance_id is not None:
        stmt = stmt.where(v.c.PROC_INST_ID_ == process_instance_id)
    # VAR_SCOPE_ is the owning execution's or task's id: ACT_UNIQ_VARIABLE finds both.
    if execution_ids is not None:
        stmt = stmt.where(v.c.VAR_SCOPE_.in_(list(execution_ids)), v.c.TASK_ID_.is_(None))
    if task_id is not None:
        stmt = stmt.where(v.c.VAR_SCOPE_ == task_id)
    out = []
    for r in conn.execute(stmt.order_by(v.c.NAME_)):
        m = r._mapping
        out.append((m["NAME_"], stored_value(m, "TYPE_"), m["EXECUTION_ID_"], m["TASK_ID_"]))
    return out


def external_tasks(
    conn: Connection,
    *,
    process_instance_id: str | None = None,
    topic_name: str | None = None,
    external_task_id: str | None = None,
) -> list[views.ExternalTask]:
    query = external_search.ExternalTaskQuery(
        external_task_id=external_task_id,
        topic_name=topic_name,
        process_instance_id=process_instance_id,
    )
    rows = find(conn, external_search.EXTERNAL_TASKS, query, [("createTime", False)])
    return [_external_task(row) for row in rows]


def _external_task(row: external_search.ExternalTaskRow) -> views.ExternalTask:
    return views.ExternalTask(
        id=row.id,
        topic_name=row.topic_name,
        activity_id=row.activity_id,
        activity_instance_id=row.activity_instance_id,
        execution_id=row.execution_id,
        process_instance_id=row.process_instance_id,
        process_definition_id=row.process_definition_id,
        process_definition_key=row.process_definition_key,
        priority=row.priority,
        created=row.create_time,
        worker_id=row.worker_id,
        lock_expiration_time=row.lock_expiration_time,
        retries=row.retries,
        error_message=row.error_message,
        business_key=row.business_key,
    )


def external_task_error_details(conn: Connection, external_task_id: str) -> tuple[bool, str | None]:
    """(whether the external task exists, its error details from ACT_GE_BYTEARRAY)."""
    x, b = ACT_RU_EXT_TASK, ACT_GE_BYTEARRAY
    stmt = (
        select(x.c.ID_, b.c.BYTES_)
        .select_from(x.outerjoin(b, b.c.ID_ == x.c.ERROR_DETAILS_ID_))
        .where(x.c.ID_ == external_task_id)
    )
    row = conn.execute(stmt).first()
    if row is None:
        return False, None
    return True, None if row[1] is None else bytes(row[1]).decode("utf-8")


# -- history --------------------------------------------------------------------------------------


def historic_process_instances(
    conn: Connection,
    *,
    process_instance_id: str | None = None,
    process_definition_key: str | None = None,
    finished: bool | None = None,
) -> list[views.HistoricProcessInstance]:
    query = historic.HistoricProcessInstanceQuery(
        process_instance_id=process_instance_id,
        process_definition_key=process_definition_key,
        finished=finished is True,
        unfinished=finished is False,
    )
    return [
        view(views.HistoricProcessInstance, row)
        for row in find(conn, historic.PROCESS_INSTANCES, query)
    ]


def historic_activity_instances(
    conn: Connection, process_instance_id: str
) -> list[views.HistoricActivityInstance]:
    query = historic.HistoricActivityInstanceQuery(process_instance_id=process_instance_id)
    return [
        view(views.HistoricActivityInstance, row)
        for row in find(conn, historic.ACTIVITY_INSTANCES, query)
    ]


def historic_task_instances(
    conn: Connection, process_instance_id: str | None = None
) -> list[views.HistoricTaskInstance]:
    query = historic_tasks.HistoricTaskInstanceQuery(process_instance_id=process_instance_id)
    return [
        view(views.HistoricTaskInstance, row)
        for row in find(conn, historic_tasks.TASK_INSTANCES, query)
    ]


def historic_variable_rows(
    conn: Connection, process_instance_id: str | None = None
) -> list[tuple[Any, StoredValue]]:
    v, b = ACT_HI_VARINST, ACT_GE_BYTEARRAY
    stmt = select(v, b.c.BYTES_).select_from(v.outerjoin(b, b.c.ID_ == v.c.BYTEARRAY_ID_))
    if process_instance_id is not None:
        stmt = stmt.where(v.c.PROC_INST_ID_ == process_instance_id)
    out = []
    for r in conn.execute(stmt.order_by(v.c.CREATE_TIME_, v.c.NAME_, v.c.ID_)):
        m = r._mapping
        out.append((m, stored_value(m, "VAR_TYPE_")))
    return out
