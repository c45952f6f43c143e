"""Compiled expression text: literal text, a single ``${...}``/``#{...}``, or composite text.

Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Final, NoReturn

from .coercion import to_str
from .context import EvaluationContext
from .errors import ExpressionEvaluationError, ExpressionSyntaxError
from .evaluator import Evaluator, compile_node
from .nodes import Node, identifiers
from .parser import parse_expression

__all__ = ["Expression", "compile_expression"]

# An expression start, optionally escaped with a backslash (JUEL: "\${" is the literal "${").
_START: Final = re.compile(r"\\?[$#]\{")


class Expression:
    """An expression compiled once (at deploy time) and evaluated many times. Immutable."""

    __slots__ = ("_fn", "_identifiers", "_is_literal", "_source")

    _source: str
    _is_literal: bool
    _identifiers: frozenset[str]
    _fn: Evaluator

    def __init__(
        self, source: str, is_literal: bool, identifiers: frozenset[str], fn: Evaluator
    ) -> None:
        object.__setattr__(self, "_source", source)
        object.__setattr__(self, "_is_literal", is_literal)
        object.__setattr__(self, "_identifiers", identifiers)
        object.__setattr__(self, "_fn", fn)

    @property
    def source(self) -> str:
        """The original text, exactly as given to compile_expression."""
        return self._source

    @property
    def is_literal(self) -> bool:
        """True when the text has no ``${...}``/``#{...}`` part (evaluates to the text itself)."""
        return self._is_literal

    @property
    def identifiers(self) -> frozenset[str]:
        """Top-level identifiers referenced anywhere in the text (for diagnostics)."""
        return self._identifiers

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"Expression is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"Expression is immutable (cannot delete {name!r})")

    def __repr__(self) -> str:
        return f"Expression({self.source!r})"

    def evaluate(self, context: EvaluationContext) -> object:
        """Evaluate against ``context``.

        Raises ExpressionEvaluationError (naming this expression's source); exceptions raised
        by the context or by application objects propagate unchanged.
        """
        try:
            return self._fn(context)
        except ExpressionEvaluationError as exc:
            if exc.source is None:
                exc.source = self._source
            raise


def _split(text: str) -> list[str | Node]:
    """Cut text into literal pieces and parsed expressions, in order."""
    pieces: list[str | Node] = []
    marker: str | None = None
    position = 0
    while (match := _START.search(text, position)) is not None:
        start = match.start()
        if text[start] == "\\":
            pieces.append(text[position:start] + match.group()[1:])
            position = match.end()
            continue
        if marker is None:
            marker = text[start]
        elif text[start] != marker:
            # EL spec 1.2.3: immediate and deferred syntax may not be mixed in one text.
            raise ExpressionSyntaxError(text, start, "cannot mix '${...}' and '#{...}'")
        pieces.append(text[position:start])
        node, close = parse_expression(text, start)
        pieces.append(node)
        position = close + 1
    pieces.append(text[position:])
    return [piece for piece in pieces if piece != ""]


def _text_constant(value: str) -> Evaluator:
    return lambda ctx: value


def _composite(parts: list[Evaluator]) -> Evaluator:
    def composite(ctx: EvaluationContext) -> object:
        return "".join([to_str(part(ctx)) for part in parts])

    return composite


def _embedded(prefix: str, fn: Evaluator, suffix: str) -> Evaluator:
    def embedded(ctx: EvaluationContext) -> object:
        return prefix + to_str(fn(ctx)) + suffix

    return embedded


def compile_expression(text: str) -> Expression:
    """Parse and compile expression text; raises ExpressionSyntaxError if it is invalid."""
    pieces = _split(text)
    nodes = [piece for piece in pieces if isinstance(piece, Node)]
    names = frozenset().union(*(identifiers(node) for node in nodes))
    if not nodes:
        return Expression(text, True, names, _text_constant("".join(map(str, pieces))))
    if len(nodes) == 1 and all(isinstance(p, Node) or not p.strip() for p in pieces):
        # "${x}" (possibly padded, e.g. by CDATA line breaks) yields the raw value, not a str.
        return Expression(text, False, names, compile_node(nodes[0]))
    if len(nodes) == 1:
        # "Task ${input}": the most common composite shape, without the generic join.
        index = next(i for i, piece in enumerate(pieces) if isinstance(piece, Node))
        prefix = "".join(map(str, pieces[:index]))
        suffix = "".join(map(str, pieces[index + 1 :]))
        return Expression(text, False, names, _embedded(prefix, compile_node(nodes[0]), suffix))
    parts = [
        _text_constant(piece) if isinstance(piece, str) else compile_node(piece) for piece in pieces
    ]
    return Expression(text, False, names, _composite(parts))
