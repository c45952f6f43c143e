"""How the reports write figures: the table shape, numbers to three significant digits, median
with its range, ratios. Shared by the workload tables and the rest of the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .results import Spread

NA = "n/a"


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    text_columns: frozenset[int] = frozenset({0})  # left-aligned; the others are numbers


# -- number formatting ------------------------------------------------------------------------


def number(value: float | None, digits: int = 3) -> str:
    """`digits` significant digits, thousands separated: 1,234 / 56.7 / 0.891."""
    if value is None:
        return NA
    magnitude = abs(value)
    if magnitude == 0:
        return "0"
    if magnitude >= 10 ** (digits - 1):
        return f"{value:,.0f}"
    decimals = 0
    while magnitude < 10 ** (digits - 1 - decimals) and decimals < 6:
        decimals += 1
    return f"{value:,.{decimals}f}"


def spread(value: Spread | None) -> str:
    if value is None:
        return NA
    if value.min == value.max:
        return number(value.median)
    return f"{number(value.median)} ({number(value.min)}-{number(value.max)})"


def median(value: Spread | None) -> str:
    return NA if value is None else number(value.median)


def mebibytes(value: int | None) -> str:
    return NA if value is None else f"{value / 2**20:.1f}"


def ratio(value: float | None) -> str:
    return NA if value is None else f"{value:.2f}x"
