"""Batches: Camunda's BatchQuery (ACT_RU_BATCH), BatchStatisticsQuery (the batch with its jobs
counted in ACT_RU_JOB) and HistoricBatchQuery (ACT_HI_BATCH), behind engine-rest's `/batch` and
`/history/batch`. Reads only.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import and_, func, select
from sqlalchemy.engine import RowMapping

from ..tables import ACT_HI_BATCH, ACT_RU_BATCH, ACT_RU_JOB
from .declaration import Search
from .filters import ACTIVE, SUSPENDED, Condition, Spec, equal_fields, tenants, utc

_B = ACT_RU_BATCH
_H = ACT_HI_BATCH
_J = ACT_RU_JOB


class BatchQuery(msgspec.Struct, rename="camel"):
    """Camunda's BatchQueryDto filters; None means "no filter"."""

    batch_id: str | None = None
    type: str | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    suspended: bool | None = None
    created_by: str | None = None


class Batch(msgspec.Struct, frozen=True):
    """One batch: Camunda's BatchDto fields in its order."""

    id: str
    type: str
    total_jobs: int
    jobs_created: int
    batch_jobs_per_seed: int
    invocations_per_batch_job: int
    seed_job_definition_id: str
    monitor_job_definition_id: str
    batch_job_definition_id: str
    suspended: bool
    tenant_id: str | None
    create_user_id: str | None
    start_time: datetime | None
    execution_start_time: datetime | None


class BatchStatistics(msgspec.Struct, frozen=True):
    """Camunda's BatchStatisticsDto: the batch and how far its jobs are."""

    id: str
    type: str
    total_jobs: int
    jobs_created: int
    batch_jobs_per_seed: int
    invocations_per_batch_job: int
    seed_job_definition_id: str
    monitor_job_definition_id: str
    batch_job_definition_id: str
    suspended: bool
    tenant_id: str | None
    create_user_id: str | None
    start_time: datetime | None
    execution_start_time: datetime | None
    remaining_jobs: int
    completed_jobs: int
    failed_jobs: int


_EQUAL: Spec = (
    ("batch_id", _B.c.ID_),
    ("type", _B.c.TYPE_),
    ("created_by", _B.c.CREATE_USER_ID_),
)

BATCH_SORTS: dict[str, Any] = {"batchId": _B.c.ID_, "tenantId": _B.c.TENANT_ID_}


def _conditions(q: BatchQuery) -> list[Condition]:
    conditions = [
        *equal_fields(q, _EQUAL),
        *tenants(_B.c.TENANT_ID_, q.tenant_id_in, q.without_tenant_id),
    ]
    if q.suspended is not None:  # Camunda's dto: true → suspended(), false → active()
        conditions.append(_B.c.SUSPENSION_STATE_ == (SUSPENDED if q.suspended else ACTIVE))
    return conditions


def _fields(m: RowMapping) -> dict[str, Any]:
    return {
        "id": m["ID_"],
        "type": m["TYPE_"],
        "total_jobs": m["TOTAL_JOBS_"],
        "jobs_created": m["JOBS_CREATED_"],
        "batch_jobs_per_seed": m["JOBS_PER_SEED_"],
        "invocations_per_batch_job": m["INVOCATIONS_PER_JOB_"],
        "seed_job_definition_id": m["SEED_JOB_DEF_ID_"],
        "monitor_job_definition_id": m["MONITOR_JOB_DEF_ID_"],
        "batch_job_definition_id": m["BATCH_JOB_DEF_ID_"],
        "suspended": m["SUSPENSION_STATE_"] == SUSPENDED,
        "tenant_id": m["TENANT_ID_"],
        "create_user_id": m["CREATE_USER_ID_"],
        "start_time": utc(m["START_TIME_"]),
        "execution_start_time": utc(m["EXEC_START_TIME_"]),
    }


BATCHES: Search[BatchQuery, Batch] = Search(
    query=BatchQuery,
    source=_B,
    columns=(_B,),
    filters=_conditions,
    sorts=BATCH_SORTS,
    then=(_B.c.ID_,),
    row=lambda m: Batch(**_fields(m)),
    nulls="low",
    counted=_B,
)

