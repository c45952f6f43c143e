"""The command side's reads of the projected ACT_* tables: the one module through which command
handlers, the stream store and the job executor look a row up. Reads only; decides nothing.

Every table in `TABLES_READ` but the history ones is written in the command's own transaction
(the runtime and repository projections run inline, in the unit of work; commands that share a
group commit share it too), so a command sees the rows of every command committed before it and
of the commands earlier in its own transaction: the instance that owns a task, the latest version
of a key, the catch events waiting for a message. The log-first commits issue must therefore keep
exactly `INLINE_TABLES` current for every command: a deferred projection writes `KEPT_INLINE`
in the command and brings the others up to date first where a lookup reads them
(`CATCHING_UP`). The history cleanup's lookups (`LAG_TOLERANT`) read history, which may trail
the log already (asynchronous history): a row projected late is removed by a later cleanup,
never wrongly.

The statements only commands make live here; the lookups the read side makes as well (a
definition by id, a deployment, the decision definitions) stay in `projections.queries` and are
re-exported below, so that a command's every read is listed in `TABLES_READ` all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple, cast

from sqlalchemy import Select, Table, bindparam, func, or_, select
from sqlalchemy.engine import Connection

from flowledger.core import views
from flowledger.core.batches.model import SUSPENDED, BatchJobEntry, BatchJobRow, BatchRow
from flowledger.core.behaviors.jobs import PROCESS_EVENT
from flowledger.core.behaviors.subscriptions import MESSAGE
from flowledger.core.start_timers import TIMER_START, StartTimer
from flowledger.core.variables import StoredValue
from flowledger.eventlog.fastsql import PreparedCache
from flowledger.projections.queries import filters, reads
from flowledger.projections.queries import runtime as runtime_queries
from flowledger.projections.queries.decision_reads import decision_definition as decision_definition
from flowledger.projections.queries.decision_reads import (
    decision_definitions as decision_definitions,
)
from flowledger.projections.queries.decision_reads import (
    latest_decision_definition as latest_decision_definition,
)
from flowledger.projections.queries.job_reads import due_order as due_order
from flowledger.projections.queries.job_reads import runnable as runnable
from flowledger.projections.queries.reads import due_jobs as due_jobs
from flowledger.projections.queries.reads import (
    latest_process_definition as latest_process_definition,
)
from flowledger.projections.queries.reads import process_definition as process_definition
from flowledger.projections.queries.reads import process_definitions as process_definitions
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_DECINST,
    ACT_HI_PROCINST,
    ACT_RE_DECISION_DEF,
    ACT_RE_DECISION_REQ_DEF,
    ACT_RE_DEPLOYMENT,
    ACT_RE_PROCDEF,
    ACT_RU_BATCH,
    ACT_RU_EVENT_SUBSCR,
    ACT_RU_EXECUTION,
    ACT_RU_EXT_TASK,
    ACT_RU_INCIDENT,
    ACT_RU_JOB,
    ACT_RU_TASK,
)

# Each lookup, and the tables it reads: tests/engine/test_lookups.py runs every one of them and
# holds this table to the statements they send.
TABLES_READ: dict[str, tuple[str, ...]] = {
    # which instance owns an entity (the stream store finds a command's instance by them)
    "instance_of_task": ("ACT_RU_TASK",),
    "instance_of_execution": ("ACT_RU_EXECUTION",),
    "instance_of_external_task": ("ACT_RU_EXT_TASK",),
    "instance_of_job": ("ACT_RU_JOB",),
    "instance_of_incident": ("ACT_RU_INCIDENT",),
    # jobs the executor may run (due_order and runnable are parts of its lease statement)
    "due_jobs": ("ACT_RU_JOB",),
    "due_order": ("ACT_RU_JOB",),
    "runnable": ("ACT_RU_JOB",),
    # the repository
    "process_definition": ("ACT_RE_PROCDEF",),
    "latest_process_definition": ("ACT_RE_PROCDEF",),
    "process_definitions": ("ACT_RE_PROCDEF", "ACT_RE_DEPLOYMENT"),
    "latest_versions": ("ACT_RE_PROCDEF",),
    "deployment": (
        "ACT_RE_DEPLOYMENT",
        "ACT_RE_PROCDEF",
        "ACT_RE_DECISION_DEF",
        "ACT_RE_DECISION_REQ_DEF",
        "ACT_GE_BYTEARRAY",
    ),
    "latest_deployment_resources": ("ACT_RE_DEPLOYMENT", "ACT_GE_BYTEARRAY"),
    "decision_definition": ("ACT_RE_DECISION_DEF",),
    "latest_decision_definition": ("ACT_RE_DECISION_DEF",),
    "decision_definitions": ("ACT_RE_DECISION_DEF", "ACT_RE_DEPLOYMENT"),
    "latest_decision_versions": ("ACT_RE_DECISION_DEF",),
    "latest_requirements_versions": ("ACT_RE_DECISION_REQ_DEF",),
    # the runtime
    "running_process_instances": ("ACT_RU_EXECUTION",),
    "fetchable_external_tasks": ("ACT_RU_EXT_TASK",),
    "waiting": ("ACT_RU_EVENT_SUBSCR", "ACT_RU_EXECUTION"),
    "start_subscriptions": ("ACT_RU_EVENT_SUBSCR", "ACT_RE_PROCDEF"),
    "start_timer": ("ACT_RU_JOB", "ACT_RU_INCIDENT"),
    "start_timers": ("ACT_RU_JOB", "ACT_RU_INCIDENT"),
    # batches (their own streams: these rows are all a batch's command knows of it)
    "batch": ("ACT_RU_BATCH",),
    "batch_job": ("ACT_RU_JOB", "ACT_RU_BATCH", "ACT_GE_BYTEARRAY"),
    "batch_jobs": ("ACT_RU_JOB",),
    "remaining_batch_jobs": ("ACT_RU_JOB",),
    "batch_configuration": ("ACT_GE_BYTEARRAY",),
    "batch_variables": ("ACT_RU_VARIABLE", "ACT_GE_BYTEARRAY"),
    # history cleanup
    "expired_instances": ("ACT_HI_PROCINST",),
    "expired_decisions": ("ACT_HI_DECINST",),
    # removal-time batches (their targets came from these rows)
    "decision_instance_origin": ("ACT_HI_DECINST",),
}

# The lookups whose tables may trail the log: history, which cleans up later what it sees late,
# and the origin of a decision instance a removal-time batch found there.
LAG_TOLERANT = frozenset({"expired_instances", "expired_decisions", "decision_instance_origin"})

# The tables a command must find written by its predecessors: those of every other lookup.
INLINE_TABLES = frozenset(
    table for name, tables in TABLES_READ.items() if name not in LAG_TOLERANT for table in tables
)

# The tables a deferred projection (`Engine(projection="deferred")`) keeps writing in each
# command: the repository (version numbering at deploy, definitions by key), message and signal
# subscriptions, fetchable external tasks, due jobs and their leases, open incidents. Byte arrays
# are deferred: history writes them too (a deployment's resources are read when deploying). A
# lookup of any other table (`CATCHING_UP`) first writes the deferred rows of every commit before
# the command, in the command's transaction (`_projected`); the two that commands make all the
# time, the instance of a task or an execution, are answered from what the engine's commands
# touched (`Repository.known_owner`) and read only when it does not know.
KEPT_INLINE = frozenset(
    {
        "ACT_RE_DEPLOYMENT",
        "ACT_RE_PROCDEF",
        "ACT_RE_DECISION_DEF",
        "ACT_RE_DECISION_REQ_DEF",
        "ACT_RU_JOB",
        "ACT_RU_EXT_TASK",
        "ACT_RU_EVENT_SUBSCR",
        "ACT_RU_INCIDENT",
    }
)
CATCHING_UP = frozenset(
    name
    for name, tables in TABLES_READ.items()
    if name not in LAG_TOLERANT and not set(tables) <= KEPT_INLINE
)


def deferred_table(table: Table) -> bool:
    """Whether a deferred projection writes `table` behind the log (commands write the others):
    not a lookup, the one predicate both sides of the split share."""
    return table.name not in KEPT_INLINE


# Where a deferred engine's write connections keep the catch-up `_projected` runs (conn.info).
CATCH_UP = "flowledger.deferred_catch_up"


def _projected(conn: Connection) -> None:
    """Before a lookup of a deferred table: the rows of every commit before this command are
    written (a no-op when the database projects inline)."""
    catch_up = conn.info.get(CATCH_UP)
    if catch_up is not None:
        catch_up(conn)


# The lookups every command makes, compiled once: see eventlog.fastsql.
_prepared = PreparedCache()


def _lookup(conn: Connection, name: str, build: Callable[[], Select[Any]], **params: Any) -> Any:
    """The first row of a prepared SELECT as a column-name mapping, or None."""
    return _prepared.get(conn.dialect, name, build).first(conn, params)


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None)


# -- which instance owns an entity ----------------------------------------------------------------


def _owner(conn: Connection, table: Table, entity_id: str) -> str | None:
    row = _lookup(
        conn,
        f"owner:{table.name}",
        lambda: select(table.c.PROC_INST_ID_).where(table.c.ID_ == bindparam("id")),
        id=entity_id,
    )
    return None if row is None else cast(str | None, row["PROC_INST_ID_"])


def instance_of_task(conn: Connection, task_id: str) -> str | None:
    """The process instance of a user task (ACT_RU_TASK), or None."""
    _projected(conn)
    return _owner(conn, ACT_RU_TASK, task_id)


def instance_of_execution(conn: Connection, execution_id: str) -> str | None:
    """The process instance of an execution (ACT_RU_EXECUTION), or None."""
    _projected(conn)
    return _owner(conn, ACT_RU_EXECUTION, execution_id)


def instance_of_external_task(conn: Connection, external_task_id: str) -> str | None:
    """The process instance of an external task (ACT_RU_EXT_TASK), or None."""
    return _owner(conn, ACT_RU_EXT_TASK, external_task_id)


def instance_of_job(conn: Connection, job_id: str) -> str | None:
    """The process instance of a job (ACT_RU_JOB), or None (a definition's start timer too)."""
    j = ACT_RU_JOB
    row = _lookup(
        conn,
        "owner:ACT_RU_JOB",
        lambda: select(j.c.PROCESS_INSTANCE_ID_).where(j.c.ID_ == bindparam("id")),
        id=job_id,
    )
    return None if row is None else cast(str | None, row["PROCESS_INSTANCE_ID_"])


def instance_of_incident(conn: Connection, incident_id: str) -> str | None:
    """The process instance of an open incident (ACT_RU_INCIDENT), or None."""
    return _owner(conn, ACT_RU_INCIDENT, incident_id)


# -- the repository -------------------------------------------------------------------------------


def _latest_versions(conn: Connection, table: Table, keys: Sequence[str]) -> dict[str, int]:
    if not keys:
        return {}
    stmt = (
        select(table.c.KEY_, func.max(table.c.VERSION_))
        .where(table.c.KEY_.in_(list(keys)))
        .group_by(table.c.KEY_)
    )
    return {k: int(v) for k, v in conn.execute(stmt)}


def latest_versions(conn: Connection, keys: Sequence[str]) -> dict[str, int]:
    """The highest deployed version of each of these process definition keys (ACT_RE_PROCDEF);
    a key never deployed is absent."""
    return _latest_versions(conn, ACT_RE_PROCDEF, keys)


def latest_decision_versions(conn: Connection, keys: Sequence[str]) -> dict[str, int]:
    """The highest deployed version of each of these decision keys (ACT_RE_DECISION_DEF)."""
    return _latest_versions(conn, ACT_RE_DECISION_DEF, keys)


def latest_requirements_versions(conn: Connection, keys: Sequence[str]) -> dict[str, int]:
    """The highest deployed version of each of these decision requirements keys
    (ACT_RE_DECISION_REQ_DEF)."""
    return _latest_versions(conn, ACT_RE_DECISION_REQ_DEF, keys)


def latest_deployment_resources(
    conn: Connection, name: str, source: str | None
) -> tuple[str, dict[str, bytes]] | None:
    """The newest deployment with this name and source (ACT_RE_DEPLOYMENT), and its resources
    (ACT_GE_BYTEARRAY): what duplicate filtering compares a deployment with."""
    d = ACT_RE_DEPLOYMENT
    stmt = select(d.c.ID_).where(d.c.NAME_ == name)
    stmt = stmt.where(d.c.SOURCE_.is_(None) if source is None else d.c.SOURCE_ == source)
    row = conn.execute(stmt.order_by(d.c.DEPLOY_TIME_.desc(), d.c.ID_.desc()).limit(1)).first()
    if row is None:
        return None
    _projected(conn)
    b = ACT_GE_BYTEARRAY
    resources = {
        r[0]: bytes(r[1])
        for r in conn.execute(select(b.c.NAME_, b.c.BYTES_).where(b.c.DEPLOYMENT_ID_ == row[0]))
    }
    return str(row[0]), resources


def deployment(conn: Connection, deployment_id: str) -> views.Deployment | None:
    """The deployment `deployment_id` (ACT_RE_DEPLOYMENT), or None, with its resources' names
    (ACT_GE_BYTEARRAY) and its definitions (ACT_RE_PROCDEF, ACT_RE_DECISION_DEF,
    ACT_RE_DECISION_REQ_DEF)."""
    _projected(conn)
    return reads.deployment(conn, deployment_id)


# -- the runtime ----------------------------------------------------------------------------------


def running_process_instances(
    conn: Connection, definition_ids: Sequence[str]
) -> list[tuple[str, str]]:
    """(process instance id, definition id) of the running instances of these definitions: their
    root executions in ACT_RU_EXECUTION."""
    if not definition_ids:
        return []
    _projected(conn)
    e = ACT_RU_EXECUTION
    stmt = (
        select(e.c.ID_, e.c.PROC_DEF_ID_)
        .where(e.c.PROC_DEF_ID_.in_(list(definition_ids)), e.c.PARENT_ID_.is_(None))
        .order_by(e.c.ID_)
    )
    return [(r[0], r[1]) for r in conn.execute(stmt)]


def fetchable_external_tasks(
    conn: Connection,
    topics: Sequence[str],
    now: datetime,
    limit: int,
    use_priority: bool,
    only: Sequence[str] | None = None,
) -> list[tuple[str, str, str]]:
    """(task id, process instance id, topic) of the unlocked, active external tasks with retries
    left (ACT_RU_EXT_TASK), highest priority first when `use_priority`, then oldest first."""
    x = ACT_RU_EXT_TASK
    stmt = select(x.c.ID_, x.c.PROC_INST_ID_, x.c.TOPIC_NAME_).where(
        x.c.TOPIC_NAME_.in_(list(topics)),
        or_(x.c.LOCK_EXP_TIME_.is_(None), x.c.LOCK_EXP_TIME_ <= _naive(now)),
        or_(x.c.RETRIES_.is_(None), x.c.RETRIES_ > 0),
        or_(x.c.SUSPENSION_STATE_.is_(None), x.c.SUSPENSION_STATE_ == 1),
    )
    if only is not None:
        stmt = stmt.where(x.c.ID_.in_(list(only)))
    order = [x.c.PRIORITY_.desc()] if use_priority else []
    stmt = stmt.order_by(*order, x.c.CREATE_TIME_, x.c.ID_).limit(limit)
    return [(r[0], r[1], r[2]) for r in conn.execute(stmt)]


# -- event subscriptions --------------------------------------------------------------------------

_S = ACT_RU_EVENT_SUBSCR


def waiting(
    conn: Connection,
    message_name: str,
    *,
    process_instance_id: str | None = None,
    business_key: str | None = None,
    event_type: str = MESSAGE,
) -> list[tuple[str, str]]:
    """(subscription id, process instance id) of the catch events waiting for the message (or
    signal), in the order they subscribed (ACT_RU_EVENT_SUBSCR); narrowed to an instance or to a
    business key (its root execution's, ACT_RU_EXECUTION)."""
    conditions: list[filters.Condition] = [
        _S.c.EVENT_TYPE_ == event_type,
        _S.c.EVENT_NAME_ == message_name,
        _S.c.EXECUTION_ID_.is_not(None),  # start events' subscriptions wait on no instance
    ]
    if process_instance_id is not None:
        conditions.append(_S.c.PROC_INST_ID_ == process_instance_id)
    stmt = select(_S.c.ID_, _S.c.PROC_INST_ID_)
    if business_key is not None:
        _projected(conn)
        e = ACT_RU_EXECUTION
        stmt = stmt.join(e, e.c.ID_ == _S.c.PROC_INST_ID_)
        conditions.append(e.c.BUSINESS_KEY_ == business_key)
    rows = conn.execute(stmt.where(*conditions).order_by(_S.c.CREATED_, _S.c.ID_))
    return [(row[0], row[1]) for row in rows]


class StartSubscription(NamedTuple):
    """A message or signal start event's subscription (no execution), with its definition."""

    subscription_id: str
    event_type: str
    message_name: str
    activity_id: str
    definition_id: str
    definition_key: str
    deployment_id: str
    suspended: bool


def start_subscriptions(
    conn: Connection,
    *,
    keys: list[str] | None = None,
    deployment_id: str | None = None,
    names: list[str] | None = None,
    event_type: str | None = None,
) -> list[StartSubscription]:
    """The start event subscriptions (ACT_RU_EVENT_SUBSCR, with their definitions from
    ACT_RE_PROCDEF) of these definition keys, this deployment or these event names (of this
    type), by subscription id."""
    d = ACT_RE_PROCDEF
    stmt = select(
        _S.c.ID_,
        _S.c.EVENT_TYPE_,
        _S.c.EVENT_NAME_,
        _S.c.ACTIVITY_ID_,
        d.c.ID_,
        d.c.KEY_,
        d.c.DEPLOYMENT_ID_,
        d.c.SUSPENSION_STATE_,
    ).join(d, d.c.ID_ == _S.c.CONFIGURATION_)
    conditions: list[filters.Condition] = [_S.c.EXECUTION_ID_.is_(None)]
    if event_type is not None:
        conditions.append(_S.c.EVENT_TYPE_ == event_type)
    if keys is not None:
        conditions.append(d.c.KEY_.in_(keys))
    if deployment_id is not None:
        conditions.append(d.c.DEPLOYMENT_ID_ == deployment_id)
    if names is not None:
        conditions.append(_S.c.EVENT_NAME_.in_(names))
    rows = conn.execute(stmt.where(*conditions).order_by(_S.c.ID_))
    return [
        StartSubscription(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] == filters.SUSPENDED)
        for r in rows
    ]


