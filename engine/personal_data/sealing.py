"""Sealing a command's personal values before they reach the log: the events of each instance
(variable values; decision inputs and outputs of processes that declare personal data) and the
command's own record in `command_log` (its payload and result name the same values).

Must not: change what the command decided. The sessions keep the plaintext events (the state
evolved from them, the rows projected inline); only the bytes written to the log are sealed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy.engine import Connection

from flowledger.core import events as ev
from flowledger.core.personal_data import PersonalData, personal, subject_of
from flowledger.core.state import InstanceState

from .cipher import seal, seal_bytes
from .keys import SubjectKeys

# The fields of commands and their results that hold variables by name.
VARIABLE_FIELDS = frozenset({"variables", "local_variables", "variables_local"})
SEALED_FIELD = "$sealed"  # a sealed value in a command record: {"$sealed": [key ids], "value": …}


class CommandSeals:
    """The keys one command sealed with: found or made once per subject and stream, the new
    ones written with the command, and which variable names each sealed (for its record)."""

    def __init__(self, keys: SubjectKeys, conn: Connection, now: datetime) -> None:
        self._store = keys
        self._conn = conn
        self._now = now
        self._keys: dict[tuple[str, str], tuple[str, bytes]] = {}
        self.new_rows: list[dict[str, object]] = []
        self.names: dict[str, dict[str, bytes]] = {}  # variable name -> key id -> key

    def key_for(self, subject: str, stream_id: str) -> tuple[str, bytes]:
        found = self._keys.get((subject, stream_id))
        if found is None:
            found = self._store.active(self._conn, subject, stream_id)
            if found is None:
                key_id, key, row = SubjectKeys.created(subject, stream_id, self._now)
                self.new_rows.append(row)
                found = (key_id, key)
            self._keys[(subject, stream_id)] = found
        return found

    def sealed_name(self, name: str, key_id: str, key: bytes) -> None:
        self.names.setdefault(name, {})[key_id] = key

    def seal_events(
        self,
        stream_id: str,
        spec: PersonalData | None,
        state: InstanceState,
        events: list[ev.Event],
    ) -> list[ev.Event]:
        """`events` with their personal values sealed (the same list when there are none)."""
        out: list[ev.Event] | None = None
        for i, event in enumerate(events):
            sealed = self._sealed(stream_id, spec, state, event)
            if sealed is not event:
                if out is None:
                    out = list(events)
                out[i] = sealed
        return events if out is None else out

    def _sealed(
        self, stream_id: str, spec: PersonalData | None, state: InstanceState, event: ev.Event
    ) -> ev.Event:
        if type(event) is ev.VariableSet:
            if not personal(spec, event.name, event.value):
                return event
            key_id, key = self.key_for(subject_of(state, spec), stream_id)
            self.sealed_name(event.name, key_id, key)
            return msgspec.structs.replace(event, value=seal(key, key_id, event.value))
        if spec is not None and type(event) is ev.ActivityDecisionEvaluated:
            # What goes into a decision of a process with personal data is often made of it:
            # every value recorded is sealed (docs/design.md, "Erasure").
            key_id, key = self.key_for(subject_of(state, spec), stream_id)
            return msgspec.structs.replace(
                event, decisions=[_sealed_decision(d, key, key_id) for d in event.decisions]
            )
        return event

    def seal_record(self, data: bytes) -> bytes:
        """A command's payload or result with the values of the variables it sealed sealed too,
        with every key the command sealed that name with (any one destroyed erases it)."""
        if not self.names:
            return data
        return msgspec.json.encode(self._walk(msgspec.json.decode(data)))

    def _walk(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self._walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for field, value in node.items():
            if field in VARIABLE_FIELDS and isinstance(value, dict):
                out[field] = {name: self._sealed_value(name, v) for name, v in value.items()}
            else:
                out[field] = self._walk(value)
        return out

    def _sealed_value(self, name: str, value: Any) -> Any:
        keys = self.names.get(name)
        if not keys:
            return value
        text = msgspec.json.encode(value)
        for key_id, key in keys.items():
            text = seal_bytes(key, key_id, text).encode()
        return {SEALED_FIELD: list(keys), "value": text.decode()}


def _sealed_decision(
    decision: ev.EvaluatedDecision, key: bytes, key_id: str
) -> ev.EvaluatedDecision:
    return msgspec.structs.replace(
        decision,
        inputs=[
            i
            if i.value.value is None
            else msgspec.structs.replace(i, value=seal(key, key_id, i.value))
            for i in decision.inputs
        ],
        outputs=[
            o
            if o.value.value is None
            else msgspec.structs.replace(o, value=seal(key, key_id, o.value))
            for o in decision.outputs
        ],
    )
