"""The history lists behind engine-rest's `/history/*` resources: historic process instances,
activity instances, task instances, variable instances and details (variable updates).

Each query is a Struct with the field names of Camunda's query DTO (`rename="camel"`, every field
optional, null = no filter); `find_*(conn, query, sorting, first, maximum)` and `count_*(conn,
query)` run it as parameterised SQLAlchemy Core over the ACT_HI_* tables; results are plain
Structs. Filters on things this engine does not record (incidents, jobs, cases, tenants) match
nothing when set, as they would on a Camunda database without them.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from sqlalchemy import (
    ColumnElement,
    Select,
    Table,
    and_,
    exists,
    false,
    func,
    not_,
    or_,
    select,
)
from sqlalchemy.engine import Connection, RowMapping

from core.variables import (
    EMPTY_STRING_MARKER,
    SERIALIZERS,
    StoredValue,
    stored_from_columns,
)
from projections.queries import utc
from projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_ACTINST,
    ACT_HI_DETAIL,
    ACT_HI_PROCINST,
    ACT_HI_TASKINST,
    ACT_HI_VARINST,
    ACT_RE_PROCDEF,
    ACT_RU_IDENTITYLINK,
)

# (Camunda sortBy value, descending), in order of precedence: rest.params.Sort fits.
Sorting = Sequence[tuple[str, bool]]
Condition = ColumnElement[bool]
# Camunda's LIKE filters escape with a backslash on every database.
LIKE_ESCAPE = "\\"


class InvalidQuery(ValueError):
    """A filter that cannot be run as given (unknown comparator, `gt` on a boolean, ...); the
    REST layer answers it with a 400 carrying this message."""


class VariableQueryDto(msgspec.Struct):
    """Camunda's VariableQueryParameterDto: `{name, operator, value}` (GET: `name_op_value`)."""

    name: str | None = None
    operator: str | None = None
    value: Any = None


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


# -- filter building blocks ------------------------------------------------------------------------

# (query attribute, column or condition): one table per kind of filter keeps each query's
# filters declarative; the few that need more are functions beside it.
Spec = Sequence[tuple[str, Any]]