# -- start timers ---------------------------------------------------------------------------------

_J = ACT_RU_JOB


def start_timer(conn: Connection, job_id: str) -> StartTimer | None:
    """The timer start event job `job_id` (a definition's, not an instance's), or None: its
    ACT_RU_JOB row and its incident's id (ACT_RU_INCIDENT)."""
    found = _start_timers(conn, _J.c.ID_ == job_id)
    return found[0] if found else None


def start_timers(
    conn: Connection, *, keys: list[str] | None = None, deployment_id: str | None = None
) -> list[StartTimer]:
    """The start timers of these definition keys or this deployment, by job id: ACT_RU_JOB rows
    and their incidents' ids (ACT_RU_INCIDENT)."""
    conditions: list[filters.Condition] = []
    if keys is not None:
        conditions.append(_J.c.HANDLER_CFG_.in_(keys))
    if deployment_id is not None:
        conditions.append(_J.c.DEPLOYMENT_ID_ == deployment_id)
    return _start_timers(conn, *conditions)


def _start_timers(conn: Connection, *conditions: filters.Condition) -> list[StartTimer]:
    i = ACT_RU_INCIDENT
    stmt = (
        select(_J, i.c.ID_.label("INCIDENT_ID"))
        .outerjoin(i, i.c.CONFIGURATION_ == _J.c.ID_)
        .where(_J.c.HANDLER_TYPE_.in_((TIMER_START, PROCESS_EVENT)), *conditions)
        .order_by(_J.c.ID_)
    )
    timers: list[StartTimer] = []
    for row in conn.execute(stmt).mappings():
        created = filters.utc(row["CREATE_TIME_"])
        assert created is not None  # every projected job has its creation time
        timers.append(
            StartTimer(
                job_id=row["ID_"],
                deployment_id=row["DEPLOYMENT_ID_"],
                definition_id=row["PROCESS_DEF_ID_"],
                definition_key=row["PROCESS_DEF_KEY_"],
                activity_id=row["ACT_ID_"],
                due_date=filters.utc(row["DUEDATE_"]),
                repeat=row["REPEAT_"],
                retries=row["RETRIES_"],
                created=created,
                has_stacktrace=row["EXCEPTION_STACK_ID_"] is not None,
                incident_id=row["INCIDENT_ID"],
                handler_type=row["HANDLER_TYPE_"],
            )
        )
    return timers


