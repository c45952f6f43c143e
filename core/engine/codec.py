"""The domain's events wired to the event log's codec: how engine events are stored and read.

The domain (core/events.py) declares the events and their current schema versions; the upcasters
that lift an older stored version, and the codec built from both, belong to the engine.
"""

from __future__ import annotations

from flowledger.core.events import CURRENT_VERSIONS, EngineEvent
from flowledger.eventlog import EventCodec, UpcasterRegistry

upcasters = UpcasterRegistry()


def make_codec() -> EventCodec:
    return EventCodec(EngineEvent, CURRENT_VERSIONS, upcasters)
