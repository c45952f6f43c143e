"""The historic task instance search (ACT_HI_TASKINST) behind engine-rest's `/history/task`.
Reads only.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import exists, not_, or_
from sqlalchemy.engine import RowMapping

from flowledger.projections.tables import ACT_HI_TASKINST, ACT_RU_IDENTITYLINK

from .declaration import Search
from .filters import (
    LIKE_ESCAPE,
    Condition,
    NotIndexed,
    Spec,
    equal_fields,
    flag_fields,
    like_fields,
    member_fields,
    nothing_when_set,
)
from .history import (
    DEFINITION,
    P,
    V,
    VariableQueryDto,
    since,
    tenant,
    uncorrelated,
    until,
    variable_condition,
)
from .results import from_row


class HistoricTaskInstanceQuery(msgspec.Struct, rename="camel"):
    task_id: str | None = None
    task_parent_task_id: str | None = None
    process_instance_id: str | None = None
    process_instance_business_key: str | None = None
    process_instance_business_key_in: list[str] | None = None
    process_instance_business_key_like: str | None = None
    execution_id: str | None = None
    activity_instance_id_in: list[str] | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    process_definition_name: str | None = None
    task_name: str | None = None
    task_name_like: str | None = None
    task_description: str | None = None
    task_description_like: str | None = None
    task_definition_key: str | None = None
    task_definition_key_in: list[str] | None = None
    task_delete_reason: str | None = None
    task_delete_reason_like: str | None = None
    task_assignee: str | None = None
    task_assignee_like: str | None = None
    task_owner: str | None = None
    task_owner_like: str | None = None
    task_priority: int | None = None
    assigned: bool | None = None
    unassigned: bool | None = None
    finished: bool | None = None
    unfinished: bool | None = None
    process_finished: bool | None = None
    process_unfinished: bool | None = None
    task_due_date: datetime | None = None
    task_due_date_before: datetime | None = None
    task_due_date_after: datetime | None = None
    without_task_due_date: bool | None = None
    task_follow_up_date: datetime | None = None
    task_follow_up_date_before: datetime | None = None
    task_follow_up_date_after: datetime | None = None
    started_before: datetime | None = None
    started_after: datetime | None = None
    finished_before: datetime | None = None
    finished_after: datetime | None = None
    case_definition_id: str | None = None
    case_definition_key: str | None = None
    case_definition_name: str | None = None
    case_instance_id: str | None = None
    case_execution_id: str | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    task_variables: list[VariableQueryDto] | None = None
    process_variables: list[VariableQueryDto] | None = None
    variable_names_ignore_case: bool | None = None
    variable_values_ignore_case: bool | None = None
    task_involved_user: str | None = None
    task_involved_group: str | None = None
    task_had_candidate_user: str | None = None
    task_had_candidate_group: str | None = None
    with_candidate_groups: bool | None = None
    without_candidate_groups: bool | None = None


class HistoricTaskInstance(msgspec.Struct, kw_only=True):
    """An ACT_HI_TASKINST row: the fields of Camunda's HistoricTaskInstanceDto, then its state."""

    id: str
    process_definition_key: str | None
    process_definition_id: str | None
    process_instance_id: str | None
    execution_id: str | None
    case_definition_key: str | None
    case_definition_id: str | None
    case_instance_id: str | None
    case_execution_id: str | None
    activity_instance_id: str | None
    name: str | None
    description: str | None
    delete_reason: str | None
    owner: str | None
    assignee: str | None
    start_time: datetime
    end_time: datetime | None
    duration: int | None
    task_definition_key: str | None
    priority: int | None
    due: datetime | None
    parent_task_id: str | None
    follow_up: datetime | None
    tenant_id: str | None
    removal_time: datetime | None
    root_process_instance_id: str | None
    task_state: str | None


# -- historic task instances -----------------------------------------------------------------

_T = ACT_HI_TASKINST
_LINK = ACT_RU_IDENTITYLINK