def _naive_utc(moment: datetime) -> datetime:
    """The table timestamps are naive UTC; a date without offset is taken as UTC."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


def _equal(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        value = getattr(q, attr)
        if value is not None:
            yield column == value


def _member(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    """`...In` lists; an empty list filters nothing, as in Camunda."""
    for attr, column in spec:
        values = getattr(q, attr)
        if values:
            yield column.in_(list(values))


def _not_member(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        values = getattr(q, attr)
        if values:
            yield or_(column.is_(None), column.not_in(list(values)))


def _like(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        value = getattr(q, attr)
        if value is not None:
            yield column.like(value, escape=LIKE_ESCAPE)


def _since(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        value = getattr(q, attr)
        if value is not None:
            yield column >= _naive_utc(value)


def _until(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        value = getattr(q, attr)
        if value is not None:
            yield column <= _naive_utc(value)


def _flags(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    """Boolean filters: only `true` filters ("false is the default behavior" in Camunda)."""
    for attr, condition in spec:
        if getattr(q, attr) is True:
            yield condition


def _never_when_set(q: msgspec.Struct, attrs: Sequence[str]) -> Iterator[Condition]:
    """Filters on what this engine never records (incidents, jobs, cases): set, they match
    nothing."""
    for attr in attrs:
        value = getattr(q, attr)
        if value is not None and value is not False and value != []:
            yield false()


def _tenant(q: Any, column: Any) -> Iterator[Condition]:
    if q.tenant_id_in:
        yield column.in_(list(q.tenant_id_in))
    if q.without_tenant_id is True:
        yield column.is_(None)


# -- variable value conditions -------------------------------------------------------------------
# As Camunda's variableValueConditions, and as projections.search.runtime compares runtime
# variables: a string matches String variables by TEXT_, a number Short/Integer/Long variables
# by LONG_ and Double ones by DOUBLE_, a boolean Boolean variables, a string in the REST date
# format Date variables, null a variable without value; `neq`/`notLike` negate the match, so
# the named variable must exist either way. GET's values are strings, as in Camunda.

OPERATORS = ("eq", "neq", "gt", "gteq", "lt", "lteq", "like", "notLike")
_OPERATOR_WORDS = {
    "gt": "greater than",
    "gteq": "greater than or equal",
    "lt": "less than",
    "lteq": "less than or equal",
    "like": "like",
    "notLike": "not like",
}
_COMPARE: dict[str, Callable[[Any, Any], Condition]] = {
    "eq": operator.eq,
    "neq": operator.eq,
    "gt": operator.gt,
    "gteq": operator.ge,
    "lt": operator.lt,
    "lteq": operator.le,
    "like": lambda column, pattern: column.like(pattern, escape=LIKE_ESCAPE),
    "notLike": lambda column, pattern: column.like(pattern, escape=LIKE_ESCAPE),
}
_LONG_TYPES = {"short": 2**15, "integer": 2**31, "long": 2**63}
_REST_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{4}$")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _checked_operator(condition: VariableQueryDto) -> str:
    op = condition.operator or "eq"
    if op not in OPERATORS:
        raise InvalidQuery(f"Invalid variable comparator specified: {op}")
    if not condition.name:
        raise InvalidQuery("A variable filter needs a variable name")
    value = condition.value
    if op in _OPERATOR_WORDS and (value is None or isinstance(value, bool)):
        raise InvalidQuery(
            f"Booleans and null cannot be used in '{_OPERATOR_WORDS[op]}' condition "
            f"(variable '{condition.name}')"
        )
    if op in ("like", "notLike") and not isinstance(value, str):
        raise InvalidQuery(
            f"Only string values can be used with '{_OPERATOR_WORDS[op]}' condition "
            f"(variable '{condition.name}')"
        )
    if not isinstance(value, str | int | float | bool | None):
        raise InvalidQuery(
            f"Variable '{condition.name}': only string, number, boolean and null values can "
            "be compared"
        )
    return op


def _resolved(value: Any) -> Any:
    """A string in the REST date format is a Date, as Camunda's DateConverter makes it."""
    if isinstance(value, str) and _REST_DATE.match(value):
        try:
            return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%f%z")
        except ValueError:  # shaped like a date but not one (month 13): compared as text
            return value
    return value


def _text_matches(v: Table, op: str, text: str, ignore_case: bool) -> Condition:
    # An empty string is stored as TEXT_ null plus a marker in TEXT2_ (Camunda's Oracle quirk).
    column: ColumnElement[Any] = v.c.TEXT2_ if text == "" else v.c.TEXT_
    compared = EMPTY_STRING_MARKER if text == "" else text
    if ignore_case:
        column, compared = func.lower(column), compared.lower()
    return and_(v.c.VAR_TYPE_ == "string", column.is_not(None), _COMPARE[op](column, compared))


def _number_matches(v: Table, op: str, number: int | float) -> Condition:
    # Camunda's NumberValue: every numeric type the number converts to without loss.
    options = [and_(v.c.VAR_TYPE_ == "double", _COMPARE[op](v.c.DOUBLE_, float(number)))]
    if float(number).is_integer():
        whole = int(number)
        types = [t for t, bound in _LONG_TYPES.items() if -bound <= whole < bound]
        if types:
            options.append(and_(v.c.VAR_TYPE_.in_(types), _COMPARE[op](v.c.LONG_, whole)))
    return or_(*options)


def _no_value(v: Table) -> Condition:
    return and_(
        v.c.TEXT_.is_(None),
        v.c.TEXT2_.is_(None),
        v.c.LONG_.is_(None),
        v.c.DOUBLE_.is_(None),
        v.c.BYTEARRAY_ID_.is_(None),
    )


