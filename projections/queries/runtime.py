"""The runtime searches behind engine-rest's `/process-instance`, `/execution` and
`/variable-instance` lists: filtered, sorted, paged reads of ACT_RU_EXECUTION and ACT_RU_VARIABLE.

Query Structs carry Camunda's query-DTO field names (`rename="camel"`, null = no filter); LIKE
filters take the pattern as given, `%` included, as Camunda does. Variable value filters compare
as Camunda's `Commons.variableValueConditions` does: a string against TEXT_ of `string`
variables, a number against LONG_ of `short`/`integer`/`long` and DOUBLE_ of `double` variables,
a boolean against LONG_ of `boolean` variables, a date against LONG_ of `date` variables, null
against variables whose value columns are all empty; `neq` negates the `eq` condition, so the
variable must exist either way.

Incident filters read ACT_RU_INCIDENT as Camunda's mapping joins it: one open incident of the
process instance (of the execution, in the execution query) meets them all. This engine has no
case instances and no signal or message subscriptions on executions: filters on them match
nothing rather than being ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec
from sqlalchemy import (
    ColumnElement,
    FromClause,
    and_,
    case,
    exists,
    false,
    func,
    not_,
    or_,
    select,
)
from sqlalchemy.engine import Connection, RowMapping

from flowledger.core.variables import StoredValue
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_RE_PROCDEF,
    ACT_RU_EXECUTION,
    ACT_RU_INCIDENT,
    ACT_RU_VARIABLE,
)

from .declaration import Search, first, first_where
from .filters import (
    SUSPENDED,
    Condition,
    InvalidQuery,
    equal,
    like,
    one_of,
    suspension,
    tenants,
)
from .results import from_row
from .variables import VariableComparison, name_matches, stored_value, value_matches


class VariableCondition(VariableComparison, rename="camel"):
    """Camunda's VariableQueryParameterDto: `{name, operator, value}`."""


def conditions_from_text(text: str, parameter: str) -> list[VariableCondition]:
    """The query-string form `name_op_value,name2_op_value2`. As Camunda's VariableListConverter
    does, the value stays a string (a REST date excepted), so it matches String variables."""
    out = []
    for expression in text.split(","):
        parts = expression.split("_")
        if len(parts) != 3:
            raise InvalidQuery(
                f"Cannot set query parameter '{parameter}': '{expression}' does not have the "
                "format KEY_OPERATOR_VALUE (names and values may not contain '_' or ',')"
            )
        out.append(VariableCondition(parts[0], parts[1], parts[2]))
    return out


def value_condition(
    v: FromClause, condition: VariableComparison, values_ignore_case: bool
) -> Condition:
    """The condition on one ACT_RU_VARIABLE row (or alias `v`) that its value satisfies
    `condition` (its name is checked separately)."""
    return value_matches(v, condition, values_ignore_case, type_column="TYPE_")


def _variable_exists(
    conditions: Iterable[VariableComparison],
    scope: Callable[[FromClause], Condition],
    names_ignore_case: bool | None,
    values_ignore_case: bool | None,
) -> list[Condition]:
    """One EXISTS per condition: a variable in `scope` with that name and a matching value."""
    out: list[Condition] = []
    for condition in conditions:
        v = ACT_RU_VARIABLE.alias("V")
        out.append(
            exists()
            .where(
                name_matches(v, condition.name or "", bool(names_ignore_case)),
                scope(v),
                value_condition(v, condition, bool(values_ignore_case)),
            )
            .correlate_except(v)
        )
    return out


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, msgspec.Struct):
        for item in msgspec.structs.astuple(value):
            yield from _texts(item)


def _refuse_nul(query: msgspec.Struct) -> None:
    """PostgreSQL cannot even compare text with a NUL character in it: such a filter is a bad
    query on every database, rather than a database error on one of them."""
    if any("\x00" in text for text in _texts(query)):
        raise InvalidQuery("Query parameters cannot contain NUL characters")


# -- process instances ----------------------------------------------------------------------------


