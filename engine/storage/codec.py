"""The domain's events wired to the event log's codec: how engine events are stored and read.

The domain (core/events.py) declares the events and their current schema versions; the upcasters
that lift an older stored version, and the codec built from both, belong to the engine.
"""

from __future__ import annotations

from typing import Any

from flowledger.core.events import CURRENT_VERSIONS, EngineEvent
from flowledger.eventlog import EventCodec, UpcasterRegistry
from flowledger.eventlog.codec import Opener

upcasters = UpcasterRegistry()


@upcasters.register("TaskClaimed", 1)
def _task_claimed_names_the_assignee(raw: dict[str, Any]) -> dict[str, Any]:
    """v1 -> v2: the claiming user's field is `assignee`, as in TaskAssigned."""
    raw["assignee"] = raw.pop("user_id")
    return raw


def make_codec(opener: Opener | None = None) -> EventCodec:
    """The engine's codec; with `opener`, sealed personal values are opened as they are read."""
    return EventCodec(EngineEvent, CURRENT_VERSIONS, upcasters, opener)
