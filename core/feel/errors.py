"""Exceptions raised when parsing and evaluating FEEL expressions and unary tests.

Pure: no I/O. Every failure the FEEL package reports is one of these types.
"""

from __future__ import annotations

__all__ = ["FeelError", "FeelEvaluationError", "FeelSyntaxError"]


class FeelError(Exception):
    """Base of every FEEL failure, so callers can catch the family at once."""


class FeelSyntaxError(FeelError):
    """The text is not valid FEEL; raised once, at parse (deploy) time."""

    def __init__(self, text: str, position: int, reason: str) -> None:
        # All three go into args so the exception survives pickling (e.g. across processes).
        super().__init__(text, position, reason)
        self.text = text
        self.position = position
        self.reason = reason

    def __str__(self) -> str:
        shown = self.text if len(self.text) <= 200 else self.text[:200] + "..."
        return f'{self.reason} at position {self.position} in "{shown}"'


class FeelEvaluationError(FeelError):
    """Evaluation could not go on (a limit was hit, or an input value has an unusable type).

    Ordinary FEEL failures (type mismatch, bad argument) are not errors: they give null,
    as Camunda 7 turns feel-scala's failure values into null.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason
