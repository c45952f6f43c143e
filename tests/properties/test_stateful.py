"""Stateful property test: random commands on generated models; log, live state and tables agree.

Each run: two engine nodes on a fresh SQLite file; replay, snapshots and projections are checked.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import flowledger.core.ids
import flowledger.engine.commands.bus
import flowledger.engine.storage.streams
from flowledger import ControllableClock, Engine, FlowledgerError
from flowledger.core import commands as cmd
from flowledger.core.errors import NotFound
from flowledger.core.evolve import evolve
from flowledger.core.instance_migration.plan import MigrationInstruction, MigrationPlan
from flowledger.core.state import STATE_SCHEMA, InstanceState, decode_state, encode_state
from flowledger.core.variables import TypedValue
from tests.properties.models import (
    ERROR_CODE,
    MAX_ACTIVITIES,
    MESSAGES,
    SIGNALS,
    TOPIC,
    Model,
    models,
    start_variables,
)

KEYS = ("proc0", "proc1", "proc2")
# Where runtime_service.trigger (runtimeService.signal) moves a waiting token on: a receive task
# and the intermediate catch events (Camunda's signal leaves a conditional catch too).
TRIGGERABLE = (
    "receiveTask",
    "intermediateMessageCatch",
    "intermediateSignalCatch",
    "intermediateConditional",
)
WORKERS = ("w1", "w2")
USERS = ("alice", "bob", "carol")
# Business keys, each a data subject: instances share them, and `erase_subject` erases one.
SUBJECTS = ("subject-a", "subject-b")
MAX_DEPLOYMENTS = 4
MAX_ACTIVE_INSTANCES = 6
RESTART_AFTER = 8  # steps between engine restarts (each one runs the migrations)
VERIFY_EVERY = 5  # full engine.verify() every this many steps (and at teardown)
SNAPSHOT_EVERY = 3  # patched into core.engine so snapshots are written all the time

# -- variable values ----------------------------------------------------------------------------

# Values the models compute with: the condition variable x and the counter n stay small integers.
model_values = st.integers(min_value=-2, max_value=12)
# Text the engine accepts: no NUL (PostgreSQL's text columns cannot hold it; refused everywhere).
texts = partial(st.text, alphabet=st.characters(exclude_characters="\x00"))
# Any other variable may hold any value the engine accepts.
other_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    texts(max_size=12),
    st.binary(max_size=8),
    st.datetimes(
        min_value=datetime(1900, 1, 1),
        max_value=datetime(2200, 1, 1),
        timezones=st.just(UTC),
    ),
    st.dictionaries(st.sampled_from("abc"), st.integers(-5, 5), max_size=2),
    st.lists(texts(max_size=3), max_size=2),
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
    st.sampled_from((float("inf"), float("-inf"), float("nan"))),
    st.just(object()),
)


def _sequential_ids() -> Callable[[], str]:
    """Deterministic, time-ordered UUID-shaped ids, so a failing run replays exactly."""
    counter = itertools.count(1)
    return lambda: f"00000000-0000-7000-8000-{next(counter):012x}"


def _leaf_at_wait_state(state: InstanceState, execution_id: str) -> str | None:
    """Why the leaf execution is not resting at a wait state (None when it is)."""
    execution = state.executions[execution_id]
    if any(
        j.execution_id == execution_id and j.handler_type == "async-continuation"
        for j in state.jobs.values()
    ):
        return None  # a continuation job carries the token on
    ai = state.activity_instances.get(execution.activity_instance_id or "")
    if ai is None:
        return f"leaf execution {execution_id} is at no activity instance"
    if ai.activity_type == "intermediateTimer":
        if not any(j.activity_instance_id == ai.id for j in state.jobs.values()):
            return f"timer {ai.activity_id} has no job"
        return None
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
    if ai.activity_type == "eventBasedGateway":
        waits = [j for j in state.jobs.values() if j.activity_instance_id == ai.id]
        waits += [s for s in state.subscriptions.values() if s.activity_instance_id == ai.id]
        if not waits:
            return f"event-based gateway {ai.activity_id} waits for nothing"
        return None
    if ai.activity_type in (
        "intermediateMessageCatch",
        "intermediateSignalCatch",
        "intermediateConditional",
    ):
        if not any(sub.activity_instance_id == ai.id for sub in state.subscriptions.values()):
            return f"catch event {ai.activity_id} has no subscription"
        return None
    if ai.activity_type in ("parallelGateway", "inclusiveGateway") and not execution.is_active:
        return None
    return f"leaf execution {execution_id} rests at {ai.activity_type} {ai.activity_id}"


class EngineMachine(RuleBasedStateMachine):
    """Two engine nodes on a fresh SQLite database; a few generated models; random commands.

    Commands go to the current node; `switch_node` makes the other one current, whose cached
    states may then be stale (it must notice). The test's own view of an instance is its replay.
    """

    # Engine options of every node (a subclass runs the same machine in another mode).
    engine_options: ClassVar[dict[str, object]] = {}

    def __init__(self) -> None:
        super().__init__()
        self._dir = tempfile.TemporaryDirectory(prefix="flowledger-props-")
        self.url = f"sqlite:///{Path(self._dir.name) / 'engine.db'}"
        self.clock = ControllableClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
        flowledger.engine.commands.bus.uuid7 = _sequential_ids()  # type: ignore[attr-defined]
        self.engine = self.node()  # the node commands go to
        self.other = self.node()  # another node on the same database
        self.views: dict[str, InstanceState] = {}  # replayed states, until the next change
        self.deployments = 0
        self.keys: list[str] = []
        self.instances: list[str] = []  # every instance started, in start order
        self.steps = 0
        self.touched: set[str] = set()  # instances whose state may have changed since the check
        self.written: set[str] = (
            set()
        )  # ... and those the current node wrote to (its cache is current)
        self.restarted_at = 0
        self.gone_tasks: list[str] = []  # ids of completed user tasks
        self.subjects: dict[str, list[str]] = {}  # data subject -> its instances

    # -- helpers ---------------------------------------------------------------------------

    def node(self) -> Engine:
        """A new engine process on the machine's database."""
        return Engine(self.url, clock=self.clock, **self.engine_options)  # type: ignore[arg-type]

    def live(self, pid: str) -> InstanceState:
        """The instance as its log says (replay: observing must not refresh a node's cache)."""
        state = self.views.get(pid)
        if state is None:
            state = self.views[pid] = self.engine.replay(pid)
        return state

    def changed(self) -> None:
        self.views.clear()

    def active(self) -> Iterator[tuple[str, InstanceState]]:
        for pid in self.instances:
            state = self.live(pid)
            if not state.ended:
                yield pid, state

    def head(self) -> int:
        with self.engine._db.read() as conn:
            return self.engine._store.head_position(conn)

    def command(self, pid: str | None, action: Callable[[], object], *, may_fail: bool) -> bool:
        """Run a command; a rejection must leave the log and the instance state untouched."""
        if pid is not None:
            self.touched.add(pid)
        before_head = self.head()
        try:
            action()
        except FlowledgerError:
            if not may_fail:
                raise
            assert self.head() == before_head, "a rejected command appended events"
            if pid is not None:
                cached = self.engine._repository.cache.get(pid)
                if cached is not None and cached.version == self.live(pid).version:
                    assert cached.state == self.live(pid), "a refused command changed the state"
            return False
        finally:
            self.changed()
        if pid is not None:
            self.written.add(pid)
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

    def jobs(self) -> list[tuple[str, str]]:
        return [(pid, job_id) for pid, s in self.active() for job_id in s.jobs]

    def waiting_receives(self) -> list[tuple[str, str]]:
        return [
            (pid, ai.execution_id)
            for pid, s in self.active()
            for ai in s.activity_instances.values()
            if ai.activity_type in TRIGGERABLE
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
    def start_instance(
        self, data: st.DataObject, start: dict[str, int], extra: dict[str, object]
    ) -> None:
        key = data.draw(st.sampled_from(self.keys), label="key")
        subject = data.draw(st.sampled_from((None, *SUBJECTS)), label="business key")
        personal: dict[str, object] = {}
        if data.draw(st.booleans(), label="personal data"):
            # sealed in the log: replay must agree with the live state before and after erasure
            value = data.draw(texts(max_size=6), label="personal value")
            personal["pii"] = TypedValue("String", value, {"personalData": True})
        instance = self.engine.start_process_instance(
            key, {**extra, **personal, **start}, business_key=subject
        )
        self.changed()
        self.subjects.setdefault(subject or instance.id, []).append(instance.id)
        self.instances.append(instance.id)
        self.touched.add(instance.id)
        self.written.add(instance.id)
        assert self.live(instance.id).ended == instance.ended

    # -- user tasks ------------------------------------------------------------------------

    @precondition(lambda self: self.open_tasks())
    @rule(data=st.data(), values=variables)
    def complete_task(self, data: st.DataObject, values: dict[str, object]) -> None:
        pid, task_id = data.draw(st.sampled_from(self.open_tasks()), label="task")
        self.command(pid, lambda: self.engine.complete_task(task_id, values), may_fail=False)
        assert task_id not in self.live(pid).tasks
        self.gone_tasks.append(task_id)

    @precondition(lambda self: self.open_tasks())
    @rule(
        data=st.data(),
        action=st.sampled_from(("claim", "unclaim", "set_assignee")),
        user=st.sampled_from((None, *USERS)),
    )
    def reassign_task(self, data: st.DataObject, action: str, user: str | None) -> None:
        pid, task_id = data.draw(st.sampled_from(self.open_tasks()), label="task")
        assignee = self.live(pid).tasks[task_id].assignee
        if action == "unclaim":
            self.command(pid, lambda: self.engine.task_service.unclaim(task_id), may_fail=False)
            expected = None
        elif action == "set_assignee":
            self.command(
                pid, lambda: self.engine.task_service.set_assignee(task_id, user), may_fail=False
            )
            expected = user
        else:
            claimer = user or USERS[0]
            allowed = assignee in (None, claimer)
            claimed = self.command(
                pid, lambda: self.engine.claim(task_id, claimer), may_fail=not allowed
            )
            assert claimed == allowed
            expected = claimer if claimed else assignee
        assert self.live(pid).tasks[task_id].assignee == expected

    # -- variables -------------------------------------------------------------------------

    @precondition(lambda self: any(True for _ in self.active()))
    @rule(
        data=st.data(),
        scope=st.sampled_from(("execution", "task", "remove")),
        values=variables,
        local=st.booleans(),
    )
    def set_variables(
        self, data: st.DataObject, scope: str, values: dict[str, object], local: bool
    ) -> None:
        """Set variables on an execution or a user task (globally or locally), or remove some."""
        pid, state = data.draw(st.sampled_from(list(self.active())), label="instance")
        engine = self.engine
        action: Callable[[], object]
        if scope == "task" and state.tasks:
            task_id = data.draw(st.sampled_from(list(state.tasks)), label="task")
            action = partial(engine.task_service.set_variables, task_id, values, local=local)
        else:
            execution_id = data.draw(st.sampled_from(list(state.executions)), label="execution")
            if scope == "remove":
                names = sorted({v.name for v in state.variables.values()} - {"x", "n"})
                action = partial(
                    engine.runtime_service.remove_variables, execution_id, names, local=local
                )
            else:
                action = partial(
                    engine.runtime_service.set_variables, execution_id, values, local=local
                )
        self.command(pid, action, may_fail=False)

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
        locked = self.engine.external_task_service.fetch_and_lock(
            worker, {TOPIC: lock_ms}, max_tasks
        )
        self.changed()
        self.touched.update(task.process_instance_id for task in locked)
        self.written.update(task.process_instance_id for task in locked)
        assert len(locked) == min(max_tasks, len(fetchable))
        for task in locked:
            assert task.id in fetchable
            ext = self.live(task.process_instance_id).external_tasks[task.id]
            assert ext.worker_id == worker
            assert task.worker_id == worker
            assert ext.lock_expiration is not None
            assert ext.lock_expiration - now == timedelta(milliseconds=lock_ms)

    @precondition(lambda self: self.external_tasks(locked=True))
    @rule(
        data=st.data(),
        outcome=st.sampled_from(("complete", "failure", "bpmnError", "extend", "unlock")),
        values=variables,
        retries=st.integers(min_value=0, max_value=2),
        retry_timeout=st.sampled_from((0, 1000, 60_000)),
        code=st.sampled_from((ERROR_CODE, "OTHER")),
    )
    def report_external_task(
        self,
        data: st.DataObject,
        outcome: str,
        values: dict[str, object],
        retries: int,
        retry_timeout: int,
        code: str,
    ) -> None:
        """A worker reports on a task it locked; another worker (sometimes) must be refused."""
        pid, ext_id = data.draw(st.sampled_from(self.external_tasks(locked=True)), label="ext")
        owner = self.live(pid).external_tasks[ext_id].worker_id
        assert owner is not None
        worker = data.draw(st.sampled_from([owner, owner, *WORKERS]), label="worker")
        engine = self.engine
        actions: dict[str, Callable[[], object]] = {
            "complete": lambda: engine.external_task_service.complete(ext_id, worker, values),
            "failure": lambda: engine.external_task_service.handle_failure(
                ext_id, worker, "boom", retries=retries, retry_timeout=retry_timeout
            ),
            "bpmnError": lambda: engine.external_task_service.handle_bpmn_error(
                ext_id, worker, code
            ),
            "extend": lambda: engine.external_task_service.extend_lock(
                ext_id, worker, retry_timeout or 1
            ),
            "unlock": lambda: engine.external_task_service.unlock(ext_id),
        }
        now = self.clock.now()
        lock = self.live(pid).external_tasks[ext_id].lock_expiration
        own = outcome == "unlock" or worker == owner
        if outcome == "extend":  # only an unexpired lock can be extended
            own = own and lock is not None and lock >= now
        done = self.command(pid, actions[outcome], may_fail=not own)
        assert done == own
        state = self.live(pid)
        if outcome in ("complete", "bpmnError"):
            assert (ext_id in state.external_tasks) != done
        elif outcome == "failure" and done:
            ext = state.external_tasks[ext_id]
            assert (ext.retries, ext.error_message) == (retries, "boom")
        elif outcome == "extend" and done:
            expected = now + timedelta(milliseconds=retry_timeout or 1)
            assert state.external_tasks[ext_id].lock_expiration == expected
        elif outcome == "unlock":
            ext = state.external_tasks[ext_id]
            assert (ext.worker_id, ext.lock_expiration) == (None, None)

    # -- receive tasks, deletion, refusals, time, restarts ----------------------------------

    @precondition(lambda self: self.waiting_receives())
    @rule(data=st.data(), values=variables)
    def trigger(self, data: st.DataObject, values: dict[str, object]) -> None:
        pid, execution_id = data.draw(st.sampled_from(self.waiting_receives()), label="receive")
        self.command(
            pid, lambda: self.engine.runtime_service.trigger(execution_id, values), may_fail=False
        )

    @rule(message=st.sampled_from(MESSAGES), all_=st.booleans(), values=variables)
    def correlate_message(self, message: str, all_: bool, values: dict[str, object]) -> None:
        """Correlate to every waiting catch event of the name (`all`), or to the only one: no
        match, or more than one without `all`, is refused and changes nothing."""
        waiting = [
            pid
            for pid, s in self.active()
            for sub in s.subscriptions.values()
            if sub.event_name == message
        ]
        self.touched.update(waiting)
        ok = self.command(
            None,
            lambda: self.engine.runtime_service.correlate_message(
                message, variables=values, all=all_
            ),
            may_fail=True,
        )
        assert ok == (len(waiting) == 1 or (all_ and len(waiting) > 0)), (message, waiting)
        if ok:
            self.written.update(waiting)

    @rule(signal=st.sampled_from(SIGNALS), values=variables)
    def broadcast_signal(self, signal: str, values: dict[str, object]) -> None:
        """A signal reaches every waiting catch event of its name (none is no error)."""
        waiting = [
            pid
            for pid, s in self.active()
            if any(sub.event_name == signal for sub in s.subscriptions.values())
        ]
        self.touched.update(waiting)
        self.command(
            None, lambda: self.engine.runtime_service.signal(signal, values), may_fail=False
        )
        self.written.update(waiting)

    @precondition(lambda self: any(True for _ in self.active()))
    @rule(data=st.data())
    def delete_instance(self, data: st.DataObject) -> None:
        pid, _state = data.draw(st.sampled_from(list(self.active())), label="instance")
        self.command(
            pid,
            lambda: self.engine.runtime_service.delete_process_instance(pid, "test"),
            may_fail=False,
        )
        state = self.live(pid)
        assert state.status == "EXTERNALLY_TERMINATED"
        assert not state.tasks and not state.external_tasks and not state.executions

    @precondition(lambda self: any(True for _ in self.active()))
    @rule(data=st.data(), annotation=st.none() | st.text(max_size=20))
    def modify_instance(self, data: st.DataObject, annotation: str | None) -> None:
        """An operator's repair: cancel what runs, start before or after any activity, or take
        any flow; a refusal (an ambiguous scope, a flow that cannot be taken) changes nothing."""
        pid, state = data.draw(st.sampled_from(list(self.active())), label="instance")
        streams = self.engine._parts.streams
        with self.engine._db.read_unchecked() as conn:
            model = streams.model(conn, state.definition_id)
        activities = sorted(model.activities)
        running = sorted(state.activity_instances)
        choices = [
            st.sampled_from(activities).map(
                lambda a: cmd.StartBeforeActivity(activity_id=a, variables={"moved": a})
            ),
            st.sampled_from(activities).map(lambda a: cmd.StartAfterActivity(activity_id=a)),
            st.sampled_from(sorted(model.flows)).map(
                lambda f: cmd.StartTransition(transition_id=f)
            ),
            st.sampled_from(activities).map(lambda a: cmd.CancelAllForActivity(activity_id=a)),
        ]
        if running:
            choices.append(
                st.sampled_from(running).map(
                    lambda ai: cmd.CancelActivityInstance(activity_instance_id=ai)
                )
            )
        instructions = data.draw(
            st.lists(st.one_of(choices), min_size=1, max_size=3), label="instructions"
        )
        done = self.command(
            pid,
            lambda: self.engine.runtime_service.modify_process_instance(
                pid, instructions, annotation=annotation, actor="operator"
            ),
            may_fail=True,
        )
        event("modification applied" if done else "modification refused")
        if done:
            # what it started or cancelled may have started or cancelled called instances
            self.touched.update(self.instances)

    @precondition(lambda self: any(True for _ in self.active()))
    @rule(data=st.data())
    def migrate_instance(self, data: st.DataObject) -> None:
        """An operator moves an instance to any deployed definition by a plan that maps the
        activities both share by id (each instruction updating its event trigger or not); a
        refusal (an activity with nowhere to go, a flow scope the move would add) changes
        nothing."""
        pid, state = data.draw(st.sampled_from(list(self.active())), label="instance")
        definitions = self.engine.repository_service.process_definitions()
        target = data.draw(st.sampled_from(sorted(d.id for d in definitions)), label="target")
        streams = self.engine._parts.streams
        with self.engine._db.read_unchecked() as conn:
            source_model = streams.model(conn, state.definition_id)
            target_model = streams.model(conn, target)
        shared = sorted(set(source_model.activities) & set(target_model.activities))
        instructions = tuple(
            MigrationInstruction(a, a, data.draw(st.booleans(), label=f"update {a}"))
            for a in shared
            if not a.endswith("#multiInstanceBody")
        )
        plan = MigrationPlan(state.definition_id, target, instructions)
        done = self.command(
            pid,
            lambda: self.engine.runtime_service.migrate_process_instances(
                plan, [pid], actor="operator"
            ),
            may_fail=True,
        )
        event("migration applied" if done else "migration refused")

    @precondition(lambda self: any(self.live(pid).ended for pid in self.instances))
    @rule(
        data=st.data(),
        initial=st.booleans(),
        without_business_key=st.booleans(),
    )
    def restart_instance(
        self, data: st.DataObject, initial: bool, without_business_key: bool
    ) -> None:
        """Restart an ended instance before any activity, with its last or initial variables
        read from the log; a refusal (its history deleted, an activity that cannot start)
        changes nothing."""
        ended = [pid for pid in self.instances if self.live(pid).ended]
        old = data.draw(st.sampled_from(ended), label="ended instance")
        state = self.live(old)
        with self.engine._db.read_unchecked() as conn:
            model = self.engine._parts.streams.model(conn, state.definition_id)
        activity = data.draw(st.sampled_from(sorted(model.activities)), label="activity")
        started: list[str] = []

        def restart() -> None:
            started.extend(
                self.engine.runtime_service.restart_process_instances(
                    state.definition_id,
                    [old],
                    [cmd.StartBeforeActivity(activity_id=activity)],
                    initial_variables=initial,
                    without_business_key=without_business_key,
                    actor="operator",
                )
            )

        if self.command(None, restart, may_fail=True):
            for pid in started:
                self.instances.append(pid)
                self.touched.add(pid)
                self.written.add(pid)
                # its sealed values are the ended instance's: its data subject's
                subject = next((s for s, ids in self.subjects.items() if old in ids), old)
                self.subjects.setdefault(subject, []).append(pid)
            self.touched.update(self.instances)

    @precondition(lambda self: self.instances)
    @rule(
        data=st.data(),
        kind=st.sampled_from(("invalid value", "not a receive task", "ended", "stale task")),
        name=st.sampled_from(("s", "x")),
        value=invalid_values,
    )
    def refused_command(self, data: st.DataObject, kind: str, name: str, value: object) -> None:
        """Commands the engine must refuse, writing nothing but their command log row."""
        pid = data.draw(st.sampled_from(self.instances), label="instance")
        state = self.live(pid)
        engine = self.engine
        action: Callable[[], object]
        if kind == "invalid value" and not state.ended:
            action = partial(engine.runtime_service.set_variables, pid, {name: value})
        elif kind == "not a receive task" and not state.ended:
            waiting = {e for p, e in self.waiting_receives() if p == pid}
            others = [e for e in state.executions if e not in waiting]
            if not others:
                return
            execution_id = data.draw(st.sampled_from(others), label="execution")
            action = partial(engine.runtime_service.trigger, execution_id)
        elif kind == "stale task" and self.gone_tasks:
            task_id = data.draw(st.sampled_from(self.gone_tasks), label="task")
            action = partial(engine.complete_task, task_id)
        elif state.ended:
            action = partial(engine.runtime_service.set_variables, pid, {"s": 1})
        else:
            return
        assert not self.command(pid, action, may_fail=True), f"{kind}: not refused"

    @precondition(lambda self: self.subjects)
    @rule(data=st.data())
    def erase_subject(self, data: st.DataObject) -> None:
        subject = data.draw(st.sampled_from(sorted(self.subjects)), label="subject")
        try:
            done = self.engine.personal_data_service.erase(subject, "property test")
        except NotFound:
            return  # none of its values was personal
        self.changed()
        self.touched.update(done.process_instance_ids)
        self.written.update(done.process_instance_ids)
        for pid in done.process_instance_ids:
            assert not any(
                v.value.type == "string" and v.name == "pii"
                for v in self.live(pid).variables.values()
            ), f"{pid}: a personal value is still readable after the erasure"

    @rule(milliseconds=st.sampled_from((1, 999, 1000, 60_000, 3_600_000)))
    def advance_clock(self, milliseconds: int) -> None:
        self.clock.advance(milliseconds=milliseconds)

    @precondition(lambda self: self.jobs())
    @rule(data=st.data())
    def execute_job(self, data: st.DataObject) -> None:
        """A job runs now, due or not (an operator's executeJob)."""
        pid, job_id = data.draw(st.sampled_from(self.jobs()), label="job")
        self.command(
            pid, lambda: self.engine.management_service.execute_job(job_id), may_fail=False
        )

    @rule()
    def run_due_jobs(self) -> None:
        """The due jobs run, as the job executor would run them."""
        self.touched.update(self.instances)
        try:
            self.engine.run_due_jobs()
        finally:
            self.changed()

    @rule(restart=st.booleans())
    def reload(self, restart: bool) -> None:
        """Forget cached states (the next command loads snapshot + tail), or even start a new
        engine process on the same database (models and states then come from the log)."""
        if restart and self.steps - self.restarted_at >= RESTART_AFTER:
            self.engine.close()
            self.engine = self.node()
            self.restarted_at = self.steps
        else:
            self.engine._repository.cache.clear()
        self.touched.update(self.instances)

    @rule()
    def switch_node(self) -> None:
        """Further commands go to the other node, whose cache may be behind the log."""
        self.engine, self.other = self.other, self.engine

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def log_state_and_tables_agree(self) -> None:
        self.steps += 1
        engine = self.engine
        touched, self.touched = self.touched, set()
        written, self.written = self.written, set()
        self.changed()
        for pid in self.instances:
            if pid not in touched:
                continue
            replayed = self.live(pid)
            cached = engine._repository.cache.get(pid)
            if cached is None:  # evicted, or a refused command dropped it: load as a command would
                with engine._db.read() as conn:
                    cached = engine._repository.load(conn, pid)
                assert cached is not None, f"instance {pid} cannot be loaded"
            if pid in written:
                assert cached.version == replayed.version, f"{pid}: the writer's cache is behind"
            # A node's cache may lag behind what the other node wrote; when current, it agrees.
            for node_cache in (cached, self.other._repository.cache.get(pid)):
                if node_cache is not None and node_cache.version == replayed.version:
                    assert node_cache.state == replayed, f"{pid}: replay differs from live state"
            with engine._db.read() as conn:
                snapshot = engine._store.load_snapshot(conn, pid, STATE_SCHEMA)
                if snapshot is not None:
                    tail: InstanceState | None = decode_state(snapshot.state)
                    for commit in engine._store.read_stream(
                        conn, pid, after_version=snapshot.version
                    ):
                        for event in engine._codec.decode(commit.events):
                            tail = evolve(tail, event)
                    assert tail == replayed, f"instance {pid}: snapshot + tail differs"
            self._check_instance(pid, replayed)
        if self.steps % VERIFY_EVERY == 0:
            self.verify()

    def _check_instance(self, pid: str, state: InstanceState) -> None:
        """The projected runtime rows say what the state says; the trees are well formed; every
        token rests at a wait state."""
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
            for x in engine.external_task_service.external_tasks(process_instance_id=pid)
        }
        assert externals == {
            (x.id, x.activity_id, x.worker_id, x.retries) for x in state.external_tasks.values()
        }, f"instance {pid}: external tasks differ from the live state"
        assert {e.id for e in engine.runtime_service.executions(pid)} == set(state.executions)
        if state.ended:
            return
        for ai in state.activity_instances.values():
            assert ai.execution_id in state.executions, f"{ai.id} belongs to no execution"
            assert ai.parent_id == pid or ai.parent_id in state.activity_instances, (
                f"{ai.id}: parent activity instance {ai.parent_id} is not open"
            )
        for execution in state.executions.values():
            for child in execution.children:
                assert state.executions[child].parent_id == execution.id, f"bad tree at {child}"
            if execution.parent_id is None:
                assert execution.id == pid, f"{execution.id} is a second root execution"
            else:
                assert execution.id in state.executions[execution.parent_id].children
        leaves = [e.id for e in state.executions.values() if not e.children]
        assert leaves, f"active instance {pid} has no execution"
        for leaf in leaves:
            problem = _leaf_at_wait_state(state, leaf)
            assert problem is None, f"instance {pid}: {problem}"

    def verify(self, *nodes: Engine) -> None:
        # verify() also drops a node's stale cache entries: only the current node's, while
        # running, so that the other node can still be caught out by its stale ones.
        for node in nodes or (self.engine,):
            report = node.verify()
            assert report.problems == [], "\n".join(report.problems[:10])

    def teardown(self) -> None:
        try:
            self.verify(self.engine, self.other)
        finally:
            self.engine.close()
            self.other.close()
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
    """Snapshots every few events; the engine's id generator is put back after the test (each
    machine swaps in its own deterministic one)."""
    monkeypatch.setattr(flowledger.engine.storage.streams, "SNAPSHOT_EVERY", SNAPSHOT_EVERY)
    monkeypatch.setattr(flowledger.engine.commands.bus, "uuid7", flowledger.core.ids.uuid7)


