"""Events of the keys that sign the log's tree heads: a key used for the first time (a rotation
when another was used before), in a stream of its own.

Pure data. The private key never leaves its file; the log keeps the public key, so an auditor
who trusts the log's first head can learn every later key from the log itself.
"""

from __future__ import annotations

from datetime import datetime

from .base import Event

SIGNING_KEYS_STREAM = "flowledger-signing-keys"


class SigningKeyIntroduced(Event, tag=True, frozen=True):
    """Heads are signed with this key from now on. `key_hash`: the signed note's key id (hex,
    C2SP: the first 4 bytes of SHA-256 over name, newline, 0x01 and the key); `public_key`: the
    raw Ed25519 key, base64; `replaces`: the key hash used before, None for the first key."""

    key_hash: str
    name: str
    public_key: str
    time: datetime
    origin: str | None = None  # the log's name in its signed heads; None: a log's first commit
    replaces: str | None = None
