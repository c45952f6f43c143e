"""Every FEEL built-in, called with adversarial arguments, answers within its size and step
budget or is refused naming the limit.

The built-ins are walked from the table the parser and evaluator use, so a new one is covered
without touching this file. Sizes and steps are counted; no time is asserted (a watchdog thread
only catches a hang).
"""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowledger.core.budget import BudgetExceeded, CommandBudget, opened
from flowledger.core.feel import FeelEvaluationError
from flowledger.core.feel.builtins import BUILTINS, CLOCK_FUNCTIONS, Signature
from flowledger.core.feel.values import (
    MAX_LIST_LENGTH,
    MAX_STRING_LENGTH,
    FeelFunction,
    Range,
    YearsMonthsDuration,
)

HANG = 120.0  # seconds: only a hang reaches it
STEPS = 200_000  # the command's steps for one call here (the engine's is 5,000,000)
NOW = datetime(2026, 12, 5, 10, tzinfo=UTC)

_HUGE = "x" * (MAX_STRING_LENGTH - 1)
_GROWS = "ß" * (MAX_STRING_LENGTH // 2 + 1)  # upper case doubles it
_MANY = [Decimal(i) for i in range(MAX_LIST_LENGTH)]
_SAME = [_HUGE] * 1_000  # a thousand references to one big string: cheap to hold, not to print
_DEEP: list[object] = []
for _ in range(1_000):
    _DEEP = [_DEEP]


def _precedes(arguments: list[object]) -> object:
    left, right = arguments
    return isinstance(left, Decimal) and isinstance(right, Decimal) and left < right


ADVERSARIAL: list[object] = [
    None,
    True,
    "",
    "a",
    _HUGE,
    _GROWS,
    "İ" * 10,
    "(a|a)*$",
    "^(a+)+$",
    "(a)\\1",
    "x*",
    "$0$1$1$1$1$1$1$1$1$1",
    "smixq",
    "\\",
    Decimal(0),
    Decimal(-1),
    Decimal(3),
    Decimal("0.5"),
    Decimal(10**9),
    Decimal(-(10**9)),
    Decimal("1E+6000"),
    Decimal("-1E-6000"),
    _MANY,
    _SAME,
    _DEEP,
    [Decimal(1), "a", None],
    [[Decimal(1)] * 500] * 500,
    {"a": Decimal(1), "b": _HUGE},
    date(2026, 12, 5),
    datetime(2026, 12, 5, 10, tzinfo=UTC),
    time(10, 30),
    timedelta(days=10**6),
    YearsMonthsDuration(10**6),
    Range(Decimal(1), Decimal(10**9), True, True),
    FeelFunction(("a", "b"), _precedes),
]


def _size(value: object) -> tuple[int, int]:
    """The longest string and the longest list anywhere in ``value``."""
    longest_string = longest_list = 0
    pending: list[object] = [value]
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            longest_string = max(longest_string, len(item))
        elif isinstance(item, list | dict) and id(item) not in seen:
            seen.add(id(item))
            longest_list = max(longest_list, len(item))
            pending.extend(item.values() if isinstance(item, dict) else item)
    return longest_string, longest_list


def _call_watched(signature: Signature, arguments: tuple[object, ...]) -> object:
    outcome: list[object] = []

    def run() -> None:
        with opened(CommandBudget(steps=STEPS)) as budget:
            try:
                outcome.append(signature.function(*arguments))
            except Exception as error:  # judged below
                outcome.append(error)
            outcome.append(budget.used)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG)
    assert not worker.is_alive(), f"{signature} hung on {[_shown(a) for a in arguments]}"
    result, used = outcome
    assert isinstance(used, int) and used <= STEPS
    return result


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "..."


_SIGNATURES = [(name, s) for name, signatures in sorted(BUILTINS.items()) for s in signatures]


@pytest.mark.parametrize(
    ("name", "signature"), _SIGNATURES, ids=[f"{n}/{len(s.parameters)}" for n, s in _SIGNATURES]
)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_builtin_stays_within_its_budget_or_is_refused_naming_the_limit(
    name: str, signature: Signature, data: st.DataObject
) -> None:
    if name in CLOCK_FUNCTIONS:
        arguments: tuple[object, ...] = (NOW,)
    else:
        count = data.draw(
            st.integers(
                signature.required,
                len(signature.parameters) + (3 if signature.variadic else 0),
            ),
            label="count",
        )
        arguments = tuple(
            data.draw(st.sampled_from(ADVERSARIAL), label=f"argument {n}") for n in range(count)
        )
    result = _call_watched(signature, arguments)
    if isinstance(result, FeelEvaluationError):
        assert "refused" in str(result) or "does not support" in str(result), str(result)
        return
    if isinstance(result, BudgetExceeded):
        assert f"{STEPS:,} steps" in str(result)
        return
    if isinstance(result, BaseException):
        raise result
    longest_string, longest_list = _size(result)
    assert longest_string <= MAX_STRING_LENGTH, f"{name}: a string of {longest_string:,}"
    assert longest_list <= MAX_LIST_LENGTH, f"{name}: a list of {longest_list:,}"