class ProcessInstanceQuery(msgspec.Struct, rename="camel"):
    """Camunda's ProcessInstanceQueryDto (without `orQueries` and `sorting`)."""

    process_instance_ids: list[str] | None = None
    business_key: str | None = None
    business_key_like: str | None = None
    case_instance_id: str | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    process_definition_key_in: list[str] | None = None
    process_definition_key_not_in: list[str] | None = None
    deployment_id: str | None = None
    super_process_instance: str | None = None
    sub_process_instance: str | None = None
    super_case_instance: str | None = None
    sub_case_instance: str | None = None
    active: bool | None = None
    suspended: bool | None = None
    with_incident: bool | None = None
    incident_id: str | None = None
    incident_type: str | None = None
    incident_message: str | None = None
    incident_message_like: str | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    process_definition_without_tenant_id: bool | None = None
    activity_id_in: list[str] | None = None
    root_process_instances: bool | None = None
    leaf_process_instances: bool | None = None
    variables: list[VariableCondition] | None = None
    variable_names_ignore_case: bool | None = None
    variable_values_ignore_case: bool | None = None


class ProcessInstanceRow(msgspec.Struct, frozen=True):
    id: str
    definition_id: str
    definition_key: str
    business_key: str | None
    case_instance_id: str | None
    suspended: bool
    tenant_id: str | None


_e = ACT_RU_EXECUTION
_p = ACT_RE_PROCDEF
_i = ACT_RU_INCIDENT

INSTANCE_SORTS: dict[str, ColumnElement[Any]] = {
    "instanceId": _e.c.ID_,
    "definitionKey": _e.c.PROC_DEF_KEY_,
    "definitionId": _e.c.PROC_DEF_ID_,
    "businessKey": _e.c.BUSINESS_KEY_,
    "tenantId": _e.c.TENANT_ID_,
}


def _definitions_where(*conditions: Condition) -> Condition:
    return _e.c.PROC_DEF_ID_.in_(select(_p.c.ID_).where(*conditions))


def _instance_hierarchy(q: ProcessInstanceQuery) -> list[Condition]:
    """Filters on called (sub) instances: a called instance's SUPER_EXEC_ is the calling
    execution, possibly nested inside its instance."""
    out: list[Condition] = []
    if q.super_process_instance is not None:
        caller = _e.alias("CALLER")
        calling = select(caller.c.ID_).where(caller.c.PROC_INST_ID_ == q.super_process_instance)
        out.append(_e.c.SUPER_EXEC_.in_(calling))
    if q.sub_process_instance is not None:
        called, caller = _e.alias("CALLED"), _e.alias("CALLER")
        owner = select(caller.c.PROC_INST_ID_).where(
            caller.c.ID_.in_(
                select(called.c.SUPER_EXEC_).where(called.c.ID_ == q.sub_process_instance)
            )
        )
        out.append(_e.c.ID_.in_(owner))
    if q.root_process_instances:
        out.append(_e.c.SUPER_EXEC_.is_(None))
    if q.leaf_process_instances:
        caller, called = _e.alias("CALLER"), _e.alias("CALLED")
        callers = select(caller.c.PROC_INST_ID_).join(
            called,
            and_(called.c.SUPER_EXEC_ == caller.c.ID_, called.c.ID_ == called.c.PROC_INST_ID_),
        )
        out.append(_e.c.ID_.not_in(callers))
    if q.super_case_instance is not None or q.sub_case_instance is not None:
        out.append(false())  # no case instances here
    return out


def _waiting_in(activity_ids: list[str] | None) -> list[Condition]:
    if activity_ids is None:
        return []
    inner = _e.alias("EXE")
    return [
        exists()
        .where(
            inner.c.PROC_INST_ID_ == _e.c.ID_,
            inner.c.ACT_ID_.in_(activity_ids),
            or_(inner.c.IS_EVENT_SCOPE_.is_(None), not_(inner.c.IS_EVENT_SCOPE_)),
        )
        .correlate(_e)
    ]


def _with_incident(
    column: ColumnElement[Any],
    owner: ColumnElement[Any],
    q: ProcessInstanceQuery | ExecutionQuery,
    *,
    with_incident: bool,
) -> list[Condition]:
    """Camunda's incident filters: `column` (an instance's or execution's id) is the `owner` of
    one open incident that meets them all; any of them set, even alone, wants an incident."""
    wanted = [
        *equal(_i.c.ID_, q.incident_id),
        *equal(_i.c.INCIDENT_TYPE_, q.incident_type),
        *equal(_i.c.INCIDENT_MSG_, q.incident_message),
        *like(_i.c.INCIDENT_MSG_, q.incident_message_like),
    ]
    if not wanted and not with_incident:
        return []
    # Few rows have incidents: their owners are looked up, not every row probed.
    return [column.in_(select(owner).where(*wanted))]


