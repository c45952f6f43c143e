"""Recursive-descent (precedence climbing) parser from tokens to the AST, EL 2.2 grammar.

Pure: no I/O.
"""

from __future__ import annotations

from typing import Final, NoReturn

from .errors import ExpressionSyntaxError
from .lexer import Token, scan_expression
from .nodes import (
    Binary,
    Conditional,
    FunctionCall,
    Identifier,
    Literal,
    MethodCall,
    Node,
    Property,
    Unary,
    walk,
)

__all__ = ["MAX_DEPTH", "parse_expression"]

# Deeper input is refused rather than risking Python's recursion limit while parsing,
# compiling or evaluating (each of which recurses at most once or twice per level).
MAX_DEPTH: Final = 200

# Binding power of the binary operators; higher binds tighter. All are left-associative.
_BINARY_POWER: Final = {
    "||": 2,
    "&&": 3,
    "==": 4,
    "!=": 4,
    "<": 5,
    ">": 5,
    "<=": 5,
    ">=": 5,
    "+": 6,
    "-": 6,
    "*": 7,
    "/": 7,
    "%": 7,
}
_CONDITIONAL_POWER: Final = 1
_UNARY_OPERATORS: Final = frozenset({"-", "!", "empty"})


class _Parser:
    def __init__(self, text: str, tokens: list[Token]) -> None:
        self._text = text
        self._tokens = tokens
        self._index = 0
        self._depth = 0

    @property
    def _token(self) -> Token:
        return self._tokens[self._index]

    def _peek(self, offset: int) -> Token:
        # The list always ends with 'eof', so clamp instead of checking at every call site.
        return self._tokens[min(self._index + offset, len(self._tokens) - 1)]

    def _advance(self) -> Token:
        token = self._tokens[self._index]
        if token.kind != "eof":
            self._index += 1
        return token

    def _fail(self, token: Token, reason: str) -> NoReturn:
        raise ExpressionSyntaxError(self._text, token.pos, reason)

    def _unexpected(self, token: Token) -> NoReturn:
        if token.kind == "eof":
            self._fail(token, "unexpected end of expression")
        if token.kind == "instanceof":
            self._fail(token, "the 'instanceof' operator is not supported")
        self._fail(token, f"unexpected '{token.text}'")

    def _expect(self, kind: str, context: str) -> Token:
        token = self._token
        if token.kind != kind:
            found = "end of expression" if token.kind == "eof" else f"'{token.text}'"
            self._fail(token, f"expected '{kind}' {context} but found {found}")
        return self._advance()

    def _enter(self) -> None:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            self._fail(self._token, f"expression is nested too deeply (limit is {MAX_DEPTH})")

    def parse(self) -> Node:
        node = self._expression(0)
        if self._token.kind != "eof":
            self._unexpected(self._token)
        return node

    def _expression(self, min_power: int) -> Node:
        self._enter()
        left = self._unary()
        while True:
            token = self._token
            if token.kind == "?":
                if min_power >= _CONDITIONAL_POWER:
                    break
                self._advance()
                then = self._expression(0)
                self._expect(":", "in conditional expression")
                # Right-associative: a ? b : c ? d : e is a ? b : (c ? d : e).
                otherwise = self._expression(_CONDITIONAL_POWER - 1)
                left = Conditional(token.pos, left, then, otherwise)
                continue
            power = _BINARY_POWER.get(token.kind)
            if power is None or power <= min_power:
                break
            self._advance()
            right = self._expression(power)
            left = Binary(token.pos, token.kind, left, right)
        self._depth -= 1
        return left

    def _unary(self) -> Node:
        # Prefix operators are collected in a loop and parentheses handled here, so that each
        # nesting level costs two Python frames (_expression, _unary) rather than three or more.
        operators: list[Token] = []
        while self._token.kind in _UNARY_OPERATORS:
            self._enter()
            operators.append(self._advance())
        token = self._token
        if token.kind == "(":
            self._advance()
            node = self._expression(0)
            self._expect(")", "to close '('")
        else:
            node = self._primary()
        node = self._suffixes(node)
        for operator in reversed(operators):
            node = Unary(operator.pos, operator.kind, node)
        self._depth -= len(operators)
        return node

    def _primary(self) -> Node:
        token = self._token
        kind = token.kind
        if kind == "literal":
            self._advance()
            return Literal(token.pos, token.value)
        if kind == "ident":
            return self._identifier()
        if kind == "[":
            self._fail(token, "list literals (EL 3.0) are not supported")
        if kind == "{":
            self._fail(token, "set and map literals (EL 3.0) are not supported")
        self._unexpected(token)

    def _identifier(self) -> Node:
        token = self._advance()
        following = self._token
        if following.kind == "(":
            return FunctionCall(token.pos, token.text, self._arguments())
        # ns:fn(...) only when written without spaces, so that "c ? a : f(x)" stays a
        # conditional (JUEL would read "a : f(x)" as a namespaced call and then fail).
        local = self._peek(1)
        if (
            following.kind == ":"
            and following.pos == token.end
            and local.kind == "ident"
            and local.pos == following.end
            and self._peek(2).kind == "("
        ):
            self._advance()
            self._advance()
            return FunctionCall(token.pos, f"{token.text}:{local.text}", self._arguments())
        return Identifier(token.pos, token.text)

    def _arguments(self) -> tuple[Node, ...]:
        self._expect("(", "to start the argument list")
        args: list[Node] = []
        if self._token.kind == ")":
            self._advance()
            return ()
        while True:
            args.append(self._expression(0))
            token = self._advance()
            if token.kind == ")":
                return tuple(args)
            if token.kind != ",":
                found = "end of expression" if token.kind == "eof" else f"'{token.text}'"
                self._fail(token, f"expected ',' or ')' in argument list but found {found}")

    def _suffixes(self, node: Node) -> Node:
        while True:
            token = self._token
            if token.kind == ".":
                self._advance()
                name = self._token
                if not name.word:
                    self._fail(name, "expected a property name after '.'")
                self._advance()
                key = Literal(name.pos, name.text)
                if self._token.kind == "(":
                    node = MethodCall(name.pos, node, key, self._arguments())
                else:
                    node = Property(name.pos, node, key)
            elif token.kind == "[":
                self._advance()
                key_node = self._expression(0)
                self._expect("]", "to close '['")
                if self._token.kind == "(":
                    node = MethodCall(token.pos, node, key_node, self._arguments())
                else:
                    node = Property(token.pos, node, key_node)
            else:
                return node


def parse_expression(text: str, open_pos: int) -> tuple[Node, int]:
    """Parse the ``${...}``/``#{...}`` starting at ``open_pos`` in ``text``.

    Returns the AST and the index of the closing brace. Raises ExpressionSyntaxError.
    """
    tokens, close = scan_expression(text, open_pos)
    if tokens[0].kind == "eof":
        raise ExpressionSyntaxError(text, open_pos, "empty expression")
    root = _Parser(text, tokens).parse()
    # Left-associative chains (a+b+c+...) parse iteratively but still produce a deep tree,
    # which the evaluator would recurse through, so the depth of the tree is bounded too.
    for node, depth in walk(root):
        if depth > MAX_DEPTH:
            raise ExpressionSyntaxError(
                text, node.pos, f"expression is nested too deeply (limit is {MAX_DEPTH})"
            )
    return root, close
