"""The history lists behind engine-rest's `/history/*` resources: historic process instances,
activity instances, task instances, variable instances and details (variable updates).

Each query is a Struct with the field names of Camunda's query DTO (`rename="camel"`, every field
optional, null = no filter); `find_*(conn, query, sorting, first, maximum)` and `count_*(conn,
query)` run it as parameterised SQLAlchemy Core over the ACT_HI_* tables; results are plain
Structs. Filters on things this engine does not record (incidents, jobs, cases, tenants) match
nothing when set, as they would on a Camunda database without them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import (
    Select,
    Table,
    and_,
    exists,
    func,
    not_,
    or_,
    select,
)
from sqlalchemy.engine import Connection, RowMapping

from flowledger.core.variables import SERIALIZERS, StoredValue
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_ACTINST,
    ACT_HI_DETAIL,
    ACT_HI_PROCINST,
    ACT_HI_TASKINST,
    ACT_HI_VARINST,
    ACT_RE_PROCDEF,
    ACT_RU_IDENTITYLINK,
)

from .filters import (
    LIKE_ESCAPE,
    Condition,
    Spec,
    count_rows,
    equal_fields,
    flag_fields,
    like_fields,
    member_fields,
    naive_utc,
    nothing_when_set,
    rows,
    sorted_page,
)
from .filters import InvalidQuery as InvalidQuery
from .filters import Sorting as Sorting
from .results import from_row
from .variables import OPERATORS, VariableComparison, name_matches, stored_value, value_matches


class VariableQueryDto(VariableComparison):
    """Camunda's VariableQueryParameterDto: `{name, operator, value}` (GET: `name_op_value`)."""


# -- query Structs (Camunda's query DTOs) --------------------------------------------------------


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


# -- results --------------------------------------------------------------------------------------


class HistoricProcessInstance(msgspec.Struct, kw_only=True):
    id: str
    business_key: str | None
    process_definition_id: str
    process_definition_key: str | None
    process_definition_name: str | None
    process_definition_version: int | None
    start_time: datetime | None
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
    state: str | None


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
    start_time: datetime | None
    end_time: datetime | None
    duration_in_millis: int | None
    canceled: bool
    complete_scope: bool
    tenant_id: str | None
    removal_time: datetime | None
    root_process_instance_id: str | None


class HistoricTaskInstance(msgspec.Struct, kw_only=True):
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
    start_time: datetime | None
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


# -- filter building blocks of the history queries alone -----------------------------------------


