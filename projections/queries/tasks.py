"""Camunda's task query over ACT_RU_TASK: filters, `orQueries`, sorting and paging, as engine-rest's
`/task` list and count run them (the semantics of Camunda's `Task.xml` mapper), and a task's
identity links. Reads only, parameterised SQLAlchemy Core.

A task's form key is no column (Camunda 7.15 has none either): it is the value the engine
recorded when it created the task, which the REST layer reads from the instance's state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec
from sqlalchemy import (
    ColumnElement,
    and_,
    exists,
    func,
    not_,
    or_,
    select,
    true,
)
from sqlalchemy.engine import Connection, RowMapping

from flowledger.core.variables import EMPTY_STRING_MARKER

from ..tables import (
    ACT_RE_PROCDEF,
    ACT_RU_EXECUTION,
    ACT_RU_IDENTITYLINK,
    ACT_RU_TASK,
    ACT_RU_VARIABLE,
)
from .declaration import Search, first_where
from .filters import (
    ACTIVE,
    LIKE_ESCAPE,
    MILLISECOND,
    SUSPENDED,
    InvalidQuery,
    equal_fields,
    flag_fields,
    like_fields,
    member_fields,
    naive_utc,
    nothing_when_set,
    parse_moment,
)
from .results import from_row
from .variables import VariableComparison

T = ACT_RU_TASK
LINK = ACT_RU_IDENTITYLINK


class VariableFilter(VariableComparison):
    """One `{name, operator, value}` of `processVariables` / `taskVariables`."""


# Camunda's priority is a Java int.
Priority = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]


class TaskQuery(msgspec.Struct, rename="camel"):
    """Camunda's TaskQueryDto: every field optional, null means "no filter"; booleans filter only
    when true (Camunda's "value may only be true"). Dates are Camunda-format strings."""

    task_id: str | None = None
    task_id_in: list[str] | None = None
    process_instance_id: str | None = None
    process_instance_id_in: list[str] | None = None
    process_instance_business_key: str | None = None
    process_instance_business_key_expression: str | None = None
    process_instance_business_key_in: list[str] | None = None
    process_instance_business_key_like: str | None = None
    process_instance_business_key_like_expression: str | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    process_definition_key_in: list[str] | None = None
    process_definition_name: str | None = None
    process_definition_name_like: str | None = None
    execution_id: str | None = None
    case_instance_id: str | None = None
    case_instance_business_key: str | None = None
    case_instance_business_key_like: str | None = None
    case_definition_id: str | None = None
    case_definition_key: str | None = None
    case_definition_name: str | None = None
    case_definition_name_like: str | None = None
    case_execution_id: str | None = None
    activity_instance_id_in: list[str] | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    assignee: str | None = None
    assignee_expression: str | None = None
    assignee_like: str | None = None
    assignee_like_expression: str | None = None
    assignee_in: list[str] | None = None
    owner: str | None = None
    owner_expression: str | None = None
    candidate_group: str | None = None
    candidate_group_expression: str | None = None
    candidate_user: str | None = None
    candidate_user_expression: str | None = None
    include_assigned_tasks: bool | None = None
    involved_user: str | None = None
    involved_user_expression: str | None = None
    assigned: bool | None = None
    unassigned: bool | None = None
    task_definition_key: str | None = None
    task_definition_key_in: list[str] | None = None
    task_definition_key_like: str | None = None
    name: str | None = None
    name_not_equal: str | None = None
    name_like: str | None = None
    name_not_like: str | None = None
    description: str | None = None
    description_like: str | None = None
    priority: Priority | None = None
    max_priority: Priority | None = None
    min_priority: Priority | None = None
    due_date: str | None = None
    due_date_expression: str | None = None
    due_after: str | None = None
    due_after_expression: str | None = None
    due_before: str | None = None
    due_before_expression: str | None = None
    without_due_date: bool | None = None
    follow_up_date: str | None = None
    follow_up_date_expression: str | None = None
    follow_up_after: str | None = None
    follow_up_after_expression: str | None = None
    follow_up_before: str | None = None
    follow_up_before_expression: str | None = None
    follow_up_before_or_not_existent: str | None = None
    follow_up_before_or_not_existent_expression: str | None = None
    created_on: str | None = None
    created_on_expression: str | None = None
    created_after: str | None = None
    created_after_expression: str | None = None
    created_before: str | None = None
    created_before_expression: str | None = None
    delegation_state: str | None = None
    candidate_groups: list[str] | None = None
    candidate_groups_expression: str | None = None
    with_candidate_groups: bool | None = None
    without_candidate_groups: bool | None = None
    with_candidate_users: bool | None = None
    without_candidate_users: bool | None = None
    active: bool | None = None
    suspended: bool | None = None
    task_variables: list[VariableFilter] | None = None
    process_variables: list[VariableFilter] | None = None
    case_instance_variables: list[VariableFilter] | None = None
    variable_names_ignore_case: bool | None = None
    variable_values_ignore_case: bool | None = None
    parent_task_id: str | None = None
    or_queries: list[TaskQuery] | None = None


class TaskRow(msgspec.Struct, frozen=True):
    """One ACT_RU_TASK row, dates as aware UTC datetimes; the fields of Camunda's TaskDto in its
    order, then those it lacks."""

    id: str
    name: str | None
    assignee: str | None
    owner: str | None
    created: datetime | None
    due: datetime | None
    follow_up: datetime | None
    delegation_state: str | None
    description: str | None
    execution_id: str | None
    parent_task_id: str | None
    priority: int | None
    process_definition_id: str | None
    process_instance_id: str | None
    case_execution_id: str | None
    case_definition_id: str | None
    case_instance_id: str | None
    task_definition_key: str | None
    suspended: bool
    tenant_id: str | None
    last_updated: datetime | None
    task_state: str | None


class LinkRow(msgspec.Struct, frozen=True):
    user_id: str | None
    group_id: str | None
    type: str


# Camunda's sortBy values over ACT_RU_TASK columns. Variable sorts need the sorting entry's
# `parameters`, which the shared sorting parser drops: refused, see VARIABLE_SORTS.
SORTS: dict[str, ColumnElement[Any]] = {
    "instanceId": T.c.PROC_INST_ID_,
    "caseInstanceId": T.c.CASE_INST_ID_,
    "dueDate": T.c.DUE_DATE_,
    "followUpDate": T.c.FOLLOW_UP_DATE_,
    "executionId": T.c.EXECUTION_ID_,
    "caseExecutionId": T.c.CASE_EXECUTION_ID_,
    "assignee": T.c.ASSIGNEE_,
    "created": T.c.CREATE_TIME_,
    "lastUpdated": T.c.LAST_UPDATED_,
    "description": T.c.DESCRIPTION_,
    "id": T.c.ID_,
    "name": T.c.NAME_,
    "nameCaseInsensitive": func.lower(T.c.NAME_),
    "priority": T.c.PRIORITY_,
    "tenantId": T.c.TENANT_ID_,
}
VARIABLE_SORTS = frozenset(
    {
        "processVariable",
        "executionVariable",
        "taskVariable",
        "caseExecutionVariable",
        "caseInstanceVariable",
    }
)

_INFO = msgspec.inspect.type_info(TaskQuery)
assert isinstance(_INFO, msgspec.inspect.StructType)
_CAMEL = {f.name: f.encode_name for f in _INFO.fields}
EXPRESSION_FIELDS = tuple(name for name in _CAMEL if name.endswith("_expression"))
# Camunda refuses these inside an or-query ("Invalid query usage").
_NOT_IN_OR = (
    "with_candidate_groups",
    "without_candidate_groups",
    "with_candidate_users",
    "without_candidate_users",
    "or_queries",
)
Predicate = ColumnElement[bool]
_OPERATORS: dict[str, Callable[[Any, Any], Predicate]] = {
    "eq": lambda c, v: c == v,
    "neq": lambda c, v: c != v,
    "gt": lambda c, v: c > v,
    "gteq": lambda c, v: c >= v,
    "lt": lambda c, v: c < v,
    "lteq": lambda c, v: c <= v,
}
_LONG_TYPES = ("short", "integer", "long")


# -- validation ---------------------------------------------------------------------------------


def _value(query: TaskQuery, field: str) -> Any:
    return getattr(query, field)


def _texts(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, VariableFilter):
        yield from _texts([value.name, value.operator, value.value])


def _refuse_nul_characters(query: TaskQuery) -> None:
    # PostgreSQL cannot even compare text holding NUL: no stored value contains one.
    if b"\\u0000" not in msgspec.json.encode(query):
        return  # the common case, checked in C; only a hit walks the fields to name one
    for field, encoded in _CAMEL.items():
        if any("\x00" in text for text in _texts(_value(query, field))):
            raise InvalidQuery(
                f"Cannot set query parameter '{encoded}': NUL characters are not allowed"
            )


def check(query: TaskQuery, *, nested: bool = False) -> None:
    """Refuse what the query cannot run, naming the parameter (before any SQL is built)."""
    _refuse_nul_characters(query)
    for field in EXPRESSION_FIELDS:
        if _value(query, field) is not None:
            raise InvalidQuery(
                f"Cannot set query parameter '{_CAMEL[field]}': expressions are not supported"
            )
    if nested:
        for field in _NOT_IN_OR:
            if _value(query, field):
                raise InvalidQuery(
                    f"Invalid query usage: cannot set '{_CAMEL[field]}' in an orQueries entry"
                )
    elif query.candidate_user is not None and (query.candidate_group or query.candidate_groups):
        raise InvalidQuery(
            "Invalid query usage: cannot set both candidateUser and candidateGroup(s)"
        )
    if query.delegation_state is not None and query.delegation_state.upper() not in (
        "PENDING",
        "RESOLVED",
    ):
        raise InvalidQuery(
            "Valid values for property 'delegationState' are 'PENDING' or 'RESOLVED', "
            f"but was '{query.delegation_state}'"
        )
    for entry in query.or_queries or []:
        check(entry, nested=True)


# -- predicates ---------------------------------------------------------------------------------

_EQUALS = (
    ("task_id", T.c.ID_),
    ("process_instance_id", T.c.PROC_INST_ID_),
    ("process_definition_id", T.c.PROC_DEF_ID_),
    ("execution_id", T.c.EXECUTION_ID_),
    ("case_instance_id", T.c.CASE_INST_ID_),
    ("case_execution_id", T.c.CASE_EXECUTION_ID_),
    ("case_definition_id", T.c.CASE_DEF_ID_),
    ("assignee", T.c.ASSIGNEE_),
    ("owner", T.c.OWNER_),
    ("task_definition_key", T.c.TASK_DEF_KEY_),
    ("parent_task_id", T.c.PARENT_TASK_ID_),
    ("priority", T.c.PRIORITY_),
)
_IN = (
    ("task_id_in", T.c.ID_),
    ("process_instance_id_in", T.c.PROC_INST_ID_),
    ("assignee_in", T.c.ASSIGNEE_),
    ("task_definition_key_in", T.c.TASK_DEF_KEY_),
    ("tenant_id_in", T.c.TENANT_ID_),
)
_LIKE = (
    ("assignee_like", T.c.ASSIGNEE_),
    ("task_definition_key_like", T.c.TASK_DEF_KEY_),
)
# Camunda compares task names and descriptions case-insensitively (CAM-6363, CAM-6165, CAM-12186).
_UPPER: tuple[tuple[str, Any, Callable[[Any, Any], Predicate]], ...] = (
    ("name", T.c.NAME_, lambda c, v: c == v),
    ("name_not_equal", T.c.NAME_, lambda c, v: c != v),
    ("name_like", T.c.NAME_, lambda c, v: c.like(v, escape=LIKE_ESCAPE)),
    ("name_not_like", T.c.NAME_, lambda c, v: c.not_like(v, escape=LIKE_ESCAPE)),
    ("description", T.c.DESCRIPTION_, lambda c, v: c == v),
    ("description_like", T.c.DESCRIPTION_, lambda c, v: c.like(v, escape=LIKE_ESCAPE)),
)
_TRUE_ONLY: tuple[tuple[str, Predicate], ...] = (
    ("assigned", T.c.ASSIGNEE_.is_not(None)),
    ("unassigned", T.c.ASSIGNEE_.is_(None)),
    ("without_due_date", T.c.DUE_DATE_.is_(None)),
    ("without_tenant_id", T.c.TENANT_ID_.is_(None)),
    ("active", T.c.SUSPENSION_STATE_ == ACTIVE),
    ("suspended", T.c.SUSPENSION_STATE_ == SUSPENDED),
)
# (field, column, comparison): `On`/`Date` fields match the whole millisecond, the precision
# Camunda's dates have on the wire.
_DATES = (
    ("due_date", T.c.DUE_DATE_, "on"),
    ("due_before", T.c.DUE_DATE_, "before"),
    ("due_after", T.c.DUE_DATE_, "after"),
    ("follow_up_date", T.c.FOLLOW_UP_DATE_, "on"),
    ("follow_up_before", T.c.FOLLOW_UP_DATE_, "before"),
    ("follow_up_after", T.c.FOLLOW_UP_DATE_, "after"),
    ("follow_up_before_or_not_existent", T.c.FOLLOW_UP_DATE_, "before-or-null"),
    ("created_on", T.c.CREATE_TIME_, "on"),
    ("created_before", T.c.CREATE_TIME_, "before"),
    ("created_after", T.c.CREATE_TIME_, "after"),
)
# No CMMN here: a filter on a case's key, name or business key matches no task.
_CASE_ONLY = (
    "case_instance_business_key",
    "case_instance_business_key_like",
    "case_definition_key",
    "case_definition_name",
    "case_definition_name_like",
)


def _column_predicates(q: TaskQuery) -> Iterable[Predicate]:
    yield from equal_fields(q, _EQUALS)
    yield from member_fields(q, _IN)
    yield from like_fields(q, _LIKE)
    for field, column, compare in _UPPER:
        value = _value(q, field)
        if value is not None:
            yield compare(func.upper(column), func.upper(value))
    yield from flag_fields(q, _TRUE_ONLY)
    if q.min_priority is not None:
        yield T.c.PRIORITY_ >= q.min_priority
    if q.max_priority is not None:
        yield T.c.PRIORITY_ <= q.max_priority
    if q.delegation_state is not None:
        yield T.c.DELEGATION_ == q.delegation_state.upper()
    yield from nothing_when_set(*(_value(q, f) for f in _CASE_ONLY), q.case_instance_variables)


def _date_predicates(q: TaskQuery) -> Iterable[Predicate]:
    for field, column, kind in _DATES:
        text = _value(q, field)
        if text is None:
            continue
        moment = naive_utc(parse_moment(text, _CAMEL[field]))
        if kind == "on":
            yield and_(column >= moment, column < moment + MILLISECOND)
        elif kind == "before":
            yield column < moment
        elif kind == "after":
            yield column > moment
        else:
            yield or_(column.is_(None), column < moment)


def _related_predicates(q: TaskQuery) -> Iterable[Predicate]:
    """Filters on the task's process definition, process instance or execution. Each condition
    is built only for a filter that is set: building one costs more than running the query."""
    d, e = ACT_RE_PROCDEF, ACT_RU_EXECUTION
    definitions: tuple[tuple[str, Callable[[Any], Predicate]], ...] = (
        ("process_definition_key", lambda v: d.c.KEY_ == v),
        ("process_definition_key_in", lambda v: d.c.KEY_.in_(v)),
        ("process_definition_name", lambda v: d.c.NAME_ == v),
        ("process_definition_name_like", lambda v: _like(d.c.NAME_, v)),
    )
    for field, condition in definitions:
        value = _value(q, field)
        if value not in (None, []):
            yield T.c.PROC_DEF_ID_.in_(select(d.c.ID_).where(condition(value)))
    instances: tuple[tuple[str, Callable[[Any], Predicate]], ...] = (
        ("process_instance_business_key", lambda v: e.c.BUSINESS_KEY_ == v),
        ("process_instance_business_key_in", lambda v: e.c.BUSINESS_KEY_.in_(v)),
        ("process_instance_business_key_like", lambda v: _like(e.c.BUSINESS_KEY_, v)),
    )
    for field, condition in instances:
        value = _value(q, field)
        if value not in (None, []):
            # The instance's own execution row (ID_ = PROC_INST_ID_) carries its business key.
            yield T.c.PROC_INST_ID_.in_(select(e.c.ID_).where(condition(value)))
    if q.activity_instance_id_in:
        # A user task's execution stands in its activity instance (Camunda joins the same way).
        executions = select(e.c.ID_).where(e.c.ACT_INST_ID_.in_(q.activity_instance_id_in))
        yield T.c.EXECUTION_ID_.in_(executions)


def _like(column: Any, pattern: str | None) -> Predicate:
    result: Predicate = column.like(pattern or "", escape=LIKE_ESCAPE)
    return result


def _groups(q: TaskQuery) -> list[str]:
    groups = list(q.candidate_groups or [])
    if q.candidate_group is not None:
        groups.append(q.candidate_group)
    return groups


def _unassigned_unless_included(q: TaskQuery) -> list[Predicate]:
    # Camunda's candidate filters see only unassigned tasks unless includeAssignedTasks is set.
    return [] if q.include_assigned_tasks else [T.c.ASSIGNEE_.is_(None)]


def _candidate_predicates(q: TaskQuery) -> Iterable[Predicate]:
    groups = _groups(q)
    if q.candidate_user is not None or groups or q.with_candidate_groups or q.with_candidate_users:
        # One link row must satisfy every candidate condition, as in Camunda's single join. The
        # tasks it names are read once, from the group or user index alone, rather than probed
        # for each task a list walks in its order: a page of a big group's tasks, or their
        # count, reads the group's links instead of every unassigned task's. (A definition's
        # links have no task: left out, they cannot make IN unknown.)
        link = [LINK.c.TYPE_ == "candidate", LINK.c.TASK_ID_.is_not(None)]
        who = []
        if q.candidate_user is not None:
            who.append(LINK.c.USER_ID_ == q.candidate_user)
        if groups:
            who.append(LINK.c.GROUP_ID_.in_(groups))
        if who:
            link.append(or_(*who))
        if q.with_candidate_groups:
            link.append(LINK.c.GROUP_ID_.is_not(None))
        if q.with_candidate_users:
            link.append(LINK.c.USER_ID_.is_not(None))
        candidates = select(LINK.c.TASK_ID_).where(*link)
        yield and_(T.c.ID_.in_(candidates), *_unassigned_unless_included(q))
    if q.without_candidate_groups or q.without_candidate_users:
        link = [LINK.c.TASK_ID_ == T.c.ID_, LINK.c.TYPE_ == "candidate"]
        if q.without_candidate_groups:
            link.append(LINK.c.GROUP_ID_.is_not(None))
        if q.without_candidate_users:
            link.append(LINK.c.USER_ID_.is_not(None))
        yield and_(not_(exists(select(LINK.c.ID_).where(*link))), *_unassigned_unless_included(q))
    if q.involved_user is not None:
        user = q.involved_user
        linked = exists(
            select(LINK.c.ID_).where(LINK.c.TASK_ID_ == T.c.ID_, LINK.c.USER_ID_ == user)
        )
        yield or_(linked, T.c.ASSIGNEE_ == user, T.c.OWNER_ == user)


# -- variable filters ---------------------------------------------------------------------------


def _text_condition(op: str, value: str, ignore_case: bool) -> Predicate:
    v = ACT_RU_VARIABLE
    text: Any = func.upper(v.c.TEXT_) if ignore_case else v.c.TEXT_
    given: Any = func.upper(value) if ignore_case else value
    if value == "" and op in ("eq", "neq"):
        # The empty string is stored as a marker in TEXT2_, TEXT_ staying null.
        empty = v.c.TEXT2_ == EMPTY_STRING_MARKER
        return empty if op == "eq" else v.c.TEXT_.is_not(None)
    if op == "like":
        return and_(v.c.TYPE_ == "string", text.like(given, escape=LIKE_ESCAPE))
    if op == "notLike":
        return and_(v.c.TYPE_ == "string", text.not_like(given, escape=LIKE_ESCAPE))
    return and_(v.c.TYPE_ == "string", _OPERATORS[op](text, given))


def _value_condition(name: str, op: str, value: Any, ignore_case: bool) -> Predicate:
    """Camunda's variableValueConditions: the value's type picks the storage columns. Numbers
    compare with every numeric type (Camunda matches only the number's own Java type)."""
    v = ACT_RU_VARIABLE
    if op not in _OPERATORS and op not in ("like", "notLike"):
        raise InvalidQuery(f"Invalid variable comparator specified: {op}")
    if value is None or isinstance(value, bool):
        if op not in ("eq", "neq"):
            raise InvalidQuery(
                f"Variable '{name}': booleans and null can only be compared with eq or neq"
            )
        if value is None:
            columns = (v.c.TEXT_, v.c.TEXT2_, v.c.LONG_, v.c.DOUBLE_, v.c.BYTEARRAY_ID_)
            if op == "eq":
                return and_(*(c.is_(None) for c in columns))
            return or_(*(c.is_not(None) for c in columns))
        return and_(v.c.TYPE_ == "boolean", _OPERATORS[op](v.c.LONG_, int(value)))
    if isinstance(value, int | float):
        if isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise InvalidQuery(f"Variable '{name}': {value} is out of range for a Long")
        if op not in _OPERATORS:
            raise InvalidQuery(f"Variable '{name}': only strings can be compared with {op}")
        compare = _OPERATORS[op]
        return or_(
            and_(v.c.TYPE_.in_(_LONG_TYPES), compare(v.c.LONG_, value)),
            and_(v.c.TYPE_ == "double", compare(v.c.DOUBLE_, value)),
        )
    if isinstance(value, str):
        moment = _camunda_date(value)
        if moment is not None and op in _OPERATORS:
            # Camunda reads a string in its date format as a Date value.
            millis = (moment - datetime(1970, 1, 1, tzinfo=UTC)) // MILLISECOND
            return and_(v.c.TYPE_ == "date", _OPERATORS[op](v.c.LONG_, millis))
        return _text_condition(op, value, ignore_case)
    raise InvalidQuery(
        f"Variable '{name}': the value must be a string, number, boolean or null, not {value!r}"
    )


def _camunda_date(text: str) -> datetime | None:
    """The moment `text` names if it is written like a Camunda REST date (with time and offset)."""
    if len(text) < 24 or text[10] != "T":
        return None
    try:
        return parse_moment(text, "")
    except InvalidQuery:
        return None


def _variable_predicate(f: VariableFilter, q: TaskQuery, *, local: bool, field: str) -> Predicate:
    v = ACT_RU_VARIABLE
    if not f.name or not f.operator:
        raise InvalidQuery(f"Every entry of '{field}' needs a name and an operator")
    name = (
        func.upper(v.c.NAME_) == func.upper(f.name)
        if q.variable_names_ignore_case
        else v.c.NAME_ == f.name
    )
    # Task variables are the task's own (VAR_SCOPE_ is the task id); process variables are the
    # instance's, of any scope, but not a task's local ones.
    scope = (
        v.c.VAR_SCOPE_ == T.c.ID_
        if local
        else and_(v.c.PROC_INST_ID_ == T.c.PROC_INST_ID_, v.c.TASK_ID_.is_(None))
    )
    value = _value_condition(f.name, f.operator, f.value, bool(q.variable_values_ignore_case))
    return exists(select(v.c.ID_).where(scope, name, value))


def _variable_predicates(q: TaskQuery) -> Iterable[Predicate]:
    for f in q.task_variables or []:
        yield _variable_predicate(f, q, local=True, field="taskVariables")
    for f in q.process_variables or []:
        yield _variable_predicate(f, q, local=False, field="processVariables")


# -- the query ----------------------------------------------------------------------------------


def _predicates(q: TaskQuery) -> list[Predicate]:
    return [
        *_column_predicates(q),
        *_date_predicates(q),
        *_related_predicates(q),
        *_candidate_predicates(q),
        *_variable_predicates(q),
    ]


def _where(query: TaskQuery) -> Predicate:
    """The query's filters AND each or-query's filters OR-ed (Camunda's conjunctive form)."""
    check(query)
    parts = _predicates(query)
    for entry in query.or_queries or []:
        alternatives = _predicates(entry)
        if alternatives:
            parts.append(or_(*alternatives))
    return and_(true(), *parts)


def _row(m: RowMapping) -> TaskRow:
    return from_row(TaskRow, m, suspended=m["SUSPENSION_STATE_"] == SUSPENDED)


TASKS: Search[TaskQuery, TaskRow] = Search(
    query=TaskQuery,
    source=T,
    columns=(T,),
    filters=lambda query: [_where(query)],
    sorts=SORTS,
    # Nulls last ascending and first descending on every database (as PostgreSQL sorts them),
    # then by id so that pages never overlap.
    then=(T.c.ID_,),
    row=_row,
    nulls="high",
    # Every task is created at a moment (the state's `created`): Tasklist's newest-first list
    # reads ACT_IDX_TASK_CREATE in order.
    filled=(T.c.CREATE_TIME_,),
)


def get(conn: Connection, task_id: str) -> TaskRow | None:
    return first_where(conn, TASKS, T.c.ID_ == task_id)


def identity_links(conn: Connection, task_id: str) -> list[LinkRow]:
    """The task's stored links (candidates), oldest first."""
    stmt = (
        select(LINK.c.USER_ID_, LINK.c.GROUP_ID_, LINK.c.TYPE_)
        .where(LINK.c.TASK_ID_ == task_id)
        .order_by(LINK.c.ID_)
    )
    return [LinkRow(user_id=u, group_id=g, type=t) for u, g, t in conn.execute(stmt)]
