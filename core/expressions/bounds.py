"""What one JUEL evaluation may build and spend: the size of its strings, and its steps.

A model is untrusted input: `'x'.replace('', s)` chained seven times would build 214 million
characters, and an expression has no loops yet may repeat costly method calls as often as its
text allows. So every string an expression builds is measured *before* it is built, and every
evaluation spends steps (its nodes, and the characters or elements its methods go through)
from the command's budget (`core.budget`), or, when no command budget is open, from a budget of
its own, so a standalone evaluation is bounded too.

Pure: no I/O, no clock. It must not add more than one count per evaluation to an expression
that calls no method (the evaluator is on every command's path), nor count short strings one
by one.
"""

from __future__ import annotations

import threading
from typing import Final

from ..budget import current_budget
from .errors import ExpressionEvaluationError

__all__ = [
    "CHARS_PER_STEP",
    "MAX_STEPS",
    "MAX_STRING",
    "SHORT_TEXT",
    "STANDALONE",
    "Steps",
    "charge",
    "charge_chars",
    "check_length",
]

# The working limit of any string an expression builds (the 4,000 characters of a String
# variable are enforced when a value becomes a variable, not here): the same as FEEL's.
MAX_STRING: Final = 1_000_000
# Steps one evaluation may spend when it runs outside a command (a command's evaluations share
# `core.budget.COMMAND_STEPS` instead).
MAX_STEPS: Final = 1_000_000
# A method going through a string spends one step per this many characters: C-speed string
# work is that much cheaper than one interpreted step (a node, a list element compared).
CHARS_PER_STEP: Final = 16
# Strings shorter than this are gone through at the cost of the node that does it.
SHORT_TEXT: Final = 256


class Steps(threading.local):
    """The steps spent by the evaluation running outside a command in this thread.

    Per thread, not per context variable: opening a context variable per evaluation would cost
    more than the evaluation, and an evaluation never yields to another in its thread."""

    used = 0


STANDALONE: Final = Steps()


def charge(steps: int, what: str) -> None:
    """Spend `steps` from the command's budget, else from this evaluation's own."""
    budget = current_budget()
    if budget is not None:
        budget.spend(steps, what)
        return
    own = STANDALONE
    own.used += steps
    if own.used > MAX_STEPS:
        raise ExpressionEvaluationError(
            f"{what} exceeded the budget of {MAX_STEPS:,} steps of an expression "
            "(each node, and each list element or "
            f"{CHARS_PER_STEP} characters a method goes through, is a step); "
            "simplify the expression or do the work in a delegate"
        )


def charge_chars(count: int, what: str) -> None:
    """Spend the steps of going through `count` characters (a short string is paid for by the
    step of its node: counting it would cost more than going through it)."""
    if count >= SHORT_TEXT:
        charge(count // CHARS_PER_STEP, what)


def check_length(length: int, what: str) -> None:
    """Refuse to build a string of `length` characters when it exceeds MAX_STRING."""
    if length > MAX_STRING:
        raise ExpressionEvaluationError(
            f"{what} would build a string of {length:,} characters, more than the "
            f"{MAX_STRING:,} an expression may build; build large text in a delegate or script"
        )
