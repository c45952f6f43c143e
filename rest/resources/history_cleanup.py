"""engine-rest: `POST /history/cleanup` — history cleanup, now.

Camunda schedules a `history-cleanup` job and answers it (a JobDto). flowledger has no such job:
the cleanup runs within the request (`HistoryService.cleanup_history`, each removal a logged
command), and the answer is a JobDto describing that finished run, under the fixed id
`history-cleanup`, so that clients reading the answer find the fields they expect.
`immediatelyDue` (a query parameter) changes nothing: the cleanup is always immediate.
"""

from __future__ import annotations

from typing import Any

from litestar import post
from litestar.di import NamedDependency

from flowledger.engine import Engine

from ..formats import format_date
from .job import JobDto

CLEANUP_JOB_ID = "history-cleanup"


@post("/history/cleanup", sync_to_thread=True, status_code=200)
def history_cleanup(engine: NamedDependency[Engine]) -> JobDto:
    """Remove the history of every instance whose removal time has passed."""
    report = engine.history_service.cleanup_history()
    at = format_date(report.at)
    return JobDto(
        id=CLEANUP_JOB_ID,
        job_definition_id=None,
        due_date=at,
        process_instance_id=None,
        execution_id=None,
        process_definition_id=None,
        process_definition_key=None,
        retries=0,  # done: nothing is left to retry
        exception_message=None,
        failed_activity_id=None,
        suspended=False,
        priority=0,
        tenant_id=None,
        create_time=at,
    )


routes: list[Any] = [history_cleanup]
