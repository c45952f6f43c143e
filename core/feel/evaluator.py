"""Walks a parsed FEEL tree and computes its value (DMN 1.3 §10.3.2 semantics, as feel-scala).

Pure: no I/O. Failures that FEEL defines as null stay null; only limits and unusable
input values raise FeelEvaluationError.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any, Final

from flowledger.core.budget import current_budget

from .builtins import CLOCK_FUNCTIONS, select_signature
from .errors import FeelEvaluationError
from .nodes import (
    And,
    Arithmetic,
    Between,
    Call,
    Compare,
    ContextNode,
    Filter,
    For,
    FunctionNode,
    If,
    In,
    InputValue,
    InstanceOf,
    ListNode,
    Literal,
    Name,
    Negate,
    Node,
    Or,
    Path,
    Quantified,
    RangeNode,
    Test,
    TestAny,
    TestCompare,
    TestEqual,
    TestExpression,
    TestList,
    TestNot,
    TestRange,
)
from .operators import (
    add,
    compare,
    divide,
    equal,
    in_range,
    less_than,
    multiply,
    negate,
    power,
    subtract,
)
from .values import (
    FeelFunction,
    Range,
    YearsMonthsDuration,
    check_list,
    from_python,
    kind_of,
)

__all__ = ["INPUT", "MAX_ITERATIONS", "Evaluation", "Scope"]

MAX_ITERATIONS: Final = 100_000
# The name the unary-test input is bound to; not a valid FEEL name, so it cannot clash.
INPUT: Final = "?"
_ARITHMETIC: Final[dict[str, Callable[[object, object], object]]] = {
    "+": add,
    "-": subtract,
    "*": multiply,
    "/": divide,
    "**": power,
}
_MISSING: Final = object()
_STEP: Final = "FEEL expression"


class Scope:
    """Variables visible at one point: local bindings over an outer scope, or the caller's
    variables at the root (converted to FEEL values as they are first read)."""

    def __init__(
        self,
        local: Mapping[str, object],
        outer: Scope | None = None,
        *,
        converted: bool = True,
    ) -> None:
        self.local = local
        self.outer = outer
        self.converted = converted
        self._cache: dict[str, object] = {}

    def lookup(self, name: str) -> object:
        scope: Scope | None = self
        while scope is not None:
            if name in scope._cache:
                return scope._cache[name]
            value = scope.local.get(name, _MISSING)
            if value is not _MISSING:
                if not scope.converted:
                    value = from_python(value)
                    scope._cache[name] = value
                return value
            scope = scope.outer
        # feel-scala 1.17 (Camunda 7.20+) answers null for an unknown variable.
        return None

    def child(self, local: Mapping[str, object]) -> Scope:
        return Scope(local, self)


class Evaluation:
    """One evaluation: holds the iteration budget shared by all loops in the expression; each
    iteration and each function call is also a step of the command's budget, when one is
    open (core/budget.py), so an expression shares the command's steps and deadline."""

    def __init__(self, now: datetime | None = None) -> None:
        self.iterations = 0
        self.now = now  # what now() and today() answer
        self.budget = current_budget()

    def evaluate(self, node: Node, scope: Scope) -> object:
        return _HANDLERS[type(node)](self, node, scope)

    def _count_iteration(self) -> None:
        self.iterations += 1
        if self.budget is not None:
            self.budget.spend(1, _STEP)
        if self.iterations > MAX_ITERATIONS:
            raise FeelEvaluationError(
                f"more than {MAX_ITERATIONS:,} loop iterations in one evaluation refused"
            )

    # -- leaves and collections

    def _literal(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Literal)
        return node.value

    def _name(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Name)
        return scope.lookup(node.name)

    def _input(self, node: Node, scope: Scope) -> object:
        return scope.lookup(INPUT)

    def _list(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, ListNode)
        return check_list([self.evaluate(item, scope) for item in node.items])

    def _context(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, ContextNode)
        result: dict[str, object] = {}
        # Later entries may refer to earlier ones: {a: 1, b: a + 1}.
        inner = scope.child(result)
        for key, value in node.entries:
            result[key] = self.evaluate(value, inner)
        return result

    def _range(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, RangeNode)
        start = None if node.start is None else self.evaluate(node.start, scope)
        end = None if node.end is None else self.evaluate(node.end, scope)
        if (node.start is not None and start is None) or (node.end is not None and end is None):
            return None
        if start is not None and end is not None and compare(start, end) is None:
            return None
        return Range(start, end, node.start_included, node.end_included)

    # -- operators

    def _negate(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Negate)
        return negate(self.evaluate(node.operand, scope))

    def _arithmetic(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Arithmetic)
        left = self.evaluate(node.left, scope)
        right = self.evaluate(node.right, scope)
        if left is None or right is None:
            return None
        return _ARITHMETIC[node.operator](left, right)

    def _compare(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Compare)
        return _comparison(
            node.operator, self.evaluate(node.left, scope), self.evaluate(node.right, scope)
        )

    def _and(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, And)
        left = self.evaluate(node.left, scope)
        if left is False:
            return False
        right = self.evaluate(node.right, scope)
        if right is False:
            return False
        return True if left is True and right is True else None

    def _or(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Or)
        left = self.evaluate(node.left, scope)
        if left is True:
            return True
        right = self.evaluate(node.right, scope)
        if right is True:
            return True
        return False if left is False and right is False else None

    def _if(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, If)
        if self.evaluate(node.condition, scope) is True:
            return self.evaluate(node.then, scope)
        return self.evaluate(node.otherwise, scope)

    def _between(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Between)
        value = self.evaluate(node.value, scope)
        above = less_than(self.evaluate(node.low, scope), value, or_equal=True)
        below = less_than(value, self.evaluate(node.high, scope), or_equal=True)
        if above is False or below is False:
            return False
        return True if above and below else None

    def _in(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, In)
        return self.test(node.test, self.evaluate(node.value, scope), scope)

    def _instance_of(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, InstanceOf)
        value = self.evaluate(node.value, scope)
        if node.type_name == "Any":
            return value is not None
        if node.type_name == "Null":
            return value is None
        return kind_of(value) == node.type_name

    # -- access

    def _path(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Path)
        return _member(self.evaluate(node.base, scope), node.name)

    def _filter(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Filter)
        base = self.evaluate(node.base, scope)
        if base is None:
            return None
        items = base if isinstance(base, list) else [base]
        # A condition that is a number outside the items' scope is an index (l[1], l[-1]).
        probe = self.evaluate(node.condition, scope)
        if isinstance(probe, Decimal):
            return _element(items, probe)
        kept: list[object] = []
        for item in items:
            self._count_iteration()
            local: dict[str, object] = dict(item) if isinstance(item, dict) else {}
            local["item"] = item
            if self.evaluate(node.condition, scope.child(local)) is True:
                kept.append(item)
        return kept

    def _call(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Call)
        if self.budget is not None:
            self.budget.spend(1, _STEP)
        if node.named is None:
            arguments = [self.evaluate(argument, scope) for argument in node.positional]
            signature = select_signature(node.name, len(arguments), None)
        else:
            names = tuple(name for name, _ in node.named)
            signature = select_signature(node.name, 0, names)
            given = {name: self.evaluate(value, scope) for name, value in node.named}
            arguments = []
            if signature is not None:
                last = max(signature.parameters.index(name) for name in names)
                arguments = [given.get(name) for name in signature.parameters[: last + 1]]
        if signature is None:
            # The parser checked the call; a signature is missing only if BUILTINS changed.
            raise FeelEvaluationError(f"no built-in function '{node.name}' for these arguments")
        if node.name in CLOCK_FUNCTIONS:
            if self.now is None:
                raise FeelEvaluationError(
                    f"{node.name}() needs the time of the evaluation, and none was given"
                )
            return signature.function(self.now)
        return signature.function(*arguments)

    def _function(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, FunctionNode)
        parameters = node.parameters
        body = node.body

        def invoke(arguments: list[object]) -> object:
            # sort() calls its `precedes` n log n times: each call is a step.
            if self.budget is not None:
                self.budget.spend(1, _STEP)
            if len(arguments) != len(parameters):
                return None
            return self.evaluate(body, scope.child(dict(zip(parameters, arguments, strict=True))))

        return FeelFunction(parameters, invoke)

    # -- iteration

    def _bindings(
        self, bindings: tuple[tuple[str, Node], ...], scope: Scope
    ) -> Iterator[Scope] | None:
        """Every combination of the iteration variables, as scopes; None if a domain is
        not a list (or a numeric range)."""
        name, domain_node = bindings[0]
        domain = self.evaluate(domain_node, scope)
        values = _iteration_values(domain)
        if values is None:
            return None
        rest = bindings[1:]

        def combinations() -> Iterator[Scope]:
            for value in values:
                inner = scope.child({name: value})
                if not rest:
                    self._count_iteration()
                    yield inner
                    continue
                nested = self._bindings(rest, inner)
                if nested is None:
                    raise _NotIterable
                yield from nested

        return combinations()

    def _for(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, For)
        scopes = self._bindings(node.bindings, scope)
        if scopes is None:
            return None
        result: list[object] = []
        try:
            for inner in scopes:
                # "partial" holds the results so far, as in DMN 1.3.
                result.append(self.evaluate(node.body, inner.child({"partial": result})))
        except _NotIterable:
            return None
        return check_list(result)

    def _quantified(self, node: Node, scope: Scope) -> object:
        assert isinstance(node, Quantified)
        scopes = self._bindings(node.bindings, scope)
        if scopes is None:
            return None
        try:
            for inner in scopes:
                satisfied = self.evaluate(node.condition, inner) is True
                if satisfied != node.every:
                    return satisfied
        except _NotIterable:
            return None
        return node.every

    # -- unary tests

    def test(self, test: Test, value: object, scope: Scope) -> bool | None:
        """Whether ``value`` passes ``test``: True, False, or None when it is undecidable."""
        return _TESTS[type(test)](self, test, value, scope)

    def _test_any(self, test: TestAny, value: object, scope: Scope) -> bool | None:
        return True

    def _test_compare(self, test: TestCompare, value: object, scope: Scope) -> bool | None:
        return _comparison(test.operator, value, self.evaluate(test.endpoint, scope))

    def _test_range(self, test: TestRange, value: object, scope: Scope) -> bool | None:
        bounds = self._range(test.range, scope)
        return in_range(value, bounds) if isinstance(bounds, Range) else None

    def _test_equal(self, test: TestEqual, value: object, scope: Scope) -> bool | None:
        return _equality_test(value, self.evaluate(test.expression, scope))

    def _test_expression(self, test: TestExpression, value: object, scope: Scope) -> bool | None:
        result = self.evaluate(test.expression, scope.child({INPUT: value}))
        if isinstance(result, bool) and (test.uses_input or not isinstance(value, bool)):
            return result
        return _equality_test(value, result)

    def _test_list(self, test: TestList, value: object, scope: Scope) -> bool | None:
        return _any_of(self.test(inner, value, scope) for inner in test.tests)

    def _test_not(self, test: TestNot, value: object, scope: Scope) -> bool | None:
        matched = _any_of(self.test(inner, value, scope) for inner in test.tests)
        return None if matched is None else not matched


# Test type -> how it is decided, built once, as _HANDLERS (this runs for every entry of every
# rule of a decision table).
_TESTS: dict[type, Callable[[Evaluation, Any, object, Scope], bool | None]] = {
    TestAny: Evaluation._test_any,
    TestCompare: Evaluation._test_compare,
    TestRange: Evaluation._test_range,
    TestEqual: Evaluation._test_equal,
    TestExpression: Evaluation._test_expression,
    TestList: Evaluation._test_list,
    TestNot: Evaluation._test_not,
}


# Node type -> handler, built once (an evaluation is made per call; a table per
# evaluation cost more than a small table's evaluation).
_HANDLERS: dict[type, Callable[[Evaluation, Any, Scope], object]] = {
    Literal: Evaluation._literal,
    Name: Evaluation._name,
    InputValue: Evaluation._input,
    ListNode: Evaluation._list,
    ContextNode: Evaluation._context,
    RangeNode: Evaluation._range,
    Negate: Evaluation._negate,
    Arithmetic: Evaluation._arithmetic,
    Compare: Evaluation._compare,
    And: Evaluation._and,
    Or: Evaluation._or,
    If: Evaluation._if,
    Between: Evaluation._between,
    In: Evaluation._in,
    InstanceOf: Evaluation._instance_of,
    Path: Evaluation._path,
    Filter: Evaluation._filter,
    Call: Evaluation._call,
    FunctionNode: Evaluation._function,
    For: Evaluation._for,
    Quantified: Evaluation._quantified,
}