def test_engine_state_machine(patched_engine: None) -> None:
    run_state_machine_as_test(EngineMachine, settings=FAST)


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("FLOWLEDGER_SLOW") != "1", reason="set FLOWLEDGER_SLOW=1 for the heavy run"
)
def test_engine_state_machine_heavy(patched_engine: None) -> None:
    run_state_machine_as_test(EngineMachine, settings=SLOW)


# -- the generator itself ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_engine() -> Iterator[Engine]:
    with Engine("sqlite://", clock=ControllableClock()) as engine:
        yield engine


@settings(max_examples=60, deadline=None)
@given(model=models(), start=start_variables())
def test_generated_models_deploy_and_start(
    shared_engine: Engine, model: Model, start: dict[str, int]
) -> None:
    deployment = shared_engine.deploy(model.to_xml())
    [definition] = deployment.process_definitions
    instance = shared_engine.start_process_instance(definition_id=definition.id, variables=start)
    state = shared_engine.replay(instance.id)
    assert state.status in ("ACTIVE", "COMPLETED")
    nodes = shared_engine._repository.models[definition.id].activities.values()
    counted = [
        a
        for a in nodes
        if not a.type.endswith(("startEvent", "EndEvent", "StartEvent", "multiInstanceBody"))
    ]
    # the budget, and the event subprocess beside it (itself and its task)
    assert len(counted) <= MAX_ACTIVITIES + 2


