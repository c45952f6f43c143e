"""The historic process instance and activity instance searches (ACT_HI_PROCINST,
ACT_HI_ACTINST) behind engine-rest's `/history/process-instance` and `/history/activity-instance`.
Reads only.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import exists, or_
from sqlalchemy.engine import RowMapping

from flowledger.projections.tables import (
    ACT_HI_ACTINST,
    ACT_HI_INCIDENT,
    ACT_HI_JOB_LOG,
    ACT_HI_PROCINST,
)

from .declaration import Search
from .filters import (
    LIKE_ESCAPE,
    Condition,
    InvalidQuery,
    NotIndexed,
    Spec,
    equal_fields,
    flag_fields,
    like_fields,
    member_fields,
    nothing_when_set,
    stored_moment,
)
from .history import (
    DEFINITION,
    P,
    V,
    VariableQueryDto,
    not_member,
    since,
    tenant,
    uncorrelated,
    until,
    variable_condition,
)
from .results import from_row


class HistoricProcessInstanceQuery(msgspec.Struct, rename="camel"):
    process_instance_id: str | None = None
    process_instance_ids: list[str] | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    process_definition_key_in: list[str] | None = None
    process_definition_key_not_in: list[str] | None = None
    process_definition_name: str | None = None
    process_definition_name_like: str | None = None
    process_instance_business_key: str | None = None
    process_instance_business_key_in: list[str] | None = None
    process_instance_business_key_like: str | None = None
    root_process_instances: bool | None = None
    finished: bool | None = None
    unfinished: bool | None = None
    with_incidents: bool | None = None
    with_root_incidents: bool | None = None
    incident_type: str | None = None
    incident_status: str | None = None
    incident_message: str | None = None
    incident_message_like: str | None = None
    started_before: datetime | None = None
    started_after: datetime | None = None
    finished_before: datetime | None = None
    finished_after: datetime | None = None
    executed_activity_after: datetime | None = None
    executed_activity_before: datetime | None = None
    executed_job_after: datetime | None = None
    executed_job_before: datetime | None = None
    started_by: str | None = None
    super_process_instance_id: str | None = None
    sub_process_instance_id: str | None = None
    super_case_instance_id: str | None = None
    sub_case_instance_id: str | None = None
    case_instance_id: str | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    executed_activity_id_in: list[str] | None = None
    active_activity_id_in: list[str] | None = None
    active: bool | None = None
    suspended: bool | None = None
    completed: bool | None = None
    externally_terminated: bool | None = None
    internally_terminated: bool | None = None
    variables: list[VariableQueryDto] | None = None
    variable_names_ignore_case: bool | None = None
    variable_values_ignore_case: bool | None = None


class HistoricActivityInstanceQuery(msgspec.Struct, rename="camel"):
    activity_instance_id: str | None = None
    process_instance_id: str | None = None
    process_definition_id: str | None = None
    execution_id: str | None = None
    activity_id: str | None = None
    activity_name: str | None = None
    activity_type: str | None = None
    task_assignee: str | None = None
    finished: bool | None = None
    unfinished: bool | None = None
    canceled: bool | None = None
    complete_scope: bool | None = None
    started_before: datetime | None = None
    started_after: datetime | None = None
    finished_before: datetime | None = None
    finished_after: datetime | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None


class HistoricProcessInstance(msgspec.Struct, kw_only=True):
    """An ACT_HI_PROCINST row with its definition's name and version: the fields of Camunda's
    HistoricProcessInstanceDto, then the end activity it lacks."""

    id: str
    business_key: str | None
    process_definition_id: str
    process_definition_key: str
    process_definition_name: str | None
    process_definition_version: int | None
    start_time: datetime
    end_time: datetime | None
    removal_time: datetime | None
    duration_in_millis: int | None
    start_user_id: str | None
    start_activity_id: str | None
    delete_reason: str | None
    root_process_instance_id: str | None
    super_process_instance_id: str | None
    super_case_instance_id: str | None
    case_instance_id: str | None
    tenant_id: str | None
    state: str
    # Camunda 7.22's field (ACT_HI_PROCINST has had the column since 7.7): the instance this
    # one was restarted from.
    restarted_process_instance_id: str | None
    end_activity_id: str | None


class HistoricActivityInstance(msgspec.Struct, kw_only=True):
    id: str
    parent_activity_instance_id: str | None
    activity_id: str
    activity_name: str | None
    activity_type: str
    process_definition_key: str | None
    process_definition_id: str
    process_instance_id: str
    execution_id: str
    task_id: str | None
    assignee: str | None
    called_process_instance_id: str | None
    called_case_instance_id: str | None
    start_time: datetime
    end_time: datetime | None
    duration_in_millis: int | None
    canceled: bool
    complete_scope: bool
    tenant_id: str | None
    removal_time: datetime | None
    root_process_instance_id: str | None


# -- historic process instances --------------------------------------------------------------
# (Lists sort nulls last ascending and first descending on every database, `nulls="high"`, then
# by their default order, then by the primary key.)

_SUB = ACT_HI_PROCINST.alias("SUB")
_A = ACT_HI_ACTINST

PROCESS_INSTANCE_SORTS: dict[str, Any] = {
    "instanceId": P.c.ID_,
    "definitionId": P.c.PROC_DEF_ID_,
    "definitionKey": P.c.PROC_DEF_KEY_,
    "definitionName": DEFINITION.c.NAME_,
    "definitionVersion": DEFINITION.c.VERSION_,
    "businessKey": P.c.BUSINESS_KEY_,
    "startTime": P.c.START_TIME_,
    "endTime": P.c.END_TIME_,
    "duration": P.c.DURATION_,
    "tenantId": P.c.TENANT_ID_,
}

_PI_EQUAL: Spec = (
    ("process_instance_id", P.c.ID_),
    ("process_definition_id", P.c.PROC_DEF_ID_),
    ("process_definition_key", P.c.PROC_DEF_KEY_),
    ("process_instance_business_key", P.c.BUSINESS_KEY_),
    ("started_by", P.c.START_USER_ID_),
    ("super_process_instance_id", P.c.SUPER_PROCESS_INSTANCE_ID_),
    ("super_case_instance_id", P.c.SUPER_CASE_INSTANCE_ID_),
    ("case_instance_id", P.c.CASE_INST_ID_),
)
_PI_MEMBER: Spec = (
    ("process_instance_ids", P.c.ID_),
    ("process_definition_key_in", P.c.PROC_DEF_KEY_),
    ("process_instance_business_key_in", P.c.BUSINESS_KEY_),
)
_PI_FLAGS: Spec = (
    ("root_process_instances", P.c.SUPER_PROCESS_INSTANCE_ID_.is_(None)),
    ("finished", P.c.END_TIME_.is_not(None)),
    # Unfinished rows may be many: no index lookup for them (see NotIndexed).
    ("unfinished", NotIndexed(P.c.END_TIME_).is_(None)),
    ("active", P.c.STATE_ == "ACTIVE"),
    ("suspended", P.c.STATE_ == "SUSPENDED"),
    ("completed", P.c.STATE_ == "COMPLETED"),
    ("externally_terminated", P.c.STATE_ == "EXTERNALLY_TERMINATED"),
    ("internally_terminated", P.c.STATE_ == "INTERNALLY_TERMINATED"),
)
_INC = ACT_HI_INCIDENT
_JOB_LOG = ACT_HI_JOB_LOG
# Camunda's incidentStatus values: an incident without an end is open; an ended one (resolved
# or deleted with its instance, INCIDENT_STATE_ 1 or 2) counts as resolved, as in Camunda.
INCIDENT_STATUSES: dict[str, Condition] = {
    "open": _INC.c.END_TIME_.is_(None),
    "resolved": _INC.c.END_TIME_.is_not(None),
}


def _definition_names(q: HistoricProcessInstanceQuery) -> Iterator[Condition]:
    if q.process_definition_name is not None:
        names = uncorrelated(DEFINITION.c.ID_, DEFINITION.c.NAME_ == q.process_definition_name)
        yield P.c.PROC_DEF_ID_.in_(names)
    if q.process_definition_name_like is not None:
        names = uncorrelated(
            DEFINITION.c.ID_,
            DEFINITION.c.NAME_.like(q.process_definition_name_like, escape=LIKE_ESCAPE),
        )
        yield P.c.PROC_DEF_ID_.in_(names)


def _executed_activities(q: HistoricProcessInstanceQuery) -> Iterator[Condition]:
    """Camunda's executedActivity*/activeActivityIdIn: an activity instance of the process
    instance started or ended in the period, ended (executed) or is still running (active)."""
    mine = _A.c.PROC_INST_ID_ == P.c.ID_
    if q.executed_activity_after is not None:
        moment = stored_moment(q.executed_activity_after, "executedActivityAfter")
        yield exists().where(mine, or_(_A.c.START_TIME_ >= moment, _A.c.END_TIME_ >= moment))
    if q.executed_activity_before is not None:
        moment = stored_moment(q.executed_activity_before, "executedActivityBefore")
        yield exists().where(mine, or_(_A.c.START_TIME_ <= moment, _A.c.END_TIME_ <= moment))
    if q.executed_activity_id_in:
        ids = list(q.executed_activity_id_in)
        yield exists().where(mine, _A.c.ACT_ID_.in_(ids), _A.c.END_TIME_.is_not(None))
    if q.active_activity_id_in:
        ids = list(q.active_activity_id_in)
        yield exists().where(mine, _A.c.ACT_ID_.in_(ids), _A.c.END_TIME_.is_(None))


def _incidents(q: HistoricProcessInstanceQuery) -> Iterator[Condition]:
    """Camunda's incident filters: one historic incident of the process instance meets them all
    (its mapping joins ACT_HI_INCIDENT once). Any of them set, even alone, wants an incident."""
    wanted: list[Condition] = []
    if q.incident_type is not None:
        wanted.append(_INC.c.INCIDENT_TYPE_ == q.incident_type)
    if q.incident_message is not None:
        wanted.append(_INC.c.INCIDENT_MSG_ == q.incident_message)
    if q.incident_message_like is not None:
        wanted.append(_INC.c.INCIDENT_MSG_.like(q.incident_message_like, escape=LIKE_ESCAPE))
    if q.incident_status is not None:
        status = INCIDENT_STATUSES.get(q.incident_status)
        if status is None:
            # Camunda ignores an unknown status (any incident then matches): a typo would pass
            # unnoticed, so it is refused here.
            raise InvalidQuery(
                f"Cannot set query parameter 'incidentStatus' to value '{q.incident_status}': "
                "expected one of open, resolved"
            )
        wanted.append(status)
    if q.with_root_incidents:
        wanted.append(_INC.c.ID_ == _INC.c.ROOT_CAUSE_INCIDENT_ID_)
    if wanted or q.with_incidents:
        # Few instances have incidents: their ids are looked up, not every instance probed.
        yield P.c.ID_.in_(uncorrelated(_INC.c.PROC_INST_ID_, *wanted))


def _executed_jobs(q: HistoricProcessInstanceQuery) -> Iterator[Condition]:
    """Camunda's executedJobAfter/Before: one job log entry of the process instance (a job
    created, failed, succeeded or deleted) at a moment in the period."""
    after, before = q.executed_job_after, q.executed_job_before
    if after is None and before is None:
        return
    moment = _JOB_LOG.c.TIMESTAMP_
    yield exists().where(
        _JOB_LOG.c.PROCESS_INSTANCE_ID_ == P.c.ID_,
        *([] if after is None else [moment >= stored_moment(after, "executedJobAfter")]),
        *([] if before is None else [moment <= stored_moment(before, "executedJobBefore")]),
    )


def _process_variables(q: HistoricProcessInstanceQuery) -> Iterator[Condition]:
    for condition in q.variables or ():
        yield exists().where(
            V.c.PROC_INST_ID_ == P.c.ID_,
            variable_condition(
                V,
                condition,
                names_ignore_case=q.variable_names_ignore_case is True,
                values_ignore_case=q.variable_values_ignore_case is True,
            ),
        )


def _process_instance_conditions(q: HistoricProcessInstanceQuery) -> list[Condition]:
    conditions = [
        *equal_fields(q, _PI_EQUAL),
        *member_fields(q, _PI_MEMBER),
        *not_member(q, (("process_definition_key_not_in", P.c.PROC_DEF_KEY_),)),
        *like_fields(q, (("process_instance_business_key_like", P.c.BUSINESS_KEY_),)),
        *since(q, (("started_after", P.c.START_TIME_), ("finished_after", P.c.END_TIME_))),
        *until(q, (("started_before", P.c.START_TIME_), ("finished_before", P.c.END_TIME_))),
        *flag_fields(q, _PI_FLAGS),
        # No case instances here: none is the sub instance of one.
        *nothing_when_set(q.sub_case_instance_id),
        *tenant(q, P.c.TENANT_ID_),
        *_definition_names(q),
        *_executed_activities(q),
        *_incidents(q),
        *_executed_jobs(q),
        *_process_variables(q),
    ]
    if q.sub_process_instance_id is not None:
        parent = uncorrelated(
            _SUB.c.SUPER_PROCESS_INSTANCE_ID_, _SUB.c.ID_ == q.sub_process_instance_id
        )
        conditions.append(P.c.ID_.in_(parent))
    return conditions


def _historic_process_instance(m: RowMapping) -> HistoricProcessInstance:
    return from_row(HistoricProcessInstance, m)


PROCESS_INSTANCES: Search[HistoricProcessInstanceQuery, HistoricProcessInstance] = Search(
    query=HistoricProcessInstanceQuery,
    source=P.outerjoin(DEFINITION, DEFINITION.c.ID_ == P.c.PROC_DEF_ID_),
    columns=(P, DEFINITION.c.NAME_.label("DEF_NAME_"), DEFINITION.c.VERSION_.label("DEF_VERSION_")),
    filters=_process_instance_conditions,
    sorts=PROCESS_INSTANCE_SORTS,
    then=(P.c.START_TIME_, P.c.ID_),
    row=_historic_process_instance,
    nulls="high",
    counted=P,
)


# -- historic activity instances -------------------------------------------------------------

ACTIVITY_INSTANCE_SORTS: dict[str, Any] = {
    "activityInstanceId": _A.c.ID_,
    "instanceId": _A.c.PROC_INST_ID_,
    "executionId": _A.c.EXECUTION_ID_,
    "activityId": _A.c.ACT_ID_,
    "activityName": _A.c.ACT_NAME_,
    "activityType": _A.c.ACT_TYPE_,
    "startTime": _A.c.START_TIME_,
    "endTime": _A.c.END_TIME_,
    "duration": _A.c.DURATION_,
    "definitionId": _A.c.PROC_DEF_ID_,
    "occurrence": _A.c.SEQUENCE_COUNTER_,
    "tenantId": _A.c.TENANT_ID_,
}
ACTIVITY_STATE_SCOPE_COMPLETE, ACTIVITY_STATE_CANCELED = 1, 2

_AI_EQUAL: Spec = (
    ("activity_instance_id", _A.c.ID_),
    ("process_instance_id", _A.c.PROC_INST_ID_),
    ("process_definition_id", _A.c.PROC_DEF_ID_),
    ("execution_id", _A.c.EXECUTION_ID_),
    ("activity_id", _A.c.ACT_ID_),
    ("activity_name", _A.c.ACT_NAME_),
    ("activity_type", _A.c.ACT_TYPE_),
    ("task_assignee", _A.c.ASSIGNEE_),
)
_AI_FLAGS: Spec = (
    ("finished", _A.c.END_TIME_.is_not(None)),
    ("unfinished", _A.c.END_TIME_.is_(None)),
    ("canceled", _A.c.ACT_INST_STATE_ == ACTIVITY_STATE_CANCELED),
    ("complete_scope", _A.c.ACT_INST_STATE_ == ACTIVITY_STATE_SCOPE_COMPLETE),
)


def _activity_instance_conditions(q: HistoricActivityInstanceQuery) -> list[Condition]:
    return [
        *equal_fields(q, _AI_EQUAL),
        *flag_fields(q, _AI_FLAGS),
        *since(q, (("started_after", _A.c.START_TIME_), ("finished_after", _A.c.END_TIME_))),
        *until(q, (("started_before", _A.c.START_TIME_), ("finished_before", _A.c.END_TIME_))),
        *tenant(q, _A.c.TENANT_ID_),
    ]


def _historic_activity_instance(m: RowMapping) -> HistoricActivityInstance:
    state = m["ACT_INST_STATE_"]
    return from_row(
        HistoricActivityInstance,
        m,
        canceled=state == ACTIVITY_STATE_CANCELED,
        complete_scope=state == ACTIVITY_STATE_SCOPE_COMPLETE,
    )


ACTIVITY_INSTANCES: Search[HistoricActivityInstanceQuery, HistoricActivityInstance] = Search(
    query=HistoricActivityInstanceQuery,
    source=_A,
    columns=(_A,),
    filters=_activity_instance_conditions,
    sorts=ACTIVITY_INSTANCE_SORTS,
    then=(_A.c.START_TIME_, _A.c.SEQUENCE_COUNTER_, _A.c.ID_),
    row=_historic_activity_instance,
    nulls="high",
)
