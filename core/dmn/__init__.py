"""DMN decisions: `.dmn` resources parsed into immutable decision models (`parser`), decision
tables' hit policies (`hit_policies`), decisions evaluated over variables (`evaluate`). Pure: no
I/O, no clock; evaluation reads only the variables it is given.
"""

from .evaluate import DecisionEvaluationError, DecisionOutcome, evaluate_decision, result_shapes
from .hit_policies import DecisionPolicyViolation, MatchedRule, apply_hit_policy
from .model import (
    AGGREGATIONS,
    HIT_POLICIES,
    Decision,
    DecisionInput,
    DecisionOutput,
    DecisionRequirements,
    DecisionRule,
    DecisionTable,
    LiteralExpression,
)
from .parser import parse_dmn

__all__ = [
    "AGGREGATIONS",
    "HIT_POLICIES",
    "Decision",
    "DecisionEvaluationError",
    "DecisionInput",
    "DecisionOutcome",
    "DecisionOutput",
    "DecisionPolicyViolation",
    "DecisionRequirements",
    "DecisionRule",
    "DecisionTable",
    "LiteralExpression",
    "MatchedRule",
    "apply_hit_policy",
    "evaluate_decision",
    "parse_dmn",
    "result_shapes",
]
