"""Exceptions raised when compiling and evaluating JUEL expressions.

Pure: no I/O.
"""

from __future__ import annotations

__all__ = ["ExpressionEvaluationError", "ExpressionSyntaxError", "UnknownIdentifier"]


class ExpressionSyntaxError(ValueError):
    """The text is not a valid expression; raised once, at compile (deploy) time."""

    def __init__(self, text: str, position: int, reason: str) -> None:
        # All three go into args so the exception survives pickling (e.g. across processes).
        super().__init__(text, position, reason)
        self.text = text
        self.position = position
        self.reason = reason

    def __str__(self) -> str:
        return (
            f"Syntax error in expression '{self.text}' at position {self.position}: {self.reason}"
        )


class ExpressionEvaluationError(Exception):
    """Evaluating a compiled expression failed (bad coercion, refused access, unknown method...).

    Helpers deep inside the evaluator do not know the expression text, so they raise with
    ``source=None``; ``Expression.evaluate`` fills ``source`` in on the way out.
    """

    def __init__(self, reason: str, *, source: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.source = source

    def __str__(self) -> str:
        if self.source is None:
            return self.reason
        return f"{self.reason} in {self.source}"


class UnknownIdentifier(ExpressionEvaluationError):
    """A top-level identifier could not be resolved; raised by ``EvaluationContext.resolve``."""

    def __init__(self, name: str, *, source: str | None = None) -> None:
        super().__init__(f"Cannot resolve identifier '{name}'", source=source)
        self.name = name
        # Pickling re-creates the exception as cls(*args): args must match __init__.
        self.args = (name,)

    def __str__(self) -> str:
        if self.source is None:
            return self.reason
        # Same wording as Camunda 7, so operators can search for familiar messages.
        return f"Unknown property used in expression: {self.source}. Cause: {self.reason}"
