"""Tests for core.expressions: the JUEL (EL 2.2) subset used by Camunda 7 models."""

from __future__ import annotations

import math
import pickle
from datetime import date, datetime
from enum import Enum
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flowledger.core.expressions import (
    EvaluationContext,
    Expression,
    ExpressionEvaluationError,
    ExpressionSyntaxError,
    Long,
    MappingContext,
    UnknownIdentifier,
    compile_expression,
)


def ev(text: str, **variables: object) -> object:
    return compile_expression(text).evaluate(MappingContext(variables))


class RecordingContext:
    """Resolves from a dict, records every lookup, and raises for names listed as forbidden."""

    def __init__(self, variables: dict[str, object], forbidden: frozenset[str] = frozenset()):
        self.variables = variables
        self.forbidden = forbidden
        self.resolved: list[str] = []
        self.calls: list[tuple[str, list[object]]] = []

    def resolve(self, name: str) -> object:
        self.resolved.append(name)
        if name in self.forbidden:
            raise AssertionError(f"{name} must not be evaluated")
        if name not in self.variables:
            raise UnknownIdentifier(name)
        return self.variables[name]

    def call_function(self, name: str, args: list[object]) -> object:
        self.calls.append((name, args))
        if name == "now":
            return datetime(2024, 1, 2, 3, 4, 5)
        if name == "fn:concat":
            return "".join(str(a) for a in args)
        if name == "max":
            return max(args)  # type: ignore[type-var]
        raise ExpressionEvaluationError(f"Unknown function '{name}'")


def syntax_error(text: str) -> ExpressionSyntaxError:
    with pytest.raises(ExpressionSyntaxError) as info:
        compile_expression(text)
    error = info.value
    assert error.text == text
    assert f"at position {error.position}" in str(error)
    assert text in str(error)
    return error


def evaluation_error(text: str, **variables: object) -> ExpressionEvaluationError:
    with pytest.raises(ExpressionEvaluationError) as info:
        ev(text, **variables)
    assert text in str(info.value)
    return info.value


# --- literals -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${true}", True),
        ("${false}", False),
        ("${null}", None),
        ("${42}", 42),
        ("${0}", 0),
        ("${1.5}", 1.5),
        ("${1e3}", 1000.0),
        ("${1E-2}", 0.01),
        ("${.5}", 0.5),
        ("${2.}", 2.0),
        ("${'single'}", "single"),
        ('${"double"}', "double"),
        (r"${'it\'s'}", "it's"),
        (r'${"say \"hi\""}', 'say "hi"'),
        (r"${'back\\slash'}", "back\\slash"),
        ("${'a}b{c'}", "a}b{c"),
        ("${''}", ""),
    ],
)
def test_literals(text: str, expected: object) -> None:
    value = ev(text)
    assert value == expected
    assert type(value) is type(expected) or isinstance(value, Long)


def test_integer_literals_are_long_and_floats_are_float() -> None:
    assert isinstance(ev("${42}"), Long)
    assert type(ev("${1.5}")) is float
    assert type(ev("${1e3}")) is float


# --- arithmetic -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${1 + 1}", 2),
        ("${5 - 7}", -2),
        ("${6 * 7}", 42),
        ("${-5}", -5),
        ("${- -5}", 5),
        ("${10 % 3}", 1),
        ("${10 mod 3}", 1),
        ("${-7 % 3}", -1),
        ("${7 % -3}", 1),
        ("${-7 mod -3}", -1),
        ("${99999999999 * 99999999999}", 99999999999 * 99999999999),
        ("${'10' + 1}", 11),
        ("${null + 1}", 1),
        ("${null + null}", 0),
        ("${'-3' * '2'}", -6),
        ("${-'4'}", -4),
    ],
)
def test_integer_arithmetic_is_long(text: str, expected: int) -> None:
    value = ev(text)
    assert value == expected
    assert isinstance(value, Long)


def test_one_plus_one_is_long_two() -> None:
    value = ev("${1+1}")
    assert value == 2
    assert isinstance(value, Long)


