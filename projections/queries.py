"""Read side of the projections: the queries the engine facade (and later the REST API) runs.

Reads only, parameterised SQLAlchemy Core statements; results come back as `core.views` Structs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any, cast

from sqlalchemy import Select, Table, and_, bindparam, exists, func, or_, select
from sqlalchemy.engine import Connection, Row

from flowledger.core import views
from flowledger.core.variables import StoredValue, stored_from_columns
from flowledger.eventlog.fastsql import PreparedCache

from .tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_ACTINST,
    ACT_HI_PROCINST,
    ACT_HI_TASKINST,
    ACT_HI_VARINST,
    ACT_RE_DEPLOYMENT,
    ACT_RE_PROCDEF,
    ACT_RU_EXECUTION,
    ACT_RU_EXT_TASK,
    ACT_RU_IDENTITYLINK,
    ACT_RU_TASK,
    ACT_RU_VARIABLE,
)


def utc(moment: datetime | None) -> datetime | None:
    """Table timestamps are naive UTC; views carry aware datetimes."""
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def _scalar(conn: Connection, stmt: Select[Any]) -> Any:
    return conn.execute(stmt).scalar()


# Lookups every command makes, compiled once: see eventlog.fastsql.
_prepared = PreparedCache()


def _lookup(conn: Connection, name: str, build: Callable[[], Select[Any]], **params: Any) -> Any:
    """The first row of a prepared SELECT as a column-name mapping, or None."""
    return _prepared.get(conn.dialect, name, build).first(conn, params)


# -- lookups: which instance owns an entity ------------------------------------------------------


def _owner(conn: Connection, table: Table, entity_id: str) -> str | None:
    row = _lookup(
        conn,
        f"owner:{table.name}",
        lambda: select(table.c.PROC_INST_ID_).where(table.c.ID_ == bindparam("id")),
        id=entity_id,
    )
    return None if row is None else cast(str | None, row["PROC_INST_ID_"])


def instance_of_task(conn: Connection, task_id: str) -> str | None:
    return _owner(conn, ACT_RU_TASK, task_id)


def instance_of_execution(conn: Connection, execution_id: str) -> str | None:
    return _owner(conn, ACT_RU_EXECUTION, execution_id)


def instance_of_external_task(conn: Connection, external_task_id: str) -> str | None:
    return _owner(conn, ACT_RU_EXT_TASK, external_task_id)


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


def _definition(row: Row[Any] | Mapping[str, Any]) -> views.ProcessDefinition:
    m = row if isinstance(row, Mapping) else row._mapping
    return views.ProcessDefinition(
        id=m["ID_"],
        key=m["KEY_"],
        version=m["VERSION_"],
        deployment_id=m["DEPLOYMENT_ID_"],
        resource_name=m["RESOURCE_NAME_"],
        name=m["NAME_"],
        version_tag=m["VERSION_TAG_"],
        history_time_to_live=m["HISTORY_TTL_"],
        category=m["CATEGORY_"],
        startable_in_tasklist=bool(m["STARTABLE_"]),
        suspended=m["SUSPENSION_STATE_"] == 2,
    )


def process_definition(conn: Connection, definition_id: str) -> views.ProcessDefinition | None:
    p = ACT_RE_PROCDEF
    row = _lookup(
        conn,
        "definition",
        lambda: select(p).where(p.c.ID_ == bindparam("id")),
        id=definition_id,
    )
    return None if row is None else _definition(row)


def latest_process_definition(conn: Connection, key: str) -> views.ProcessDefinition | None:
    p = ACT_RE_PROCDEF
    row = _lookup(
        conn,
        "latest-definition",
        lambda: (
            select(p).where(p.c.KEY_ == bindparam("key")).order_by(p.c.VERSION_.desc()).limit(1)
        ),
        key=key,
    )
    return None if row is None else _definition(row)


def process_definitions(
    conn: Connection, key: str | None = None, deployment_id: str | None = None
) -> list[views.ProcessDefinition]:
    p = ACT_RE_PROCDEF
    stmt = select(p).order_by(p.c.KEY_, p.c.VERSION_)
    if key is not None:
        stmt = stmt.where(p.c.KEY_ == key)
    if deployment_id is not None:
        stmt = stmt.where(p.c.DEPLOYMENT_ID_ == deployment_id)
    return [_definition(r) for r in conn.execute(stmt)]


def latest_versions(conn: Connection, keys: Sequence[str]) -> dict[str, int]:
    if not keys:
        return {}
    p = ACT_RE_PROCDEF
    stmt = select(p.c.KEY_, func.max(p.c.VERSION_)).where(p.c.KEY_.in_(keys)).group_by(p.c.KEY_)
    return {k: int(v) for k, v in conn.execute(stmt)}


def deployment(conn: Connection, deployment_id: str) -> views.Deployment | None:
    d = ACT_RE_DEPLOYMENT
    row = conn.execute(select(d).where(d.c.ID_ == deployment_id)).first()
    if row is None:
        return None
    m = row._mapping
    b = ACT_GE_BYTEARRAY
    names = [
        r[0]
        for r in conn.execute(
            select(b.c.NAME_).where(b.c.DEPLOYMENT_ID_ == deployment_id).order_by(b.c.NAME_)
        )
    ]
    deploy_time = utc(m["DEPLOY_TIME_"])
    assert deploy_time is not None
    return views.Deployment(
        id=m["ID_"],
        name=m["NAME_"],
        source=m["SOURCE_"],
        deployment_time=deploy_time,
        process_definitions=process_definitions(conn, deployment_id=deployment_id),
        resource_names=names,
    )


def latest_deployment_resources(
    conn: Connection, name: str, source: str | None
) -> tuple[str, dict[str, bytes]] | None:
    """The newest deployment with this name and source, and its resources (duplicate filtering)."""
    d = ACT_RE_DEPLOYMENT
    stmt = select(d.c.ID_).where(d.c.NAME_ == name)
    stmt = stmt.where(d.c.SOURCE_.is_(None) if source is None else d.c.SOURCE_ == source)
    row = conn.execute(stmt.order_by(d.c.DEPLOY_TIME_.desc(), d.c.ID_.desc()).limit(1)).first()
    if row is None:
        return None
    b = ACT_GE_BYTEARRAY
    resources = {
        r[0]: bytes(r[1])
        for r in conn.execute(select(b.c.NAME_, b.c.BYTES_).where(b.c.DEPLOYMENT_ID_ == row[0]))
    }
    return str(row[0]), resources


# -- runtime --------------------------------------------------------------------------------------


def process_instance(conn: Connection, process_instance_id: str) -> views.ProcessInstance | None:
    h = ACT_HI_PROCINST
    row = conn.execute(select(h).where(h.c.ID_ == process_instance_id)).first()
    if row is not None:
        m = row._mapping
        return views.ProcessInstance(
            id=m["ID_"],
            definition_id=m["PROC_DEF_ID_"],
            definition_key=m["PROC_DEF_KEY_"],
            business_key=m["BUSINESS_KEY_"],
            ended=m["END_TIME_"] is not None,
        )
    e = ACT_RU_EXECUTION
    row = conn.execute(select(e).where(e.c.ID_ == process_instance_id)).first()
    if row is None:
        return None
    m = row._mapping
    return views.ProcessInstance(
        id=m["ID_"],
        definition_id=m["PROC_DEF_ID_"],
        definition_key=m["PROC_DEF_KEY_"],
        business_key=m["BUSINESS_KEY_"],
        ended=False,
    )


def running_process_instances(
    conn: Connection, definition_ids: Sequence[str]
) -> list[tuple[str, str]]:
    """(process instance id, definition id) of the running instances of these definitions."""
    if not definition_ids:
        return []
    e = ACT_RU_EXECUTION
    stmt = (
        select(e.c.ID_, e.c.PROC_DEF_ID_)
        .where(e.c.PROC_DEF_ID_.in_(list(definition_ids)), e.c.PARENT_ID_.is_(None))
        .order_by(e.c.ID_)
    )
    return [(r[0], r[1]) for r in conn.execute(stmt)]


def executions(conn: Connection, process_instance_id: str) -> list[views.Execution]:
    e = ACT_RU_EXECUTION
    rows = conn.execute(select(e).where(e.c.PROC_INST_ID_ == process_instance_id).order_by(e.c.ID_))
    return [
        views.Execution(
            id=m["ID_"],
            process_instance_id=m["PROC_INST_ID_"],
            parent_id=m["PARENT_ID_"],
            activity_id=m["ACT_ID_"],
            activity_instance_id=m["ACT_INST_ID_"],
            is_active=bool(m["IS_ACTIVE_"]),
            is_concurrent=bool(m["IS_CONCURRENT_"]),
            is_scope=bool(m["IS_SCOPE_"]),
        )
        for m in (r._mapping for r in rows)
    ]


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
    """Camunda's task query: candidate filters match unassigned tasks unless told otherwise."""
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
                candidate_groups=group_links[m["ID_"]],
                suspended=m["SUSPENSION_STATE_"] == 2,
            )
        )
    return out


