"""Malformed text is refused with a FeelSyntaxError that names the position, and every
resource limit (text, nesting, string, list and loop sizes) is refused with a clear message."""

from __future__ import annotations

import pytest

from flowledger.core.feel import (
    FeelError,
    FeelEvaluationError,
    FeelSyntaxError,
    parse_expression,
    parse_unary_tests,
)


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("[1..10", 6, "expected ']', ')' or '['"),
        ("(1 + 2", 6, "expected ')'"),
        ("1 +", 3, "expected an expression"),
        ('"abc', 0, "expected closing '\"'"),
        ("1 # 2", 2, "unexpected character '#'"),
        ("if x then 1", 11, "expected 'else'"),
        ("foo(1)", 0, "unknown function 'foo'"),
        ("substring()", 0, "function 'substring' cannot be called with 0 argument(s)"),
        ('substring(text: "a")', 0, "cannot be called with text"),
        ("{a: 1, a: 2}", 7, "duplicate context key 'a'"),
        ("1 2", 2, "unexpected '2'"),
        ("x instance of thing", 14, "expected a type name"),
        ('@"yesterday"', 0, "invalid temporal literal"),
        ("/* open", 0, "unterminated comment"),
        ("`open", 0, "expected closing '`'"),
    ],
)
def test_syntax_errors_name_what_was_expected_and_where(
    text: str, position: int, fragment: str
) -> None:
    with pytest.raises(FeelSyntaxError) as caught:
        parse_expression(text)
    error = caught.value
    assert error.position == position
    assert error.text == text
    assert fragment in str(error)
    assert f"at position {position} in" in str(error)


def test_the_message_reads_as_documented() -> None:
    with pytest.raises(FeelSyntaxError) as caught:
        parse_unary_tests("[1..10")
    assert str(caught.value) == (
        "expected ']', ')' or '[' but found end of text at position 6 in \"[1..10\""
    )


@pytest.mark.parametrize("text", ["< ", "[1..", "not(", '"a",', "= 5", "- 5 -"])
def test_unary_test_syntax_errors(text: str) -> None:
    with pytest.raises(FeelSyntaxError):
        parse_unary_tests(text)


def test_errors_share_one_base_class() -> None:
    assert issubclass(FeelSyntaxError, FeelError)
    assert issubclass(FeelEvaluationError, FeelError)


def test_text_longer_than_10000_characters_is_refused() -> None:
    assert parse_expression(" " * 9_999 + "1").evaluate({}) == 1
    with pytest.raises(FeelSyntaxError, match="longer than 10,000 characters"):
        parse_expression(" " * 10_000 + "1")
    with pytest.raises(FeelSyntaxError, match="longer than 10,000 characters"):
        parse_unary_tests(" " * 10_001)


def test_nesting_deeper_than_100_is_refused() -> None:
    assert parse_expression("(" * 99 + "1" + ")" * 99).evaluate({}) == 1
    with pytest.raises(FeelSyntaxError, match="nests deeper than 100 levels"):
        parse_expression("(" * 101 + "1" + ")" * 101)
    with pytest.raises(FeelSyntaxError, match="nests deeper than 100 levels"):
        parse_expression("[" * 101 + "]" * 101)
    with pytest.raises(FeelSyntaxError, match="nests deeper than 100 levels"):
        parse_unary_tests("-" * 150 + "1")


def test_long_operator_chains_are_refused_before_evaluation() -> None:
    assert parse_expression(" + ".join(["1"] * 150)).evaluate({}) == 150
    with pytest.raises(FeelSyntaxError, match="more than 200 levels of operators"):
        parse_expression(" + ".join(["1"] * 300))


def test_string_results_longer_than_a_million_characters_are_refused() -> None:
    half = "x" * 600_000
    with pytest.raises(FeelEvaluationError, match="longer than 1,000,000 characters"):
        parse_expression("s + s").evaluate({"s": half})
    with pytest.raises(FeelEvaluationError, match="longer than 1,000,000 characters"):
        parse_expression('replace(s, "x", "xx")').evaluate({"s": half})


def test_lists_longer_than_100000_elements_are_refused() -> None:
    big = list(range(60_000))
    with pytest.raises(FeelEvaluationError, match="longer than 100,000 elements"):
        parse_expression("concatenate(l, l)").evaluate({"l": big})
    with pytest.raises(FeelEvaluationError, match="longer than 100,000 elements"):
        parse_expression("x").evaluate({"x": list(range(100_001))})


def test_loops_iterating_more_than_100000_times_are_refused() -> None:
    assert parse_expression("for i in 1..1000 return i").evaluate({}) == list(range(1, 1001))
    with pytest.raises(FeelEvaluationError, match="more than 100,000 loop iterations"):
        parse_expression("for i in 1..1000000 return i").evaluate({})
    with pytest.raises(FeelEvaluationError, match="more than 100,000 loop iterations"):
        parse_expression("for a in l, b in l return 1").evaluate({"l": list(range(400))})
    with pytest.raises(FeelEvaluationError, match="more than 100,000 loop iterations"):
        parse_expression("some a in l satisfies l[item = -1] = [1]").evaluate(
            {"l": list(range(1000))}
        )


def test_huge_exponents_give_null_rather_than_hanging() -> None:
    assert parse_expression("10 ** 999999999").evaluate({}) is None
    assert parse_expression("10 ** 10000").evaluate({}) is None


def test_unusable_python_input_is_an_evaluation_error() -> None:
    with pytest.raises(FeelEvaluationError, match="Python type object"):
        parse_expression("x").evaluate({"x": object()})
