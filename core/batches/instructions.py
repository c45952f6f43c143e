"""Modification instructions as a batch's parameters keep them (plain JSON in its events and its
configuration byte array) and as its jobs read them back: every variable value recorded as the
StoredValue an instance would store (typed values keep their type: a Long stays a Long, a Date a
Date), so a job sets exactly what the caller gave.

Pure: no clock, no SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from flowledger.core import commands as cmd
from flowledger.core.variables import StoredValue

from .variables import stored_for_batch

_VARIABLE_FIELDS = ("variables", "local_variables")


def recorded(instructions: Sequence[cmd.ModificationInstruction]) -> list[Any]:
    """The instructions as JSON values, their variables stored (checked now: a value the engine
    would refuse is refused before the batch exists)."""
    kept: list[cmd.ModificationInstruction] = []
    for instruction in instructions:
        if isinstance(instruction, cmd.StartInstruction):
            instruction = msgspec.structs.replace(
                instruction,
                variables=stored_for_batch(instruction.variables),
                local_variables=stored_for_batch(instruction.local_variables),
            )
        kept.append(instruction)
    return list(msgspec.to_builtins(kept))


# The batch parameter saying its instructions' variables are stored values (batches made before
# it held plain JSON values, read back as they are).
STORED = "storedVariables"


def read_back(values: Any, stored: bool) -> list[cmd.ModificationInstruction]:
    """The instructions `recorded` wrote, their variables the StoredValues it stored."""
    instructions = msgspec.convert(values, list[cmd.ModificationInstruction])
    if not stored:
        return instructions
    return [
        msgspec.structs.replace(
            instruction,
            **{
                field: {
                    name: msgspec.convert(value, StoredValue)
                    for name, value in getattr(instruction, field).items()
                }
                for field in _VARIABLE_FIELDS
            },
        )
        if isinstance(instruction, cmd.StartInstruction)
        else instruction
        for instruction in instructions
    ]
