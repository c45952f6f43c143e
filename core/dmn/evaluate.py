"""Evaluating a decision: its required decisions first (their results become variables), then
its table or literal expression, with Camunda 7's type conversions by `typeRef`. Pure: reads
only the variables given; compiled expressions are cached per text.

What comes back (`DecisionOutcome`) is what the log records of an evaluation: the inputs, the
matched rules, the outputs, and the result Camunda's API shapes (result list, single result,
single entry, collect entries) are read from.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

from flowledger.core.errors import ProcessEngineError
from flowledger.core.expressions import (
    ExpressionEvaluationError,
    MappingContext,
    compile_expression,
)
from flowledger.core.feel import FeelError, InputTester, parse_expression, parse_unary_tests

from .hit_policies import MatchedRule, apply_hit_policy, chosen_rules
from .model import (
    Decision,
    DecisionInput,
    DecisionRequirements,
    DecisionRule,
    DecisionTable,
    LiteralExpression,
)
from .parser import JUEL_LANGUAGES

COLLECTING = ("COLLECT", "RULE ORDER", "OUTPUT ORDER")


class DecisionEvaluationError(ProcessEngineError):
    """An expression of a decision failed, or a value does not convert to its typeRef."""


@dataclass(frozen=True, slots=True)
class EvaluatedInput:
    input_id: str
    label: str | None
    value: Any


@dataclass(frozen=True, slots=True)
class EvaluatedOutput:
    rule_id: str
    output_id: str
    name: str | None
    label: str | None
    value: Any


@dataclass(frozen=True, slots=True)
class DecisionOutcome:
    """One decision's evaluation. `matched_rules` and `outputs`: the rules the result is made
    of (`chosen_rules`: FIRST keeps one); `required`: the outcomes of the decisions it needed,
    in the order they were evaluated."""

    decision_id: str
    result: list[dict[str, Any]]
    inputs: list[EvaluatedInput] = field(default_factory=list)
    matched_rules: list[str] = field(default_factory=list)
    outputs: list[EvaluatedOutput] = field(default_factory=list)
    collect_value: Any = None
    required: list[DecisionOutcome] = field(default_factory=list)


def evaluate_decision(
    requirements: DecisionRequirements,
    decision_id: str,
    variables: Mapping[str, Any],
    *,
    now: datetime | None = None,
) -> DecisionOutcome:
    """Evaluate `decision_id` of `requirements` over `variables`; `now` is what FEEL's
    `now()` and `today()` answer (the engine gives its command's time: evaluation reads no
    clock, so a replay decides the same)."""
    decision = requirements.decision(decision_id)
    if decision is None:
        raise DecisionEvaluationError(f"no decision '{decision_id}' in {requirements.resource}")
    context = {name: as_feel_date(value) for name, value in variables.items()}
    required: list[DecisionOutcome] = []
    for needed in _required_order(requirements, decision):
        outcome = _evaluate_one(needed, context, now)
        required.append(outcome)
        _feed(outcome, needed, context)
    outcome = _evaluate_one(decision, context, now)
    return DecisionOutcome(
        outcome.decision_id,
        outcome.result,
        outcome.inputs,
        outcome.matched_rules,
        outcome.outputs,
        outcome.collect_value,
        required,
    )


def as_feel_date(value: Any) -> Any:
    """A variable as FEEL sees it: a Date (a point in time, which the engine hands over as a
    timezone-aware datetime) is a local date-time in the engine's zone, UTC, as Camunda's FEEL
    engine maps a java.util.Date to a local date-time in the JVM's zone. So an input entry
    `< date and time("2030-01-01T00:00:00")` compares it (a zoned value would not compare with
    a local one, and the entry would never match). Only a variable's own value: a Date is a
    variable of its own (a list or map of them is not a variable type)."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


def _required_order(requirements: DecisionRequirements, decision: Decision) -> list[Decision]:
    """The decisions `decision` needs, directly or not, each before those needing it (the parser
    refused cycles and missing decisions)."""
    order: list[Decision] = []
    seen: set[str] = {decision.id}
    stack: list[tuple[Decision, int]] = [(decision, 0)]
    while stack:
        current, index = stack.pop()
        if index < len(current.required):
            stack.append((current, index + 1))
            needed = requirements.decision(current.required[index])
            if needed is not None and needed.id not in seen:
                seen.add(needed.id)
                stack.append((needed, 0))
        elif current is not decision:
            order.append(current)
    return order


