"""Conformance with Camunda 7's own DMN engine tests: the `.dmn` resources of its
`HitPolicyTest` (copied unchanged into `tests/dmn/camunda/`, see the README there) evaluated with
the inputs its Java test uses, asserting the results, or the failures, it asserts. Each case's id
names the Camunda test method and the assertion's place in it (`-1`, `-2`, ...).

The resources are DMN 1.1 tables in JUEL (`expressionLanguage="juel"` on `definitions`): rule i
matches when the variable `input<i>` is true and gives the variable `output<i>` as its output (as
all three outputs of a compound table). Java's Integer/Long are Python ints here, Double/Float
Python floats; a result's Python type is checked as well as its value.
"""

from __future__ import annotations

import sys
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from flowledger.core.dmn import (
    DecisionOutcome,
    DecisionPolicyViolation,
    DecisionRequirements,
    DecisionTable,
    LiteralExpression,
    evaluate_decision,
    parse_dmn,
    result_shapes,
)
from flowledger.core.errors import ModelError

RESOURCES = Path(__file__).parent / "camunda"

MAX, MIN = 2**31 - 1, -(2**31)  # Java's Integer.MAX_VALUE / MIN_VALUE
LMAX, LMIN = 2**63 - 1, -(2**63)  # Long
DMAX = sys.float_info.max  # Double.MAX_VALUE
DMIN = -DMAX  # the Java test's DOUBLE_MIN

# Camunda's failure codes, and what they are here
UNIQUE_VIOLATION = "DMN-03001"  # several rules matched a UNIQUE table
ANY_VIOLATION = "DMN-03002"  # ANY rules matched with different outputs
AGGREGATE_COMPOUND = "DMN-03003"  # COLLECT with an aggregation over a table of several outputs
AGGREGATE_NOT_NUMBER = "DMN-03004"  # COLLECT SUM/MIN/MAX over values that are not numbers


@cache
def _requirements(resource: str) -> DecisionRequirements:
    path = RESOURCES / f"HitPolicyTest.{resource}.dmn"
    return parse_dmn(path.read_bytes(), path.name)


def _evaluate(resource: str, args: tuple[Any, ...]) -> DecisionOutcome:
    """Camunda's `evaluateDecisionTable(input1, input2, input3, output1, output2, output3)`."""
    names = ("input1", "input2", "input3", "output1", "output2", "output3")
    return evaluate_decision(
        _requirements(resource), "decision", dict(zip(names, args, strict=True))
    )


def _same(actual: Any, expected: Any) -> bool:
    """Equal and of the same Python type (Java int/long vs double matters to Camunda)."""
    return type(actual) is type(expected) and actual == expected


def _row(value: Any) -> dict[str, Any]:
    return {"out1": value, "out2": value, "out3": value}


# (Camunda test method, resource, evaluateDecisionTable's arguments, expectation).
# Expectations: ("empty",), ("entry", v): a single result with single entry v, ("row", v): a
# single result {out1: v, out2: v, out3: v}, ("entries", [v...]) / ("entries-any-order", ...):
# each result row's single entry, ("rows", [v...]): the rows of a compound table,
# ("violation", code): the hit policy fails at evaluation.
Case = tuple[str, str, tuple[Any, ...], tuple[Any, ...]]

ABC = ("a", "b", "c")
CBA = ("c", "b", "a")
NONE, ONE, TWO, THREE = (
    (False, False, False),
    (True, False, False),
    (False, True, False),
    (
        False,
        False,
        True,
    ),
)
ONE_TWO, ONE_THREE, TWO_THREE, ALL = (
    (True, True, False),
    (True, False, True),
    (False, True, True),
    (True, True, True),
)
SEVERAL = (ONE_TWO, ONE_THREE, TWO_THREE, ALL)


def _pair(
    policy: str,
    resource: str,
    matching: str,
    args: tuple[Any, ...],
    single: tuple[Any, ...],
    compound: tuple[Any, ...],
) -> list[Case]:
    """One call on the single-output table and on the compound-output one (`matching`: the
    Java method's tail, `NoMatchingRule`, `SingleMatchingRule`, `MultipleMatchingRules`)."""
    return [
        (f"test{policy}HitPolicySingleOutput{matching}", f"{resource}.single", args, single),
        (f"test{policy}HitPolicyCompoundOutput{matching}", f"{resource}.compound", args, compound),
    ]