# -- batches --------------------------------------------------------------------------------------

_B = ACT_RU_BATCH


def _batch_row(row: Any) -> BatchRow:
    return BatchRow(
        id=row["ID_"],
        type=row["TYPE_"],
        total_jobs=row["TOTAL_JOBS_"],
        jobs_created=row["JOBS_CREATED_"],
        batch_jobs_per_seed=row["JOBS_PER_SEED_"],
        invocations_per_batch_job=row["INVOCATIONS_PER_JOB_"],
        seed_job_definition_id=row["SEED_JOB_DEF_ID_"],
        batch_job_definition_id=row["BATCH_JOB_DEF_ID_"],
        monitor_job_definition_id=row["MONITOR_JOB_DEF_ID_"],
        suspended=row["SUSPENSION_STATE_"] == SUSPENDED,
        configuration_id=row["CONFIGURATION_"],
        tenant_id=row["TENANT_ID_"],
        execution_started=row["EXEC_START_TIME_"] is not None,
    )


def batch(conn: Connection, batch_id: str) -> BatchRow | None:
    """The running batch `batch_id` (ACT_RU_BATCH), or None: completed, deleted or never made."""
    _projected(conn)
    row = conn.execute(select(_B).where(_B.c.ID_ == batch_id)).mappings().first()
    return None if row is None else _batch_row(row)


