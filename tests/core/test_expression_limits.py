"""JUEL limits: the size of the strings an expression builds, the steps it spends, and what a
value of each builtin type lets an expression reach (only its Java methods, from one table)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest

from flowledger.core.budget import BudgetExceeded, CommandBudget, opened
from flowledger.core.expressions import (
    ExpressionEvaluationError,
    Long,
    MappingContext,
    compile_expression,
)
from flowledger.core.expressions.bounds import CHARS_PER_STEP, MAX_STEPS, MAX_STRING
from flowledger.core.expressions.javamethods import VALUE_TYPES


def ev(text: str, **variables: object) -> object:
    return compile_expression(text).evaluate(MappingContext(variables))


def refused(text: str, **variables: object) -> str:
    with pytest.raises(ExpressionEvaluationError) as info:
        ev(text, **variables)
    message = str(info.value)
    assert text in message
    return message


# --- the size of what an expression builds ---------------------------------------------------


def test_chained_replace_is_refused_before_it_builds_the_string() -> None:
    # The example: seven replaces of '' would build 214 million characters.
    text = "${'x'" + ".replace('', s)" * 7 + "}"
    message = refused(text, s="abcdefghijklmn")
    assert "String.replace() would build a string of" in message
    assert f"{MAX_STRING:,}" in message


def test_replace_under_the_limit_works_as_java_does() -> None:
    assert ev("${'abc'.replace('', '-')}") == "-a-b-c-"
    assert ev("${'aaa'.replace('a', 'bb')}") == "bbbbbb"
    assert ev("${'abc'.replace('x', 'y')}") == "abc"
    assert ev("${s.replace('a', 'bb')}", s="a" * (MAX_STRING // 2)) == "bb" * (MAX_STRING // 2)


def test_replace_measures_exactly_at_the_limit() -> None:
    assert len(str(ev("${s.replace('a', 'aa')}", s="a" * (MAX_STRING // 2)))) == MAX_STRING
    message = refused("${s.replace('', 'a')}", s="a" * (MAX_STRING // 2))
    assert f"{MAX_STRING + 1:,} characters" in message


def test_concat_is_capped() -> None:
    assert ev("${'a'.concat(b)}", b="bc") == "abc"
    assert ev("${'a'.concat(null)}") == "a"
    message = refused("${s.concat(s)}", s="x" * (MAX_STRING // 2 + 1))
    assert "String.concat()" in message and f"{MAX_STRING:,}" in message


def test_case_changes_that_grow_are_capped() -> None:
    assert ev("${s.toUpperCase()}", s="straße") == "STRASSE"
    message = refused("${s.toUpperCase()}", s="ß" * (MAX_STRING // 2 + 1))
    assert "String.toUpperCase()" in message


def test_composite_text_is_capped_before_it_is_joined() -> None:
    big = "x" * (MAX_STRING // 3 + 1)
    assert ev("${s}${s}", s=big) == big * 2
    message = refused("${s}-${s}-${s}", s=big)
    assert "Composite text would build" in message


def test_embedded_text_is_capped() -> None:
    assert ev("a${s}", s="x" * (MAX_STRING - 1)) == "a" + "x" * (MAX_STRING - 1)
    message = refused("a${s}b", s="x" * (MAX_STRING - 1))
    assert f"{MAX_STRING + 1:,} characters" in message


def test_the_text_of_a_container_is_capped() -> None:
    assert ev("${l.toString()}", l=["a", 1]) == "['a', 1]"
    message = refused("${l.toString()}", l=["x" * 1000] * 1000)
    assert "toString() would build" in message


def test_a_number_too_long_for_text_is_refused_by_name() -> None:
    digits = "9" * 4000
    message = refused("n=${" + digits + " * " + digits + "}")
    assert "too many digits" in message


# --- steps --------------------------------------------------------------------------------


def test_a_standalone_evaluation_has_a_budget_of_its_own() -> None:
    s = "a" * (MAX_STRING - 1)
    per_call = MAX_STRING // CHARS_PER_STEP
    calls = MAX_STEPS // per_call + 2
    text = "${" + " || ".join(["s.contains('b')"] * calls) + "}"
    message = refused(text, s=s)
    assert f"budget of {MAX_STEPS:,} steps" in message
    assert "String.contains()" in message
    # each evaluation starts afresh: fewer calls pass, as often as asked
    fewer = "${" + " || ".join(["s.contains('b')"] * (calls - 4)) + "}"
    for _ in range(3):
        assert ev(fewer, s=s) is False


def test_an_evaluation_spends_its_nodes_from_the_command_budget() -> None:
    budget = CommandBudget(steps=1000)
    expression = compile_expression("${a > 1 && b}")  # a, 1, >, b, && : five nodes
    with opened(budget):
        assert expression.evaluate(MappingContext({"a": 2, "b": True})) is True
    assert budget.used == 5


def test_methods_spend_by_the_size_they_go_through() -> None:
    expression = compile_expression("${s.replace('a', 'b')}")

    def spent(s: str) -> int:
        budget = CommandBudget(steps=10**9)
        with opened(budget):
            expression.evaluate(MappingContext({"s": s}))
        return budget.used

    # the text is searched once and the result written once
    assert spent("a" * 1600) - spent("") == 2 * 1600 // CHARS_PER_STEP
    list_expression = compile_expression("${l.contains(9)}")
    budget = CommandBudget(steps=10**9)
    with opened(budget):
        list_expression.evaluate(MappingContext({"l": list(range(500))}))
    assert budget.used == 500 + 4


def test_a_command_budget_running_out_names_the_expression_and_the_limit() -> None:
    text = "${s.indexOf('b') + s.indexOf('c')}"
    with opened(CommandBudget(steps=100)), pytest.raises(BudgetExceeded) as info:
        compile_expression(text).evaluate(MappingContext({"s": "a" * 16_000}))
    assert "String.indexOf() in " + text in str(info.value)
    assert "100 steps" in str(info.value)


# --- dates: java.util.Date, not Python's datetime -------------------------------------------

MOMENT = datetime(2026, 12, 5, 10, 0, 0, tzinfo=UTC)
LATER = datetime(2026, 12, 6, 10, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${d.getTime()}", 1_796_464_800_000),
        ("${d.time}", 1_796_464_800_000),
        ("${d.before(e)}", True),
        ("${d.after(e)}", False),
        ("${e.after(d)}", True),
        ("${d.compareTo(e)}", -1),
        ("${e.compareTo(d)}", 1),
        ("${d.compareTo(d)}", 0),
        ("${d.equals(e)}", False),
        ("${d.equals(d2)}", True),
        ("${d.equals('x')}", False),
        ("${d.toString()}", "Sat Dec 05 10:00:00 UTC 2026"),
        ("${berlin.toString()}", "Sat Dec 05 10:00:00 UTC 2026"),
        ("${day.getTime()}", 1_796_428_800_000),
        ("${naive.getTime()}", 1_796_464_800_000),
        ("${d.getTime() < e.getTime()}", True),
    ],
)
def test_dates_have_the_java_date_methods(text: str, expected: object) -> None:
    value = ev(
        text,
        d=MOMENT,
        e=LATER,
        d2=MOMENT.astimezone(timezone(timedelta(hours=-5))),
        berlin=MOMENT.astimezone(timezone(timedelta(hours=1))),
        day=date(2026, 12, 5),
        naive=MOMENT.replace(tzinfo=None),
    )
    assert value == expected
    if isinstance(expected, int) and not isinstance(expected, bool):
        assert type(value) is Long


@pytest.mark.parametrize(
    ("text", "member"),
    [
        ("${d.strftime('%Y')}", "method 'strftime'"),
        ("${d.replace(1)}", "method 'replace'"),
        ("${d.fromtimestamp(0)}", "method 'fromtimestamp'"),
        ("${d.isoformat()}", "method 'isoformat'"),
        ("${d.astimezone()}", "method 'astimezone'"),
        ("${d.__class__}", "property '__class__'"),
        ("${d.year}", "property 'year'"),
        ("${d.tzinfo}", "property 'tzinfo'"),
        ("${d.__reduce__()}", "method '__reduce__'"),
    ],
)
def test_python_datetime_is_out_of_reach(text: str, member: str) -> None:
    assert f"Date has no {member}" in refused(text, d=MOMENT)


def test_date_methods_refuse_what_is_not_a_date() -> None:
    assert "Date.before() takes a Date, not 'tomorrow'" in refused(
        "${d.before('tomorrow')}", d=MOMENT
    )


# --- every builtin type: only its Java methods, from one table ------------------------------


def _function() -> None:
    pass


def _generator() -> Iterator[int]:
    yield 1


# One sample of each kind of value an expression can reach, with the name the refusals use.
SAMPLES: list[tuple[str, object]] = [
    ("Boolean", True),
    ("String", "abc"),
    ("Long", Long(3)),
    ("Long", 7),
    ("Double", 1.5),
    ("BigDecimal", Decimal("1.50")),
    ("List", [1, "x"]),
    ("List", (1, "x")),
    ("Map", {"a": 1}),
    ("Set", {1}),
    ("Set", frozenset({1})),
    ("Date", MOMENT),
    ("Date", date(2026, 12, 5)),
    ("byte[]", b"ab"),
    ("byte[]", bytearray(b"ab")),
    ("time", time(10, 0)),
    ("timedelta", timedelta(days=1)),
    ("type", str),
    ("module", os),
    ("function", _function),
    ("builtin_function_or_method", len),
    ("generator", _generator()),
    ("complex", 1j),
    ("range", range(3)),
]

# Names worth trying on top of each value's own dir(): escapes known from sandbox breakouts.
ATTACKS = [
    "__class__",
    "__globals__",
    "__subclasses__",
    "__init__",
    "__dict__",
    "__builtins__",
    "__import__",
    "__reduce_ex__",
    "__getattribute__",
    "__code__",
    "__closure__",
    "mro",
    "format",
    "format_map",
    "replace",
    "fromtimestamp",
    "strftime",
    "gi_frame",
    "f_globals",
    "func_globals",
    "system",
    "getcwd",
    "open",
    "eval",
    "exec",
    "keys",
    "items",
    "pop",
    "append",
    "update",
    "join",
    "encode",
    "decode",
    "hex",
    "real",
    "year",
    "tzinfo",
    "as_integer_ratio",
    "scaleb",
    "getClass",
    "class",
    "hashCode",
]


def _allowed(java_name: str) -> tuple[set[str], set[str]]:
    for row in VALUE_TYPES:
        if row.name == java_name:
            return set(row.methods), set(row.properties)
    return {"equals", "toString"}, set()


def test_samples_cover_every_row_of_the_table() -> None:
    assert {row.name for row in VALUE_TYPES} <= {name for name, _ in SAMPLES}


@pytest.mark.parametrize(("java_name", "value"), SAMPLES, ids=lambda v: repr(v)[:30])
def test_no_python_attribute_of_a_builtin_value_is_reachable(java_name: str, value: Any) -> None:
    methods, properties = _allowed(java_name)
    names = sorted((set(dir(value)) | set(ATTACKS)) - methods)
    assert names
    call = compile_expression("${v[m]()}")
    call_with_argument = compile_expression("${v[m](1)}")
    read = compile_expression("${v[m]}")
    for name in names:
        context = MappingContext({"v": value, "m": name})
        for expression in (call, call_with_argument):
            with pytest.raises(ExpressionEvaluationError) as info:
                expression.evaluate(context)
            assert f"{java_name} has no method '{name}'" in str(info.value)
        if isinstance(value, (dict, list, tuple)) or name in properties:
            continue  # ${map[k]} and ${list[i]} read the data, not attributes
        with pytest.raises(ExpressionEvaluationError) as info:
            read.evaluate(context)
        assert f"{java_name} has no property '{name}'" in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${b.equals(true)}", True),
        ("${b.toString()}", "true"),
        ("${n.equals(7)}", True),
        ("${x.toString()}", "1.5"),
        ("${dec.toString()}", "1.50"),
        ("${l.get(1)}", "x"),
        ("${t.size()}", 2),
        ("${m.containsValue(1)}", True),
        ("${st.contains(1)}", True),
        ("${fs.size()}", 1),
        ("${raw.equals(raw)}", True),
        ("${d.getTime() > 0}", True),
    ],
)
def test_the_java_methods_of_each_type_work(text: str, expected: object) -> None:
    assert (
        ev(
            text,
            b=True,
            n=Long(7),
            x=1.5,
            dec=Decimal("1.50"),
            l=[1, "x"],
            t=(1, "x"),
            m={"a": 1},
            st={1},
            fs=frozenset({1}),
            raw=b"ab",
            d=MOMENT,
        )
        == expected
    )


def test_engine_facades_expose_only_their_camunda_surface() -> None:
    from flowledger.core.scope import ExecutionFacade, TaskFacade

    facade: Any = ExecutionFacade(session=object(), execution_id="e1")  # type: ignore[arg-type]
    call = compile_expression("${execution[m]()}")
    read = compile_expression("${execution[m]}")
    for name in sorted(set(dir(ExecutionFacade)) | {n for n in ATTACKS if n.startswith("_")}):
        if not name.startswith("_"):
            continue
        context = MappingContext({"execution": facade, "m": name})
        for expression in (call, read):
            with pytest.raises(ExpressionEvaluationError, match="is not accessible"):
                expression.evaluate(context)
    # What a model can reach on `execution` and `task`: changing it is a deliberate decision.
    assert {n for n in dir(ExecutionFacade) if not n.startswith("_")} == EXECUTION_SURFACE
    assert {n for n in dir(TaskFacade) if not n.startswith("_")} == EXECUTION_SURFACE | TASK_EXTRA


EXECUTION_SURFACE = {
    "activityId",
    "activityInstanceId",
    "activity_id",
    "businessKey",
    "business_key",
    "currentActivityId",
    "currentActivityName",
    "eventName",
    "event_name",
    "getVariable",
    "getVariableLocal",
    "getVariables",
    "get_variable",
    "get_variable_local",
    "get_variables",
    "hasVariable",
    "has_variable",
    "id",
    "processBusinessKey",
    "processDefinitionId",
    "processInstanceId",
    "process_definition_id",
    "process_instance_id",
    "removeVariable",
    "remove_variable",
    "setVariable",
    "setVariableLocal",
    "set_variable",
    "set_variable_local",
}
TASK_EXTRA = {
    "assignee",
    "execution",
    "executionId",
    "execution_id",
    "getAssignee",
    "getName",
    "name",
    "taskDefinitionKey",
    "task_definition_key",
}
