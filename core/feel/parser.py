"""Recursive-descent (precedence-climbing) parser from FEEL tokens to the syntax tree.

Pure: no I/O, no evaluation. Bounded: nesting deeper than MAX_DEPTH is refused, so
model content cannot exhaust the Python stack.
"""

from __future__ import annotations

from typing import Final

from .builtins import BUILTINS, select_signature
from .errors import FeelSyntaxError
from .lexer import Token, scan
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
from .operators import negate
from .regex import REGEX_FUNCTIONS, literal_pattern_problem
from .temporal import parse_temporal

__all__ = ["MAX_DEPTH", "MAX_TREE_DEPTH", "parse_expression_tree", "parse_unary_tests_tree"]

MAX_DEPTH: Final = 100
MAX_TREE_DEPTH: Final = 200

_KEYWORDS: Final = frozenset(
    {"and", "or", "if", "then", "else", "for", "in", "return", "some", "every", "satisfies",
     "between", "instance", "of", "true", "false", "null", "function"}
)  # fmt: skip
_LITERALS: Final[dict[str, object]] = {"true": True, "false": False, "null": None}
# Binding strength of infix operators; higher binds tighter.
_OR, _AND, _COMPARISON, _INSTANCE, _ADDITIVE, _MULTIPLICATIVE, _POWER, _UNARY = range(1, 9)
_SYMBOL_PRECEDENCE: Final = {
    "=": _COMPARISON, "!=": _COMPARISON, "<": _COMPARISON, "<=": _COMPARISON,
    ">": _COMPARISON, ">=": _COMPARISON, "+": _ADDITIVE, "-": _ADDITIVE,
    "*": _MULTIPLICATIVE, "/": _MULTIPLICATIVE, "**": _POWER,
}  # fmt: skip
_WORD_PRECEDENCE: Final = {
    "or": _OR, "and": _AND, "between": _COMPARISON, "in": _COMPARISON, "instance": _INSTANCE
}  # fmt: skip
_FUNCTION_NAMES: Final = sorted((tuple(name.split()) for name in BUILTINS), key=len, reverse=True)
_TYPE_NAMES: Final = sorted(
    (
        tuple(name.split())
        for name in ("Any", "Null", "number", "string", "boolean", "date", "time",
                     "date and time", "days and time duration", "years and months duration",
                     "list", "context", "range", "function")
    ),
    key=len,
    reverse=True,
)  # fmt: skip
_MULTI_WORD_PROPERTIES: Final = (("time", "offset"), ("start", "included"), ("end", "included"))
# What may follow a range's closing '[' (as in "]1..10["); a filter '[' is followed by an
# expression instead.
_AFTER_RANGE: Final = frozenset({"eof", ",", ")", "]"})
_SIMPLE_VALUES: Final = (Literal, Name, Path)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = scan(text)
        self.index = 0
        self.depth = 0

    # -- token helpers

    @property
    def token(self) -> Token:
        return self.tokens[self.index]

    def _peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.index + offset, len(self.tokens) - 1)]

    def _advance(self) -> Token:
        token = self.tokens[self.index]
        if token.kind != "eof":
            self.index += 1
        return token

    def _is_word(self, word: str, token: Token | None = None) -> bool:
        token = token or self.token
        return token.kind == "name" and not token.quoted and token.text == word

    def _fail(self, reason: str, token: Token | None = None) -> FeelSyntaxError:
        token = token or self.token
        return FeelSyntaxError(self.text, token.position, reason)

    def _describe(self, token: Token) -> str:
        return "end of text" if token.kind == "eof" else repr(token.text)

    def _expect(self, kind: str) -> Token:
        if self.token.kind != kind:
            raise self._fail(f"expected '{kind}' but found {self._describe(self.token)}")
        return self._advance()

    def _expect_word(self, word: str) -> None:
        if not self._is_word(word):
            raise self._fail(f"expected '{word}' but found {self._describe(self.token)}")
        self._advance()

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self._fail(f"expression nests deeper than {MAX_DEPTH} levels")

    def _end(self) -> None:
        if self.token.kind != "eof":
            raise self._fail(f"unexpected {self._describe(self.token)}")

    # -- expressions

    def expression(self, min_precedence: int = 0) -> Node:
        self._enter()
        left = self._prefix()
        while True:
            precedence = self._infix_precedence()
            if precedence is None or precedence < min_precedence:
                break
            left = self._infix(left, precedence)
        self.depth -= 1
        return left

    def _infix_precedence(self) -> int | None:
        token = self.token
        if token.kind == "name" and not token.quoted:
            return _WORD_PRECEDENCE.get(token.text)
        return _SYMBOL_PRECEDENCE.get(token.kind)

    def _infix(self, left: Node, precedence: int) -> Node:
        token = self._advance()
        operator = token.text
        if operator == "or":
            return Or(left, self.expression(precedence + 1))
        if operator == "and":
            return And(left, self.expression(precedence + 1))
        if operator == "between":
            low = self.expression(_ADDITIVE)
            self._expect_word("and")
            return Between(left, low, self.expression(_ADDITIVE))
        if operator == "in":
            return In(left, self._in_tests())
        if operator == "instance":
            self._expect_word("of")
            return InstanceOf(left, self._type_name())
        right = self.expression(precedence + 1)
        if token.kind in ("+", "-", "*", "/", "**"):
            return Arithmetic(operator, left, right)
        return Compare(operator, left, right)

    def _type_name(self) -> str:
        words = self._match_words(_TYPE_NAMES, need_paren=False)
        if words is None:
            raise self._fail(f"expected a type name but found {self._describe(self.token)}")
        return " ".join(words)

    def _match_words(
        self, candidates: list[tuple[str, ...]], *, need_paren: bool
    ) -> tuple[str, ...] | None:
        """The longest candidate spelled by the next name tokens; consumes it."""
        for words in candidates:
            tokens = [self._peek(i) for i in range(len(words))]
            if all(
                t.kind == "name" and not t.quoted and t.text == w
                for t, w in zip(tokens, words, strict=True)
            ) and (not need_paren or self._peek(len(words)).kind == "("):
                self.index += len(words)
                return words
        return None

    def _prefix(self) -> Node:
        token = self.token
        if token.kind == "-":
            self._advance()
            operand = self.expression(_UNARY)
            if isinstance(operand, Literal) and not isinstance(operand.value, bool):
                # Fold "-1" so it stays a simple value (an equality test in unary tests).
                value = negate(operand.value)
                return Literal(value) if value is not None else Negate(operand)
            return Negate(operand)
        if token.kind == "name" and not token.quoted:
            keyword = token.text
            if keyword == "if":
                return self._if()
            if keyword in ("for", "some", "every"):
                return self._iteration(keyword)
            if keyword == "function":
                return self._postfix(self._function())
        return self._postfix(self._primary())

    def _if(self) -> Node:
        self._advance()
        condition = self.expression()
        self._expect_word("then")
        then = self.expression()
        self._expect_word("else")
        return If(condition, then, self.expression())

    def _iteration(self, keyword: str) -> Node:
        self._advance()
        bindings: list[tuple[str, Node]] = []
        while True:
            name = self._expect("name")
            if not name.quoted and name.text in _KEYWORDS:
                raise self._fail("expected a variable name", name)
            self._expect_word("in")
            domain = self.expression(_COMPARISON + 1)
            if self.token.kind == "..":
                self._advance()
                domain = RangeNode(domain, self.expression(_COMPARISON + 1), True, True)
            bindings.append((name.text, domain))
            if self.token.kind != ",":
                break
            self._advance()
        if keyword == "for":
            self._expect_word("return")
            return For(tuple(bindings), self.expression())
        self._expect_word("satisfies")
        return Quantified(keyword == "every", tuple(bindings), self.expression())

    def _function(self) -> Node:
        self._advance()
        self._expect("(")
        parameters: list[str] = []
        while self.token.kind != ")":
            parameters.append(self._expect("name").text)
            if self.token.kind != ",":
                break
            self._advance()
        self._expect(")")
        return FunctionNode(tuple(parameters), self.expression())

    def _primary(self) -> Node:
        token = self.token
        if token.kind in ("number", "string"):
            self._advance()
            return Literal(token.value)
        if token.kind == "temporal":
            self._advance()
            assert isinstance(token.value, str)
            value = parse_temporal(token.value)
            if value is None:
                raise self._fail(f"invalid temporal literal {token.text}", token)
            return Literal(value)
        if token.kind == "?":
            self._advance()
            return InputValue()
        if token.kind == "name":
            return self._name()
        if token.kind == "(":
            return self._parenthesized()
        if token.kind == "[":
            return self._bracketed()
        if token.kind == "]":
            self._advance()
            start = self.expression()
            self._expect("..")
            return self._range_rest(start, start_included=False)
        if token.kind == "{":
            return self._context()
        raise self._fail(f"expected an expression but found {self._describe(token)}")

    def _name(self) -> Node:
        token = self.token
        if not token.quoted:
            if token.text in _LITERALS:
                self._advance()
                return Literal(_LITERALS[token.text])
            words = self._match_words(_FUNCTION_NAMES, need_paren=True)
            if words is not None:
                return self._call(" ".join(words), token)
            if token.text in _KEYWORDS:
                raise self._fail(f"expected an expression but found '{token.text}'")
        self._advance()
        if self.token.kind == "(":
            raise self._fail(f"unknown function '{token.text}'", token)
        return Name(token.text)

    def _call(self, name: str, start: Token) -> Node:
        self._expect("(")
        positional: list[Node] = []
        named: list[tuple[str, Node]] = []
        while self.token.kind != ")":
            parameter = self._parameter_name()
            if parameter is not None:
                named.append((parameter, self.expression()))
            else:
                positional.append(self.expression())
            if positional and named:
                raise self._fail("cannot mix positional and named arguments")
            if self.token.kind != ",":
                break
            self._advance()
        self._expect(")")
        names = tuple(parameter for parameter, _ in named) if named else None
        if select_signature(name, len(positional), names) is None:
            shown = ", ".join(names) if names else f"{len(positional)} argument(s)"
            raise self._fail(f"function '{name}' cannot be called with {shown}", start)
        call = Call(name, tuple(positional), tuple(named) if named else None)
        if name in REGEX_FUNCTIONS:
            self._check_pattern(call, start)
        return call

    def _check_pattern(self, call: Call, start: Token) -> None:
        """A literal pattern the regular-expression engine refuses is refused here, at deploy,
        rather than at each evaluation."""
        index, parameter = REGEX_FUNCTIONS[call.name]
        flags_index = 3 if call.name == "replace" else 2
        if call.named is None:
            pattern = call.positional[index] if len(call.positional) > index else None
            flags = call.positional[flags_index] if len(call.positional) > flags_index else None
        else:
            given = dict(call.named)
            pattern, flags = given.get(parameter), given.get("flags")
        if not isinstance(pattern, Literal) or not isinstance(pattern.value, str):
            return
        if flags is None:
            flags_text = None
        elif isinstance(flags, Literal) and isinstance(flags.value, str | None):
            flags_text = flags.value
        else:
            return
        problem = literal_pattern_problem(call.name, pattern.value, flags_text)
        if problem is not None:
            raise self._fail(problem, start)

    def _parameter_name(self) -> str | None:
        """If the next tokens are ``words :``, consume them and return the joined name."""
        offset = 0
        while self._peek(offset).kind == "name" and offset < 5:
            offset += 1
        if offset and self._peek(offset).kind == ":":
            words = [self._peek(i).text for i in range(offset)]
            self.index += offset + 1
            return " ".join(words)
        return None

    def _parenthesized(self) -> Node:
        self._advance()
        first = self.expression()
        if self.token.kind == "..":
            self._advance()
            return self._range_rest(first, start_included=False)
        self._expect(")")
        return first

    def _bracketed(self) -> Node:
        self._advance()
        if self.token.kind == "]":
            self._advance()
            return ListNode(())
        first = self.expression()
        if self.token.kind == "..":
            self._advance()
            return self._range_rest(first, start_included=True)
        items = [first]
        while self.token.kind == ",":
            self._advance()
            items.append(self.expression())
        self._expect("]")
        return ListNode(tuple(items))

    def _range_rest(self, start: Node, *, start_included: bool) -> RangeNode:
        """Parse ``end]`` after ``start..``; ``]`` closes inclusively, ``)`` or ``[`` not."""
        end = self.expression()
        closing = self.token
        if closing.kind not in ("]", ")", "["):
            raise self._fail(f"expected ']', ')' or '[' but found {self._describe(closing)}")
        self._advance()
        return RangeNode(start, end, start_included, closing.kind == "]")

    def _context(self) -> Node:
        self._advance()
        entries: list[tuple[str, Node]] = []
        while self.token.kind != "}":
            key_start = self.token
            if self.token.kind == "string":
                key_token = self._advance()
                assert isinstance(key_token.value, str)
                key = key_token.value
                self._expect(":")
            else:
                found = self._parameter_name()
                if found is None:
                    raise self._fail(
                        f"expected a context key but found {self._describe(self.token)}"
                    )
                key = found
            if any(existing == key for existing, _ in entries):
                raise self._fail(f"duplicate context key '{key}'", key_start)
            entries.append((key, self.expression()))
            if self.token.kind != ",":
                break
            self._advance()
        self._expect("}")
        return ContextNode(tuple(entries))

    def _postfix(self, node: Node) -> Node:
        while True:
            if self.token.kind == ".":
                self._advance()
                words = self._match_words(list(_MULTI_WORD_PROPERTIES), need_paren=False)
                node = Path(node, " ".join(words) if words else self._expect("name").text)
            elif self.token.kind == "[" and self._peek().kind not in _AFTER_RANGE:
                self._advance()
                self._enter()
                condition = self.expression()
                self.depth -= 1
                self._expect("]")
                node = Filter(node, condition)
            else:
                return node

    # -- unary tests

    def unary_tests(self) -> Test:
        if self.token.kind == "eof":
            return TestAny()
        if self.token.kind == "-" and self._peek().kind == "eof":
            self._advance()
            return TestAny()
        if self._is_word("not") and self._peek().kind == "(":
            start = self.index
            self._advance()
            self._advance()
            tests = self._test_list(min_precedence=0)
            self._expect(")")
            if self.token.kind == "eof":
                return TestNot(tests)
            # "not(x) = y" and friends: an ordinary expression after all.
            self.index = start
        tests = self._test_list(min_precedence=0)
        self._end()
        return tests[0] if len(tests) == 1 else TestList(tests)

    def _test_list(self, *, min_precedence: int) -> tuple[Test, ...]:
        tests = [self._positive_test(min_precedence)]
        while self.token.kind == ",":
            self._advance()
            tests.append(self._positive_test(min_precedence))
        return tuple(tests)

    def _positive_test(self, min_precedence: int) -> Test:
        token = self.token
        if token.kind in ("<", "<=", ">", ">="):
            self._advance()
            return TestCompare(token.kind, self.expression(_ADDITIVE))
        if token.kind == "=" or token.kind == "!=":
            raise self._fail(f"unexpected '{token.kind}' (write the value alone to test equality)")
        return _classify(self.expression(min_precedence))

    def _in_tests(self) -> Test:
        """The right side of ``x in ...``: one positive test or a parenthesized list of them."""
        if self.token.kind != "(":
            return self._positive_test(_COMPARISON + 1)
        self._advance()
        self._enter()
        tests = self._test_list(min_precedence=0)
        self.depth -= 1
        first = tests[0]
        if (
            len(tests) == 1
            and self.token.kind == ".."
            and isinstance(first, TestEqual | TestExpression)
        ):
            # "(1..5]": an open range, not a parenthesized test.
            self._advance()
            return TestRange(self._range_rest(first.expression, start_included=False))
        self._expect(")")
        return first if len(tests) == 1 else TestList(tests)