TASK_INSTANCE_SORTS: dict[str, Any] = {
    "taskId": _T.c.ID_,
    "activityInstanceId": _T.c.ACT_INST_ID_,
    "processDefinitionId": _T.c.PROC_DEF_ID_,
    "processInstanceId": _T.c.PROC_INST_ID_,
    "executionId": _T.c.EXECUTION_ID_,
    "caseDefinitionId": _T.c.CASE_DEF_ID_,
    "caseInstanceId": _T.c.CASE_INST_ID_,
    "caseExecutionId": _T.c.CASE_EXECUTION_ID_,
    "duration": _T.c.DURATION_,
    "endTime": _T.c.END_TIME_,
    "startTime": _T.c.START_TIME_,
    "taskName": _T.c.NAME_,
    "taskDescription": _T.c.DESCRIPTION_,
    "assignee": _T.c.ASSIGNEE_,
    "owner": _T.c.OWNER_,
    "dueDate": _T.c.DUE_DATE_,
    "followUpDate": _T.c.FOLLOW_UP_DATE_,
    "deleteReason": _T.c.DELETE_REASON_,
    "taskDefinitionKey": _T.c.TASK_DEF_KEY_,
    "priority": _T.c.PRIORITY_,
    "tenantId": _T.c.TENANT_ID_,
}

_TI_EQUAL: Spec = (
    ("task_id", _T.c.ID_),
    ("task_parent_task_id", _T.c.PARENT_TASK_ID_),
    ("process_instance_id", _T.c.PROC_INST_ID_),
    ("execution_id", _T.c.EXECUTION_ID_),
    ("process_definition_id", _T.c.PROC_DEF_ID_),
    ("process_definition_key", _T.c.PROC_DEF_KEY_),
    ("task_name", _T.c.NAME_),
    ("task_description", _T.c.DESCRIPTION_),
    ("task_definition_key", _T.c.TASK_DEF_KEY_),
    ("task_delete_reason", _T.c.DELETE_REASON_),
    ("task_assignee", _T.c.ASSIGNEE_),
    ("task_owner", _T.c.OWNER_),
    ("task_priority", _T.c.PRIORITY_),
    ("task_due_date", _T.c.DUE_DATE_),
    ("task_follow_up_date", _T.c.FOLLOW_UP_DATE_),
    ("case_definition_id", _T.c.CASE_DEF_ID_),
    ("case_definition_key", _T.c.CASE_DEF_KEY_),
    ("case_instance_id", _T.c.CASE_INST_ID_),
    ("case_execution_id", _T.c.CASE_EXECUTION_ID_),
)
_TI_MEMBER: Spec = (
    ("activity_instance_id_in", _T.c.ACT_INST_ID_),
    ("task_definition_key_in", _T.c.TASK_DEF_KEY_),
)
_TI_LIKE: Spec = (
    ("task_name_like", _T.c.NAME_),
    ("task_description_like", _T.c.DESCRIPTION_),
    ("task_delete_reason_like", _T.c.DELETE_REASON_),
    ("task_assignee_like", _T.c.ASSIGNEE_),
    ("task_owner_like", _T.c.OWNER_),
)
_TI_SINCE: Spec = (
    ("task_due_date_after", _T.c.DUE_DATE_),
    ("task_follow_up_date_after", _T.c.FOLLOW_UP_DATE_),
    ("started_after", _T.c.START_TIME_),
    ("finished_after", _T.c.END_TIME_),
)
_TI_UNTIL: Spec = (
    ("task_due_date_before", _T.c.DUE_DATE_),
    ("task_follow_up_date_before", _T.c.FOLLOW_UP_DATE_),
    ("started_before", _T.c.START_TIME_),
    ("finished_before", _T.c.END_TIME_),
)
_ENDED_INSTANCES = uncorrelated(P.c.ID_, P.c.END_TIME_.is_not(None))
_CANDIDATE_GROUP = exists().where(
    _LINK.c.TASK_ID_ == _T.c.ID_, _LINK.c.TYPE_ == "candidate", _LINK.c.GROUP_ID_.is_not(None)
)
_TI_FLAGS: Spec = (
    ("assigned", _T.c.ASSIGNEE_.is_not(None)),
    ("unassigned", _T.c.ASSIGNEE_.is_(None)),
    ("finished", _T.c.END_TIME_.is_not(None)),
    ("unfinished", NotIndexed(_T.c.END_TIME_).is_(None)),  # see filters.NotIndexed
    ("process_finished", _T.c.PROC_INST_ID_.in_(_ENDED_INSTANCES)),
    ("process_unfinished", _T.c.PROC_INST_ID_.not_in(_ENDED_INSTANCES)),
    ("without_task_due_date", _T.c.DUE_DATE_.is_(None)),
    ("with_candidate_groups", _CANDIDATE_GROUP),
    ("without_candidate_groups", not_(_CANDIDATE_GROUP)),
)


