"""Fewer garbage collections while a rebuild or verify replays the log.

Replaying allocates millions of short-lived objects and keeps a batch of rows and a window of
instance states alive meanwhile: at CPython's default threshold (700 net allocations) the
collector ran several hundred young and a few full collections per 177,000 events, each full
one walking the whole heap: 10-15 % of the run, for a few hundred objects in cycles found (of
millions allocated). While one runs, the young generation's threshold is raised; the older
generations' are kept. The setting is the process's: other threads collect less often for
that time too (their cyclic garbage waits longer; nothing else changes), and it is put back
when the last replay ends, unless someone else changed it meanwhile.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 20_000

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, int, int] | None = None
_ours: tuple[int, int, int] | None = None


@contextmanager
def fewer_collections() -> Iterator[None]:
    global _depth, _saved, _ours
    with _lock:
        if _depth == 0:
            current = gc.get_threshold()
            _saved = None
            if 0 < current[0] < YOUNG_THRESHOLD:  # 0: collection is disabled; leave it so
                _saved = current
                _ours = (YOUNG_THRESHOLD, current[1], current[2])
                gc.set_threshold(*_ours)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                if gc.get_threshold() == _ours:
                    gc.set_threshold(*_saved)
                _saved = _ours = None
