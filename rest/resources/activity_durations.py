"""flowledger extension (under `/flowledger/v1`): how long each activity of a definition took —
`GET /process-definition/{id}/activity-durations`, what Camunda's historic activity statistics
leave out, for the cockpit's duration heat map. Aggregated in SQL from ACT_HI_ACTINST.DURATION_.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.engine import Engine

from .process_definition import _by_id


class ActivityDurationDto(msgspec.Struct, rename="camel"):
    """One activity: its instances (`count`), the finished ones, and their average, shortest
    and longest duration in milliseconds (null while none finished)."""

    activity_id: str
    count: int
    finished: int
    avg_millis: float | None
    min_millis: int | None
    max_millis: int | None


@get("/process-definition/{id:str}/activity-durations", sync_to_thread=True)
def activity_durations(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> list[ActivityDurationDto]:
    definition = _by_id(engine, id)
    return [
        ActivityDurationDto(
            activity_id=d.activity_id,
            count=d.count,
            finished=d.finished,
            avg_millis=d.avg_millis,
            min_millis=d.min_millis,
            max_millis=d.max_millis,
        )
        for d in engine.history_service.activity_durations(definition.id)
    ]


routes: list[Any] = [activity_durations]
