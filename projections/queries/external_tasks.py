"""External tasks (ACT_RU_EXT_TASK): Camunda's external-task query, its topic names, and the
fetchable candidates of a fetch-and-lock request with its per-topic filters.

Rows come back with the process instance's business key (ACT_RU_EXECUTION) and the definition's
version tag (ACT_RE_PROCDEF) joined in, as Camunda's ExternalTaskDto carries them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import and_, exists, false, or_, select
from sqlalchemy.engine import Connection, RowMapping

from flowledger.core.variables import EMPTY_STRING_MARKER

from ..tables import ACT_RE_PROCDEF, ACT_RU_EXECUTION, ACT_RU_EXT_TASK, ACT_RU_VARIABLE
from .declaration import Search
from .filters import ACTIVE, SUSPENDED, Condition, equal, naive_utc, one_of, stored_moment
from .results import from_row

_X = ACT_RU_EXT_TASK
_INSTANCE = ACT_RU_EXECUTION.alias("inst")
_DEFINITION = ACT_RE_PROCDEF.alias("def")

SORT_COLUMNS: dict[str, Any] = {
    "id": _X.c.ID_,
    "lockExpirationTime": _X.c.LOCK_EXP_TIME_,
    "processInstanceId": _X.c.PROC_INST_ID_,
    "processDefinitionId": _X.c.PROC_DEF_ID_,
    "processDefinitionKey": _X.c.PROC_DEF_KEY_,
    "taskPriority": _X.c.PRIORITY_,
    "createTime": _X.c.CREATE_TIME_,
    "tenantId": _X.c.TENANT_ID_,
}


class ExternalTaskQuery(msgspec.Struct, rename="camel"):
    """Camunda's ExternalTaskQueryDto filters; None means "no filter". `locked`, `notLocked`,
    `withRetriesLeft`, `noRetriesLeft`, `active` and `suspended` filter only when true.

    `now` is not Camunda's: the moment `locked` and `notLocked` compare lock expirations with
    (the engine's clock; the wall clock when None)."""

    external_task_id: str | None = None
    external_task_id_in: list[str] | None = None
    topic_name: str | None = None
    worker_id: str | None = None
    locked: bool | None = None
    not_locked: bool | None = None
    with_retries_left: bool | None = None
    no_retries_left: bool | None = None
    lock_expiration_after: datetime | None = None
    lock_expiration_before: datetime | None = None
    activity_id: str | None = None
    activity_id_in: list[str] | None = None
    execution_id: str | None = None
    process_instance_id: str | None = None
    process_instance_id_in: list[str] | None = None
    process_definition_id: str | None = None
    tenant_id_in: list[str] | None = None
    active: bool | None = None
    suspended: bool | None = None
    priority_higher_than_or_equals: int | None = None
    priority_lower_than_or_equals: int | None = None
    now: datetime | None = None


class ExternalTaskRow(msgspec.Struct, frozen=True):
    """One ACT_RU_EXT_TASK row with its instance's business key and its definition's version
    tag: the fields of Camunda's ExternalTaskDto in its order, then its creation time."""

    activity_id: str
    activity_instance_id: str
    error_message: str | None
    execution_id: str
    id: str
    lock_expiration_time: datetime | None
    process_definition_id: str
    process_definition_key: str
    process_definition_version_tag: str | None
    process_instance_id: str
    tenant_id: str | None
    retries: int | None
    suspended: bool
    worker_id: str | None
    topic_name: str
    priority: int
    business_key: str | None
    create_time: datetime


class TopicFilter(msgspec.Struct, frozen=True):
    """One topic of a fetch-and-lock request with the filters that narrow its candidates."""

    topic_name: str
    business_key: str | None = None
    process_definition_ids: list[str] | None = None
    process_definition_keys: list[str] | None = None
    process_definition_version_tag: str | None = None
    tenant_ids: list[str] | None = None
    without_tenant_id: bool = False
    process_variables: dict[str, Any] | None = None

    @property
    def filtered(self) -> bool:
        return self != TopicFilter(self.topic_name)


class Candidate(msgspec.Struct, frozen=True):
    id: str
    process_instance_id: str
    topic_name: str


_SOURCE = _X.outerjoin(_INSTANCE, _INSTANCE.c.ID_ == _X.c.PROC_INST_ID_).outerjoin(
    _DEFINITION, _DEFINITION.c.ID_ == _X.c.PROC_DEF_ID_
)


def _row(m: RowMapping) -> ExternalTaskRow:
    return from_row(
        ExternalTaskRow,
        m,
        suspended=m["SUSPENSION_STATE_"] == SUSPENDED,
        process_definition_version_tag=m["version_tag"],
        priority=int(m["PRIORITY_"] or 0),
        business_key=m["business_key"],
    )


def _unlocked(now: datetime) -> Condition:
    return or_(_X.c.LOCK_EXP_TIME_.is_(None), _X.c.LOCK_EXP_TIME_ <= naive_utc(now))


def _retries_left() -> Condition:
    return or_(_X.c.RETRIES_.is_(None), _X.c.RETRIES_ > 0)


def _active() -> Condition:
    return or_(_X.c.SUSPENSION_STATE_.is_(None), _X.c.SUSPENSION_STATE_ == ACTIVE)


def _conditions(q: ExternalTaskQuery) -> list[Condition]:
    now = q.now or datetime.now(UTC)
    conditions = [
        *equal(_X.c.ID_, q.external_task_id),
        *equal(_X.c.TOPIC_NAME_, q.topic_name),
        *equal(_X.c.WORKER_ID_, q.worker_id),
        *equal(_X.c.ACT_ID_, q.activity_id),
        *equal(_X.c.EXECUTION_ID_, q.execution_id),
        *equal(_X.c.PROC_INST_ID_, q.process_instance_id),
        *equal(_X.c.PROC_DEF_ID_, q.process_definition_id),
        *one_of(_X.c.ID_, q.external_task_id_in),
        *one_of(_X.c.ACT_ID_, q.activity_id_in),
        *one_of(_X.c.PROC_INST_ID_, q.process_instance_id_in),
        *one_of(_X.c.TENANT_ID_, q.tenant_id_in),
    ]
    if q.locked:
        conditions.append(_X.c.LOCK_EXP_TIME_ > naive_utc(now))
    if q.not_locked:
        conditions.append(_unlocked(now))
    if q.with_retries_left:
        conditions.append(_retries_left())
    if q.no_retries_left:
        conditions.append(_X.c.RETRIES_ == 0)
    if q.lock_expiration_after is not None:
        conditions.append(
            _X.c.LOCK_EXP_TIME_ > stored_moment(q.lock_expiration_after, "lockExpirationAfter")
        )
    if q.lock_expiration_before is not None:
        conditions.append(
            _X.c.LOCK_EXP_TIME_ < stored_moment(q.lock_expiration_before, "lockExpirationBefore")
        )
    if q.active:
        conditions.append(_active())
    if q.suspended:
        conditions.append(_X.c.SUSPENSION_STATE_ == SUSPENDED)
    if q.priority_higher_than_or_equals is not None:
        conditions.append(_X.c.PRIORITY_ >= q.priority_higher_than_or_equals)
    if q.priority_lower_than_or_equals is not None:
        conditions.append(_X.c.PRIORITY_ <= q.priority_lower_than_or_equals)
    return conditions


EXTERNAL_TASKS: Search[ExternalTaskQuery, ExternalTaskRow] = Search(
    query=ExternalTaskQuery,
    source=_SOURCE,
    columns=(
        _X,
        _INSTANCE.c.BUSINESS_KEY_.label("business_key"),
        _DEFINITION.c.VERSION_TAG_.label("version_tag"),
    ),
    filters=_conditions,
    sorts=SORT_COLUMNS,
    # Then by id, for a stable order; nulls sort first ascending and last descending on every
    # database (PostgreSQL's own default is the opposite).
    then=(_X.c.ID_,),
    row=_row,
    nulls="low",
    counted=_X,
    filled=(_X.c.CREATE_TIME_,),  # every external task is created at a moment
)


def topic_names(
    conn: Connection,
    *,
    with_locked_tasks: bool = False,
    with_unlocked_tasks: bool = False,
    with_retries_left: bool = False,
    now: datetime | None = None,
) -> list[str]:
    """Distinct topic names of the external tasks matching all the flags given as true."""
    moment = now or datetime.now(UTC)
    conditions: list[Condition] = [_X.c.TOPIC_NAME_.is_not(None)]
    if with_locked_tasks:
        conditions.append(_X.c.LOCK_EXP_TIME_ > naive_utc(moment))
    if with_unlocked_tasks:
        conditions.append(_unlocked(moment))
    if with_retries_left:
        conditions.append(_retries_left())
    stmt = select(_X.c.TOPIC_NAME_).where(and_(*conditions)).distinct().order_by(_X.c.TOPIC_NAME_)
    return [r[0] for r in conn.execute(stmt)]


# -- fetch and lock ------------------------------------------------------------------------------


def _variable_equals(name: str, value: Any) -> Condition:
    """A process-instance variable `name` equal to the plain JSON value `value` (string, number,
    boolean or null), compared on the column that stores its type."""
    v = ACT_RU_VARIABLE
    if value is None:
        match: Condition = v.c.TYPE_ == "null"
    elif isinstance(value, bool):
        match = and_(v.c.TYPE_ == "boolean", v.c.LONG_ == int(value))
    elif isinstance(value, int):
        match = and_(v.c.TYPE_.in_(["short", "integer", "long"]), v.c.LONG_ == value)
    elif isinstance(value, float):
        match = and_(v.c.TYPE_ == "double", v.c.DOUBLE_ == value)
    elif isinstance(value, str):
        stored = v.c.TEXT2_ == EMPTY_STRING_MARKER if value == "" else v.c.TEXT_ == value
        match = and_(v.c.TYPE_ == "string", stored)
    else:
        # The REST layer refuses other values with a 400 before it gets here.
        return false()
    return exists().where(v.c.VAR_SCOPE_ == _X.c.PROC_INST_ID_, v.c.NAME_ == name, match)


def _topic_condition(topic: TopicFilter) -> Condition:
    conditions: list[Condition] = [_X.c.TOPIC_NAME_ == topic.topic_name]
    if topic.business_key is not None:
        conditions.append(_INSTANCE.c.BUSINESS_KEY_ == topic.business_key)
    if topic.process_definition_ids is not None:
        conditions.append(_X.c.PROC_DEF_ID_.in_(topic.process_definition_ids))
    if topic.process_definition_keys is not None:
        conditions.append(_X.c.PROC_DEF_KEY_.in_(topic.process_definition_keys))
    if topic.process_definition_version_tag is not None:
        conditions.append(_DEFINITION.c.VERSION_TAG_ == topic.process_definition_version_tag)
    if topic.tenant_ids is not None:
        conditions.append(_X.c.TENANT_ID_.in_(topic.tenant_ids))
    if topic.without_tenant_id:
        conditions.append(_X.c.TENANT_ID_.is_(None))
    for name, value in (topic.process_variables or {}).items():
        conditions.append(_variable_equals(name, value))
    return and_(*conditions)


def fetchable(
    conn: Connection,
    topics: Sequence[TopicFilter],
    now: datetime,
    limit: int,
    use_priority: bool = False,
) -> list[Candidate]:
    """Up to `limit` tasks a fetch-and-lock at `now` could lock for these topics, in the order
    the engine's fetch_and_lock takes them (priority first when asked, then oldest first)."""
    if not topics or limit <= 0:
        return []
    stmt = (
        select(_X.c.ID_, _X.c.PROC_INST_ID_, _X.c.TOPIC_NAME_)
        .select_from(_SOURCE)
        .where(
            or_(*(_topic_condition(t) for t in topics)),
            _unlocked(now),
            _retries_left(),
            _active(),
        )
    )
    order = [_X.c.PRIORITY_.desc()] if use_priority else []
    stmt = stmt.order_by(*order, _X.c.CREATE_TIME_, _X.c.ID_).limit(limit)
    return [Candidate(r[0], r[1], r[2]) for r in conn.execute(stmt)]
