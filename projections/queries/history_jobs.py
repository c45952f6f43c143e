"""Incidents open and ended (ACT_HI_INCIDENT) and the job log (ACT_HI_JOB_LOG): Camunda's
historic incident and historic job log queries, behind engine-rest's `/history/incident` and
`/history/job-log`, and the stack trace of a job log entry. Reads only.

Both tables are written at history level full only; at a lower level these lists are empty.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import select
from sqlalchemy.engine import Connection, RowMapping

from ..tables import ACT_GE_BYTEARRAY, ACT_HI_INCIDENT, ACT_HI_JOB_LOG
from ..tables.history import (
    INCIDENT_DELETED,
    INCIDENT_OPEN,
    INCIDENT_RESOLVED,
    JOB_CREATED,
    JOB_DELETED,
    JOB_FAILED,
    JOB_SUCCESSFUL,
)
from .declaration import Search
from .filters import (
    Condition,
    Spec,
    equal_fields,
    flag_fields,
    like_fields,
    member_fields,
    stored_moment,
    utc,
)
from .history import tenant

_HI = ACT_HI_INCIDENT
_LOG = ACT_HI_JOB_LOG


# -- historic incidents ---------------------------------------------------------------------------


class HistoricIncidentQuery(msgspec.Struct, rename="camel"):
    """Camunda's historic incident query parameters (GET only); None means "no filter", the
    flags filter only when true."""

    incident_id: str | None = None
    incident_type: str | None = None
    incident_message: str | None = None
    incident_message_like: str | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    process_definition_key_in: list[str] | None = None
    process_instance_id: str | None = None
    execution_id: str | None = None
    create_time_before: datetime | None = None
    create_time_after: datetime | None = None
    end_time_before: datetime | None = None
    end_time_after: datetime | None = None
    activity_id: str | None = None
    failed_activity_id: str | None = None
    cause_incident_id: str | None = None
    root_cause_incident_id: str | None = None
    configuration: str | None = None
    history_configuration: str | None = None
    open: bool | None = None
    resolved: bool | None = None
    deleted: bool | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    job_definition_id_in: list[str] | None = None


class HistoricIncidentRow(msgspec.Struct, frozen=True):
    """One ACT_HI_INCIDENT row: the fields of Camunda's HistoricIncidentDto in its order."""

    id: str
    process_definition_key: str | None
    process_definition_id: str | None
    process_instance_id: str | None
    execution_id: str | None
    root_process_instance_id: str | None
    create_time: datetime
    end_time: datetime | None
    removal_time: datetime | None
    incident_type: str
    activity_id: str | None
    failed_activity_id: str | None
    cause_incident_id: str | None
    root_cause_incident_id: str | None
    configuration: str | None
    history_configuration: str | None
    incident_message: str | None
    tenant_id: str | None
    job_definition_id: str | None
    open: bool
    deleted: bool
    resolved: bool
    annotation: str | None


HISTORIC_INCIDENT_SORTS: dict[str, Any] = {
    "incidentId": _HI.c.ID_,
    "incidentMessage": _HI.c.INCIDENT_MSG_,
    "createTime": _HI.c.CREATE_TIME_,
    "endTime": _HI.c.END_TIME_,
    "incidentType": _HI.c.INCIDENT_TYPE_,
    "executionId": _HI.c.EXECUTION_ID_,
    "activityId": _HI.c.ACTIVITY_ID_,
    "processInstanceId": _HI.c.PROC_INST_ID_,
    "processDefinitionId": _HI.c.PROC_DEF_ID_,
    "processDefinitionKey": _HI.c.PROC_DEF_KEY_,
    "causeIncidentId": _HI.c.CAUSE_INCIDENT_ID_,
    "rootCauseIncidentId": _HI.c.ROOT_CAUSE_INCIDENT_ID_,
    "configuration": _HI.c.CONFIGURATION_,
    "historyConfiguration": _HI.c.HISTORY_CONFIGURATION_,
    "tenantId": _HI.c.TENANT_ID_,
    "incidentState": _HI.c.INCIDENT_STATE_,
}

