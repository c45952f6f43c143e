"""Compiled expression text: literal text, a single ``${...}``/``#{...}``, or composite text.

Each evaluation spends its node count from the command's budget (an upper bound of the steps
its tree takes: there are no loops in EL); one that runs outside a command counts against a
budget of its own (`bounds.MAX_STEPS`). Composite text is measured while it
is assembled, never joined past `bounds.MAX_STRING`.

Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Final, NoReturn

from ..budget import BudgetExceeded, current_budget
from .bounds import MAX_STRING, SHORT_TEXT, STANDALONE, charge_chars, check_length
from .coercion import to_str
from .context import EvaluationContext
from .errors import ExpressionEvaluationError, ExpressionSyntaxError
from .evaluator import Evaluator, compile_node
from .nodes import Node, identifiers, walk
from .parser import parse_expression

__all__ = ["Expression", "compile_expression"]

# An expression start, optionally escaped with a backslash (JUEL: "\${" is the literal "${").
_START: Final = re.compile(r"\\?[$#]\{")


class Expression:
    """An expression compiled once (at deploy time) and evaluated many times. Immutable."""

    __slots__ = ("_fn", "_identifiers", "_is_literal", "_source", "_steps")

    _source: str
    _is_literal: bool
    _identifiers: frozenset[str]
    _fn: Evaluator
    _steps: int

    def __init__(
        self,
        source: str,
        is_literal: bool,
        identifiers: frozenset[str],
        fn: Evaluator,
        steps: int = 1,
    ) -> None:
        object.__setattr__(self, "_source", source)
        object.__setattr__(self, "_is_literal", is_literal)
        object.__setattr__(self, "_identifiers", identifiers)
        object.__setattr__(self, "_fn", fn)
        # the nodes of its tree(s): what one evaluation spends at most, methods aside
        object.__setattr__(self, "_steps", steps)

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
            budget = current_budget()
            if budget is not None:
                budget.spend(self._steps, "expression")
                return self._fn(context)
            # Outside a command, each evaluation starts its own count (one nested in it, by a
            # bean it calls, starts afresh too: the outer one's nodes stay bounded by its text).
            STANDALONE.used = self._steps
            return self._fn(context)
        except ExpressionEvaluationError as exc:
            if exc.source is None:
                exc.source = self._source
            raise
        except BudgetExceeded as exc:
            raise BudgetExceeded(f"{exc.what} in {self._source}", exc.limit) from None


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
        texts = []
        length = 0
        for part in parts:
            text = to_str(part(ctx))
            length += len(text)
            if length > MAX_STRING:  # before the next part is even evaluated
                check_length(length, "Composite text")
            texts.append(text)
        if length >= SHORT_TEXT:
            charge_chars(length, "Composite text")
        return "".join(texts)

    return composite


def _embedded(prefix: str, fn: Evaluator, suffix: str) -> Evaluator:
    room = MAX_STRING - len(prefix) - len(suffix)

    def embedded(ctx: EvaluationContext) -> object:
        text = to_str(fn(ctx))
        if len(text) > room:
            check_length(len(text) + MAX_STRING - room, "Composite text")
        return prefix + text + suffix

    return embedded


def _cost(nodes: list[Node]) -> int:
    """The nodes of the trees: as many steps as one evaluation takes at most (no loops)."""
    return sum(1 for node in nodes for _ in walk(node))


def compile_expression(text: str) -> Expression:
    """Parse and compile expression text; raises ExpressionSyntaxError if it is invalid."""
    pieces = _split(text)
    nodes = [piece for piece in pieces if isinstance(piece, Node)]
    names = frozenset().union(*(identifiers(node) for node in nodes))
    if not nodes:
        return Expression(text, True, names, _text_constant("".join(map(str, pieces))))
    steps = _cost(nodes)
    if len(nodes) == 1 and all(isinstance(p, Node) or not p.strip() for p in pieces):
        # "${x}" (possibly padded, e.g. by CDATA line breaks) yields the raw value, not a str.
        return Expression(text, False, names, compile_node(nodes[0]), steps)
    if len(nodes) == 1:
        # "Task ${input}": the most common composite shape, without the generic join.
        index = next(i for i, piece in enumerate(pieces) if isinstance(piece, Node))
        prefix = "".join(map(str, pieces[:index]))
        suffix = "".join(map(str, pieces[index + 1 :]))
        fn = _embedded(prefix, compile_node(nodes[0]), suffix)
        return Expression(text, False, names, fn, steps + 1)
    parts = [
        _text_constant(piece) if isinstance(piece, str) else compile_node(piece) for piece in pieces
    ]
    return Expression(text, False, names, _composite(parts), steps + len(parts))