# -- regressions: minimal examples found by the state machine -----------------------------------

RECEIVE_ONLY = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    id="Definitions_1" targetNamespace="http://flowledger.test/properties">
  <bpmn:process id="proc0" isExecutable="true">
    <bpmn:startEvent id="Start_1" />
    <bpmn:sequenceFlow id="Flow_1" sourceRef="Start_1" targetRef="ReceiveTask_1" />
    <bpmn:receiveTask id="ReceiveTask_1" />
    <bpmn:sequenceFlow id="Flow_2" sourceRef="ReceiveTask_1" targetRef="End_1" />
    <bpmn:endEvent id="End_1" />
  </bpmn:process>
</bpmn:definitions>
"""

DOUBLING_SCRIPT = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
    id="Definitions_1" targetNamespace="http://flowledger.test/properties">
  <bpmn:process id="proc0" isExecutable="true">
    <bpmn:startEvent id="Start_1" />
    <bpmn:sequenceFlow id="Flow_1" sourceRef="Start_1" targetRef="ScriptTask_1" />
    <bpmn:scriptTask id="ScriptTask_1" scriptFormat="juel" camunda:resultVariable="r">
      <bpmn:script>${n * 2}</bpmn:script>
    </bpmn:scriptTask>
    <bpmn:sequenceFlow id="Flow_2" sourceRef="ScriptTask_1" targetRef="ReceiveTask_1" />
    <bpmn:receiveTask id="ReceiveTask_1" />
    <bpmn:sequenceFlow id="Flow_3" sourceRef="ReceiveTask_1" targetRef="End_1" />
    <bpmn:endEvent id="End_1" />
  </bpmn:process>
</bpmn:definitions>
"""