def test_integer_arithmetic_on_variables_is_long() -> None:
    value = ev("${a + b}", a=1, b=2)
    assert value == 3
    assert isinstance(value, Long)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${7/2}", 3.5),
        ("${7 div 2}", 3.5),
        ("${4/2}", 2.0),
        ("${1.5 + 1}", 2.5),
        ("${'1.5' + 1}", 2.5),
        ("${'1e1' * 2}", 20.0),
        ("${2 * 0.5}", 1.0),
        ("${-1.5}", -1.5),
        ("${-'1.5'}", -1.5),
        ("${7.5 % 2}", 1.5),
        ("${-7.5 % 2}", -1.5),
    ],
)
def test_float_arithmetic(text: str, expected: float) -> None:
    value = ev(text)
    assert type(value) is float
    assert value == expected


def test_division_by_zero_follows_java_doubles() -> None:
    assert ev("${1/0}") == math.inf
    assert ev("${-1/0}") == -math.inf
    assert ev("${1/-0.0}") == -math.inf
    assert math.isnan(ev("${0/0}"))  # type: ignore[arg-type]
    assert math.isnan(ev("${1.5 % 0}"))  # type: ignore[arg-type]


def test_integer_modulo_by_zero_is_an_error() -> None:
    error = evaluation_error("${5 % 0}")
    assert "zero" in str(error)
    evaluation_error("${5 mod x}", x=0)


@pytest.mark.parametrize("text", ["${'a' + 'b'}", "${'abc' + 1}", "${x + 1}"])
def test_plus_is_numeric_only(text: str) -> None:
    error = evaluation_error(text, x="abc")
    assert "Cannot coerce" in str(error)
    assert "number" in str(error)


def test_coercion_error_message_names_value_and_source() -> None:
    error = evaluation_error("${'abc' - 1}")
    assert str(error) == "Cannot coerce 'abc' to a number in ${'abc' - 1}"


@pytest.mark.parametrize("text", ["${true + 1}", "${-true}", "${x * 2}", "${l - 1}"])
def test_arithmetic_refuses_booleans_and_objects(text: str) -> None:
    evaluation_error(text, x=False, l=[1])


# --- precedence -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${1 + 2 * 3}", 7),
        ("${(1 + 2) * 3}", 9),
        ("${10 - 4 - 3}", 3),
        ("${2 * 3 % 4}", 2),
        ("${-2 * 3}", -6),
        ("${1 + 2 < 4}", True),
        ("${1 < 2 == true}", True),
        ("${true || false && false}", True),
        ("${(true || false) && false}", False),
        ("${!false && false}", False),
        ("${not true or true}", True),
        ("${1 == 1 ? 'y' : 'n'}", "y"),
        ("${false ? 1 : true ? 2 : 3}", 2),
        ("${false ? 1 : false ? 2 : 3}", 3),
        ("${true ? false ? 1 : 2 : 3}", 2),
        ("${empty x && true}", True),
        ("${-a.b}", -4),
        ("${a.b + a.c * 2}", 10),
    ],
)
def test_precedence(text: str, expected: object) -> None:
    assert ev(text, x=None, a={"b": 4, "c": 3}) == expected


# --- comparison and equality ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${1 < 2}", True),
        ("${1 lt 2}", True),
        ("${2 > 1}", True),
        ("${2 gt 1}", True),
        ("${2 <= 2}", True),
        ("${2 le 1}", False),
        ("${2 >= 3}", False),
        ("${3 ge 3}", True),
        ("${1 == 1}", True),
        ("${1 eq 2}", False),
        ("${1 != 2}", True),
        ("${1 ne 1}", False),
        ("${1 == 1.0}", True),
        ("${1 < 1.5}", True),
        ("${'10' == 10}", True),
        ("${'1.5' == 1.5}", True),
        ("${'5' < 10}", True),
        ("${'1.5' < 2}", True),
        ("${'abc' < 'abd'}", True),
        ("${'b' > 'abc'}", True),
        ("${'a' == 'a'}", True),
        ("${'a' != 'b'}", True),
        ("${true == 'TRUE'}", True),
        ("${false == 'x'}", True),
        ("${true == true}", True),
        ("${null == null}", True),
        ("${null == 0}", False),
        ("${0 == null}", False),
        ("${null != 'x'}", True),
        ("${null < 1}", False),
        ("${1 > null}", False),
        ("${null <= null}", True),
        ("${null < null}", False),
    ],
)
def test_comparisons(text: str, expected: bool) -> None:
    assert ev(text) is expected


