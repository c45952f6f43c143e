"""Variables scale linearly: a command's work per variable does not grow with the instance's count.

Work is counted, not timed: the instance's variables dict counts every entry a scan walks, and a
command that sets, updates or hands over variables must walk no more on a big instance than on a
small one (a scan per variable made a start with 32k variables take 21 s).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from flowledger.core import decide, instance_start
from flowledger.core import events as ev
from flowledger.core import evolve as evolve_module
from flowledger.core.events import Event
from flowledger.core.model import ProcessModel
from flowledger.core.parser import parse_bpmn
from flowledger.core.scope import find_local, find_task_local, visible_variables
from flowledger.core.session import CommandContext, InstanceSession
from flowledger.core.state import InstanceState, Variable, copy_state, decode_state, encode_state
from flowledger.core.variables import from_stored, to_stored
from flowledger.engine import Engine
from flowledger.projections.changes import ChangeSet
from flowledger.projections.history import HistoryProjector
from flowledger.projections.runtime import RuntimeBatch
from tests.support import bpmn, open_task_names

SMALL, BIG = 20, 2_000
NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class CountingVariables(dict[str, Variable]):
    """The variables dict, counting every entry that an iteration over it yields."""

    walked = 0

    def _count(self, items: Iterator[Any]) -> Iterator[Any]:
        for item in items:
            CountingVariables.walked += 1
            yield item

    def __iter__(self) -> Iterator[str]:
        return self._count(super().__iter__())

    def values(self) -> Any:
        return self._count(iter(super().values()))

    def items(self) -> Any:
        return self._count(iter(super().items()))

    def keys(self) -> Any:
        return self._count(iter(super().keys()))


def _model(name: str, process_id: str) -> ProcessModel:
    parsed = parse_bpmn(bpmn(name).read_bytes(), name)
    return next(p for p in parsed.processes if p.id == process_id)


def _context() -> CommandContext:
    counter = itertools.count()
    return CommandContext(now=NOW, new_id=lambda: f"id-{next(counter):08d}")


def _projecting(state: InstanceState | None, model: ProcessModel) -> InstanceSession:
    """A session wired as the engine wires it: runtime and history projectors see each event."""
    batch, history, changes = RuntimeBatch(), HistoryProjector("full"), ChangeSet()

    def observe(event: Event, before: InstanceState | None) -> None:
        batch.observe(event, before)
        history.observe(event, before, changes)

    return InstanceSession(state, model, _context(), observe)


def _started(model: ProcessModel, variables: Mapping[str, Any]) -> InstanceState:
    session = _projecting(None, model)
    instance_start.start_instance(
        session,
        model,
        definition_id="def-1",
        definition_version=1,
        deployment_id="dep-1",
        business_key=None,
        variables=variables,
    )
    return session.state


def _walked_by(
    count: int, command: Callable[[InstanceSession, InstanceState], None]
) -> tuple[int, InstanceSession]:
    """Entries of the variables dict walked by `command` on an instance with `count` variables."""
    model = _model("rest_task_steps.bpmn", "restTaskSteps")
    state = _started(model, {f"v{i}": i for i in range(count)})
    state.variables = CountingVariables(state.variables)
    find_local(_projecting(state, model), state.id, "v0")  # the index exists from the start on
    CountingVariables.walked = 0
    session = _projecting(state, model)
    command(session, state)
    return CountingVariables.walked, session


def _set_new_and_existing(session: InstanceSession, state: InstanceState) -> None:
    decide.set_variables(session, state.id, {"v0": -1, "v1": -1, "fresh": 1, "other": 2})


def _set_local_on_the_task(session: InstanceSession, state: InstanceState) -> None:
    [task_id] = state.tasks
    decide.set_variables(session, "", {"note": "x", "v0": 7}, local=True, task_id=task_id)
    decide.set_variables(session, "", {"note": "y"}, local=True, task_id=task_id)


def _complete_the_task(session: InstanceSession, state: InstanceState) -> None:
    [task_id] = state.tasks
    decide.set_variables(session, "", {"note": "x"}, local=True, task_id=task_id)
    decide.complete_task(session, task_id, {"v0": 0, "approved": True})


@pytest.mark.parametrize(
    "command", [_set_new_and_existing, _set_local_on_the_task, _complete_the_task]
)
def test_a_command_walks_no_more_variables_on_a_big_instance_than_on_a_small_one(
    command: Callable[[InstanceSession, InstanceState], None],
) -> None:
    small, _ = _walked_by(SMALL, command)
    big, session = _walked_by(BIG, command)
    assert big == small, f"{big} variables walked with {BIG} variables, {small} with {SMALL}"
    assert [type(e).__name__ for e in session.events].count("VariableSet") >= 3


def test_a_start_walks_no_more_variables_on_a_big_instance_than_on_a_small_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = _model("rest_task_steps.bpmn", "restTaskSteps")
    original = evolve_module.start

    def counting_start(event: ev.ProcessInstanceStarted) -> InstanceState:
        state = original(event)
        state.variables = CountingVariables()
        return state

    monkeypatch.setattr(evolve_module, "start", counting_start)
    walked = {}
    for count in (SMALL, BIG):
        CountingVariables.walked = 0
        state = _started(model, {f"v{i}": i for i in range(count)})
        assert isinstance(state.variables, CountingVariables)
        assert len(state.variables) == count and state.tasks  # started, waiting in its task
        walked[count] = CountingVariables.walked
    assert walked[BIG] == walked[SMALL]


# -- the index answers exactly as the former scans did --------------------------------------


def _scanned_local(state: InstanceState, execution_id: str, name: str) -> Variable | None:
    """The first such variable in the dict: what the former scan answered."""
    for var in state.variables.values():
        if var.execution_id == execution_id and var.name == name and var.task_id is None:
            return var
    return None


def _scanned_visible(state: InstanceState, execution_id: str) -> list[tuple[str, Any]]:
    """The former scan of `visible_variables`: names in dict order, inner scopes first."""
    chain: list[str] = []
    current: str | None = execution_id
    while current is not None:
        chain.append(current)
        current = state.executions[current].parent_id
    rank = {scope: i for i, scope in enumerate(chain)}
    best: dict[str, tuple[int, Variable]] = {}
    for var in state.variables.values():
        if var.task_id is None and var.execution_id in rank:
            r = rank[var.execution_id]
            if var.name not in best or r < best[var.name][0]:
                best[var.name] = (r, var)
    return [(name, from_stored(v.value)) for name, (_r, v) in best.items()]


def _assert_answers_as_a_scan(state: InstanceState, model: ProcessModel) -> None:
    session = InstanceSession(state, model, _context())
    names = {v.name for v in state.variables.values()} | {"missing"}
    for execution_id in state.executions:
        for name in sorted(names):
            assert find_local(session, execution_id, name) is _scanned_local(
                state, execution_id, name
            )
        visible = visible_variables(session, execution_id)
        assert list(visible.items()) == _scanned_visible(state, execution_id)
    for task_id in state.tasks:
        for name in sorted(names):
            scanned = next(
                (v for v in state.variables.values() if v.task_id == task_id and v.name == name),
                None,
            )
            assert find_task_local(session, task_id, name) is scanned


def test_lookups_answer_as_a_scan_would_while_tokens_fork_and_join(engine: Engine) -> None:
    """Variables local to concurrent executions are folded into the instance's scope at the
    join (ExecutionReplaced) or removed with their token; task-local ones end with the task."""
    engine.deploy(bpmn("parallel_gateway_fork_join.bpmn"))
    model = _model("parallel_gateway_fork_join.bpmn", "parallelForkJoin")
    pi = engine.start_process_instance("parallelForkJoin", {"shared": 1, "amount": 5})
    tasks = engine.tasks(process_instance_id=pi.id)
    assert sorted(t.name or "" for t in tasks) == ["Bill", "Ship"]
    for task in tasks:
        engine.runtime_service.set_variables(
            task.execution_id, {"branch": task.name, "step": 2}, local=True
        )
        engine.task_service.set_variables(task.id, {"note": task.name, "amount": 9}, local=True)
        _assert_answers_as_a_scan(engine.replay(pi.id), model)
    for task in tasks:
        engine.complete_task(task.id, {"amount": 7})
        _assert_answers_as_a_scan(engine.replay(pi.id), model)
    assert open_task_names(engine, pi.id) == ["Archive"]
    assert engine.runtime_service.get_variables(pi.id)["amount"] == 7


def test_the_index_is_derived_never_stored_or_compared(engine: Engine) -> None:
    engine.deploy(bpmn("rest_task_steps.bpmn"))
    pi = engine.start_process_instance("restTaskSteps", {"a": 1, "b": 2})
    live = engine.replay(pi.id)
    model = _model("rest_task_steps.bpmn", "restTaskSteps")
    assert find_local(InstanceSession(live, model, _context()), pi.id, "a") is not None
    fresh = decode_state(encode_state(live))  # as a snapshot brings it back: no index yet
    assert fresh == live and encode_state(fresh) == encode_state(live)
    assert copy_state(live) == live
    _assert_answers_as_a_scan(fresh, model)


def test_a_folded_back_token_brings_its_variables_in_the_order_a_scan_finds_them() -> None:
    """A concurrent token's own `x` joins the instance's `x` (ExecutionReplaced): a lookup finds
    the older of the two first, as a scan of the variables did, and the other once it is gone."""
    model = _model("parallel_gateway_fork_join.bpmn", "parallelForkJoin")

    def var(vid: str, name: str, execution_id: str) -> ev.VariableSet:
        return ev.VariableSet(vid, name, execution_id, to_stored(name, vid), NOW, f"d-{vid}")

    state = evolve_module.fold(
        [
            ev.ProcessInstanceStarted(
                "pi", "def-1", "parallelForkJoin", 1, "dep-1", None, None, NOW
            ),
            ev.ExecutionCreated("c1", "pi", is_scope=False, is_concurrent=True),
            var("v1", "x", "c1"),  # the token's x is older than the instance's own
            var("v2", "x", "pi"),
            var("v3", "y", "c1"),
            var("v4", "z", "pi"),
        ]
    )
    assert state is not None
    session = InstanceSession(state, model, _context())
    assert find_local(session, "pi", "x") is state.variables["v2"]
    evolve_module.evolve(state, ev.ExecutionReplaced("c1", "pi"))
    _assert_answers_as_a_scan(state, model)
    assert find_local(session, "pi", "x") is state.variables["v1"]
    assert visible_variables(session, "pi") == {"x": "v1", "y": "v3", "z": "v4"}
    evolve_module.evolve(state, ev.VariableDeleted("v1", NOW))
    _assert_answers_as_a_scan(state, model)
    assert find_local(session, "pi", "x") is state.variables["v2"]
    assert list(visible_variables(session, "pi")) == ["x", "y", "z"]
