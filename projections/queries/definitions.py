"""The repository behind engine-rest's `/deployment` and `/process-definition`: filtered, sorted,
paged lists of deployments and process definitions, deployment resources and their bytes, and
the running-instance statistics per definition and per activity.

Query Structs carry Camunda's query parameter names (`rename="camel"`, null = no filter); LIKE
filters take the pattern as given, `%` included, as Camunda does.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import ColumnElement, and_, func, not_, or_, select
from sqlalchemy.engine import Connection, RowMapping

from flowledger.core import views
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_RE_DEPLOYMENT,
    ACT_RE_PROCDEF,
    ACT_RU_EXECUTION,
    ACT_RU_INCIDENT,
    ACT_RU_JOB,
)

from .declaration import Search, first_where
from .filters import (
    SUSPENDED,
    Condition,
    equal,
    like,
    nothing_when_set,
    one_of,
    stored_moment,
    suspension,
    tenants,
    utc,
)

# -- deployments ----------------------------------------------------------------------------------


class DeploymentQuery(msgspec.Struct, rename="camel"):
    """Camunda's deployment query parameters."""

    id: str | None = None
    name: str | None = None
    name_like: str | None = None
    source: str | None = None
    without_source: bool | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    include_deployments_without_tenant_id: bool | None = None
    after: datetime | None = None
    before: datetime | None = None


class DeploymentRow(msgspec.Struct, frozen=True):
    id: str
    name: str | None
    source: str | None
    deployment_time: datetime
    tenant_id: str | None


_d = ACT_RE_DEPLOYMENT
DEPLOYMENT_SORTS: dict[str, ColumnElement[Any]] = {
    "id": _d.c.ID_,
    "name": _d.c.NAME_,
    "deploymentTime": _d.c.DEPLOY_TIME_,
    "tenantId": _d.c.TENANT_ID_,
}


def _deployment_conditions(q: DeploymentQuery) -> list[Condition]:
    conditions = [
        *equal(_d.c.ID_, q.id),
        *equal(_d.c.NAME_, q.name),
        *equal(_d.c.SOURCE_, q.source),
        *like(_d.c.NAME_, q.name_like),
        *tenants(
            _d.c.TENANT_ID_,
            q.tenant_id_in,
            q.without_tenant_id,
            q.include_deployments_without_tenant_id,
        ),
    ]
    if q.without_source:
        conditions.append(_d.c.SOURCE_.is_(None))
    if q.after is not None:
        conditions.append(_d.c.DEPLOY_TIME_ > stored_moment(q.after, "after"))
    if q.before is not None:
        conditions.append(_d.c.DEPLOY_TIME_ < stored_moment(q.before, "before"))
    return conditions


def _deployment_row(m: RowMapping) -> DeploymentRow:
    deployed = utc(m["DEPLOY_TIME_"])
    assert deployed is not None
    return DeploymentRow(m["ID_"], m["NAME_"], m["SOURCE_"], deployed, m["TENANT_ID_"])


DEPLOYMENTS: Search[DeploymentQuery, DeploymentRow] = Search(
    query=DeploymentQuery,
    source=_d,
    columns=(_d,),
    filters=_deployment_conditions,
    sorts=DEPLOYMENT_SORTS,
    # The id breaks ties so that pages never overlap; Camunda orders by id when unsorted.
    then=(_d.c.ID_,),
    row=_deployment_row,
)


def deployment(conn: Connection, deployment_id: str) -> DeploymentRow | None:
    return first_where(conn, DEPLOYMENTS, _d.c.ID_ == deployment_id)


def deployment_ids_named(conn: Connection, name: str) -> set[str]:
    """Ids of the deployments with this name (duplicate filtering answers one of them)."""
    return {r[0] for r in conn.execute(select(_d.c.ID_).where(_d.c.NAME_ == name))}


# -- deployment resources -------------------------------------------------------------------------


class ResourceRow(msgspec.Struct, frozen=True):
    id: str
    name: str
    deployment_id: str


_b = ACT_GE_BYTEARRAY


def deployment_resources(conn: Connection, deployment_id: str) -> list[ResourceRow]:
    stmt = (
        select(_b.c.ID_, _b.c.NAME_, _b.c.DEPLOYMENT_ID_)
        .where(_b.c.DEPLOYMENT_ID_ == deployment_id)
        .order_by(_b.c.NAME_, _b.c.ID_)
    )
    return [ResourceRow(r[0], r[1], r[2]) for r in conn.execute(stmt)]


def deployment_resource(
    conn: Connection, deployment_id: str, resource_id: str
) -> ResourceRow | None:
    stmt = select(_b.c.ID_, _b.c.NAME_, _b.c.DEPLOYMENT_ID_).where(
        _b.c.DEPLOYMENT_ID_ == deployment_id, _b.c.ID_ == resource_id
    )
    row = conn.execute(stmt).first()
    return None if row is None else ResourceRow(row[0], row[1], row[2])