def batch_job(conn: Connection, job_id: str) -> BatchJobRow | None:
    """A job of a running batch (ACT_RU_JOB with its BATCH_ID_, the batch in ACT_RU_BATCH), and
    a batch job's configuration (ACT_GE_BYTEARRAY), or None: no such job, or not a batch's."""
    _projected(conn)
    blob = ACT_GE_BYTEARRAY
    stmt = (
        select(
            _J.c.ID_.label("JOB_ID"),
            _J.c.HANDLER_TYPE_,
            _J.c.HANDLER_CFG_,
            _J.c.JOB_DEF_ID_,
            _J.c.RETRIES_,
            _J.c.DUEDATE_,
            _J.c.SUSPENSION_STATE_.label("JOB_SUSPENSION"),
            _J.c.EXCEPTION_STACK_ID_,
            blob.c.BYTES_,
            _B,
        )
        .select_from(
            _J.join(_B, _B.c.ID_ == _J.c.BATCH_ID_).outerjoin(
                blob,
                (blob.c.ID_ == _J.c.HANDLER_CFG_) & (_J.c.JOB_DEF_ID_ == _B.c.BATCH_JOB_DEF_ID_),
            )
        )
        .where(_J.c.ID_ == job_id)
    )
    row = conn.execute(stmt).mappings().first()
    if row is None:
        return None
    batch_row = _batch_row(row)
    is_batch_job = row["JOB_DEF_ID_"] == batch_row.batch_job_definition_id
    return BatchJobRow(
        job_id=row["JOB_ID"],
        handler_type=row["HANDLER_TYPE_"],
        job_definition_id=row["JOB_DEF_ID_"],
        retries=row["RETRIES_"],
        due_date=filters.utc(row["DUEDATE_"]),
        suspended=row["JOB_SUSPENSION"] == SUSPENDED,
        has_stacktrace=row["EXCEPTION_STACK_ID_"] is not None,
        configuration_id=row["HANDLER_CFG_"] if is_batch_job else None,
        configuration=None if row["BYTES_"] is None else bytes(row["BYTES_"]),
        batch=batch_row,
    )


