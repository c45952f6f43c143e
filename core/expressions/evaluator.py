"""Compiles an AST into nested Python closures, so evaluation does no tree dispatch at all.

Each node becomes one closure calling its children's closures; constant subtrees are folded
at compile time. Recursion while evaluating is therefore bounded by the tree depth, which the
parser caps.

Pure: no I/O (beyond what application objects and the context do when called).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, NamedTuple, NoReturn

from .access import call_method, get_property
from .coercion import to_bool, to_str
from .context import EvaluationContext
from .errors import ExpressionEvaluationError
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
)
from .operators import add, div, eq, ge, gt, is_empty, le, lt, mod, mul, ne, neg, sub

__all__ = ["Evaluator", "compile_node"]

Evaluator = Callable[[EvaluationContext], object]

_BINARY: Final[dict[str, Callable[[Any, Any], object]]] = {
    "+": add,
    "-": sub,
    "*": mul,
    "/": div,
    "%": mod,
    "==": eq,
    "!=": ne,
    "<": lt,
    ">": gt,
    "<=": le,
    ">=": ge,
}


class _Compiled(NamedTuple):
    fn: Evaluator
    constant: bool = False
    value: object = None


class _NoContext:
    """Context used for constant folding: folded subtrees never touch it."""

    def resolve(self, name: str) -> NoReturn:
        raise AssertionError(name)

    def call_function(self, name: str, args: list[object]) -> NoReturn:
        raise AssertionError(name)


_NO_CONTEXT: Final = _NoContext()


def _constant(value: object) -> _Compiled:
    def constant(ctx: EvaluationContext) -> object:
        return value

    return _Compiled(constant, True, value)


def _fold(fn: Evaluator, *parts: _Compiled) -> _Compiled:
    if all(part.constant for part in parts):
        try:
            return _constant(fn(_NO_CONTEXT))
        except ExpressionEvaluationError:
            pass  # e.g. ${'a' + 1}: keep it, so the error surfaces when evaluated as it should
    return _Compiled(fn)


def _identifier(node: Identifier) -> _Compiled:
    name = node.name

    def identifier(ctx: EvaluationContext) -> object:
        return ctx.resolve(name)

    return _Compiled(identifier)


def _unary(node: Unary) -> _Compiled:
    operand = _compile(node.operand)
    of = operand.fn
    if node.op == "-":

        def negate(ctx: EvaluationContext) -> object:
            return neg(of(ctx))

        return _fold(negate, operand)
    if node.op == "!":

        def logical_not(ctx: EvaluationContext) -> object:
            return not to_bool(of(ctx))

        return _fold(logical_not, operand)

    def empty(ctx: EvaluationContext) -> object:
        return is_empty(of(ctx))

    return _fold(empty, operand)


def _logical(node: Binary) -> _Compiled:
    left = _compile(node.left)
    right = _compile(node.right)
    lf = left.fn
    rf = right.fn
    if node.op == "&&":

        def logical_and(ctx: EvaluationContext) -> object:
            return to_bool(lf(ctx)) and to_bool(rf(ctx))

        return _fold(logical_and, left, right)

    def logical_or(ctx: EvaluationContext) -> object:
        return to_bool(lf(ctx)) or to_bool(rf(ctx))

    return _fold(logical_or, left, right)


def _binary(node: Binary) -> _Compiled:
    if node.op in ("&&", "||"):
        return _logical(node)
    op = _BINARY[node.op]
    left = _compile(node.left)
    right = _compile(node.right)
    lf = left.fn
    rf = right.fn
    if right.constant:
        rv = right.value
        if isinstance(node.left, Identifier):
            # The most common condition shape (${amount > 100}): one call fewer per evaluation.
            name = node.left.name

            def variable_op_constant(ctx: EvaluationContext) -> object:
                return op(ctx.resolve(name), rv)

            return _Compiled(variable_op_constant)

        def any_op_constant(ctx: EvaluationContext) -> object:
            return op(lf(ctx), rv)

        return _fold(any_op_constant, left)
    if left.constant:
        lv = left.value

        def constant_op_any(ctx: EvaluationContext) -> object:
            return op(lv, rf(ctx))

        return _Compiled(constant_op_any)

    def any_op_any(ctx: EvaluationContext) -> object:
        return op(lf(ctx), rf(ctx))

    return _Compiled(any_op_any)


def _conditional(node: Conditional) -> _Compiled:
    test = _compile(node.test)
    then = _compile(node.then)
    otherwise = _compile(node.otherwise)
    tf = test.fn
    thf = then.fn
    of = otherwise.fn
    if test.constant:
        try:
            return then if to_bool(test.value) else otherwise
        except ExpressionEvaluationError:
            pass

    def conditional(ctx: EvaluationContext) -> object:
        return thf(ctx) if to_bool(tf(ctx)) else of(ctx)

    return _Compiled(conditional)


def _property(node: Property) -> _Compiled:
    base = _compile(node.base)
    bf = base.fn
    if isinstance(node.key, Literal) and isinstance(node.key.value, str):
        key = node.key.value

        def named_property(ctx: EvaluationContext) -> object:
            value = bf(ctx)
            if type(value) is dict:  # fast path: variables are mostly JSON-like maps
                return value.get(key)
            return get_property(value, key)

        return _Compiled(named_property)
    kf = _compile(node.key).fn

    def indexed_property(ctx: EvaluationContext) -> object:
        return get_property(bf(ctx), kf(ctx))

    return _Compiled(indexed_property)


def _argument_list(args: tuple[Node, ...]) -> Callable[[EvaluationContext], list[object]]:
    fns = tuple(_compile(arg).fn for arg in args)
    if not fns:
        return lambda ctx: []
    if len(fns) == 1:
        (first,) = fns
        return lambda ctx: [first(ctx)]
    if len(fns) == 2:
        first, second = fns
        return lambda ctx: [first(ctx), second(ctx)]
    return lambda ctx: [fn(ctx) for fn in fns]


def _method_call(node: MethodCall) -> _Compiled:
    bf = _compile(node.base).fn
    arguments = _argument_list(node.args)
    if isinstance(node.name, Literal) and isinstance(node.name.value, str):
        name = node.name.value

        def named_method(ctx: EvaluationContext) -> object:
            return call_method(bf(ctx), name, arguments(ctx))

        return _Compiled(named_method)
    nf = _compile(node.name).fn

    def computed_method(ctx: EvaluationContext) -> object:
        return call_method(bf(ctx), to_str(nf(ctx)), arguments(ctx))

    return _Compiled(computed_method)


def _function_call(node: FunctionCall) -> _Compiled:
    name = node.name
    arguments = _argument_list(node.args)

    def function_call(ctx: EvaluationContext) -> object:
        return ctx.call_function(name, arguments(ctx))

    return _Compiled(function_call)


def _compile(node: Node) -> _Compiled:
    if isinstance(node, Literal):
        return _constant(node.value)
    if isinstance(node, Identifier):
        return _identifier(node)
    if isinstance(node, Binary):
        return _binary(node)
    if isinstance(node, Unary):
        return _unary(node)
    if isinstance(node, Conditional):
        return _conditional(node)
    if isinstance(node, Property):
        return _property(node)
    if isinstance(node, MethodCall):
        return _method_call(node)
    if isinstance(node, FunctionCall):
        return _function_call(node)
    raise TypeError(f"unknown node type {type(node).__name__}")


def compile_node(node: Node) -> Evaluator:
    """Turn a parsed expression into a function of the evaluation context."""
    return _compile(node).fn
