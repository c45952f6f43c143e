"""Adversarial JUEL: every method an expression may call on a value, chained, with hostile
arguments. Each evaluation ends with a value no larger than the size cap, or is refused with a
named limit or an ordinary evaluation error; what it builds is paid for in steps. Sizes and
steps are counted; the thread join timeout is only a watchdog against hangs."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowledger.core.budget import BudgetExceeded, CommandBudget, opened
from flowledger.core.expressions import (
    ExpressionEvaluationError,
    MappingContext,
    compile_expression,
)
from flowledger.core.expressions.bounds import CHARS_PER_STEP, MAX_STEPS, MAX_STRING, SHORT_TEXT
from flowledger.core.expressions.javamethods import VALUE_TYPES

WATCHDOG_SECONDS = 120  # only to catch a hang; never a performance assertion
COMMAND_STEPS = 50_000  # small, so that chains run out of it often

STRING_METHODS = sorted(next(row for row in VALUE_TYPES if row.name == "String").methods)
METHODS = [
    *sorted({name for row in VALUE_TYPES for name in row.methods}),
    "format",
    "strftime",
    "__class__",
    "mro",
    "fromtimestamp",
]

big_strings = st.builds(
    lambda piece, n: piece * n,
    st.sampled_from(["a", "ß", "", "ab", "aaaaaaaa"]),
    st.integers(0, 400_000),
)
others = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
    st.lists(st.integers(0, 3), max_size=5),
    st.dictionaries(st.text(max_size=2), st.integers(0, 3), max_size=3),
    st.sets(st.integers(0, 3), max_size=3),
    st.sampled_from(
        [
            datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))),
            datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-14))),
            datetime(2026, 12, 5, 10, tzinfo=UTC),
            datetime(2026, 12, 5, 10),
            date(1, 1, 1),
            Decimal("1E+999"),
            b"\x00\xff",
        ]
    ),
)
# Strings are what methods amplify: most receivers and arguments are strings.
values = st.one_of(big_strings, st.text(max_size=8), big_strings, others)

literals = st.one_of(
    st.sampled_from(
        ["''", "'a'", "'ß'", "'aaaaaaaaaaaaaaaa'", "null", "true", "0", "1", "-1", "1e300"]
    ),
    st.integers(-3, 2**62).map(str),
)
arguments = st.one_of(st.sampled_from(["a0", "a1", "a2", "r"]), literals)
ARITY = {
    name: (min_args, max_args)
    for row in VALUE_TYPES
    for name, (_, min_args, max_args) in row.methods.items()
}


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, list[str]]:
    # mostly String methods, so chains go on building strings instead of stopping at once
    name = draw(st.one_of(st.sampled_from(STRING_METHODS), st.sampled_from(METHODS)))
    low, high = ARITY.get(name, (0, 1))
    count = draw(st.integers(low, high))
    return name, draw(st.lists(arguments, min_size=count, max_size=count))


def _render(receiver: str, chain: list[tuple[str, list[str]]]) -> str:
    text = receiver
    for name, args in chain:
        text += f".{name}({', '.join(args)})" if name.isidentifier() else f"['{name}']()"
    return text


@st.composite
def expressions(draw: st.DrawFn) -> str:
    receiver = draw(st.sampled_from(["r", "a0", "'x'", "'ab'"]))
    # the amplifiers, often: replace('') inserts an argument between every two characters
    link = st.one_of(
        calls(),
        st.just(("replace", ["''", "a0"])),
        st.just(("concat", ["r"])),
        st.just(("contains", ["a1"])),
    )
    body = _render(receiver, draw(st.lists(link, min_size=1, max_size=7)))
    if draw(st.booleans()):
        other = _render("r", draw(st.lists(calls(), min_size=1, max_size=3)))
        return "${" + body + "}-${" + other + "}"
    return "${" + body + "}"


def _evaluate(text: str, variables: dict[str, object], in_command: bool) -> dict[str, Any]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        budget = CommandBudget(steps=COMMAND_STEPS) if in_command else None
        try:
            expression = compile_expression(text)
            if budget is not None:
                with opened(budget):
                    outcome["value"] = expression.evaluate(MappingContext(variables))
            else:
                outcome["value"] = expression.evaluate(MappingContext(variables))
        except (ExpressionEvaluationError, BudgetExceeded) as exc:
            outcome["refused"] = exc
        except BaseException as exc:  # anything else is a leak: reported below
            outcome["leaked"] = exc
        outcome["steps"] = budget.used if budget is not None else None

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(WATCHDOG_SECONDS)
    assert not worker.is_alive(), f"evaluation of {text} hung"
    return outcome


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=expressions(),
    receiver=values,
    args=st.lists(values, min_size=3, max_size=3),
    in_command=st.booleans(),
)
def test_adversarial_method_chains_stay_within_their_budgets(
    text: str, receiver: object, args: list[object], in_command: bool
) -> None:
    variables = {"r": receiver, "a0": args[0], "a1": args[1], "a2": args[2]}
    outcome = _evaluate(text, variables, in_command)
    assert "leaked" not in outcome, f"{text}: {outcome['leaked']!r}"
    if "refused" in outcome:
        message = str(outcome["refused"])
        assert text in message
        if "budget" in message:
            assert f"{COMMAND_STEPS:,} steps" in message or f"{MAX_STEPS:,} steps" in message
        if "would build" in message:
            assert f"{MAX_STRING:,}" in message
        return
    value = outcome["value"]
    if isinstance(value, str):
        assert len(value) <= MAX_STRING
        built = all(value is not v for v in variables.values())
        if outcome["steps"] is not None and built:
            # Whatever the expression built, it paid for: one step per CHARS_PER_STEP (a short
            # string is paid for by its node).
            assert outcome["steps"] >= (len(value) - SHORT_TEXT) // CHARS_PER_STEP


# Methods of a String that answer a String: chains of them can only grow or shrink text.
string_links = st.one_of(
    st.tuples(st.just("replace"), st.lists(arguments, min_size=2, max_size=2)),
    st.tuples(st.just("replace"), st.just(["''", "a0"])),
    st.tuples(st.just("concat"), st.lists(arguments, min_size=1, max_size=1)),
    st.tuples(st.sampled_from(["toUpperCase", "toLowerCase", "trim", "toString"]), st.just([])),
    st.tuples(st.just("substring"), st.just(["1"])),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    chain=st.lists(string_links, min_size=1, max_size=8),
    receiver=st.one_of(big_strings, st.text(max_size=8)),
    args=st.lists(st.one_of(big_strings, st.text(max_size=8)), min_size=3, max_size=3),
    in_command=st.booleans(),
)
def test_string_building_chains_are_capped_and_paid_for(
    chain: list[tuple[str, list[str]]], receiver: str, args: list[str], in_command: bool
) -> None:
    text = "${" + _render("r", chain) + "}"
    variables: dict[str, object] = {"r": receiver, "a0": args[0], "a1": args[1], "a2": args[2]}
    outcome = _evaluate(text, variables, in_command)
    assert "leaked" not in outcome, f"{text}: {outcome['leaked']!r}"
    if "refused" in outcome:
        message = str(outcome["refused"])
        named = (
            f"{MAX_STRING:,}" in message
            or f"{COMMAND_STEPS:,} steps" in message
            or f"{MAX_STEPS:,} steps" in message
            or "out of range" in message  # substring(1) of ''
            or "Cannot coerce" in message  # replace(true, ...) is no number, but 1e300 is
        )
        assert named, message
        return
    value = outcome["value"]
    assert isinstance(value, str)
    assert len(value) <= MAX_STRING
    if outcome["steps"] is not None and value is not receiver:
        assert outcome["steps"] >= (len(value) - SHORT_TEXT) // CHARS_PER_STEP
