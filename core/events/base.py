"""The base of every event Struct, and how an event looks as stored JSON.

Pure data: the tagged union of all events is assembled in the package's `__init__`.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of all events; `v` is the schema version the event was written with."""

    v: int = 1


def to_dict(event: Event) -> dict[str, Any]:
    """The event as its stored JSON object (type tag included)."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    return data
