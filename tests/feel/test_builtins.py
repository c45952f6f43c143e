"""Built-in functions (DMN 1.3 §10.3.4).

Expected results are the DMN 1.3 specification's examples (tables 66-76) and camunda/feel-scala
src/test/scala/org/camunda/feel/impl/builtin/BuiltinStringFunctionsTest.scala,
BuiltinListFunctionsTest.scala and BuiltinNumberFunctionTest.scala; failures are null.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from flowledger.core.feel import FeelEvaluationError, parse_expression


def evaluate(text: str, **variables: object) -> object:
    return parse_expression(text).evaluate(variables)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('substring("foobar", 3)', "obar"),
        ('substring("foobar", 3, 3)', "oba"),
        ('substring("foobar", -2, 1)', "a"),
        ('substring(string: "foobar", start position: 3)', "obar"),
        ('substring("abc", 1, 4)', "abc"),
        ('substring("abc", -1, 4)', "c"),
        ('substring("abc", 4, 4)', ""),
        ('string length("foo")', 3),
        ('upper case("aBc4")', "ABC4"),
        ('lower case("aBc4")', "abc4"),
        ('substring before("foobar", "bar")', "foo"),
        ('substring before("foobar", "xyz")', ""),
        ('substring after("foobar", "ob")', "ar"),
        ('substring after("", "a")', ""),
        ('substring after("foo", "")', "foo"),
        ('replace("abcd", "(ab)|(a)", "[1=$1][2=$2]")', "[1=ab][2=]cd"),
        (r'replace("0123456789", "(\d{3})(\d{3})(\d{4})", "($1) $2-$3")', "(012) 345-6789"),
        ('replace("abc", "([a-z)", "$1")', None),
        ('replace("Abc", "a", "x", "i")', "xbc"),
        ('replace("a.b", ".", "-", "q")', "a-b"),
        ('contains("foobar", "ob")', True),
        ('contains("foobar", "of")', False),
        ('starts with("foobar", "fo")', True),
        ('starts with("foobar", "ba")', False),
        ('ends with("foobar", "r")', True),
        ('ends with("foobar", "o")', False),
        ('matches("foobar", "^fo*b")', True),
        ('matches("foobar", "^fo*z")', False),
        ('matches("abc", "[a-z")', None),
        ('matches("FOO", "foo", "i")', True),
        (r'split("John Doe", "\s")', ["John", "Doe"]),
        ('split("a;b;c;;", ";")', ["a", "b", "c", "", ""]),
        ("string(1.1)", "1.1"),
        ("string(1.50)", "1.5"),
        ("string(true)", "true"),
        ("string(null)", None),
        ('string(date("2020-01-31"))', "2020-01-31"),
        ('number("1 000,0", " ", ",")', 1000),
        ('number("1,000.25", ",", ".")', Decimal("1000.25")),
        ('number("12")', 12),
        ('number("abc")', None),
        ("upper case(5)", None),
        ('contains(null, "a")', None),
    ],
)
def test_string_and_conversion_functions(text: str, expected: object) -> None:
    assert evaluate(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("list contains([1, 2, 3], 2)", True),
        ("list contains([1, 2, 3], 5)", False),
        ("list contains([1, null], null)", True),
        ("count([1, 2, 3])", 3),
        ("count([])", 0),
        ("min([1, 2, 3])", 1),
        ("min(1)", 1),
        ("max(1, 2, 3)", 3),
        ('max(["a", "c", "b"])', "c"),
        ("min([])", None),
        ('min([1, "a"])', None),
        ("sum([1, 2, 3])", 6),
        ("sum(1, 2, 3)", 6),
        ("sum([])", 0),
        ('sum([1, "a"])', None),
        ("mean([1, 2, 3])", 2),
        ("mean(1, 2, 3)", 2),
        ("mean([])", None),
        ("all([false, null, true])", False),
        ("all(true)", True),
        ("all([])", True),
        ("all([true, null])", None),
        ("all(0)", None),
        ("and([true, true])", True),
        ("any([false, null, true])", True),
        ("any(false)", False),
        ("any([])", False),
        ("any(0)", None),
        ("or([false, false])", False),
        ("sublist([4, 5, 6], 1, 2)", [4, 5]),
        ("sublist([4, 5, 6], -1)", [6]),
        ("sublist([4, 5, 6], 7)", None),
        ("append([1], 2, 3)", [1, 2, 3]),
        ("concatenate([1, 2], [3])", [1, 2, 3]),
        ("insert before([1, 3], 1, 2)", [2, 1, 3]),
        ("remove([1, 2, 3], 2)", [1, 3]),
        ("remove([1, 2, 3], 5)", None),
        ("reverse([1, 2, 3])", [3, 2, 1]),
        ("index of([1, 2, 3, 2], 2)", [2, 4]),
        ("union([1, 2], [2, 3])", [1, 2, 3]),
        ("distinct values([1, 2, 3, 2, 1])", [1, 2, 3]),
        ("flatten([[1, 2], [[3]], 4])", [1, 2, 3, 4]),
        ("product([2, 3, 4])", 24),
        ("product(2, 3, 4)", 24),
        ("median(8, 2, 5, 3, 4)", 4),
        ("median([6, 1, 2, 3])", Decimal("2.5")),
        ("median([])", None),
        ("stddev(2, 4, 7, 5)", Decimal("2.081665999466132735282297706979931")),
        ("stddev([47])", None),
        ("mode(6, 3, 9, 6, 6)", [6]),
        ("mode([6, 1, 9, 6, 1])", [1, 6]),
        ("mode([])", []),
        ("sort([3, 1, 4, 5, 2])", [1, 2, 3, 4, 5]),
        ("sort(list: [3, 1, 4, 5, 2], precedes: function(x, y) x < y)", [1, 2, 3, 4, 5]),
        ("sort([3, 1, 4, 5, 2], function(x, y) x > y)", [5, 4, 3, 2, 1]),
        ('sort([1, "a"])', None),
        ("count(5)", None),
    ],
)
def test_list_functions(text: str, expected: object) -> None:
    assert evaluate(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("decimal(1/3, 2)", Decimal("0.33")),
        ("decimal(1.5, 0)", 2),
        ("decimal(2.5, 0)", 2),
        ("floor(1.5)", 1),
        ("floor(-1.5)", -2),
        ("floor(-1.56, 1)", Decimal("-1.6")),
        ("ceiling(1.5)", 2),
        ("ceiling(-1.5)", -1),
        ("ceiling(-1.56, 1)", Decimal("-1.5")),
        ("round up(5.5, 0)", 6),
        ("round up(-5.5, 0)", -6),
        ("round up(1.121, 2)", Decimal("1.13")),
        ("round down(5.5, 0)", 5),
        ("round down(-5.5, 0)", -5),
        ("round half up(5.5, 0)", 6),
        ("round half up(-5.5, 0)", -6),
        ("round half down(5.5, 0)", 5),
        ("round half down(-5.5, 0)", -5),
        ("abs(-10)", 10),
        ("abs(10)", 10),
        ('abs("a")', None),
        ("modulo(12, 5)", 2),
        ("modulo(-12, 5)", 3),
        ("modulo(12, -5)", -3),
        ("modulo(-12, -5)", -2),
        ("modulo(10.1, 4.5)", Decimal("1.1")),
        ("modulo(-10.1, 4.5)", Decimal("3.4")),
        ("modulo(1, 0)", None),
        ("sqrt(16)", 4),
        ("sqrt(-1)", None),
        ("decimal(log(10), 11)", Decimal("2.30258509299")),
        ("log(0)", None),
        ("decimal(exp(5), 12)", Decimal("148.413159102577")),
        ("odd(5)", True),
        ("odd(2)", False),
        ("even(2)", True),
        ("even(5)", False),
        ("even(1.5)", None),
    ],
)
def test_numeric_functions(text: str, expected: object) -> None:
    assert evaluate(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('day of week(date("2019-09-17"))', "Tuesday"),
        ('day of year(date("2019-09-17"))', 260),
        ('week of year(date("2019-09-17"))', 38),
        ('week of year(date("2003-12-29"))', 1),
        ('month of year(date("2019-09-17"))', "September"),
        ('day of week(date and time("2019-09-17T10:00:00"))', "Tuesday"),
        ('get value({a: 1}, "a")', 1),
        ("get entries({a: 1})", [{"key": "a", "value": 1}]),
    ],
)
def test_date_and_context_functions(text: str, expected: object) -> None:
    assert evaluate(text) == expected


def test_regex_guards_refuse_long_patterns_and_run_nested_quantifiers() -> None:
    with pytest.raises(FeelEvaluationError, match="longer than 1,000 characters"):
        evaluate("matches(x, p)", x="a", p="a" * 1001)
    # Nested quantifiers were refused; the linear-time engine runs them (tests/feel/test_regex.py).
    assert evaluate('matches("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "(a+)+$")') is False
