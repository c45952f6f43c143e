"""The one budget every evaluation of a command shares: steps, and a deadline in time.

Pure: the deadline reads a monotonic clock the engine hands in when it opens the budget (never
the wall clock, never recorded); with no budget open, evaluations count steps against a budget
of their own. A command that runs out fails with `BudgetExceeded`, naming the limit: what it
had decided is not committed, and a job that runs out fails into its retries as any failure.
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
    "opened",
    "spend",
]

COMMAND_SECONDS = 1.0  # what every expression, script and delegate of one command may take
COMMAND_STEPS = 5_000_000  # evaluation steps of one command (the deadline usually comes first)
_CLOCK_EVERY = 4096  # steps between two looks at the clock: a look costs more than a step


class BudgetExceeded(ProcessEngineError):
    """A command's evaluations ran past its budget of steps or time."""

    def __init__(self, what: str, limit: str) -> None:
        self.what = what
        self.limit = limit
        super().__init__(
            f"{what} exceeded the command's budget of {limit} (every expression, script and "
            "delegate of one command shares it; `Engine(command_budget_seconds=...)` / "
            "`serve --command-budget` changes it)"
        )


class CommandBudget:
    """Steps and time left to one command. `spend(n)` is cheap: it counts, and looks at the
    clock only every few thousand steps."""

    __slots__ = ("_clock", "_deadline", "_next_look", "seconds", "steps", "used")

    def __init__(
        self,
        seconds: float = COMMAND_SECONDS,
        steps: int = COMMAND_STEPS,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.seconds = seconds
        self.steps = steps
        self.used = 0
        self._clock = clock
        self._deadline = clock() + seconds if clock is not None else None
        self._next_look = _CLOCK_EVERY

    def spend(self, steps: int = 1, what: str = "evaluation") -> None:
        self.used += steps
        if self.used > self.steps:
            raise BudgetExceeded(what, f"{self.steps:,} steps")
        if self.used >= self._next_look:
            self._next_look = self.used + _CLOCK_EVERY
            self.check_time(what)

    def check_time(self, what: str = "evaluation") -> None:
        """Raise when the deadline passed (for steps that are not counted, such as a call)."""
        if self._deadline is not None and self._clock is not None:
            if self._clock() > self._deadline:
                raise BudgetExceeded(what, f"{self.seconds:g} s")

    def remaining_seconds(self) -> float | None:
        if self._deadline is None or self._clock is None:
            return None
        return max(0.0, self._deadline - self._clock())


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


def spend(steps: int = 1, what: str = "evaluation") -> None:
    """Spend from the command's budget, when one is open."""
    budget = _current.get()
    if budget is not None:
        budget.spend(steps, what)