def _instance_conditions(q: ProcessInstanceQuery) -> list[Condition]:
    _refuse_nul(q)
    c = _e.c
    conditions: list[Condition] = [
        c.PARENT_ID_.is_(None),
        *one_of(c.ID_, q.process_instance_ids),
        *equal(c.BUSINESS_KEY_, q.business_key),
        *like(c.BUSINESS_KEY_, q.business_key_like),
        *equal(c.CASE_INST_ID_, q.case_instance_id),
        *equal(c.PROC_DEF_ID_, q.process_definition_id),
        *equal(c.PROC_DEF_KEY_, q.process_definition_key),
        *one_of(c.PROC_DEF_KEY_, q.process_definition_key_in),
        *suspension(c.SUSPENSION_STATE_, q.active, q.suspended),
        *_with_incident(c.ID_, _i.c.PROC_INST_ID_, q, with_incident=bool(q.with_incident)),
        *tenants(c.TENANT_ID_, q.tenant_id_in, q.without_tenant_id),
        *_instance_hierarchy(q),
        *_waiting_in(q.activity_id_in),
    ]
    if q.process_definition_key_not_in:
        conditions.append(c.PROC_DEF_KEY_.not_in(q.process_definition_key_not_in))
    if q.deployment_id is not None:
        conditions.append(_definitions_where(_p.c.DEPLOYMENT_ID_ == q.deployment_id))
    if q.process_definition_without_tenant_id:
        conditions.append(_definitions_where(_p.c.TENANT_ID_.is_(None)))
    conditions.extend(
        _variable_exists(
            q.variables or [],
            # Any variable of the instance, in any scope, but not a task's own.
            lambda v: and_(v.c.PROC_INST_ID_ == c.PROC_INST_ID_, v.c.TASK_ID_.is_(None)),
            q.variable_names_ignore_case,
            q.variable_values_ignore_case,
        )
    )
    return conditions


def _instance_row(m: RowMapping) -> ProcessInstanceRow:
    return from_row(ProcessInstanceRow, m, suspended=m["SUSPENSION_STATE_"] == SUSPENDED)


PROCESS_INSTANCES: Search[ProcessInstanceQuery, ProcessInstanceRow] = Search(
    query=ProcessInstanceQuery,
    source=_e,
    columns=(_e,),
    filters=_instance_conditions,
    sorts=INSTANCE_SORTS,
    # Camunda orders unsorted queries by id; ties too, so that pages never overlap.
    then=(_e.c.ID_,),
    row=_instance_row,
)


def process_instance(conn: Connection, process_instance_id: str) -> ProcessInstanceRow | None:
    """A running process instance by id (None when unknown or ended)."""
    if "\x00" in process_instance_id:
        return None
    query = ProcessInstanceQuery(process_instance_ids=[process_instance_id])
    return first(conn, PROCESS_INSTANCES, query)


# -- executions -----------------------------------------------------------------------------------


class ExecutionQuery(msgspec.Struct, rename="camel"):
    """Camunda's ExecutionQueryDto (without `sorting`). `variables` are the execution's own
    variables, `processVariables` any variable of its process instance."""

    business_key: str | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    process_instance_id: str | None = None
    activity_id: str | None = None
    signal_event_subscription_name: str | None = None
    message_event_subscription_name: str | None = None
    active: bool | None = None
    suspended: bool | None = None
    incident_id: str | None = None
    incident_type: str | None = None
    incident_message: str | None = None
    incident_message_like: str | None = None
    tenant_id_in: list[str] | None = None
    variables: list[VariableCondition] | None = None
    process_variables: list[VariableCondition] | None = None
    variable_names_ignore_case: bool | None = None
    variable_values_ignore_case: bool | None = None


class ExecutionRow(msgspec.Struct, frozen=True):
    """One ACT_RU_EXECUTION row: Camunda's execution fields, then the tree's shape."""

    id: str
    process_instance_id: str
    tenant_id: str | None
    parent_id: str | None
    activity_id: str | None
    activity_instance_id: str | None
    is_active: bool
    is_concurrent: bool
    is_scope: bool


EXECUTION_SORTS: dict[str, ColumnElement[Any]] = {
    "instanceId": _e.c.PROC_INST_ID_,
    "definitionKey": _e.c.PROC_DEF_KEY_,
    "definitionId": _e.c.PROC_DEF_ID_,
    "tenantId": _e.c.TENANT_ID_,
}


