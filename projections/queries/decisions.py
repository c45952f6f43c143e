"""The decision repository and decision history behind engine-rest's `/decision-definition`,
`/decision-requirements-definition` and `/history/decision-instance`: filtered, sorted, paged
lists of decision definitions (ACT_RE_DECISION_DEF), decision requirements definitions
(ACT_RE_DECISION_REQ_DEF) and historic decision instances (ACT_HI_DECINST) with their inputs and
outputs (ACT_HI_DEC_IN, ACT_HI_DEC_OUT). Reads only.

Query Structs carry Camunda's query parameter names (`rename="camel"`, null = no filter); LIKE
filters take the pattern as given, `%` included, as Camunda does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import ColumnElement, Table, and_, func, or_, select
from sqlalchemy.engine import Connection, RowMapping

from flowledger.core import views
from flowledger.core.variables import from_stored, rest_type_name
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_DEC_IN,
    ACT_HI_DEC_OUT,
    ACT_HI_DECINST,
    ACT_RE_DECISION_DEF,
    ACT_RE_DECISION_REQ_DEF,
    ACT_RE_DEPLOYMENT,
)

from .declaration import Search
from .filters import Condition, equal, like, one_of, stored_moment, tenants, utc
from .variables import stored_value

_d = ACT_RE_DEPLOYMENT
_dd = ACT_RE_DECISION_DEF
_drd = ACT_RE_DECISION_REQ_DEF
_hi = ACT_HI_DECINST


def _latest(table: Table) -> ColumnElement[bool]:
    """The definition is the newest version of its key (among definitions of its tenant)."""
    other = table.alias("LATEST")
    newest = (
        select(func.max(other.c.VERSION_))
        .where(
            other.c.KEY_ == table.c.KEY_,
            or_(
                other.c.TENANT_ID_ == table.c.TENANT_ID_,
                and_(other.c.TENANT_ID_.is_(None), table.c.TENANT_ID_.is_(None)),
            ),
        )
        .scalar_subquery()
    )
    return table.c.VERSION_ == newest


# -- decision definitions -------------------------------------------------------------------------


class DecisionDefinitionQuery(msgspec.Struct, rename="camel"):
    """Camunda's decision-definition query parameters."""

    decision_definition_id: str | None = None
    decision_definition_id_in: list[str] | None = None
    name: str | None = None
    name_like: str | None = None
    deployment_id: str | None = None
    deployed_after: datetime | None = None
    deployed_at: datetime | None = None
    key: str | None = None
    key_like: str | None = None
    category: str | None = None
    category_like: str | None = None
    version: int | None = None
    latest_version: bool | None = None
    resource_name: str | None = None
    resource_name_like: str | None = None
    decision_requirements_definition_id: str | None = None
    decision_requirements_definition_key: str | None = None
    without_decision_requirements_definition: bool | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    include_decision_definitions_without_tenant_id: bool | None = None
    version_tag: str | None = None
    version_tag_like: str | None = None


DECISION_DEFINITION_SORTS: dict[str, ColumnElement[Any]] = {
    "category": _dd.c.CATEGORY_,
    "decisionRequirementsDefinitionKey": _dd.c.DEC_REQ_KEY_,
    "key": _dd.c.KEY_,
    "id": _dd.c.ID_,
    "name": _dd.c.NAME_,
    "version": _dd.c.VERSION_,
    "deploymentId": _dd.c.DEPLOYMENT_ID_,
    "deployTime": _d.c.DEPLOY_TIME_,
    "versionTag": _dd.c.VERSION_TAG_,
    "tenantId": _dd.c.TENANT_ID_,
}


def _shared_conditions(
    table: Table,
    q: DecisionDefinitionQuery | DecisionRequirementsDefinitionQuery,
    include_without_tenant: bool | None,
) -> list[Condition]:
    """The filters both repository queries have, on the columns both tables have."""
    c = table.c
    conditions = [
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
        *tenants(c.TENANT_ID_, q.tenant_id_in, q.without_tenant_id, include_without_tenant),
    ]
    if q.latest_version:
        conditions.append(_latest(table))
    return conditions