def resource_bytes(conn: Connection, deployment_id: str, resource_id: str) -> bytes | None:
    stmt = select(_b.c.BYTES_).where(_b.c.DEPLOYMENT_ID_ == deployment_id, _b.c.ID_ == resource_id)
    row = conn.execute(stmt).first()
    return None if row is None else bytes(row[0] or b"")


def resource_bytes_named(conn: Connection, deployment_id: str, name: str) -> bytes | None:
    """A deployment's resource by name: where a process definition's XML is."""
    stmt = select(_b.c.BYTES_).where(_b.c.DEPLOYMENT_ID_ == deployment_id, _b.c.NAME_ == name)
    row = conn.execute(stmt.order_by(_b.c.ID_).limit(1)).first()
    return None if row is None else bytes(row[0] or b"")


# -- process definitions --------------------------------------------------------------------------


class ProcessDefinitionQuery(msgspec.Struct, rename="camel"):
    """Camunda's process-definition query parameters. Authorization filters (`startableBy`,
    `startablePermissionCheck`) are accepted and ignored: this engine has no authorizations."""

    process_definition_id: str | None = None
    process_definition_id_in: list[str] | None = None
    name: str | None = None
    name_like: str | None = None
    deployment_id: str | None = None
    deployed_after: datetime | None = None
    deployed_at: datetime | None = None
    key: str | None = None
    keys_in: list[str] | None = None
    key_like: str | None = None
    category: str | None = None
    category_like: str | None = None
    version: int | None = None
    latest_version: bool | None = None
    resource_name: str | None = None
    resource_name_like: str | None = None
    startable_by: str | None = None
    active: bool | None = None
    suspended: bool | None = None
    incident_id: str | None = None
    incident_type: str | None = None
    incident_message: str | None = None
    incident_message_like: str | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    include_process_definitions_without_tenant_id: bool | None = None
    version_tag: str | None = None
    version_tag_like: str | None = None
    without_version_tag: bool | None = None
    startable_in_tasklist: bool | None = None
    not_startable_in_tasklist: bool | None = None
    startable_permission_check: bool | None = None


_p = ACT_RE_PROCDEF
DEFINITION_SORTS: dict[str, ColumnElement[Any]] = {
    "category": _p.c.CATEGORY_,
    "key": _p.c.KEY_,
    "id": _p.c.ID_,
    "name": _p.c.NAME_,
    "version": _p.c.VERSION_,
    "deploymentId": _p.c.DEPLOYMENT_ID_,
    "deployTime": _d.c.DEPLOY_TIME_,
    "tenantId": _p.c.TENANT_ID_,
    "versionTag": _p.c.VERSION_TAG_,
}


def _latest_version() -> ColumnElement[bool]:
    """The definition is the newest version of its key (among definitions of its tenant)."""
    other = ACT_RE_PROCDEF.alias("LATEST")
    newest = (
        select(func.max(other.c.VERSION_))
        .where(
            other.c.KEY_ == _p.c.KEY_,
            or_(
                other.c.TENANT_ID_ == _p.c.TENANT_ID_,
                and_(other.c.TENANT_ID_.is_(None), _p.c.TENANT_ID_.is_(None)),
            ),
        )
        .scalar_subquery()
    )
    return _p.c.VERSION_ == newest


def _definition_conditions(q: ProcessDefinitionQuery) -> list[Condition]:
    c = _p.c
    conditions = [
        *equal(c.ID_, q.process_definition_id),
        *equal(c.NAME_, q.name),
        *like(c.NAME_, q.name_like),
        *equal(c.DEPLOYMENT_ID_, q.deployment_id),
        *equal(c.KEY_, q.key),
        *like(c.KEY_, q.key_like),
        *equal(c.CATEGORY_, q.category),
        *like(c.CATEGORY_, q.category_like),
        *equal(c.VERSION_, q.version),
        *equal(c.RESOURCE_NAME_, q.resource_name),
        *like(c.RESOURCE_NAME_, q.resource_name_like),
        *equal(c.VERSION_TAG_, q.version_tag),
        *like(c.VERSION_TAG_, q.version_tag_like),
        *one_of(c.ID_, q.process_definition_id_in),
        *one_of(c.KEY_, q.keys_in),
        *suspension(c.SUSPENSION_STATE_, q.active, q.suspended),
        # This engine raises no incidents: no definition has one.
        *nothing_when_set(
            q.incident_id, q.incident_type, q.incident_message, q.incident_message_like
        ),
        *tenants(
            c.TENANT_ID_,
            q.tenant_id_in,
            q.without_tenant_id,
            q.include_process_definitions_without_tenant_id,
        ),
    ]
    if q.deployed_after is not None:
        conditions.append(_d.c.DEPLOY_TIME_ > stored_moment(q.deployed_after, "deployedAfter"))
    if q.deployed_at is not None:
        conditions.append(_d.c.DEPLOY_TIME_ == stored_moment(q.deployed_at, "deployedAt"))
    if q.latest_version:
        conditions.append(_latest_version())
    if q.without_version_tag:
        conditions.append(c.VERSION_TAG_.is_(None))
    if q.startable_in_tasklist:
        conditions.append(c.STARTABLE_)
    if q.not_startable_in_tasklist:
        conditions.append(not_(c.STARTABLE_))
    return conditions


