"""Unary tests (decision-table input entries), as feel-scala evaluates them.

Expected results copied from camunda/feel-scala
src/test/scala/org/camunda/feel/impl/interpreter/InterpreterUnaryTest.scala, plus the
rules in feel-scala's documentation page "Unary-tests" (a test matches when it evaluates
to true, to a list containing the input, or to a value equal to the input).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal

import pytest

from flowledger.core.feel import YearsMonthsDuration, parse_unary_tests

PLUS_ONE = timezone(timedelta(hours=1))


def matches(text: str, value: object, variables: Mapping[str, object] | None = None) -> bool:
    return parse_unary_tests(text).matches(value, variables or {})


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("< 3", 2, True),
        ("< 3", 3, False),
        ("<= 3", 3, True),
        ("<= 3", 4, False),
        ("> 3", 3, False),
        ("> 3", 4, True),
        (">= 3", 3, True),
        (">= 3", 2, False),
        ("3", 3, True),
        ("3", 2, False),
        ("-1", -1, True),
        ("-1", 0, False),
        ("(2..4)", 2, False),
        ("(2..4)", 3, True),
        ("(2..4)", 4, False),
        ("[2..4]", 2, True),
        ("[2..4]", 4, True),
        ("]2..4[", 2, False),
        ("]2..4[", 3, True),
        ("]2..4]", 4, True),
        ("[2..4)", 4, False),
        ("[2..4[", 4, False),
        ("[1..5], [6..10]", 6, True),
        ("[1..5], [6..10]", 11, False),
        ("2,3", 3, True),
        ("2,3", 4, False),
        ("not(3)", 3, False),
        ("not(3)", 4, True),
        ("not(2,3)", 2, False),
        ("not(2,3)", 4, True),
        ("not(< 3)", 5, True),
        ("not([1..5])", 3, False),
        ("0.1 + 0.2", Decimal("0.3"), True),
        ("1.5", 1.5, True),
        (".5", 0.5, True),
    ],
)
def test_number_input(text: str, value: object, expected: bool) -> None:
    assert matches(text, value) is expected


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ('"b"', "b", True),
        ('"b"', "a", False),
        ('"a","b"', "b", True),
        ('"a","b"', "c", False),
        ('not("a","b")', "c", True),
        ('not("a","b")', "a", False),
        ('"a","b",< 3', 2, True),
        ('"a","b",< 3', 5, False),
        ('"gold"', "gold", True),
        ('"gold"', "Gold", False),
    ],
)
def test_string_input(text: str, value: object, expected: bool) -> None:
    assert matches(text, value) is expected


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("true", False, False),
        ("false", True, False),
        ("false", False, True),
        ("true", True, True),
        ("1 < 2", True, True),
        ("2 < 1", True, False),
        ('"a" = "a"', True, True),
        ("false and true", True, False),
        ("false or true", True, True),
    ],
)
def test_boolean_input(text: str, value: object, expected: bool) -> None:
    assert matches(text, value) is expected


def test_dash_and_empty_text_match_anything_including_null() -> None:
    for text in ("-", "", "   "):
        assert matches(text, None)
        assert matches(text, "x")
        assert matches(text, 17)


@pytest.mark.parametrize("text", ["3", "< 3", "> 3", "(0..10)", '"a"', "true", "false"])
def test_null_input_does_not_match_value_tests(text: str) -> None:
    assert matches(text, None) is False


def test_null_input_matches_null_and_tests_true_for_null() -> None:
    assert matches("null", None)
    assert not matches("null", 0)
    assert matches("? = null", None)
    assert matches("not(3)", None)  # null = 3 is false, so not(...) is true
    assert not matches("not(< 3)", None)  # null < 3 is unknown: no match either way


def test_variables_as_endpoints() -> None:
    assert matches("var", 3, {"var": 3})
    assert not matches("var", 2, {"var": 3})
    assert matches("< var", 2, {"var": 3})
    assert matches("a.b", 3, {"a": {"b": 3}})
    assert matches("< a.b", 3, {"a": {"b": 4}})
    assert matches("[low..high]", 5, {"low": 1, "high": 5})
    assert not matches("[low..high)", 5, {"low": 1, "high": 5})


def test_question_mark_refers_to_the_input() -> None:
    assert matches("? > 5", 6)
    assert not matches("? > 5", 5)
    assert matches('starts with(?, "A")', "Abc")
    assert not matches('starts with(?, "A")', "bcA")
    assert matches("? > 5 and ? < 10", 7)
    assert matches("odd(?)", 3)
    # A boolean input with a ?-expression: the expression's value decides.
    assert matches("? = false", False)
    assert not matches("? = true", False)


def test_expression_results_compared_with_the_input() -> None:
    assert matches("x + 1", 4, {"x": 3})
    assert not matches("x + 1", 5, {"x": 3})
    assert matches("[1, 2, 3]", 2)
    assert not matches("[1, 2, 3]", 4)
    assert matches("allowed", "b", {"allowed": ["a", "b"]})
    assert not matches("allowed", "c", {"allowed": ["a", "b"]})


@pytest.mark.parametrize(
    "text",
    ["< 10", "> 10", "[1..10]", "10", 'date("2020-01-01")', '< date("2020-01-01")'],
)
def test_type_mismatch_does_not_match_and_does_not_raise(text: str) -> None:
    assert matches(text, "5") is False
    assert matches(text, True) is False


def test_dates_times_and_durations() -> None:
    assert matches('< date("2015-09-18")', date(2015, 9, 17))
    assert not matches('< date("2015-09-18")', date(2015, 9, 18))
    assert matches('>= date("2020-01-01")', date(2020, 1, 1))
    assert matches('date("2015-09-18")', date(2015, 9, 18))
    assert matches('(date("2015-09-17")..date("2015-09-19"))', date(2015, 9, 18))
    assert not matches('(date("2015-09-17")..date("2015-09-19"))', date(2015, 9, 19))
    assert matches('< time("10:00:00")', time(8, 31, 14))
    assert matches('time("10:00:00+01:00")', time(10, tzinfo=PLUS_ONE))
    assert not matches('time("11:00:00+02:00")', time(10, tzinfo=PLUS_ONE))
    assert matches('[time("08:00:00")..time("10:00:00")]', time(9, 15, 20))
    assert matches('< date and time("2015-09-17T10:00:00")', datetime(2015, 9, 17, 8, 31, 14))
    assert matches(
        '< date and time("2015-09-17T12:00:00+01:00")',
        datetime(2015, 9, 17, 10, tzinfo=PLUS_ONE),
    )
    assert matches('< duration("P2Y")', YearsMonthsDuration(12))
    assert not matches('< duration("P1Y")', YearsMonthsDuration(14))
    assert matches('[duration("P1Y")..duration("P2Y")]', YearsMonthsDuration(20))
    assert matches('< duration("P2DT4H")', timedelta(days=1, hours=4))
    assert matches('duration("P2DT4H")', timedelta(days=2, hours=4))
    assert matches('@"2020-01-01"', date(2020, 1, 1))


def test_naive_and_aware_date_times_are_not_comparable() -> None:
    aware = datetime(2020, 1, 1, 10, tzinfo=PLUS_ONE)
    assert not matches('< date and time("2021-01-01T00:00:00")', aware)
    assert not matches('date and time("2020-01-01T10:00:00")', aware)


def test_every_kind_of_node_and_test_has_its_evaluation() -> None:
    """The evaluator dispatches by type from two tables: a node or test kind the parser can
    build but the tables lack would fail only when a model used it."""
    from flowledger.core.feel import evaluator, nodes

    kinds = [getattr(nodes, name) for name in nodes.__all__]
    tests = {k for k in kinds if issubclass(k, nodes.Test) and k is not nodes.Test}
    expressions = {k for k in kinds if not issubclass(k, nodes.Test) and k is not nodes.Node}
    assert tests == set(evaluator._TESTS)
    assert expressions <= set(evaluator._HANDLERS)