LONG_BEFORE_EXTERNAL = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
    id="Definitions_1" targetNamespace="http://flowledger.test/properties">
  <bpmn:process id="proc0" isExecutable="true">
    <bpmn:startEvent id="Start_1" />
    <bpmn:sequenceFlow id="Flow_1" sourceRef="Start_1" targetRef="ServiceTask_1" />
    <bpmn:serviceTask id="ServiceTask_1"
        camunda:expression="${execution.setVariable('n', n + 1)}" />
    <bpmn:sequenceFlow id="Flow_2" sourceRef="ServiceTask_1" targetRef="ExternalTask_1" />
    <bpmn:serviceTask id="ExternalTask_1" camunda:type="external" camunda:topic="t1" />
    <bpmn:sequenceFlow id="Flow_3" sourceRef="ExternalTask_1" targetRef="End_1" />
    <bpmn:endEvent id="End_1" />
  </bpmn:process>
</bpmn:definitions>
"""


@pytest.fixture
def fresh_engine(tmp_path: Path) -> Iterator[Engine]:
    clock = ControllableClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    with Engine(f"sqlite:///{tmp_path / 'engine.db'}", clock=clock) as engine:
        yield engine


def test_fetch_and_lock_with_a_long_variable(fresh_engine: Engine) -> None:
    """`n + 1` makes n a Long; fetch-and-lock returns it among the task's variables (this used
    to fail with TypeError while writing the command log)."""
    fresh_engine.deploy(LONG_BEFORE_EXTERNAL)
    pid = fresh_engine.start_process_instance("proc0", {"x": 3, "n": 0}).id
    [task] = fresh_engine.external_task_service.fetch_and_lock("w1", {TOPIC: 1000}, 2)
    assert task.variables == {"x": 3, "n": 1}
    fresh_engine.external_task_service.complete(task.id, "w1")
    assert fresh_engine.replay(pid).status == "COMPLETED"
    assert fresh_engine.verify().problems == []


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")], ids=repr)
def test_non_finite_double_survives_replay(fresh_engine: Engine, value: float) -> None:
    """inf/nan used to be accepted and then written to the log as null: replay, the rebuilt
    tables and the live state disagreed. Refusing the value is fine; losing it is not."""
    fresh_engine.deploy(RECEIVE_ONLY)
    pid = fresh_engine.start_process_instance("proc0").id
    with contextlib.suppress(FlowledgerError):  # refusing the value would be fine too
        fresh_engine.runtime_service.set_variables(pid, {"d": value})
    live = fresh_engine._repository.cache.get(pid)
    if live is not None:  # compared as bytes: nan != nan
        assert encode_state(fresh_engine.replay(pid)) == encode_state(live.state)
    assert fresh_engine.verify().problems == []


def test_infinite_script_result_survives_replay(fresh_engine: Engine) -> None:
    """The same through a model: a JUEL script overflowing to Infinity (n * 2, n = 1e308)."""
    fresh_engine.deploy(DOUBLING_SCRIPT)
    with contextlib.suppress(FlowledgerError):  # refusing to start would be fine too
        pid = fresh_engine.start_process_instance("proc0", {"n": 1e308}).id
        assert fresh_engine.replay(pid) == fresh_engine._repository.cache[pid].state
    assert fresh_engine.verify().problems == []


TWO_USER_TASKS = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    id="Definitions_1" targetNamespace="http://flowledger.test/properties">
  <bpmn:process id="proc0" isExecutable="true">
    <bpmn:startEvent id="Start_1" />
    <bpmn:sequenceFlow id="Flow_1" sourceRef="Start_1" targetRef="UserTask_1" />
    <bpmn:userTask id="UserTask_1" />
    <bpmn:sequenceFlow id="Flow_2" sourceRef="UserTask_1" targetRef="UserTask_2" />
    <bpmn:userTask id="UserTask_2" />
    <bpmn:sequenceFlow id="Flow_3" sourceRef="UserTask_2" targetRef="End_1" />
    <bpmn:endEvent id="End_1" />
  </bpmn:process>
</bpmn:definitions>
"""

