"""FEEL expressions (input expressions, output entries, literal expressions).

Expected results follow DMN 1.3 §10.3.2 and camunda/feel-scala's interpreter tests
(src/test/scala/org/camunda/feel/impl/interpreter/InterpreterExpressionTest.scala,
InterpreterListExpressionTest.scala, InterpreterContextExpressionTest.scala,
InterpreterNumberExpressionTest.scala), with failures turned into null as Camunda 7 does.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from flowledger.core.feel import parse_expression


def evaluate(text: str, **variables: object) -> object:
    return parse_expression(text).evaluate(variables)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 1),
        ("-1", -1),
        (".5", Decimal("0.5")),
        ("1.50", Decimal("1.5")),
        ("2.0", 2),
        ('"abc"', "abc"),
        (r'"a\"b"', 'a"b'),
        (r'"line\nbreak"', "line\nbreak"),
        (r'"caf\u00e9"', "café"),
        ("true", True),
        ("false", False),
        ("null", None),
    ],
)
def test_literals(text: str, expected: object) -> None:
    result = evaluate(text)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.1 + 0.2", Decimal("0.3")),
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 / 4", Decimal("2.5")),
        ("10 / 5", 2),
        ("2 ** 10", 1024),
        ("7 - 10", -3),
        ("-x", -5),
        ("- (2 + 3)", -5),
        ("1 / 3", Decimal("0.3333333333333333333333333333333333")),
        ("x * 2", 10),
        ('"foo" + "bar"', "foobar"),
    ],
)
def test_arithmetic(text: str, expected: object) -> None:
    assert evaluate(text, x=5) == expected


@pytest.mark.parametrize(
    "text",
    ["1 + null", "null * 2", '1 + "a"', "1 / 0", "true + 1", '"a" - "b"', '-"a"', "x + 1"],
)
def test_arithmetic_with_null_or_mismatched_types_is_null(text: str) -> None:
    assert evaluate(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 = 1", True),
        ("1 = 2", False),
        ("1 != 2", True),
        ('"a" < "b"', True),
        ("2 <= 2", True),
        ("3 > 2", True),
        ("2 >= 3", False),
        ("null = null", True),
        ("1 = null", False),
        ("null != 1", True),
        ('1 = "1"', None),
        ('1 < "2"', None),
        ("null < 1", None),
        ("[1, 2] = [1, 2]", True),
        ("[1, 2] = [2, 1]", False),
        ("{a: 1} = {a: 1}", True),
        ("1.0 = 1", True),
    ],
)
def test_comparisons(text: str, expected: object) -> None:
    assert evaluate(text) is expected


@pytest.mark.parametrize(
    ("left", "right", "conjunction", "disjunction"),
    [
        ("true", "true", True, True),
        ("true", "false", False, True),
        ("false", "true", False, True),
        ("false", "false", False, False),
        ("true", "null", None, True),
        ("null", "true", None, True),
        ("false", "null", False, None),
        ("null", "false", False, None),
        ("null", "null", None, None),
        ("true", '"x"', None, True),
        ('"x"', "false", False, None),
    ],
)
def test_three_valued_logic(
    left: str, right: str, conjunction: object, disjunction: object
) -> None:
    assert evaluate(f"{left} and {right}") is conjunction
    assert evaluate(f"{left} or {right}") is disjunction


def test_not_function() -> None:
    assert evaluate("not(true)") is False
    assert evaluate("not(false)") is True
    assert evaluate("not(null)") is None
    assert evaluate("not(1)") is None
    assert evaluate("not(x > 3)", x=5) is False


def test_if_then_else() -> None:
    text = 'if x < 5 then "low" else "high"'
    assert evaluate(text, x=2) == "low"
    assert evaluate(text, x=7) == "high"
    # A non-true condition (null from the mismatch) takes the else branch.
    assert evaluate(text, x="foo") == "high"
    assert evaluate(text) == "high"
    assert evaluate("if true then 1 else if false then 2 else 3") == 1


def test_between() -> None:
    assert evaluate("x between 1 and 5", x=1) is True
    assert evaluate("x between 1 and 5", x=5) is True
    assert evaluate("x between 1 and 5", x=6) is False
    assert evaluate('"b" between "a" and "c"') is True
    assert evaluate("x between 1 and 5") is None
    assert evaluate("x between 1 + 1 and 5 and true", x=3) is True


def test_in() -> None:
    assert evaluate("x in [1..5]", x=5) is True
    assert evaluate("x in [1..5)", x=5) is False
    assert evaluate("x in (1..5]", x=1) is False
    assert evaluate("x in (1,2,3)", x=2) is True
    assert evaluate("x in (1,2,3)", x=4) is False
    assert evaluate("x in [1,2,3]", x=3) is True
    assert evaluate("x in < 5", x=4) is True
    assert evaluate("x in (< 5, > 10)", x=11) is True
    assert evaluate("x in (< 5, > 10)", x=7) is False
    assert evaluate('x in ("a", "b")', x="b") is True
    assert evaluate("x in [1..5] and x > 2", x=3) is True


def test_lists_and_indexes() -> None:
    assert evaluate("[1, 2, 3]") == [1, 2, 3]
    assert evaluate("[]") == []
    assert evaluate("[1, 2, 3][1]") == 1
    assert evaluate("[1, 2, 3][-1]") == 3
    assert evaluate("[1, 2, 3][4]") is None
    assert evaluate("[1, 2, 3][0]") is None
    assert evaluate("l[2]", l=["a", "b"]) == "b"


def test_filters() -> None:
    assert evaluate("[1, 2, 3, 4][item > 2]") == [3, 4]
    assert evaluate("[1, 2, 3, 4][item > 5]") == []
    people = [{"name": "a", "age": 30}, {"name": "b", "age": 15}]
    assert evaluate("people[age > 18]", people=people) == [{"name": "a", "age": 30}]
    assert evaluate("people[item.age < 18].name", people=people) == ["b"]
    assert evaluate("people[age > 18][1].name", people=people) == "a"
    assert evaluate("missing[item > 1]") is None


def test_contexts_and_paths() -> None:
    assert evaluate('{a: 1, "b c": 2}') == {"a": 1, "b c": 2}
    assert evaluate("{a: 1, b: a + 1}.b") == 2
    assert evaluate('{first name: "Ann"}.`first name`') == "Ann"
    assert evaluate("ctx.a.b", ctx={"a": {"b": 7}}) == 7
    assert evaluate("ctx.missing", ctx={"a": 1}) is None
    assert evaluate("[{a: 1}, {a: 2}].a") == [1, 2]
    assert evaluate("`my var` + 1", **{"my var": 1}) == 2


def test_iteration() -> None:
    assert evaluate("for x in [1, 2, 3] return x * 2") == [2, 4, 6]
    assert evaluate("for x in [1, 2], y in [10, 20] return x + y") == [11, 21, 12, 22]
    assert evaluate("for i in 1..3 return i") == [1, 2, 3]
    assert evaluate("for i in 3..1 return i") == [3, 2, 1]
    assert evaluate("for x in null return x") is None
    assert evaluate("some x in [1, 2, 3] satisfies x > 2") is True
    assert evaluate("some x in [1, 2, 3] satisfies x > 3") is False
    assert evaluate("every x in [1, 2, 3] satisfies x > 0") is True
    assert evaluate("every x in [1, 2, 3] satisfies x > 1") is False
    assert evaluate("every x in [] satisfies x > 1") is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 instance of number", True),
        ('"a" instance of string', True),
        ('"a" instance of number', False),
        ("true instance of boolean", True),
        ('date("2020-01-01") instance of date', True),
        ('date("2020-01-01") instance of date and time', False),
        ('date and time("2020-01-01T10:00:00") instance of date and time', True),
        ('time("10:00:00") instance of time', True),
        ('duration("P1D") instance of days and time duration', True),
        ('duration("P1Y") instance of years and months duration', True),
        ('duration("P1Y") instance of days and time duration', False),
        ("[1] instance of list", True),
        ("{a: 1} instance of context", True),
        ("null instance of number", False),
    ],
)
def test_instance_of(text: str, expected: bool) -> None:
    assert evaluate(text) is expected


def test_named_and_positional_arguments() -> None:
    assert evaluate('substring(string: "abc", start position: 2)') == "bc"
    assert evaluate('substring(start position: 2, string: "abc")') == "bc"
    assert evaluate('substring("abc", 2, 1)') == "b"


def test_input_values_of_every_python_type() -> None:
    assert evaluate("x + 1", x=1.5) == Decimal("2.5")
    assert evaluate("x + 1", x=Decimal("0.1")) == Decimal("1.1")
    assert evaluate("x", x=True) is True
    assert evaluate("x[2]", x=(1, 2)) == 2
    assert evaluate("x + 1", x=float("nan")) is None
