"""The expression AST produced by the parser and consumed by the evaluator.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "Binary",
    "Conditional",
    "FunctionCall",
    "Identifier",
    "Literal",
    "MethodCall",
    "Node",
    "Property",
    "Unary",
    "identifiers",
    "walk",
]


@dataclass(frozen=True, slots=True)
class Node:
    """Base of all nodes; ``pos`` is the 0-based offset of the node in the expression text."""

    pos: int

    def children(self) -> tuple[Node, ...]:
        return ()


@dataclass(frozen=True, slots=True)
class Literal(Node):
    value: object


@dataclass(frozen=True, slots=True)
class Identifier(Node):
    name: str


@dataclass(frozen=True, slots=True)
class Unary(Node):
    op: str  # '-', '!' or 'empty'
    operand: Node

    def children(self) -> tuple[Node, ...]:
        return (self.operand,)


@dataclass(frozen=True, slots=True)
class Binary(Node):
    op: str  # symbolic form: '+', '&&', '==', ... (word operators are normalised by the lexer)
    left: Node
    right: Node

    def children(self) -> tuple[Node, ...]:
        return (self.left, self.right)


@dataclass(frozen=True, slots=True)
class Conditional(Node):
    test: Node
    then: Node
    otherwise: Node

    def children(self) -> tuple[Node, ...]:
        return (self.test, self.then, self.otherwise)


@dataclass(frozen=True, slots=True)
class Property(Node):
    """``base.name`` (key is a string Literal) or ``base[key]``."""

    base: Node
    key: Node

    def children(self) -> tuple[Node, ...]:
        return (self.base, self.key)


@dataclass(frozen=True, slots=True)
class MethodCall(Node):
    """``base.name(args)`` (name is a string Literal) or ``base[name](args)``."""

    base: Node
    name: Node
    args: tuple[Node, ...]

    def children(self) -> tuple[Node, ...]:
        return (self.base, self.name, *self.args)


@dataclass(frozen=True, slots=True)
class FunctionCall(Node):
    """``f(args)`` or ``ns:f(args)``, dispatched to ``EvaluationContext.call_function``."""

    name: str
    args: tuple[Node, ...]

    def children(self) -> tuple[Node, ...]:
        return self.args


def walk(root: Node) -> Iterator[tuple[Node, int]]:
    """Yield every node with its depth (root is 1), iteratively: trees may be deep."""
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack.extend((child, depth + 1) for child in reversed(node.children()))


def identifiers(root: Node) -> frozenset[str]:
    """Names of the top-level identifiers referenced anywhere in the tree."""
    return frozenset(node.name for node, _ in walk(root) if isinstance(node, Identifier))