RECEIVE_THEN_EXTERNAL = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
    id="Definitions_1" targetNamespace="http://flowledger.test/properties">
  <bpmn:process id="proc0" isExecutable="true">
    <bpmn:startEvent id="Start_1" />
    <bpmn:sequenceFlow id="Flow_1" sourceRef="Start_1" targetRef="ReceiveTask_1" />
    <bpmn:receiveTask id="ReceiveTask_1" />
    <bpmn:sequenceFlow id="Flow_2" sourceRef="ReceiveTask_1" targetRef="ExternalTask_1" />
    <bpmn:serviceTask id="ExternalTask_1" camunda:type="external" camunda:topic="t1" />
    <bpmn:sequenceFlow id="Flow_3" sourceRef="ExternalTask_1" targetRef="End_1" />
    <bpmn:endEvent id="End_1" />
  </bpmn:process>
</bpmn:definitions>
"""


@pytest.fixture
def two_nodes(tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    """Two engines on one database, like two nodes of a cluster."""
    clock = ControllableClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    url = f"sqlite:///{tmp_path / 'engine.db'}"
    with Engine(url, clock=clock) as a, Engine(url, clock=clock) as b:
        yield a, b


def test_a_second_node_completes_a_task_the_first_created(two_nodes: tuple[Engine, Engine]) -> None:
    """Node B used to decide on its stale cached state: no event, so no concurrency conflict,
    and the task node A created was refused as NotFound."""
    a, b = two_nodes
    a.deploy(TWO_USER_TASKS)
    pid = a.start_process_instance("proc0").id
    [first] = a.tasks(process_instance_id=pid)
    b.claim(first.id, "alice")  # node B caches the instance
    a.complete_task(first.id)  # node A moves it on: B's cache is stale
    [second] = b.tasks(process_instance_id=pid)
    b.complete_task(second.id)
    assert a.replay(pid).status == "COMPLETED"


def test_a_second_node_fetches_a_task_the_first_created(two_nodes: tuple[Engine, Engine]) -> None:
    """Node B used to skip the task in fetch-and-lock for good: its stale cached state had no
    such task, nothing was appended, so the stale entry was never dropped."""
    a, b = two_nodes
    a.deploy(RECEIVE_THEN_EXTERNAL)
    pid = a.start_process_instance("proc0").id
    b.runtime_service.set_variables(pid, {"s": 1})  # node B caches the instance
    a.runtime_service.trigger(pid)  # node A moves it on to the external task: B's cache is stale
    assert len(b.external_task_service.external_tasks(process_instance_id=pid)) == 1
    assert len(b.external_task_service.fetch_and_lock("w1", {TOPIC: 1000}, 1)) == 1