def _execution_conditions(q: ExecutionQuery) -> list[Condition]:
    _refuse_nul(q)
    c = _e.c
    conditions: list[Condition] = [
        *equal(c.PROC_DEF_ID_, q.process_definition_id),
        *equal(c.PROC_DEF_KEY_, q.process_definition_key),
        *equal(c.PROC_INST_ID_, q.process_instance_id),
        *equal(c.ACT_ID_, q.activity_id),
        *suspension(c.SUSPENSION_STATE_, q.active, q.suspended),
        *_with_incident(c.ID_, _i.c.EXECUTION_ID_, q, with_incident=False),
        *one_of(c.TENANT_ID_, q.tenant_id_in),
    ]
    if q.business_key is not None:
        # The business key is the process instance's, shared by all its executions.
        instance = _e.alias("INST")
        keyed = select(instance.c.ID_).where(
            instance.c.BUSINESS_KEY_ == q.business_key, instance.c.PARENT_ID_.is_(None)
        )
        conditions.append(c.PROC_INST_ID_.in_(keyed))
    if q.signal_event_subscription_name is not None or q.message_event_subscription_name:
        conditions.append(false())  # no execution here waits for a signal or a message
    names, values = q.variable_names_ignore_case, q.variable_values_ignore_case
    conditions.extend(
        _variable_exists(q.variables or [], lambda v: v.c.EXECUTION_ID_ == c.ID_, names, values)
    )
    conditions.extend(
        _variable_exists(
            q.process_variables or [],
            lambda v: and_(v.c.PROC_INST_ID_ == c.PROC_INST_ID_, v.c.TASK_ID_.is_(None)),
            names,
            values,
        )
    )
    return conditions


def _execution_row(m: RowMapping) -> ExecutionRow:
    return from_row(
        ExecutionRow,
        m,
        is_active=bool(m["IS_ACTIVE_"]),
        is_concurrent=bool(m["IS_CONCURRENT_"]),
        is_scope=bool(m["IS_SCOPE_"]),
    )


EXECUTIONS: Search[ExecutionQuery, ExecutionRow] = Search(
    query=ExecutionQuery,
    source=_e,
    columns=(_e,),
    filters=_execution_conditions,
    sorts=EXECUTION_SORTS,
    then=(_e.c.ID_,),
    row=_execution_row,
)


def execution(conn: Connection, execution_id: str) -> ExecutionRow | None:
    if "\x00" in execution_id:
        return None
    return first_where(conn, EXECUTIONS, _e.c.ID_ == execution_id)


# -- variable instances ---------------------------------------------------------------------------


class VariableInstanceQuery(msgspec.Struct, rename="camel"):
    """Camunda's VariableInstanceQueryDto (without `sorting`). `variableValues` conditions all
    apply to the variable itself."""

    variable_name: str | None = None
    variable_name_like: str | None = None
    process_instance_id_in: list[str] | None = None
    execution_id_in: list[str] | None = None
    case_instance_id_in: list[str] | None = None
    case_execution_id_in: list[str] | None = None
    task_id_in: list[str] | None = None
    batch_id_in: list[str] | None = None
    activity_instance_id_in: list[str] | None = None
    tenant_id_in: list[str] | None = None
    variable_values: list[VariableCondition] | None = None
    variable_names_ignore_case: bool | None = None
    variable_values_ignore_case: bool | None = None


class VariableInstanceRow(msgspec.Struct, frozen=True):
    id: str
    name: str
    value: StoredValue
    process_definition_id: str | None
    process_instance_id: str | None
    execution_id: str | None
    case_instance_id: str | None
    case_execution_id: str | None
    task_id: str | None
    batch_id: str | None
    activity_instance_id: str | None
    tenant_id: str | None


_v = ACT_RU_VARIABLE
_b = ACT_GE_BYTEARRAY
_x = ACT_RU_EXECUTION.alias("EXECUTION")

# The activity instance a variable belongs to, as Camunda's VariableInstance mapping derives it:
# a task's variable that of its execution, a process instance's variable the instance itself,
# any other the activity instance of its execution. (A subprocess scope whose only token sits in
# one of its activities shares its row with that token here, so its variables report the
# activity's instance rather than the subprocess's.)
_activity_instance: ColumnElement[Any] = case(
    (_v.c.TASK_ID_.is_not(None), _x.c.ACT_INST_ID_),
    (_x.c.PARENT_ID_.is_(None), _x.c.ID_),
    else_=_x.c.ACT_INST_ID_,
).label("ACT_INST_ID_")

