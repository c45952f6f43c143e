"""What an expression needs from its surroundings: identifier and function resolution.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from .errors import ExpressionEvaluationError, UnknownIdentifier

__all__ = ["EvaluationContext", "MappingContext"]


class EvaluationContext(Protocol):
    """Supplies values for top-level identifiers and implementations of functions."""

    def resolve(self, name: str) -> object:
        """Value of a top-level identifier; raise ``UnknownIdentifier(name)`` if unknown."""
        ...

    def call_function(self, name: str, args: list[object]) -> object:
        """Call ``name`` (``"f"`` or ``"ns:f"``); raise ExpressionEvaluationError if unknown."""
        ...


class MappingContext:
    """An EvaluationContext over plain mappings: handy for tests, scripts and simple callers."""

    __slots__ = ("_functions", "_variables")

    def __init__(
        self,
        variables: Mapping[str, object] | None = None,
        functions: Mapping[str, Callable[..., object]] | None = None,
    ) -> None:
        self._variables: Mapping[str, object] = variables if variables is not None else {}
        self._functions: Mapping[str, Callable[..., object]] = (
            functions if functions is not None else {}
        )

    def resolve(self, name: str) -> object:
        try:
            return self._variables[name]
        except KeyError:
            raise UnknownIdentifier(name) from None

    def call_function(self, name: str, args: list[object]) -> object:
        function = self._functions.get(name)
        if function is None:
            raise ExpressionEvaluationError(f"Unknown function '{name}'")
        return function(*args)