def test_equality_coerces_to_string_against_strings() -> None:
    class Status(Enum):
        OPEN = 1

    assert ev("${s == 'OPEN'}", s=Status.OPEN) is True
    assert ev("${'OPEN' == s}", s=Status.OPEN) is True
    assert ev("${s != 'CLOSED'}", s=Status.OPEN) is True
    assert ev("${d == d2}", d={"a": 1}, d2={"a": 1}) is True


@pytest.mark.parametrize(
    "text", ["${'abc' == 1}", "${'abc' < 1}", "${true < false}", "${l < 1}", "${true == 1}"]
)
def test_comparison_coercion_failures(text: str) -> None:
    evaluation_error(text, l=[1])


def test_dates_compare() -> None:
    assert ev("${a < b}", a=datetime(2024, 1, 1), b=datetime(2024, 6, 1)) is True
    assert ev("${a >= b}", a=date(2024, 1, 1), b=date(2024, 6, 1)) is False
    evaluation_error("${a < b}", a=date(2024, 1, 1), b=datetime(2024, 6, 1))


# --- logic, empty, ternary ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${true && true}", True),
        ("${true and false}", False),
        ("${false || true}", True),
        ("${false or false}", False),
        ("${!true}", False),
        ("${not false}", True),
        ("${!null}", True),
        ("${'true' && 'TRUE'}", True),
        ("${'yes' || null}", False),
    ],
)
def test_boolean_operators(text: str, expected: bool) -> None:
    assert ev(text) is expected


def test_boolean_coercion_refuses_numbers_and_objects() -> None:
    evaluation_error("${1 && true}")
    evaluation_error("${!x}", x=[])
    evaluation_error("${x ? 1 : 2}", x=1)


def test_and_short_circuits() -> None:
    context = RecordingContext({}, forbidden=frozenset({"x"}))
    assert compile_expression("${false and x}").evaluate(context) is False
    assert compile_expression("${true || x}").evaluate(context) is True
    assert (
        compile_expression("${y && x}").evaluate(RecordingContext({"y": False}, context.forbidden))
        is False
    )
    assert "x" not in context.resolved


def test_ternary_evaluates_one_branch_only() -> None:
    context = RecordingContext({"c": True, "a": 1}, forbidden=frozenset({"b"}))
    assert compile_expression("${c ? a : b}").evaluate(context) == 1
    assert compile_expression("${c?a:b}").evaluate(context) == 1


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, True),
        ("", True),
        ([], True),
        ((), True),
        ({}, True),
        (set(), True),
        ("x", False),
        ([0], False),
        ({"a": None}, False),
        (0, False),
        (False, False),
    ],
)
def test_empty(value: object, expected: bool) -> None:
    assert ev("${empty x}", x=value) is expected
    assert ev("${not empty x}", x=value) is (not expected)


# --- text forms -----------------------------------------------------------------------------


def test_literal_text() -> None:
    expression = compile_expression("Approve invoice")
    assert expression.is_literal
    assert expression.identifiers == frozenset()
    assert expression.evaluate(MappingContext()) == "Approve invoice"
    assert compile_expression("").evaluate(MappingContext()) == ""
    assert compile_expression("costs $5 {approx}").evaluate(MappingContext()) == "costs $5 {approx}"


def test_escaped_expression_markers_are_literal() -> None:
    expression = compile_expression(r"literal \${x} and \#{y}")
    assert expression.is_literal
    assert expression.evaluate(MappingContext()) == "literal ${x} and #{y}"
    assert ev(r"\${a} is ${a}", a=1) == "${a} is 1"


def test_single_expression_returns_raw_value() -> None:
    expression = compile_expression("${items}")
    assert not expression.is_literal
    items = [1, 2]
    assert expression.evaluate(MappingContext({"items": items})) is items


def test_whitespace_around_single_expression_is_tolerated() -> None:
    assert ev("\n      ${amount > 100}\n    ", amount=150) is True
    assert ev("  ${n}  ", n=5) == 5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Task ${input}", "Task abc"),
        ("${a}-${b}", "1-2.0"),
        ("${n}|${t}|${f}", "|true|false"),
        ("${big}", 1e20),
        ("v=${big}", "v=1.0E20"),
        ("v=${small}", "v=1.0E-5"),
        ("v=${3 / 2}", "v=1.5"),
        ("v=${4 / 2}", "v=2.0"),
        ("v=${1/0}", "v=Infinity"),
        ("v=${0/0}", "v=NaN"),
        ("v=${1234567.0}", "v=1234567.0"),
        ("v=${12345678.9}", "v=1.23456789E7"),
        ("${l}", [1, "x"]),
        ("l=${l}", "l=[1, 'x']"),
        (" ${a}${b} ", " 12.0 "),
        ("${x == '}'}", False),
        ("${x == '}'} and ${'{'}", "false and {"),
    ],
)
def test_composite_text(text: str, expected: object) -> None:
    variables = {
        "input": "abc",
        "a": 1,
        "b": 2.0,
        "n": None,
        "t": True,
        "f": False,
        "big": 1e20,
        "small": 0.00001,
        "l": [1, "x"],
        "x": "y",
    }
    assert ev(text, **variables) == expected