def _definition_conditions(q: DecisionDefinitionQuery) -> list[Condition]:
    c = _dd.c
    conditions = [
        *equal(c.ID_, q.decision_definition_id),
        *one_of(c.ID_, q.decision_definition_id_in),
        *equal(c.DEC_REQ_ID_, q.decision_requirements_definition_id),
        *equal(c.DEC_REQ_KEY_, q.decision_requirements_definition_key),
        *equal(c.VERSION_TAG_, q.version_tag),
        *like(c.VERSION_TAG_, q.version_tag_like),
        *_shared_conditions(_dd, q, q.include_decision_definitions_without_tenant_id),
    ]
    if q.without_decision_requirements_definition:
        conditions.append(c.DEC_REQ_ID_.is_(None))
    if q.deployed_after is not None:
        conditions.append(_d.c.DEPLOY_TIME_ > stored_moment(q.deployed_after, "deployedAfter"))
    if q.deployed_at is not None:
        conditions.append(_d.c.DEPLOY_TIME_ == stored_moment(q.deployed_at, "deployedAt"))
    return conditions


def decision_definition_row(m: Mapping[Any, Any]) -> views.DecisionDefinition:
    return views.DecisionDefinition(
        id=m["ID_"],
        key=m["KEY_"],
        version=m["VERSION_"],
        deployment_id=m["DEPLOYMENT_ID_"],
        resource_name=m["RESOURCE_NAME_"],
        name=m["NAME_"],
        category=m["CATEGORY_"],
        version_tag=m["VERSION_TAG_"],
        history_time_to_live=m["HISTORY_TTL_"],
        decision_requirements_definition_id=m["DEC_REQ_ID_"],
        decision_requirements_definition_key=m["DEC_REQ_KEY_"],
    )


DECISION_DEFINITIONS: Search[DecisionDefinitionQuery, views.DecisionDefinition] = Search(
    query=DecisionDefinitionQuery,
    source=_dd.outerjoin(_d, _d.c.ID_ == _dd.c.DEPLOYMENT_ID_),
    columns=(_dd,),
    filters=_definition_conditions,
    sorts=DECISION_DEFINITION_SORTS,
    then=(_dd.c.ID_,),
    row=decision_definition_row,
    counted=_dd,
)


# -- decision requirements definitions ------------------------------------------------------------


class DecisionRequirementsDefinitionQuery(msgspec.Struct, rename="camel"):
    """Camunda's decision-requirements-definition query parameters."""

    decision_requirements_definition_id: str | None = None
    decision_requirements_definition_id_in: list[str] | None = None
    name: str | None = None
    name_like: str | None = None
    deployment_id: str | None = None
    key: str | None = None
    key_like: str | None = None
    category: str | None = None
    category_like: str | None = None
    version: int | None = None
    latest_version: bool | None = None
    resource_name: str | None = None
    resource_name_like: str | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    include_decision_requirements_definitions_without_tenant_id: bool | None = None


REQUIREMENTS_SORTS: dict[str, ColumnElement[Any]] = {
    "categery": _drd.c.CATEGORY_,  # Camunda's spelling of the parameter value
    "category": _drd.c.CATEGORY_,
    "id": _drd.c.ID_,
    "key": _drd.c.KEY_,
    "name": _drd.c.NAME_,
    "version": _drd.c.VERSION_,
    "deploymentId": _drd.c.DEPLOYMENT_ID_,
    "tenantId": _drd.c.TENANT_ID_,
}


def _requirements_conditions(q: DecisionRequirementsDefinitionQuery) -> list[Condition]:
    return [
        *equal(_drd.c.ID_, q.decision_requirements_definition_id),
        *one_of(_drd.c.ID_, q.decision_requirements_definition_id_in),
        *_shared_conditions(_drd, q, q.include_decision_requirements_definitions_without_tenant_id),
    ]


def requirements_row(m: RowMapping) -> views.DecisionRequirementsDefinition:
    return views.DecisionRequirementsDefinition(
        id=m["ID_"],
        key=m["KEY_"],
        version=m["VERSION_"],
        deployment_id=m["DEPLOYMENT_ID_"],
        resource_name=m["RESOURCE_NAME_"],
        name=m["NAME_"],
        category=m["CATEGORY_"],
    )


