"""The event store: commits of events, gapless positions, a per-stream hash chain, a command log.

Imports nothing of flowledger's: the event vocabulary is handed to the codec by the engine.
"""

from .codec import EventCodec, Upcaster, UpcasterRegistry
from .errors import CodecError, ConcurrencyError
from .store import CommandRecord, EventStore, LogProblem, NewCommit, Snapshot, StoredCommit

__all__ = [
    "CodecError",
    "CommandRecord",
    "ConcurrencyError",
    "EventCodec",
    "EventStore",
    "LogProblem",
    "NewCommit",
    "Snapshot",
    "StoredCommit",
    "Upcaster",
    "UpcasterRegistry",
]
