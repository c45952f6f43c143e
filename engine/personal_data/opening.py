"""Opening the sealed values of commits read from the log (the codec's opener): each becomes
its plaintext again while its key exists, and `erased` once the key was destroyed.

Must not: fail a read because a key is gone. An erased value is a fact of the log, shown as such.
"""

from __future__ import annotations

from typing import Any

import msgspec

from flowledger.core import events as ev
from flowledger.core.personal_data import erased_value, is_sealed, sealing_key
from flowledger.core.variables import StoredValue

from .cipher import open_value
from .keys import SubjectKeys

MARKER = b'"sealed"'  # in a commit's bytes when it may hold a sealed value


class Opener:
    """Called by the codec with the events of a commit whose bytes hold MARKER."""

    marker = MARKER

    def __init__(self, keys: SubjectKeys) -> None:
        self.keys = keys

    def __call__(self, events: list[Any]) -> list[Any]:
        wanted = {sealing_key(v) for e in events for v in _values(e) if is_sealed(v)}
        if not wanted:
            return events
        keys = self.keys.keys(wanted)
        return [_opened(e, keys) for e in events]


def _values(event: Any) -> list[StoredValue]:
    if type(event) is ev.VariableSet:
        return [event.value]
    if type(event) in (ev.ActivityDecisionEvaluated, ev.DecisionEvaluated):
        return [x.value for d in event.decisions for x in (*d.inputs, *d.outputs)]
    return []


def _open(value: StoredValue, keys: dict[str, bytes | None]) -> StoredValue:
    if not is_sealed(value):
        return value
    key = keys.get(sealing_key(value))
    opened = None if key is None else open_value(key, value)
    return erased_value() if opened is None else opened


def _opened(event: Any, keys: dict[str, bytes | None]) -> Any:
    if type(event) is ev.VariableSet:
        return msgspec.structs.replace(event, value=_open(event.value, keys))
    if type(event) in (ev.ActivityDecisionEvaluated, ev.DecisionEvaluated):
        decisions = [
            msgspec.structs.replace(
                d,
                inputs=[msgspec.structs.replace(i, value=_open(i.value, keys)) for i in d.inputs],
                outputs=[msgspec.structs.replace(o, value=_open(o.value, keys)) for o in d.outputs],
            )
            for d in event.decisions
        ]
        return msgspec.structs.replace(event, decisions=decisions)
    return event
