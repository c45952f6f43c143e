"""Events of decisions evaluated: over the API (in a stream of their own) or by an activity of an
instance (a business rule task), and the history of such an evaluation deleted.

Pure data: what went in, which rules matched, what came out.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from ..variables import StoredValue
from .base import Event


class DecisionInputValue(msgspec.Struct, frozen=True, omit_defaults=True):
    """An input clause's value in one evaluation (ACT_HI_DEC_IN)."""

    clause_id: str
    value: StoredValue
    clause_name: str | None = None


class DecisionOutputValue(msgspec.Struct, frozen=True, omit_defaults=True):
    """An output entry of a rule the result is made of (ACT_HI_DEC_OUT); `rule_order` is the
    rule's place in its table, from 1. A literal expression's value has no clause and no rule."""

    value: StoredValue
    clause_id: str | None = None
    rule_id: str | None = None
    rule_order: int | None = None
    clause_name: str | None = None
    variable_name: str | None = None


class EvaluatedDecision(msgspec.Struct, frozen=True, omit_defaults=True):
    """One decision of an evaluation (a historic decision instance): what went in, which rules
    matched, what came out. A literal expression has no inputs and one output without a rule;
    `collect_value` is a COLLECT aggregation's result."""

    decision_instance_id: str
    definition_id: str
    definition_key: str
    definition_name: str | None = None
    inputs: list[DecisionInputValue] = []
    outputs: list[DecisionOutputValue] = []
    matched_rules: list[str] = []
    collect_value: float | None = None
    deployment_id: str | None = None  # where its DMN resource is (an audit package takes it)


class DecisionEvaluated(Event, tag=True, frozen=True):
    """A decision evaluated over the API (decisionService, REST evaluate), in a stream of its
    own named by the evaluated decision's instance id. `decisions`: the required decisions
    first, in the order they were evaluated, the evaluated decision (the root) last."""

    decisions: list[EvaluatedDecision]
    time: datetime
    user_id: str | None = None
    requirements_id: str | None = None
    requirements_key: str | None = None
    # When history cleanup may remove it: the time plus the decision's historyTimeToLive (or the
    # engine's default); None keeps it.
    removal_time: datetime | None = None

    @property
    def root(self) -> EvaluatedDecision:
        return self.decisions[-1]


class HistoricDecisionInstanceDeleted(Event, tag=True, frozen=True):
    """The history of a decision evaluated over the API was deleted (history cleanup, its
    removal time passed). Only the projection forgets: the evaluation stays in the log.
    `decision_instance_id` is the evaluated decision's (its stream's name)."""

    decision_instance_id: str
    time: datetime
    cleanup: bool = True


class ActivityDecisionEvaluated(Event, tag=True, frozen=True):
    """A decision evaluated by an activity of the instance (a business rule task): the same
    record as `DecisionEvaluated`, in the instance's stream."""

    decisions: list[EvaluatedDecision]
    time: datetime
    activity_id: str
    activity_instance_id: str | None
    execution_id: str
    user_id: str | None = None
    requirements_id: str | None = None
    requirements_key: str | None = None

    @property
    def root(self) -> EvaluatedDecision:
        return self.decisions[-1]
