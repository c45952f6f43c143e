"""Events of process variables: a variable set (created or changed) or deleted.

Pure data; the value is stored as `core.variables` serializes it.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from ..variables import StoredValue
from .base import Event


class VariableSet(Event, tag=True, frozen=True):
    """A variable was created or changed; `variable_id` says which instance of the name."""

    variable_id: str
    name: str
    execution_id: str
    value: StoredValue
    time: datetime
    detail_id: str
    task_id: str | None = None


class VariableDeleted(Event, tag=True, frozen=True):
    variable_id: str
    time: datetime


class ErasedDecision(msgspec.Struct, frozen=True, omit_defaults=True):
    """Which recorded values of one decision instance were sealed with the destroyed keys: the
    indexes of its inputs and outputs as recorded (ACT_HI_DEC_IN / ACT_HI_DEC_OUT)."""

    decision_instance_id: str
    inputs: list[int] = []
    outputs: list[int] = []


class PersonalDataErased(Event, tag=True, frozen=True):
    """A data subject's personal data in this instance was erased: the keys its values are
    sealed with were destroyed (they are no longer in the database), so the log's ciphertext
    can no longer be read. Names what held such a value, so that the state and the tables drop
    the plaintext they keep: the variables whose current value was sealed, the history details
    of sealed values, and the sealed inputs and outputs of decisions."""

    keys: list[str]
    reason: str
    time: datetime
    variable_ids: list[str] = []
    detail_ids: list[str] = []
    decisions: list[ErasedDecision] = []
    user_id: str | None = None
