"""The one budget every evaluation of a command shares: steps, and time spent evaluating.

What counts is the time a command spends in its expressions, scripts and delegates, summed, not
the time the whole command takes: ten thousand cheap evaluations of a large multi-instance start
spend little, one runaway expression or five slow delegates spend it all. Evaluations are
bracketed by `evaluating()` (the outermost bracket times; nested ones only count steps), and
counted steps look at the clock every few thousand steps, so a loop inside one evaluation is
stopped while it runs.

Pure: the time is read from a monotonic clock the engine hands in when it opens the budget
(never the wall clock, never recorded); with no budget open, evaluations count steps against a
budget of their own. A command that runs out fails with `BudgetExceeded`, naming the limit:
what it had decided is not committed, and a job that runs out fails into its retries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import ProcessEngineError

__all__ = [
    "COMMAND_SECONDS",
    "COMMAND_STEPS",
    "BudgetExceeded",
    "CommandBudget",
    "current_budget",
    "evaluating",
    "opened",
    "spend",
]

COMMAND_SECONDS = 1.0  # what the expressions, scripts and delegates of one command may take
COMMAND_STEPS = 5_000_000  # evaluation steps of one command (the deadline usually comes first)
_CLOCK_EVERY = 4096  # steps between two looks at the clock: a look costs more than a step


class BudgetExceeded(ProcessEngineError):
    """A command's evaluations ran past its budget of steps or time."""

    def __init__(self, what: str, limit: str) -> None:
        self.what = what
        self.limit = limit
        super().__init__(
            f"{what} exceeded the command's budget of {limit} (the expressions, scripts and "
            "delegates of one command share it; `Engine(command_budget_seconds=...)` or "
            "`flowledger serve --command-budget SECONDS` changes it)"
        )


class CommandBudget:
    """Steps and evaluation time left to one command. `spend(n)` is cheap: it counts, and
    looks at the clock only every few thousand steps."""

    __slots__ = (
        "_clock",
        "_depth",
        "_entered",
        "_next_look",
        "_on_exceeded",
        "seconds",
        "spent",
        "steps",
        "used",
    )

    def __init__(
        self,
        seconds: float = COMMAND_SECONDS,
        steps: int = COMMAND_STEPS,
        clock: Callable[[], float] | None = None,
        on_exceeded: Callable[[BudgetExceeded], None] | None = None,
    ) -> None:
        self.seconds = seconds
        self.steps = steps
        self.used = 0
        self.spent = 0.0  # seconds spent in evaluations that ended
        self._clock = clock
        self._depth = 0
        self._entered = 0.0
        self._next_look = _CLOCK_EVERY
        self._on_exceeded = on_exceeded  # the engine counts and logs every budget run out

    def _exceeded(self, what: str, limit: str) -> BudgetExceeded:
        error = BudgetExceeded(what, limit)
        if self._on_exceeded is not None:
            self._on_exceeded(error)
        return error

    def spend(self, steps: int = 1, what: str = "evaluation") -> None:
        self.used += steps
        if self.used > self.steps:
            raise self._exceeded(what, f"{self.steps:,} steps")
        if self.used >= self._next_look:
            self._next_look = self.used + _CLOCK_EVERY
            self.check_time(what)

    def enter(self) -> None:
        """An evaluation begins (the outermost one starts the clock)."""
        if self._depth == 0 and self._clock is not None:
            self._entered = self._clock()
        self._depth += 1

    def leave(self, what: str = "evaluation", *, check: bool = True) -> None:
        """An evaluation ended: its time is spent; past the budget, `what` is named."""
        self._depth -= 1
        if self._depth == 0 and self._clock is not None:
            self.spent += self._clock() - self._entered
            if check and self.spent > self.seconds:
                raise self._exceeded(what, f"{self.seconds:g} s")

    def elapsed(self) -> float:
        """Seconds spent evaluating so far, the running evaluation included."""
        if self._clock is None:
            return 0.0
        running = self._clock() - self._entered if self._depth else 0.0
        return self.spent + running

    def check_time(self, what: str = "evaluation") -> None:
        """Raise when the evaluations have spent the command's time."""
        if self._clock is not None and self.elapsed() > self.seconds:
            raise self._exceeded(what, f"{self.seconds:g} s")


_current: ContextVar[CommandBudget | None] = ContextVar("flowledger_budget", default=None)


def current_budget() -> CommandBudget | None:
    return _current.get()


@contextmanager
def opened(budget: CommandBudget) -> Iterator[CommandBudget]:
    """Make `budget` the one every evaluation in this thread spends from, until the block
    ends."""
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


@contextmanager
def evaluating(what: str) -> Iterator[None]:
    """Bracket one evaluation (an expression, a script, a delegate's call): its time is spent
    from the command's budget, and the command fails naming `what` once the budget is gone."""
    budget = _current.get()
    if budget is None:
        yield
        return
    budget.enter()
    try:
        yield
    except BaseException:
        budget.leave(what, check=False)
        raise
    budget.leave(what)


def spend(steps: int = 1, what: str = "evaluation") -> None:
    """Spend from the command's budget, when one is open."""
    budget = _current.get()
    if budget is not None:
        budget.spend(steps, what)
