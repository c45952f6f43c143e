"""A full verify run in the background: one worker thread at a time, its progress counted as
the log is read, its report kept for whoever asks by the task's id.

A request only starts a task or reads one; the verify itself never runs inside a request. A
second start while one runs answers the running task. A verify that finds problems, or fails,
is logged at WARNING. It holds the engine's lock only to fix the point of the log it checks
(`Audit.verify`): the engine's commands go on while it reads.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from flowledger.core import views

log = logging.getLogger("flowledger.engine.verification")

RUNNING, DONE, FAILED = "running", "done", "failed"
KEPT = 20  # finished tasks kept to be read back; the oldest go first

Verify = Callable[[Callable[[int, int], None]], views.VerificationReport]


@dataclass(frozen=True)
class VerifyTask:
    """One background verify: `checked` of `total` commits read so far; `report` once done,
    `error` when it failed."""

    id: str
    state: str
    checked: int
    total: int
    started: datetime
    finished: datetime | None = None
    report: views.VerificationReport | None = None
    error: str | None = None


class VerifyTasks:
    """The engine's background verifies: at most one running."""

    def __init__(self, verify: Verify) -> None:
        self._verify = verify
        self._tasks: OrderedDict[str, VerifyTask] = OrderedDict()
        self._running: str | None = None
        self._last_finished: str | None = None
        self._guard = threading.Lock()

    def start(self) -> VerifyTask:
        """Start a verify in a worker thread; the running one when there is one."""
        with self._guard:
            if self._running is not None:
                return self._tasks[self._running]
            task = VerifyTask(uuid.uuid4().hex, RUNNING, 0, 0, datetime.now(UTC))
            self._tasks[task.id] = task
            self._running = task.id
            while len(self._tasks) > KEPT:
                self._tasks.popitem(last=False)
        worker = threading.Thread(
            target=self._run, args=(task.id,), name=f"flowledger-verify-{task.id[:8]}", daemon=True
        )
        worker.start()
        return task

    def get(self, task_id: str) -> VerifyTask | None:
        with self._guard:
            return self._tasks.get(task_id)

    def last_finished(self) -> VerifyTask | None:
        """The verify that ended last (None before the first ends)."""
        with self._guard:
            return None if self._last_finished is None else self._tasks.get(self._last_finished)

    def running(self) -> VerifyTask | None:
        with self._guard:
            return None if self._running is None else self._tasks.get(self._running)

    def _update(self, task_id: str, **changes: object) -> None:
        with self._guard:
            if task_id in self._tasks:
                self._tasks[task_id] = replace(self._tasks[task_id], **changes)  # type: ignore[arg-type]

    def _run(self, task_id: str) -> None:
        def progress(done: int, total: int) -> None:
            self._update(task_id, checked=done, total=total)

        try:
            report = self._verify(progress)
        except Exception as exc:  # the task reports it; a worker thread has no one to raise to
            log.warning("background verify %s failed: %s", task_id, exc, exc_info=True)
            self._finish(task_id, state=FAILED, error=f"{type(exc).__name__}: {exc}")
            return
        if report.problems:
            log.warning(
                "background verify %s found %d problems; the first: %s",
                task_id,
                len(report.problems),
                report.problems[0],
            )
        current = self.get(task_id)
        total = max(report.commits_checked, current.total if current is not None else 0)
        checked = report.commits_checked
        self._finish(task_id, state=DONE, report=report, checked=checked, total=total)

    def _finish(self, task_id: str, **changes: object) -> None:
        self._update(task_id, finished=datetime.now(UTC), **changes)
        with self._guard:
            self._running = None
            self._last_finished = task_id
