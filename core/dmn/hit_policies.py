"""Which matched rules make a decision table's result (DMN 1.3 §8.2.11, as Camunda 7 applies
them): pure functions of the matched rules, in rule order, and their output values.

Camunda 7 implements UNIQUE, ANY, FIRST, RULE ORDER and COLLECT (with SUM, MIN, MAX, COUNT);
PRIORITY and OUTPUT ORDER follow the DMN specification: rules rank by the position of their
output values in each output's `outputValues`, output by output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flowledger.core.errors import ProcessEngineError

Entries = dict[str, Any]


@dataclass(frozen=True, slots=True)
class MatchedRule:
    """A rule whose input entries all matched: its id and its output entries by output name
    (an output entry left empty is absent, as in Camunda)."""

    rule_id: str
    outputs: Entries


class DecisionPolicyViolation(ProcessEngineError):
    """The matched rules break the table's hit policy (or its aggregation cannot apply)."""

    def __init__(self, decision_id: str, policy: str, message: str, rules: Sequence[str]) -> None:
        self.decision_id = decision_id
        self.policy = policy
        self.rule_ids = list(rules)
        super().__init__(
            f"decision '{decision_id}': hit policy {policy} {message}; matched rules: "
            f"{', '.join(self.rule_ids) or 'none'}"
        )


def apply_hit_policy(
    decision_id: str,
    policy: str,
    aggregation: str | None,
    matched: Sequence[MatchedRule],
    output_names: Sequence[str],
    ranks: Sequence[Sequence[Any]] = (),
) -> list[Entries]:
    """The decision's result entries, one dict per result row. `ranks`: each output's allowed
    values in priority order (PRIORITY, OUTPUT ORDER)."""
    ids = [m.rule_id for m in matched]
    if policy == "UNIQUE":
        if len(matched) > 1:
            raise DecisionPolicyViolation(decision_id, policy, "allows only one rule to match", ids)
        return [dict(m.outputs) for m in matched]
    if policy == "FIRST":
        return [dict(matched[0].outputs)] if matched else []
    if policy == "ANY":
        if any(m.outputs != matched[0].outputs for m in matched[1:]):
            raise DecisionPolicyViolation(
                decision_id, policy, "requires every matched rule to give the same output", ids
            )
        return [dict(matched[0].outputs)] if matched else []
    if policy == "RULE ORDER" or (policy == "COLLECT" and aggregation is None):
        return [dict(m.outputs) for m in matched]
    if policy == "COLLECT":
        assert aggregation is not None
        return _aggregate(decision_id, aggregation, matched, output_names)
    if policy in ("PRIORITY", "OUTPUT ORDER"):
        ordered = sorted(matched, key=lambda m: _rank(m, output_names, ranks))
        if policy == "PRIORITY":
            return [dict(ordered[0].outputs)] if ordered else []
        return [dict(m.outputs) for m in ordered]
    raise DecisionPolicyViolation(decision_id, policy, "is not a hit policy", ids)


def chosen_rules(
    policy: str,
    matched: Sequence[MatchedRule],
    output_names: Sequence[str],
    ranks: Sequence[Sequence[Any]] = (),
) -> list[MatchedRule]:
    """The matched rules the result is made of, as Camunda's evaluation event (and so its
    history) keeps them: FIRST and ANY keep the first, PRIORITY the best ranked, OUTPUT ORDER
    all by rank, the others every match. Call after `apply_hit_policy` accepted the matches."""
    if policy in ("FIRST", "ANY"):
        return list(matched[:1])
    if policy in ("PRIORITY", "OUTPUT ORDER"):
        ordered = sorted(matched, key=lambda m: _rank(m, output_names, ranks))
        return ordered[:1] if policy == "PRIORITY" else ordered
    return list(matched)


def _rank(
    rule: MatchedRule, names: Sequence[str], ranks: Sequence[Sequence[Any]]
) -> tuple[int, ...]:
    """A rule's priority key: per output with `outputValues`, the position of its value (a value
    not listed ranks last). Python's sort is stable: equal keys keep rule order."""
    key = []
    for name, allowed in zip(names, ranks, strict=False):
        if not allowed:
            continue
        value = rule.outputs.get(name)
        key.append(next((i for i, v in enumerate(allowed) if v == value), len(allowed)))
    return tuple(key)


def _aggregate(
    decision_id: str, aggregation: str, matched: Sequence[MatchedRule], names: Sequence[str]
) -> list[Entries]:
    policy = f"COLLECT {aggregation}"
    values: list[Any] = []
    name: str | None = None
    for rule in matched:
        if len(rule.outputs) > 1:
            raise DecisionPolicyViolation(
                decision_id,
                policy,
                "cannot aggregate a rule with more than one output",
                [rule.rule_id],
            )
        for output_name, value in rule.outputs.items():
            name = name or output_name
            values.append(value)
    name = name or (names[0] if names else "")
    if aggregation == "COUNT":
        return [{name: len(values)}]
    if not values:
        return []  # Camunda: nothing to aggregate gives no result
    numbers = _numbers(values)
    if numbers is None:
        raise DecisionPolicyViolation(
            decision_id,
            policy,
            f"cannot aggregate values that are not numbers: {values!r}",
            [m.rule_id for m in matched],
        )
    if aggregation == "SUM":
        total: Any = sum(numbers)
    elif aggregation == "MIN":
        total = min(numbers)
    else:
        total = max(numbers)
    return [{name: total}]


def _numbers(values: Sequence[Any]) -> list[int] | list[float] | None:
    """Camunda's ladder: all integers stay integers, else all must read as doubles (numbers or
    numeric strings); None when they cannot."""
    if all(type(v) is int for v in values):
        return list(values)
    out: list[float] = []
    for value in values:
        if isinstance(value, bool) or value is None:
            return None
        try:
            out.append(float(value))
        except (TypeError, ValueError):
            return None
    return out
