"""Handler of `RecordSigningKey`: the key that signs the log's heads, recorded in the log's own
stream the first time it is used (a rotation names the key it replaces).

Reads only that stream; a key already recorded last appends nothing.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core import events as ev
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.unit_of_work import UnitOfWork


def record(unit: UnitOfWork, command: cmd.RecordSigningKey) -> bool:
    """True when the key was recorded now, False when it is the key recorded last."""
    stream = ev.SIGNING_KEYS_STREAM
    head = unit.store.stream_head(unit.conn, stream)
    last: str | None = None
    if head is not None:
        for _commit, events in unit.repository.stream(unit.conn, stream):
            for event in events:
                if isinstance(event, ev.SigningKeyIntroduced):
                    last = event.key_hash
    if last == command.key_hash:
        return False
    introduced = ev.SigningKeyIntroduced(
        key_hash=command.key_hash,
        name=command.name,
        public_key=command.public_key,
        origin=command.origin,
        time=unit.ctx.now,
        replaces=last,
    )
    unit.append(
        stream, 0 if head is None else head[0], None if head is None else head[1], [introduced]
    )
    return True


HANDLERS = (Handler(cmd.RecordSigningKey, record, result=bool),)
