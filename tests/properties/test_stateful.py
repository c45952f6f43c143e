"""Stateful property test: random commands on generated models; log, live state and tables agree.

Each run gets a fresh engine on a fresh SQLite file; replay, snapshots and projections are checked.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import core.engine
from core import ControllableClock, Engine, FlowledgerError
from core.evolve import evolve
from core.state import STATE_SCHEMA, InstanceState, copy_state, decode_state
from tests.properties.models import ERROR_CODE, TOPIC, Model, models, start_variables

KEYS = ("proc0", "proc1", "proc2")
WORKERS = ("w1", "w2")
USERS = ("alice", "bob", "carol")
MAX_DEPLOYMENTS = 4
MAX_ACTIVE_INSTANCES = 6
VERIFY_EVERY = 5  # full engine.verify() every this many steps (and at teardown)
SNAPSHOT_EVERY = 3  # patched into core.engine so snapshots are written all the time

# -- variable values ----------------------------------------------------------------------------

# Values the models compute with: the condition variable x and the counter n stay small integers.
model_values = st.integers(min_value=-2, max_value=12)
# Any other variable may hold any value the engine accepts. Non-finite doubles are left out: the
# engine accepts them but records them as null (see test_non_finite_double_survives_replay).
other_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.binary(max_size=8),
    st.datetimes(
        min_value=datetime(1900, 1, 1),
        max_value=datetime(2200, 1, 1),
        timezones=st.just(UTC),
    ),
    st.dictionaries(st.sampled_from("abc"), st.integers(-5, 5), max_size=2),
    st.lists(st.text(max_size=3), max_size=2),
)
variables = st.one_of(
    st.just({}),
    st.dictionaries(st.sampled_from(("x", "n")), model_values, max_size=2),
    st.dictionaries(st.sampled_from(("s", "note", "doc")), other_values, max_size=2),
)
# Values every engine must refuse (nothing may be written but the command's audit row).
invalid_values = st.one_of(
    st.integers(min_value=2**63, max_value=2**70),
    st.integers(max_value=-(2**63) - 1, min_value=-(2**70)),
    st.text(min_size=4001, max_size=4001, alphabet="ab"),
    st.just(object()),
)


def _sequential_ids() -> Callable[[], str]:
    """Deterministic, time-ordered UUID-shaped ids, so a failing run replays exactly."""
    counter = itertools.count(1)
    return lambda: f"00000000-0000-7000-8000-{next(counter):012x}"


def _leaf_at_wait_state(state: InstanceState, execution_id: str) -> str | None:
    """Why the leaf execution is not resting at a wait state (None when it is)."""
    execution = state.executions[execution_id]
    ai = state.activity_instances.get(execution.activity_instance_id or "")
    if ai is None:
        return f"leaf execution {execution_id} is at no activity instance"
    if ai.activity_type == "userTask":
        if not any(t.activity_instance_id == ai.id for t in state.tasks.values()):
            return f"user task {ai.activity_id} has no open task"
        return None
    if ai.activity_type == "serviceTask":
        if not any(t.activity_instance_id == ai.id for t in state.external_tasks.values()):
            return f"service task {ai.activity_id} has no open external task"
        return None
    if ai.activity_type == "receiveTask":
        return None
    if ai.activity_type in ("parallelGateway", "inclusiveGateway") and not execution.is_active:
        return None
    return f"leaf execution {execution_id} rests at {ai.activity_type} {ai.activity_id}"


class EngineMachine(RuleBasedStateMachine):
    """One engine on a fresh SQLite database; a few generated models; random commands."""

    def __init__(self) -> None:
        super().__init__()
        self._dir = tempfile.TemporaryDirectory(prefix="flowledger-props-")
        self.url = f"sqlite:///{Path(self._dir.name) / 'engine.db'}"
        self.clock = ControllableClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
        core.engine.uuid7 = _sequential_ids()  # type: ignore[attr-defined]
        self.engine = Engine(self.url, clock=self.clock)
        self.deployments = 0
        self.keys: list[str] = []
        self.instances: list[str] = []  # every instance started, in start order
        self.steps = 0

    # -- helpers ---------------------------------------------------------------------------

    def live(self, pid: str) -> InstanceState:
        """The engine's live state of an instance (loaded, snapshot + tail, if not cached)."""
        cached = self.engine._cache.get(pid)
        if cached is None:
            with self.engine._read() as conn:
                loaded = self.engine._load(conn, pid)
            assert loaded is not None, f"instance {pid} cannot be loaded"
            cached = loaded
        return cached.state

    def active(self) -> Iterator[tuple[str, InstanceState]]:
        for pid in self.instances:
            state = self.live(pid)
            if not state.ended:
                yield pid, state

    def head(self) -> int:
        with self.engine._read() as conn:
            return self.engine._store.head_position(conn)

    def command(self, pid: str | None, action: Callable[[], object], *, may_fail: bool) -> bool:
        """Run a command; a rejection must leave the log and the instance state untouched."""
        before_head = self.head()
        before = copy_state(self.live(pid)) if pid is not None else None
        try:
            action()
        except FlowledgerError:
            if not may_fail:
                raise
            assert self.head() == before_head, "a rejected command appended events"
            if pid is not None:
                assert self.live(pid) == before, "a rejected command changed the instance state"
            return False
        return True

    def open_tasks(self) -> list[tuple[str, str]]:
        return [(pid, t) for pid, s in self.active() for t in s.tasks]

    def external_tasks(self, locked: bool | None = None) -> list[tuple[str, str]]:
        return [
            (pid, x.id)
            for pid, s in self.active()
            for x in s.external_tasks.values()
            if locked is None or (x.worker_id is not None) == locked
        ]

    def waiting_receives(self) -> list[tuple[str, str]]:
        return [
            (pid, ai.execution_id)
            for pid, s in self.active()
            for ai in s.activity_instances.values()
            if ai.activity_type == "receiveTask"
        ]

    # -- deploying and starting ------------------------------------------------------------

    def _deploy(self, key: str, model: Model) -> None:
        xml = dataclasses.replace(model, key=key).to_xml()
        deployment = self.engine.deploy(xml, name=f"deployment {self.deployments}")
        self.deployments += 1
        assert [d.key for d in deployment.process_definitions] == [key]
        if key not in self.keys:
            self.keys.append(key)

    @initialize(model=models())
    def deploy_first(self, model: Model) -> None:
        self._deploy(KEYS[0], model)

    @precondition(lambda self: self.deployments < MAX_DEPLOYMENTS)
    @rule(key=st.sampled_from(KEYS), model=models())
    def deploy(self, key: str, model: Model) -> None:
        self._deploy(key, model)

    @precondition(lambda self: len(list(self.active())) < MAX_ACTIVE_INSTANCES)
    @rule(data=st.data(), start=start_variables(), extra=variables)
    def start_instance(self, data: st.DataObject, start: dict[str, int], extra: dict) -> None:
        key = data.draw(st.sampled_from(self.keys), label="key")
        instance = self.engine.start_process_instance(key, {**extra, **start})
        self.instances.append(instance.id)
        assert self.live(instance.id).ended == instance.ended

    # -- user tasks ------------------------------------------------------------------------

    @precondition(lambda self: self.open_tasks())
    @rule(data=st.data(), values=variables)
    def complete_task(self, data: st.DataObject, values: dict) -> None:
        pid, task_id = data.draw(st.sampled_from(self.open_tasks()), label="task")
        self.command(pid, lambda: self.engine.complete_task(task_id, values), may_fail=False)
        assert task_id not in self.live(pid).tasks

    @precondition(lambda self: self.open_tasks())
    @rule(data=st.data(), user=st.sampled_from(USERS))
    def claim(self, data: st.DataObject, user: str) -> None:
        pid, task_id = data.draw(st.sampled_from(self.open_tasks()), label="task")
        assignee = self.live(pid).tasks[task_id].assignee
        claimed = self.command(
            pid, lambda: self.engine.claim(task_id, user), may_fail=assignee not in (None, user)
        )
        assert claimed == (assignee in (None, user))
        assert self.live(pid).tasks[task_id].assignee == (user if claimed else assignee)

    @precondition(lambda self: self.open_tasks())
    @rule(data=st.data())
    def unclaim(self, data: st.DataObject) -> None:
        pid, task_id = data.draw(st.sampled_from(self.open_tasks()), label="task")
        self.command(pid, lambda: self.engine.unclaim(task_id), may_fail=False)
        assert self.live(pid).tasks[task_id].assignee is None

    @precondition(lambda self: self.open_tasks())
    @rule(data=st.data(), user=st.sampled_from((None, *USERS)))
    def set_assignee(self, data: st.DataObject, user: str | None) -> None:
        pid, task_id = data.draw(st.sampled_from(self.open_tasks()), label="task")
        self.command(pid, lambda: self.engine.set_assignee(task_id, user), may_fail=False)
        assert self.live(pid).tasks[task_id].assignee == user

    # -- variables -------------------------------------------------------------------------

    @precondition(lambda self: any(True for _ in self.active()))
    @rule(data=st.data(), values=variables, local=st.booleans())
    def set_variables(self, data: st.DataObject, values: dict, local: bool) -> None:
        pid, state = data.draw(st.sampled_from(list(self.active())), label="instance")
        execution_id = data.draw(st.sampled_from(list(state.executions)), label="execution")
        self.command(
            pid,
            lambda: self.engine.set_variables(execution_id, values, local=local),
            may_fail=False,
        )

    @precondition(lambda self: any(True for _ in self.active()))
    @rule(data=st.data(), name=st.sampled_from(("s", "x")), value=invalid_values)
    def set_invalid_variable(self, data: st.DataObject, name: str, value: object) -> None:
        pid, _state = data.draw(st.sampled_from(list(self.active())), label="instance")
        done = self.command(
            pid, lambda: self.engine.set_variables(pid, {name: value}), may_fail=True
        )
        assert not done, f"the engine accepted {name}={value!r}"

    # -- external tasks --------------------------------------------------------------------

    @rule(
        worker=st.sampled_from(WORKERS),
        lock_ms=st.integers(min_value=1, max_value=120_000),
        max_tasks=st.integers(min_value=0, max_value=3),
    )
    def fetch_and_lock(self, worker: str, lock_ms: int, max_tasks: int) -> None:
        now = self.clock.now()
        fetchable = {
            x.id
            for _pid, s in self.active()
            for x in s.external_tasks.values()
            if x.topic == TOPIC
            and (x.lock_expiration is None or x.lock_expiration <= now)
            and (x.retries is None or x.retries > 0)
        }
        locked = self.engine.fetch_and_lock(worker, {TOPIC: lock_ms}, max_tasks)
        assert len(locked) == min(max_tasks, len(fetchable))
        for task in locked:
            assert task.id in fetchable
            ext = self.live(task.process_instance_id).external_tasks[task.id]
            assert ext.worker_id == worker
            assert task.worker_id == worker
            assert ext.lock_expiration is not None
            assert (ext.lock_expiration - now).total_seconds() * 1000 == lock_ms

    def _ext(self, data: st.DataObject) -> tuple[str, str, str | None]:
        pid, ext_id = data.draw(st.sampled_from(self.external_tasks(locked=True)), label="ext")
        owner = self.live(pid).external_tasks[ext_id].worker_id
        # Mostly the owner; sometimes another worker, which must be refused.
        worker = data.draw(st.sampled_from([owner, owner, *WORKERS]), label="worker")
        return pid, ext_id, worker

    @precondition(lambda self: self.external_tasks(locked=True))
    @rule(data=st.data(), values=variables)
    def complete_external_task(self, data: st.DataObject, values: dict) -> None:
        pid, ext_id, worker = self._ext(data)
        owner = self.live(pid).external_tasks[ext_id].worker_id
        assert worker is not None
        done = self.command(
            pid,
            lambda: self.engine.complete_external_task(ext_id, worker, values),
            may_fail=worker != owner,
        )
        assert done == (worker == owner)
        assert (ext_id in self.live(pid).external_tasks) != done

    @precondition(lambda self: self.external_tasks(locked=True))
    @rule(
        data=st.data(),
        retries=st.integers(min_value=0, max_value=2),
        retry_timeout=st.sampled_from((0, 1000, 60_000)),
    )
    def fail_external_task(self, data: st.DataObject, retries: int, retry_timeout: int) -> None:
        pid, ext_id, worker = self._ext(data)
        owner = self.live(pid).external_tasks[ext_id].worker_id
        assert worker is not None
        done = self.command(
            pid,
            lambda: self.engine.handle_external_task_failure(
                ext_id, worker, "boom", retries=retries, retry_timeout=retry_timeout
            ),
            may_fail=worker != owner,
        )
        assert done == (worker == owner)
        if done:
            ext = self.live(pid).external_tasks[ext_id]
            assert ext.retries == retries
            assert ext.error_message == "boom"

    @precondition(lambda self: self.external_tasks(locked=True))
    @rule(data=st.data(), code=st.sampled_from((ERROR_CODE, "OTHER")))
    def bpmn_error_external_task(self, data: st.DataObject, code: str) -> None:
        pid, ext_id, worker = self._ext(data)
        owner = self.live(pid).external_tasks[ext_id].worker_id
        assert worker is not None
        done = self.command(
            pid,
            lambda: self.engine.handle_external_task_bpmn_error(ext_id, worker, code),
            may_fail=worker != owner,
        )
        assert done == (worker == owner)
        assert (ext_id in self.live(pid).external_tasks) != done

    @precondition(lambda self: self.external_tasks())
    @rule(data=st.data())
    def unlock(self, data: st.DataObject) -> None:
        pid, ext_id = data.draw(st.sampled_from(self.external_tasks()), label="ext")
        self.command(pid, lambda: self.engine.unlock(ext_id), may_fail=False)
        ext = self.live(pid).external_tasks[ext_id]
        assert ext.worker_id is None
        assert ext.lock_expiration is None

    # -- receive tasks, deletion, time, restarts -------------------------------------------

    @precondition(lambda self: self.waiting_receives())
    @rule(data=st.data(), values=variables)
    def trigger(self, data: st.DataObject, values: dict) -> None:
        pid, execution_id = data.draw(st.sampled_from(self.waiting_receives()), label="receive")
        self.command(pid, lambda: self.engine.trigger(execution_id, values), may_fail=False)

    @precondition(lambda self: any(True for _ in self.active()))
    @rule(data=st.data())
    def trigger_elsewhere(self, data: st.DataObject) -> None:
        """Triggering an execution that does not wait in a receive task is refused."""
        pid, state = data.draw(st.sampled_from(list(self.active())), label="instance")
        waiting = {e for p, e in self.waiting_receives() if p == pid}
        others = [e for e in state.executions if e not in waiting]
        if not others:
            return
        execution_id = data.draw(st.sampled_from(others), label="execution")
        done = self.command(pid, lambda: self.engine.trigger(execution_id), may_fail=True)
        assert not done

    @precondition(lambda self: any(True for _ in self.active()))
    @rule(data=st.data())
    def delete_instance(self, data: st.DataObject) -> None:
        pid, _state = data.draw(st.sampled_from(list(self.active())), label="instance")
        self.command(pid, lambda: self.engine.delete_process_instance(pid, "test"), may_fail=False)
        state = self.live(pid)
        assert state.status == "EXTERNALLY_TERMINATED"
        assert not state.tasks and not state.external_tasks and not state.executions

    @precondition(lambda self: self.instances)
    @rule(data=st.data())
    def command_on_ended_instance(self, data: st.DataObject) -> None:
        """Commands naming an ended instance, or a stale task, are refused."""
        ended = [pid for pid in self.instances if self.live(pid).ended]
        if not ended:
            return
        pid = data.draw(st.sampled_from(ended), label="instance")
        assert not self.command(
            pid, lambda: self.engine.set_variables(pid, {"s": 1}), may_fail=True
        )
        assert not self.command(
            pid, lambda: self.engine.delete_process_instance(pid), may_fail=True
        )

    @rule(milliseconds=st.sampled_from((1, 999, 1000, 60_000, 3_600_000)))
    def advance_clock(self, milliseconds: int) -> None:
        self.clock.advance(milliseconds=milliseconds)

    @rule()
    def evict_cache(self) -> None:
        """Forget cached states: the next command loads snapshot + tail from the database."""
        self.engine._cache.clear()

    @rule()
    def restart_engine(self) -> None:
        """A new engine process on the same database: models and states come from the log."""
        self.engine.close()
        self.engine = Engine(self.url, clock=self.clock)

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def log_state_and_tables_agree(self) -> None:
        self.steps += 1
        engine = self.engine
        for pid in self.instances:
            live = self.live(pid)
            replayed = engine.replay(pid)
            assert replayed == live, f"instance {pid}: replay differs from the live state"
            with engine._read() as conn:
                snapshot = engine._store.load_snapshot(conn, pid, STATE_SCHEMA)
                if snapshot is not None:
                    tail: InstanceState | None = decode_state(snapshot.state)
                    for commit in engine._store.read_stream(
                        conn, pid, after_version=snapshot.version
                    ):
                        for event in engine._codec.decode(commit.events):
                            tail = evolve(tail, event)
                    assert tail == replayed, f"instance {pid}: snapshot + tail differs"
            self._check_projection(pid, live)
        if self.steps % VERIFY_EVERY == 0:
            self.verify()

    def _check_projection(self, pid: str, state: InstanceState) -> None:
        engine = self.engine
        tasks = {
            (t.id, t.task_definition_key, t.assignee, t.execution_id)
            for t in engine.tasks(process_instance_id=pid)
        }
        assert tasks == {
            (t.id, t.task_definition_key, t.assignee, t.execution_id) for t in state.tasks.values()
        }, f"instance {pid}: open user tasks differ from the live state"
        externals = {
            (x.id, x.activity_id, x.worker_id, x.retries)
            for x in engine.external_tasks(process_instance_id=pid)
        }
        assert externals == {
            (x.id, x.activity_id, x.worker_id, x.retries) for x in state.external_tasks.values()
        }, f"instance {pid}: external tasks differ from the live state"
        assert {e.id for e in engine.executions(pid)} == set(state.executions)
        if state.ended:
            return
        for ai in state.activity_instances.values():
            assert ai.execution_id in state.executions, f"{ai.id} belongs to no execution"
        leaves = [e.id for e in state.executions.values() if not e.children]
        assert leaves, f"active instance {pid} has no execution"
        for leaf in leaves:
            problem = _leaf_at_wait_state(state, leaf)
            assert problem is None, f"instance {pid}: {problem}"

    def verify(self) -> None:
        report = self.engine.verify()
        assert report.problems == [], "\n".join(report.problems[:10])

    def teardown(self) -> None:
        try:
            self.verify()
        finally:
            self.engine.close()
            self._dir.cleanup()


FAST = settings(
    max_examples=25,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SLOW = settings(FAST, max_examples=300, stateful_step_count=60)


@pytest.fixture
def patched_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core.engine, "SNAPSHOT_EVERY", SNAPSHOT_EVERY)
    monkeypatch.setattr(core.engine, "uuid7", core.engine.uuid7)  # restored after the test


def test_engine_state_machine(patched_engine: None) -> None:
    run_state_machine_as_test(EngineMachine, settings=FAST)


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("FLOWLEDGER_SLOW") != "1", reason="set FLOWLEDGER_SLOW=1 for the heavy run"
)
def test_engine_state_machine_heavy(patched_engine: None) -> None:
    run_state_machine_as_test(EngineMachine, settings=SLOW)
