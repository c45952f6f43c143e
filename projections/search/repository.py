"""The repository behind engine-rest's `/deployment` and `/process-definition`: filtered, sorted,
paged lists of deployments and process definitions, deployment resources and their bytes, and
the running-instance statistics per definition and per activity.

Query Structs carry Camunda's query parameter names (`rename="camel"`, null = no filter); LIKE
filters take the pattern as given, `%` included, as Camunda does.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import ColumnElement, Join, Select, and_, false, func, not_, or_, select, true
from sqlalchemy.engine import Connection

from core import views
from projections.queries import _definition, utc
from projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_RE_DEPLOYMENT,
    ACT_RE_PROCDEF,
    ACT_RU_EXECUTION,
)

# (sortBy, descending) pairs; rest.params.Sort is one.
Sorting = Sequence[tuple[str, bool]]

# Camunda's LIKE filters escape with a backslash on every database.
_ESCAPE = "\\"

SUSPENDED = 2
ACTIVE = 1


def _naive_utc(moment: datetime) -> datetime:
    """Table timestamps are naive UTC."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


def _page(stmt: Select[Any], first: int, maximum: int | None) -> Select[Any]:
    if first:
        stmt = stmt.offset(first)
    if maximum is not None:
        stmt = stmt.limit(maximum)
    return stmt


def _tenant_filter(
    column: ColumnElement[Any],
    tenant_ids: list[str] | None,
    without_tenant: bool | None,
    include_without_tenant: bool | None,
) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if tenant_ids is not None:
        in_tenants: ColumnElement[bool] = column.in_(tenant_ids) if tenant_ids else false()
        if include_without_tenant:
            in_tenants = or_(in_tenants, column.is_(None))
        conditions.append(in_tenants)
    if without_tenant:
        conditions.append(column.is_(None))
    return conditions


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


def _deployment_conditions(query: DeploymentQuery) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    for value, column in ((query.id, _d.c.ID_), (query.name, _d.c.NAME_)):
        if value is not None:
            conditions.append(column == value)
    if query.source is not None:
        conditions.append(_d.c.SOURCE_ == query.source)
    if query.name_like is not None:
        conditions.append(_d.c.NAME_.like(query.name_like, escape=_ESCAPE))
    if query.without_source:
        conditions.append(_d.c.SOURCE_.is_(None))
    if query.after is not None:
        conditions.append(_d.c.DEPLOY_TIME_ > _naive_utc(query.after))
    if query.before is not None:
        conditions.append(_d.c.DEPLOY_TIME_ < _naive_utc(query.before))
    conditions.extend(
        _tenant_filter(
            _d.c.TENANT_ID_,
            query.tenant_id_in,
            query.without_tenant_id,
            query.include_deployments_without_tenant_id,
        )
    )
    return conditions


def _deployment_row(m: Any) -> DeploymentRow:
    deployed = utc(m["DEPLOY_TIME_"])
    assert deployed is not None
    return DeploymentRow(m["ID_"], m["NAME_"], m["SOURCE_"], deployed, m["TENANT_ID_"])


def find_deployments(
    conn: Connection, query: DeploymentQuery, sorting: Sorting, first: int, maximum: int | None
) -> list[DeploymentRow]:
    order = [DEPLOYMENT_SORTS[by].desc() if desc else DEPLOYMENT_SORTS[by] for by, desc in sorting]
    # The id breaks ties so that pages never overlap; Camunda orders by id when unsorted.
    stmt = select(_d).where(and_(true(), *_deployment_conditions(query)))
    stmt = _page(stmt.order_by(*order, _d.c.ID_), first, maximum)
    return [_deployment_row(r._mapping) for r in conn.execute(stmt)]


def count_deployments(conn: Connection, query: DeploymentQuery) -> int:
    stmt = select(func.count()).select_from(_d).where(and_(true(), *_deployment_conditions(query)))
    return int(conn.execute(stmt).scalar_one())


def deployment(conn: Connection, deployment_id: str) -> DeploymentRow | None:
    row = conn.execute(select(_d).where(_d.c.ID_ == deployment_id)).first()
    return None if row is None else _deployment_row(row._mapping)


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


