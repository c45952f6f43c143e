"""The engine's cache of instance states, bounded by an estimate of the memory they hold.

A count bound alone lets twenty instances with a 10 MB variable each take hundreds of MB; the
byte bound keeps the cache near its budget whatever the states hold. The estimate counts what
grows with input (variable values, error details) and a fixed cost per element; it is cheap (one
pass over the variables, on the command that changed them) and errs on the high side.

Safe to share between threads: several commands of one engine may run at once on a server
database. A command takes the state it decides on out of the cache (`take`), so no state in the
cache is ever changed in place, and a command puts back only what it committed.

A cached state does not hide a damaged stream for long: each entry remembers when its stream was
last read and checked from the log (`checked_at`), and the repository reads it again once that
is older than its recheck interval (the stream's head and witness are compared on every command).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from flowledger.core.state import InstanceState

DEFAULT_MAX_STATES = 10_000
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
_PER_STATE = 1_000  # the state object and its scalar fields
_PER_ELEMENT = 400  # an execution, activity instance, task or external task
_PER_VARIABLE = 360  # the Variable and StoredValue objects, ids, dates, its index entries


@dataclass
class Cached:
    state: InstanceState
    version: int
    head_hash: str | None
    size: int = field(default=0, compare=False)
    # When the stream was last read from the log, its commits checked (time.monotonic()); a
    # state a command evolved keeps the time of the read it started from.
    checked_at: float = field(default_factory=time.monotonic, compare=False)


def state_size(state: InstanceState) -> int:
    """About how many bytes of memory `state` holds."""
    size = _PER_STATE + _PER_ELEMENT * (
        len(state.executions)
        + len(state.activity_instances)
        + len(state.tasks)
        + len(state.external_tasks)
    )
    for variable in state.variables.values():
        value = variable.value.value
        size += _PER_VARIABLE + len(variable.name) + (len(value) if isinstance(value, str) else 0)
    for task in state.external_tasks.values():
        size += len(task.error_details or "") + len(task.error_message or "")
    return size


class StateCache:
    """Least recently used states, at most `max_states` of them and about `max_bytes` in all.

    A state larger than an eighth of the budget is not kept at all: it would push out many
    others, and its next command reads it from the log (snapshot + tail) instead."""

    def __init__(
        self, max_states: int = DEFAULT_MAX_STATES, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.max_states = max_states
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, Cached] = OrderedDict()
        self._guard = threading.Lock()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, stream_id: object) -> bool:
        return stream_id in self._entries

    def __getitem__(self, stream_id: str) -> Cached:
        return self._entries[stream_id]

    def items(self) -> list[tuple[str, Cached]]:
        with self._guard:
            return list(self._entries.items())

    def clear(self) -> None:
        with self._guard:
            self._entries.clear()
            self.bytes = 0

    def peek(self, stream_id: str) -> Cached | None:
        """The entry without marking it used."""
        return self._entries.get(stream_id)

    def get(self, stream_id: str) -> Cached | None:
        with self._guard:
            cached = self._entries.get(stream_id)
            if cached is not None:
                self._entries.move_to_end(stream_id)
            return cached

    def take(self, stream_id: str) -> Cached | None:
        """The entry, removed: the caller may change its state, nobody else sees it meanwhile."""
        with self._guard:
            cached = self._entries.pop(stream_id, None)
            if cached is not None:
                self.bytes -= cached.size
            return cached

    def put(self, stream_id: str, cached: Cached) -> None:
        """Keep `cached`, unless the cache holds a later version of the stream already (two
        commands of the stream that committed one after the other may publish in either order)."""
        size = state_size(cached.state)  # outside the guard: a pass over the variables
        with self._guard:
            held = self._entries.get(stream_id)
            if held is not None and held.version > cached.version:
                return
            self._pop(stream_id)
            cached.size = size
            if size > self.max_bytes // 8:
                return
            self._entries[stream_id] = cached
            self.bytes += size
            while len(self._entries) > self.max_states or self.bytes > self.max_bytes:
                _, evicted = self._entries.popitem(last=False)
                self.bytes -= evicted.size

    def pop(self, stream_id: str) -> None:
        with self._guard:
            self._pop(stream_id)

    def _pop(self, stream_id: str) -> None:
        cached = self._entries.pop(stream_id, None)
        if cached is not None:
            self.bytes -= cached.size
