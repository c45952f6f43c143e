"""flowledger extension (under `/flowledger/v1`): the cockpit's dashboard — `GET /dashboard`,
per process definition its running instances, open incidents and open tasks (every key's latest
version, and older ones while they have any), and the incidents created in the last hour.

Thin: the history service asks projections/queries/dashboard.py (grouped queries, no full load).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get
from litestar.di import NamedDependency

from flowledger.engine import Engine

from ..formats import format_date


class DashboardDefinitionDto(msgspec.Struct, rename="camel"):
    id: str
    key: str
    name: str | None
    version: int
    running_instances: int
    open_incidents: int
    open_tasks: int


class FailureDto(msgspec.Struct, rename="camel"):
    """An incident of the last hour (history level full writes them)."""

    time: str | None
    process_instance_id: str | None
    process_definition_id: str | None
    activity_id: str | None
    incident_type: str
    message: str | None


class DashboardDto(msgspec.Struct, rename="camel"):
    definitions: list[DashboardDefinitionDto]
    failed_last_hour: list[FailureDto]


@get("/dashboard", sync_to_thread=True)
def get_dashboard(engine: NamedDependency[Engine]) -> DashboardDto:
    loads, failures = engine.history_service.dashboard()
    return DashboardDto(
        definitions=[
            DashboardDefinitionDto(
                id=d.id,
                key=d.key,
                name=d.name,
                version=d.version,
                running_instances=d.running_instances,
                open_incidents=d.open_incidents,
                open_tasks=d.open_tasks,
            )
            for d in loads
        ],
        failed_last_hour=[
            FailureDto(
                time=format_date(f.time),
                process_instance_id=f.process_instance_id,
                process_definition_id=f.process_definition_id,
                activity_id=f.activity_id,
                incident_type=f.incident_type,
                message=f.message,
            )
            for f in failures
        ],
    )


routes: list[Any] = [get_dashboard]