def _value_matches(v: Table, condition: VariableQueryDto, ignore_case: bool) -> Condition:
    """The rows of variable table `v` whose value satisfies `condition` (name aside)."""
    op = _checked_operator(condition)
    value = _resolved(condition.value)
    matched: Condition
    if value is None:
        matched = _no_value(v)
    elif isinstance(value, bool):
        matched = and_(v.c.VAR_TYPE_ == "boolean", v.c.LONG_ == int(value))
    elif isinstance(value, int | float):
        matched = _number_matches(v, op, value)
    elif isinstance(value, datetime):
        millis = (value - _EPOCH) // timedelta(milliseconds=1)
        matched = and_(v.c.VAR_TYPE_ == "date", _COMPARE[op](v.c.LONG_, millis))
    else:
        matched = _text_matches(v, op, value, ignore_case)
    return not_(matched) if op in ("neq", "notLike") else matched


def _name_matches(v: Table, name: str, ignore_case: bool) -> Condition:
    if ignore_case:
        return func.lower(v.c.NAME_) == name.lower()
    return v.c.NAME_ == name


def variable_condition(
    v: Table,
    condition: VariableQueryDto,
    *,
    names_ignore_case: bool = False,
    values_ignore_case: bool = False,
    operators: Sequence[str] = OPERATORS,
) -> Condition:
    """The rows of the variable table `v` that satisfy one `{name, operator, value}`."""
    if (condition.operator or "eq") not in operators:
        raise InvalidQuery(f"Invalid variable comparator specified: {condition.operator}")
    return and_(
        _value_matches(v, condition, values_ignore_case),
        _name_matches(v, condition.name or "", names_ignore_case),
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


# -- sorting and paging ------------------------------------------------------------------------


def _ordered(
    stmt: Select[Any], columns: dict[str, Any], sorting: Sorting, default: Sequence[Any], key: Any
) -> Select[Any]:
    """ORDER BY the requested columns (nulls last ascending, first descending, on every
    database), then `default`, then the primary key so that pages never overlap."""
    order: list[Any] = []
    for by, descending in sorting:
        column = columns[by]
        if getattr(column, "nullable", True):
            missing = column.is_(None)
            order.append(missing.desc() if descending else missing.asc())
        order.append(column.desc() if descending else column.asc())
    return stmt.order_by(*order, *default, key)


def _paged(stmt: Select[Any], first: int, maximum: int | None) -> Select[Any]:
    if first:
        stmt = stmt.offset(first)
    if maximum is not None:
        stmt = stmt.limit(maximum)
    return stmt


def _uncorrelated(column: Any, *conditions: Condition) -> Select[Any]:
    """An IN subquery that stands alone: never correlated with a table of the outer query
    (the process instance list joins ACT_RE_PROCDEF, which its name filter also reads)."""
    return select(column).where(*conditions).correlate(None)


def _count(conn: Connection, table: Any, conditions: Sequence[Condition]) -> int:
    return int(
        conn.execute(select(func.count()).select_from(table).where(*conditions)).scalar_one()
    )


def _stored(m: RowMapping) -> StoredValue:
    data = m["BYTES_"]
    return stored_from_columns(
        m["VAR_TYPE_"],
        text=m["TEXT_"],
        text2=m["TEXT2_"],
        long=m["LONG_"],
        double=m["DOUBLE_"],
        data=None if data is None else bytes(data),
    )


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
        moment = _naive_utc(q.executed_activity_after)
        yield exists().where(mine, or_(_A.c.START_TIME_ >= moment, _A.c.END_TIME_ >= moment))
    if q.executed_activity_before is not None:
        moment = _naive_utc(q.executed_activity_before)
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
        *_equal(q, _PI_EQUAL),
        *_member(q, _PI_MEMBER),
        *_not_member(q, (("process_definition_key_not_in", _P.c.PROC_DEF_KEY_),)),
        *_like(q, (("process_instance_business_key_like", _P.c.BUSINESS_KEY_),)),
        *_since(q, (("started_after", _P.c.START_TIME_), ("finished_after", _P.c.END_TIME_))),
        *_until(q, (("started_before", _P.c.START_TIME_), ("finished_before", _P.c.END_TIME_))),
        *_flags(q, _PI_FLAGS),
        *_never_when_set(q, _PI_NEVER),
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
    return HistoricProcessInstance(
        id=m["ID_"],
        business_key=m["BUSINESS_KEY_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_definition_key=m["PROC_DEF_KEY_"],
        process_definition_name=m["DEF_NAME_"],
        process_definition_version=m["DEF_VERSION_"],
        start_time=utc(m["START_TIME_"]),
        end_time=utc(m["END_TIME_"]),
        removal_time=utc(m["REMOVAL_TIME_"]),
        duration_in_millis=m["DURATION_"],
        start_user_id=m["START_USER_ID_"],
        start_activity_id=m["START_ACT_ID_"],
        delete_reason=m["DELETE_REASON_"],
        root_process_instance_id=m["ROOT_PROC_INST_ID_"],
        super_process_instance_id=m["SUPER_PROCESS_INSTANCE_ID_"],
        super_case_instance_id=m["SUPER_CASE_INSTANCE_ID_"],
        case_instance_id=m["CASE_INST_ID_"],
        tenant_id=m["TENANT_ID_"],
        state=m["STATE_"],
    )


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
    stmt = _ordered(stmt, PROCESS_INSTANCE_SORTS, sorting, [_P.c.START_TIME_], _P.c.ID_)
    rows = conn.execute(_paged(stmt, first, maximum)).mappings()
    return [_historic_process_instance(m) for m in rows]


def count_process_instances(conn: Connection, query: HistoricProcessInstanceQuery) -> int:
    return _count(conn, _P, _process_instance_conditions(query))


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
        *_equal(q, _AI_EQUAL),
        *_flags(q, _AI_FLAGS),
        *_since(q, (("started_after", _A.c.START_TIME_), ("finished_after", _A.c.END_TIME_))),
        *_until(q, (("started_before", _A.c.START_TIME_), ("finished_before", _A.c.END_TIME_))),
        *_tenant(q, _A.c.TENANT_ID_),
    ]


def _historic_activity_instance(m: RowMapping) -> HistoricActivityInstance:
    state = m["ACT_INST_STATE_"]
    return HistoricActivityInstance(
        id=m["ID_"],
        parent_activity_instance_id=m["PARENT_ACT_INST_ID_"],
        activity_id=m["ACT_ID_"],
        activity_name=m["ACT_NAME_"],
        activity_type=m["ACT_TYPE_"],
        process_definition_key=m["PROC_DEF_KEY_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_instance_id=m["PROC_INST_ID_"],
        execution_id=m["EXECUTION_ID_"],
        task_id=m["TASK_ID_"],
        assignee=m["ASSIGNEE_"],
        called_process_instance_id=m["CALL_PROC_INST_ID_"],
        called_case_instance_id=m["CALL_CASE_INST_ID_"],
        start_time=utc(m["START_TIME_"]),
        end_time=utc(m["END_TIME_"]),
        duration_in_millis=m["DURATION_"],
        canceled=state == ACTIVITY_STATE_CANCELED,
        complete_scope=state == ACTIVITY_STATE_SCOPE_COMPLETE,
        tenant_id=m["TENANT_ID_"],
        removal_time=utc(m["REMOVAL_TIME_"]),
        root_process_instance_id=m["ROOT_PROC_INST_ID_"],
    )


def find_activity_instances(
    conn: Connection,
    query: HistoricActivityInstanceQuery,
    sorting: Sorting = (),
    first: int = 0,
    maximum: int | None = None,
) -> list[HistoricActivityInstance]:
    stmt = select(_A).where(*_activity_instance_conditions(query))
    default = [_A.c.START_TIME_, _A.c.SEQUENCE_COUNTER_]
    stmt = _ordered(stmt, ACTIVITY_INSTANCE_SORTS, sorting, default, _A.c.ID_)
    rows = conn.execute(_paged(stmt, first, maximum)).mappings()
    return [_historic_activity_instance(m) for m in rows]


def count_activity_instances(conn: Connection, query: HistoricActivityInstanceQuery) -> int:
    return _count(conn, _A, _activity_instance_conditions(query))


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
        *_equal(q, _TI_EQUAL),
        *_member(q, _TI_MEMBER),
        *_like(q, _TI_LIKE),
        *_since(q, _TI_SINCE),
        *_until(q, _TI_UNTIL),
        *_flags(q, _TI_FLAGS),
        *_never_when_set(q, ("case_definition_name",)),
        *_tenant(q, _T.c.TENANT_ID_),
        *_task_instances_of(q),
        *_task_people(q),
        *_task_variables(q),
    ]


def _historic_task_instance(m: RowMapping) -> HistoricTaskInstance:
    return HistoricTaskInstance(
        id=m["ID_"],
        process_definition_key=m["PROC_DEF_KEY_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_instance_id=m["PROC_INST_ID_"],
        execution_id=m["EXECUTION_ID_"],
        case_definition_key=m["CASE_DEF_KEY_"],
        case_definition_id=m["CASE_DEF_ID_"],
        case_instance_id=m["CASE_INST_ID_"],
        case_execution_id=m["CASE_EXECUTION_ID_"],
        activity_instance_id=m["ACT_INST_ID_"],
        name=m["NAME_"],
        description=m["DESCRIPTION_"],
        delete_reason=m["DELETE_REASON_"],
        owner=m["OWNER_"],
        assignee=m["ASSIGNEE_"],
        start_time=utc(m["START_TIME_"]),
        end_time=utc(m["END_TIME_"]),
        duration=m["DURATION_"],
        task_definition_key=m["TASK_DEF_KEY_"],
        priority=m["PRIORITY_"],
        due=utc(m["DUE_DATE_"]),
        parent_task_id=m["PARENT_TASK_ID_"],
        follow_up=utc(m["FOLLOW_UP_DATE_"]),
        tenant_id=m["TENANT_ID_"],
        removal_time=utc(m["REMOVAL_TIME_"]),
        root_process_instance_id=m["ROOT_PROC_INST_ID_"],
    )


def find_task_instances(
    conn: Connection,
    query: HistoricTaskInstanceQuery,
    sorting: Sorting = (),
    first: int = 0,
    maximum: int | None = None,
) -> list[HistoricTaskInstance]:
    stmt = select(_T).where(*_task_instance_conditions(query))
    stmt = _ordered(stmt, TASK_INSTANCE_SORTS, sorting, [_T.c.START_TIME_], _T.c.ID_)
    rows = conn.execute(_paged(stmt, first, maximum)).mappings()
    return [_historic_task_instance(m) for m in rows]


def count_task_instances(conn: Connection, query: HistoricTaskInstanceQuery) -> int:
    return _count(conn, _T, _task_instance_conditions(query))


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
        yield _name_matches(_V, q.variable_name, names_ignore_case)
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
        yield _value_matches(_V, condition, ignore_case)


def _variable_instance_conditions(q: HistoricVariableInstanceQuery) -> list[Condition]:
    conditions = [
        *_equal(q, _VI_EQUAL),
        *_member(q, _VI_MEMBER),
        *_never_when_set(q, ("case_activity_id_in",)),
        *_tenant(q, _V.c.TENANT_ID_),
        *_variable_name_and_value(q),
    ]
    if q.variable_type_in:
        conditions.append(_V.c.VAR_TYPE_.in_(_variable_types(q.variable_type_in)))
    if q.include_deleted is not True:
        conditions.append(_V.c.STATE_ == "CREATED")
    return conditions


def _historic_variable_instance(m: RowMapping) -> HistoricVariableInstance:
    return HistoricVariableInstance(
        id=m["ID_"],
        name=m["NAME_"],
        value=_stored(m),
        process_definition_key=m["PROC_DEF_KEY_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_instance_id=m["PROC_INST_ID_"],
        execution_id=m["EXECUTION_ID_"],
        activity_instance_id=m["ACT_INST_ID_"],
        case_definition_key=m["CASE_DEF_KEY_"],
        case_definition_id=m["CASE_DEF_ID_"],
        case_instance_id=m["CASE_INST_ID_"],
        case_execution_id=m["CASE_EXECUTION_ID_"],
        task_id=m["TASK_ID_"],
        tenant_id=m["TENANT_ID_"],
        state=m["STATE_"],
        create_time=utc(m["CREATE_TIME_"]),
        removal_time=utc(m["REMOVAL_TIME_"]),
        root_process_instance_id=m["ROOT_PROC_INST_ID_"],
    )


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
    stmt = _ordered(stmt, VARIABLE_INSTANCE_SORTS, sorting, [_V.c.CREATE_TIME_], _V.c.ID_)
    rows = conn.execute(_paged(stmt, first, maximum)).mappings()
    return [_historic_variable_instance(m) for m in rows]


def count_variable_instances(conn: Connection, query: HistoricVariableInstanceQuery) -> int:
    return _count(conn, _V, _variable_instance_conditions(query))


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
        *_equal(q, _DT_EQUAL),
        *_member(q, (("process_instance_id_in", _DT.c.PROC_INST_ID_),)),
        *_since(q, (("occurred_after", _DT.c.TIME_),)),
        *_until(q, (("occurred_before", _DT.c.TIME_),)),
        *_tenant(q, _DT.c.TENANT_ID_),
        *_detail_kind(q),
    ]


def _historic_detail(m: RowMapping) -> HistoricVariableUpdate:
    return HistoricVariableUpdate(
        id=m["ID_"],
        type=_REST_DETAIL_TYPES.get(m["TYPE_"], m["TYPE_"]),
        process_definition_key=m["PROC_DEF_KEY_"],
        process_definition_id=m["PROC_DEF_ID_"],
        process_instance_id=m["PROC_INST_ID_"],
        activity_instance_id=m["ACT_INST_ID_"],
        execution_id=m["EXECUTION_ID_"],
        case_definition_key=m["CASE_DEF_KEY_"],
        case_definition_id=m["CASE_DEF_ID_"],
        case_instance_id=m["CASE_INST_ID_"],
        case_execution_id=m["CASE_EXECUTION_ID_"],
        task_id=m["TASK_ID_"],
        tenant_id=m["TENANT_ID_"],
        user_operation_id=m["OPERATION_ID_"],
        time=utc(m["TIME_"]),
        removal_time=utc(m["REMOVAL_TIME_"]),
        root_process_instance_id=m["ROOT_PROC_INST_ID_"],
        variable_name=m["NAME_"],
        variable_instance_id=m["VAR_INST_ID_"],
        value=_stored(m),
        initial=bool(m["INITIAL_"]),
        revision=m["REV_"],
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
    default = [_DT.c.TIME_, _DT.c.SEQUENCE_COUNTER_]
    stmt = _ordered(stmt, DETAIL_SORTS, sorting, default, _DT.c.ID_)
    rows = conn.execute(_paged(stmt, first, maximum)).mappings()
    return [_historic_detail(m) for m in rows]


def count_details(conn: Connection, query: HistoricDetailQuery) -> int:
    return _count(conn, _DT, _detail_conditions(query))


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