def batch_jobs(conn: Connection, job_definition_ids: Sequence[str]) -> list[BatchJobEntry]:
    """Every job of these job definitions (ACT_RU_JOB), by id: its byte arrays and what its job
    log row says of it."""
    _projected(conn)
    stmt = (
        select(
            _J.c.ID_,
            _J.c.HANDLER_CFG_,
            _J.c.EXCEPTION_STACK_ID_,
            _J.c.JOB_DEF_ID_,
            _J.c.HANDLER_TYPE_,
            _J.c.RETRIES_,
            _J.c.DUEDATE_,
        )
        .where(_J.c.JOB_DEF_ID_.in_(list(job_definition_ids)))
        .order_by(_J.c.ID_)
    )
    return [
        BatchJobEntry(
            job_id=r[0],
            configuration_id=r[1],
            has_stacktrace=r[2] is not None,
            job_definition_id=r[3],
            handler_type=r[4],
            retries=int(r[5] or 0),
            due_date=filters.utc(r[6]),
        )
        for r in conn.execute(stmt)
    ]


def remaining_batch_jobs(conn: Connection, job_definition_id: str) -> int:
    """How many jobs of the batch job definition are left (ACT_RU_JOB), failed ones too."""
    _projected(conn)
    stmt = select(func.count()).select_from(_J).where(_J.c.JOB_DEF_ID_ == job_definition_id)
    return int(conn.execute(stmt).scalar_one())