def test_deferred_syntax() -> None:
    assert ev("#{x + 1}", x=1) == 2
    assert ev("Hello #{name}", name="Ann") == "Hello Ann"


def test_expression_metadata() -> None:
    expression = compile_expression("${a.b > c && f(d) ? e['x'] : ns:g(h.i())} and ${a}")
    assert expression.source == "${a.b > c && f(d) ? e['x'] : ns:g(h.i())} and ${a}"
    assert not expression.is_literal
    assert expression.identifiers == frozenset({"a", "c", "d", "e", "h"})
    assert repr(expression) == f"Expression({expression.source!r})"


def test_expression_is_immutable() -> None:
    expression = compile_expression("${a}")
    with pytest.raises(AttributeError):
        expression.source = "${b}"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del expression.is_literal


def test_compiled_expression_is_reusable_across_contexts() -> None:
    expression = compile_expression("${amount > 100}")
    assert expression.evaluate(MappingContext({"amount": 150})) is True
    assert expression.evaluate(MappingContext({"amount": 50})) is False
    assert expression.evaluate(MappingContext({"amount": "150"})) is True
    assert expression.evaluate(MappingContext({"amount": None})) is False


# --- property access ------------------------------------------------------------------------


class Customer:
    def __init__(self) -> None:
        self.name = "Ann"
        self._secret = "s"
        self.tags = ["vip"]

    def getAge(self) -> int:  # Java bean getter, as Camunda models expect
        return 42

    def isActive(self) -> bool:
        return True

    def greet(self, other: str) -> str:
        return f"hi {other}"

    @property
    def email(self) -> str:
        return "ann@example.com"


class Point(NamedTuple):
    x: int
    y: int


def test_dict_property_access() -> None:
    data = {"a": {"b": 1}, "1": "one", 2: "two", "_x": "underscore keys are data"}
    assert ev("${d.a.b}", d=data) == 1
    assert ev("${d['a']['b']}", d=data) == 1
    assert ev("${d[k]}", d=data, k="a") == {"b": 1}
    assert ev("${d.missing}", d=data) is None
    assert ev("${d.missing.deeper}", d=data) is None
    assert ev("${d[1]}", d=data) == "one"
    assert ev("${d[2]}", d=data) == "two"
    assert ev("${d._x}", d=data) == "underscore keys are data"


def test_list_index_access() -> None:
    items = ["a", "b", "c"]
    assert ev("${l[0]}", l=items) == "a"
    assert ev("${l['1']}", l=items) == "b"
    assert ev("${l[1.9]}", l=items) == "b"
    assert ev("${l[i + 1]}", l=items, i=1) == "c"
    assert ev("${l[3]}", l=items) is None
    assert ev("${l[-1]}", l=items) is None  # no Python negative indexing
    assert ev("${l[null]}", l=items) is None
    assert ev("${t[0]}", t=("x",)) == "x"
    evaluation_error("${l['x']}", l=items)
    evaluation_error("${l.size}", l=items)


def test_namedtuple_fields_are_readable() -> None:
    assert ev("${p.x + p['y']}", p=Point(1, 2)) == 3


def test_null_base_property_is_null() -> None:
    assert ev("${x.y}", x=None) is None
    assert ev("${x['y'].z}", x=None) is None


def test_object_property_access() -> None:
    customer = Customer()
    assert ev("${c.name}", c=customer) == "Ann"
    assert ev("${c.email}", c=customer) == "ann@example.com"
    assert ev("${c.tags[0]}", c=customer) == "vip"
    assert ev("${c['name']}", c=customer) == "Ann"