def _like(column: ColumnElement[Any], pattern: str | None) -> list[ColumnElement[bool]]:
    return [] if pattern is None else [column.like(pattern, escape=_ESCAPE)]


def _equal(column: ColumnElement[Any], value: object) -> list[ColumnElement[bool]]:
    return [] if value is None else [column == value]


def _definition_conditions(q: ProcessDefinitionQuery) -> list[ColumnElement[bool]]:
    c = _p.c
    conditions = [
        *_equal(c.ID_, q.process_definition_id),
        *_equal(c.NAME_, q.name),
        *_like(c.NAME_, q.name_like),
        *_equal(c.DEPLOYMENT_ID_, q.deployment_id),
        *_equal(c.KEY_, q.key),
        *_like(c.KEY_, q.key_like),
        *_equal(c.CATEGORY_, q.category),
        *_like(c.CATEGORY_, q.category_like),
        *_equal(c.VERSION_, q.version),
        *_equal(c.RESOURCE_NAME_, q.resource_name),
        *_like(c.RESOURCE_NAME_, q.resource_name_like),
        *_equal(c.VERSION_TAG_, q.version_tag),
        *_like(c.VERSION_TAG_, q.version_tag_like),
    ]
    if q.process_definition_id_in is not None:
        conditions.append(c.ID_.in_(q.process_definition_id_in))
    if q.keys_in is not None:
        conditions.append(c.KEY_.in_(q.keys_in))
    if q.deployed_after is not None:
        conditions.append(_d.c.DEPLOY_TIME_ > _naive_utc(q.deployed_after))
    if q.deployed_at is not None:
        conditions.append(_d.c.DEPLOY_TIME_ == _naive_utc(q.deployed_at))
    if q.latest_version:
        conditions.append(_latest_version())
    if q.active:
        conditions.append(c.SUSPENSION_STATE_ == ACTIVE)
    if q.suspended:
        conditions.append(c.SUSPENSION_STATE_ == SUSPENDED)
    if q.without_version_tag:
        conditions.append(c.VERSION_TAG_.is_(None))
    if q.startable_in_tasklist:
        conditions.append(c.STARTABLE_)
    if q.not_startable_in_tasklist:
        conditions.append(not_(c.STARTABLE_))
    incident_filters = (q.incident_id, q.incident_type, q.incident_message)
    if any(f is not None for f in incident_filters) or q.incident_message_like is not None:
        # This engine raises no incidents: no definition has one.
        conditions.append(false())
    conditions.extend(
        _tenant_filter(
            c.TENANT_ID_,
            q.tenant_id_in,
            q.without_tenant_id,
            q.include_process_definitions_without_tenant_id,
        )
    )
    return conditions


def _definitions_from() -> Join:
    # Deploy time filters and sorting read the definition's deployment.
    return _p.outerjoin(_d, _d.c.ID_ == _p.c.DEPLOYMENT_ID_)


def find_definitions(
    conn: Connection,
    query: ProcessDefinitionQuery,
    sorting: Sorting,
    first: int,
    maximum: int | None,
) -> list[views.ProcessDefinition]:
    order = [DEFINITION_SORTS[by].desc() if desc else DEFINITION_SORTS[by] for by, desc in sorting]
    stmt = (
        select(_p)
        .select_from(_definitions_from())
        .where(and_(true(), *_definition_conditions(query)))
        .order_by(*order, _p.c.ID_)
    )
    return [_definition(r) for r in conn.execute(_page(stmt, first, maximum))]


def count_definitions(conn: Connection, query: ProcessDefinitionQuery) -> int:
    stmt = (
        select(func.count())
        .select_from(_definitions_from())
        .where(and_(true(), *_definition_conditions(query)))
    )
    return int(conn.execute(stmt).scalar_one())


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
    return [(_definition(r), int(r.INSTANCES or 0)) for r in conn.execute(stmt)]


def activity_statistics(conn: Connection, definition_id: str) -> list[tuple[str, int]]:
    """(activity id, active executions there) of a definition's running instances: the
    executions that are activity instances, not the scopes above them."""
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