def batch_variables(conn: Connection, batch_id: str) -> dict[str, StoredValue]:
    """The variables batch `batch_id` holds for its jobs (ACT_RU_VARIABLE with its BATCH_ID_,
    values in ACT_GE_BYTEARRAY)."""
    _projected(conn)
    return runtime_queries.batch_variables(conn, batch_id)


def batch_configuration(conn: Connection, configuration_id: str) -> bytes | None:
    """A batch's configuration byte array (ACT_GE_BYTEARRAY), or None."""
    _projected(conn)
    blob = ACT_GE_BYTEARRAY
    row = conn.execute(select(blob.c.BYTES_).where(blob.c.ID_ == configuration_id)).first()
    return None if row is None else bytes(row[0])


# -- history cleanup ------------------------------------------------------------------------------


def expired_instances(conn: Connection, now: datetime, limit: int) -> list[str]:
    """Up to `limit` instance ids whose removal time (ACT_HI_PROCINST) is at or before `now`,
    oldest first."""
    t = ACT_HI_PROCINST.c
    rows = conn.execute(
        select(t.PROC_INST_ID_)
        .where(t.REMOVAL_TIME_.is_not(None), t.REMOVAL_TIME_ <= filters.naive_utc(now))
        .order_by(t.REMOVAL_TIME_, t.PROC_INST_ID_)
        .limit(limit)
    )
    return [r[0] for r in rows]