class _NotIterable(Exception):
    """A nested iteration domain turned out not to be a list."""


def _any_of(results: Iterator[bool | None]) -> bool | None:
    undecided = False
    for result in results:
        if result is True:
            return True
        undecided = undecided or result is None
    return None if undecided else False


def _comparison(operator: str, left: object, right: object) -> bool | None:
    if operator == "=":
        return equal(left, right)
    if operator == "!=":
        same = equal(left, right)
        return None if same is None else not same
    if operator in ("<", "<="):
        return less_than(left, right, or_equal=operator == "<=")
    return less_than(right, left, or_equal=operator == ">=")


def _equality_test(value: object, expected: object) -> bool | None:
    """A simple-value test: the input equals the value, lies in it (range), or is in it (list)."""
    if isinstance(expected, Range):
        return in_range(value, expected)
    if isinstance(expected, list) and not isinstance(value, list):
        return any(equal(value, item) is True for item in expected)
    return equal(value, expected)


def _iteration_values(domain: object) -> list[object] | Iterator[Decimal] | None:
    if isinstance(domain, list):
        return domain
    if isinstance(domain, Range) and isinstance(domain.start, Decimal):
        start, end = domain.start, domain.end
        if not isinstance(end, Decimal) or start != int(start) or end != int(end):
            return None
        step = 1 if end >= start else -1
        return (Decimal(i) for i in range(int(start), int(end) + step, step))
    return None