def _feed(outcome: DecisionOutcome, decision: Decision, context: dict[str, Any]) -> None:
    """A required decision's result as variables of the decisions after it (Camunda's
    DefaultDmnDecisionContext): a single row's entries as they are, several rows (or a table
    that collects) as one list per output name."""
    rows = outcome.result
    if not rows:
        return
    logic = decision.logic
    collects = isinstance(logic, DecisionTable) and logic.hit_policy in COLLECTING
    if len(rows) == 1 and not collects:
        context.update(rows[0])
        return
    names = {name for row in rows for name in row}
    for name in names:
        context[name] = [row.get(name) for row in rows if name in row]


def _evaluate_one(
    decision: Decision, variables: Mapping[str, Any], now: datetime | None
) -> DecisionOutcome:
    logic = decision.logic
    if isinstance(logic, LiteralExpression):
        value = _evaluate(
            decision.id,
            logic.text,
            logic.expression_language,
            variables,
            "literal expression",
            now,
        )
        value = convert(decision.id, "literal expression", value, logic.type_ref)
        return DecisionOutcome(decision.id, [{logic.variable_name: value}])
    return _evaluate_table(decision.id, logic, variables, now)


def _evaluate_table(
    decision_id: str, table: DecisionTable, variables: Mapping[str, Any], now: datetime | None
) -> DecisionOutcome:
    inputs = []
    for clause in table.inputs:
        value = _evaluate(
            decision_id,
            clause.expression,
            clause.expression_language,
            variables,
            f"input expression of '{clause.id}'",
            now,
        )
        value = convert(decision_id, f"input '{clause.id}'", value, clause.type_ref)
        inputs.append(EvaluatedInput(clause.id, clause.label, value))
    matched: list[MatchedRule] = []
    evaluated: list[EvaluatedOutput] = []
    # Each input's entries see the variables and the input value by its name: one scope per
    # input for the whole table, and one tester (the value converted to FEEL once), not one
    # per entry.
    scopes = [
        {**variables, c.input_variable: i.value} for c, i in zip(table.inputs, inputs, strict=True)
    ]
    columns = [
        (clause, _tester(decision_id, given, scope, now), scope)
        for clause, given, scope in zip(table.inputs, inputs, scopes, strict=True)
    ]
    no_languages = (None,) * len(columns)
    for rule in table.rules:
        languages = rule.input_languages or no_languages
        # A plain loop, not all() over a generator: this runs for every entry of every rule.
        for text, language, (clause, tester, scope) in zip(
            rule.input_entries, languages, columns, strict=False
        ):
            if not _matches(decision_id, rule.id, text, language, clause, tester, scope, now):
                break
        else:
            _take(decision_id, rule, table, variables, now, matched, evaluated)
    # Only PRIORITY and OUTPUT ORDER rank rules by the outputs' allowed values.
    ranks = (
        [
            [
                _evaluate(decision_id, v, None, {}, f"output values of '{o.id}'", now)
                for v in o.values
            ]
            for o in table.outputs
        ]
        if table.hit_policy in ("PRIORITY", "OUTPUT ORDER")
        else []
    )
    names = [o.name or "" for o in table.outputs]
    result = apply_hit_policy(
        decision_id, table.hit_policy, table.aggregation, matched, names, ranks
    )
    collect_value = None
    if table.aggregation is not None and result:
        collect_value = next(iter(result[0].values()))
    chosen = [m.rule_id for m in chosen_rules(table.hit_policy, matched, names, ranks)]
    kept = set(chosen)
    chosen_outputs = [o for o in evaluated if o.rule_id in kept]
    return DecisionOutcome(decision_id, result, inputs, chosen, chosen_outputs, collect_value)


def _take(
    decision_id: str,
    rule: DecisionRule,
    table: DecisionTable,
    variables: Mapping[str, Any],
    now: datetime | None,
    matched: list[MatchedRule],
    evaluated: list[EvaluatedOutput],
) -> None:
    """A rule matched: its output entries evaluated, converted and collected."""
    outputs: dict[str, Any] = {}
    out_languages = rule.output_languages or (None,) * len(rule.output_entries)
    for text, language, output in zip(
        rule.output_entries, out_languages, table.outputs, strict=False
    ):
        if not text:
            continue  # an empty output entry gives no entry (Camunda)
        value = _evaluate(
            decision_id,
            text,
            language,
            variables,
            f"rule '{rule.id}', output '{output.id}'",
            now,
        )
        value = convert(decision_id, f"output '{output.id}'", value, output.type_ref)
        outputs[output.name or ""] = value
        evaluated.append(EvaluatedOutput(rule.id, output.id, output.name, output.label, value))
    matched.append(MatchedRule(rule.id, outputs))