VARIABLE_SORTS: dict[str, ColumnElement[Any]] = {
    "variableName": _v.c.NAME_,
    "variableType": _v.c.TYPE_,
    "activityInstanceId": _activity_instance,
    "tenantId": _v.c.TENANT_ID_,
}


def _variables_from(fetch_binary: bool) -> FromClause:
    # Camunda's variable-instance resource does not fetch Bytes values for its answers (they
    # come from `/data`); Json and Object values live in the byte array table too.
    blob_join = _b.c.ID_ == _v.c.BYTEARRAY_ID_
    if not fetch_binary:
        blob_join = and_(blob_join, _v.c.TYPE_ != "bytes")
    return _v.outerjoin(_x, _x.c.ID_ == _v.c.EXECUTION_ID_).outerjoin(_b, blob_join)


def _name_filters(q: VariableInstanceQuery) -> list[Condition]:
    name: ColumnElement[Any] = _v.c.NAME_
    exact, pattern = q.variable_name, q.variable_name_like
    if q.variable_names_ignore_case:
        name = func.lower(name)
        exact = None if exact is None else exact.lower()
        pattern = None if pattern is None else pattern.lower()
    return [*equal(name, exact), *like(name, pattern)]


def _variable_conditions(q: VariableInstanceQuery) -> list[Condition]:
    _refuse_nul(q)
    c = _v.c
    conditions = [
        *_name_filters(q),
        *one_of(c.PROC_INST_ID_, q.process_instance_id_in),
        *one_of(c.EXECUTION_ID_, q.execution_id_in),
        *one_of(c.CASE_INST_ID_, q.case_instance_id_in),
        *one_of(c.CASE_EXECUTION_ID_, q.case_execution_id_in),
        *one_of(c.TASK_ID_, q.task_id_in),
        *one_of(c.BATCH_ID_, q.batch_id_in),
        *one_of(_activity_instance, q.activity_instance_id_in),
        *one_of(c.TENANT_ID_, q.tenant_id_in),
    ]
    names, values = bool(q.variable_names_ignore_case), bool(q.variable_values_ignore_case)
    for condition in q.variable_values or []:
        conditions.append(name_matches(_v, condition.name or "", names))
        conditions.append(value_condition(_v, condition, values))
    return conditions


def _variable_row(m: RowMapping) -> VariableInstanceRow:
    return from_row(VariableInstanceRow, m, value=stored_value(m, "TYPE_"))


def _variable_search(fetch_binary: bool) -> Search[VariableInstanceQuery, VariableInstanceRow]:
    return Search(
        query=VariableInstanceQuery,
        source=_variables_from(fetch_binary),
        columns=(_v, _b.c.BYTES_, _activity_instance),
        filters=_variable_conditions,
        sorts=VARIABLE_SORTS,
        then=(_v.c.ID_,),
        row=_variable_row,
        # Outer joins on primary keys add columns, never rows.
        counted=_v,
    )


# Lists leave Bytes values out (null): `/data` serves them.
VARIABLE_INSTANCES = _variable_search(fetch_binary=False)
_WITH_BYTES = _variable_search(fetch_binary=True)


def batch_variables(conn: Connection, batch_id: str) -> dict[str, StoredValue]:
    """The variables a batch holds for its jobs (ACT_RU_VARIABLE rows with its BATCH_ID_),
    Bytes values too, by name."""
    rows = conn.execute(
        select(_v, _b.c.BYTES_)
        .select_from(_v.outerjoin(_b, _b.c.ID_ == _v.c.BYTEARRAY_ID_))
        .where(_v.c.BATCH_ID_ == batch_id)
        .order_by(_v.c.NAME_)
    ).mappings()
    return {row["NAME_"]: stored_value(row, "TYPE_") for row in rows}


def variable_instance(
    conn: Connection, variable_id: str, *, fetch_binary: bool = False
) -> VariableInstanceRow | None:
    """One runtime variable by id; its Bytes value only with `fetch_binary`."""
    if "\x00" in variable_id:
        return None
    search = _WITH_BYTES if fetch_binary else VARIABLE_INSTANCES
    return first_where(conn, search, _v.c.ID_ == variable_id)
