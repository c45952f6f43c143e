"""Evaluating decisions: tables with their hit policies, required decisions fed in as
variables, literal expressions, and Camunda's conversions by typeRef."""

from __future__ import annotations

from datetime import datetime

import pytest

from flowledger.core.dmn import DecisionPolicyViolation, parse_dmn
from flowledger.core.dmn.evaluate import DecisionEvaluationError, evaluate_decision, result_shapes

from .models import DMN13, dinner, dish, literal, table


@pytest.mark.parametrize(
    ("season", "guests", "expected"),
    [
        ("Fall", 4, "Spareribs"),
        ("Winter", 8, "Roastbeef"),
        ("Spring", 3, "Dry Aged Gourmet Steak"),
        ("Spring", 5, "Steak"),
        ("Winter", 9, "Stew"),
        ("Summer", 200, "Light Salad and a nice Steak"),
    ],
)
def test_the_dish_table_decides_per_rule(season: str, guests: int, expected: str) -> None:
    outcome = evaluate_decision(
        parse_dmn(dish(), "dish.dmn"), "dish", {"season": season, "guestCount": guests}
    )

    assert outcome.result == [{"desiredDish": expected}]
    assert len(outcome.matched_rules) == 1
    assert [(i.input_id, i.value) for i in outcome.inputs] == [
        ("season", season),
        ("guests", guests),
    ]
    assert result_shapes(outcome.result)["singleEntry"] == expected


def test_no_matching_rule_gives_an_empty_result() -> None:
    outcome = evaluate_decision(
        parse_dmn(dish(), "dish.dmn"), "dish", {"season": "Monsoon", "guestCount": 2}
    )

    assert outcome.result == [] and outcome.matched_rules == []
    assert result_shapes(outcome.result) == {
        "resultList": [],
        "singleResult": None,
        "singleEntry": None,
    }


def test_a_required_decision_is_evaluated_first_and_feeds_its_result_in() -> None:
    requirements = parse_dmn(dinner(), "dinner.dmn")

    outcome = evaluate_decision(
        requirements,
        "beverages",
        {"season": "Fall", "guestCount": 4, "guestsWithChildren": True},
    )

    assert [r.decision_id for r in outcome.required] == ["dish"]
    assert outcome.required[0].result == [{"desiredDish": "Spareribs"}]
    assert outcome.result == [
        {"beverages": "Aecht Schlenkerla Rauchbier"},
        {"beverages": "Apple Juice"},
    ]
    assert outcome.matched_rules == ["ribs", "children"]


def test_a_unique_table_with_two_matches_names_them() -> None:
    overlapping = table(
        [("x", "integer")],
        [("y", "string")],
        [("low", ["< 10"], ['"low"']), ("any", ["-"], ['"any"'])],
    )

    with pytest.raises(DecisionPolicyViolation) as caught:
        evaluate_decision(parse_dmn(overlapping, "t.dmn"), "t", {"x": 3})

    assert caught.value.rule_ids == ["low", "any"]


def test_collect_sum_over_a_table() -> None:
    fees = table(
        [("amount", "double")],
        [("fee", "integer")],
        [("base", ["-"], ["5"]), ("big", ["> 1000"], ["20"]), ("huge", ["> 10000"], ["100"])],
        hit_policy="COLLECT",
        aggregation="SUM",
    )

    outcome = evaluate_decision(parse_dmn(fees, "fees.dmn"), "t", {"amount": 5000})

    assert outcome.result == [{"fee": 25}] and outcome.collect_value == 25
    assert outcome.matched_rules == ["base", "big"]


def test_a_literal_expression_decision() -> None:
    outcome = evaluate_decision(parse_dmn(literal("amount * 0.1"), "f.dmn"), "fee", {"amount": 250})

    assert outcome.result == [{"fee": 25.0}]
    assert isinstance(outcome.result[0]["fee"], float)


def test_inputs_convert_by_type_ref() -> None:
    text_count = evaluate_decision(
        parse_dmn(dish(), "dish.dmn"), "dish", {"season": "Fall", "guestCount": "4"}
    )
    assert text_count.inputs[1].value == 4 and text_count.result == [{"desiredDish": "Spareribs"}]

    with pytest.raises(DecisionEvaluationError, match="cannot be converted to integer"):
        evaluate_decision(
            parse_dmn(dish(), "dish.dmn"), "dish", {"season": "Fall", "guestCount": 4.5}
        )