_HI_EQUAL: Spec = (
    ("incident_id", _HI.c.ID_),
    ("incident_type", _HI.c.INCIDENT_TYPE_),
    ("incident_message", _HI.c.INCIDENT_MSG_),
    ("process_definition_id", _HI.c.PROC_DEF_ID_),
    ("process_definition_key", _HI.c.PROC_DEF_KEY_),
    ("process_instance_id", _HI.c.PROC_INST_ID_),
    ("execution_id", _HI.c.EXECUTION_ID_),
    ("activity_id", _HI.c.ACTIVITY_ID_),
    ("failed_activity_id", _HI.c.FAILED_ACTIVITY_ID_),
    ("cause_incident_id", _HI.c.CAUSE_INCIDENT_ID_),
    ("root_cause_incident_id", _HI.c.ROOT_CAUSE_INCIDENT_ID_),
    ("configuration", _HI.c.CONFIGURATION_),
    ("history_configuration", _HI.c.HISTORY_CONFIGURATION_),
)
_HI_MEMBER: Spec = (
    ("process_definition_key_in", _HI.c.PROC_DEF_KEY_),
    ("job_definition_id_in", _HI.c.JOB_DEF_ID_),
)
# (attribute, parameter, column, whether the moment is the lowest): Camunda's createTimeBefore/
# After and endTimeBefore/After include the moment given.
_HI_BOUNDS: tuple[tuple[str, str, Any, bool], ...] = (
    ("create_time_after", "createTimeAfter", _HI.c.CREATE_TIME_, True),
    ("create_time_before", "createTimeBefore", _HI.c.CREATE_TIME_, False),
    ("end_time_after", "endTimeAfter", _HI.c.END_TIME_, True),
    ("end_time_before", "endTimeBefore", _HI.c.END_TIME_, False),
)
_HI_FLAGS: Spec = (
    ("open", _HI.c.INCIDENT_STATE_ == INCIDENT_OPEN),
    ("resolved", _HI.c.INCIDENT_STATE_ == INCIDENT_RESOLVED),
    ("deleted", _HI.c.INCIDENT_STATE_ == INCIDENT_DELETED),
)


def _historic_incident_conditions(q: HistoricIncidentQuery) -> list[Condition]:
    conditions = [
        *equal_fields(q, _HI_EQUAL),
        *like_fields(q, (("incident_message_like", _HI.c.INCIDENT_MSG_),)),
        *member_fields(q, _HI_MEMBER),
        *flag_fields(q, _HI_FLAGS),
        *tenant(q, _HI.c.TENANT_ID_),
    ]
    for attribute, parameter, column, lowest in _HI_BOUNDS:
        value = getattr(q, attribute)
        if value is not None:
            moment = stored_moment(value, parameter)
            conditions.append(column >= moment if lowest else column <= moment)
    return conditions


