"""Hit policies over matched rules: what each returns, and a violation naming the decision, the
policy and the rules (Camunda 7's semantics; PRIORITY and OUTPUT ORDER as DMN 1.3 says)."""

from __future__ import annotations

import pytest

from flowledger.core.dmn import DecisionPolicyViolation, MatchedRule, apply_hit_policy


def _rules(*outputs: dict[str, object]) -> list[MatchedRule]:
    return [MatchedRule(f"r{i + 1}", o) for i, o in enumerate(outputs)]


def test_unique_gives_the_one_match_and_refuses_two() -> None:
    assert apply_hit_policy("d", "UNIQUE", None, _rules({"x": 1}), ["x"]) == [{"x": 1}]
    assert apply_hit_policy("d", "UNIQUE", None, [], ["x"]) == []
    with pytest.raises(DecisionPolicyViolation) as caught:
        apply_hit_policy("dish", "UNIQUE", None, _rules({"x": 1}, {"x": 2}), ["x"])
    assert caught.value.rule_ids == ["r1", "r2"]
    assert "decision 'dish': hit policy UNIQUE" in str(caught.value)
    assert "r1, r2" in str(caught.value)


def test_first_takes_the_first_rule_in_table_order() -> None:
    assert apply_hit_policy("d", "FIRST", None, _rules({"x": 1}, {"x": 2}), ["x"]) == [{"x": 1}]


def test_any_needs_equal_outputs() -> None:
    same = _rules({"x": 1}, {"x": 1})
    assert apply_hit_policy("d", "ANY", None, same, ["x"]) == [{"x": 1}]
    with pytest.raises(DecisionPolicyViolation, match="same output"):
        apply_hit_policy("d", "ANY", None, _rules({"x": 1}, {"x": 2}), ["x"])


def test_rule_order_and_collect_give_every_match_in_order() -> None:
    rules = _rules({"x": 2}, {"x": 1})
    assert apply_hit_policy("d", "RULE ORDER", None, rules, ["x"]) == [{"x": 2}, {"x": 1}]
    assert apply_hit_policy("d", "COLLECT", None, rules, ["x"]) == [{"x": 2}, {"x": 1}]


def test_collect_aggregations() -> None:
    rules = _rules({"fee": 10}, {"fee": 5}, {"fee": 7})
    assert apply_hit_policy("d", "COLLECT", "SUM", rules, ["fee"]) == [{"fee": 22}]
    assert apply_hit_policy("d", "COLLECT", "MIN", rules, ["fee"]) == [{"fee": 5}]
    assert apply_hit_policy("d", "COLLECT", "MAX", rules, ["fee"]) == [{"fee": 10}]
    assert apply_hit_policy("d", "COLLECT", "COUNT", rules, ["fee"]) == [{"fee": 3}]
    # integers stay integers; anything else is summed as doubles, numeric strings included
    (mixed,) = apply_hit_policy("d", "COLLECT", "SUM", _rules({"f": 1}, {"f": "2.5"}), ["f"])
    assert mixed == {"f": 3.5} and isinstance(mixed["f"], float)


def test_collect_aggregations_of_nothing() -> None:
    assert apply_hit_policy("d", "COLLECT", "COUNT", [], ["fee"]) == [{"fee": 0}]
    assert apply_hit_policy("d", "COLLECT", "SUM", [], ["fee"]) == []


def test_an_aggregation_of_text_is_a_violation() -> None:
    with pytest.raises(DecisionPolicyViolation, match="COLLECT SUM cannot aggregate"):
        apply_hit_policy("d", "COLLECT", "SUM", _rules({"f": "a"}, {"f": 1}), ["f"])
    with pytest.raises(DecisionPolicyViolation, match="more than one output"):
        apply_hit_policy("d", "COLLECT", "MAX", _rules({"a": 1, "b": 2}), ["a", "b"])


def test_priority_and_output_order_rank_by_output_values() -> None:
    rules = _rules({"risk": "low"}, {"risk": "high"}, {"risk": "medium"})
    ranks = [["high", "medium", "low"]]
    assert apply_hit_policy("d", "PRIORITY", None, rules, ["risk"], ranks) == [{"risk": "high"}]
    assert apply_hit_policy("d", "OUTPUT ORDER", None, rules, ["risk"], ranks) == [
        {"risk": "high"},
        {"risk": "medium"},
        {"risk": "low"},
    ]
