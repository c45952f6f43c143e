"""The historic variable instance and detail (variable update) searches (ACT_HI_VARINST,
ACT_HI_DETAIL) behind engine-rest's `/history/variable-instance` and `/history/detail`, single
entries and their binary values. Reads only.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import and_, func, select
from sqlalchemy.engine import Connection, RowMapping

from flowledger.core.variables import StoredValue
from flowledger.projections.tables import ACT_HI_DETAIL

from .declaration import Search, first_where
from .filters import (
    LIKE_ESCAPE,
    Condition,
    InvalidQuery,
    Spec,
    equal_fields,
    member_fields,
    nothing_when_set,
)
from .history import B, V, VariableQueryDto, since, tenant, until, variable_types
from .results import from_row
from .variables import name_matches, stored_value, value_matches


class HistoricVariableInstanceQuery(msgspec.Struct, rename="camel"):
    variable_name: str | None = None
    variable_name_like: str | None = None
    variable_value: Any = None
    variable_names_ignore_case: bool | None = None
    variable_values_ignore_case: bool | None = None
    variable_type_in: list[str] | None = None
    include_deleted: bool | None = None
    process_instance_id: str | None = None
    process_instance_id_in: list[str] | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    execution_id_in: list[str] | None = None
    case_instance_id: str | None = None
    case_execution_id_in: list[str] | None = None
    case_activity_id_in: list[str] | None = None
    task_id_in: list[str] | None = None
    activity_instance_id_in: list[str] | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None


class HistoricDetailQuery(msgspec.Struct, rename="camel"):
    process_instance_id: str | None = None
    process_instance_id_in: list[str] | None = None
    execution_id: str | None = None
    task_id: str | None = None
    activity_instance_id: str | None = None
    case_instance_id: str | None = None
    case_execution_id: str | None = None
    variable_instance_id: str | None = None
    variable_type_in: list[str] | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    user_operation_id: str | None = None
    form_fields: bool | None = None
    variable_updates: bool | None = None
    exclude_task_details: bool | None = None
    initial: bool | None = None
    occurred_before: datetime | None = None
    occurred_after: datetime | None = None


class HistoricVariableInstance(msgspec.Struct, kw_only=True):
    id: str
    name: str
    value: StoredValue
    process_definition_key: str | None
    process_definition_id: str | None
    process_instance_id: str | None
    execution_id: str | None
    activity_instance_id: str | None
    case_definition_key: str | None
    case_definition_id: str | None
    case_instance_id: str | None
    case_execution_id: str | None
    task_id: str | None
    tenant_id: str | None
    state: str | None
    create_time: datetime | None
    removal_time: datetime | None
    root_process_instance_id: str | None


class HistoricVariableUpdate(msgspec.Struct, kw_only=True):
    """An ACT_HI_DETAIL row; `type` is Camunda's REST name (`variableUpdate`, `formField`)."""

    id: str
    type: str
    process_definition_key: str | None
    process_definition_id: str | None
    process_instance_id: str | None
    activity_instance_id: str | None
    execution_id: str | None
    case_definition_key: str | None
    case_definition_id: str | None
    case_instance_id: str | None
    case_execution_id: str | None
    task_id: str | None
    tenant_id: str | None
    user_operation_id: str | None
    time: datetime | None
    removal_time: datetime | None
    root_process_instance_id: str | None
    variable_name: str
    variable_instance_id: str | None
    value: StoredValue
    initial: bool
    revision: int | None


# -- historic variable instances -------------------------------------------------------------

VARIABLE_INSTANCE_SORTS: dict[str, Any] = {
    "instanceId": V.c.PROC_INST_ID_,
    "variableName": V.c.NAME_,
    "tenantId": V.c.TENANT_ID_,
}

