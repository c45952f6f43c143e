"""Jobs (ACT_RU_JOB), job definitions (ACT_RU_JOBDEF) and open incidents (ACT_RU_INCIDENT):
Camunda's job, job definition and incident queries, behind engine-rest's `/job`,
`/job-definition` and `/incident` and the engine API's lists (`projections.job_queries`).
Reads only.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec
from sqlalchemy import or_
from sqlalchemy.engine import RowMapping

from ..tables import ACT_RE_PROCDEF, ACT_RU_INCIDENT, ACT_RU_JOB, ACT_RU_JOBDEF
from .declaration import Search
from .filters import (
    SUSPENDED,
    Condition,
    InvalidQuery,
    Spec,
    equal_fields,
    like_fields,
    naive_utc,
    one_of,
    parse_moment,
    stored_moment,
    suspension,
    tenants,
    utc,
)
from .history import uncorrelated

_J = ACT_RU_JOB
_JD = ACT_RU_JOBDEF
_I = ACT_RU_INCIDENT
_DEFINITION = ACT_RE_PROCDEF


class DateCondition(msgspec.Struct, rename="camel"):
    """Camunda's JobConditionQueryParameterDto: a date compared `gt` or `lt` (GET:
    `gt_2026-12-02T16:31:40.000+0000`)."""

    operator: Literal["gt", "lt"]
    value: datetime


def date_conditions_from_text(text: str, parameter: str) -> list[DateCondition]:
    """The query-string form `gt_date,lt_date` of `dueDates` and `createTimes`."""
    out = []
    for expression in text.split(","):
        operator, _, value = expression.partition("_")
        if operator not in ("gt", "lt") or not value:
            raise InvalidQuery(
                f"Cannot set query parameter '{parameter}': '{expression}' is not OPERATOR_DATE "
                "with OPERATOR gt or lt"
            )
        out.append(
            DateCondition("gt" if operator == "gt" else "lt", parse_moment(value, parameter))
        )
    return out


def _compared(
    column: Any, conditions: list[DateCondition] | None, parameter: str
) -> Iterator[Condition]:
    for condition in conditions or []:
        moment = stored_moment(condition.value, parameter)
        yield column > moment if condition.operator == "gt" else column < moment


# -- jobs -----------------------------------------------------------------------------------------


class JobQuery(msgspec.Struct, rename="camel"):
    """Camunda's JobQueryDto filters; None means "no filter", and its flags filter only when
    true."""

    job_id: str | None = None
    job_ids: list[str] | None = None
    job_definition_id: str | None = None
    process_instance_id: str | None = None
    process_instance_ids: list[str] | None = None
    execution_id: str | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    activity_id: str | None = None
    with_retries_left: bool | None = None
    executable: bool | None = None
    timers: bool | None = None
    messages: bool | None = None
    due_dates: list[DateCondition] | None = None
    create_times: list[DateCondition] | None = None
    with_exception: bool | None = None
    exception_message: str | None = None
    failed_activity_id: str | None = None
    no_retries_left: bool | None = None
    active: bool | None = None
    suspended: bool | None = None
    priority_lower_than_or_equals: int | None = None
    priority_higher_than_or_equals: int | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    include_jobs_without_tenant_id: bool | None = None


class JobSearchQuery(JobQuery, rename="camel"):
    """The job query the search runs: Camunda's, the moment `executable` compares due dates
    with (the engine's clock; the wall clock when None), which no client sets, and the engine
    API's filter by handler type."""

    now: datetime | None = None
    handler_type: str | None = None


class JobRow(msgspec.Struct, frozen=True):
    """One ACT_RU_JOB row: the fields of Camunda's JobDto (7.15) in its order, then what the
    engine API shows beside them (`JOB_ENGINE_FIELDS`)."""

    id: str
    job_definition_id: str | None
    due_date: datetime | None
    process_instance_id: str | None
    execution_id: str | None
    process_definition_id: str | None
    process_definition_key: str | None
    retries: int | None
    exception_message: str | None
    failed_activity_id: str | None
    suspended: bool
    priority: int
    tenant_id: str | None
    create_time: datetime | None
    activity_id: str | None
    handler_type: str | None
    handler_configuration: str | None
    job_type: str
    repeat: str | None
    exclusive: bool
    lock_owner: str | None
    lock_expiration_time: datetime | None


# JobRow's fields that Camunda's JobDto does not have.
JOB_ENGINE_FIELDS = (
    "activity_id",
    "handler_type",
    "handler_configuration",
    "job_type",
    "repeat",
    "exclusive",
    "lock_owner",
    "lock_expiration_time",
)


JOB_SORTS: dict[str, Any] = {
    "jobId": _J.c.ID_,
    "executionId": _J.c.EXECUTION_ID_,
    "processInstanceId": _J.c.PROCESS_INSTANCE_ID_,
    "processDefinitionId": _J.c.PROCESS_DEF_ID_,
    "processDefinitionKey": _J.c.PROCESS_DEF_KEY_,
    "jobPriority": _J.c.PRIORITY_,
    "jobRetries": _J.c.RETRIES_,
    "jobDueDate": _J.c.DUEDATE_,
    "tenantId": _J.c.TENANT_ID_,
}

_JOB_EQUAL: Spec = (
    ("job_id", _J.c.ID_),
    ("job_definition_id", _J.c.JOB_DEF_ID_),
    ("process_instance_id", _J.c.PROCESS_INSTANCE_ID_),
    ("execution_id", _J.c.EXECUTION_ID_),
    ("process_definition_id", _J.c.PROCESS_DEF_ID_),
    ("process_definition_key", _J.c.PROCESS_DEF_KEY_),
    ("activity_id", _J.c.ACT_ID_),
    ("exception_message", _J.c.EXCEPTION_MSG_),
    ("failed_activity_id", _J.c.FAILED_ACT_ID_),
    ("handler_type", _J.c.HANDLER_TYPE_),
)


def _job_conditions(q: JobSearchQuery) -> list[Condition]:
    if q.timers and q.messages:
        raise InvalidQuery("Cannot combine 'timers' with 'messages' in the same query")
    conditions = [
        *equal_fields(q, _JOB_EQUAL),
        *one_of(_J.c.ID_, q.job_ids),
        *one_of(_J.c.PROCESS_INSTANCE_ID_, q.process_instance_ids),
        *_compared(_J.c.DUEDATE_, q.due_dates, "dueDates"),
        *_compared(_J.c.CREATE_TIME_, q.create_times, "createTimes"),
        *suspension(_J.c.SUSPENSION_STATE_, q.active, q.suspended),
        *tenants(
            _J.c.TENANT_ID_, q.tenant_id_in, q.without_tenant_id, q.include_jobs_without_tenant_id
        ),
    ]
    if q.timers:
        conditions.append(_J.c.TYPE_ == "timer")
    if q.messages:
        conditions.append(_J.c.TYPE_ == "message")
    if q.with_retries_left:
        conditions.append(_J.c.RETRIES_ > 0)
    if q.no_retries_left:
        conditions.append(_J.c.RETRIES_ == 0)
    if q.executable:
        # Camunda's: retries left and due (suspension is not looked at).
        now = naive_utc(q.now or datetime.now(UTC))
        conditions.append(_J.c.RETRIES_ > 0)
        conditions.append(or_(_J.c.DUEDATE_.is_(None), _J.c.DUEDATE_ <= now))
    if q.with_exception:
        conditions.append(_J.c.EXCEPTION_MSG_.is_not(None))
    if q.priority_lower_than_or_equals is not None:
        conditions.append(_J.c.PRIORITY_ <= q.priority_lower_than_or_equals)
    if q.priority_higher_than_or_equals is not None:
        conditions.append(_J.c.PRIORITY_ >= q.priority_higher_than_or_equals)
    return conditions


def _job_row(m: RowMapping) -> JobRow:
    return JobRow(
        id=m["ID_"],
        job_definition_id=m["JOB_DEF_ID_"],
        due_date=utc(m["DUEDATE_"]),
        process_instance_id=m["PROCESS_INSTANCE_ID_"],
        execution_id=m["EXECUTION_ID_"],
        process_definition_id=m["PROCESS_DEF_ID_"],
        process_definition_key=m["PROCESS_DEF_KEY_"],
        retries=m["RETRIES_"],
        exception_message=m["EXCEPTION_MSG_"],
        failed_activity_id=m["FAILED_ACT_ID_"],
        suspended=m["SUSPENSION_STATE_"] == SUSPENDED,
        priority=int(m["PRIORITY_"]),
        tenant_id=m["TENANT_ID_"],
        create_time=utc(m["CREATE_TIME_"]),
        activity_id=m["ACT_ID_"],
        handler_type=m["HANDLER_TYPE_"],
        handler_configuration=m["HANDLER_CFG_"],
        job_type=m["TYPE_"],
        repeat=m["REPEAT_"],
        exclusive=bool(m["EXCLUSIVE_"]),
        lock_owner=m["LOCK_OWNER_"],
        lock_expiration_time=utc(m["LOCK_EXP_TIME_"]),
    )


JOBS: Search[JobSearchQuery, JobRow] = Search(
    query=JobSearchQuery,
    source=_J,
    columns=(_J,),
    filters=_job_conditions,
    sorts=JOB_SORTS,
    # Camunda's default order is the id.
    then=(_J.c.ID_,),
    row=_job_row,
    nulls="low",
    counted=_J,
)


# -- incidents ------------------------------------------------------------------------------------


class IncidentQuery(msgspec.Struct, rename="camel"):
    """Camunda's incident query parameters (7.15 has no JSON form); None means "no filter"."""

    incident_id: str | None = None
    incident_type: str | None = None
    incident_message: str | None = None
    incident_message_like: str | None = None
    process_definition_id: str | None = None
    process_definition_key_in: list[str] | None = None
    process_instance_id: str | None = None
    execution_id: str | None = None
    incident_timestamp_before: datetime | None = None
    incident_timestamp_after: datetime | None = None
    activity_id: str | None = None
    failed_activity_id: str | None = None
    cause_incident_id: str | None = None
    root_cause_incident_id: str | None = None
    configuration: str | None = None
    tenant_id_in: list[str] | None = None
    job_definition_id_in: list[str] | None = None


class IncidentRow(msgspec.Struct, frozen=True):
    """One ACT_RU_INCIDENT row: the fields of Camunda's IncidentDto in its order."""

    id: str
    process_definition_id: str | None
    process_instance_id: str | None
    execution_id: str | None
    incident_timestamp: datetime
    incident_type: str
    activity_id: str | None
    failed_activity_id: str | None
    cause_incident_id: str | None
    root_cause_incident_id: str | None
    configuration: str | None
    tenant_id: str | None
    incident_message: str | None
    job_definition_id: str | None
    annotation: str | None


INCIDENT_SORTS: dict[str, Any] = {
    "incidentId": _I.c.ID_,
    "incidentMessage": _I.c.INCIDENT_MSG_,
    "incidentTimestamp": _I.c.INCIDENT_TIMESTAMP_,
    "incidentType": _I.c.INCIDENT_TYPE_,
    "executionId": _I.c.EXECUTION_ID_,
    "activityId": _I.c.ACTIVITY_ID_,
    "processInstanceId": _I.c.PROC_INST_ID_,
    "processDefinitionId": _I.c.PROC_DEF_ID_,
    "causeIncidentId": _I.c.CAUSE_INCIDENT_ID_,
    "rootCauseIncidentId": _I.c.ROOT_CAUSE_INCIDENT_ID_,
    "configuration": _I.c.CONFIGURATION_,
    "tenantId": _I.c.TENANT_ID_,
}

_INCIDENT_EQUAL: Spec = (
    ("incident_id", _I.c.ID_),
    ("incident_type", _I.c.INCIDENT_TYPE_),
    ("incident_message", _I.c.INCIDENT_MSG_),
    ("process_definition_id", _I.c.PROC_DEF_ID_),
    ("process_instance_id", _I.c.PROC_INST_ID_),
    ("execution_id", _I.c.EXECUTION_ID_),
    ("activity_id", _I.c.ACTIVITY_ID_),
    ("failed_activity_id", _I.c.FAILED_ACTIVITY_ID_),
    ("cause_incident_id", _I.c.CAUSE_INCIDENT_ID_),
    ("root_cause_incident_id", _I.c.ROOT_CAUSE_INCIDENT_ID_),
    ("configuration", _I.c.CONFIGURATION_),
)


def _incident_conditions(q: IncidentQuery) -> list[Condition]:
    conditions = [
        *equal_fields(q, _INCIDENT_EQUAL),
        *like_fields(q, (("incident_message_like", _I.c.INCIDENT_MSG_),)),
        *one_of(_I.c.TENANT_ID_, q.tenant_id_in),
        *one_of(_I.c.JOB_DEF_ID_, q.job_definition_id_in),
    ]
    if q.process_definition_key_in is not None:
        keys = uncorrelated(
            _DEFINITION.c.ID_, _DEFINITION.c.KEY_.in_(list(q.process_definition_key_in))
        )
        conditions.append(_I.c.PROC_DEF_ID_.in_(keys))
    if q.incident_timestamp_before is not None:
        before = stored_moment(q.incident_timestamp_before, "incidentTimestampBefore")
        conditions.append(_I.c.INCIDENT_TIMESTAMP_ < before)
    if q.incident_timestamp_after is not None:
        after = stored_moment(q.incident_timestamp_after, "incidentTimestampAfter")
        conditions.append(_I.c.INCIDENT_TIMESTAMP_ > after)
    return conditions


def _incident_row(m: RowMapping) -> IncidentRow:
    timestamp = utc(m["INCIDENT_TIMESTAMP_"])
    assert timestamp is not None  # NOT NULL
    return IncidentRow(
        id=m["ID_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_instance_id=m["PROC_INST_ID_"],
        execution_id=m["EXECUTION_ID_"],
        incident_timestamp=timestamp,
        incident_type=m["INCIDENT_TYPE_"],
        activity_id=m["ACTIVITY_ID_"],
        failed_activity_id=m["FAILED_ACTIVITY_ID_"],
        cause_incident_id=m["CAUSE_INCIDENT_ID_"],
        root_cause_incident_id=m["ROOT_CAUSE_INCIDENT_ID_"],
        configuration=m["CONFIGURATION_"],
        tenant_id=m["TENANT_ID_"],
        incident_message=m["INCIDENT_MSG_"],
        job_definition_id=m["JOB_DEF_ID_"],
        annotation=m["ANNOTATION_"],
    )


INCIDENTS: Search[IncidentQuery, IncidentRow] = Search(
    query=IncidentQuery,
    source=_I,
    columns=(_I,),
    filters=_incident_conditions,
    sorts=INCIDENT_SORTS,
    then=(_I.c.ID_,),
    row=_incident_row,
    nulls="low",
    counted=_I,
)


# -- job definitions ------------------------------------------------------------------------------


class JobDefinitionQuery(msgspec.Struct, rename="camel"):
    """Camunda's JobDefinitionQueryDto filters; None means "no filter"."""

    job_definition_id: str | None = None
    activity_id_in: list[str] | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    job_type: str | None = None
    job_configuration: str | None = None
    active: bool | None = None
    suspended: bool | None = None
    with_overriding_job_priority: bool | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    include_job_definitions_without_tenant_id: bool | None = None


class JobDefinitionRow(msgspec.Struct, frozen=True):
    """One ACT_RU_JOBDEF row: the fields of Camunda's JobDefinitionDto in its order."""

    id: str
    process_definition_id: str | None
    process_definition_key: str | None
    activity_id: str | None
    job_type: str
    job_configuration: str | None
    overriding_job_priority: int | None
    suspended: bool
    tenant_id: str | None
    deployment_id: str | None


JOB_DEFINITION_SORTS: dict[str, Any] = {
    "jobDefinitionId": _JD.c.ID_,
    "activityId": _JD.c.ACT_ID_,
    "processDefinitionId": _JD.c.PROC_DEF_ID_,
    "processDefinitionKey": _JD.c.PROC_DEF_KEY_,
    "jobType": _JD.c.JOB_TYPE_,
    "jobConfiguration": _JD.c.JOB_CONFIGURATION_,
    "tenantId": _JD.c.TENANT_ID_,
}

_JOB_DEFINITION_EQUAL: Spec = (
    ("job_definition_id", _JD.c.ID_),
    ("process_definition_id", _JD.c.PROC_DEF_ID_),
    ("process_definition_key", _JD.c.PROC_DEF_KEY_),
    ("job_type", _JD.c.JOB_TYPE_),
    ("job_configuration", _JD.c.JOB_CONFIGURATION_),
)


def _job_definition_conditions(q: JobDefinitionQuery) -> list[Condition]:
    conditions = [
        *equal_fields(q, _JOB_DEFINITION_EQUAL),
        *one_of(_JD.c.ACT_ID_, q.activity_id_in),
        *suspension(_JD.c.SUSPENSION_STATE_, q.active, q.suspended),
        *tenants(
            _JD.c.TENANT_ID_,
            q.tenant_id_in,
            q.without_tenant_id,
            q.include_job_definitions_without_tenant_id,
        ),
    ]
    if q.with_overriding_job_priority:
        conditions.append(_JD.c.JOB_PRIORITY_.is_not(None))
    return conditions


def _job_definition_row(m: RowMapping) -> JobDefinitionRow:
    return JobDefinitionRow(
        id=m["ID_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_definition_key=m["PROC_DEF_KEY_"],
        activity_id=m["ACT_ID_"],
        job_type=m["JOB_TYPE_"],
        job_configuration=m["JOB_CONFIGURATION_"],
        overriding_job_priority=m["JOB_PRIORITY_"],
        suspended=m["SUSPENSION_STATE_"] == SUSPENDED,
        tenant_id=m["TENANT_ID_"],
        deployment_id=m["DEPLOYMENT_ID_"],
    )


JOB_DEFINITIONS: Search[JobDefinitionQuery, JobDefinitionRow] = Search(
    query=JobDefinitionQuery,
    source=_JD,
    columns=(_JD,),
    filters=_job_definition_conditions,
    sorts=JOB_DEFINITION_SORTS,
    then=(_JD.c.ID_,),
    row=_job_definition_row,
    nulls="low",
    counted=_JD,
)
