"""The event store: commits of events, gapless positions, a per-stream hash chain, a command log.

Imports nothing of flowledger's: the event vocabulary is handed to the codec by the engine.
"""

from .codec import EventCodec, Upcaster, UpcasterRegistry
from .errors import CodecError, ConcurrencyError, CorruptStream
from .integrity import CommandLogChecker, LogAnchor, LogChecker, check_stream
from .records import CommandRecord, LogProblem, NewCommit, Snapshot, StoredCommit
from .store import EventStore

__all__ = [
    "CodecError",
    "CommandLogChecker",
    "CommandRecord",
    "ConcurrencyError",
    "CorruptStream",
    "EventCodec",
    "EventStore",
    "LogAnchor",
    "LogChecker",
    "LogProblem",
    "NewCommit",
    "Snapshot",
    "StoredCommit",
    "Upcaster",
    "UpcasterRegistry",
    "check_stream",
]