_VI_EQUAL: Spec = (
    ("process_instance_id", V.c.PROC_INST_ID_),
    ("process_definition_id", V.c.PROC_DEF_ID_),
    ("process_definition_key", V.c.PROC_DEF_KEY_),
    ("case_instance_id", V.c.CASE_INST_ID_),
)
_VI_MEMBER: Spec = (
    ("process_instance_id_in", V.c.PROC_INST_ID_),
    ("execution_id_in", V.c.EXECUTION_ID_),
    ("case_execution_id_in", V.c.CASE_EXECUTION_ID_),
    ("task_id_in", V.c.TASK_ID_),
    ("activity_instance_id_in", V.c.ACT_INST_ID_),
)


def _with_value(table: Any) -> Any:
    """The table joined with its values' byte arrays, except for Bytes: like Camunda's
    disableBinaryFetching, lists leave Bytes values out (`.../data` serves them)."""
    return table.outerjoin(B, and_(B.c.ID_ == table.c.BYTEARRAY_ID_, table.c.VAR_TYPE_ != "bytes"))


def _variable_name_and_value(q: HistoricVariableInstanceQuery) -> Iterator[Condition]:
    names_ignore_case = q.variable_names_ignore_case is True
    if q.variable_name is not None:
        yield name_matches(V, q.variable_name, names_ignore_case)
    if q.variable_name_like is not None:
        column: Any = func.lower(V.c.NAME_) if names_ignore_case else V.c.NAME_
        pattern = q.variable_name_like
        yield column.like(pattern.lower() if names_ignore_case else pattern, escape=LIKE_ESCAPE)
    if q.variable_value is not None:
        if q.variable_name is None:
            raise InvalidQuery(
                "Only a single variable value parameter specified: variable name and value "
                "are required to be able to query after a specific variable value."
            )
        ignore_case = q.variable_values_ignore_case is True
        condition = VariableQueryDto(q.variable_name, "eq", q.variable_value)
        yield value_matches(V, condition, ignore_case, type_column="VAR_TYPE_")


def _variable_instance_conditions(q: HistoricVariableInstanceQuery) -> list[Condition]:
    conditions = [
        *equal_fields(q, _VI_EQUAL),
        *member_fields(q, _VI_MEMBER),
        *nothing_when_set(q.case_activity_id_in),
        *tenant(q, V.c.TENANT_ID_),
        *_variable_name_and_value(q),
    ]
    if q.variable_type_in:
        conditions.append(V.c.VAR_TYPE_.in_(variable_types(q.variable_type_in)))
    if q.include_deleted is not True:
        conditions.append(V.c.STATE_ == "CREATED")
    return conditions


def _historic_variable_instance(m: RowMapping) -> HistoricVariableInstance:
    return from_row(HistoricVariableInstance, m, value=stored_value(m, "VAR_TYPE_"))


VARIABLE_INSTANCES: Search[HistoricVariableInstanceQuery, HistoricVariableInstance] = Search(
    query=HistoricVariableInstanceQuery,
    source=_with_value(V),
    columns=(V, B.c.BYTES_),
    filters=_variable_instance_conditions,
    sorts=VARIABLE_INSTANCE_SORTS,
    then=(V.c.CREATE_TIME_, V.c.ID_),
    row=_historic_variable_instance,
    nulls="high",
    counted=V,
)


def variable_instance(conn: Connection, variable_id: str) -> HistoricVariableInstance | None:
    """One historic variable by id, deleted or not."""
    return first_where(conn, VARIABLE_INSTANCES, V.c.ID_ == variable_id)


# -- historic details ------------------------------------------------------------------------

_DT = ACT_HI_DETAIL

DETAIL_SORTS: dict[str, Any] = {
    "processInstanceId": _DT.c.PROC_INST_ID_,
    "variableName": _DT.c.NAME_,
    "variableType": _DT.c.VAR_TYPE_,
    "variableRevision": _DT.c.REV_,
    "formPropertyId": _DT.c.NAME_,
    "time": _DT.c.TIME_,
    "occurrence": _DT.c.SEQUENCE_COUNTER_,
    "tenantId": _DT.c.TENANT_ID_,
}
# ACT_HI_DETAIL.TYPE_ and the REST `type` of each kind of detail.
VARIABLE_UPDATE, FORM_PROPERTY = "VariableUpdate", "FormProperty"
_REST_DETAIL_TYPES = {VARIABLE_UPDATE: "variableUpdate", FORM_PROPERTY: "formField"}

