"""DMN resources parsed: decisions, tables, inputs, outputs, rules, requirements and Camunda's
attributes; every problem refused at deploy naming the decision, the rule or entry and the line,
all at once, and nothing parsed of a refused resource."""

from __future__ import annotations

import pytest

from flowledger.core.dmn import DecisionTable, LiteralExpression, parse_dmn
from flowledger.core.errors import ModelError

from .models import DMN11, dinner, dish, literal, table


def _problems(source: bytes) -> list[str]:
    with pytest.raises(ModelError) as caught:
        parse_dmn(source, "rules.dmn")
    return [str(p) for p in caught.value.problems]


def test_a_decision_table_is_parsed_with_its_inputs_outputs_and_rules() -> None:
    parsed = parse_dmn(dish(), "dish.dmn")

    assert parsed.id == "dinnerDecisions" and parsed.name == "Dinner Decisions"
    (decision,) = parsed.decisions
    assert (decision.id, decision.name, decision.version_tag) == ("dish", "Dish", "v1")
    assert decision.history_time_to_live == 30
    table_ = decision.logic
    assert isinstance(table_, DecisionTable)
    assert table_.hit_policy == "UNIQUE" and table_.aggregation is None
    assert [(i.id, i.expression, i.type_ref) for i in table_.inputs] == [
        ("season", "season", "string"),
        ("guests", "guestCount", "integer"),
    ]
    assert [(o.name, o.type_ref) for o in table_.outputs] == [("desiredDish", "string")]
    assert table_.rules[0].id == "fall-small"
    assert table_.rules[0].input_entries == ('"Fall"', "<= 8")
    assert table_.rules[-1].input_entries == ('"Summer"', "-")


def test_dmn_1_1_documents_are_read_too() -> None:
    assert parse_dmn(dish(DMN11), "dish.dmn").decisions[0].id == "dish"


def test_requirements_and_literal_expressions() -> None:
    parsed = parse_dmn(dinner(), "dinner.dmn")
    beverages = parsed.decision("beverages")
    assert beverages is not None and beverages.required == ("dish",)

    (fee,) = parse_dmn(literal("amount * 0.1"), "fee.dmn").decisions
    assert isinstance(fee.logic, LiteralExpression)
    assert (fee.logic.variable_name, fee.logic.text, fee.logic.type_ref) == (
        "fee",
        "amount * 0.1",
        "double",
    )


def test_a_feel_syntax_error_names_the_decision_rule_and_entry() -> None:
    source = table([("x", "integer")], [("y", "string")], [("r1", ["[1..10"], ['"a"'])])

    (problem,) = _problems(source)

    assert "resource 'rules.dmn'" in problem and "element 't'" in problem
    assert "rule 'r1', input entry 1" in problem and "line" in problem


def test_an_output_entry_syntax_error_is_refused() -> None:
    source = table([("x", "integer")], [("y", "string")], [("r1", ["1"], ['"a" +'])])

    assert "rule 'r1', output entry 1" in _problems(source)[0]


def test_an_unknown_type_ref_is_refused() -> None:
    source = table([("x", "money")], [("y", "string")], [("r1", ["1"], ['"a"'])])

    assert "unknown typeRef 'money'" in _problems(source)[0]


def test_a_missing_required_decision_and_a_cycle_are_refused() -> None:
    requires = (
        "<informationRequirement id='q'><requiredDecision href='#nowhere' />"
        "</informationRequirement>"
    )
    source = table([("x", "integer")], [("y", "string")], [], extra=requires)
    assert "requires decision 'nowhere'" in _problems(source)[0]

    cyclic = dinner().replace(
        b'<decisionTable id="dishTable"',
        b'<informationRequirement id="back"><requiredDecision href="#beverages" />'
        b'</informationRequirement><decisionTable id="dishTable"',
    )
    (problem,) = _problems(cyclic)
    assert "form a cycle" in problem and "beverages -> dish -> beverages" in problem


def test_rules_must_have_an_entry_per_input_and_output() -> None:
    source = table([("x", "integer"), ("z", "string")], [("y", "string")], [("r1", ["1"], [])])

    problems = _problems(source)

    assert any("rule 'r1' has 1 input entries for 2 inputs" in p for p in problems)
    assert any("rule 'r1' has 0 output entries for 1 outputs" in p for p in problems)


def test_hit_policy_and_aggregation_are_checked() -> None:
    unknown = table([("x", "integer")], [("y", "string")], [], hit_policy="SOMETIMES")
    assert "unknown hit policy 'SOMETIMES'" in _problems(unknown)[0]
    misplaced = table([("x", "integer")], [("y", "integer")], [], aggregation="SUM")
    assert "applies to the COLLECT hit policy only" in _problems(misplaced)[0]


def test_every_problem_is_reported_at_once() -> None:
    source = table(
        [("x", "money")], [("y", "string")], [("r1", ["[1..", "2"], ['"a"']), ("r2", ["(("], ["1"])]
    )

    assert len(_problems(source)) >= 3


def test_hostile_or_foreign_xml_is_refused() -> None:
    doctype = b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY e "x">]><definitions/>'
    assert "DOCTYPE declarations are not allowed in DMN resources" in _problems(doctype)[0]
    bpmn = b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"/>'
    assert "not a DMN 1.1, 1.2 or 1.3 document" in _problems(bpmn)[0]
    assert "malformed XML" in _problems(b"<definitions")[0]