class DecisionInstanceOrigin(NamedTuple):
    """Where a historic decision instance comes from: its evaluation's root (None: it is the
    root), the process instance that evaluated it (None: over the API), when, which decision."""

    ROOT_DEC_INST_ID_: str | None
    PROC_INST_ID_: str | None
    EVAL_TIME_: datetime
    DEC_DEF_ID_: str


def decision_instance_origin(
    conn: Connection, decision_instance_id: str
) -> DecisionInstanceOrigin | None:
    """The origin of historic decision instance `decision_instance_id` (ACT_HI_DECINST), or
    None. History may trail the log: the removal-time batches that ask found their targets in
    these rows when they were made."""
    t = ACT_HI_DECINST.c
    row = conn.execute(
        select(t.ROOT_DEC_INST_ID_, t.PROC_INST_ID_, t.EVAL_TIME_, t.DEC_DEF_ID_).where(
            t.ID_ == decision_instance_id
        )
    ).first()
    return None if row is None else DecisionInstanceOrigin(*row)


def expired_decisions(conn: Connection, now: datetime, limit: int) -> list[str]:
    """Up to `limit` evaluated decisions' instance ids (ACT_HI_DECINST; roots of evaluations over
    the API: an instance's go with its history) whose removal time is at or before `now`, oldest
    first."""
    t = ACT_HI_DECINST.c
    rows = conn.execute(
        select(t.ID_)
        .where(
            t.REMOVAL_TIME_.is_not(None),
            t.REMOVAL_TIME_ <= filters.naive_utc(now),
            t.ROOT_DEC_INST_ID_.is_(None),
            t.PROC_INST_ID_.is_(None),
        )
        .order_by(t.REMOVAL_TIME_, t.ID_)
        .limit(limit)
    )
    return [r[0] for r in rows]
