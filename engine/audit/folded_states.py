"""Folded states kept for time travel: every CHECKPOINT_EVERY events of an instance whose past
was read, its state (encoded) at the end of the commit that crossed the mark, least recently
used first out, bounded by their bytes.

A state-at request starts from the nearest kept state at or before its position and folds only
the events after it (at most about CHECKPOINT_EVERY for a slider's neighbouring steps), instead
of the whole stream. A kept state is the fold of an append-only stream up to a version, so it
never goes stale; it names the hash of the commit it ends at, and the next commit read must link
to that hash (else the stream is not the one folded: the instance's states are dropped).

Safe to share between threads (a server's requests): one lock around the maps.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from flowledger.core.instance_view import VariableView

CHECKPOINT_EVERY = 250  # events between two kept states of one instance
MAX_BYTES = 32 * 1024 * 1024  # encoded states kept at most, all instances together


@dataclass(frozen=True)
class Checkpoint:
    """The instance folded up to the commit ending at `version` (at `position`)."""

    version: int
    position: int
    recorded_at: datetime
    commit_hash: str
    state: bytes  # core.state.encode_state: decoded afresh for every use, never shared
    # an ended instance's variables as they were right before its end (core.instance_view)
    variables_at_end: tuple[VariableView, ...] | None
    first_position: int  # the instance's first position, for a point before it began


class FoldedStates:
    """The kept states of every instance, by stream and version."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: OrderedDict[tuple[str, int], Checkpoint] = OrderedDict()
        self._versions: dict[str, list[int]] = {}  # stream -> versions kept, ascending
        self._guard = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def nearest(self, stream_id: str, position: int | None) -> Checkpoint | None:
        """The kept state of the stream with the greatest position at or before `position`
        (the last one kept when None)."""
        with self._guard:
            versions = self._versions.get(stream_id)
            if not versions:
                return None
            for version in reversed(versions):
                found = self._entries[(stream_id, version)]
                if position is None or found.position <= position:
                    self._entries.move_to_end((stream_id, version))
                    return found
            return None

    def keep(self, stream_id: str, checkpoint: Checkpoint) -> None:
        size = len(checkpoint.state)
        if size > self.max_bytes // 8:
            return  # one huge state would push out many others
        key = (stream_id, checkpoint.version)
        with self._guard:
            if key in self._entries:
                self._entries.move_to_end(key)
                return
            self._entries[key] = checkpoint
            bisect.insort(self._versions.setdefault(stream_id, []), checkpoint.version)
            self.bytes += size
            while self.bytes > self.max_bytes:
                (old_stream, old_version), old = self._entries.popitem(last=False)
                self._forget(old_stream, old_version, old)

    def drop(self, stream_id: str) -> None:
        """Forget the stream's states (its log is not the one they were folded from)."""
        with self._guard:
            for version in self._versions.pop(stream_id, []):
                self.bytes -= len(self._entries.pop((stream_id, version)).state)

    def _forget(self, stream_id: str, version: int, checkpoint: Checkpoint) -> None:
        self.bytes -= len(checkpoint.state)
        versions = self._versions[stream_id]
        versions.remove(version)
        if not versions:
            del self._versions[stream_id]
