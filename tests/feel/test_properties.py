"""Property tests: intervals and `between` agree with Python's own comparisons, and no text
(however malformed) escapes as anything but a FEEL error."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from flowledger.core.feel import (
    FeelEvaluationError,
    FeelSyntaxError,
    parse_expression,
    parse_unary_tests,
)

numbers = st.one_of(
    st.integers(min_value=-(10**6), max_value=10**6),
    st.decimals(min_value=-1000, max_value=1000, places=3, allow_nan=False, allow_infinity=False),
)


def _text(value: int | Decimal) -> str:
    return str(value) if isinstance(value, int) else format(value, "f")


@settings(max_examples=300, deadline=None)
@given(
    x=numbers,
    a=numbers,
    b=numbers,
    start_closed=st.booleans(),
    end_closed=st.booleans(),
    dmn13_brackets=st.booleans(),
)
def test_interval_matches_iff_python_comparison_holds(
    x: int | Decimal,
    a: int | Decimal,
    b: int | Decimal,
    start_closed: bool,
    end_closed: bool,
    dmn13_brackets: bool,
) -> None:
    # DMN 1.3 spells an open end as an outward bracket: ]a..b[ as well as (a..b).
    opening = "[" if start_closed else ("]" if dmn13_brackets else "(")
    closing = "]" if end_closed else ("[" if dmn13_brackets else ")")
    text = f"{opening}{_text(a)}..{_text(b)}{closing}"
    above = a <= x if start_closed else a < x
    below = x <= b if end_closed else x < b
    assert parse_unary_tests(text).matches(x, {}) is (above and below)


@settings(max_examples=300, deadline=None)
@given(x=numbers, a=numbers, b=numbers)
def test_between_equals_chained_comparison(
    x: int | Decimal, a: int | Decimal, b: int | Decimal
) -> None:
    result = parse_expression("x between a and b").evaluate({"x": x, "a": a, "b": b})
    assert result is (a <= x <= b)


_FEELISH = st.text(alphabet='0123456789abxy ?.,:()[]{}<>=!+-*/"@`\\nota', max_size=40)


@settings(max_examples=400, deadline=None)
@given(text=_FEELISH)
def test_malformed_text_only_ever_raises_feel_errors(text: str) -> None:
    for parse in (parse_expression, parse_unary_tests):
        try:
            parsed = parse(text)
        except FeelSyntaxError as error:
            assert 0 <= error.position <= len(text)
            continue
        try:
            if hasattr(parsed, "evaluate"):
                parsed.evaluate({"x": 1, "a": [1, 2], "b": {"c": 3}})
            else:
                parsed.matches(1, {"x": 1})
        except FeelEvaluationError:
            pass
