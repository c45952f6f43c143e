"""Random interleavings of the administrative commands (deployment and history deletion, task
variable removal, external task retries/priority/failures) with ordinary ones: whatever the
order, `verify()` is clean and a rebuild from the log writes the live tables again, with history
projected inline or by the asynchronous follower (in batches that span deletions).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from contextlib import ExitStack, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowledger import ControllableClock, Engine, FlowledgerError
from flowledger.engine.workers.history_worker import HistoryProcess
from tests.projections.test_rebuild import assert_same_tables, capture
from tests.support import bpmn, fresh_database, selected_kind

MODELS = {
    "userTaskAssignment": "user_task_assignment.bpmn",
    "externalInvoice": "external_task.bpmn",
    "passThrough": "pass_through_activities.bpmn",
}
START_VARIABLES: dict[str, dict[str, Any]] = {
    "userTaskAssignment": {
        "initiator": "kermit",
        "extraUser": "gonzo",
        "priority": 5,
        "orderId": "X",
        "due": None,
        "blob": b"\x00bytes",
    },
    "externalInvoice": {"priority": 3, "blob": b"\x01"},
    "passThrough": {"v": 1},
}
NAMES = ("blob", "note", "v", "orderId")

ACTIONS = (
    "deploy",
    "start",
    "start",
    "complete_task",
    "complete_task",
    "set_task_variable",
    "remove_task_variables",
    "delete_instance",
    "delete_history",
    "delete_history",
    "delete_deployment",
    "fetch",
    "fetch",
    "fail",
    "fail",
    "complete_external",
    "set_retries",
    "set_priority",
    "advance",
    "flush",
)
steps = st.lists(
    st.tuples(st.sampled_from(ACTIONS), st.integers(0, 50), st.integers(0, 3)),
    min_size=5,
    max_size=30,
)


class Run:
    """One engine and what the test knows of it: deployments and instances, by id."""

    def __init__(self, engine: Engine, clock: ControllableClock) -> None:
        self.engine = engine
        self.clock = clock
        self.deployments: list[str] = []
        self.instances: list[str] = []

    def pick(self, items: list[str], n: int) -> str | None:
        return items[n % len(items)] if items else None

    def step(self, action: str, n: int, m: int) -> None:
        engine = self.engine
        tasks = [t.id for t in engine.tasks()]
        externals = [x.id for x in engine.external_task_service.external_tasks()]
        locked = [
            x.id for x in engine.external_task_service.external_tasks() if x.worker_id is not None
        ]
        # mostly finished instances (the others are refused), now and then any
        ended = [p for p in self.instances if m == 0 or engine.replay(p).ended]
        commands: dict[str, Callable[[], object]] = {
            "deploy": lambda: self.deployments.append(
                engine.deploy(bpmn(list(MODELS.values())[n % len(MODELS)])).id
            ),
            "start": lambda: self.start(list(MODELS)[n % len(MODELS)]),
            "complete_task": lambda: engine.complete_task(self.pick(tasks, n) or "none"),
            "set_task_variable": lambda: engine.task_service.set_variables(
                self.pick(tasks, n) or "none", {NAMES[m]: b"x" if m % 2 else m}, local=m > 1
            ),
            "remove_task_variables": lambda: engine.task_service.remove_variables(
                self.pick(tasks, n) or "none", [NAMES[m], NAMES[(m + 1) % 4]], local=n % 2 == 0
            ),
            "delete_instance": lambda: engine.runtime_service.delete_process_instance(
                self.pick(self.instances, n) or "none"
            ),
            "delete_history": lambda: engine.history_service.delete_historic_process_instance(
                self.pick(ended, n) or "none"
            ),
            "delete_deployment": lambda: engine.repository_service.delete_deployment(
                self.pick(self.deployments, n) or "none", cascade=m % 2 == 1
            ),
            "fetch": lambda: engine.external_task_service.fetch_and_lock(
                "w", {"invoice": 1000 * (m + 1)}, n % 3 + 1
            ),
            "fail": lambda: engine.external_task_service.handle_failure(
                self.pick(locked, n) or "none",
                "w",
                f"failure {n}",
                error_details=None if m == 0 else f"details {n}",
                retries=m,
            ),
            "complete_external": lambda: engine.external_task_service.complete(
                self.pick(locked, n) or "none", "w", {"v": n}
            ),
            "set_retries": lambda: engine.external_task_service.set_retries(
                self.pick(externals, n) or "none", m - 1
            ),
            "set_priority": lambda: engine.external_task_service.set_priority(
                self.pick(externals, n) or "none", n
            ),
            "advance": lambda: self.clock.advance(milliseconds=500 * (m + 1)),
            "flush": engine.flush_history,
        }
        # Refused (unknown ids, rules): nothing but the command log row is written.
        with suppress(FlowledgerError):
            commands[action]()

    def start(self, key: str) -> None:
        self.instances.append(self.engine.start_process_instance(key, START_VARIABLES[key]).id)


def run_and_check(url: str, history_mode: str, plan: list[tuple[str, int, int]]) -> None:
    clock = ControllableClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    with Engine(url, clock=clock, history_mode=history_mode) as engine:
        run = Run(engine, clock)
        for key, model in MODELS.items():
            run.deployments.append(engine.deploy(bpmn(model)).id)
            run.start(key)
        for action, n, m in plan:
            run.step(action, n, m)
        report = engine.verify()
        assert report.ok, report.problems
        before = capture(engine)
        engine.rebuild_projections()
        assert_same_tables(before, capture(engine))
        assert engine.verify().ok


@pytest.mark.parametrize("history_mode", ["inline", "async"])
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=steps)
def test_admin_commands_keep_log_state_and_tables_in_agreement(
    history_mode: str, plan: list[tuple[str, int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Asynchronous history moves only when flushed (a step, verify, close): batches then hold
    # the rows of several commands, deletions among them.
    monkeypatch.setattr(HistoryProcess, "start", lambda self: None)
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="fl-admin-")))
        url = stack.enter_context(fresh_database(selected_kind(), tmp))
        run_and_check(url, history_mode, plan)