def _stored(m: Any, type_column: str) -> StoredValue:
    """A variable value read back from its storage columns (joined with its byte array)."""
    data = m["BYTES_"]
    return stored_from_columns(
        m[type_column],
        text=m["TEXT_"],
        text2=m["TEXT2_"],
        long=m["LONG_"],
        double=m["DOUBLE_"],
        data=None if data is None else bytes(data),
    )


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
        out.append((m["NAME_"], _stored(m, "TYPE_"), m["EXECUTION_ID_"], m["TASK_ID_"]))
    return out


def _external_task(m: Any) -> views.ExternalTask:
    created = utc(m["CREATE_TIME_"])
    assert created is not None
    return views.ExternalTask(
        id=m["ID_"],
        topic_name=m["TOPIC_NAME_"],
        activity_id=m["ACT_ID_"],
        activity_instance_id=m["ACT_INST_ID_"],
        execution_id=m["EXECUTION_ID_"],
        process_instance_id=m["PROC_INST_ID_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_definition_key=m["PROC_DEF_KEY_"],
        priority=m["PRIORITY_"],
        created=created,
        worker_id=m["WORKER_ID_"],
        lock_expiration_time=utc(m["LOCK_EXP_TIME_"]),
        retries=m["RETRIES_"],
        error_message=m["ERROR_MSG_"],
    )


def external_tasks(
    conn: Connection,
    *,
    process_instance_id: str | None = None,
    topic_name: str | None = None,
    external_task_id: str | None = None,
) -> list[views.ExternalTask]:
    x = ACT_RU_EXT_TASK
    stmt = select(x)
    if process_instance_id is not None:
        stmt = stmt.where(x.c.PROC_INST_ID_ == process_instance_id)
    if topic_name is not None:
        stmt = stmt.where(x.c.TOPIC_NAME_ == topic_name)
    if external_task_id is not None:
        stmt = stmt.where(x.c.ID_ == external_task_id)
    return [
        _external_task(r._mapping) for r in conn.execute(stmt.order_by(x.c.CREATE_TIME_, x.c.ID_))
    ]


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


def fetchable_external_tasks(
    conn: Connection,
    topics: Sequence[str],
    now: datetime,
    limit: int,
    use_priority: bool,
    only: Sequence[str] | None = None,
) -> list[tuple[str, str, str]]:
    """(task id, process instance id, topic) of unlocked tasks with retries left, oldest first."""
    x = ACT_RU_EXT_TASK
    naive_now = now.astimezone(UTC).replace(tzinfo=None)
    stmt = select(x.c.ID_, x.c.PROC_INST_ID_, x.c.TOPIC_NAME_).where(
        x.c.TOPIC_NAME_.in_(list(topics)),
        or_(x.c.LOCK_EXP_TIME_.is_(None), x.c.LOCK_EXP_TIME_ <= naive_now),
        or_(x.c.RETRIES_.is_(None), x.c.RETRIES_ > 0),
        or_(x.c.SUSPENSION_STATE_.is_(None), x.c.SUSPENSION_STATE_ == 1),
    )
    if only is not None:
        stmt = stmt.where(x.c.ID_.in_(list(only)))
    order = [x.c.PRIORITY_.desc()] if use_priority else []
    stmt = stmt.order_by(*order, x.c.CREATE_TIME_, x.c.ID_).limit(limit)
    return [(r[0], r[1], r[2]) for r in conn.execute(stmt)]


# -- history --------------------------------------------------------------------------------------


def _historic_process(m: Any) -> views.HistoricProcessInstance:
    start = utc(m["START_TIME_"])
    assert start is not None
    return views.HistoricProcessInstance(
        id=m["ID_"],
        business_key=m["BUSINESS_KEY_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_definition_key=m["PROC_DEF_KEY_"],
        start_time=start,
        end_time=utc(m["END_TIME_"]),
        duration_in_millis=m["DURATION_"],
        start_activity_id=m["START_ACT_ID_"],
        end_activity_id=m["END_ACT_ID_"],
        delete_reason=m["DELETE_REASON_"],
        state=m["STATE_"],
    )


def historic_process_instances(
    conn: Connection,
    *,
    process_instance_id: str | None = None,
    process_definition_key: str | None = None,
    finished: bool | None = None,
) -> list[views.HistoricProcessInstance]:
    h = ACT_HI_PROCINST
    stmt = select(h)
    if process_instance_id is not None:
        stmt = stmt.where(h.c.ID_ == process_instance_id)
    if process_definition_key is not None:
        stmt = stmt.where(h.c.PROC_DEF_KEY_ == process_definition_key)
    if finished is not None:
        stmt = stmt.where(h.c.END_TIME_.is_not(None) if finished else h.c.END_TIME_.is_(None))
    return [
        _historic_process(r._mapping) for r in conn.execute(stmt.order_by(h.c.START_TIME_, h.c.ID_))
    ]


def historic_activity_instances(
    conn: Connection, process_instance_id: str
) -> list[views.HistoricActivityInstance]:
    a = ACT_HI_ACTINST
    stmt = (
        select(a)
        .where(a.c.PROC_INST_ID_ == process_instance_id)
        .order_by(a.c.START_TIME_, a.c.SEQUENCE_COUNTER_, a.c.ID_)
    )
    out = []
    for r in conn.execute(stmt):
        m = r._mapping
        start = utc(m["START_TIME_"])
        assert start is not None
        out.append(
            views.HistoricActivityInstance(
                id=m["ID_"],
                activity_id=m["ACT_ID_"],
                activity_name=m["ACT_NAME_"],
                activity_type=m["ACT_TYPE_"],
                parent_activity_instance_id=m["PARENT_ACT_INST_ID_"],
                execution_id=m["EXECUTION_ID_"],
                process_instance_id=m["PROC_INST_ID_"],
                start_time=start,
                end_time=utc(m["END_TIME_"]),
                duration_in_millis=m["DURATION_"],
                task_id=m["TASK_ID_"],
                assignee=m["ASSIGNEE_"],
                canceled=m["ACT_INST_STATE_"] == 2,
                complete_scope=m["ACT_INST_STATE_"] == 1,
            )
        )
    return out


def historic_task_instances(
    conn: Connection, process_instance_id: str | None = None
) -> list[views.HistoricTaskInstance]:
    t = ACT_HI_TASKINST
    stmt = select(t)
    if process_instance_id is not None:
        stmt = stmt.where(t.c.PROC_INST_ID_ == process_instance_id)
    out = []
    for r in conn.execute(stmt.order_by(t.c.START_TIME_, t.c.ID_)):
        m = r._mapping
        start = utc(m["START_TIME_"])
        assert start is not None
        out.append(
            views.HistoricTaskInstance(
                id=m["ID_"],
                name=m["NAME_"],
                task_definition_key=m["TASK_DEF_KEY_"],
                process_instance_id=m["PROC_INST_ID_"],
                assignee=m["ASSIGNEE_"],
                start_time=start,
                end_time=utc(m["END_TIME_"]),
                duration=m["DURATION_"],
                delete_reason=m["DELETE_REASON_"],
                task_state=m["TASK_STATE_"],
            )
        )
    return out


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
        out.append((m, _stored(m, "VAR_TYPE_")))
    return out