def _element(items: list[object], index: Decimal) -> object:
    if index != index.to_integral_value():
        return None
    position = int(index)
    if position > 0 and position <= len(items):
        return items[position - 1]
    if position < 0 and -position <= len(items):
        return items[position]
    return None


def _signed_parts(duration: timedelta) -> dict[str, Decimal]:
    sign = -1 if duration < timedelta(0) else 1
    total = abs(duration)
    seconds = total.seconds
    return {
        "days": Decimal(sign * total.days),
        "hours": Decimal(sign * (seconds // 3600)),
        "minutes": Decimal(sign * (seconds // 60 % 60)),
        "seconds": Decimal(sign * (seconds % 60)),
    }


def _zone_name(value: time | datetime) -> object:
    key = getattr(value.tzinfo, "key", None)
    return key if isinstance(key, str) else None


def _offset(value: time | datetime) -> object:
    return value.utcoffset()


def _member(value: object, name: str) -> object:
    """``value.name``: a context entry or a property of a temporal value or range."""
    if isinstance(value, dict):
        return value.get(name)
    if isinstance(value, list):
        # A path on a list of contexts projects every element: [{a:1},{a:2}].a = [1, 2].
        return [_member(item, name) for item in value]
    if isinstance(value, date):
        properties: dict[str, object] = {
            "year": Decimal(value.year),
            "month": Decimal(value.month),
            "day": Decimal(value.day),
            "weekday": Decimal(value.isoweekday()),
        }
        if isinstance(value, datetime):
            properties |= _time_properties(value)
        return properties.get(name)
    if isinstance(value, time):
        return _time_properties(value).get(name)
    if isinstance(value, timedelta):
        return _signed_parts(value).get(name)
    if isinstance(value, YearsMonthsDuration):
        properties = {"years": Decimal(value.years), "months": Decimal(value.month_part)}
        return properties.get(name)
    if isinstance(value, Range):
        properties = {
            "start": value.start,
            "end": value.end,
            "start included": value.start_included,
            "end included": value.end_included,
        }
        return properties.get(name)
    return None


def _time_properties(value: time | datetime) -> dict[str, object]:
    return {
        "hour": Decimal(value.hour),
        "minute": Decimal(value.minute),
        "second": Decimal(value.second),
        "time offset": _offset(value),
        "timezone": _zone_name(value),
    }