def test_object_property_getter_fallback() -> None:
    customer = Customer()
    assert ev("${c.age}", c=customer) == 42
    assert ev("${c.active}", c=customer) is True
    error = evaluation_error("${c.unknown}", c=customer)
    assert "Property 'unknown' not found on type Customer" in str(error)


@pytest.mark.parametrize(
    "text",
    [
        "${c._secret}",
        "${c.__class__}",
        "${c.__dict__}",
        "${c['__class__']}",
        "${c.__init__.__globals__}",
    ],
)
def test_private_properties_are_refused(text: str) -> None:
    error = evaluation_error(text, c=Customer())
    assert "not accessible" in str(error)


@pytest.mark.parametrize(
    "text",
    [
        "${s.__class__}",
        "${s.upper}",
        "${s.length}",
        "${n.real}",
        "${n.__class__.__bases__}",
        "${f.hex}",
        "${b.real}",
        "${fn.__globals__}",
        "${t.__name__}",
        "${g.gi_frame}",
        "${m.path}",
    ],
)
def test_property_access_on_builtin_values_is_refused(text: str) -> None:
    import os

    def generator() -> Any:
        yield 1

    evaluation_error(text, s="abc", n=Long(1), f=1.5, b=True, fn=len, t=str, g=generator(), m=os)


# --- method calls ---------------------------------------------------------------------------


class Execution:
    """Stand-in for the engine's execution facade."""

    def __init__(self) -> None:
        self.variables: dict[str, object] = {"x": 5}
        self.processInstanceId = "pi-1"  # Camunda property name

    def getVariable(self, name: str) -> object:
        return self.variables.get(name)

    def setVariable(self, name: str, value: object) -> None:
        self.variables[name] = value

    def getActivityId(self) -> str:
        return "task1"


class ChargeBean:
    def __init__(self) -> None:
        self.charged: list[object] = []

    def run(self, execution: Execution) -> str:
        self.charged.append(execution.getVariable("x"))
        return "done"

    def add(self, *numbers: int) -> int:
        return sum(numbers)


def test_method_calls_on_execution() -> None:
    execution = Execution()
    assert ev("#{execution.getVariable('x')}", execution=execution) == 5
    assert ev("${execution.getVariable('x') > 3}", execution=execution) is True
    assert ev("${execution.setVariable('y', 1)}", execution=execution) is None
    assert execution.variables["y"] == 1
    assert isinstance(execution.variables["y"], Long)
    assert ev("${execution.processInstanceId}", execution=execution) == "pi-1"
    assert ev("${execution.activityId}", execution=execution) == "task1"


def test_method_calls_on_bean() -> None:
    bean = ChargeBean()
    execution = Execution()
    assert ev("${charge.run(execution)}", charge=bean, execution=execution) == "done"
    assert bean.charged == [5]
    assert ev("${charge.add()}", charge=bean) == 0
    assert ev("${charge.add(1, 2, 3)}", charge=bean) == 6
    assert ev("${charge['add'](1)}", charge=bean) == 1
    assert ev("${c.greet(c.name)}", c=Customer()) == "hi Ann"


def test_method_call_errors() -> None:
    assert "not found" in str(evaluation_error("${c.nope()}", c=Customer()))
    assert "not found" in str(evaluation_error("${c.name()}", c=Customer()))
    assert "null" in str(evaluation_error("${x.run()}", x=None))
    assert "not accessible" in str(evaluation_error("${c._hidden()}", c=Customer()))
    assert "not accessible" in str(evaluation_error("${c.__init__()}", c=Customer()))


