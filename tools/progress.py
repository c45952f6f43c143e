"""A plain progress bar on stderr for long runs (verify, the benchmark); no dependency.

On a terminal it redraws one line (at most ten times a second); elsewhere (CI logs, pytest) it
prints one line per phase so logs stay short.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 28


class Progress:
    """Counts finished steps of the whole run and shows what is running now."""

    def __init__(self, total: int, *, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.interactive = enabled and self.stream.isatty()
        self._label = ""
        self._last_draw = 0.0
        self._started = time.monotonic()

    def phase(self, label: str) -> None:
        """A new step begins (one workload/system repetition, one engine figure, ...)."""
        self._label = label
        if not self.enabled:
            return
        if self.interactive:
            self._draw(force=True)
        else:
            print(f"[{self._percent():3d}%] {label}", file=self.stream, flush=True)

    def tick(self, steps: int = 1) -> None:
        self.done = min(self.total, self.done + steps)
        if self.interactive:
            self._draw()

    def note(self, text: str) -> None:
        """Progress inside a long step (e.g. building the cold-start database)."""
        if not self.enabled:
            return
        if self.interactive:
            self._label = text
            self._draw()
        else:
            print(f"       {text}", file=self.stream, flush=True)

    def finish(self) -> None:
        if self.interactive:
            self.done = self.total
            self._draw(force=True)
            print(file=self.stream, flush=True)

    def _percent(self) -> int:
        return int(100 * self.done / self.total)

    def _draw(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_draw < 0.1:
            return
        self._last_draw = now
        filled = int(WIDTH * self.done / self.total)
        elapsed = int(now - self._started)
        bar = "#" * filled + "." * (WIDTH - filled)
        line = f"\r[{bar}] {self._percent():3d}% {elapsed // 60:d}:{elapsed % 60:02d} {self._label}"
        self.stream.write(line[:120].ljust(120))
        self.stream.flush()
