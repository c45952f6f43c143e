"""Wall-clock and CPU time of a run's timed parts, for this process and its child processes.

CPU time is user + system time. This process: `time.process_time()`, every thread (SQLite runs
in the process, and so does the WAL checkpoint thread). Child processes (the asynchronous-history
follower is the only one while a workload runs): every live descendant read from
`/proc/<pid>/stat` (utime + stime of all its threads, in clock ticks: 10 ms at 100 Hz), plus the
ones already reaped, from `getrusage(RUSAGE_CHILDREN)`. Without /proc (not Linux) a live child
cannot be read: its CPU is then None, never a guessed 0.
"""

from __future__ import annotations

import gc
import os
import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
_TICK_S = 1 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01


def _reaped_children_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _live_descendants_s() -> float | None:
    """CPU seconds of every live process descended from this one; None without /proc."""
    if not (PROC / "self" / "stat").exists():
        return None
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir(PROC):
        if not entry.isdigit():
            continue
        try:
            text = (PROC / entry / "stat").read_text()
        except OSError:
            continue  # ended while we looked
        # The command name is in parentheses and may hold spaces: the fields follow the last ')'.
        fields = text[text.rfind(")") + 2 :].split()
        pid = int(entry)
        parent[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) * _TICK_S
    me = os.getpid()
    total = 0.0
    for pid, seconds in cpu.items():
        ancestor = parent.get(pid)
        while ancestor is not None and ancestor not in (0, 1, me):
            ancestor = parent.get(ancestor)
        if ancestor == me and pid != me:
            total += seconds
    return total


def children_cpu_s() -> float | None:
    live = _live_descendants_s()
    return None if live is None else live + _reaped_children_s()


def settle_children(quiet_s: float = 0.3, timeout_s: float = 15.0) -> None:
    """Return once the child processes' CPU time has not grown for `quiet_s` (at most after
    `timeout_s`): a follower process just spawned is done starting its interpreter, whose
    start-up would otherwise be counted in the timed part."""
    last = children_cpu_s()
    if last is None:
        return
    now = time.monotonic()
    deadline, quiet_since = now + timeout_s, now
    while now < deadline:
        time.sleep(0.05)
        now, current = time.monotonic(), children_cpu_s()
        if current != last:
            last, quiet_since = current, now
        elif now - quiet_since >= quiet_s:
            return


@dataclass
class Stopwatch:
    """Sums wall-clock and CPU seconds over the parts of a run that are timed."""

    seconds: float = 0.0
    cpu_s: float = 0.0  # this process
    children_cpu_s: float | None = 0.0  # child processes; None when they cannot be read

    @contextmanager
    def running(self, *, collect: bool = True) -> Iterator[None]:
        """Time the block; a full garbage collection first (untimed) unless `collect` is False.

        The children are read outside the CPU and wall intervals of this process (reading
        /proc costs a few ms), so the reading itself is not counted."""
        if collect:
            gc.collect()
        children_before = children_cpu_s()
        cpu_before = time.process_time()
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds += time.perf_counter() - started
            self.cpu_s += time.process_time() - cpu_before
            children_after = children_cpu_s()
            if self.children_cpu_s is None or children_before is None or children_after is None:
                self.children_cpu_s = None
            else:
                self.children_cpu_s += max(0.0, children_after - children_before)