@pytest.mark.parametrize(
    "text",
    [
        "${s.upper()}",
        "${s.format(s)}",
        "${'{0.__class__}'.format(s)}",
        "${s.join(l)}",
        "${l.append(1)}",
        "${l.pop()}",
        "${d.keys()}",
        "${d.items()}",
        "${d.update(d)}",
        "${n.bit_length()}",
        "${t.mro()}",
        "${fn.__call__()}",
        "${m.getcwd()}",
    ],
)
def test_python_methods_on_builtin_values_are_refused(text: str) -> None:
    import os

    items = [1]
    data = {"a": 1}
    with pytest.raises(ExpressionEvaluationError):
        ev(text, s="abc", l=items, d=data, n=Long(3), t=str, fn=len, m=os)
    assert items == [1]
    assert data == {"a": 1}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${s.length()}", 3),
        ("${s.isEmpty()}", False),
        ("${s.equals('abc')}", True),
        ("${s.equalsIgnoreCase('ABC')}", True),
        ("${s.contains('b')}", True),
        ("${s.startsWith('ab')}", True),
        ("${s.endsWith('x')}", False),
        ("${s.toUpperCase()}", "ABC"),
        ("${s.substring(1)}", "bc"),
        ("${s.substring(0, 2)}", "ab"),
        ("${s.indexOf('c')}", 2),
        ("${' a '.trim()}", "a"),
        ("${l.size()}", 2),
        ("${l.isEmpty()}", False),
        ("${l.contains('x')}", True),
        ("${l.get(0)}", 1),
        ("${d.containsKey('a')}", True),
        ("${d.get('a')}", 1),
        ("${d.size()}", 1),
        ("${n.equals(3)}", True),
        ("${n.equals(3.0)}", False),
        ("${n.toString()}", "3"),
    ],
)
def test_java_methods_on_builtin_values(text: str, expected: object) -> None:
    assert ev(text, s="abc", l=[1, "x"], d={"a": 1}, n=Long(3)) == expected


def test_java_method_argument_errors() -> None:
    evaluation_error("${s.length(1)}", s="abc")
    evaluation_error("${s.substring(5)}", s="abc")
    evaluation_error("${l.get(5)}", l=[])


# --- functions ------------------------------------------------------------------------------


def test_function_calls() -> None:
    context = RecordingContext({"a": 1})
    assert compile_expression("${now()}").evaluate(context) == datetime(2024, 1, 2, 3, 4, 5)
    assert compile_expression("${fn:concat('x', a, 2)}").evaluate(context) == "x12"
    assert compile_expression("${max(a, 3)}").evaluate(context) == 3
    assert compile_expression("${now().time}").evaluate(context) == 1_704_164_645_000
    assert context.calls[1] == ("fn:concat", ["x", 1, 2])
    with pytest.raises(ExpressionEvaluationError, match="Unknown function 'nope'"):
        compile_expression("${nope()}").evaluate(context)


def test_namespace_function_versus_conditional() -> None:
    context = RecordingContext({"c": False, "a": 1})
    assert compile_expression("${c ? a : max(a, 2)}").evaluate(context) == 2


# --- identifiers and error propagation ------------------------------------------------------


def test_unknown_identifier_propagates_with_camunda_message() -> None:
    with pytest.raises(UnknownIdentifier) as info:
        ev("${foo > 1}")
    assert info.value.name == "foo"
    assert info.value.source == "${foo > 1}"
    assert str(info.value) == (
        "Unknown property used in expression: ${foo > 1}. Cause: Cannot resolve identifier 'foo'"
    )
    assert isinstance(info.value, ExpressionEvaluationError)


def test_unknown_identifier_in_composite_names_whole_text() -> None:
    with pytest.raises(UnknownIdentifier, match=r"Task \$\{input\}"):
        ev("Task ${input}")


def test_context_exceptions_propagate_unchanged() -> None:
    class Boom(Exception):
        pass

    class Bean:
        def fail(self) -> None:
            raise Boom("business error")

    with pytest.raises(Boom):
        ev("${b.fail()}", b=Bean())


def test_errors_pickle() -> None:
    error = UnknownIdentifier("x", source="${x}")
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error)
    syntax = ExpressionSyntaxError("${a +}", 5, "unexpected end of expression")
    assert str(pickle.loads(pickle.dumps(syntax))) == str(syntax)


def test_custom_context_class_satisfies_protocol() -> None:
    context: EvaluationContext = RecordingContext({"v": 2})
    assert compile_expression("${v * v}").evaluate(context) == 4


# --- syntax errors --------------------------------------------------------------------------


def test_syntax_error_message_format() -> None:
    error = syntax_error("${a +}")
    assert error.position == 5
    assert error.reason == "unexpected end of expression"
    assert str(error) == (
        "Syntax error in expression '${a +}' at position 5: unexpected end of expression"
    )
    assert isinstance(error, ValueError)


