"""Erasing a data subject's personal data in one instance: the fact recorded in its stream.

Pure: the engine destroys the keys and finds what held a sealed value; this records it.
"""

from __future__ import annotations

from .events.variables import ErasedDecision, PersonalDataErased
from .session import InstanceSession


def erase(
    session: InstanceSession,
    keys: list[str],
    reason: str,
    *,
    variable_ids: list[str],
    detail_ids: list[str],
    decisions: list[ErasedDecision],
) -> None:
    """Record that the keys were destroyed, and what held a value sealed with them."""
    session.emit(
        PersonalDataErased(
            keys=keys,
            reason=reason,
            time=session.ctx.now,
            variable_ids=variable_ids,
            detail_ids=detail_ids,
            decisions=decisions,
            user_id=session.ctx.actor,
        )
    )