DECISION_REQUIREMENTS: Search[
    DecisionRequirementsDefinitionQuery, views.DecisionRequirementsDefinition
] = Search(
    query=DecisionRequirementsDefinitionQuery,
    source=_drd,
    columns=(_drd,),
    filters=_requirements_conditions,
    sorts=REQUIREMENTS_SORTS,
    then=(_drd.c.ID_,),
    row=requirements_row,
)


# -- historic decision instances ------------------------------------------------------------------


class HistoricDecisionInstanceQuery(msgspec.Struct, rename="camel"):
    """Camunda's historic decision instance query parameters (`includeInputs` and
    `includeOutputs` are the caller's: they say what to read, not what to find)."""

    decision_instance_id: str | None = None
    decision_instance_id_in: list[str] | None = None
    decision_definition_id: str | None = None
    decision_definition_id_in: list[str] | None = None
    decision_definition_key: str | None = None
    decision_definition_key_in: list[str] | None = None
    decision_definition_name: str | None = None
    decision_definition_name_like: str | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    process_instance_id: str | None = None
    case_definition_id: str | None = None
    case_definition_key: str | None = None
    case_instance_id: str | None = None
    activity_id_in: list[str] | None = None
    activity_instance_id_in: list[str] | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    evaluated_before: datetime | None = None
    evaluated_after: datetime | None = None
    user_id: str | None = None
    root_decision_instance_id: str | None = None
    root_decision_instances_only: bool | None = None
    decision_requirements_definition_id: str | None = None
    decision_requirements_definition_key: str | None = None


HISTORIC_DECISION_SORTS: dict[str, ColumnElement[Any]] = {
    "evaluationTime": _hi.c.EVAL_TIME_,
    "tenantId": _hi.c.TENANT_ID_,
}


def _historic_conditions(q: HistoricDecisionInstanceQuery) -> list[Condition]:
    c = _hi.c
    conditions = [
        *equal(c.ID_, q.decision_instance_id),
        *one_of(c.ID_, q.decision_instance_id_in),
        *equal(c.DEC_DEF_ID_, q.decision_definition_id),
        *one_of(c.DEC_DEF_ID_, q.decision_definition_id_in),
        *equal(c.DEC_DEF_KEY_, q.decision_definition_key),
        *one_of(c.DEC_DEF_KEY_, q.decision_definition_key_in),
        *equal(c.DEC_DEF_NAME_, q.decision_definition_name),
        *like(c.DEC_DEF_NAME_, q.decision_definition_name_like),
        *equal(c.PROC_DEF_ID_, q.process_definition_id),
        *equal(c.PROC_DEF_KEY_, q.process_definition_key),
        *equal(c.PROC_INST_ID_, q.process_instance_id),
        *equal(c.CASE_DEF_ID_, q.case_definition_id),
        *equal(c.CASE_DEF_KEY_, q.case_definition_key),
        *equal(c.CASE_INST_ID_, q.case_instance_id),
        *one_of(c.ACT_ID_, q.activity_id_in),
        *one_of(c.ACT_INST_ID_, q.activity_instance_id_in),
        *equal(c.USER_ID_, q.user_id),
        *equal(c.ROOT_DEC_INST_ID_, q.root_decision_instance_id),
        *equal(c.DEC_REQ_ID_, q.decision_requirements_definition_id),
        *equal(c.DEC_REQ_KEY_, q.decision_requirements_definition_key),
        *tenants(c.TENANT_ID_, q.tenant_id_in, q.without_tenant_id),
    ]
    if q.root_decision_instances_only:
        conditions.append(c.ROOT_DEC_INST_ID_.is_(None))
    if q.evaluated_before is not None:
        conditions.append(c.EVAL_TIME_ <= stored_moment(q.evaluated_before, "evaluatedBefore"))
    if q.evaluated_after is not None:
        conditions.append(c.EVAL_TIME_ >= stored_moment(q.evaluated_after, "evaluatedAfter"))
    return conditions


def historic_decision_row(m: RowMapping) -> views.HistoricDecisionInstance:
    evaluated = utc(m["EVAL_TIME_"])
    assert evaluated is not None
    return views.HistoricDecisionInstance(
        id=m["ID_"],
        decision_definition_id=m["DEC_DEF_ID_"],
        decision_definition_key=m["DEC_DEF_KEY_"],
        decision_definition_name=m["DEC_DEF_NAME_"],
        evaluation_time=evaluated,
        process_definition_id=m["PROC_DEF_ID_"],
        process_definition_key=m["PROC_DEF_KEY_"],
        process_instance_id=m["PROC_INST_ID_"],
        root_process_instance_id=m["ROOT_PROC_INST_ID_"],
        activity_id=m["ACT_ID_"],
        activity_instance_id=m["ACT_INST_ID_"],
        user_id=m["USER_ID_"],
        collect_result_value=m["COLLECT_VALUE_"],
        root_decision_instance_id=m["ROOT_DEC_INST_ID_"],
        decision_requirements_definition_id=m["DEC_REQ_ID_"],
        decision_requirements_definition_key=m["DEC_REQ_KEY_"],
        removal_time=utc(m["REMOVAL_TIME_"]),
    )


HISTORIC_DECISION_INSTANCES: Search[
    HistoricDecisionInstanceQuery, views.HistoricDecisionInstance
] = Search(
    query=HistoricDecisionInstanceQuery,
    source=_hi,
    columns=(_hi,),
    filters=_historic_conditions,
    sorts=HISTORIC_DECISION_SORTS,
    then=(_hi.c.ID_,),
    row=historic_decision_row,
    filled=(_hi.c.EVAL_TIME_,),
)


def _values(
    conn: Connection, table: Table, instance_ids: Sequence[str]
) -> dict[str, list[tuple[RowMapping, dict[str, Any]]]]:
    """The rows of `table` (inputs or outputs) of these decision instances, by instance, in
    their ids' order (the order recorded), each with the fields its value gives the view."""
    if not instance_ids:
        return {}
    b = ACT_GE_BYTEARRAY
    stmt = (
        select(table, b.c.BYTES_)
        .select_from(table.outerjoin(b, b.c.ID_ == table.c.BYTEARRAY_ID_))
        .where(table.c.DEC_INST_ID_.in_(instance_ids))
        .order_by(table.c.DEC_INST_ID_, table.c.ID_)
    )
    found: dict[str, list[tuple[RowMapping, dict[str, Any]]]] = {}
    for row in conn.execute(stmt):
        m = row._mapping
        stored = stored_value(m, "VAR_TYPE_")
        shared = {
            "id": m["ID_"],
            "decision_instance_id": m["DEC_INST_ID_"],
            "clause_id": m["CLAUSE_ID_"],
            "clause_name": m["CLAUSE_NAME_"],
            "type": rest_type_name(stored.type),
            "value": from_stored(stored),
            "create_time": utc(m["CREATE_TIME_"]),
            "stored": stored,
            "root_process_instance_id": m["ROOT_PROC_INST_ID_"],
            "removal_time": utc(m["REMOVAL_TIME_"]),
        }
        found.setdefault(m["DEC_INST_ID_"], []).append((m, shared))
    return found


def decision_inputs(
    conn: Connection, instance_ids: Sequence[str]
) -> dict[str, list[views.HistoricDecisionInput]]:
    """The inputs of these decision instances, by instance, in their clauses' order."""
    return {
        instance: [views.HistoricDecisionInput(**shared) for _m, shared in rows]
        for instance, rows in _values(conn, ACT_HI_DEC_IN, instance_ids).items()
    }


def decision_outputs(
    conn: Connection, instance_ids: Sequence[str]
) -> dict[str, list[views.HistoricDecisionOutput]]:
    """The outputs of these decision instances, by instance, by rule then clause."""
    return {
        instance: [
            views.HistoricDecisionOutput(
                **shared,
                rule_id=m["RULE_ID_"],
                rule_order=m["RULE_ORDER_"],
                variable_name=m["VAR_NAME_"],
            )
            for m, shared in rows
        ]
        for instance, rows in _values(conn, ACT_HI_DEC_OUT, instance_ids).items()
    }
