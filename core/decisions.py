"""Decisions in the engine's terms: a deployed decision evaluated and its evaluation recorded as
the log keeps it (`EvaluatedDecision`s: inputs, matched rules, outputs, one per decision of the
evaluation), and a result mapped as a business rule task's `camunda:mapDecisionResult` says.

Pure: the engine finds the deployed decision (`DeployedDecision`) and hands in the time and the
id source; evaluation reads only the variables it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from . import events as ev
from . import views
from .budget import evaluating
from .dmn import DecisionOutcome, DecisionRequirements, LiteralExpression, evaluate_decision
from .errors import InvalidValue, ProcessEngineError
from .feel import Range, YearsMonthsDuration, feel_string
from .variables import StoredValue, to_stored


@dataclass(frozen=True)
class DecisionRef:
    """Which decision a business rule task names: `key` and Camunda's decisionRefBinding;
    `deployment_id` is the calling instance's (binding `deployment`)."""

    key: str
    binding: str = "latest"
    version: int | None = None
    version_tag: str | None = None
    deployment_id: str | None = None


@dataclass(frozen=True)
class DeployedDecision:
    """A deployed decision definition with its parsed DRG, and the definitions of the decisions
    of that DRG (by key: the required ones are evaluated and recorded too)."""

    definition: views.DecisionDefinition
    requirements: DecisionRequirements
    definitions: Mapping[str, views.DecisionDefinition]


# The engine's lookup of a decision by reference, for the activity named (it reads the
# repository; a decision it cannot find is an error naming the activity).
DecisionLookup = Callable[[DecisionRef, str], DeployedDecision]


@dataclass(frozen=True)
class Evaluation:
    """An evaluation done: the outcome and what the log records of it."""

    outcome: DecisionOutcome
    decisions: list[ev.EvaluatedDecision]

    @property
    def root(self) -> ev.EvaluatedDecision:
        return self.decisions[-1]

    @property
    def values(self) -> list[dict[str, Any]]:
        """The result rows with values any variable can hold (FEEL's own kinds as FEEL text)."""
        return [{name: storable(v) for name, v in row.items()} for row in self.outcome.result]


def evaluate(
    deployed: DeployedDecision,
    variables: Mapping[str, Any],
    *,
    now: datetime,
    new_id: Callable[[], str],
) -> Evaluation:
    """Evaluate the deployed decision (its required decisions first) and record each decision
    of the evaluation; a failed expression or a violated hit policy raises, recording nothing."""
    key = deployed.definition.key
    with evaluating(f"the decision '{key}'"):
        outcome = evaluate_decision(deployed.requirements, key, variables, now=now)
    recorded = [_recorded(deployed, one, new_id()) for one in [*outcome.required, outcome]]
    return Evaluation(outcome, recorded)


def _recorded(
    deployed: DeployedDecision, outcome: DecisionOutcome, instance_id: str
) -> ev.EvaluatedDecision:
    definition = deployed.definitions[outcome.decision_id]
    decision = deployed.requirements.decision(outcome.decision_id)
    assert decision is not None
    logic = decision.logic
    key = definition.key
    if isinstance(logic, LiteralExpression):
        value = outcome.result[0][logic.variable_name] if outcome.result else None
        name = logic.variable_name
        computed = _computed(key, f"output '{name}'", value)
        outputs = [ev.DecisionOutputValue(computed, variable_name=name)]
    else:
        order = {rule.id: index for index, rule in enumerate(logic.rules, start=1)}
        outputs = [
            ev.DecisionOutputValue(
                _computed(key, f"output '{out.name or out.output_id}'", out.value),
                clause_id=out.output_id,
                rule_id=out.rule_id,
                rule_order=order[out.rule_id],
                clause_name=out.label,
                variable_name=out.name,
            )
            for out in outcome.outputs
        ]
    collect = outcome.collect_value
    return ev.EvaluatedDecision(
        decision_instance_id=instance_id,
        definition_id=definition.id,
        definition_key=definition.key,
        definition_name=definition.name,
        inputs=[
            ev.DecisionInputValue(
                i.input_id,
                _computed(key, f"input '{i.label or i.input_id}'", i.value),
                clause_name=i.label,
            )
            for i in outcome.inputs
        ],
        outputs=outputs,
        matched_rules=list(outcome.matched_rules),
        collect_value=(
            float(collect)
            if isinstance(collect, int | float) and not isinstance(collect, bool)
            else None
        ),
        deployment_id=definition.deployment_id,
    )


def storable(value: Any) -> Any:
    """`value` as a variable can hold it: FEEL's durations, times and ranges as FEEL text."""
    if isinstance(value, timedelta | time | YearsMonthsDuration | Range) or (
        isinstance(value, date) and not isinstance(value, datetime)
    ):
        return feel_string(value)
    if isinstance(value, list):
        return [storable(v) for v in value]
    if isinstance(value, dict):
        return {k: storable(v) for k, v in value.items()}
    return value


def stored(value: Any) -> StoredValue:
    """A decision value as the log records it (its Camunda type, as a variable's)."""
    return to_stored("value", storable(value))


def _computed(decision_key: str, what: str, value: Any) -> StoredValue:
    """A value the decision computed, as the log records it. One no variable can hold (a
    String over its 4,000 characters) is the model's doing, not the caller's: a failed
    evaluation naming the decision and the clause, never the caller's invalid value."""
    try:
        return stored(value)
    except InvalidValue as exc:
        detail = str(exc).removeprefix("Variable 'value': ")
        raise ProcessEngineError(
            f"decision '{decision_key}': its {what} computed a value that cannot be stored: "
            f"{detail}. The value comes from the decision model, not from the request: change "
            "the model so that it computes a shorter value"
        ) from None


def map_result(
    result: Sequence[Mapping[str, Any]], how: str, decision: str, activity_id: str
) -> Any:
    """The value of a business rule task's result variable (Camunda's DecisionResultMapper);
    a result that does not fit the mapping is an error naming the task and the decision."""
    rows = [dict(row) for row in result]

    def refuse(problem: str) -> ProcessEngineError:
        return ProcessEngineError(
            f"business rule task '{activity_id}': the result of decision '{decision}' cannot be "
            f"mapped as {how}: {problem}"
        )

    if how == "resultList":
        return rows
    if how == "collectEntries":
        wide = [row for row in rows if len(row) > 1]
        if wide:
            raise refuse(f"a result has more than one entry ({', '.join(sorted(wide[0]))})")
        return [next(iter(row.values())) for row in rows if row]
    if len(rows) > 1:
        raise refuse(f"it has {len(rows)} results, not at most one")
    single = rows[0] if rows else None
    if how == "singleResult":
        return single
    if single is None or not single:
        return None
    if len(single) > 1:
        raise refuse(f"its result has more than one entry ({', '.join(sorted(single))})")
    return next(iter(single.values()))
