"""`GET /actuator/health`: is this server's engine writing history and its other projected rows,
and running its jobs? For probes and operators.

Not part of Camunda's engine-rest contract (so outside `/engine-rest` and its OpenAPI
document); its shape is the Spring Boot actuator's that Camunda Run serves at the same path:
`{"status": "UP" | "DOWN", "components": {...}}`, 200 when UP and 503 when DOWN.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Response, get
from litestar.di import NamedDependency

from flowledger.engine import Engine

from .formats import format_date

HEALTH_PATH = "/actuator/health"


class ComponentDto(msgspec.Struct):
    status: str
    details: dict[str, Any] = {}


class HealthDto(msgspec.Struct):
    status: str
    components: dict[str, ComponentDto]


@get(HEALTH_PATH, include_in_schema=False, sync_to_thread=True)
def health(engine: NamedDependency[Engine]) -> Response[HealthDto]:
    history = engine.history_health()
    details: dict[str, Any] = {
        "mode": history.mode,
        "follower": history.follower,
        "lag": history.lag,
    }
    if history.position is not None:
        details["position"] = history.position
    if history.restarts:
        details["restarts"] = history.restarts
    if history.detail is not None:
        details["detail"] = history.detail
    components = {"history": ComponentDto(history.status, details)}
    status = history.status
    projection = engine.projection_health()
    components["projection"] = ComponentDto(
        projection.status,
        {
            "mode": projection.mode,
            "projector": projection.projector,
            "lag": projection.lag,
            **({} if projection.position is None else {"position": projection.position}),
            "restarts": projection.restarts,
            "readWaits": projection.read_waits,
            "readCatchUps": projection.read_catch_ups,
            **({} if projection.detail is None else {"detail": projection.detail}),
        },
    )
    if projection.status != "UP":
        status = "DOWN"
    heads = engine.head_publisher_health()
    if heads is not None:
        components["heads"] = ComponentDto(
            heads.status,
            {
                "target": heads.target,
                "interval": heads.interval,
                "published": heads.published,
                **({} if heads.last_size is None else {"lastSize": heads.last_size}),
                **({} if heads.last_at is None else {"lastAt": format_date(heads.last_at)}),
                **({} if heads.last_error is None else {"lastError": heads.last_error}),
            },
        )
        if heads.status != "UP":
            status = "DOWN"
    tree = engine.tree_health()
    if tree is not None:  # the Merkle tree's stored tiles: lag = commits a proof reads from the log
        components["tree"] = ComponentDto(
            tree.status,
            {
                "size": tree.size,
                "tiled": tree.tiled,
                "lag": tree.lag,
                **({} if tree.last_error is None else {"lastError": tree.last_error}),
            },
        )
        if tree.status != "UP":
            status = "DOWN"
    exporters = engine.exporters_health()
    if exporters:  # DOWN while one of them cannot reach its target; lag says how far behind
        down = [e.name for e in exporters if e.status != "UP"]
        components["exporters"] = ComponentDto(
            "DOWN" if down else "UP",
            {
                e.name: {
                    "status": e.status,
                    "state": e.state,
                    "target": e.target,
                    "position": e.position,
                    "lag": e.lag,
                    "exported": e.exported,
                    "failures": e.failures,
                    **({} if e.last_at is None else {"lastAt": format_date(e.last_at)}),
                    **({} if e.last_error is None else {"lastError": e.last_error}),
                }
                for e in exporters
            },
        )
        if down:
            status = "DOWN"
    jobs = engine.management_service.job_executor_health()
    if jobs is not None:
        job_status = "UP" if jobs.running else "DOWN"
        components["jobExecutor"] = ComponentDto(
            job_status,
            {
                "owner": jobs.owner,
                "jobsRun": jobs.jobs_run,
                "jobsFailed": jobs.jobs_failed,
                "acquisitionErrors": jobs.acquisition_errors,
                **({"lastError": jobs.last_error} if jobs.last_error else {}),
            },
        )
        status = "UP" if status == "UP" and job_status == "UP" else "DOWN"
    # The limits stop what would stall or leak; they are up while they hold. Their counts say
    # how often they had to.
    limits = engine.limits_health()
    components["commandBudget"] = ComponentDto("UP", limits["commandBudget"])
    components["outbound"] = ComponentDto("UP", limits["outbound"])
    verify = engine.audit_service.last_verify()
    if verify is not None:  # the last background verify: its result and when it ended
        components["logVerify"] = ComponentDto(
            "UP",
            {
                "state": verify.state,
                "ok": None if verify.report is None else verify.report.ok,
                "problems": None if verify.report is None else len(verify.report.problems),
                "finished": None if verify.finished is None else format_date(verify.finished),
            },
        )
    body = HealthDto(status=status, components=components)
    return Response(body, status_code=200 if status == "UP" else 503)


routes: list[Any] = [health]