def _tester(
    decision_id: str, given: EvaluatedInput, scope: Mapping[str, Any], now: datetime | None
) -> InputTester:
    try:
        return InputTester(given.value, scope, now=now)
    except FeelError as exc:
        raise DecisionEvaluationError(
            f"decision '{decision_id}', input '{given.input_id}': {exc}"
        ) from None


def _matches(
    decision_id: str,
    rule_id: str,
    text: str,
    language: str | None,
    clause: DecisionInput,
    tester: InputTester,
    scope: Mapping[str, Any],
    now: datetime | None,
) -> bool:
    """Whether an input entry matches; `tester` holds the input value, `scope` the variables
    with the input by its name (for JUEL entries)."""
    if not text or text == "-":
        return True
    if language is not None and language.strip().lower() in JUEL_LANGUAGES:
        where = f"rule '{rule_id}', input entry of '{clause.id}'"
        return _evaluate(decision_id, text, "juel", scope, where, now) is True
    try:
        return tester.matches(_unary_tests(text))
    except FeelError as exc:
        raise DecisionEvaluationError(
            f"decision '{decision_id}', rule '{rule_id}', input entry of '{clause.id}': {exc}"
        ) from None


def _evaluate(
    decision_id: str,
    text: str,
    language: str | None,
    variables: Mapping[str, Any],
    where: str,
    now: datetime | None,
) -> Any:
    if not text:
        return None
    if (language or "").strip().lower() in JUEL_LANGUAGES:
        try:
            return _juel(text).evaluate(MappingContext(variables))
        except ExpressionEvaluationError as exc:
            raise DecisionEvaluationError(f"decision '{decision_id}', {where}: {exc}") from None
    try:
        return _feel(text).evaluate(variables, now=now)
    except FeelError as exc:
        raise DecisionEvaluationError(f"decision '{decision_id}', {where}: {exc}") from None


@lru_cache(maxsize=4096)
def _feel(text: str) -> Any:
    return parse_expression(text)


@lru_cache(maxsize=4096)
def _unary_tests(text: str) -> Any:
    return parse_unary_tests(text)


@lru_cache(maxsize=1024)
def _juel(text: str) -> Any:
    # Camunda's DMN JUEL texts may leave out ${...}: the whole text is the expression then.
    return compile_expression(text if "${" in text or "#{" in text else "${" + text + "}")


# -- typeRef conversions (Camunda's DmnDataTypeTransformers) ------------------------------------

_INT_RANGE = (-(2**31), 2**31 - 1)
_LONG_RANGE = (-(2**63), 2**63 - 1)


def convert(decision_id: str, what: str, value: Any, type_ref: str | None) -> Any:
    """`value` as `type_ref` says (None stays None); a value that cannot be is an error."""
    if value is None or type_ref in (None, "Any"):
        return _plain(value)
    try:
        return _CONVERSIONS.get(type_ref, _plain)(value)
    except (TypeError, ValueError, ArithmeticError):
        raise DecisionEvaluationError(
            f"decision '{decision_id}', {what}: {value!r} cannot be converted to {type_ref}"
        ) from None


def _plain(value: Any) -> Any:
    """FEEL numbers (Decimal) as Python numbers: int when whole, else float."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _whole(value: Any, bounds: tuple[int, int]) -> int:
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, str):
        number: Any = int(value.strip())
    elif isinstance(value, int | Decimal) or (isinstance(value, float) and math.isfinite(value)):
        number = value
    else:
        raise ValueError(value)
    if number != int(number) or not bounds[0] <= int(number) <= bounds[1]:
        raise ValueError(value)
    return int(number)


def _double(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int | float | Decimal):
        return float(value)
    if isinstance(value, str):
        return float(value.strip())
    raise ValueError(value)


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(value)


def _date(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        return datetime.fromisoformat(value.strip())
    raise ValueError(value)


def _string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(_plain(value))


_CONVERSIONS: dict[str, Any] = {
    "string": _string,
    "boolean": _boolean,
    "integer": lambda v: _whole(v, _INT_RANGE),
    "long": lambda v: _whole(v, _LONG_RANGE),
    "double": _double,
    "number": lambda v: _plain(Decimal(str(v))) if not isinstance(v, bool) else _double(v),
    "date": _date,
    "dateTime": _date,
}


def result_shapes(result: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Camunda's views of a result: `resultList`, `singleResult` (None when empty; an error for
    more than one row is the caller's to raise), `singleEntry`."""
    single = result[0] if len(result) == 1 else None
    entry = next(iter(single.values())) if single and len(single) == 1 else None
    return {"resultList": list(result), "singleResult": single, "singleEntry": entry}