def definition_row(m: Mapping[Any, Any]) -> views.ProcessDefinition:
    """A process definition from its ACT_RE_PROCDEF row."""
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
        suspended=m["SUSPENSION_STATE_"] == SUSPENDED,
    )


DEFINITIONS: Search[ProcessDefinitionQuery, views.ProcessDefinition] = Search(
    query=ProcessDefinitionQuery,
    # Deploy time filters and sorting read the definition's deployment.
    source=_p.outerjoin(_d, _d.c.ID_ == _p.c.DEPLOYMENT_ID_),
    columns=(_p,),
    filters=_definition_conditions,
    sorts=DEFINITION_SORTS,
    then=(_p.c.ID_,),
    row=definition_row,
    counted=_p,
)


# -- statistics -----------------------------------------------------------------------------------

_e = ACT_RU_EXECUTION


def definition_statistics(conn: Connection) -> list[tuple[views.ProcessDefinition, int]]:
    """Every process definition with its number of running process instances (root
    executions), ordered by definition id as Camunda does."""
    running = (
        select(_e.c.PROC_DEF_ID_, func.count().label("INSTANCES"))
        .where(_e.c.PARENT_ID_.is_(None))
        .group_by(_e.c.PROC_DEF_ID_)
        .subquery("RUNNING")
    )
    stmt = (
        select(_p, running.c.INSTANCES)
        .select_from(_p.outerjoin(running, running.c.PROC_DEF_ID_ == _p.c.ID_))
        .order_by(_p.c.ID_)
    )
    return [(definition_row(r._mapping), int(r.INSTANCES or 0)) for r in conn.execute(stmt)]


def activity_statistics(conn: Connection, definition_id: str) -> list[tuple[str, int]]:
    """(activity id, active executions there) of a definition's running instances: the
    executions that are activity instances, not the scopes above them, and tokens waiting
    for an asynchronous continuation at an activity."""
    stmt = (
        select(_e.c.ACT_ID_, func.count())
        .where(
            _e.c.PROC_DEF_ID_ == definition_id,
            _e.c.IS_ACTIVE_,
            _e.c.ACT_ID_.is_not(None),
        )
        .group_by(_e.c.ACT_ID_)
        .order_by(_e.c.ACT_ID_)
    )
    return [(r[0], int(r[1])) for r in conn.execute(stmt)]


def failed_jobs(conn: Connection, definition_id: str | None = None) -> dict[str, int]:
    """Jobs out of retries (Camunda's `failedJobs`), by definition id, or by activity id of one
    definition."""
    j = ACT_RU_JOB
    key = j.c.PROCESS_DEF_ID_ if definition_id is None else j.c.ACT_ID_
    stmt = select(key, func.count()).where(j.c.RETRIES_ == 0)
    if definition_id is not None:
        stmt = stmt.where(j.c.PROCESS_DEF_ID_ == definition_id)
    stmt = stmt.where(j.c.PROCESS_INSTANCE_ID_.is_not(None)).group_by(key)
    return {r[0]: int(r[1]) for r in conn.execute(stmt)}


def incident_counts(
    conn: Connection, definition_id: str | None = None, incident_type: str | None = None
) -> dict[str, list[tuple[str, int]]]:
    """(incident type, open incidents) by definition id, or by activity id of one definition;
    only `incident_type` when given. Every incident here is its own root cause."""
    i = ACT_RU_INCIDENT
    key = i.c.PROC_DEF_ID_ if definition_id is None else i.c.ACTIVITY_ID_
    stmt = select(key, i.c.INCIDENT_TYPE_, func.count())
    if definition_id is not None:
        stmt = stmt.where(i.c.PROC_DEF_ID_ == definition_id)
    if incident_type is not None:
        stmt = stmt.where(i.c.INCIDENT_TYPE_ == incident_type)
    stmt = stmt.group_by(key, i.c.INCIDENT_TYPE_).order_by(key, i.c.INCIDENT_TYPE_)
    counts: dict[str, list[tuple[str, int]]] = {}
    for owner, kind, n in conn.execute(stmt):
        counts.setdefault(owner, []).append((kind, int(n)))
    return counts
