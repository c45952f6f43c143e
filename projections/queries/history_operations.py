"""The user operation log (ACT_HI_OP_LOG): Camunda's UserOperationLogQuery, behind engine-rest's
`/history/user-operation`. Reads only; the table is written at history level full.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy.engine import RowMapping

from ..tables import ACT_HI_OP_LOG
from .declaration import Search
from .filters import Condition, Spec, equal_fields, member_fields, stored_moment, utc

_OP = ACT_HI_OP_LOG


class UserOperationLogQuery(msgspec.Struct, rename="camel"):
    """Camunda's UserOperationLogQueryDto filters; None means "no filter"."""

    deployment_id: str | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    process_instance_id: str | None = None
    execution_id: str | None = None
    case_definition_id: str | None = None
    case_instance_id: str | None = None
    case_execution_id: str | None = None
    task_id: str | None = None
    external_task_id: str | None = None
    batch_id: str | None = None
    job_id: str | None = None
    job_definition_id: str | None = None
    user_id: str | None = None
    operation_id: str | None = None
    operation_type: str | None = None
    entity_type: str | None = None
    entity_type_in: list[str] | None = None
    category: str | None = None
    category_in: list[str] | None = None
    property: str | None = None
    after_timestamp: datetime | None = None
    before_timestamp: datetime | None = None


class UserOperationLogRow(msgspec.Struct, frozen=True):
    """One ACT_HI_OP_LOG row: the fields of Camunda's UserOperationLogEntryDto in its order."""

    id: str
    deployment_id: str | None
    process_definition_id: str | None
    process_definition_key: str | None
    process_instance_id: str | None
    execution_id: str | None
    case_definition_id: str | None
    case_instance_id: str | None
    case_execution_id: str | None
    task_id: str | None
    job_id: str | None
    job_definition_id: str | None
    batch_id: str | None
    user_id: str | None
    timestamp: datetime
    operation_id: str | None
    external_task_id: str | None
    operation_type: str | None
    entity_type: str | None
    property: str | None
    org_value: str | None
    new_value: str | None
    removal_time: datetime | None
    root_process_instance_id: str | None
    category: str | None
    annotation: str | None


# Camunda sorts this list by timestamp only.
USER_OPERATION_SORTS: dict[str, Any] = {"timestamp": _OP.c.TIMESTAMP_}

_EQUAL: Spec = (
    ("deployment_id", _OP.c.DEPLOYMENT_ID_),
    ("process_definition_id", _OP.c.PROC_DEF_ID_),
    ("process_definition_key", _OP.c.PROC_DEF_KEY_),
    ("process_instance_id", _OP.c.PROC_INST_ID_),
    ("execution_id", _OP.c.EXECUTION_ID_),
    ("case_definition_id", _OP.c.CASE_DEF_ID_),
    ("case_instance_id", _OP.c.CASE_INST_ID_),
    ("case_execution_id", _OP.c.CASE_EXECUTION_ID_),
    ("task_id", _OP.c.TASK_ID_),
    ("external_task_id", _OP.c.EXTERNAL_TASK_ID_),
    ("batch_id", _OP.c.BATCH_ID_),
    ("job_id", _OP.c.JOB_ID_),
    ("job_definition_id", _OP.c.JOB_DEF_ID_),
    ("user_id", _OP.c.USER_ID_),
    ("operation_id", _OP.c.OPERATION_ID_),
    ("operation_type", _OP.c.OPERATION_TYPE_),
    ("entity_type", _OP.c.ENTITY_TYPE_),
    ("category", _OP.c.CATEGORY_),
    ("property", _OP.c.PROPERTY_),
)
_MEMBER: Spec = (
    ("entity_type_in", _OP.c.ENTITY_TYPE_),
    ("category_in", _OP.c.CATEGORY_),
)


def _conditions(q: UserOperationLogQuery) -> list[Condition]:
    conditions = [*equal_fields(q, _EQUAL), *member_fields(q, _MEMBER)]
    # Camunda's afterTimestamp and beforeTimestamp leave the moment itself out.
    if q.after_timestamp is not None:
        conditions.append(_OP.c.TIMESTAMP_ > stored_moment(q.after_timestamp, "afterTimestamp"))
    if q.before_timestamp is not None:
        conditions.append(_OP.c.TIMESTAMP_ < stored_moment(q.before_timestamp, "beforeTimestamp"))
    return conditions


def _row(m: RowMapping) -> UserOperationLogRow:
    timestamp = utc(m["TIMESTAMP_"])
    assert timestamp is not None  # NOT NULL
    return UserOperationLogRow(
        id=m["ID_"],
        deployment_id=m["DEPLOYMENT_ID_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_definition_key=m["PROC_DEF_KEY_"],
        process_instance_id=m["PROC_INST_ID_"],
        execution_id=m["EXECUTION_ID_"],
        case_definition_id=m["CASE_DEF_ID_"],
        case_instance_id=m["CASE_INST_ID_"],
        case_execution_id=m["CASE_EXECUTION_ID_"],
        task_id=m["TASK_ID_"],
        external_task_id=m["EXTERNAL_TASK_ID_"],
        batch_id=m["BATCH_ID_"],
        job_id=m["JOB_ID_"],
        job_definition_id=m["JOB_DEF_ID_"],
        user_id=m["USER_ID_"],
        timestamp=timestamp,
        operation_id=m["OPERATION_ID_"],
        operation_type=m["OPERATION_TYPE_"],
        entity_type=m["ENTITY_TYPE_"],
        property=m["PROPERTY_"],
        org_value=m["ORG_VALUE_"],
        new_value=m["NEW_VALUE_"],
        removal_time=utc(m["REMOVAL_TIME_"]),
        root_process_instance_id=m["ROOT_PROC_INST_ID_"],
        category=m["CATEGORY_"],
        annotation=m["ANNOTATION_"],
    )


USER_OPERATIONS: Search[UserOperationLogQuery, UserOperationLogRow] = Search(
    query=UserOperationLogQuery,
    source=_OP,
    columns=(_OP,),
    filters=_conditions,
    sorts=USER_OPERATION_SORTS,
    # The rows of one command share its moment: its id keeps them together, then the property.
    then=(_OP.c.TIMESTAMP_, _OP.c.OPERATION_ID_, _OP.c.ID_),
    row=_row,
    nulls="low",
    counted=_OP,
)