def _historic_incident_row(m: RowMapping) -> HistoricIncidentRow:
    created = utc(m["CREATE_TIME_"])
    assert created is not None  # NOT NULL
    state = m["INCIDENT_STATE_"]
    return HistoricIncidentRow(
        id=m["ID_"],
        process_definition_key=m["PROC_DEF_KEY_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_instance_id=m["PROC_INST_ID_"],
        execution_id=m["EXECUTION_ID_"],
        root_process_instance_id=m["ROOT_PROC_INST_ID_"],
        create_time=created,
        end_time=utc(m["END_TIME_"]),
        removal_time=utc(m["REMOVAL_TIME_"]),
        incident_type=m["INCIDENT_TYPE_"],
        activity_id=m["ACTIVITY_ID_"],
        failed_activity_id=m["FAILED_ACTIVITY_ID_"],
        cause_incident_id=m["CAUSE_INCIDENT_ID_"],
        root_cause_incident_id=m["ROOT_CAUSE_INCIDENT_ID_"],
        configuration=m["CONFIGURATION_"],
        history_configuration=m["HISTORY_CONFIGURATION_"],
        incident_message=m["INCIDENT_MSG_"],
        tenant_id=m["TENANT_ID_"],
        job_definition_id=m["JOB_DEF_ID_"],
        open=state == INCIDENT_OPEN,
        deleted=state == INCIDENT_DELETED,
        resolved=state == INCIDENT_RESOLVED,
        annotation=m["ANNOTATION_"],
    )


HISTORIC_INCIDENTS: Search[HistoricIncidentQuery, HistoricIncidentRow] = Search(
    query=HistoricIncidentQuery,
    source=_HI,
    columns=(_HI,),
    filters=_historic_incident_conditions,
    sorts=HISTORIC_INCIDENT_SORTS,
    then=(_HI.c.ID_,),
    row=_historic_incident_row,
    nulls="low",
    counted=_HI,
)


# -- the job log ----------------------------------------------------------------------------------


class HistoricJobLogQuery(msgspec.Struct, rename="camel"):
    """Camunda's HistoricJobLogQueryDto filters; None means "no filter", the flags filter only
    when true."""

    log_id: str | None = None
    job_id: str | None = None
    job_exception_message: str | None = None
    job_definition_id: str | None = None
    job_definition_type: str | None = None
    job_definition_configuration: str | None = None
    activity_id_in: list[str] | None = None
    failed_activity_id_in: list[str] | None = None
    execution_id_in: list[str] | None = None
    process_instance_id: str | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    deployment_id: str | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    hostname: str | None = None
    job_priority_lower_than_or_equals: int | None = None
    job_priority_higher_than_or_equals: int | None = None
    creation_log: bool | None = None
    failure_log: bool | None = None
    success_log: bool | None = None
    deletion_log: bool | None = None


class HistoricJobLogRow(msgspec.Struct, frozen=True):
    """One ACT_HI_JOB_LOG row: the fields of Camunda's HistoricJobLogDto in its order."""

    id: str
    timestamp: datetime
    removal_time: datetime | None
    job_id: str
    job_due_date: datetime | None
    job_retries: int | None
    job_priority: int
    job_exception_message: str | None
    job_definition_id: str | None
    job_definition_type: str | None
    job_definition_configuration: str | None
    activity_id: str | None
    failed_activity_id: str | None
    execution_id: str | None
    process_instance_id: str | None
    process_definition_id: str | None
    process_definition_key: str | None
    deployment_id: str | None
    root_process_instance_id: str | None
    tenant_id: str | None
    hostname: str | None
    creation_log: bool
    failure_log: bool
    success_log: bool
    deletion_log: bool


JOB_LOG_SORTS: dict[str, Any] = {
    "timestamp": _LOG.c.TIMESTAMP_,
    "jobId": _LOG.c.JOB_ID_,
    "jobDefinitionId": _LOG.c.JOB_DEF_ID_,
    "jobDueDate": _LOG.c.JOB_DUEDATE_,
    "jobRetries": _LOG.c.JOB_RETRIES_,
    "jobPriority": _LOG.c.JOB_PRIORITY_,
    "activityId": _LOG.c.ACT_ID_,
    "executionId": _LOG.c.EXECUTION_ID_,
    "processInstanceId": _LOG.c.PROCESS_INSTANCE_ID_,
    "processDefinitionId": _LOG.c.PROCESS_DEF_ID_,
    "processDefinitionKey": _LOG.c.PROCESS_DEF_KEY_,
    "deploymentId": _LOG.c.DEPLOYMENT_ID_,
    "hostname": _LOG.c.HOSTNAME_,
    # The order of the entries of one process instance (its stream's event order).
    "occurrence": _LOG.c.SEQUENCE_COUNTER_,
    "tenantId": _LOG.c.TENANT_ID_,
}

_LOG_EQUAL: Spec = (
    ("log_id", _LOG.c.ID_),
    ("job_id", _LOG.c.JOB_ID_),
    ("job_exception_message", _LOG.c.JOB_EXCEPTION_MSG_),
    ("job_definition_id", _LOG.c.JOB_DEF_ID_),
    ("job_definition_type", _LOG.c.JOB_DEF_TYPE_),
    ("job_definition_configuration", _LOG.c.JOB_DEF_CONFIGURATION_),
    ("process_instance_id", _LOG.c.PROCESS_INSTANCE_ID_),
    ("process_definition_id", _LOG.c.PROCESS_DEF_ID_),
    ("process_definition_key", _LOG.c.PROCESS_DEF_KEY_),
    ("deployment_id", _LOG.c.DEPLOYMENT_ID_),
    ("hostname", _LOG.c.HOSTNAME_),
)
_LOG_MEMBER: Spec = (
    ("activity_id_in", _LOG.c.ACT_ID_),
    ("failed_activity_id_in", _LOG.c.FAILED_ACT_ID_),
    ("execution_id_in", _LOG.c.EXECUTION_ID_),
)
_LOG_FLAGS: Spec = (
    ("creation_log", _LOG.c.JOB_STATE_ == JOB_CREATED),
    ("failure_log", _LOG.c.JOB_STATE_ == JOB_FAILED),
    ("success_log", _LOG.c.JOB_STATE_ == JOB_SUCCESSFUL),
    ("deletion_log", _LOG.c.JOB_STATE_ == JOB_DELETED),
)


def _job_log_conditions(q: HistoricJobLogQuery) -> list[Condition]:
    conditions = [
        *equal_fields(q, _LOG_EQUAL),
        *member_fields(q, _LOG_MEMBER),
        *flag_fields(q, _LOG_FLAGS),
        *tenant(q, _LOG.c.TENANT_ID_),
    ]
    if q.job_priority_lower_than_or_equals is not None:
        conditions.append(_LOG.c.JOB_PRIORITY_ <= q.job_priority_lower_than_or_equals)
    if q.job_priority_higher_than_or_equals is not None:
        conditions.append(_LOG.c.JOB_PRIORITY_ >= q.job_priority_higher_than_or_equals)
    return conditions


def _job_log_row(m: RowMapping) -> HistoricJobLogRow:
    timestamp = utc(m["TIMESTAMP_"])
    assert timestamp is not None  # NOT NULL
    state = m["JOB_STATE_"]
    return HistoricJobLogRow(
        id=m["ID_"],
        timestamp=timestamp,
        removal_time=utc(m["REMOVAL_TIME_"]),
        job_id=m["JOB_ID_"],
        job_due_date=utc(m["JOB_DUEDATE_"]),
        job_retries=m["JOB_RETRIES_"],
        job_priority=int(m["JOB_PRIORITY_"]),
        job_exception_message=m["JOB_EXCEPTION_MSG_"],
        job_definition_id=m["JOB_DEF_ID_"],
        job_definition_type=m["JOB_DEF_TYPE_"],
        job_definition_configuration=m["JOB_DEF_CONFIGURATION_"],
        activity_id=m["ACT_ID_"],
        failed_activity_id=m["FAILED_ACT_ID_"],
        execution_id=m["EXECUTION_ID_"],
        process_instance_id=m["PROCESS_INSTANCE_ID_"],
        process_definition_id=m["PROCESS_DEF_ID_"],
        process_definition_key=m["PROCESS_DEF_KEY_"],
        deployment_id=m["DEPLOYMENT_ID_"],
        root_process_instance_id=m["ROOT_PROC_INST_ID_"],
        tenant_id=m["TENANT_ID_"],
        hostname=m["HOSTNAME_"],
        creation_log=state == JOB_CREATED,
        failure_log=state == JOB_FAILED,
        success_log=state == JOB_SUCCESSFUL,
        deletion_log=state == JOB_DELETED,
    )


JOB_LOGS: Search[HistoricJobLogQuery, HistoricJobLogRow] = Search(
    query=HistoricJobLogQuery,
    source=_LOG,
    columns=(_LOG,),
    filters=_job_log_conditions,
    sorts=JOB_LOG_SORTS,
    # In the order the entries were written (one command may log a job's creation and its run
    # at one moment: its stream order breaks the tie), as Camunda's ids are.
    then=(_LOG.c.TIMESTAMP_, _LOG.c.SEQUENCE_COUNTER_, _LOG.c.ID_),
    row=_job_log_row,
    nulls="low",
    counted=_LOG,
    filled=(_LOG.c.SEQUENCE_COUNTER_,),
)


def job_log_stacktrace(conn: Connection, log_id: str) -> tuple[bool, str | None]:
    """(whether the job log entry exists, the stack trace of its failure, None for an entry
    that is not a failure's)."""
    b = ACT_GE_BYTEARRAY
    stmt = (
        select(_LOG.c.ID_, b.c.BYTES_)
        .select_from(_LOG.outerjoin(b, b.c.ID_ == _LOG.c.JOB_EXCEPTION_STACK_ID_))
        .where(_LOG.c.ID_ == log_id)
    )
    row = conn.execute(stmt).first()
    if row is None:
        return False, None
    return True, None if row[1] is None else bytes(row[1]).decode("utf-8")