# Camunda's BatchStatisticsManager: the batch's jobs left in ACT_RU_JOB, and those out of retries.
_LEFT = (
    select(func.count())
    .where(_J.c.JOB_DEF_ID_ == _B.c.BATCH_JOB_DEF_ID_)
    .correlate(_B)
    .scalar_subquery()
    .label("LEFT_JOBS")
)
_FAILED = (
    select(func.count())
    .where(and_(_J.c.JOB_DEF_ID_ == _B.c.BATCH_JOB_DEF_ID_, _J.c.RETRIES_ == 0))
    .correlate(_B)
    .scalar_subquery()
    .label("FAILED_JOBS")
)


def _statistics(m: RowMapping) -> BatchStatistics:
    fields = _fields(m)
    remaining = fields["total_jobs"] - fields["jobs_created"] + int(m["LEFT_JOBS"])
    return BatchStatistics(
        **fields,
        remaining_jobs=remaining,
        completed_jobs=fields["total_jobs"] - remaining,
        failed_jobs=int(m["FAILED_JOBS"]),
    )


BATCH_STATISTICS: Search[BatchQuery, BatchStatistics] = Search(
    query=BatchQuery,
    source=_B,
    columns=(_B, _LEFT, _FAILED),
    filters=_conditions,
    sorts=BATCH_SORTS,
    then=(_B.c.ID_,),
    row=_statistics,
    nulls="low",
    counted=_B,
)


# -- history --------------------------------------------------------------------------------------


class HistoricBatchQuery(msgspec.Struct, rename="camel"):
    """Camunda's HistoricBatchQueryDto filters."""

    batch_id: str | None = None
    type: str | None = None
    completed: bool | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None


class HistoricBatch(msgspec.Struct, frozen=True):
    """Camunda's HistoricBatchDto fields in its order."""

    id: str
    type: str
    total_jobs: int
    batch_jobs_per_seed: int
    invocations_per_batch_job: int
    seed_job_definition_id: str
    monitor_job_definition_id: str
    batch_job_definition_id: str
    tenant_id: str | None
    create_user_id: str | None
    start_time: datetime
    end_time: datetime | None
    removal_time: datetime | None
    execution_start_time: datetime | None


HISTORIC_BATCH_SORTS: dict[str, Any] = {
    "batchId": _H.c.ID_,
    "startTime": _H.c.START_TIME_,
    "endTime": _H.c.END_TIME_,
    "tenantId": _H.c.TENANT_ID_,
}


def _historic_conditions(q: HistoricBatchQuery) -> list[Condition]:
    conditions: list[Condition] = [
        *equal_fields(q, (("batch_id", _H.c.ID_), ("type", _H.c.TYPE_))),
        *tenants(_H.c.TENANT_ID_, q.tenant_id_in, q.without_tenant_id),
    ]
    if q.completed is not None:
        conditions.append(_H.c.END_TIME_.isnot(None) if q.completed else _H.c.END_TIME_.is_(None))
    return conditions


def _historic(m: RowMapping) -> HistoricBatch:
    start = utc(m["START_TIME_"])
    assert start is not None  # NOT NULL
    return HistoricBatch(
        id=m["ID_"],
        type=m["TYPE_"],
        total_jobs=m["TOTAL_JOBS_"],
        batch_jobs_per_seed=m["JOBS_PER_SEED_"],
        invocations_per_batch_job=m["INVOCATIONS_PER_JOB_"],
        seed_job_definition_id=m["SEED_JOB_DEF_ID_"],
        monitor_job_definition_id=m["MONITOR_JOB_DEF_ID_"],
        batch_job_definition_id=m["BATCH_JOB_DEF_ID_"],
        tenant_id=m["TENANT_ID_"],
        create_user_id=m["CREATE_USER_ID_"],
        start_time=start,
        end_time=utc(m["END_TIME_"]),
        removal_time=utc(m["REMOVAL_TIME_"]),
        execution_start_time=utc(m["EXEC_START_TIME_"]),
    )


HISTORIC_BATCHES: Search[HistoricBatchQuery, HistoricBatch] = Search(
    query=HistoricBatchQuery,
    source=_H,
    columns=(_H,),
    filters=_historic_conditions,
    sorts=HISTORIC_BATCH_SORTS,
    then=(_H.c.ID_,),
    row=_historic,
    nulls="low",
    counted=_H,
)
