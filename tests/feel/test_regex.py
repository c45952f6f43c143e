"""FEEL's regular expressions (`matches`, `replace`, `split`) on the linear-time engine (RE2).

Patterns that backtrack exponentially in a backtracking engine must answer on long texts; a
watchdog thread only catches a hang (no timing is asserted). What RE2 lacks is refused with
the construct named, at parse for a literal pattern and at evaluation for one from a variable.
"""

from __future__ import annotations

import threading

import pytest

from flowledger.core.budget import BudgetExceeded, CommandBudget, opened
from flowledger.core.feel import FeelEvaluationError, FeelSyntaxError, parse_expression

HANG = 60.0  # seconds: far above what any of these takes; only a hang reaches it


def evaluate(text: str, **variables: object) -> object:
    return parse_expression(text).evaluate(variables)


def evaluate_watched(text: str, **variables: object) -> object:
    """Evaluate in a thread; a thread still running after HANG seconds is a hang."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(evaluate(text, **variables))
        except Exception as error:  # handed to the test below
            outcome.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG)
    assert not worker.is_alive(), f"{text} did not answer within {HANG} s"
    result = outcome[0]
    if isinstance(result, Exception):
        raise result
    return result


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("^(a|a)*$", "a" * 25 + "b", False),
        ("^(a|a)*$", "a" * 38, True),
        ("^(a|a)*$", "a" * 100_000 + "b", False),
        ("^(a+)+$", "a" * 100_000 + "!", False),
        ("^(a+)+$", "a" * 100_000, True),
        ("^(a|aa)+$", "a" * 50_000 + "b", False),
        ("(x+x+)+y", "x" * 100_000, False),
        ("^(\\w+\\s?)*$", "word " * 20_000 + "!", False),
    ],
)
def test_patterns_that_backtrack_exponentially_answer_on_long_texts(
    pattern: str, text: str, expected: bool
) -> None:
    assert evaluate_watched("matches(s, p)", s=text, p=pattern) is expected


def test_a_nested_quantifier_in_a_literal_pattern_is_accepted_at_parse() -> None:
    # Refused before as "nested quantifiers"; the engine runs it in linear time now.
    assert evaluate_watched('matches(s, "^(a+)+$")', s="a" * 100_000) is True
    assert evaluate_watched('replace(s, "(a+)+", "x")', s="a" * 100_000 + "b") == "xb"
    assert evaluate_watched('split(s, "(?:a|a)+")', s="b" + "a" * 100_000 + "c") == ["b", "c"]


@pytest.mark.parametrize(
    ("pattern", "construct"),
    [
        ("(a)\\1", "a backreference \\1"),
        ("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)(l)\\12", "a backreference \\12"),
        ("(?P<x>a)(?P=x)", "a backreference (?P=x)"),
        ("(?<x>a)\\k<x>", "a backreference \\k<x>"),
        ("a(?=b)", "a lookahead (?=...)"),
        ("a(?!b)", "a negative lookahead (?!...)"),
        ("(?<=a)b", "a lookbehind (?<=...)"),
        ("(?<!a)b", "a negative lookbehind (?<!...)"),
        ("(?>a+)b", "an atomic group (?>...)"),
        ("a*+b", "a possessive quantifier *+"),
        ("a{1001}", "the repetition {1001}"),
    ],
)
def test_what_the_linear_time_engine_lacks_is_refused_naming_the_construct(
    pattern: str, construct: str
) -> None:
    expected = f"FEEL matches(): the pattern uses {construct}, which the linear-time"
    # From a variable: refused as the expression is evaluated.
    with pytest.raises(FeelEvaluationError) as at_evaluation:
        evaluate("matches(s, p)", s="ab", p=pattern)
    assert expected in str(at_evaluation.value)
    # Written in the expression: refused when it is parsed (at deploy).
    literal = pattern.replace("\\", "\\\\")
    with pytest.raises(FeelSyntaxError) as at_parse:
        parse_expression(f'matches(s, "{literal}")')
    assert expected in str(at_parse.value)


def test_replace_and_split_name_themselves_when_refusing() -> None:
    with pytest.raises(FeelSyntaxError, match=r"FEEL replace\(\): the pattern uses a backref"):
        parse_expression('replace(input: s, pattern: "(a)\\\\1", replacement: "x")')
    with pytest.raises(FeelEvaluationError, match=r"FEEL split\(\): the pattern uses a lookahe"):
        evaluate("split(s, p)", s="a,b", p=",(?=b)")


def test_a_malformed_pattern_is_still_null_as_camunda_answers() -> None:
    assert evaluate('matches("abc", "[a-z")') is None
    assert evaluate('replace("abc", "(", "x")') is None
    assert evaluate('split("abc", "(")') is None
    assert evaluate('matches("abc", "a", "z")') is None  # an unknown flag


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('replace("abc", "(b)", "[$1]")', "a[b]c"),
        ('replace("John Doe", "(\\w+) (\\w+)", "$2, $1")', "Doe, John"),
        ('replace("abc", "(a)", "$1$1")', "aabc"),
        ('replace("abc", "(a)", "$12")', "a2bc"),  # $12 with one group: group 1, then "2"
        ('replace("abc", "(a)(b)(c)", "$3$2$1")', "cba"),
        ('replace("abc", "(a)", "$2")', None),  # no group 2
        ('replace("a$b", "\\$", "\\$\\$")', "a$$b"),
        ('replace("a.b", ".", "$1", "q")', "a$1b"),  # q: pattern and replacement as written
        ('replace("abxd", "x*", "-")', "-a-b--d-"),
        ('replace("héllo wörld", "ö|é", "€")', "h€llo w€rld"),
    ],
)
def test_replace_substitutes_groups_as_xpath_says(text: str, expected: object) -> None:
    assert evaluate(text) == expected


def test_an_escaped_backslash_in_the_replacement_is_one_backslash() -> None:
    assert evaluate('replace("abc", "b", r)', r="\\\\") == "a\\c"
    assert evaluate('replace("abc", "b", r)', r="\\") is None  # a lone backslash


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('matches("FOO", "foo", "i")', True),
        ('matches("a\nb", "^b$", "m")', True),
        ('matches("a\nb", "^b$")', False),
        ('matches("a\nb", "a.b", "s")', True),
        ('matches("a\nb", "a.b")', False),
        ('matches("ab", "a b", "x")', True),
        ('matches("a b", "a[ ]b", "x")', True),  # x keeps whitespace inside a class
        ('matches("a.b", "a.b", "q")', True),
        ('matches("axb", "a.b", "q")', False),
        ('matches("A.B", "a.b", "qi")', True),
        ('split("a1b22c", "\\d+")', ["a", "b", "c"]),
        ('split("a;b;c;;", ";")', ["a", "b", "c", "", ""]),
    ],
)
def test_xpath_flags_keep_working(text: str, expected: object) -> None:
    assert evaluate(text) == expected


def test_a_replacement_that_multiplies_the_text_is_refused_naming_the_limit() -> None:
    with pytest.raises(FeelEvaluationError, match=r"FEEL replace\(\): string result longer"):
        evaluate('replace(s, "a", r)', s="a" * 10_000, r="b" * 101)
    assert evaluate('replace(s, "a", r)', s="a" * 10_000, r="b" * 100) == "b" * 1_000_000


def test_each_match_of_replace_and_split_spends_from_the_command_budget() -> None:
    # Finding every match of a(a*b)? rescans the rest of the text at each match; the steps of
    # the command's budget bound it (and each match looks at its clock).
    with (
        opened(CommandBudget(steps=1_000)),
        pytest.raises(BudgetExceeded, match=r"FEEL replace\(\).*1,000 steps"),
    ):
        evaluate('replace(s, "a(a*b)?", "x")', s="a" * 5_000)
    with opened(CommandBudget(steps=1_000)) as budget:
        assert evaluate('split(s, ",")', s="," * 900) == [""] * 901
        assert budget.used >= 900
    with (
        opened(CommandBudget(steps=1_000)),
        pytest.raises(BudgetExceeded, match=r"FEEL split\(\).*1,000 steps"),
    ):
        evaluate('split(s, ",")', s="," * 5_000)