def _not_member(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        values = getattr(q, attr)
        if values:
            yield or_(column.is_(None), column.not_in(list(values)))


def _since(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        value = getattr(q, attr)
        if value is not None:
            yield column >= naive_utc(value)


def _until(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        value = getattr(q, attr)
        if value is not None:
            yield column <= naive_utc(value)


def _tenant(q: Any, column: Any) -> Iterator[Condition]:
    if q.tenant_id_in:
        yield column.in_(list(q.tenant_id_in))
    if q.without_tenant_id is True:
        yield column.is_(None)


# -- variable value conditions: projections.search.variables, on VAR_TYPE_ --------------------


def variable_condition(
    v: Table,
    condition: VariableComparison,
    *,
    names_ignore_case: bool = False,
    values_ignore_case: bool = False,
    operators: Sequence[str] = OPERATORS,
) -> Condition:
    """The rows of the variable table `v` that satisfy one `{name, operator, value}`."""
    if (condition.operator or "eq") not in operators:
        raise InvalidQuery(f"Invalid variable comparator specified: {condition.operator}")
    return and_(
        value_matches(v, condition, values_ignore_case, type_column="VAR_TYPE_"),
        name_matches(v, condition.name or "", names_ignore_case),
    )


def parse_variable_conditions(text: str, parameter: str) -> list[VariableQueryDto]:
    """GET's `name_operator_value,name2_operator_value2`. The operator is the first `_op_` in
    an expression, so a name or value may contain `_` (Camunda refuses those); values stay
    strings."""
    out = []
    for expression in (e for e in text.split(",") if e):
        match = re.match(rf"^(.+?)_({'|'.join(OPERATORS)})_(.*)$", expression, re.DOTALL)
        if match is None:
            raise InvalidQuery(
                f"Cannot set query parameter '{parameter}': '{expression}' does not have the "
                "format KEY_OPERATOR_VALUE with OPERATOR one of " + ", ".join(OPERATORS)
            )
        out.append(VariableQueryDto(match[1], match[2], match[3]))
    return out


def _variable_types(names: Sequence[str]) -> list[str]:
    """Camunda's type names (`String`, `integer`, `Object`) as stored serializer names."""
    return [SERIALIZERS.get(n[:1].upper() + n[1:], n.lower()) for n in names]


# -- subqueries ---------------------------------------------------------------------------------
# (Lists sort nulls last ascending and first descending on every database, `nulls="high"`, then
# by their default order, then by the primary key.)


def _uncorrelated(column: Any, *conditions: Condition) -> Select[Any]:
    """An IN subquery that stands alone: never correlated with a table of the outer query
    (the process instance list joins ACT_RE_PROCDEF, which its name filter also reads)."""
    return select(column).where(*conditions).correlate(None)


# -- historic process instances --------------------------------------------------------------

_P = ACT_HI_PROCINST
_DEF = ACT_RE_PROCDEF
_SUB = ACT_HI_PROCINST.alias("SUB")
_A = ACT_HI_ACTINST
_V = ACT_HI_VARINST

PROCESS_INSTANCE_SORTS: dict[str, Any] = {
    "instanceId": _P.c.ID_,
    "definitionId": _P.c.PROC_DEF_ID_,
    "definitionKey": _P.c.PROC_DEF_KEY_,
    "definitionName": _DEF.c.NAME_,
    "definitionVersion": _DEF.c.VERSION_,
    "businessKey": _P.c.BUSINESS_KEY_,
    "startTime": _P.c.START_TIME_,
    "endTime": _P.c.END_TIME_,
    "duration": _P.c.DURATION_,
    "tenantId": _P.c.TENANT_ID_,
}

_PI_EQUAL: Spec = (
    ("process_instance_id", _P.c.ID_),
    ("process_definition_id", _P.c.PROC_DEF_ID_),
    ("process_definition_key", _P.c.PROC_DEF_KEY_),
    ("process_instance_business_key", _P.c.BUSINESS_KEY_),
    ("started_by", _P.c.START_USER_ID_),
    ("super_process_instance_id", _P.c.SUPER_PROCESS_INSTANCE_ID_),
    ("super_case_instance_id", _P.c.SUPER_CASE_INSTANCE_ID_),
    ("case_instance_id", _P.c.CASE_INST_ID_),
)
_PI_MEMBER: Spec = (
    ("process_instance_ids", _P.c.ID_),
    ("process_definition_key_in", _P.c.PROC_DEF_KEY_),
    ("process_instance_business_key_in", _P.c.BUSINESS_KEY_),
)
_PI_FLAGS: Spec = (
    ("root_process_instances", _P.c.SUPER_PROCESS_INSTANCE_ID_.is_(None)),
    ("finished", _P.c.END_TIME_.is_not(None)),
    ("unfinished", _P.c.END_TIME_.is_(None)),
    ("active", _P.c.STATE_ == "ACTIVE"),
    ("suspended", _P.c.STATE_ == "SUSPENDED"),
    ("completed", _P.c.STATE_ == "COMPLETED"),
    ("externally_terminated", _P.c.STATE_ == "EXTERNALLY_TERMINATED"),
    ("internally_terminated", _P.c.STATE_ == "INTERNALLY_TERMINATED"),
)
_PI_NEVER = (
    "with_incidents",
    "with_root_incidents",
    "incident_type",
    "incident_status",
    "incident_message",
    "incident_message_like",
    "executed_job_after",
    "executed_job_before",
    "sub_case_instance_id",
)


def _definition_names(q: HistoricProcessInstanceQuery) -> Iterator[Condition]:
    if q.process_definition_name is not None:
        names = _uncorrelated(_DEF.c.ID_, _DEF.c.NAME_ == q.process_definition_name)
        yield _P.c.PROC_DEF_ID_.in_(names)
    if q.process_definition_name_like is not None:
        names = _uncorrelated(
            _DEF.c.ID_, _DEF.c.NAME_.like(q.process_definition_name_like, escape=LIKE_ESCAPE)
        )
        yield _P.c.PROC_DEF_ID_.in_(names)


def _executed_activities(q: HistoricProcessInstanceQuery) -> Iterator[Condition]:
    """Camunda's executedActivity*/activeActivityIdIn: an activity instance of the process
    instance started or ended in the period, ended (executed) or is still running (active)."""
    mine = _A.c.PROC_INST_ID_ == _P.c.ID_
    if q.executed_activity_after is not None:
        moment = naive_utc(q.executed_activity_after)
        yield exists().where(mine, or_(_A.c.START_TIME_ >= moment, _A.c.END_TIME_ >= moment))
    if q.executed_activity_before is not None:
        moment = naive_utc(q.executed_activity_before)
        yield exists().where(mine, or_(_A.c.START_TIME_ <= moment, _A.c.END_TIME_ <= moment))
    if q.executed_activity_id_in:
        ids = list(q.executed_activity_id_in)
        yield exists().where(mine, _A.c.ACT_ID_.in_(ids), _A.c.END_TIME_.is_not(None))
    if q.active_activity_id_in:
        ids = list(q.active_activity_id_in)
        yield exists().where(mine, _A.c.ACT_ID_.in_(ids), _A.c.END_TIME_.is_(None))


def _process_variables(q: HistoricProcessInstanceQuery) -> Iterator[Condition]:
    for condition in q.variables or ():
        yield exists().where(
            _V.c.PROC_INST_ID_ == _P.c.ID_,
            variable_condition(
                _V,
                condition,
                names_ignore_case=q.variable_names_ignore_case is True,
                values_ignore_case=q.variable_values_ignore_case is True,
            ),
        )


def _process_instance_conditions(q: HistoricProcessInstanceQuery) -> list[Condition]:
    conditions = [
        *equal_fields(q, _PI_EQUAL),
        *member_fields(q, _PI_MEMBER),
        *_not_member(q, (("process_definition_key_not_in", _P.c.PROC_DEF_KEY_),)),
        *like_fields(q, (("process_instance_business_key_like", _P.c.BUSINESS_KEY_),)),
        *_since(q, (("started_after", _P.c.START_TIME_), ("finished_after", _P.c.END_TIME_))),
        *_until(q, (("started_before", _P.c.START_TIME_), ("finished_before", _P.c.END_TIME_))),
        *flag_fields(q, _PI_FLAGS),
        *nothing_when_set(*(getattr(q, attr) for attr in _PI_NEVER)),
        *_tenant(q, _P.c.TENANT_ID_),
        *_definition_names(q),
        *_executed_activities(q),
        *_process_variables(q),
    ]
    if q.sub_process_instance_id is not None:
        parent = _uncorrelated(
            _SUB.c.SUPER_PROCESS_INSTANCE_ID_, _SUB.c.ID_ == q.sub_process_instance_id
        )
        conditions.append(_P.c.ID_.in_(parent))
    return conditions


def _historic_process_instance(m: RowMapping) -> HistoricProcessInstance:
    return from_row(HistoricProcessInstance, m)


def find_process_instances(
    conn: Connection,
    query: HistoricProcessInstanceQuery,
    sorting: Sorting = (),
    first: int = 0,
    maximum: int | None = None,
) -> list[HistoricProcessInstance]:
    stmt = (
        select(_P, _DEF.c.NAME_.label("DEF_NAME_"), _DEF.c.VERSION_.label("DEF_VERSION_"))
        .select_from(_P.outerjoin(_DEF, _DEF.c.ID_ == _P.c.PROC_DEF_ID_))
        .where(*_process_instance_conditions(query))
    )
    then = (_P.c.START_TIME_, _P.c.ID_)
    stmt = sorted_page(stmt, PROCESS_INSTANCE_SORTS, sorting, first, maximum, *then, nulls="high")
    return rows(conn, stmt, _historic_process_instance)


def count_process_instances(conn: Connection, query: HistoricProcessInstanceQuery) -> int:
    return count_rows(conn, _P, _process_instance_conditions(query))


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
        *_since(q, (("started_after", _A.c.START_TIME_), ("finished_after", _A.c.END_TIME_))),
        *_until(q, (("started_before", _A.c.START_TIME_), ("finished_before", _A.c.END_TIME_))),
        *_tenant(q, _A.c.TENANT_ID_),
    ]


def _historic_activity_instance(m: RowMapping) -> HistoricActivityInstance:
    state = m["ACT_INST_STATE_"]
    return from_row(
        HistoricActivityInstance,
        m,
        canceled=state == ACTIVITY_STATE_CANCELED,
        complete_scope=state == ACTIVITY_STATE_SCOPE_COMPLETE,
    )


def find_activity_instances(
    conn: Connection,
    query: HistoricActivityInstanceQuery,
    sorting: Sorting = (),
    first: int = 0,
    maximum: int | None = None,
) -> list[HistoricActivityInstance]:
    stmt = select(_A).where(*_activity_instance_conditions(query))
    then = (_A.c.START_TIME_, _A.c.SEQUENCE_COUNTER_, _A.c.ID_)
    stmt = sorted_page(stmt, ACTIVITY_INSTANCE_SORTS, sorting, first, maximum, *then, nulls="high")
    return rows(conn, stmt, _historic_activity_instance)


def count_activity_instances(conn: Connection, query: HistoricActivityInstanceQuery) -> int:
    return count_rows(conn, _A, _activity_instance_conditions(query))


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
_ENDED_INSTANCES = _uncorrelated(_P.c.ID_, _P.c.END_TIME_.is_not(None))
_CANDIDATE_GROUP = exists().where(
    _LINK.c.TASK_ID_ == _T.c.ID_, _LINK.c.TYPE_ == "candidate", _LINK.c.GROUP_ID_.is_not(None)
)
_TI_FLAGS: Spec = (
    ("assigned", _T.c.ASSIGNEE_.is_not(None)),
    ("unassigned", _T.c.ASSIGNEE_.is_(None)),
    ("finished", _T.c.END_TIME_.is_not(None)),
    ("unfinished", _T.c.END_TIME_.is_(None)),
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
        keys.append(_P.c.BUSINESS_KEY_ == q.process_instance_business_key)
    if q.process_instance_business_key_in:
        keys.append(_P.c.BUSINESS_KEY_.in_(list(q.process_instance_business_key_in)))
    if q.process_instance_business_key_like is not None:
        keys.append(
            _P.c.BUSINESS_KEY_.like(q.process_instance_business_key_like, escape=LIKE_ESCAPE)
        )
    if keys:
        yield _T.c.PROC_INST_ID_.in_(_uncorrelated(_P.c.ID_, *keys))
    if q.process_definition_name is not None:
        names = _uncorrelated(_DEF.c.ID_, _DEF.c.NAME_ == q.process_definition_name)
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
            _V,
            condition,
            names_ignore_case=names_ignore_case,
            values_ignore_case=values_ignore_case,
            operators=("eq",),
        )
        yield exists().where(_V.c.TASK_ID_ == _T.c.ID_, matches)
    for condition in q.process_variables or ():
        matches = variable_condition(
            _V,
            condition,
            names_ignore_case=names_ignore_case,
            values_ignore_case=values_ignore_case,
        )
        yield exists().where(
            _V.c.PROC_INST_ID_ == _T.c.PROC_INST_ID_, _V.c.TASK_ID_.is_(None), matches
        )


def _task_instance_conditions(q: HistoricTaskInstanceQuery) -> list[Condition]:
    return [
        *equal_fields(q, _TI_EQUAL),
        *member_fields(q, _TI_MEMBER),
        *like_fields(q, _TI_LIKE),
        *_since(q, _TI_SINCE),
        *_until(q, _TI_UNTIL),
        *flag_fields(q, _TI_FLAGS),
        *nothing_when_set(q.case_definition_name),
        *_tenant(q, _T.c.TENANT_ID_),
        *_task_instances_of(q),
        *_task_people(q),
        *_task_variables(q),
    ]


def _historic_task_instance(m: RowMapping) -> HistoricTaskInstance:
    return from_row(HistoricTaskInstance, m)


def find_task_instances(
    conn: Connection,
    query: HistoricTaskInstanceQuery,
    sorting: Sorting = (),
    first: int = 0,
    maximum: int | None = None,
) -> list[HistoricTaskInstance]:
    stmt = select(_T).where(*_task_instance_conditions(query))
    then = (_T.c.START_TIME_, _T.c.ID_)
    stmt = sorted_page(stmt, TASK_INSTANCE_SORTS, sorting, first, maximum, *then, nulls="high")
    return rows(conn, stmt, _historic_task_instance)


def count_task_instances(conn: Connection, query: HistoricTaskInstanceQuery) -> int:
    return count_rows(conn, _T, _task_instance_conditions(query))


# -- historic variable instances -------------------------------------------------------------

_B = ACT_GE_BYTEARRAY

VARIABLE_INSTANCE_SORTS: dict[str, Any] = {
    "instanceId": _V.c.PROC_INST_ID_,
    "variableName": _V.c.NAME_,
    "tenantId": _V.c.TENANT_ID_,
}

_VI_EQUAL: Spec = (
    ("process_instance_id", _V.c.PROC_INST_ID_),
    ("process_definition_id", _V.c.PROC_DEF_ID_),
    ("process_definition_key", _V.c.PROC_DEF_KEY_),
    ("case_instance_id", _V.c.CASE_INST_ID_),
)
_VI_MEMBER: Spec = (
    ("process_instance_id_in", _V.c.PROC_INST_ID_),
    ("execution_id_in", _V.c.EXECUTION_ID_),
    ("case_execution_id_in", _V.c.CASE_EXECUTION_ID_),
    ("task_id_in", _V.c.TASK_ID_),
    ("activity_instance_id_in", _V.c.ACT_INST_ID_),
)


def _with_value(table: Any) -> Any:
    """The table joined with its values' byte arrays, except for Bytes: like Camunda's
    disableBinaryFetching, lists leave Bytes values out (`.../data` serves them)."""
    return table.outerjoin(
        _B, and_(_B.c.ID_ == table.c.BYTEARRAY_ID_, table.c.VAR_TYPE_ != "bytes")
    )


def _variable_name_and_value(q: HistoricVariableInstanceQuery) -> Iterator[Condition]:
    names_ignore_case = q.variable_names_ignore_case is True
    if q.variable_name is not None:
        yield name_matches(_V, q.variable_name, names_ignore_case)
    if q.variable_name_like is not None:
        column: Any = func.lower(_V.c.NAME_) if names_ignore_case else _V.c.NAME_
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
        yield value_matches(_V, condition, ignore_case, type_column="VAR_TYPE_")


def _variable_instance_conditions(q: HistoricVariableInstanceQuery) -> list[Condition]:
    conditions = [
        *equal_fields(q, _VI_EQUAL),
        *member_fields(q, _VI_MEMBER),
        *nothing_when_set(q.case_activity_id_in),
        *_tenant(q, _V.c.TENANT_ID_),
        *_variable_name_and_value(q),
    ]
    if q.variable_type_in:
        conditions.append(_V.c.VAR_TYPE_.in_(_variable_types(q.variable_type_in)))
    if q.include_deleted is not True:
        conditions.append(_V.c.STATE_ == "CREATED")
    return conditions


def _historic_variable_instance(m: RowMapping) -> HistoricVariableInstance:
    return from_row(HistoricVariableInstance, m, value=stored_value(m, "VAR_TYPE_"))


def _variable_select() -> Select[Any]:
    return select(_V, _B.c.BYTES_).select_from(_with_value(_V))


def find_variable_instances(
    conn: Connection,
    query: HistoricVariableInstanceQuery,
    sorting: Sorting = (),
    first: int = 0,
    maximum: int | None = None,
) -> list[HistoricVariableInstance]:
    stmt = _variable_select().where(*_variable_instance_conditions(query))
    then = (_V.c.CREATE_TIME_, _V.c.ID_)
    stmt = sorted_page(stmt, VARIABLE_INSTANCE_SORTS, sorting, first, maximum, *then, nulls="high")
    return rows(conn, stmt, _historic_variable_instance)


def count_variable_instances(conn: Connection, query: HistoricVariableInstanceQuery) -> int:
    return count_rows(conn, _V, _variable_instance_conditions(query))


def variable_instance(conn: Connection, variable_id: str) -> HistoricVariableInstance | None:
    """One historic variable by id, deleted or not."""
    row = conn.execute(_variable_select().where(_V.c.ID_ == variable_id)).mappings().first()
    return None if row is None else _historic_variable_instance(row)


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
        yield _DT.c.VAR_TYPE_.in_(_variable_types(q.variable_type_in))


def _detail_conditions(q: HistoricDetailQuery) -> list[Condition]:
    return [
        *equal_fields(q, _DT_EQUAL),
        *member_fields(q, (("process_instance_id_in", _DT.c.PROC_INST_ID_),)),
        *_since(q, (("occurred_after", _DT.c.TIME_),)),
        *_until(q, (("occurred_before", _DT.c.TIME_),)),
        *_tenant(q, _DT.c.TENANT_ID_),
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


def _detail_select() -> Select[Any]:
    return select(_DT, _B.c.BYTES_).select_from(_with_value(_DT))


def find_details(
    conn: Connection,
    query: HistoricDetailQuery,
    sorting: Sorting = (),
    first: int = 0,
    maximum: int | None = None,
) -> list[HistoricVariableUpdate]:
    stmt = _detail_select().where(*_detail_conditions(query))
    then = (_DT.c.TIME_, _DT.c.SEQUENCE_COUNTER_, _DT.c.ID_)
    stmt = sorted_page(stmt, DETAIL_SORTS, sorting, first, maximum, *then, nulls="high")
    return rows(conn, stmt, _historic_detail)


def count_details(conn: Connection, query: HistoricDetailQuery) -> int:
    return count_rows(conn, _DT, _detail_conditions(query))


def detail(conn: Connection, detail_id: str) -> HistoricVariableUpdate | None:
    row = conn.execute(_detail_select().where(_DT.c.ID_ == detail_id)).mappings().first()
    return None if row is None else _historic_detail(row)


# -- binary values -----------------------------------------------------------------------------


def _binary(conn: Connection, table: Any, entity_id: str) -> tuple[str, bytes | None] | None:
    stmt = (
        select(table.c.VAR_TYPE_, _B.c.BYTES_)
        .select_from(table.outerjoin(_B, _B.c.ID_ == table.c.BYTEARRAY_ID_))
        .where(table.c.ID_ == entity_id)
    )
    row = conn.execute(stmt).first()
    if row is None:
        return None
    return row[0], None if row[1] is None else bytes(row[1])


def variable_instance_data(conn: Connection, variable_id: str) -> tuple[str, bytes | None] | None:
    """(stored type, bytes) of a historic variable; None when there is no such variable."""
    return _binary(conn, _V, variable_id)


def detail_data(conn: Connection, detail_id: str) -> tuple[str, bytes | None] | None:
    """(stored type, bytes) of a historic variable update; None when there is no such detail."""
    return _binary(conn, _DT, detail_id)