def _none_or_one(policy: str, resource: str) -> list[Case]:
    """No rule matches (empty), or one does (its entry, its row): the same for every policy."""
    cases = _pair(policy, resource, "NoMatchingRule", NONE + ABC, ("empty",), ("empty",))
    for inputs, value in ((ONE, "a"), (TWO, "b"), (THREE, "c")):
        cases += _pair(
            policy, resource, "SingleMatchingRule", inputs + ABC, ("entry", value), ("row", value)
        )
    return cases


def _unique_like(policy: str, resource: str, code: str) -> list[Case]:
    """The DEFAULT/UNIQUE/ANY tests: empty, one match, several matches refused."""
    cases = _none_or_one(policy, resource)
    refused = ("violation", code)
    for inputs in SEVERAL:
        cases += _pair(policy, resource, "MultipleMatchingRules", inputs + ABC, refused, refused)
    if policy == "Any":  # several matches with equal outputs are fine
        for inputs in SEVERAL:
            cases += _pair(
                policy,
                resource,
                "MultipleMatchingRules",
                inputs + ("a",) * 3,
                ("entry", "a"),
                ("row", "a"),
            )
    return cases


def _first() -> list[Case]:
    cases = _none_or_one("First", "first")
    several = [
        (ONE_TWO, ABC, "a"),
        (ONE_TWO, CBA, "c"),
        (ONE_THREE, ABC, "a"),
        (ONE_THREE, CBA, "c"),
        (TWO_THREE, ABC, "b"),
        (TWO_THREE, CBA, "b"),
        (ALL, ABC, "a"),
        (ALL, CBA, "c"),
    ]
    for inputs, outputs, value in several:
        cases += _pair(
            "First",
            "first",
            "MultipleMatchingRules",
            inputs + outputs,
            ("entry", value),
            ("row", value),
        )
    return cases


def _ordered(policy: str, resource: str) -> list[Case]:
    """RULE ORDER and COLLECT (without aggregation): every match, in rule order."""
    cases = _none_or_one(policy, resource)
    if policy == "RuleOrder":
        several = [
            (ONE_TWO, ABC, ["a", "b"]),
            (ONE_TWO, CBA, ["c", "b"]),
            (ONE_THREE, ABC, ["a", "c"]),
            (ONE_THREE, CBA, ["c", "a"]),
            (TWO_THREE, ABC, ["b", "c"]),
            (TWO_THREE, CBA, ["b", "a"]),
            (ALL, ABC, ["a", "b", "c"]),
            (ALL, CBA, ["c", "b", "a"]),
        ]
        for inputs, outputs, values in several:
            cases += _pair(
                policy,
                resource,
                "MultipleMatchingRules",
                inputs + outputs,
                ("entries", values),
                ("rows", values),
            )
    else:  # Camunda's COLLECT test asserts no order, and has no compound multiple-match test
        several_any_order = [
            (ONE_TWO, ["a", "b"]),
            (ONE_THREE, ["a", "c"]),
            (TWO_THREE, ["b", "c"]),
            (ALL, ["a", "b", "c"]),
        ]
        for inputs, values in several_any_order:
            cases.append(
                (
                    "testCollectHitPolicySingleOutputMultipleMatchingRules",
                    f"{resource}.single",
                    inputs + ABC,
                    ("entries-any-order", values),
                )
            )
    return cases


NUMBERS = (10, 20, 30.034)  # Java: 10, 20L, 30.034
EXTREMES_MAX = (MAX, LMAX, DMAX)
EXTREMES_MIN = (MIN, LMIN, DMIN)
SMALL = (1, 2, 3.0)  # Java: (byte) 1, (short) 2, 3f