def _classify(expression: Node) -> Test:
    if isinstance(expression, RangeNode):
        return TestRange(expression)
    if isinstance(expression, _SIMPLE_VALUES):
        return TestEqual(expression)
    return TestExpression(expression, uses_input=_mentions_input(expression))


def _children(node: object) -> list[object]:
    """Every node directly inside ``node`` (through tuples of nodes and (name, node) pairs)."""
    found: list[object] = []
    pending: list[object] = [getattr(node, name) for name in getattr(node, "__slots__", ())]
    while pending:
        item = pending.pop()
        if isinstance(item, Node):
            found.append(item)
        elif isinstance(item, tuple):
            pending.extend(item)
    return found


def _mentions_input(expression: Node) -> bool:
    pending: list[object] = [expression]
    while pending:
        node = pending.pop()
        if isinstance(node, InputValue):
            return True
        pending.extend(_children(node))
    return False


def _check_tree_depth(root: Node, text: str) -> None:
    """Refuse trees deeper than MAX_TREE_DEPTH (long operator chains such as 1+1+1+...),
    which the evaluator would otherwise walk with deep Python recursion."""
    pending: list[tuple[object, int]] = [(root, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > MAX_TREE_DEPTH:
            raise FeelSyntaxError(
                text, 0, f"expression too complex: more than {MAX_TREE_DEPTH} levels of operators"
            )
        pending.extend((child, depth + 1) for child in _children(node))


def parse_expression_tree(text: str) -> Node:
    parser = _Parser(text)
    if parser.token.kind == "eof":
        raise parser._fail("expected an expression but found end of text")
    node = parser.expression()
    parser._end()
    _check_tree_depth(node, text)
    return node


def parse_unary_tests_tree(text: str) -> Test:
    tests = _Parser(text).unary_tests()
    _check_tree_depth(tests, text)
    return tests
