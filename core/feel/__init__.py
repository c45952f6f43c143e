"""FEEL (DMN 1.3 chapter 10) as Camunda 7's embedded feel-scala engine evaluates it:
expressions and the unary tests of decision-table input entries.

Pure: no I/O. Parse once (deploy time), evaluate many times; parsed objects are immutable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from .builtins import feel_string
from .errors import FeelError, FeelEvaluationError, FeelSyntaxError
from .evaluator import INPUT, Evaluation, Scope
from .nodes import Node, Test
from .parser import parse_expression_tree, parse_unary_tests_tree
from .values import Range, YearsMonthsDuration, from_python, to_python

__all__ = [
    "FeelError",
    "FeelEvaluationError",
    "FeelExpression",
    "FeelSyntaxError",
    "InputTester",
    "Range",
    "UnaryTests",
    "YearsMonthsDuration",
    "feel_string",
    "parse_expression",
    "parse_unary_tests",
]


@dataclass(frozen=True, slots=True)
class FeelExpression:
    """A parsed FEEL expression (input expression, output entry, literal expression)."""

    text: str
    tree: Node

    def evaluate(self, variables: Mapping[str, object], *, now: datetime | None = None) -> object:
        """The value for ``variables``: integral numbers come back as int, others as Decimal;
        a failure FEEL defines (type mismatch, bad argument) gives None. ``now``: what
        ``now()`` and ``today()`` answer (the caller's clock: an evaluation reads none)."""
        result = Evaluation(now).evaluate(self.tree, Scope(variables, converted=False))
        return to_python(result)


@dataclass(frozen=True, slots=True)
class UnaryTests:
    """Parsed unary tests (a decision-table input entry), matched against one input value."""

    text: str
    tests: Test

    def matches(
        self, value: object, variables: Mapping[str, object], *, now: datetime | None = None
    ) -> bool:
        """Whether ``value`` satisfies the tests; undecidable (null) counts as no match."""
        converted = from_python(value)
        scope = Scope(variables, converted=False).child({INPUT: converted})
        return Evaluation(now).test(self.tests, converted, scope) is True


class InputTester:
    """One input value tested against many unary tests (the entries of one decision-table
    input): the value and the variables are converted to FEEL once, not once per entry."""

    __slots__ = ("_now", "_scope", "_value")

    def __init__(
        self, value: object, variables: Mapping[str, object], *, now: datetime | None = None
    ) -> None:
        self._value = from_python(value)
        self._scope = Scope(variables, converted=False).child({INPUT: self._value})
        self._now = now

    def matches(self, tests: UnaryTests) -> bool:
        """Whether the value satisfies ``tests``; undecidable (null) counts as no match."""
        return Evaluation(self._now).test(tests.tests, self._value, self._scope) is True


def parse_expression(text: str) -> FeelExpression:
    """Parse a FEEL expression; FeelSyntaxError (with position) if it is malformed."""
    return FeelExpression(text, parse_expression_tree(text))


def parse_unary_tests(text: str) -> UnaryTests:
    """Parse FEEL unary tests (``-``, ``< 10``, ``[1..5]``, ``"a","b"``, ``not(...)``)."""
    return UnaryTests(text, parse_unary_tests_tree(text))