def _aggregation(name: str) -> list[Case]:
    """COLLECT SUM / MIN / MAX: the same single-match cases; the multiple-match results differ."""
    single, compound = f"collect.{name.lower()}.single", f"collect.{name.lower()}.compound"
    agg = name.capitalize()
    method = f"testCollect{agg}HitPolicy"
    cases: list[Case] = [
        (f"{method}SingleOutputNoMatchingRule", single, NONE + NUMBERS, ("empty",)),
    ]
    single_match = [
        (ONE, NUMBERS, 10),
        (TWO, NUMBERS, 20),
        (THREE, NUMBERS, 30.034),
        (ONE, EXTREMES_MAX, MAX),
        (ONE, EXTREMES_MIN, MIN),
        (TWO, EXTREMES_MAX, LMAX),
        (TWO, EXTREMES_MIN, LMIN),
        (THREE, EXTREMES_MAX, DMAX),
        (THREE, EXTREMES_MIN, DMIN),
        (ONE, SMALL, 1),  # Camunda: 1L
        (TWO, SMALL, 2),  # 2L
        (THREE, SMALL, 3.0),  # 3.0 (a Float aggregates as a Double)
    ]
    for inputs, outputs, value in single_match:
        cases.append(
            (f"{method}SingleOutputSingleMatchingRule", single, inputs + outputs, ("entry", value))
        )
    cases.append(
        (
            f"{method}SingleOutputSingleMatchingRule",
            single,
            (*THREE, 10, 20, "c"),
            ("violation", AGGREGATE_NOT_NUMBER),
        )
    )
    several: list[tuple[tuple[bool, ...], tuple[Any, ...], Any]]
    if name == "SUM":
        several = [
            (ONE_TWO, NUMBERS, 30),
            (ONE_THREE, NUMBERS, 40.034),
            (TWO_THREE, NUMBERS, 50.034),
            (ALL, NUMBERS, 60.034),
            (ONE_TWO, (MAX, LMAX - MAX, DMAX), LMAX),
            (ONE_TWO, (MIN, LMIN - MIN, DMIN), LMIN),
            (ONE_THREE, (MAX, LMAX, DMAX - MAX), DMAX),
            (ONE_THREE, (MIN, LMIN, DMIN - MIN), DMIN),
            (TWO_THREE, (MAX, LMAX, DMAX - LMAX), DMAX),
            (TWO_THREE, (MIN, LMIN, DMIN - LMIN), DMIN),
            (ALL, (MAX, LMAX, DMAX - MAX - LMAX), DMAX),
            (ALL, (MIN, LMIN, DMIN - MIN - LMIN), DMIN),
            (ONE_TWO, SMALL, 3),
            (ONE_THREE, SMALL, 4.0),
            (TWO_THREE, SMALL, 5.0),
            (ALL, SMALL, 6.0),
        ]
    elif name == "MIN":
        several = [
            (ONE_TWO, NUMBERS, 10),
            (ONE_THREE, NUMBERS, 10.0),
            (TWO_THREE, NUMBERS, 20.0),
            (ALL, NUMBERS, 10.0),
            (ONE_TWO, EXTREMES_MAX, MAX),  # (long) MAX_VALUE
            (ONE_TWO, EXTREMES_MIN, LMIN),
            (ONE_THREE, EXTREMES_MAX, float(MAX)),
            (ONE_THREE, EXTREMES_MIN, DMIN),
            (TWO_THREE, EXTREMES_MAX, float(LMAX)),
            (TWO_THREE, EXTREMES_MIN, DMIN),
            (ALL, EXTREMES_MAX, float(MAX)),
            (ALL, EXTREMES_MIN, DMIN),
            (ONE_TWO, SMALL, 1),
            (ONE_THREE, SMALL, 1.0),
            (TWO_THREE, SMALL, 2.0),
            (ALL, SMALL, 1.0),
        ]
    else:
        several = [
            (ONE_TWO, NUMBERS, 20),
            (ONE_THREE, NUMBERS, 30.034),
            (TWO_THREE, NUMBERS, 30.034),
            (ALL, NUMBERS, 30.034),
            (ONE_TWO, EXTREMES_MAX, LMAX),
            (ONE_TWO, EXTREMES_MIN, MIN),  # (long) MIN_VALUE
            (ONE_THREE, EXTREMES_MAX, DMAX),
            (ONE_THREE, EXTREMES_MIN, float(MIN)),
            (TWO_THREE, EXTREMES_MAX, DMAX),
            (TWO_THREE, EXTREMES_MIN, float(LMIN)),
            (ALL, EXTREMES_MAX, DMAX),
            (ALL, EXTREMES_MIN, float(MIN)),
            (ONE_TWO, SMALL, 2),
            (ONE_THREE, SMALL, 3.0),
            (TWO_THREE, SMALL, 3.0),
            (ALL, SMALL, 3.0),
        ]
    for inputs, outputs, value in several:
        cases.append(
            (
                f"{method}SingleOutputMultipleMatchingRules",
                single,
                inputs + outputs,
                ("entry", value),
            )
        )
    cases.append(
        (
            f"{method}SingleOutputMultipleMatchingRules",
            single,
            (*ALL, 10, 20, True),
            ("violation", AGGREGATE_NOT_NUMBER),
        )
    )
    cases.extend(_compound_aggregation(agg, compound, ("empty",)))
    return cases


