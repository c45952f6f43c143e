"""JUEL (Java Unified Expression Language, EL 2.2) as used by Camunda 7 models: ${...} / #{...}.

Compiled once at deploy time into closures, evaluated many times; never uses Python eval/exec.
"""

from .coercion import Long
from .context import EvaluationContext, MappingContext
from .errors import ExpressionEvaluationError, ExpressionSyntaxError, UnknownIdentifier
from .expression import Expression, compile_expression

__all__ = [
    "EvaluationContext",
    "Expression",
    "ExpressionEvaluationError",
    "ExpressionSyntaxError",
    "Long",
    "MappingContext",
    "UnknownIdentifier",
    "compile_expression",
]
