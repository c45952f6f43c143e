"""Time-ordered UUIDv7 ids: UUID-shaped as Camunda clients expect, cheap to append to B-trees.

Ids are generated in decide and recorded in events; replay never generates one.
"""

from __future__ import annotations

import os
import random
import threading
import time
import uuid

_lock = threading.Lock()
_last_ms = 0
_counter = 0
# The random bits only keep ids of different processes apart (order comes from the clock and
# counter), so a generator seeded from the OS is enough and spares a system call per id.
_random = random.Random(os.urandom(16))
os.register_at_fork(after_in_child=lambda: _random.seed(os.urandom(16)))


def uuid7() -> str:
    """A UUIDv7 string; monotonic within this process even when the clock stalls or steps back."""
    global _last_ms, _counter
    with _lock:
        ms = time.time_ns() // 1_000_000
        if ms <= _last_ms:
            # 12 bits of counter per millisecond; borrow the next millisecond when they run out.
            _counter += 1
            if _counter > 0xFFF:
                _last_ms += 1
                _counter = 0
            ms = _last_ms
        else:
            _last_ms = ms
            _counter = _random.getrandbits(10)
        counter = _counter
        tail = _random.getrandbits(62)
    value = (ms & 0xFFFF_FFFF_FFFF) << 80 | 0x7 << 76 | counter << 64 | 0x2 << 62 | tail
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_NAMESPACE = uuid.UUID("5c6f1d3e-8f1a-4c53-9b1e-6a0f3c2d7e11")


def derived_id(base: str, purpose: str) -> str:
    """A deterministic id for a row that exists because of another (a variable's byte array).

    Rebuilding projections from the log must produce the same ids as the live run did.
    """
    return str(uuid.uuid5(_NAMESPACE, f"{base}/{purpose}"))
