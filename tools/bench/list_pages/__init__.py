"""The list-pages benchmark: engine-rest's list and count endpoints timed on a big database.

`python -m flowledger.tools.bench.list_pages --help` (`command`). The scenario (`scenario`) is
built once through the engine and cached (`build`), put into the database under test
(`database`); every page (`pages`) is timed through the served app (`timing`) and reported as
a table (`report`).
"""

from __future__ import annotations

from .command import main

__all__ = ["main"]
