"""How the command line writes: Rich tables and progress bars for people, JSON for tools.

Colour only reaches a terminal (Rich decides; `NO_COLOR` is honoured). Output piped elsewhere is
drawn wide, so a table is never folded to 80 columns in a file or a pager.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import msgspec
from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

PIPED_WIDTH = 200  # columns of output that is not a terminal


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """`flowledger events ID | head`: the reader has gone, which is not an error (Rich
        exits with 1). stdout goes to /dev/null so the interpreter's flush at exit is quiet."""
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(0)


def console(*, stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    interactive = stream.isatty()
    return _Console(
        file=stream,
        stderr=stderr,
        width=None if interactive else PIPED_WIDTH,
        soft_wrap=not interactive,
        highlight=False,
    )


class Output:
    """One command's output: `json` gives machine-readable data instead of tables."""

    def __init__(self, *, json: bool = False) -> None:
        self.json = json
        self.out = console()
        self.err = console(stderr=True)

    def data(self, value: Any) -> None:
        """`value` (Structs, lists, dicts) as one JSON document on stdout."""
        sys.stdout.write(msgspec.json.encode(value, enc_hook=str).decode() + "\n")

    def print(self, *things: RenderableType) -> None:
        self.out.print(*things)

    def table(
        self,
        headers: Sequence[str],
        rows: Sequence[Sequence[Any]],
        *,
        title: str | None = None,
        empty: str | None = None,
    ) -> None:
        if not rows and empty is not None:
            self.out.print(empty)
            return
        self.out.print(table(headers, rows, title=title))

    @contextmanager
    def progress(self, description: str) -> Iterator[Callable[[int, int], None]]:
        """A progress bar on stderr for a long command; the callback takes (done, total)."""
        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.err,
            transient=self.err.is_terminal,
            disable=not self.err.is_terminal,
        )
        task = bar.add_task(description, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        with bar:
            yield advance


def table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], *, title: str | None = None
) -> Table:
    grid = Table(*headers, title=title, title_justify="left", header_style="bold")
    for row in rows:
        # Text, not markup: a value such as `[1, 2]` is data, never a style tag.
        grid.add_row(*(Text(cell(c)) for c in row))
    return grid


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return when(value)
    if isinstance(value, str):
        return value
    return msgspec.json.encode(value, enc_hook=str).decode()


def when(moment: datetime | None) -> str:
    """A time as "YYYY-MM-DD HH:MM:SS.mmm" (empty for none)."""
    return "" if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