def test_dates_compare_in_entries() -> None:
    deadlines = table(
        [("submitted", "date")],
        [("late", "boolean")],
        [
            ("late", ['> date and time("2026-01-31T23:59:59")'], ["true"]),
            ("on-time", ['<= date and time("2026-01-31T23:59:59")'], ["false"]),
        ],
    )

    outcome = evaluate_decision(
        parse_dmn(deadlines, "d.dmn"), "t", {"submitted": datetime(2026, 2, 1, 9, 0)}
    )

    assert outcome.result == [{"late": True}]


def test_juel_input_expressions_and_entries() -> None:
    source = f"""<definitions xmlns="{DMN13}" id="d" name="D" namespace="n"
        xmlns:camunda="http://camunda.org/schema/1.0/dmn">
      <decision id="size" name="Size">
        <decisionTable id="t">
          <input id="n" camunda:inputVariable="count">
            <inputExpression id="e" typeRef="integer" expressionLanguage="juel">
              <text>${{order.items}}</text>
            </inputExpression>
          </input>
          <output id="o" name="size" typeRef="string" />
          <rule id="small">
            <inputEntry id="s1" expressionLanguage="juel"><text>count &lt; 10</text></inputEntry>
            <outputEntry id="s2"><text>"small"</text></outputEntry>
          </rule>
          <rule id="large">
            <inputEntry id="l1"><text>&gt;= 10</text></inputEntry>
            <outputEntry id="l2" expressionLanguage="juel">
              <text>${{order.items > 100 ? "huge" : "large"}}</text>
            </outputEntry>
          </rule>
        </decisionTable>
      </decision>
    </definitions>""".encode()
    requirements = parse_dmn(source, "size.dmn")

    small = evaluate_decision(requirements, "size", {"order": {"items": 3}})
    large = evaluate_decision(requirements, "size", {"order": {"items": 12}})

    assert small.result == [{"size": "small"}]
    assert large.result == [{"size": "large"}] and large.matched_rules == ["large"]


def test_first_keeps_only_the_rule_it_took() -> None:
    first = table(
        [("x", "integer")],
        [("y", "string")],
        [("low", ["< 10"], ['"low"']), ("any", ["-"], ['"any"'])],
        hit_policy="FIRST",
    )

    outcome = evaluate_decision(parse_dmn(first, "t.dmn"), "t", {"x": 3})

    # as Camunda's evaluation event (and its history) keeps it: the first match only
    assert outcome.matched_rules == ["low"]
    assert [(o.rule_id, o.value) for o in outcome.outputs] == [("low", "low")]


def test_today_in_an_entry_is_the_time_the_evaluation_is_given() -> None:
    from datetime import UTC, date

    overdue = table(
        [("due", "Any")],
        [("overdue", "boolean")],
        [("late", ["< today()"], ["true"]), ("in-time", [">= today()"], ["false"])],
    )
    requirements = parse_dmn(overdue, "o.dmn")
    due = {"due": date(2026, 12, 4)}

    before = evaluate_decision(requirements, "t", due, now=datetime(2026, 12, 3, tzinfo=UTC))
    after = evaluate_decision(requirements, "t", due, now=datetime(2026, 12, 5, tzinfo=UTC))

    assert before.result == [{"overdue": False}] and after.result == [{"overdue": True}]


def test_a_date_variable_is_a_local_date_time_as_camunda_maps_a_java_date() -> None:
    from datetime import UTC, timedelta, timezone

    from flowledger.core.feel import parse_unary_tests

    before_2030 = table(
        [("d", "Any")],
        [("early", "boolean")],
        [
            ("before", ['< date and time("2030-01-01T00:00:00")'], ["true"]),
            ("after", ['>= date and time("2030-01-01T00:00:00")'], ["false"]),
        ],
    )
    requirements = parse_dmn(before_2030, "d.dmn")
    # A Date variable reaches a decision as the engine stores it: a UTC point in time.
    stored = datetime(2026, 12, 5, 10, tzinfo=UTC)
    # FEEL alone keeps a zoned value zoned: it does not compare with a local date-time.
    assert not parse_unary_tests('< date and time("2030-01-01T00:00:00")').matches(stored, {})

    outcome = evaluate_decision(requirements, "t", {"d": stored})
    assert outcome.result == [{"early": True}]
    assert outcome.inputs[0].value == datetime(2026, 12, 5, 10)  # the engine's zone, UTC
    late = datetime(2030, 1, 1, 1, tzinfo=timezone(timedelta(hours=2)))  # 2029-12-31T23:00Z
    assert evaluate_decision(requirements, "t", {"d": late}).result == [{"early": True}]
    local = {"d": datetime(2030, 1, 1)}
    assert evaluate_decision(requirements, "t", local).result == [{"early": False}]
