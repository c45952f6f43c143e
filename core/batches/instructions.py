"""Modification instructions as a batch's parameters keep them (plain JSON in its events and its
configuration byte array) and as its jobs read them back: every variable value recorded as the
StoredValue an instance would store (typed values keep their type: a Long stays a Long, a Date a
Date), so a job sets exactly what the caller gave.

Pure: no clock, no SQL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from flowledger.core import commands as cmd
from flowledger.core import personal_data
from flowledger.core.errors import Rejected
from flowledger.core.variables import StoredValue, to_stored

_VARIABLE_FIELDS = ("variables", "local_variables")


def _stored(variables: Mapping[str, Any]) -> dict[str, StoredValue]:
    stored = {name: to_stored(name, value) for name, value in variables.items()}
    for name, value in stored.items():
        if personal_data.flagged(value):
            raise Rejected(
                f"Variable '{name}' is marked personal data: a batch cannot set it (its value "
                "would stay unsealed in the batch's events); set it on each instance instead"
            )
    return stored


def recorded(instructions: Sequence[cmd.ModificationInstruction]) -> list[Any]:
    """The instructions as JSON values, their variables stored (checked now: a value the engine
    would refuse is refused before the batch exists)."""
    kept: list[cmd.ModificationInstruction] = []
    for instruction in instructions:
        if isinstance(instruction, cmd.StartInstruction):
            instruction = msgspec.structs.replace(
                instruction,
                variables=_stored(instruction.variables),
                local_variables=_stored(instruction.local_variables),
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