_DT_EQUAL: Spec = (
    ("process_instance_id", _DT.c.PROC_INST_ID_),
    ("execution_id", _DT.c.EXECUTION_ID_),
    ("task_id", _DT.c.TASK_ID_),
    ("activity_instance_id", _DT.c.ACT_INST_ID_),
    ("case_instance_id", _DT.c.CASE_INST_ID_),
    ("case_execution_id", _DT.c.CASE_EXECUTION_ID_),
    ("variable_instance_id", _DT.c.VAR_INST_ID_),
    ("user_operation_id", _DT.c.OPERATION_ID_),
)


def _detail_kind(q: HistoricDetailQuery) -> Iterator[Condition]:
    # Camunda applies formFields, then variableUpdates: the later one wins.
    if q.variable_updates is True:
        yield _DT.c.TYPE_ == VARIABLE_UPDATE
    elif q.form_fields is True:
        yield _DT.c.TYPE_ == FORM_PROPERTY
    if q.exclude_task_details is True and q.task_id is None:
        yield _DT.c.TASK_ID_.is_(None)
    if q.initial is True:
        yield _DT.c.INITIAL_.is_(True)
    if q.variable_type_in:
        yield _DT.c.VAR_TYPE_.in_(variable_types(q.variable_type_in))


def _detail_conditions(q: HistoricDetailQuery) -> list[Condition]:
    return [
        *equal_fields(q, _DT_EQUAL),
        *member_fields(q, (("process_instance_id_in", _DT.c.PROC_INST_ID_),)),
        *since(q, (("occurred_after", _DT.c.TIME_),)),
        *until(q, (("occurred_before", _DT.c.TIME_),)),
        *tenant(q, _DT.c.TENANT_ID_),
        *_detail_kind(q),
    ]


def _historic_detail(m: RowMapping) -> HistoricVariableUpdate:
    return from_row(
        HistoricVariableUpdate,
        m,
        type=_REST_DETAIL_TYPES.get(m["TYPE_"], m["TYPE_"]),
        value=stored_value(m, "VAR_TYPE_"),
        initial=bool(m["INITIAL_"]),
    )


DETAILS: Search[HistoricDetailQuery, HistoricVariableUpdate] = Search(
    query=HistoricDetailQuery,
    source=_with_value(_DT),
    columns=(_DT, B.c.BYTES_),
    filters=_detail_conditions,
    sorts=DETAIL_SORTS,
    then=(_DT.c.TIME_, _DT.c.SEQUENCE_COUNTER_, _DT.c.ID_),
    row=_historic_detail,
    nulls="high",
    counted=_DT,
)


def detail(conn: Connection, detail_id: str) -> HistoricVariableUpdate | None:
    return first_where(conn, DETAILS, _DT.c.ID_ == detail_id)


# -- binary values -----------------------------------------------------------------------------


def _binary(conn: Connection, table: Any, entity_id: str) -> tuple[str, bytes | None] | None:
    stmt = (
        select(table.c.VAR_TYPE_, B.c.BYTES_)
        .select_from(table.outerjoin(B, B.c.ID_ == table.c.BYTEARRAY_ID_))
        .where(table.c.ID_ == entity_id)
    )
    row = conn.execute(stmt).first()
    if row is None:
        return None
    return row[0], None if row[1] is None else bytes(row[1])


def variable_instance_data(conn: Connection, variable_id: str) -> tuple[str, bytes | None] | None:
    """(stored type, bytes) of a historic variable; None when there is no such variable."""
    return _binary(conn, V, variable_id)


def detail_data(conn: Connection, detail_id: str) -> tuple[str, bytes | None] | None:
    """(stored type, bytes) of a historic variable update; None when there is no such detail."""
    return _binary(conn, _DT, detail_id)