def _task_instances_of(q: HistoricTaskInstanceQuery) -> Iterator[Condition]:
    """Filters on the task's process instance and definition."""
    keys = []
    if q.process_instance_business_key is not None:
        keys.append(P.c.BUSINESS_KEY_ == q.process_instance_business_key)
    if q.process_instance_business_key_in:
        keys.append(P.c.BUSINESS_KEY_.in_(list(q.process_instance_business_key_in)))
    if q.process_instance_business_key_like is not None:
        keys.append(
            P.c.BUSINESS_KEY_.like(q.process_instance_business_key_like, escape=LIKE_ESCAPE)
        )
    if keys:
        yield _T.c.PROC_INST_ID_.in_(uncorrelated(P.c.ID_, *keys))
    if q.process_definition_name is not None:
        names = uncorrelated(DEFINITION.c.ID_, DEFINITION.c.NAME_ == q.process_definition_name)
        yield _T.c.PROC_DEF_ID_.in_(names)


def _task_people(q: HistoricTaskInstanceQuery) -> Iterator[Condition]:
    """Involvement and candidates. Identity links are kept for open tasks only (there is no
    ACT_HI_IDENTITYLINK): for ended tasks only their assignee and owner count."""
    link = _LINK.c.TASK_ID_ == _T.c.ID_
    candidate = _LINK.c.TYPE_ == "candidate"
    if q.task_involved_user is not None:
        user = q.task_involved_user
        yield or_(
            _T.c.ASSIGNEE_ == user,
            _T.c.OWNER_ == user,
            exists().where(link, _LINK.c.USER_ID_ == user),
        )
    if q.task_involved_group is not None:
        yield exists().where(link, _LINK.c.GROUP_ID_ == q.task_involved_group)
    if q.task_had_candidate_user is not None:
        yield exists().where(link, candidate, _LINK.c.USER_ID_ == q.task_had_candidate_user)
    if q.task_had_candidate_group is not None:
        yield exists().where(link, candidate, _LINK.c.GROUP_ID_ == q.task_had_candidate_group)


def _task_variables(q: HistoricTaskInstanceQuery) -> Iterator[Condition]:
    names_ignore_case = q.variable_names_ignore_case is True
    values_ignore_case = q.variable_values_ignore_case is True
    for condition in q.task_variables or ():
        # Camunda allows only equality on task variables.
        matches = variable_condition(
            V,
            condition,
            names_ignore_case=names_ignore_case,
            values_ignore_case=values_ignore_case,
            operators=("eq",),
        )
        yield exists().where(V.c.TASK_ID_ == _T.c.ID_, matches)
    for condition in q.process_variables or ():
        matches = variable_condition(
            V,
            condition,
            names_ignore_case=names_ignore_case,
            values_ignore_case=values_ignore_case,
        )
        yield exists().where(
            V.c.PROC_INST_ID_ == _T.c.PROC_INST_ID_, V.c.TASK_ID_.is_(None), matches
        )


def _task_instance_conditions(q: HistoricTaskInstanceQuery) -> list[Condition]:
    return [
        *equal_fields(q, _TI_EQUAL),
        *member_fields(q, _TI_MEMBER),
        *like_fields(q, _TI_LIKE),
        *since(q, _TI_SINCE),
        *until(q, _TI_UNTIL),
        *flag_fields(q, _TI_FLAGS),
        *nothing_when_set(q.case_definition_name),
        *tenant(q, _T.c.TENANT_ID_),
        *_task_instances_of(q),
        *_task_people(q),
        *_task_variables(q),
    ]


def _historic_task_instance(m: RowMapping) -> HistoricTaskInstance:
    return from_row(HistoricTaskInstance, m)


TASK_INSTANCES: Search[HistoricTaskInstanceQuery, HistoricTaskInstance] = Search(
    query=HistoricTaskInstanceQuery,
    source=_T,
    columns=(_T,),
    filters=_task_instance_conditions,
    sorts=TASK_INSTANCE_SORTS,
    # Nulls last ascending and first descending on every database, then by start, then by id.
    then=(_T.c.START_TIME_, _T.c.ID_),
    row=_historic_task_instance,
    nulls="high",
)
