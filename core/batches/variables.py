"""Variables a batch keeps for its jobs (its batch variables, or the variables of its
instructions): stored as an instance will store them, checked when the batch is made.

Pure: no clock, no SQL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flowledger.core import personal_data
from flowledger.core.errors import Rejected
from flowledger.core.variables import StoredValue, TypedValue, to_stored


def stored_for_batch(variables: Mapping[str, Any]) -> dict[str, StoredValue]:
    """Camunda's VariableUtil.setVariablesByBatchId: each value stored once; a transient one is
    refused (it would outlive its command), and so is one marked personal data (the batch's
    events would keep it unsealed, beyond erasure)."""
    stored: dict[str, StoredValue] = {}
    for name, value in variables.items():
        info = value.value_info or {} if isinstance(value, TypedValue) else {}
        if info.get("transient") in (True, "true"):
            raise Rejected(
                f"ENGINE-13044 Setting transient variable '{name}' asynchronously is currently "
                "not supported."
            )
        stored[name] = to_stored(name, value)
        if personal_data.flagged(stored[name]):
            raise Rejected(
                f"Variable '{name}' is marked personal data: a batch cannot set it (its value "
                "would stay unsealed in the batch's events); set it on each instance instead"
            )
    return stored
