"""Syntax tree of FEEL expressions and unary tests, as the parser builds it.

Pure data: no evaluation here (see ``evaluator``). Nodes are frozen, so a parsed
expression can be cached and shared between threads.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "And", "Arithmetic", "Between", "Call", "Compare", "ContextNode", "Filter", "For",
    "FunctionNode", "If", "In", "InputValue", "InstanceOf", "ListNode", "Literal", "Name",
    "Negate", "Node", "Or", "Path", "Quantified", "RangeNode", "Test", "TestAny",
    "TestCompare", "TestEqual", "TestExpression", "TestList", "TestNot", "TestRange",
]  # fmt: skip


class Node:
    """Base of expression nodes."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Literal(Node):
    value: object


@dataclass(frozen=True, slots=True)
class Name(Node):
    name: str


@dataclass(frozen=True, slots=True)
class InputValue(Node):
    """``?``: the value a unary test is applied to."""


@dataclass(frozen=True, slots=True)
class ListNode(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class ContextNode(Node):
    entries: tuple[tuple[str, Node], ...]


@dataclass(frozen=True, slots=True)
class RangeNode(Node):
    """``[a..b]`` and friends; for ``< b`` style tests one end is None (unbounded)."""

    start: Node | None
    end: Node | None
    start_included: bool
    end_included: bool


@dataclass(frozen=True, slots=True)
class Negate(Node):
    operand: Node


@dataclass(frozen=True, slots=True)
class Arithmetic(Node):
    operator: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Compare(Node):
    operator: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class And(Node):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Or(Node):
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class If(Node):
    condition: Node
    then: Node
    otherwise: Node


@dataclass(frozen=True, slots=True)
class Between(Node):
    value: Node
    low: Node
    high: Node


@dataclass(frozen=True, slots=True)
class InstanceOf(Node):
    value: Node
    type_name: str


@dataclass(frozen=True, slots=True)
class Path(Node):
    base: Node
    name: str


@dataclass(frozen=True, slots=True)
class Filter(Node):
    base: Node
    condition: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    """A built-in function call; exactly one of ``positional`` / ``named`` is used."""

    name: str
    positional: tuple[Node, ...]
    named: tuple[tuple[str, Node], ...] | None


@dataclass(frozen=True, slots=True)
class FunctionNode(Node):
    """``function(a, b) body``: a function literal (for ``sort``'s precedes argument)."""

    parameters: tuple[str, ...]
    body: Node


@dataclass(frozen=True, slots=True)
class For(Node):
    bindings: tuple[tuple[str, Node], ...]
    body: Node


@dataclass(frozen=True, slots=True)
class Quantified(Node):
    """``some``/``every`` x in list satisfies condition."""

    every: bool
    bindings: tuple[tuple[str, Node], ...]
    condition: Node


# Unary tests: each answers True, False or None (unknown) for one input value.


class Test(Node):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class TestAny(Test):
    """``-`` or empty text: matches anything, null included."""


@dataclass(frozen=True, slots=True)
class TestCompare(Test):
    """``< 10``, ``>= x``: compares the input with an endpoint."""

    operator: str
    endpoint: Node


@dataclass(frozen=True, slots=True)
class TestRange(Test):
    range: RangeNode


@dataclass(frozen=True, slots=True)
class TestEqual(Test):
    """A simple value (literal, name, path): the input equals it (or is in it, for a list)."""

    expression: Node


@dataclass(frozen=True, slots=True)
class TestExpression(Test):
    """Any other expression: true result, equal value, or list containing the input.

    ``uses_input`` says whether it mentions ``?``: then a boolean result decides the test;
    otherwise a boolean result is compared with a boolean input like any other value.
    """

    expression: Node
    uses_input: bool


@dataclass(frozen=True, slots=True)
class TestList(Test):
    """``a, b, c``: any of the tests matches."""

    tests: tuple[Test, ...]


@dataclass(frozen=True, slots=True)
class TestNot(Test):
    """``not(a, b)``: none of the tests matches."""

    tests: tuple[Test, ...]


@dataclass(frozen=True, slots=True)
class In(Node):
    value: Node
    test: Test
