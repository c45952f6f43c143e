"""One budget for everything a command evaluates: expressions, scripts and delegates share it,
so five slow steps cannot add up to five times the limit; what counts is time spent evaluating,
not the size of the command.

Time here is a fake monotonic clock the delegates advance: nothing sleeps, nothing is timed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from flowledger import ControllableClock, Engine, JobFailure
from flowledger.core.budget import BudgetExceeded, CommandBudget, evaluating, opened
from flowledger.engine.commands import bus
from tests.core.test_jobs import chain, process


class FakeMonotonic:
    """A monotonic clock that moves when told, and by `tick` at every read."""

    def __init__(self, tick: float = 0.0) -> None:
        self.now = 1000.0
        self.tick = tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


@pytest.fixture
def monotonic(monkeypatch: pytest.MonkeyPatch) -> FakeMonotonic:
    fake = FakeMonotonic()
    monkeypatch.setattr(bus, "monotonic", fake)
    return fake


class Slow:
    """A delegate that takes `seconds` of the fake clock each time it runs."""

    def __init__(self, clock: FakeMonotonic, seconds: float) -> None:
        self.clock = clock
        self.seconds = seconds
        self.calls = 0

    def __call__(self, execution: Any) -> None:
        self.calls += 1
        self.clock.now += self.seconds


def five_slow_steps() -> str:
    steps = [
        f'<serviceTask id="step{i}" camunda:delegateExpression="${{slow}}"/>' for i in range(5)
    ]
    return process(chain(*steps, '<userTask id="after"/>'))


@pytest.fixture
def engine(db_url: str, clock: ControllableClock) -> Iterator[Engine]:
    with Engine(db_url, clock=clock) as e:
        yield e


def test_five_slow_delegates_share_one_budget(engine: Engine, monotonic: FakeMonotonic) -> None:
    """Each step takes 0.3 s, well within 1 s alone; the fourth brings the command to 1.2 s."""
    slow = Slow(monotonic, 0.3)
    engine.register_delegate("slow", slow)
    engine.deploy(five_slow_steps())
    with pytest.raises(BudgetExceeded) as exceeded:
        engine.start_process_instance("p")
    assert slow.calls == 4
    message = str(exceeded.value)
    assert "step3" in message or "slow" in message
    assert "budget of 1 s" in message and "command_budget_seconds" in message
    assert (
        engine.history_service.historic_process_instances() == []
    )  # nothing of the command was kept
    counted = engine.limits_health()["commandBudget"]
    assert counted["exceeded"] == 1 and "budget of 1 s" in counted["last"]


def test_the_budget_is_the_engines_setting(
    db_url: str, clock: ControllableClock, monotonic: FakeMonotonic
) -> None:
    slow = Slow(monotonic, 0.3)
    with Engine(db_url, clock=clock, command_budget_seconds=2.0) as roomy:
        roomy.register_delegate("slow", slow)
        roomy.deploy(five_slow_steps())
        pi = roomy.start_process_instance("p")
        assert [t.task_definition_key for t in roomy.tasks(process_instance_id=pi.id)] == ["after"]
    assert slow.calls == 5


def test_a_job_over_its_budget_fails_into_its_retries(
    engine: Engine, monotonic: FakeMonotonic
) -> None:
    slow = Slow(monotonic, 0.6)
    engine.register_delegate("slow", slow)
    async_steps = five_slow_steps().replace(
        '<serviceTask id="step0"', '<serviceTask id="step0" camunda:asyncBefore="true"'
    )
    engine.deploy(async_steps)
    pi = engine.start_process_instance("p")
    (job,) = engine.management_service.jobs(process_instance_id=pi.id)
    with pytest.raises(JobFailure, match="budget of 1 s"):
        engine.management_service.execute_job(job.id)
    (failed,) = engine.management_service.jobs(process_instance_id=pi.id)
    assert failed.retries == job.retries - 1
    assert failed.exception_message is not None and "budget" in failed.exception_message


def test_a_large_command_of_cheap_evaluations_is_not_refused(
    engine: Engine, monotonic: FakeMonotonic
) -> None:
    """Time outside evaluations (the token flow, the rows) is not the budget's: a start that
    evaluates 2,000 assignee expressions passes although the clock moves past the budget
    between them. Each read of the clock moves it 0.4 ms: every evaluation spends one tick
    (0.8 s in all), while from the command's first evaluation to its last the clock moves
    twice that, past the 1 s a budget of the command's whole time would allow."""
    monotonic.tick = 0.0004
    engine.deploy(
        process(
            chain(
                '<userTask id="each" camunda:assignee="${item}">'
                '<multiInstanceLoopCharacteristics camunda:collection="${items}" '
                'camunda:elementVariable="item"/></userTask>'
            )
        )
    )
    pi = engine.start_process_instance("p", {"items": [f"user{i}" for i in range(2000)]})
    assert len(engine.tasks(process_instance_id=pi.id)) == 2000


def test_only_time_spent_evaluating_counts() -> None:
    clock = FakeMonotonic()
    budget = CommandBudget(1.0, clock=clock)
    with opened(budget):
        for _ in range(3):
            with evaluating("a cheap expression"):
                clock.now += 0.2
            clock.now += 5.0  # outside any evaluation: the command's own work
        assert budget.elapsed() == pytest.approx(0.6)
        with (
            pytest.raises(BudgetExceeded, match="the last one exceeded"),
            evaluating("the last one"),
        ):
            with evaluating("nested: counted once"):
                clock.now += 0.3
            clock.now += 0.2


def test_a_loop_is_stopped_while_it_runs() -> None:
    """Counted steps look at the clock as they go: an evaluation that never returns on its own
    is stopped inside, not after."""
    clock = FakeMonotonic()
    budget = CommandBudget(1.0, clock=clock)
    with opened(budget), pytest.raises(BudgetExceeded, match="a loop"), evaluating("a loop"):
        for _ in range(1_000_000):
            clock.now += 0.0001
            budget.spend(1, "a loop")
    assert budget.used < 1_000_000


def test_steps_are_bounded_without_a_clock() -> None:
    budget = CommandBudget(1.0, steps=10_000)
    with opened(budget), pytest.raises(BudgetExceeded, match="10,000 steps"):
        for _ in range(20_000):
            budget.spend(1, "counting")


def test_an_expression_over_the_budget_is_named_by_its_element(
    engine: Engine, monotonic: FakeMonotonic
) -> None:
    class Bean:
        def run(self) -> int:
            monotonic.now += 2.0
            return 1

    engine.register_delegate("bean", Bean())
    engine.deploy(process(chain('<serviceTask id="compute" camunda:expression="${bean.run()}"/>')))
    with pytest.raises(BudgetExceeded, match="camunda:expression of 'compute'"):
        engine.start_process_instance("p")