@pytest.mark.parametrize(
    ("text", "position", "reason"),
    [
        ("${'abc}", 2, "unterminated string literal"),
        ('x ${"abc', 4, "unterminated string literal"),
        ("${a", 0, "missing closing '}'"),
        ("Hi ${a + (b}", 11, "expected ')'"),
        ("Hi ${a + {b}", 3, "missing closing '}'"),
        ("${(a}", 4, "expected ')'"),
        ("${a[1}", 5, "expected ']'"),
        ("${a +}", 5, "unexpected end of expression"),
        ("${* 2}", 2, "unexpected '*'"),
        ("${a b}", 4, "unexpected 'b'"),
        ("${a ? b}", 7, "expected ':'"),
        ("${}", 0, "empty expression"),
        ("${  }", 0, "empty expression"),
        ("${x -> x + 1}", 4, "lambda"),
        ("${(x, y) -> x}", 9, "lambda"),
        ("${a = 1}", 4, "assignment"),
        ("${a += 'x'}", 4, "'+='"),
        ("${a; b}", 3, "';'"),
        ("${[1, 2]}", 2, "list literals"),
        ("${{1, 2}}", 2, "set and map literals"),
        ("${{'a': 1}}", 2, "set and map literals"),
        ("${a instanceof b}", 4, "instanceof"),
        ("${a & b}", 4, "'&&'"),
        ("${a | b}", 4, "'||'"),
        ("${a @ b}", 4, "unexpected character '@'"),
        ("${1abc}", 2, "malformed number"),
        ("${a.}", 4, "property name"),
        ("${a.1}", 3, "unexpected '.1'"),
        ("${f(1,}", 6, "unexpected end of expression"),
        ("${f(1 2)}", 6, "expected ',' or ')'"),
        ("${(a)(b)}", 5, "unexpected '('"),
        ("${a}#{b}", 4, "cannot mix"),
        ("${true = false}", 7, "assignment"),
    ],
)
def test_syntax_errors(text: str, position: int, reason: str) -> None:
    error = syntax_error(text)
    assert error.position == position, str(error)
    assert reason in error.reason


def test_deep_nesting_is_refused() -> None:
    nested = "${" + "(" * 250 + "1" + ")" * 250 + "}"
    error = syntax_error(nested)
    assert "nested too deeply" in error.reason
    assert error.position > 2
    assert "nested too deeply" in syntax_error("${" + "-" * 250 + "1}").reason
    assert "nested too deeply" in syntax_error("${" + " + ".join(["1"] * 250) + "}").reason
    assert "nested too deeply" in syntax_error("${a" + ".b" * 250 + "}").reason
    chain = "${" + "".join(f"c{i} ? {i} : " for i in range(250)) + "0}"
    assert "nested too deeply" in syntax_error(chain).reason


def test_moderate_nesting_is_fine() -> None:
    assert ev("${" + "(" * 150 + "1" + ")" * 150 + "}") == 1
    assert ev("${" + " + ".join(["1"] * 150) + "}") == 150
    assert ev("${" + "- " * 150 + "1}") == 1


def test_keywords_are_reserved() -> None:
    for word in ("and", "or", "not", "eq", "ne", "lt", "gt", "le", "ge", "div", "mod", "empty"):
        with pytest.raises(ExpressionSyntaxError):
            compile_expression("${" + word + "}")
    assert ev("${d.empty}", d={"empty": 1}) == 1  # keywords are fine as property names


def test_no_python_eval_of_expression_text() -> None:
    # Python builtins are just unknown names: only the context supplies functions and values.
    with pytest.raises(ExpressionEvaluationError, match="Unknown function '__import__'"):
        ev("${__import__('os').system('true')}")
    with pytest.raises(UnknownIdentifier):
        ev("${open}")


# --- robustness (property-based) ------------------------------------------------------------

_EL_ALPHABET = "${}#'\"\\ ab1.0e()[]+-*/%<>=!&|?:,;_"


@given(st.text(alphabet=_EL_ALPHABET, max_size=40))
def test_compile_raises_only_syntax_errors(text: str) -> None:
    try:
        expression = compile_expression(text)
    except ExpressionSyntaxError as error:
        assert 0 <= error.position <= len(text)
        return
    assert isinstance(expression, Expression)


@given(st.text(alphabet=_EL_ALPHABET, max_size=40))
def test_evaluate_raises_only_evaluation_errors(text: str) -> None:
    try:
        expression = compile_expression(text)
    except ExpressionSyntaxError:
        return
    context = MappingContext({"a": Long(3), "b": "x", "e": [1.5, None], "_": {"a": True}})
    try:
        expression.evaluate(context)
    except ExpressionEvaluationError as error:
        assert error.source == text