def _compound_aggregation(agg: str, compound: str, no_match: tuple[Any, ...]) -> list[Case]:
    method = f"testCollect{agg}HitPolicyCompoundOutput"
    # Camunda deploys the table and fails at evaluation (DMN-03003) once a rule matches.
    cases: list[Case] = [(f"{method}NoMatchingRule", compound, NONE + ABC, no_match)]
    for inputs in (ONE, TWO, THREE):
        cases.append(
            (
                f"{method}SingleMatchingRule",
                compound,
                (*inputs, 1, 2, 3.0),
                ("violation", AGGREGATE_COMPOUND),
            )
        )
    for inputs in SEVERAL:
        cases.append(
            (
                f"{method}MultipleMatchingRules",
                compound,
                (*inputs, 1, 2, 3.0),
                ("violation", AGGREGATE_COMPOUND),
            )
        )
    return cases


def _count() -> list[Case]:
    single = "collect.count.single"
    outputs = (10, "b", 30.034)
    cases: list[Case] = [
        (
            "testCollectCountHitPolicySingleOutputNoMatchingRule",
            single,
            NONE + outputs,
            ("entry", 0),
        )
    ]
    for inputs in (ONE, TWO, THREE):
        cases.append(
            (
                "testCollectCountHitPolicySingleOutputSingleMatchingRule",
                single,
                inputs + outputs,
                ("entry", 1),
            )
        )
    for inputs, count in zip(SEVERAL, (2, 2, 2, 3), strict=True):
        cases.append(
            (
                "testCollectCountHitPolicySingleOutputMultipleMatchingRules",
                single,
                inputs + outputs,
                ("entry", count),
            )
        )
    cases.extend(_compound_aggregation("Count", "collect.count.compound", ("entry", 0)))
    return cases


def _not_in_camunda() -> list[Case]:
    """Camunda 7 refuses PRIORITY and OUTPUT ORDER at deploy (DMN-02004:
    testPriorityHitPolicySingleOutputNoMatchingRule, testOutputOrderHitPolicyNotSupported). We
    implement them as DMN 1.3 defines them, so these cases assert our behaviour instead: the
    tables deploy; the outputs have no `outputValues`, so every rule ranks the same and the
    (stable) ranking keeps rule order: PRIORITY gives the first match, OUTPUT ORDER every match
    in rule order. DMN 1.3 does not say what a table without output values ranks; this is our
    choice."""
    priority, output_order = "priority.single", "outputOrder.single"
    p_method, o_method = (
        "testPriorityHitPolicySingleOutputNoMatchingRule",
        "testOutputOrderHitPolicyNotSupported",
    )
    return [
        (p_method, priority, NONE + ABC, ("empty",)),
        (p_method, priority, TWO + ABC, ("entry", "b")),
        (p_method, priority, TWO_THREE + ABC, ("entry", "b")),
        (p_method, priority, ALL + CBA, ("entry", "c")),
        (o_method, output_order, NONE + ABC, ("empty",)),
        (o_method, output_order, TWO + ABC, ("entry", "b")),
        (o_method, output_order, ALL + CBA, ("entries", ["c", "b", "a"])),
    ]


def _all_cases() -> list[Any]:
    cases = [
        *_unique_like("Default", "default", UNIQUE_VIOLATION),
        *_unique_like("Unique", "unique", UNIQUE_VIOLATION),
        *_unique_like("Any", "any", ANY_VIOLATION),
        *_first(),
        *_ordered("RuleOrder", "ruleOrder"),
        *_ordered("Collect", "collect"),
        *_aggregation("SUM"),
        *_aggregation("MIN"),
        *_aggregation("MAX"),
        *_count(),
        *_not_in_camunda(),
    ]
    seen: Counter[str] = Counter()
    params = []
    for method, resource, args, expected in cases:
        seen[method] += 1
        params.append(pytest.param(resource, args, expected, id=f"{method}-{seen[method]}"))
    return params


