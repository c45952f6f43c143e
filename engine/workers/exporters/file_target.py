"""The JSON-lines export target: one CloudEvent a line, appended and fsynced per batch.

On open a torn last line (a crash in the middle of a write) is cut off, and the position of the
last whole line is what the file holds: the runner skips what is already there, so after any
crash every position is in the file exactly once, in order.

Must not: rewrite or reorder a line that was complete, or guess at a last line it cannot read
(a file that is not an export of this log is refused, not appended to).
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from .targets import Held, Outgoing, TargetError

_TAIL = 64 * 1024  # read back from the end this much at a time to find the last line


class _Last(msgspec.Struct):
    position: int
    source: str | None = None


class FileTarget:
    kind = "file"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.shown = f"file:{path}"
        self._fd: int | None = None

    def open(self) -> Held | None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o640)
        except OSError as exc:
            raise TargetError(f"{self.path}: {exc.strerror}") from None
        try:
            held = self._cut_torn_tail(fd)
        except BaseException:
            os.close(fd)
            raise
        os.lseek(fd, 0, os.SEEK_END)
        self._fd = fd
        return held

    def _cut_torn_tail(self, fd: int) -> Held | None:
        size = os.fstat(fd).st_size
        end, tail = size, b""
        # Find the last newline; what follows it is a line a crash tore.
        while end > 0:
            start = max(0, end - _TAIL)
            tail = os.pread(fd, end - start, start) + tail
            end = start
            cut = tail.rfind(b"\n")
            if cut >= 0:
                whole = end + cut + 1
                break
        else:
            whole = 0
        if whole < size:
            os.ftruncate(fd, whole)
            os.fsync(fd)
        if whole == 0:
            return None
        # The last whole line: from the newline before it (or the file's start).
        line_end = whole - 1
        begin = max(0, line_end - _TAIL)
        chunk = os.pread(fd, line_end - begin, begin)
        while b"\n" not in chunk and begin > 0:
            begin = max(0, begin - _TAIL)
            chunk = os.pread(fd, line_end - begin, begin)
        line = chunk.rsplit(b"\n", 1)[-1]
        try:
            last = msgspec.json.decode(line, type=_Last)
        except msgspec.DecodeError:
            raise TargetError(
                f"{self.path}: its last line is not a CloudEvent with a position (not an "
                "export of flowledger: name another file)"
            ) from None
        return Held(last.position, last.source)

    def send(self, batch: list[Outgoing]) -> None:
        if self._fd is None:
            raise TargetError(f"{self.path} is not open")
        data = b"".join(item.body + b"\n" for item in batch)
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            os.fsync(self._fd)
        except OSError as exc:
            raise TargetError(f"{self.path}: {exc.strerror}") from None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