@pytest.mark.parametrize(("resource", "args", "expected"), _all_cases())
def test_camunda_hit_policy(
    resource: str, args: tuple[Any, ...], expected: tuple[Any, ...]
) -> None:
    kind = expected[0]
    if kind == "violation":
        with pytest.raises(DecisionPolicyViolation) as caught:
            _evaluate(resource, args)
        violation = caught.value
        assert violation.decision_id == "decision"
        if expected[1] == UNIQUE_VIOLATION:
            assert violation.policy == "UNIQUE"
            assert len(violation.rule_ids) > 1
        elif expected[1] == ANY_VIOLATION:
            assert violation.policy == "ANY"
            assert len(violation.rule_ids) > 1
        elif expected[1] == AGGREGATE_COMPOUND:
            assert violation.policy.startswith("COLLECT ")
            assert "more than one output" in str(violation)
        else:
            assert expected[1] == AGGREGATE_NOT_NUMBER
            assert violation.policy.startswith("COLLECT ")
            assert "not numbers" in str(violation)
        return

    result = _evaluate(resource, args).result
    shapes = result_shapes(result)
    if kind == "empty":
        assert result == []
    elif kind == "entry":
        assert len(result) == 1, result
        assert _same(shapes["singleEntry"], expected[1]), result
    elif kind == "row":
        assert result == [_row(expected[1])]
    elif kind == "entries":
        assert [next(iter(row.values())) for row in result if len(row) == 1] == expected[1]
        assert len(result) == len(expected[1])
    elif kind == "entries-any-order":
        assert Counter(next(iter(row.values())) for row in result) == Counter(expected[1])
        assert all(len(row) == 1 for row in result)
    elif kind == "rows":
        assert result == [_row(v) for v in expected[1]]
    else:  # pragma: no cover - a mistake in the table above
        raise AssertionError(f"unknown expectation {expected!r}")


def test_the_conformance_set_is_the_one_the_readme_describes() -> None:
    """Every copied resource is used, and the count of translated assertions is stable."""
    used = {p.values[0] for p in _all_cases()}
    on_disk = {
        p.name.removeprefix("HitPolicyTest.").removesuffix(".dmn") for p in RESOURCES.glob("*.dmn")
    }
    assert used == on_disk


# -- the fix this conformance set needed: `definitions`' expressionLanguage as the default -------


def _languages_model(global_language: str, entry_language: str = "") -> bytes:
    own = f' expressionLanguage="{entry_language}"' if entry_language else ""
    test = "&lt; 10" if entry_language else "cellInput &lt; 10"  # JUEL: a boolean expression
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="d"
    namespace="n" expressionLanguage="{global_language}">
  <decision id="size">
    <decisionTable id="t">
      <input id="i"><inputExpression id="e"><text>amount</text></inputExpression></input>
      <output id="o" name="size" />
      <rule id="r1">
        <inputEntry id="r1i"{own}><text>{test}</text></inputEntry>
        <outputEntry id="r1o"><text>"small"</text></outputEntry>
      </rule>
    </decisionTable>
  </decision>
  <decision id="doubled">
    <variable name="doubled" />
    <literalExpression><text>amount * 2</text></literalExpression>
  </decision>
</definitions>""".encode()


def _table(parsed: DecisionRequirements) -> DecisionTable:
    logic = parsed.decisions[0].logic
    assert isinstance(logic, DecisionTable)
    return logic


def test_the_definitions_expression_language_is_the_default_of_every_expression() -> None:
    # Camunda's DmnExpressionTransformHelper: an expression without its own expressionLanguage
    # takes the one of `definitions`, unless that is FEEL.
    parsed = parse_dmn(_languages_model("juel"), "juel.dmn")
    table = _table(parsed)
    literal = parsed.decisions[1].logic
    assert isinstance(literal, LiteralExpression)
    assert table.inputs[0].expression_language == "juel"
    assert table.rules[0].input_languages == ("juel",)
    assert table.rules[0].output_languages == ("juel",)
    assert literal.expression_language == "juel"
    outcome = evaluate_decision(parsed, "size", {"amount": 3})
    assert outcome.result == [{"size": "small"}]
    assert evaluate_decision(parsed, "doubled", {"amount": 3}).result == [{"doubled": 6}]


def test_an_expression_s_own_language_wins_and_a_feel_default_changes_nothing() -> None:
    parsed = parse_dmn(_languages_model("juel", entry_language="feel"), "mixed.dmn")
    assert _table(parsed).rules[0].input_languages == ("feel",)
    assert evaluate_decision(parsed, "size", {"amount": 3}).result == [{"size": "small"}]
    for feel in ("feel", "https://www.omg.org/spec/DMN/20191111/FEEL/"):
        parsed = parse_dmn(_languages_model(feel), "feel.dmn")
        assert _table(parsed).rules[0].input_languages == (None,)
        assert evaluate_decision(parsed, "size", {"amount": 3}).result == [{"size": "small"}]


def test_an_unsupported_definitions_language_is_refused_for_each_expression() -> None:
    with pytest.raises(ModelError) as refused:
        parse_dmn(_languages_model("groovy"), "groovy.dmn")
    assert all("'groovy' is not supported" in p.message for p in refused.value.problems)
    assert len(refused.value.problems) == 4  # input expression, input entry, output, literal
